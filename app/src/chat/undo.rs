//! Undo of the last delete: what it removed (a subtree of messages, or a conversation
//! with its messages) and the toast offering it. Only the last delete can be undone;
//! when a newer one replaces it, the images the older one's tool calls made are removed
//! for good.

use hearth_core::chat::{ConversationRecord, MessageRecord, RemovedSubtree};
use leptos::prelude::*;

use super::store::ChatDb;
use crate::i18n::{I18n, Key};
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
        record: ConversationRecord,
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
        let files: Vec<String> = previous
            .iter()
            .flat_map(|undo| undo.records())
            .flat_map(|r| r.tool_rounds.iter())
            .flat_map(|round| round.calls.iter())
            .flat_map(|call| call.files.iter().cloned())
            .collect();
        if !files.is_empty() {
            self.store.spawn(async move {
                for name in files {
                    let _ = crate::files::remove(crate::files::IMAGES, &name).await;
                }
            });
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
