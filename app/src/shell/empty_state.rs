//! What the conversation pane shows before a conversation exists: a welcome that says
//! what to do next. With a model on offer (the user's, or one the operator configured)
//! that is simply to ask; without one, it is to add a provider, with the way to Settings.

use leptos::prelude::*;

use crate::chat::use_chat;
use crate::i18n::{Key, tr};
use crate::shell::use_shell;
use crate::ui::safe_image::SafeImage;

/// The welcome shown in an empty conversation.
#[component]
pub fn EmptyState() -> impl IntoView {
    let shell = use_shell();
    let offered = use_chat().choice.offered();
    let ready = move || offered.with(|groups| !groups.is_empty());
    view! {
        <div class="empty-state">
            <SafeImage src="/icons/icon.svg" alt="" class="empty-state__mark" />
            <h2 class="empty-state__title">{tr(Key::EmptyTitle)}</h2>
            <Show
                when=ready
                fallback=move || view! {
                    <p class="empty-state__body">{tr(Key::EmptyBody)}</p>
                    <button
                        type="button"
                        class="button button--secondary"
                        aria-haspopup="dialog"
                        on:click=move |_| shell.settings_open.set(true)
                    >
                        {tr(Key::EmptyOpenSettings)}
                    </button>
                }
            >
                <p class="empty-state__body">{tr(Key::EmptyBodyReady)}</p>
            </Show>
        </div>
    }
}
