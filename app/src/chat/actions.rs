//! What the user does to conversations, where it crosses stores: sending (a new turn, or
//! queued behind the running reply), regenerating, retrying, continuing and editing
//! (new records in the tree, then a run), deleting with Undo, archiving (also with Undo),
//! opening and starting a chat, and the bulk changes of the Data tab.

use hearth_core::attachment::Attachment;
use hearth_core::chat::{ConversationRecord, MessageStatus, QueuedMessage};
use hearth_core::preferences::ModelRef;
use leptos::prelude::*;

use super::live::LiveMessage;
use super::records::{question_record, reply_record};
use super::tabs::ReplyLock;
use super::turn::Mode;
use super::undo::Undo;
use super::{Chat, Unsent};
use crate::browser::{new_id, now};
use crate::i18n::Key;
use crate::storage::{Batch, CONVERSATIONS, MESSAGES};
use crate::ui::toast::{ToastAction, ToastKind};

impl Chat {
    /// The key of the open conversation's runs and queue (`""`: the new chat).
    fn key(&self) -> String {
        self.open.current_untracked().unwrap_or_default()
    }

    /// Whether the open conversation has a reply streaming, in this tab or another
    /// (tracked).
    pub fn is_streaming(&self) -> bool {
        let key = self.open.current().unwrap_or_default();
        self.runs.is_running(&key) || self.tabs.is_elsewhere(&key)
    }

    /// Whether another tab writes the open conversation's reply (tracked): this tab
    /// shows it and may stop it, but starts nothing there.
    pub fn is_streaming_elsewhere(&self) -> bool {
        let key = self.open.current().unwrap_or_default();
        self.tabs.is_elsewhere(&key)
    }

    /// Whether any reply is streaming in any conversation, in any tab.
    pub fn any_streaming(&self) -> bool {
        self.runs.any_running() || self.tabs.any_elsewhere()
    }

    /// Whether the open conversation is busy writing (untracked): its messages wait, and
    /// nothing else starts a reply there.
    pub(super) fn busy(&self, conversation_id: &str) -> bool {
        !self.runs.writing(conversation_id).is_empty()
            || self.tabs.is_elsewhere_untracked(conversation_id)
    }

    /// Claims `conversation_id`'s next reply for this tab; `None` (and the user told)
    /// when another tab is writing one there.
    pub(super) async fn claim(&self, conversation_id: &str) -> Option<ReplyLock> {
        let lock = self.tabs.claim(conversation_id).await;
        if lock.is_none() {
            self.say_elsewhere();
        }
        lock
    }

    /// Tells the user that another tab is writing this conversation's reply.
    pub fn say_elsewhere(&self) {
        let i18n = self.turn.i18n;
        self.turn
            .toasts
            .show(ToastKind::Info, i18n.t(Key::ChatReplyElsewhere));
    }

    /// Whether the open chat is temporary (tracked): the open conversation's mark, or the
    /// user's choice for a new chat.
    pub fn temporary_open(&self) -> bool {
        match self.open.current() {
            Some(id) => self.list.temporary(&id),
            None => self.temporary.get(),
        }
    }

    /// [`Self::temporary_open`], untracked.
    pub fn temporary_open_untracked(&self) -> bool {
        untrack(|| self.temporary_open())
    }

    /// Stores the open temporary chat as any other conversation, and says so; when it
    /// cannot be stored, it stays temporary and that is said too.
    pub fn keep_temporary(&self) {
        let Some(id) = self.open.current_untracked() else {
            return;
        };
        let chat = *self;
        self.store.spawn(async move {
            let i18n = chat.turn.i18n;
            match chat.store.keep(&id).await {
                Some(record) => {
                    chat.list.add(record);
                    chat.turn
                        .toasts
                        .show(ToastKind::Info, i18n.t(Key::TemporaryKept));
                }
                None => chat
                    .turn
                    .toasts
                    .show(ToastKind::Error, i18n.t(Key::TemporaryKeepFailed)),
            }
        });
    }

