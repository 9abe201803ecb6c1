//! Conversations in the browser: the sidebar's list, the open conversation's messages and
//! tree, and every action on them (send, stop, regenerate, edit, switch branches, delete
//! with undo, rename, pin). The rules come from `hearth_core::chat`; this module applies
//! them to IndexedDB records and reactive state.
//!
//! - [`transport`]: opening a model stream, directly or through the edge relay.
//! - `run`: one generation: request planning, streaming, the 500 ms flush, the queue.
//! - `tools`: the calls of a round that asked for tools: resolved, confirmed where the
//!   user wants it, executed through the edge four at a time.
//! - `sync`: keeping two tabs consistent (BroadcastChannel + field-level merges).
//!
//! Writes go through `storage::Batch`: new records are put whole, changes are merged
//! field by field (`Batch::merge`), so a tab never overwrites fields another tab changed.

pub mod transport;

mod images;
mod run;
mod sync;
mod task;
mod tools;

use std::collections::HashMap;

use hearth_core::chat::title::auto_title;
use hearth_core::chat::{
    ConversationRecord, MessageRecord, MessageStatus, MessageTree, Queue, QueuedMessage,
    RemovedSubtree, Role,
};
use leptos::prelude::*;
use serde_json::json;

use crate::i18n::{Key, use_i18n};
use crate::providers::use_providers;
use crate::storage::{Batch, CONVERSATIONS, Db, MESSAGES, StorageError};
use crate::ui::toast::{ToastAction, ToastKind, use_toasts};

/// A message on screen: its record, with the growing text in signals of its own so a
/// streaming reply re-renders only itself.
#[derive(Clone, Copy)]
pub struct LiveMessage {
    /// Everything but the text.
    pub record: RwSignal<MessageRecord>,
    /// The text.
    pub content: RwSignal<String>,
    /// The reasoning.
    pub reasoning: RwSignal<String>,
}

impl LiveMessage {
    fn new(mut record: MessageRecord) -> Self {
        let content = std::mem::take(&mut record.content);
        let reasoning = std::mem::take(&mut record.reasoning);
        Self {
            record: RwSignal::new(record),
            content: RwSignal::new(content),
            reasoning: RwSignal::new(reasoning),
        }
    }

    /// The whole record, untracked.
    pub fn snapshot(&self) -> MessageRecord {
        let mut record = self.record.get_untracked();
        record.content = self.content.get_untracked();
        record.reasoning = self.reasoning.get_untracked();
        record
    }

    fn replace(&self, mut record: MessageRecord) {
        let content = std::mem::take(&mut record.content);
        let reasoning = std::mem::take(&mut record.reasoning);
        if self.content.with_untracked(|c| *c != content) {
            self.content.set(content);
        }
        if self.reasoning.with_untracked(|r| *r != reasoning) {
            self.reasoning.set(reasoning);
        }
        self.record.set(record);
    }
}

/// The model a new message goes to.
pub use hearth_core::preferences::ModelRef as ModelChoice;

/// A running generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunInfo {
    /// The reply being written.
    pub message_id: String,
    /// Distinguishes this run from a later one on the same message.
    pub run_id: u64,
}

/// What the last delete removed, for Undo.
enum Undo {
    Messages {
        conversation_id: String,
        removed: RemovedSubtree,
        records: Vec<MessageRecord>,
    },
    Conversation {
        record: ConversationRecord,
        messages: Vec<MessageRecord>,
    },
}

