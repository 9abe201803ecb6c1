//! The top bar of the main pane: the sidebar's toggle (at phone width, or while the
//! sidebar is hidden), the conversation
//! title, the offline badge while the device is offline, and the theme menu.

use leptos::prelude::*;

use crate::i18n::{Key, tr, use_i18n};
use crate::pwa::banner::OfflineBadge;
use crate::shell::{DRAWER_TOGGLE_ID, use_shell};
use crate::theme::{ThemeChoice, use_theme};
use crate::ui::icon::{Icon, icon};
use crate::ui::menu::{Menu, MenuItem};

/// The top bar.
#[component]
pub fn Topbar() -> impl IntoView {
    let shell = use_shell();
    let theme = use_theme();
    let i18n = use_i18n();
    let items = ThemeChoice::ALL
        .into_iter()
        .map(|choice| {
            let (key, item_icon) = match choice {
                ThemeChoice::System => (Key::ThemeSystem, Icon::Monitor),
                ThemeChoice::Light => (Key::ThemeLight, Icon::Sun),
                ThemeChoice::Dark => (Key::ThemeDark, Icon::Moon),
            };
            MenuItem {
                label: Signal::derive(move || i18n.t(key)),
                icon: item_icon,
                checked: Some(Signal::derive(move || theme.choice.get() == choice)),
                on_select: Callback::new(move |()| theme.choice.set(choice)),
            }
        })
        .collect::<Vec<_>>();
    let button_icon = Signal::derive(move || {
        if theme.is_dark() {
            Icon::Moon
        } else {
            Icon::Sun
        }
    });

    let chat = crate::chat::use_chat();
    view! {
        <header class="topbar">
            <button
                type="button"
                id=DRAWER_TOGGLE_ID
                class="icon-button topbar__drawer-toggle"
                aria-controls="sidebar"
                aria-expanded=move || {
                    let hidden = shell.sidebar_hidden.get();
                    let open = shell.drawer_open.get();
                    (if super::shortcuts::phone_width() { open } else { !hidden }).to_string()
                }
                aria-label=tr(Key::SidebarOpen)
                title=tr(Key::SidebarOpen)
                on:click=move |_| {
                    if super::shortcuts::phone_width() {
                        shell.drawer_open.set(true);
                    } else {
                        shell.sidebar_hidden.set(false);
                        crate::browser::focus_by_id("sidebar-new-chat");
                    }
                }
            >
                {icon(Icon::Menu)}
            </button>
            <h1 class="topbar__title">
                {move || {
                    let title = chat.open.current().map(|id| chat.list.title(&id));
                    match title {
                        Some(title) if !title.is_empty() => title,
                        Some(_) => i18n.t(Key::ConversationUntitled),
                        None => i18n.t(Key::SidebarNewChat),
                    }
                }}
            </h1>
            <div class="topbar__actions">
                <OfflineBadge />
                <Menu label=Signal::derive(move || i18n.t(Key::ThemeMenu)) button_icon=button_icon items=items />
            </div>
        </header>
    }
}
