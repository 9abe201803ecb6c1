//! The composer: a text area that grows with its content, Enter to send and Shift+Enter
//! for a new line. Enter while an input method is composing (Chinese, Japanese) confirms
//! the composition and never sends. The model picker (`ui::model_picker`) lists every
//! model of the enabled providers and starts on the default model; without one, sending explains what to do
//! and keeps the text. While a reply streams, Stop ends it and Send queues the message.

use leptos::ev::{KeyboardEvent, SubmitEvent};
use leptos::prelude::*;

use hearth_core::preferences::ModelRef;

use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::shell::COMPOSER_INPUT_ID;
use crate::ui::icon::{Icon, icon};
use crate::ui::model_picker::{CompactModelPicker, ModelGroup, ModelOption};
use crate::ui::toast::{ToastKind, use_toasts};

/// The message composer.
#[component]
pub fn Composer() -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let text = RwSignal::new(String::new());
    let is_empty = move || text.with(|t| t.trim().is_empty());

    let chat = use_chat();
    // The models on offer and the effective choice are the chat's memos.
    let options = chat.choice.offered();
    // A message whose first write failed comes back, unless the user typed on.
    Effect::new(move |_| {
        if let Some(unsent) = chat.take_unsent()
            && text.with_untracked(|t| t.trim().is_empty())
        {
            text.set(unsent);
        }
    });
    let streaming = move || chat.is_streaming();
    let send = move || {
        if is_empty() {
            return;
        }
        if chat.send(text.get_untracked()) {
            text.set(String::new());
        } else {
            toasts.show(ToastKind::Info, i18n.t(Key::ComposerNoProvider));
        }
    };
    let groups = Signal::derive(move || {
        options
            .get()
            .into_iter()
            .map(|(provider_id, provider_name, ids)| ModelGroup {
                provider_id,
                provider_name,
                models: ids.into_iter().map(ModelOption::from).collect(),
            })
            .collect::<Vec<_>>()
    });
    let choose = Callback::new(move |choice: Option<ModelRef>| {
        if choice.is_some() {
            chat.choice.pick(choice);
        }
    });
    let on_keydown = move |event: KeyboardEvent| {
        // keyCode 229 is what some browsers report for keys an IME consumed.
        let composing = event.is_composing() || event.key_code() == 229;
        if event.key() == "Enter" && !event.shift_key() && !composing {
            event.prevent_default();
            send();
        }
    };
    let on_submit = move |event: SubmitEvent| {
        event.prevent_default();
        send();
    };

    view! {
        <form class="composer" on:submit=on_submit>
            <label class="visually-hidden" for=COMPOSER_INPUT_ID>
                {tr(Key::ComposerLabel)}
            </label>
            <textarea
                id=COMPOSER_INPUT_ID
                class="composer__input"
                rows="1"
                placeholder=tr(Key::ComposerPlaceholder)
                aria-describedby="composer-hint"
                prop:value=move || text.get()
                on:input=move |event| text.set(event_target_value(&event))
                on:keydown=on_keydown
            ></textarea>
            <div class="composer__bar">
                <Show when=move || !options.with(Vec::is_empty)>
                    <CompactModelPicker
                        id="composer-model"
                        label=tr(Key::ComposerModel)
                        groups=groups
                        selected=Signal::derive(move || chat.choice.get())
                        on_change=choose
                    />
                </Show>
                <span id="composer-hint" class="composer__hint">
                    {tr(Key::ComposerHint)}
                </span>
                <Show when=streaming>
                    <button
                        type="button"
                        class="icon-button composer__stop"
                        aria-label=tr(Key::ComposerStop)
                        title=tr(Key::ComposerStop)
                        on:click=move |_| chat.stop()
                    >
                        {icon(Icon::Stop)}
                    </button>
                </Show>
                <button
                    type="submit"
                    class="icon-button icon-button--primary"
                    aria-label=move || if streaming() { i18n.t(Key::ComposerQueue) } else { i18n.t(Key::ComposerSend) }
                    title=move || if streaming() { i18n.t(Key::ComposerQueue) } else { i18n.t(Key::ComposerSend) }
                    disabled=is_empty
                >
                    {icon(Icon::ArrowUp)}
                </button>
            </div>
        </form>
    }
}