/// The chat state, provided as context.
#[derive(Clone, Copy)]
pub struct Chat {
    /// Every conversation's record, pinned first, then most recent first.
    pub conversations: RwSignal<Vec<ConversationRecord>>,
    /// Whether the list has loaded.
    pub loaded: RwSignal<bool>,
    /// The open conversation (`None`: a new chat, created on the first send).
    pub current: RwSignal<Option<String>>,
    /// The open conversation's messages.
    pub messages: RwSignal<HashMap<String, LiveMessage>>,
    /// The open conversation's tree.
    pub tree: RwSignal<MessageTree>,
    /// The active path of the open conversation, root first.
    pub path: Memo<Vec<String>>,
    /// Running generations, by conversation.
    pub runs: RwSignal<HashMap<String, RunInfo>>,
    /// Messages waiting for the running reply, by conversation (`""`: the new chat).
    pub queues: RwSignal<HashMap<String, Queue>>,
    /// The model new messages go to.
    pub choice: RwSignal<Option<ModelChoice>>,
    /// Text whose sending failed before anything was stored; the composer takes it back.
    pub unsent: RwSignal<Option<String>>,
    /// A storage problem to show (quota full, unavailable).
    pub storage_error: RwSignal<Option<StorageError>>,
    // Contexts captured at creation: async tasks and event handlers may run without the
    // reactive owner that provides them.
    providers: crate::providers::Providers,
    prefs: crate::preferences::Prefs,
    plugins: crate::plugins::Plugins,
    toasts: crate::ui::toast::Toasts,
    i18n: crate::i18n::I18n,
    db: StoredValue<Option<Db>, LocalStorage>,
    /// The app-wide owner the chat was created under: tasks run, and the toasts' Undo
    /// callbacks live, under it, not under the view that asked (a deleted message's view
    /// is disposed before its Undo is clicked).
    root: StoredValue<Option<Owner>, LocalStorage>,
    owner: StoredValue<Option<Owner>, LocalStorage>,
    aborts: StoredValue<HashMap<String, web_sys::AbortController>, LocalStorage>,
    undo: StoredValue<Option<Undo>, LocalStorage>,
    /// The toast offering the last delete's Undo (only the last delete can be undone).
    undo_toast: StoredValue<Option<u64>>,
    next_run: StoredValue<u64>,
}

/// The chat state.
pub fn use_chat() -> Chat {
    expect_context::<Chat>()
}

