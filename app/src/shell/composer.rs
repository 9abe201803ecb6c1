//! The composer: a text area that grows with its content, Enter to send and Shift+Enter
//! for a new line. Enter while an input method is composing (Chinese, Japanese) confirms
//! the composition and never sends. Until providers exist, sending explains what to do and
//! keeps the text.

use leptos::ev::{KeyboardEvent, SubmitEvent};
use leptos::prelude::*;

use crate::i18n::{Key, tr, use_i18n};
use crate::shell::COMPOSER_INPUT_ID;
use crate::ui::icon::{Icon, icon};
use crate::ui::toast::{ToastKind, use_toasts};

/// The message composer.
#[component]
pub fn Composer() -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let text = RwSignal::new(String::new());
    let is_empty = move || text.with(|t| t.trim().is_empty());

    let send = move || {
        if is_empty() {
            return;
        }
        toasts.show(ToastKind::Info, i18n.t(Key::ComposerNoProvider));
    };
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
                <span id="composer-hint" class="composer__hint">
                    {tr(Key::ComposerHint)}
                </span>
                <button
                    type="submit"
                    class="icon-button icon-button--primary"
                    aria-label=tr(Key::ComposerSend)
                    title=tr(Key::ComposerSend)
                    disabled=is_empty
                >
                    {icon(Icon::ArrowUp)}
                </button>
            </div>
        </form>
    }
}