    /// Starts a new, empty chat (stored on the first send), on the default model when the
    /// user chose one.
    pub fn new_chat(&self) {
        self.open.show_new();
        self.assistant.clear();
        // The workspace's model first, then the user's default.
        let default = self.workspace.model().or_else(|| {
            self.turn
                .prefs
                .value
                .with_untracked(|p| p.default_model.clone())
        });
        if default.is_some() {
            self.choice.pick(default);
        }
    }

    /// Sends `text` as the user's next message: queued if a reply is streaming, else a new
    /// turn with a reply (or a reply from each model compared, side by side). Returns
    /// false (and keeps nothing) when no model is chosen.
    pub fn send(&self, text: String, attachments: Vec<Attachment>) -> bool {
        let Some(choice) = self.choice.get_untracked() else {
            return false;
        };
        let key = self.key();
        if self.tabs.is_elsewhere_untracked(&key) {
            // The composer asks first and keeps text and files; a message that gets here
            // anyway (the next queued one, as another tab took the conversation) goes
            // back to the composer, files and all.
            self.unsent.set(Some(Unsent { text, attachments }));
            self.say_elsewhere();
            return true;
        }
        if self.busy(&key) {
            let queued = QueuedMessage {
                id: new_id(),
                text,
                attachments,
            };
            if self.runs.enqueue(&key, queued).is_err() {
                let i18n = self.turn.i18n;
                self.turn
                    .toasts
                    .show(ToastKind::Error, i18n.t(Key::ChatQueueFull));
            }
            return true;
        }
        let chat = *self;
        self.store.spawn(async move {
            start_turn(chat, text, attachments, choice).await;
        });
        true
    }

    /// The messages queued behind the open conversation's reply (tracked).
    pub fn queued(&self) -> Vec<QueuedMessage> {
        self.runs.queued(&self.open.current().unwrap_or_default())
    }

    /// Edits a queued message.
    pub fn edit_queued(&self, id: &str, text: &str) {
        self.runs.edit_queued(&self.key(), id, text);
    }

    /// Removes a queued message.
    pub fn remove_queued(&self, id: &str) {
        self.runs.remove_queued(&self.key(), id);
    }

    /// Answers the tool call waiting under `key` in `conversation_id`'s reply: here, or
    /// in the tab that writes the reply (the one that can run it).
    pub fn answer_call(&self, conversation_id: &str, key: &str, answer: crate::plugins::Answer) {
        if self.tabs.is_elsewhere_untracked(conversation_id) {
            super::broadcast::give_answer(conversation_id, key, answer.name());
        } else {
            self.turn.plugins.answer(key, answer);
        }
    }

    /// Stops the open conversation's reply (here, or by asking the tab that writes it);
    /// what arrived is kept.
    pub fn stop(&self) {
        if let Some(id) = self.open.current_untracked() {
            if self.tabs.is_elsewhere_untracked(&id) {
                super::broadcast::ask_stop(&id);
            }
            self.runs.stop(&id);
        }
    }

    async fn begin_turn(&self, text: String, attachments: Vec<Attachment>, models: Vec<ModelRef>) {
        if !self
            .try_begin_turn(text.clone(), attachments.clone(), models)
            .await
        {
            // Nothing was stored (a full quota, or another tab claimed the reply between
            // the composer's check and the claim): the text and the files go back to the
            // composer rather than being lost with the failed write.
            self.unsent.set(Some(Unsent { text, attachments }));
        }
    }

