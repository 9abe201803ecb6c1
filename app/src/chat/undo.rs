//! Undo of the last delete: what it removed (a subtree of messages, or a conversation
//! with its messages) and the toast offering it. Only the last delete can be undone;
//! when a newer one replaces it, the files the older one's messages held (tool images,
//! attachments) are removed for good, unless a message still stored refers to them.

use std::collections::HashSet;

use hearth_core::chat::{ConversationRecord, MessageRecord, RemovedSubtree};
use hearth_core::stored_file::{StoredFile, message_files};
use leptos::prelude::*;

use super::store::ChatDb;
use crate::i18n::{I18n, Key};
use crate::storage::{Batch, CONVERSATIONS, MESSAGES};
use crate::ui::toast::{ToastAction, Toasts};

/// What the last delete removed.
pub enum Undo {
    /// Messages of a conversation.
    Messages {
        /// Their conversation.
        conversation_id: String,
        /// Where they were in the tree.
        removed: RemovedSubtree,
        /// Their records.
        records: Vec<MessageRecord>,
    },
    /// A conversation.
    Conversation {
        /// Its record.
        record: Box<ConversationRecord>,
        /// Its messages.
        messages: Vec<MessageRecord>,
    },
}

impl Undo {
    fn records(&self) -> &[MessageRecord] {
        match self {
            Undo::Messages { records, .. } => records,
            Undo::Conversation { messages, .. } => messages,
        }
    }
}

/// The last delete, and its toast.
#[derive(Clone, Copy)]
pub struct UndoSlot {
    last: StoredValue<Option<Undo>, LocalStorage>,
    toast: StoredValue<Option<u64>>,
    store: ChatDb,
    toasts: Toasts,
    i18n: I18n,
}

impl UndoSlot {
    /// An empty slot.
    pub fn new(store: ChatDb, toasts: Toasts, i18n: I18n) -> Self {
        Self {
            last: StoredValue::new_local(None),
            toast: StoredValue::new(None),
            store,
            toasts,
            i18n,
        }
    }

    /// Remembers `undo` and offers it in a toast saying `message`; `run` undoes it.
    pub fn offer(&self, undo: Undo, message: Key, run: impl Fn() + Copy + Send + Sync + 'static) {
        let previous = self
            .last
            .try_update_value(|slot| slot.replace(undo))
            .flatten();
        if let Some(previous) = previous {
            self.store.spawn(forget_files(self.store, previous));
        }
        let callback = self.store.under_root(|| Callback::new(move |_| run()));
        if let Some(previous) = self.toast.get_value() {
            self.toasts.dismiss(previous);
        }
        let id = self.toasts.show_with_action(
            self.i18n.t(message),
            ToastAction {
                label: self.i18n.t(Key::ChatUndo),
                run: callback,
            },
        );
        self.toast.set_value(Some(id));
    }

    /// Takes what the last delete removed (once).
    pub fn take(&self) -> Option<Undo> {
        self.last.try_update_value(Option::take).flatten()
    }
}

/// Removes for good the files the records of an undo that can no longer be taken held,
/// except those messages still stored refer to (an edited question's sibling keeps the
/// same attachments). When the rest of the conversation cannot be read, nothing is
/// removed: a file left behind is better than one lost. In its own lazily loaded chunk:
/// the first screen never needs it.
#[lazy]
async fn forget_files(store: ChatDb, undo: Undo) {
    let files: Vec<StoredFile> = undo.records().iter().flat_map(message_files).collect();
    if files.is_empty() {
        return;
    }
    let kept: HashSet<StoredFile> = match &undo {
        Undo::Conversation { .. } => HashSet::new(),
        Undo::Messages {
            conversation_id, ..
        } => match store.messages_of(conversation_id).await {
            Ok(rest) => rest.iter().flat_map(message_files).collect(),
            Err(_) => return,
        },
    };
    for file in files.iter().filter(|f| !kept.contains(f)) {
        let _ = crate::files::remove(file.dir.name(), &file.name).await;
    }
}

/// Puts back what `undo` removed: the messages where they were, or the conversation with
/// its messages. In its own lazily loaded chunk: only an Undo click needs it.
#[lazy]
pub async fn take_back(chat: super::Chat, undo: Undo) {
    match undo {
        Undo::Messages {
            conversation_id,
            removed,
            records,
        } => chat.open.restore(&conversation_id, removed, records).await,
        Undo::Conversation { record, messages } => {
            let mut batch = Batch::new();
            batch.put(CONVERSATIONS, &*record);
            for message in &messages {
                batch.put(MESSAGES, message);
            }
            if chat.store.write(batch).await.is_ok() {
                chat.list.add(*record);
            }
        }
    }
}
