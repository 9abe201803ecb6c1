//! The shortcuts dialog: every keyboard shortcut (`hearth_core::shortcuts`) with its keys
//! as this keyboard writes them (⌘ on Apple devices, Ctrl elsewhere). In a lazily loaded
//! chunk, mounted the first time it opens (`shortcuts::dialog`).

use hearth_core::shortcuts::Shortcut;
use leptos::prelude::*;

use super::use_shell;
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::dialog::Dialog;

/// The dialog, once its stylesheet and its English sentences are here.
#[lazy]
pub fn view() -> AnyView {
    let styled = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Panels);
    let worded = crate::i18n::later_english_ready();
    view! { <Show when=move || styled.get() && worded.get()><ShortcutsDialog /></Show> }.into_any()
}

#[component]
fn ShortcutsDialog() -> impl IntoView {
    let shell = use_shell();
    let i18n = use_i18n();
    let apple = is_apple();
    view! {
        <Dialog
            open=shell.shortcuts_open
            title=Signal::derive(move || i18n.t(Key::ShortcutsTitle))
            class="dialog--shortcuts"
        >
            <dl class="shortcuts">{move || rows(apple)}</dl>
        </Dialog>
    }
}

/// A row per shortcut: what it does, and its keys.
fn rows(apple: bool) -> impl IntoView {
    Shortcut::ALL
        .into_iter()
        .map(|shortcut| {
            let keys = shortcut
                .keys(apple)
                .into_iter()
                .map(|key| view! { <kbd>{key}</kbd> })
                .collect_view();
            view! {
                <div class="shortcuts__row">
                    <dt>{tr(label(shortcut))}</dt>
                    <dd>{keys}</dd>
                </div>
            }
        })
        .collect_view()
}

fn label(shortcut: Shortcut) -> Key {
    match shortcut {
        Shortcut::NewChat => Key::ShortcutsNewChat,
        Shortcut::Search => Key::ShortcutsSearch,
        Shortcut::FocusComposer => Key::ShortcutsFocusComposer,
        Shortcut::Stop => Key::ShortcutsStop,
        Shortcut::ToggleSidebar => Key::ShortcutsToggleSidebar,
        Shortcut::ShowShortcuts => Key::ShortcutsShow,
    }
}

/// Whether this is an Apple device (its command key is ⌘).
fn is_apple() -> bool {
    window().navigator().user_agent().is_ok_and(|agent| {
        ["Macintosh", "iPhone", "iPad"]
            .iter()
            .any(|d| agent.contains(d))
    })
}