    /// Stores the question and a reply for each of `models` (the first chosen; more
    /// than one: a comparison) and starts the runs; `false` when nothing was stored (the
    /// write failed, or another tab writes this conversation's reply).
    async fn try_begin_turn(
        &self,
        text: String,
        attachments: Vec<Attachment>,
        models: Vec<ModelRef>,
    ) -> bool {
        let Some(choice) = models.first().cloned() else {
            return false;
        };
        let (conversation_id, lock, new) = match self.open.current_untracked() {
            Some(id) => {
                let Some(lock) = self.claim(&id).await else {
                    return false;
                };
                (id, lock, None)
            }
            None => {
                let created = now();
                let id = new_id();
                let Some(lock) = self.claim(&id).await else {
                    return false;
                };
                // The assistant the new chat started with: named, its instructions the
                // conversation's own.
                let assistant = self.assistant.take();
                let record = ConversationRecord {
                    id,
                    created_at: created,
                    updated_at: created,
                    provider_id: Some(choice.provider_id.clone()),
                    model: Some(choice.model.clone()),
                    knowledge: crate::knowledge::use_knowledge().take_new_chat(),
                    workspace_id: self.workspace.id_untracked(),
                    assistant_id: assistant.as_ref().map(|a| a.id.clone()),
                    system_prompt: assistant
                        .as_ref()
                        .map(|a| a.prompt.clone())
                        .unwrap_or_default(),
                    temporary: self.temporary.get_untracked(),
                    ..Default::default()
                };
                let id = record.id.clone();
                // Shown at once; stored with its first messages, in one write, below.
                self.list.add(record.clone());
                // The new chat's queue moves to the conversation.
                self.runs.adopt_new_chat_queue(&id);
                self.open.show(Some(id.clone()), Vec::new());
                (id, lock, Some((record, assistant)))
            }
        };
        let parent = self.open.active_leaf();
        let question = question_record(&conversation_id, parent.clone(), text, attachments);
        let question_id = question.id.clone();
        let replies = super::comparison::replies(&conversation_id, &question_id, &models);
        let reply_ids: Vec<String> = replies.iter().map(|r| r.id.clone()).collect();
        let change = |tree: &mut hearth_core::chat::MessageTree| {
            tree.append(&question_id, parent.as_deref())?;
            for id in &reply_ids {
                tree.append(id, Some(&question_id))?;
            }
            // The conversation goes on from the chosen model's reply.
            tree.activate(&reply_ids[0])
        };
        let mut records = vec![question];
        records.extend(replies);
        let inserted = match &new {
            Some((conversation, _)) => self.open.insert_first(conversation, records, change).await,
            None => self.open.insert(&conversation_id, records, change).await,
        }
        .is_ok();
        if inserted {
            self.start_replies(conversation_id, &reply_ids, lock);
        } else if let Some((_, assistant)) = new {
            // Nothing was stored: back to the new chat (with its assistant), with no
            // conversation left behind.
            self.list.forget(&conversation_id);
            self.open.show(None, Vec::new());
            if let Some(assistant) = assistant {
                self.assistant.set(assistant);
            }
        }
        inserted
    }

    /// The model a new reply to the same question uses: the composer's, else the old
    /// one's; a compared answer keeps its own model (it is that model's column).
    fn model_for(&self, old: &LiveMessage) -> ModelRef {
        let own = || {
            old.record.with_untracked(|r| ModelRef {
                provider_id: r.provider_id.clone().unwrap_or_default(),
                model: r.model.clone().unwrap_or_default(),
            })
        };
        if old.record.with_untracked(|r| r.compare.is_some()) {
            return own();
        }
        self.choice.get_untracked().unwrap_or_else(own)
    }

    /// A new reply to the same question, as a sibling of `reply_id`.
    pub fn regenerate(&self, reply_id: String) {
        let Some(conversation_id) = self.open.current_untracked() else {
            return;
        };
        if self.busy(&conversation_id) {
            return;
        }
        let Some(old) = self.open.live(&reply_id) else {
            return;
        };
        let choice = self.model_for(&old);
        let mut reply = reply_record(&conversation_id, None, &choice);
        // Its question; one of a comparison stays in it; a merge merges the same answers
        // again.
        old.record.with_untracked(|r| {
            reply.parent_id = r.parent_id.clone();
            reply.compare = r.compare.clone();
            reply.merged_from = r.merged_from.clone();
        });
        let chat = *self;
        self.store.spawn(async move {
            chat.run_sibling(conversation_id, reply_id, reply).await;
        });
    }

