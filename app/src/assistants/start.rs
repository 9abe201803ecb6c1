//! Starting a chat with an assistant: a new chat greeted by it (its opening message,
//! shown, never sent), on its model when it names one the user has, whose first message
//! makes a conversation that names the assistant and takes its instructions as its own.
//! The assistant goes first among the recently used ones.

use hearth_core::assistant::Assistant;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::opening::Opening;
use super::use_assistants;
use crate::chat::Chat;
use crate::i18n::I18n;
use crate::shell::ShellState;
use crate::ui::toast::{ToastKind, Toasts};

/// Starts a new chat with `assistant` and puts the user in its composer.
pub fn start(assistant: Assistant, chat: Chat, shell: ShellState, toasts: Toasts, i18n: I18n) {
    chat.new_chat();
    if assistant.model.is_some() {
        chat.choice.pick(assistant.model.clone());
    }
    chat.assistant.set(Opening {
        id: assistant.id.clone(),
        name: assistant.name.clone(),
        emoji: assistant.emoji.clone(),
        greeting: assistant.opening.clone(),
        prompt: assistant.prompt.clone(),
    });
    shell.settings_open.set(false);
    shell.drawer_open.set(false);
    request_animation_frame(|| crate::browser::focus_by_id(crate::shell::COMPOSER_INPUT_ID));
    spawn_local(async move {
        // The chat starts either way; a list that cannot be written only misses it.
        if let Err(error) = use_assistants().used(assistant).await {
            toasts.show(ToastKind::Error, super::words::error_text(&error, i18n));
        }
    });
}
