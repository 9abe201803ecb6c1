//! The address bar follows the open conversation (`core::address`): `/c/<id>` while one
//! is open, `/` for a new chat. A page opened at `/c/<id>` (a reload, a bookmark, a
//! second tab) opens that conversation once the list has loaded; one this browser does
//! not have is said in a toast and leaves a new chat at `/`. Switching conversations adds
//! a history entry, so Back and Forward move between them; a new chat becoming a
//! conversation, or a conversation deleted, replaces its entry instead. A temporary chat
//! keeps `/` until it is kept.

use hearth_core::address::{conversation_in, path_of};
use leptos::prelude::*;
use wasm_bindgen::JsValue;

use crate::chat::Chat;
use crate::i18n::{I18n, Key};
use crate::ui::toast::{ToastKind, Toasts};

fn pathname() -> String {
    window().location().pathname().unwrap_or_default()
}

/// Puts `path` in the address bar, keeping the query and the hash: as a new history
/// entry when `push`, in place of the current one otherwise.
fn set_path(path: &str, push: bool) {
    let location = window().location();
    let url = format!(
        "{path}{}{}",
        location.search().unwrap_or_default(),
        location.hash().unwrap_or_default()
    );
    let Ok(history) = window().history() else {
        return;
    };
    let _ = if push {
        history.push_state_with_url(&JsValue::NULL, "", Some(&url))
    } else {
        history.replace_state_with_url(&JsValue::NULL, "", Some(&url))
    };
}

/// Shows what the address names: its conversation if this browser has it, else a new
/// chat, saying so.
fn open_address(chat: Chat, toasts: Toasts, i18n: I18n) {
    match conversation_in(&pathname()) {
        Some(id) if chat.open.is_open_untracked(id) => {}
        Some(id) if chat.list.find(id).is_some() => chat.open.open(id.to_string()),
        Some(_) => {
            toasts.show(ToastKind::Error, i18n.t(Key::AddressNotFound));
            set_path("/", false);
            if chat.open.current_untracked().is_some() {
                chat.new_chat();
            }
        }
        None => {
            if chat.open.current_untracked().is_some() {
                chat.new_chat();
            }
        }
    }
}

/// Keeps the address bar and the open conversation in step, from now on. The code is in
/// a lazily loaded chunk (the first screen does not wait for it: a page opened at
/// `/c/<id>` waits for the conversation list anyway).
pub fn follow(chat: Chat, toasts: Toasts, i18n: I18n) {
    crate::browser::spawn_scoped(follow_lazily(chat, toasts, i18n));
}

#[lazy]
async fn follow_lazily(chat: Chat, toasts: Toasts, i18n: I18n) {
    // The page's own address, once the list is here; unless the user opened something
    // meanwhile.
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) || !chat.store.loaded() {
            return done.unwrap_or(false);
        }
        untrack(|| {
            if chat.open.current_untracked().is_none() {
                open_address(chat, toasts, i18n);
            }
        });
        true
    });
    // Changes of the open conversation, into the address. A temporary chat has none (a
    // reload would find nothing there) until it is kept.
    Effect::new(move |previous: Option<(Option<String>, bool)>| {
        let current = chat.open.current();
        let temporary = current.as_deref().is_some_and(|id| chat.list.temporary(id));
        if let Some((previous, was_temporary)) = previous
            && (previous != current || was_temporary != temporary)
        {
            let path = path_of(current.as_deref().filter(|_| !temporary));
            if path != pathname() {
                // A conversation left for another (or for a new chat) stays reachable
                // by Back; a new chat that became a conversation, or one deleted, not.
                let push = untrack(|| {
                    previous.is_some_and(|id| chat.list.find(&id).is_some_and(|c| !c.temporary))
                });
                set_path(&path, push);
            }
        }
        (current, temporary)
    });
    let _ = window_event_listener(leptos::ev::popstate, move |_| {
        open_address(chat, toasts, i18n);
    });
}
