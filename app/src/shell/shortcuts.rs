//! The keyboard shortcuts (`hearth_core::shortcuts`): one listener on the window runs them
//! from anywhere on the page; the dialog that lists them (`shortcuts_dialog`) loads the
//! first time it opens.

use hearth_core::shortcuts::{Press, Shortcut, matching};
use leptos::prelude::*;

use super::{COMPOSER_INPUT_ID, ShellState};
use crate::browser;
use crate::chat::Chat;
use crate::search::Search;

/// The widest page laid out for a phone, in CSS pixels: up to it the sidebar is a drawer
/// (`style/main.css`).
const PHONE_MAX_WIDTH: f64 = 767.0;

/// Whether the page is laid out for a phone (the sidebar is a drawer).
pub fn phone_width() -> bool {
    window()
        .inner_width()
        .ok()
        .and_then(|width| width.as_f64())
        .is_some_and(|width| width <= PHONE_MAX_WIDTH)
}

/// Shows or hides the sidebar: the drawer at phone width, the column otherwise.
pub fn toggle_sidebar(shell: ShellState) {
    if phone_width() {
        shell.drawer_open.update(|open| *open = !*open);
    } else {
        shell.sidebar_hidden.update(|hidden| *hidden = !*hidden);
    }
}

/// Runs the shortcuts from anywhere on the page. A press something else already took
/// (a menu's Escape) is left alone, and so is Esc when no reply is being written.
pub fn listen(chat: Chat, search: Search, shell: ShellState) {
    let _ = window_event_listener(leptos::ev::keydown, move |event| {
        if event.default_prevented() {
            return;
        }
        let key = event.key();
        let in_composer = document()
            .active_element()
            .is_some_and(|element| element.id() == COMPOSER_INPUT_ID);
        let press = Press {
            key: &key,
            ctrl: event.ctrl_key(),
            meta: event.meta_key(),
            shift: event.shift_key(),
            alt: event.alt_key(),
            in_composer,
            composing: event.is_composing() || event.key_code() == 229,
        };
        let Some(shortcut) = matching(press) else {
            return;
        };
        if shortcut == Shortcut::Stop && !chat.is_streaming() {
            return;
        }
        event.prevent_default();
        match shortcut {
            Shortcut::NewChat => {
                chat.new_chat();
                shell.drawer_open.set(false);
                browser::focus_by_id(COMPOSER_INPUT_ID);
            }
            Shortcut::Search => search.open_palette(),
            Shortcut::FocusComposer => browser::focus_by_id(COMPOSER_INPUT_ID),
            Shortcut::Stop => chat.stop(),
            Shortcut::ToggleSidebar => toggle_sidebar(shell),
            Shortcut::ShowShortcuts => shell.shortcuts_open.set(true),
        }
    });
}

/// The shortcuts dialog, mounted (from its chunk) the first time it opens.
pub fn dialog(shell: ShellState) -> impl IntoView {
    let opened = Memo::new(move |before: Option<&bool>| {
        before.copied().unwrap_or(false) || shell.shortcuts_open.get()
    });
    move || {
        opened.get().then(|| {
            crate::ui::lazy::lazy_view(super::shortcuts_dialog::view(), "shortcuts--unmounted")
        })
    }
}
