//! What the conversation pane shows before a conversation exists: a welcome that says
//! what to do next. With a model on offer (the user's, or one the operator configured)
//! that is simply to ask; without one, it is to add a provider, with the way to Settings.
//! A new chat started with an assistant is greeted by it instead (its name and opening
//! message, as text), with a way to chat without it. Either way the user can make the new
//! chat a temporary one, which is kept in this tab only.

use leptos::prelude::*;

use crate::chat::use_chat;
use crate::i18n::{Key, tr};
use crate::shell::use_shell;
use crate::ui::lazy::lazy_view;
use crate::ui::safe_image::SafeImage;

/// The welcome shown in an empty conversation.
#[component]
pub fn EmptyState() -> impl IntoView {
    let shell = use_shell();
    let offered = use_chat().choice.offered();
    let ready = move || offered.with(|groups| !groups.is_empty());
    let assistant = use_chat().assistant;
    move || match assistant.get() {
        Some(opening) => view! {
            <div class="empty-state" id="empty-assistant">
                <span class="empty-state__emoji" aria-hidden="true">
                    {if opening.emoji.is_empty() { "🤖".to_string() } else { opening.emoji }}
                </span>
                <h2 class="empty-state__title">{opening.name}</h2>
                <p class="empty-state__body empty-state__greeting">{opening.greeting}</p>
                <button type="button" class="button button--secondary button--small"
                    id="empty-assistant-dismiss" on:click=move |_| assistant.clear()>
                    {tr(Key::EmptyAssistantDismiss)}
                </button>
                {lazy_view(temporary_toggle(), "temporary-toggle--loading")}
            </div>
        }
        .into_any(),
        None => welcome(shell, ready).into_any(),
    }
}

/// The welcome of a plain new chat.
fn welcome(
    shell: crate::shell::ShellState,
    ready: impl Fn() -> bool + Send + Sync + 'static,
) -> impl IntoView {
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
            {lazy_view(temporary_toggle(), "temporary-toggle--loading")}
        </div>
    }
}

/// The switch that makes the new chat temporary, and what that means while it is on. In
/// its own lazily loaded chunk: the first screen shows without it for a moment.
#[lazy]
fn temporary_toggle() -> AnyView {
    let temporary = use_chat().temporary;
    view! {
        <button type="button" id="temporary-toggle"
            class="button button--secondary button--small temporary-toggle"
            aria-pressed=move || temporary.get().to_string()
            on:click=move |_| temporary.update(|on| *on = !*on)>
            {tr(Key::TemporaryToggle)}
        </button>
        <p class="empty-state__body" id="temporary-hint" role="status"
            hidden=move || !temporary.get()>
            {tr(Key::TemporaryHint)}
        </p>
    }
    .into_any()
}
