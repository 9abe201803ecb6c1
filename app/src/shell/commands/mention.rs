//! What choosing a plugin, an earlier file or an assistant with `@` does: a plugin is
//! turned on or off for the messages that follow (the same switch as Settings › Tools);
//! a file an earlier message of this chat carries is attached again as a copy; an
//! assistant takes the open chat over from the next message (its instructions, and its
//! model when it names one), which a toast can undo, and with no chat open a new chat
//! starts with it, as `/` does.

use hearth_core::assistant::Assistant;
use hearth_core::attachment::Attachment;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::attachments::Draft;
use crate::chat::Chat;
use crate::i18n::{I18n, Key};
use crate::preferences::Prefs;
use crate::shell::ShellState;
use crate::ui::toast::{ToastAction, ToastKind, Toasts};

/// Turns the plugin `id` (titled `title`) on, or off when it is `on`.
pub(super) fn switch_plugin(
    (prefs, toasts, i18n): (Prefs, Toasts, I18n),
    id: String,
    title: String,
    on: bool,
) {
    spawn_local(async move {
        match prefs.update(|p| p.tools.set_plugin(&id, !on)).await {
            Ok(()) => {
                let key = if on {
                    Key::MentionPluginOff
                } else {
                    Key::MentionPluginOn
                };
                toasts.show(ToastKind::Info, i18n.t_with(key, &[("title", &title)]));
            }
            Err(error) => toasts.show(
                ToastKind::Error,
                i18n.t_with(
                    Key::MentionPluginFailed,
                    &[("title", &title), ("reason", &error.to_string())],
                ),
            ),
        }
    });
}

/// Attaches a copy of `attachment`, unless the draft holds that file already.
pub(super) fn attach_file((draft, toasts, i18n): (Draft, Toasts, I18n), attachment: Attachment) {
    let held = draft
        .files_untracked()
        .iter()
        .any(|f| f.name == attachment.name && f.size == attachment.size);
    if held {
        toasts.show(
            ToastKind::Info,
            i18n.t_with(Key::MentionFileAlready, &[("name", &attachment.name)]),
        );
    } else {
        draft.add_copy(attachment);
    }
}

/// Hands the open chat to `assistant`; with none open, starts a chat with it.
pub(super) fn hand_over(
    (chat, shell, toasts, i18n): (Chat, ShellState, Toasts, I18n),
    assistant: Assistant,
) {
    let Some(id) = chat.open.current_untracked() else {
        crate::assistants::start::start(assistant, chat, shell, toasts, i18n);
        return;
    };
    let Some((before_assistant, before_prompt)) = chat.list.assistant_and_prompt(&id) else {
        return;
    };
    let before_model = chat.choice.get_untracked();
    spawn_local(async move {
        let name = assistant.name.clone();
        let stored = chat
            .list
            .set_assistant(&id, Some(assistant.id.clone()), assistant.prompt.clone())
            .await;
        if let Err(error) = stored {
            toasts.show(
                ToastKind::Error,
                i18n.t_with(
                    Key::MentionHandOverFailed,
                    &[("name", &name), ("reason", &error.to_string())],
                ),
            );
            return;
        }
        if assistant.model.is_some() {
            chat.choice.pick(assistant.model.clone());
        }
        let undo = Callback::new(move |()| {
            let (id, before_assistant, before_prompt) =
                (id.clone(), before_assistant.clone(), before_prompt.clone());
            let (before_model, name) = (before_model.clone(), name.clone());
            spawn_local(async move {
                let restored = chat
                    .list
                    .set_assistant(&id, before_assistant, before_prompt)
                    .await;
                match restored {
                    Ok(()) => {
                        chat.choice.pick(before_model);
                        toasts.show(ToastKind::Info, i18n.t(Key::MentionHandOverUndone));
                    }
                    Err(error) => toasts.show(
                        ToastKind::Error,
                        i18n.t_with(
                            Key::MentionHandOverFailed,
                            &[("name", &name), ("reason", &error.to_string())],
                        ),
                    ),
                }
            });
        });
        toasts.show_with_action(
            i18n.t_with(Key::MentionHandedOver, &[("name", &assistant.name)]),
            ToastAction {
                label: i18n.t(Key::ChatUndo),
                run: undo,
            },
        );
        if let Err(error) = crate::assistants::use_assistants().used(assistant).await {
            let text = crate::assistants::words::error_text(&error, i18n);
            toasts.show(ToastKind::Error, text);
        }
    });
}
