//! Conversations in the browser, as stores per domain and the actions that cross them.
//!
//! - `store`: the database handle; every chat write goes through `ChatDb::write` (a
//!   `storage::Batch`: new records put whole, changes merged field by field, so a tab
//!   never overwrites fields another tab changed), announced to other tabs (`broadcast`).
//! - `list`: the sidebar's conversation list (rename, pin, titles).
//! - `open`: the open conversation: messages on screen (`live`), tree, path, branches.
//! - `runs`: which reply each conversation is writing, its phase, stop, queues.
//! - `choice`: the model new messages go to.
//! - `undo`: the last delete and its toast.
//! - `memory_review`: the user's answer to a memory the model proposed.
//! - `question`: the user's answer to a question the model asked (`ask_user`), which
//!   sends the reply on.
//! - `context`: `/clear` (the context starts again after the last message) and taking it
//!   back.
//! - `actions`: send, regenerate, retry, continue, edit, delete, undo: they cross the
//!   stores above; `comparison`: one question to several models side by side, stop
//!   one, choose one, merge them; `starting`: running one reply, or several side by
//!   side, under this tab's claim, then the next queued message.
//! - `turn`: one reply as a pipeline of phases; `transport` opens model streams (the
//!   only place that does), `stream` reads them, `target` finds a model's provider, key
//!   and capabilities, `task` runs task-model calls, `images` the built-in image
//!   generator.
//! - `sync`: keeping two tabs consistent; `tabs`: which tab writes each conversation's
//!   reply (Web Locks), so two tabs never write replies in one conversation at once.

mod actions;
mod broadcast;
mod choice;
mod comparison;
mod context;
mod images;
mod list;
mod live;
pub mod memory_review;
mod model_stream;
mod open;
mod question;
mod records;
mod runs;
mod starting;
mod store;
mod stream;
mod sync;
mod tabs;
mod target;
mod task;
mod temporary;
pub mod transport;
mod turn;
mod undo;

use leptos::prelude::*;

pub use choice::ModelChoice;
pub use list::Conversations;
pub use live::LiveMessage;
pub use open::OpenConversation;
pub use question::QuestionAt;
pub use runs::Runs;
pub use store::ChatDb;

/// The chat, provided as context: its stores, and the actions that cross them.
#[derive(Clone, Copy)]
pub struct Chat {
    /// The database handle (and the storage problem to show).
    pub store: ChatDb,
    /// The conversation list.
    pub list: Conversations,
    /// The open conversation.
    pub open: OpenConversation,
    /// The runs and their queues.
    pub runs: Runs,
    /// The model new messages go to.
    pub choice: ModelChoice,
    /// The workspace the sidebar is in (new chats go to it).
    pub workspace: crate::workspaces::CurrentWorkspace,
    /// The assistant the new chat starts with, if any.
    pub assistant: crate::assistants::opening::NewChatAssistant,
    /// Whether the new chat is a temporary one (kept in this tab's memory only).
    pub temporary: RwSignal<bool>,
    /// The replies other tabs write, and this tab's claims.
    tabs: tabs::Tabs,
    /// A message whose sending failed before anything was stored; the composer takes it
    /// back, text and files.
    unsent: RwSignal<Option<Unsent>>,
    undo: undo::UndoSlot,
    turn: turn::TurnContext,
}

/// A message that was not sent and stored nothing: its text and its attached files
/// (their bytes are still stored), for the composer to hold again.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsent {
    /// What the user wrote.
    pub text: String,
    /// The files that were attached.
    pub attachments: Vec<hearth_core::attachment::Attachment>,
}

/// The chat state.
pub fn use_chat() -> Chat {
    expect_context::<Chat>()
}

impl Chat {
    /// Whether the model new messages go to takes images (tracked); `None` without a
    /// model.
    pub fn chosen_sees_images(&self) -> Option<bool> {
        let choice = self.choice.get()?;
        self.turn.targets.track();
        Some(self.turn.targets.capabilities(&choice).vision)
    }

    /// Opens the database, loads the conversation list and starts listening to other tabs.
    pub fn load() -> Self {
        let providers = crate::providers::use_providers();
        let prefs = crate::preferences::use_prefs();
        let toasts = crate::ui::toast::use_toasts();
        let i18n = crate::i18n::use_i18n();
        let store = ChatDb::new();
        let list = Conversations::new(store);
        let runs = Runs::new();
        let tabs = tabs::Tabs::new();
        let open = OpenConversation::new(store, list, runs, tabs);
        let models = providers.models();
        // (provider id, provider name, model ids) of every enabled provider with models.
        let offered = Memo::new(move |_| {
            let models = models.get();
            providers.list.with(|list| {
                list.iter()
                    .filter(|p| p.enabled)
                    .filter_map(|p| {
                        let ids: Vec<String> =
                            models.get(&p.id)?.iter().map(|m| m.id.clone()).collect();
                        (!ids.is_empty()).then(|| (p.id.clone(), p.name.clone(), ids))
                    })
                    .collect::<Vec<_>>()
            })
        });
        let default = Signal::derive(move || prefs.value.with(|p| p.default_model.clone()));
        let chat = Self {
            store,
            list,
            open,
            runs,
            choice: ModelChoice::new(offered, default),
            workspace: crate::workspaces::CurrentWorkspace::load(),
            assistant: crate::assistants::opening::NewChatAssistant::new(),
            temporary: RwSignal::new(false),
            tabs,
            unsent: RwSignal::new(None),
            undo: undo::UndoSlot::new(store, toasts, i18n),
            turn: turn::TurnContext {
                store,
                list,
                open,
                runs,
                providers,
                targets: target::Targets {
                    providers,
                    prefs,
                    catalogue: models,
                },
                prefs,
                plugins: crate::plugins::use_plugins(),
                skills: crate::skills::use_skills(),
                toasts,
                i18n,
            },
        };
        store.spawn(async move {
            if store.open().await.is_some() {
                match list.load().await {
                    Ok(()) => request_animation_frame(|| {
                        crate::browser::mark("hearth:conversations");
                    }),
                    Err(error) => store.show_error(error),
                }
            }
            store.mark_loaded();
            sync::listen(chat);
            request_persistence();
            // The chunk that reads message records is not on the first load; fetch it
            // now, while the user looks at the list, so the first conversation opened
            // does not wait for it (reading a conversation that does not exist).
            if store.get().is_some() {
                let _ = store.messages_of("").await;
            }
        });
        chat
    }

    /// Whether the models on offer and the default model are still being read at start
    /// (tracked): a message sent meanwhile waits for them rather than being told no
    /// model is set up, or going to another model than the user's default.
    pub fn models_unread(&self) -> bool {
        !self.turn.providers.settled() || !self.turn.prefs.loaded()
    }

    /// A message whose first write failed, for the composer to take back (once).
    pub fn take_unsent(&self) -> Option<Unsent> {
        let unsent = self.unsent.get();
        if unsent.is_some() {
            self.unsent.set(None);
        }
        unsent
    }
}

/// Asks the browser to keep this site's storage under pressure (best effort).
fn request_persistence() {
    let storage = window().navigator().storage();
    let _ = storage.persist();
}