    /// Retries a failed or interrupted reply: in place when nothing arrived, else as a new
    /// sibling so the partial reply is kept.
    pub fn retry(&self, reply_id: String) {
        let Some(conversation_id) = self.open.current_untracked() else {
            return;
        };
        let Some(live) = self.open.live(&reply_id) else {
            return;
        };
        // Images the model already sent are kept like text: in a sibling.
        let kept = !live.content.with_untracked(String::is_empty)
            || live.record.with_untracked(|r| !r.images.is_empty());
        if kept {
            self.regenerate(reply_id);
            return;
        }
        if self.busy(&conversation_id) {
            return;
        }
        self.restart_under_claim(conversation_id, live, Mode::Fresh);
    }

    /// Continues an interrupted or stopped reply where it ended.
    pub fn continue_reply(&self, reply_id: String) {
        let Some(conversation_id) = self.open.current_untracked() else {
            return;
        };
        if self.busy(&conversation_id) {
            return;
        }
        let Some(live) = self.open.live(&reply_id) else {
            return;
        };
        self.restart_under_claim(conversation_id, live, Mode::Continue);
    }

    /// Claims the conversation, shows the reply `live` as streaming again (its old error
    /// gone) and runs it.
    fn restart_under_claim(&self, conversation_id: String, live: LiveMessage, mode: Mode) {
        let chat = *self;
        self.store.spawn(async move {
            let Some(lock) = chat.claim(&conversation_id).await else {
                return;
            };
            live.record.update(|r| {
                r.status = MessageStatus::Streaming;
                r.generation_error = None;
            });
            chat.start_reply(conversation_id, &live.id(), mode, lock);
        });
    }

    /// Edits a user message: the new text becomes a sibling branch with a new reply (or
    /// one from each model compared, side by side).
    pub fn edit(&self, message_id: String, text: String) {
        let Some(conversation_id) = self.open.current_untracked() else {
            return;
        };
        if self.busy(&conversation_id) {
            return;
        }
        let Some(old) = self.open.live(&message_id) else {
            return;
        };
        let Some(choice) = self.choice.get_untracked() else {
            return;
        };
        // The edited question keeps the files the old one carried.
        let (parent, attachments) = old
            .record
            .with_untracked(|r| (r.parent_id.clone(), r.attachments.clone()));
        let chat = *self;
        self.store.spawn(async move {
            let Some(lock) = chat.claim(&conversation_id).await else {
                return;
            };
            let question = question_record(&conversation_id, parent, text, attachments);
            let question_id = question.id.clone();
            let models = chat.lineup(choice);
            let replies = super::comparison::replies(&conversation_id, &question_id, &models);
            let reply_ids: Vec<String> = replies.iter().map(|r| r.id.clone()).collect();
            let mut records = vec![question];
            records.extend(replies);
            let inserted = chat
                .open
                .insert(&conversation_id, records, |tree| {
                    tree.add_sibling(&message_id, &question_id)?;
                    for id in &reply_ids {
                        tree.append(id, Some(&question_id))?;
                    }
                    tree.activate(&reply_ids[0])
                })
                .await
                .is_ok();
            if inserted {
                chat.start_replies(conversation_id, &reply_ids, lock);
            }
        });
    }

    /// Shows the previous (`step` −1) or next (+1) sibling of `id`.
    pub fn switch(&self, id: String, step: isize) {
        self.open.switch(id, step);
    }

