//! Clearing a conversation's context (`/clear`) and taking that back: a break after the
//! message the open conversation ends with, kept on its record
//! (`hearth_core::chat::context_break`), said in a toast.

use leptos::prelude::*;

use super::Chat;
use crate::i18n::Key;
use crate::ui::toast::ToastKind;

impl Chat {
    /// Starts the open conversation's context again after its last message: the next
    /// turns send nothing before it. A chat with no message yet has nothing to clear.
    pub fn clear_context(&self) {
        let conversation = self.open.current_untracked();
        let last = self.open.path().with_untracked(|path| path.last().cloned());
        let (Some(conversation), Some(last)) = (conversation, last) else {
            let i18n = self.turn.i18n;
            self.turn
                .toasts
                .show(ToastKind::Info, i18n.t(Key::ContextBreakEmpty));
            return;
        };
        self.set_context_break(conversation, last, true);
    }

    /// Takes back the break after message `after_id` of the open conversation: the
    /// messages before it are sent again.
    pub fn restore_context(&self, after_id: String) {
        if let Some(conversation) = self.open.current_untracked() {
            self.set_context_break(conversation, after_id, false);
        }
    }

    fn set_context_break(&self, conversation: String, after_id: String, on: bool) {
        let chat = *self;
        self.store.spawn(async move {
            let (i18n, toasts) = (chat.turn.i18n, chat.turn.toasts);
            match chat
                .list
                .set_context_break(&conversation, &after_id, on)
                .await
            {
                Ok(()) => {
                    let said = if on {
                        Key::ContextCleared
                    } else {
                        Key::ContextBreakRestored
                    };
                    toasts.show(ToastKind::Info, i18n.t(said));
                }
                // The storage banner says why as well.
                Err(_) => toasts.show(ToastKind::Error, i18n.t(Key::StorageFailed)),
            }
        });
    }
}
