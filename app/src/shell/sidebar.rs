//! The sidebar: brand, "New chat", the conversation list (empty until conversations
//! exist) and the way to settings. At phone width it is a drawer over the page.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::browser;
use crate::i18n::{Key, tr};
use crate::shell::{COMPOSER_INPUT_ID, DRAWER_TOGGLE_ID, use_shell};
use crate::ui::icon::{Icon, icon};
use crate::ui::safe_image::SafeImage;

/// The sidebar.
#[component]
pub fn Sidebar() -> impl IntoView {
    let shell = use_shell();
    let close_drawer = move || {
        if shell.drawer_open.get_untracked() {
            shell.drawer_open.set(false);
            browser::focus_by_id(DRAWER_TOGGLE_ID);
        }
    };
    let on_keydown = move |event: KeyboardEvent| {
        if event.key() == "Escape" && shell.drawer_open.get_untracked() {
            event.prevent_default();
            close_drawer();
        }
    };
    let new_chat = move |_| {
        shell.drawer_open.set(false);
        browser::focus_by_id(COMPOSER_INPUT_ID);
    };
    let open_settings = move |_| {
        shell.drawer_open.set(false);
        shell.settings_open.set(true);
    };

    view! {
        <nav
            id="sidebar"
            class="sidebar"
            aria-label=tr(Key::SidebarLabel)
            on:keydown=on_keydown
        >
            <div class="sidebar__brand">
                <SafeImage src="/icons/icon.svg" alt="" class="sidebar__logo" />
                <span class="sidebar__name">{tr(Key::AppName)}</span>
                <button
                    type="button"
                    class="icon-button sidebar__close"
                    aria-label=tr(Key::SidebarClose)
                    title=tr(Key::SidebarClose)
                    on:click=move |_| close_drawer()
                >
                    {icon(Icon::Close)}
                </button>
            </div>
            <button
                type="button"
                id="sidebar-new-chat"
                class="button button--primary sidebar__new"
                on:click=new_chat
            >
                {icon(Icon::Plus)}
                <span>{tr(Key::SidebarNewChat)}</span>
            </button>
            <h2 class="sidebar__heading">{tr(Key::SidebarConversations)}</h2>
            <div class="sidebar__list">
                <div class="sidebar__empty">
                    {icon(Icon::Chat)}
                    <p class="sidebar__empty-title">{tr(Key::SidebarEmpty)}</p>
                    <p class="sidebar__empty-hint">{tr(Key::SidebarEmptyHint)}</p>
                </div>
            </div>
            <div class="sidebar__footer">
                <button
                    type="button"
                    class="sidebar__item"
                    aria-haspopup="dialog"
                    on:click=open_settings
                >
                    {icon(Icon::Sliders)}
                    <span>{tr(Key::SidebarSettings)}</span>
                </button>
            </div>
        </nav>
    }
}