    /// Deletes a message and its subtree, with Undo.
    pub fn delete_message(&self, id: String) {
        let Some(conversation_id) = self.open.current_untracked() else {
            return;
        };
        if self.busy(&conversation_id) {
            return;
        }
        let chat = *self;
        self.store.spawn(async move {
            let Some((removed, records)) = chat.open.remove_subtree(&conversation_id, &id).await
            else {
                return;
            };
            let undo = Undo::Messages {
                conversation_id,
                removed,
                records,
            };
            chat.undo
                .offer(undo, Key::ChatMessageDeleted, move || chat.undo());
        });
    }

    /// Archives a conversation (out of the sidebar's list, kept and searchable), with Undo.
    pub fn archive_conversation(&self, id: String) {
        self.store.spawn(archive(*self, id));
    }

    /// Brings an archived conversation back to the sidebar's list (a failed write is
    /// shown by the store's banner).
    pub fn unarchive_conversation(&self, id: String) {
        let list = self.list;
        self.store.spawn(async move {
            let _ = list.set_archived(&id, false).await;
        });
    }

    /// Deletes a conversation with all its messages, with Undo.
    pub fn delete_conversation(&self, id: String) {
        if self.tabs.is_elsewhere_untracked(&id) {
            super::broadcast::ask_stop(&id);
        }
        self.runs.stop(&id);
        let chat = *self;
        self.store.spawn(async move {
            let Some(record) = chat.list.find(&id) else {
                return;
            };
            let Ok(messages) = chat.store.messages_of(&id).await else {
                return;
            };
            let mut batch = Batch::new();
            batch.delete(CONVERSATIONS, &id);
            for message in &messages {
                batch.delete(MESSAGES, &message.id);
            }
            if chat.store.write(batch).await.is_err() {
                return;
            }
            chat.list.forget(&id);
            if chat.open.is_open_untracked(&id) {
                chat.new_chat();
            }
            let undo = Undo::Conversation {
                record: Box::new(record),
                messages,
            };
            chat.undo
                .offer(undo, Key::ChatConversationDeleted, move || chat.undo());
        });
    }

    /// Undoes the last delete.
    pub fn undo(&self) {
        let Some(undo) = self.undo.take() else {
            return;
        };
        self.store.spawn(super::undo::take_back(*self, undo));
    }

    /// Reads the conversation list again after many records changed at once (an import,
    /// a delete-all, here or in another tab) and reopens the open conversation, or starts
    /// a new chat when it is gone.
    pub async fn reload_all(&self) {
        self.store.note_change();
        if let Err(error) = self.list.load().await {
            self.store.show_error(error);
            return;
        }
        match self.open.current_untracked() {
            Some(id) if self.list.find(&id).is_some() => self.open.open(id),
            Some(_) => self.new_chat(),
            None => {}
        }
    }

    /// Shows (and tells other tabs about) a change to many records at once.
    pub async fn after_bulk_change(&self) {
        super::broadcast::announce_all();
        self.reload_all().await;
    }
}

/// Starts a turn: in its own lazily loaded wasm chunk, which the first page load does
/// not need. The models compared with `choice`, if any, answer too.
#[lazy]
async fn start_turn(chat: Chat, text: String, attachments: Vec<Attachment>, choice: ModelRef) {
    let models = chat.lineup(choice);
    chat.begin_turn(text, attachments, models).await;
}

/// Archives conversation `id` and offers Undo: in its own lazily loaded chunk, which the
/// first page load does not need.
#[lazy]
async fn archive(chat: Chat, id: String) {
    if chat.list.set_archived(&id, true).await.is_err() {
        return;
    }
    // The open conversation leaves with its row: what stays on screen is in the list.
    if chat.open.is_open_untracked(&id) {
        chat.new_chat();
    }
    let i18n = chat.turn.i18n;
    let action = ToastAction {
        label: i18n.t(Key::ChatUndo),
        run: chat
            .store
            .under_root(|| Callback::new(move |_| chat.unarchive_conversation(id.clone()))),
    };
    chat.turn
        .toasts
        .show_with_action(i18n.t(Key::ChatConversationArchived), action);
}