/// A new random id (16 hex digits).
pub fn new_id() -> String {
    let mut bytes = [0u8; 8];
    if let Ok(crypto) = window().crypto() {
        let _ = crypto.get_random_values_with_u8_array(&mut bytes);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Now, in ms since the epoch.
pub fn now() -> f64 {
    js_sys::Date::now()
}

const CHOICE_KEY: &str = "hearth.model";

fn sort(list: &mut [ConversationRecord]) {
    list.sort_by(|a, b| {
        b.pinned
            .cmp(&a.pinned)
            .then(b.updated_at.total_cmp(&a.updated_at))
    });
}

impl Chat {
    /// Opens the database, loads the conversation list and starts listening to other tabs.
    pub fn load() -> Self {
        let tree = RwSignal::new(MessageTree::new());
        let choice = crate::browser::local_storage_get(CHOICE_KEY)
            .and_then(|text| serde_json::from_str(&text).ok());
        let chat = Self {
            conversations: RwSignal::new(Vec::new()),
            loaded: RwSignal::new(false),
            current: RwSignal::new(None),
            messages: RwSignal::new(HashMap::new()),
            tree,
            path: Memo::new(move |_| tree.with(MessageTree::active_path)),
            runs: RwSignal::new(HashMap::new()),
            queues: RwSignal::new(HashMap::new()),
            choice: RwSignal::new(choice),
            unsent: RwSignal::new(None),
            storage_error: RwSignal::new(None),
            providers: use_providers(),
            prefs: crate::preferences::use_prefs(),
            plugins: crate::plugins::use_plugins(),
            toasts: use_toasts(),
            i18n: use_i18n(),
            db: StoredValue::new_local(None),
            root: StoredValue::new_local(Owner::current()),
            owner: StoredValue::new_local(None),
            aborts: StoredValue::new_local(HashMap::new()),
            undo: StoredValue::new_local(None),
            undo_toast: StoredValue::new(None),
            next_run: StoredValue::new(1),
        };
        Effect::new(move |_| {
            if let Some(choice) = chat.choice.get()
                && let Ok(text) = serde_json::to_string(&choice)
            {
                crate::browser::local_storage_set(CHOICE_KEY, &text);
            }
        });
        chat.spawn(async move {
            match Db::open().await {
                Ok(db) => {
                    if let Some(why) = &db.upgrade_failed {
                        chat.storage_error
                            .set(Some(StorageError::UpgradeFailed(why.clone())));
                    }
                    chat.db.set_value(Some(db.clone()));
                    match db.all_records::<ConversationRecord>(CONVERSATIONS).await {
                        Ok(mut list) => {
                            sort(&mut list);
                            chat.conversations.set(list);
                            request_animation_frame(|| {
                                crate::browser::mark("hearth:conversations");
                            });
                        }
                        Err(error) => chat.storage_error.set(Some(error)),
                    }
                }
                Err(error) => chat.storage_error.set(Some(error)),
            }
            chat.loaded.set(true);
            sync::listen(chat);
            request_persistence();
        });
        chat
    }

    /// Runs `task` under the chat's own owner (see `root`).
    fn spawn(&self, task: impl std::future::Future<Output = ()> + 'static) {
        match self.root.get_value() {
            Some(root) => root.with(|| leptos::task::spawn_local_scoped(task)),
            None => leptos::task::spawn_local_scoped(task),
        }
    }

    /// The database once opening it has finished (however long a busy machine takes);
    /// `None` if it could not be opened.
    async fn db_wait(&self) -> Option<Db> {
        loop {
            if let Some(db) = self.db.get_value() {
                return Some(db);
            }
            if self.loaded.get_untracked() {
                return None;
            }
            sleep_ms(20).await;
        }
    }

    fn db(&self) -> Option<Db> {
        self.db.get_value()
    }

    /// Writes `batch`; a failure is shown to the user and returned.
    async fn write(&self, batch: &Batch) -> Result<(), StorageError> {
        let Some(db) = self.db() else {
            let error = StorageError::Unavailable("not open".into());
            self.storage_error.set(Some(error.clone()));
            return Err(error);
        };
        match db.apply(batch).await {
            Ok(()) => {
                sync::announce(batch);
                Ok(())
            }
            Err(error) => {
                self.storage_error.set(Some(error.clone()));
                Err(error)
            }
        }
    }

    /// The live message `id` of the open conversation.
    pub fn live(&self, id: &str) -> Option<LiveMessage> {
        self.messages.with_untracked(|m| m.get(id).copied())
    }

    /// The open conversation's record.
    pub fn current_record(&self) -> Option<ConversationRecord> {
        let id = self.current.get_untracked()?;
        self.conversations
            .with_untracked(|list| list.iter().find(|c| c.id == id).cloned())
    }

    /// Whether the open conversation has a reply streaming.
    pub fn is_streaming(&self) -> bool {
        let key = self.current.get().unwrap_or_default();
        self.runs.with(|runs| runs.contains_key(&key))
    }

    /// Reads the conversation list again after many records changed at once (an import,
    /// a delete-all, here or in another tab) and reopens the open conversation, or starts
    /// a new chat when it is gone.
    pub async fn reload_all(&self) {
        let Some(db) = self.db_wait().await else {
            return;
        };
        match db.all_records::<ConversationRecord>(CONVERSATIONS).await {
            Ok(mut list) => {
                sort(&mut list);
                let open = self.current.get_untracked();
                let still_there = open
                    .as_ref()
                    .is_some_and(|id| list.iter().any(|c| &c.id == id));
                self.conversations.set(list);
                match open {
                    Some(id) if still_there => self.open(id),
                    Some(_) => self.new_chat(),
                    None => {}
                }
            }
            Err(error) => self.storage_error.set(Some(error)),
        }
    }

    /// Shows (and tells other tabs about) a change to many records at once.
    pub async fn after_bulk_change(&self) {
        sync::announce_all();
        self.reload_all().await;
    }

    /// The database, once open (for the Data tab's export, import and delete-all).
    pub async fn database(&self) -> Option<Db> {
        self.db_wait().await
    }

    /// Whether any reply is streaming in any conversation.
    pub fn any_streaming(&self) -> bool {
        self.runs.with_untracked(|runs| !runs.is_empty())
    }

    /// Starts a new, empty chat (stored on the first send).
    pub fn new_chat(&self) {
        self.show(None, Vec::new());
        // A new chat starts on the default model, when the user chose one.
        if let Some(model) = self.prefs.value.with_untracked(|p| p.default_model.clone()) {
            self.choice.set(Some(model));
        }
    }

    /// Opens conversation `id`.
    pub fn open(&self, id: String) {
        let chat = *self;
        chat.spawn(async move {
            let Some(db) = chat.db_wait().await else {
                return;
            };
            match db
                .records_by::<MessageRecord>(MESSAGES, crate::storage::BY_CONVERSATION, &id)
                .await
            {
                Ok(records) => {
                    let running = chat.runs.with_untracked(|runs| runs.get(&id).cloned());
                    let records = records
                        .into_iter()
                        .map(|record| match &running {
                            Some(run) if run.message_id == record.id => record,
                            _ => record.reopened(),
                        })
                        .collect();
                    chat.show(Some(id), records);
                }
                Err(error) => chat.storage_error.set(Some(error)),
            }
        });
    }

    /// Replaces what is on screen with conversation `id` and its `records`.
    fn show(&self, id: Option<String>, mut records: Vec<MessageRecord>) {
        // Siblings keep the order they were written in (the store returns them by id).
        records.sort_by(|a, b| a.created_at.total_cmp(&b.created_at));
        let active_root = id.as_ref().and_then(|id| {
            self.conversations.with_untracked(|list| {
                list.iter()
                    .find(|c| &c.id == id)
                    .and_then(|c| c.active_root_id.clone())
            })
        });
        let nodes: Vec<_> = records.iter().map(MessageRecord::node).collect();
        let tree = MessageTree::from_records(&nodes, active_root.as_deref());
        // The previous conversation's signals go with its owner.
        let owner = Owner::new();
        let live: HashMap<String, LiveMessage> = owner.with(|| {
            records
                .into_iter()
                .map(|record| (record.id.clone(), LiveMessage::new(record)))
                .collect()
        });
        if let Some(previous) = self
            .owner
            .try_update_value(|slot| slot.replace(owner))
            .flatten()
        {
            // Disposed after the views that read them are gone.
            request_animation_frame(move || drop(previous));
        }
        self.messages.set(live);
        self.tree.set(tree);
        self.current.set(id);
    }

    /// Adds `record` to the open conversation's live messages.
    fn add_live(&self, record: MessageRecord) -> LiveMessage {
        let owner = self.owner.get_value();
        let make = move || LiveMessage::new(record);
        let live = match owner {
            Some(owner) => owner.with(make),
            None => make(),
        };
        let id = live.record.with_untracked(|r| r.id.clone());
        self.messages.update(|m| {
            m.insert(id, live);
        });
        live
    }

    /// Sends `text` as the user's next message: queued if a reply is streaming, else a new
    /// turn with a reply. Returns false (and keeps nothing) when no model is chosen.
    pub fn send(&self, text: String) -> bool {
        let Some(choice) = self.choice.get_untracked() else {
            return false;
        };
        let key = self.current.get_untracked().unwrap_or_default();
        if self.runs.with_untracked(|runs| runs.contains_key(&key)) {
            let mut full = false;
            self.queues.update(|queues| {
                full = queues
                    .entry(key)
                    .or_default()
                    .push(QueuedMessage {
                        id: new_id(),
                        text: text.clone(),
                    })
                    .is_err();
            });
            if full {
                self.toasts
                    .show(ToastKind::Error, self.i18n.t(Key::ChatQueueFull));
            }
            return true;
        }
        let chat = *self;
        chat.spawn(async move {
            start_turn(chat, text, choice).await;
        });
        true
    }

    async fn begin_turn(&self, text: String, choice: ModelChoice) {
        if !self.try_begin_turn(text.clone(), choice).await {
            // Nothing was stored (a full quota, say): the text goes back to the composer
            // rather than being lost with the failed write.
            self.unsent.set(Some(text));
        }
    }

    /// Stores the question and its reply and starts the run; `false` when the write failed.
    async fn try_begin_turn(&self, text: String, choice: ModelChoice) -> bool {
        let conversation_id = match self.current.get_untracked() {
            Some(id) => id,
            None => {
                let created = now();
                let record = ConversationRecord {
                    id: new_id(),
                    created_at: created,
                    updated_at: created,
                    provider_id: Some(choice.provider_id.clone()),
                    model: Some(choice.model.clone()),
                    ..Default::default()
                };
                let mut batch = Batch::new();
                batch.put(CONVERSATIONS, &record);
                if self.write(&batch).await.is_err() {
                    return false;
                }
                // The new chat's queue moves to the conversation.
                let id = record.id.clone();
                self.queues.update(|queues| {
                    if let Some(queue) = queues.remove("") {
                        queues.insert(id.clone(), queue);
                    }
                });
                self.conversations.update(|list| {
                    list.push(record);
                    sort(list);
                });
                self.show(Some(id.clone()), Vec::new());
                id
            }
        };
        let parent = self.tree.with_untracked(MessageTree::active_leaf);
        let at = now();
        let question = MessageRecord {
            id: new_id(),
            conversation_id: conversation_id.clone(),
            parent_id: parent.clone(),
            role: Some(Role::User),
            content: text,
            created_at: at,
            updated_at: at,
            ..Default::default()
        };
        let reply = self.reply_record(&conversation_id, Some(question.id.clone()), &choice);
        let question_id = question.id.clone();
        let reply_id = reply.id.clone();
        let inserted = self
            .insert(&conversation_id, vec![question, reply], |tree| {
                tree.append(&question_id, parent.as_deref())?;
                tree.append(&reply_id, Some(&question_id))
            })
            .await;
        if inserted {
            run::start(*self, conversation_id, reply_id, run::Mode::Fresh);
        }
        inserted
    }

    /// Stores new `records` and applies `change` to the tree in one write. They are live
    /// before the tree shows them (a row without its message would stay empty), and gone
    /// again if the write fails.
    async fn insert(
        &self,
        conversation_id: &str,
        records: Vec<MessageRecord>,
        change: impl FnOnce(&mut MessageTree) -> Result<(), hearth_core::chat::TreeError>,
    ) -> bool {
        let mut batch = Batch::new();
        let ids: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
        for record in records {
            batch.put(MESSAGES, &record);
            self.add_live(record);
        }
        let applied = self
            .apply_tree_change(conversation_id, &mut batch, change)
            .await
            .is_ok();
        if !applied {
            self.messages.update(|m| {
                for id in &ids {
                    m.remove(id);
                }
            });
        }
        applied
    }

    fn reply_record(
        &self,
        conversation_id: &str,
        parent: Option<String>,
        choice: &ModelChoice,
    ) -> MessageRecord {
        let at = now();
        MessageRecord {
            id: new_id(),
            conversation_id: conversation_id.to_string(),
            parent_id: parent,
            role: Some(Role::Assistant),
            status: MessageStatus::Streaming,
            provider_id: Some(choice.provider_id.clone()),
            model: Some(choice.model.clone()),
            created_at: at,
            updated_at: at,
            ..Default::default()
        }
    }

    /// Applies `change` to the tree, adds the records whose `activeChildId` moved (and the
    /// conversation's active root and time) to `batch`, and writes it. On a storage
    /// failure the tree is left as it was.
    async fn apply_tree_change(
        &self,
        conversation_id: &str,
        batch: &mut Batch,
        change: impl FnOnce(&mut MessageTree) -> Result<(), hearth_core::chat::TreeError>,
    ) -> Result<(), ()> {
        let before = self.tree.get_untracked();
        let mut after = before.clone();
        change(&mut after).map_err(|_| ())?;
        let old: HashMap<String, Option<String>> = before
            .records()
            .into_iter()
            .map(|n| (n.id, n.active_child_id))
            .collect();
        // Every record whose active child moved, new records (put in this batch) included.
        for node in after.records() {
            let changed = match old.get(&node.id) {
                Some(previous) => *previous != node.active_child_id,
                None => node.active_child_id.is_some(),
            };
            if changed {
                batch.merge(
                    MESSAGES,
                    &node.id,
                    json!({ "activeChildId": node.active_child_id }),
                );
            }
        }
        let at = now();
        batch.merge(
            CONVERSATIONS,
            conversation_id,
            json!({ "activeRootId": after.active_root(), "updatedAt": at }),
        );
        self.write(batch).await.map_err(|_| ())?;
        for node in after.records() {
            if let Some(live) = self.live(&node.id) {
                let changed = live
                    .record
                    .with_untracked(|r| r.active_child_id != node.active_child_id);
                if changed {
                    live.record
                        .update(|r| r.active_child_id = node.active_child_id.clone());
                }
            }
        }
        let root = after.active_root().map(str::to_string);
        self.tree.set(after);
        self.touch_conversation(conversation_id, |c| {
            c.active_root_id = root;
            c.updated_at = at;
        });
        Ok(())
    }

    fn touch_conversation(&self, id: &str, change: impl FnOnce(&mut ConversationRecord)) {
        self.conversations.update(|list| {
            if let Some(record) = list.iter_mut().find(|c| c.id == id) {
                change(record);
            }
            sort(list);
        });
    }

    /// A new reply to the same question, as a sibling of `reply_id`.
    pub fn regenerate(&self, reply_id: String) {
        let Some(conversation_id) = self.current.get_untracked() else {
            return;
        };
        if self
            .runs
            .with_untracked(|r| r.contains_key(&conversation_id))
        {
            return;
        }
        let Some(old) = self.live(&reply_id) else {
            return;
        };
        let previous = old.record.get_untracked();
        let choice = self.choice.get_untracked().unwrap_or(ModelChoice {
            provider_id: previous.provider_id.clone().unwrap_or_default(),
            model: previous.model.clone().unwrap_or_default(),
        });
        let chat = *self;
        chat.spawn(async move {
            let reply = chat.reply_record(&conversation_id, previous.parent_id.clone(), &choice);
            let reply_id_new = reply.id.clone();
            let inserted = chat
                .insert(&conversation_id, vec![reply], |tree| {
                    tree.add_sibling(&reply_id, &reply_id_new)
                })
                .await;
            if inserted {
                run::start(chat, conversation_id, reply_id_new, run::Mode::Fresh);
            }
        });
    }

    /// Retries a failed or interrupted reply: in place when nothing arrived, else as a new
    /// sibling so the partial reply is kept.
    pub fn retry(&self, reply_id: String) {
        let Some(conversation_id) = self.current.get_untracked() else {
            return;
        };
        let Some(live) = self.live(&reply_id) else {
            return;
        };
        if !live.content.with_untracked(String::is_empty) {
            self.regenerate(reply_id);
            return;
        }
        if self
            .runs
            .with_untracked(|r| r.contains_key(&conversation_id))
        {
            return;
        }
        live.record.update(|r| {
            r.status = MessageStatus::Streaming;
            r.generation_error = None;
        });
        live.reasoning.set(String::new());
        run::start(*self, conversation_id, reply_id, run::Mode::Fresh);
    }

    /// Continues an interrupted or stopped reply where it ended.
    pub fn continue_reply(&self, reply_id: String) {
        let Some(conversation_id) = self.current.get_untracked() else {
            return;
        };
        if self
            .runs
            .with_untracked(|r| r.contains_key(&conversation_id))
        {
            return;
        }
        let Some(live) = self.live(&reply_id) else {
            return;
        };
        live.record.update(|r| {
            r.status = MessageStatus::Streaming;
            r.generation_error = None;
        });
        run::start(*self, conversation_id, reply_id, run::Mode::Continue);
    }

    /// Edits a user message: the new text becomes a sibling branch with a new reply.
    pub fn edit(&self, message_id: String, text: String) {
        let Some(conversation_id) = self.current.get_untracked() else {
            return;
        };
        if self
            .runs
            .with_untracked(|r| r.contains_key(&conversation_id))
        {
            return;
        }
        let Some(old) = self.live(&message_id) else {
            return;
        };
        let Some(choice) = self.choice.get_untracked() else {
            return;
        };
        let parent = old.record.with_untracked(|r| r.parent_id.clone());
        let chat = *self;
        chat.spawn(async move {
            let at = now();
            let question = MessageRecord {
                id: new_id(),
                conversation_id: conversation_id.clone(),
                parent_id: parent,
                role: Some(Role::User),
                content: text,
                created_at: at,
                updated_at: at,
                ..Default::default()
            };
            let reply = chat.reply_record(&conversation_id, Some(question.id.clone()), &choice);
            let (question_id, reply_id) = (question.id.clone(), reply.id.clone());
            let inserted = chat
                .insert(&conversation_id, vec![question, reply], |tree| {
                    tree.add_sibling(&message_id, &question_id)?;
                    tree.append(&reply_id, Some(&question_id))
                })
                .await;
            if inserted {
                run::start(chat, conversation_id, reply_id, run::Mode::Fresh);
            }
        });
    }

    /// Shows the previous (`step` −1) or next (+1) sibling of `id`.
    pub fn switch(&self, id: String, step: isize) {
        let Some(conversation_id) = self.current.get_untracked() else {
            return;
        };
        let chat = *self;
        chat.spawn(async move {
            let mut batch = Batch::new();
            let _ = chat
                .apply_tree_change(&conversation_id, &mut batch, |tree| {
                    tree.switch_sibling(&id, step).map(|_| ())
                })
                .await;
        });
    }

    /// Deletes a message and its subtree, with Undo.
    pub fn delete_message(&self, id: String) {
        let Some(conversation_id) = self.current.get_untracked() else {
            return;
        };
        if self
            .runs
            .with_untracked(|r| r.contains_key(&conversation_id))
        {
            return;
        }
        let chat = *self;
        chat.spawn(async move {
            let mut removed = None;
            let mut batch = Batch::new();
            let result = chat
                .apply_tree_change(&conversation_id, &mut batch, |tree| {
                    let taken = tree.remove(&id)?;
                    removed = Some(taken);
                    Ok(())
                })
                .await;
            let Some(removed) = removed.filter(|_| result.is_ok()) else {
                return;
            };
            // The records go in a second step; the tree no longer shows them.
            let records: Vec<MessageRecord> = removed
                .ids
                .iter()
                .filter_map(|id| chat.live(id).map(|l| l.snapshot()))
                .collect();
            let mut deletes = Batch::new();
            for id in &removed.ids {
                deletes.delete(MESSAGES, id);
            }
            if chat.write(&deletes).await.is_err() {
                return;
            }
            chat.messages.update(|m| {
                for id in &removed.ids {
                    m.remove(id);
                }
            });
            chat.remember_for_undo(Undo::Messages {
                conversation_id,
                removed,
                records,
            });
            chat.offer_undo(Key::ChatMessageDeleted);
        });
    }

    /// Remembers what a delete removed for Undo. What the previous delete removed can no
    /// longer come back, so its stored images are removed now.
    fn remember_for_undo(&self, undo: Undo) {
        let previous = self
            .undo
            .try_update_value(|slot| slot.replace(undo))
            .flatten();
        let files: Vec<String> = match previous {
            Some(Undo::Messages { records, .. })
            | Some(Undo::Conversation {
                messages: records, ..
            }) => records
                .iter()
                .flat_map(|r| r.tool_rounds.iter())
                .flat_map(|round| round.calls.iter())
                .flat_map(|call| call.files.iter().cloned())
                .collect(),
            None => Vec::new(),
        };
        if !files.is_empty() {
            self.spawn(async move {
                for name in files {
                    let _ = crate::files::remove(crate::files::IMAGES, &name).await;
                }
            });
        }
    }

    fn offer_undo(&self, message: Key) {
        let chat = *self;
        let i18n = self.i18n;
        let undo = move || Callback::new(move |_| chat.undo());
        let run = match self.root.get_value() {
            Some(root) => root.with(undo),
            None => undo(),
        };
        if let Some(previous) = self.undo_toast.get_value() {
            self.toasts.dismiss(previous);
        }
        let id = self.toasts.show_with_action(
            i18n.t(message),
            ToastAction {
                label: i18n.t(Key::ChatUndo),
                run,
            },
        );
        self.undo_toast.set_value(Some(id));
    }

    /// Undoes the last delete.
    pub fn undo(&self) {
        let Some(undo) = self.undo.try_update_value(Option::take).flatten() else {
            return;
        };
        let chat = *self;
        chat.spawn(async move {
            match undo {
                Undo::Messages {
                    conversation_id,
                    removed,
                    records,
                } => {
                    if chat.current.get_untracked().as_deref() != Some(&conversation_id) {
                        return;
                    }
                    let mut batch = Batch::new();
                    for record in &records {
                        batch.put(MESSAGES, record);
                    }
                    // On screen before the tree shows them again.
                    let ids: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
                    for record in records {
                        chat.add_live(record);
                    }
                    let restored = chat
                        .apply_tree_change(&conversation_id, &mut batch, |tree| {
                            tree.restore(removed)
                        })
                        .await;
                    if restored.is_err() {
                        chat.messages.update(|m| {
                            for id in &ids {
                                m.remove(id);
                            }
                        });
                    }
                }
                Undo::Conversation { record, messages } => {
                    let mut batch = Batch::new();
                    batch.put(CONVERSATIONS, &record);
                    for message in &messages {
                        batch.put(MESSAGES, message);
                    }
                    if chat.write(&batch).await.is_ok() {
                        chat.conversations.update(|list| {
                            list.push(record);
                            sort(list);
                        });
                    }
                }
            }
        });
    }

    /// Renames a conversation (an empty title returns to the automatic one).
    pub fn rename(&self, id: String, title: String) {
        let title = title.trim().chars().take(120).collect::<String>();
        let by_user = !title.is_empty();
        let chat = *self;
        chat.spawn(async move {
            let mut batch = Batch::new();
            batch.merge(
                CONVERSATIONS,
                &id,
                json!({ "title": title, "titleByUser": by_user }),
            );
            if chat.write(&batch).await.is_ok() {
                chat.touch_conversation(&id, |c| {
                    c.title = title;
                    c.title_by_user = by_user;
                });
            }
        });
    }

    /// Pins or unpins a conversation.
    pub fn set_pinned(&self, id: String, pinned: bool) {
        let chat = *self;
        chat.spawn(async move {
            let mut batch = Batch::new();
            batch.merge(CONVERSATIONS, &id, json!({ "pinned": pinned }));
            if chat.write(&batch).await.is_ok() {
                chat.touch_conversation(&id, |c| c.pinned = pinned);
            }
        });
    }

    /// Deletes a conversation with all its messages, with Undo.
    pub fn delete_conversation(&self, id: String) {
        if self.runs.with_untracked(|r| r.contains_key(&id)) {
            self.stop_conversation(&id);
        }
        let chat = *self;
        chat.spawn(async move {
            let Some(db) = chat.db() else { return };
            let Some(record) = chat
                .conversations
                .with_untracked(|list| list.iter().find(|c| c.id == id).cloned())
            else {
                return;
            };
            let Ok(messages) = db
                .records_by::<MessageRecord>(MESSAGES, crate::storage::BY_CONVERSATION, &id)
                .await
            else {
                return;
            };
            let mut batch = Batch::new();
            batch.delete(CONVERSATIONS, &id);
            for message in &messages {
                batch.delete(MESSAGES, &message.id);
            }
            if chat.write(&batch).await.is_err() {
                return;
            }
            chat.conversations
                .update(|list| list.retain(|c| c.id != id));
            if chat.current.get_untracked().as_deref() == Some(&id) {
                chat.new_chat();
            }
            chat.remember_for_undo(Undo::Conversation { record, messages });
            chat.offer_undo(Key::ChatConversationDeleted);
        });
    }

    /// Stops the open conversation's reply; what arrived is kept.
    pub fn stop(&self) {
        if let Some(id) = self.current.get_untracked() {
            self.stop_conversation(&id);
        }
    }

    fn stop_conversation(&self, id: &str) {
        if let Some(controller) = self.aborts.with_value(|a| a.get(id).cloned()) {
            controller.abort();
        }
    }

    /// Edits a queued message.
    pub fn edit_queued(&self, id: &str, text: &str) {
        let key = self.current.get_untracked().unwrap_or_default();
        self.queues.update(|queues| {
            if let Some(queue) = queues.get_mut(&key) {
                let _ = queue.edit(id, text);
            }
        });
    }

    /// Removes a queued message.
    pub fn remove_queued(&self, id: &str) {
        let key = self.current.get_untracked().unwrap_or_default();
        self.queues.update(|queues| {
            if let Some(queue) = queues.get_mut(&key) {
                let _ = queue.remove(id);
            }
        });
    }

    /// Folds the open path's older turns into a summary when the user chose a compression
    /// model and the conversation has grown past the threshold (`core::chat::compression`).
    async fn compress(&self, conversation_id: &str) {
        let Some(model) = self
            .prefs
            .value
            .with_untracked(|p| p.compression_model.clone())
        else {
            return;
        };
        if self.current.get_untracked().as_deref() != Some(conversation_id) {
            return;
        }
        let current = self.conversations.with_untracked(|list| {
            list.iter()
                .find(|c| c.id == conversation_id)
                .and_then(|c| c.compression.clone())
        });
        let messages: Vec<MessageRecord> = self
            .path
            .get_untracked()
            .iter()
            .filter_map(|id| self.live(id).map(|l| l.snapshot()))
            .filter(|m| m.is_user() || m.status == MessageStatus::Done)
            .collect();
        let view = run::path_view(&messages);
        let Some(through) = hearth_core::chat::compression::due(&view, current.as_ref()) else {
            return;
        };
        let Some(compression) =
            task::generate_summary(*self, &model, &view, through, current.as_ref()).await
        else {
            return;
        };
        let mut batch = Batch::new();
        batch.merge(
            CONVERSATIONS,
            conversation_id,
            json!({ "compression": compression }),
        );
        if self.write(&batch).await.is_ok() {
            self.touch_conversation(conversation_id, |c| c.compression = Some(compression));
        }
    }

    fn is_untitled(&self, conversation_id: &str) -> bool {
        self.conversations.with_untracked(|list| {
            list.iter()
                .any(|c| c.id == conversation_id && c.title.is_empty() && !c.title_by_user)
        })
    }

    /// Names the conversation from its first exchange (through the title model when the
    /// user chose one, else from the text), unless the user named it.
    async fn auto_title(&self, conversation_id: &str, question: &str, reply: &str) {
        if !self.is_untitled(conversation_id) {
            return;
        }
        let title_model = self.prefs.value.with_untracked(|p| p.title_model.clone());
        let generated = match title_model {
            Some(model) => task::generate_title(*self, &model, question, reply).await,
            None => None,
        };
        let Some(title) = generated.or_else(|| auto_title(question, reply)) else {
            return;
        };
        // The user may have renamed it while the title model was thinking.
        if !self.is_untitled(conversation_id) {
            return;
        }
        let mut batch = Batch::new();
        batch.merge(CONVERSATIONS, conversation_id, json!({ "title": title }));
        if self.write(&batch).await.is_ok() {
            self.touch_conversation(conversation_id, |c| c.title = title);
        }
    }
}

/// Starts a turn: in its own lazily loaded wasm chunk with the streaming engine, which the
/// first page load does not need.
#[lazy]
async fn start_turn(chat: Chat, text: String, choice: ModelChoice) {
    chat.begin_turn(text, choice).await;
}

/// Asks the browser to keep this site's storage under pressure (best effort).
fn request_persistence() {
    let storage = window().navigator().storage();
    let _ = storage.persist();
}

/// Waits `ms` milliseconds.
pub async fn sleep_ms(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
