//! The sidebar's workspace button: the workspace the list shows (its colour and name,
//! from local storage, or "All conversations"), opening its menu (`switch`, mounted the
//! first time it opens, once its English sentences are here); and the placement dialog
//! while a conversation is being placed. In a lazily loaded chunk mounted as the
//! sidebar shows (`crate::shell::workspace_button`), so the first load carries none of
//! it.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::chat::use_chat;
use crate::i18n::{Key, use_i18n};
use crate::shell::use_shell;
use crate::ui::icon::{Icon, icon};

/// The button, its menu (mounted the first time it opens, once its English sentences
/// are here) and the placement dialog while a conversation is being placed.
#[lazy]
pub fn button() -> AnyView {
    let current = use_chat().workspace;
    current.follow_other_tabs();
    let styled = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Sidebar);
    let shell = use_shell();
    let i18n = use_i18n();
    let open = RwSignal::new(false);
    let opened =
        Memo::new(move |before: Option<&bool>| before.copied().unwrap_or(false) || open.get());
    let label = move || current.label();
    let name = move || label().map_or_else(|| i18n.t(Key::WorkspacesAll), |(_, name)| name);
    let on_keydown = move |event: KeyboardEvent| {
        if matches!(event.key().as_str(), "ArrowDown" | "ArrowUp") {
            event.prevent_default();
            open.set(true);
        }
    };
    view! {
        <Show when=move || styled.get() fallback=|| view! { <div class="sidebar__workspace-placeholder"></div> }>
        <div class="menu-anchor sidebar__workspace">
            <button
                type="button"
                id=crate::shell::WORKSPACE_BUTTON_ID
                class="sidebar__workspace-button"
                aria-haspopup="menu"
                aria-controls="workspace-menu"
                aria-expanded=move || open.get().to_string()
                aria-label=move || i18n.t_with(Key::WorkspacesButton, &[("name", &name())])
                on:click=move |_| open.update(|o| *o = !*o)
                on:keydown=on_keydown
            >
                {move || label().map(|(colour, _)| view! {
                    <span class=format!("colour-dot colour-dot--{colour}") aria-hidden="true"></span>
                })}
                <span class="sidebar__workspace-name">{name}</span>
                {icon(Icon::ChevronDown)}
            </button>
            <Show when=move || opened.get()>
                <WordedMenu open />
            </Show>
        </div>
        </Show>
        {move || shell.placing.get().map(|id| {
            crate::ui::lazy::lazy_view(super::placement::dialog(id), "dialog--unmounted")
        })}
    }
    .into_any()
}

/// The menu once its English sentences are here (asked for the first time it opens, so
/// a page that never opens it fetches nothing).
#[component]
fn WordedMenu(open: RwSignal<bool>) -> impl IntoView {
    let worded = crate::i18n::later_english_ready();
    view! { <Show when=move || worded.get()><super::switch::WorkspaceMenu open /></Show> }
}
