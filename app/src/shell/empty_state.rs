//! What the conversation pane shows before a conversation exists.

use leptos::prelude::*;

use crate::i18n::{Key, tr};
use crate::shell::use_shell;
use crate::ui::safe_image::SafeImage;

/// The welcome shown in an empty conversation.
#[component]
pub fn EmptyState() -> impl IntoView {
    let shell = use_shell();
    view! {
        <div class="empty-state">
            <SafeImage src="/icons/icon.svg" alt="" class="empty-state__mark" />
            <h2 class="empty-state__title">{tr(Key::EmptyTitle)}</h2>
            <p class="empty-state__body">{tr(Key::EmptyBody)}</p>
            <button
                type="button"
                class="button button--secondary"
                aria-haspopup="dialog"
                on:click=move |_| shell.settings_open.set(true)
            >
                {tr(Key::EmptyOpenSettings)}
            </button>
        </div>
    }
}
