//! Two tabs, one database. Another tab's announcement (`broadcast`) names the records it
//! wrote; this tab reloads just those from IndexedDB and shows them. Nobody sends data
//! over the channel, only ids, so the database stays the one source of truth, and
//! field-level merges (`storage::Batch::merge`) keep a tab from overwriting fields
//! another tab changed.
//!
//! Replies another tab writes (`tabs`) are followed here too: announced when they start,
//! read from the lock manager while any run (every second, and when a run's end is
//! announced), so one whose writer closed or crashed is shown interrupted; a request to
//! stop one is obeyed by the tab that writes it.

use std::cell::Cell;

use hearth_core::chat::ConversationRecord;
use js_sys::Reflect;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::MessageEvent;

use super::Chat;
use super::broadcast;
use crate::storage::CONVERSATIONS;

fn text(data: &JsValue, name: &str) -> String {
    Reflect::get(data, &name.into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// Starts applying other tabs' announcements to `chat` (for as long as the page lives).
pub fn listen(chat: Chat) {
    broadcast::with_channel(|channel| {
        gloo_events::EventListener::new(channel, "message", move |event| {
            let Some(event) = event.dyn_ref::<MessageEvent>() else {
                return;
            };
            let data = event.data();
            let kind = text(&data, "kind");
            let id = text(&data, "id");
            match kind.as_str() {
                "run" => {
                    chat.tabs.heard_started(&id);
                    watch(chat);
                    return;
                }
                "ran" => {
                    chat.tabs.heard_ended(&id);
                    chat.store.spawn(settle(chat));
                    return;
                }
                "stop" => {
                    chat.runs.stop(&id);
                    return;
                }
                "answer" => {
                    // Only the tab writing the reply holds the waiting call.
                    if !chat.runs.writing(&id).is_empty()
                        && let Some(answer) =
                            crate::plugins::Answer::from_name(&text(&data, "answer"))
                    {
                        chat.turn.plugins.answer(&text(&data, "key"), answer);
                    }
                    return;
                }
                _ => {}
            }
            chat.store.note_change();
            chat.store.spawn(async move {
                match kind.as_str() {
                    "conversation" => reload_conversation(chat, id).await,
                    "message" => reload_message(chat, id).await,
                    "all" => chat.reload_all().await,
                    _ => {}
                }
            });
        })
        .forget();
    });
    watch(chat);
}

thread_local! {
    /// Whether [`watch`] is following the lock manager.
    static WATCHING: Cell<bool> = const { Cell::new(false) };
}

/// Follows other tabs' runs in the lock manager for as long as there are any: a runner
/// that closes or crashes lets go of its lock without announcing anything.
fn watch(chat: Chat) {
    if WATCHING.with(|w| w.replace(true)) {
        return;
    }
    chat.store.spawn(async move {
        loop {
            settle(chat).await;
            if !chat.tabs.watching() {
                break;
            }
            crate::browser::sleep_ms(1000).await;
        }
        WATCHING.with(|w| w.set(false));
    });
}

/// Reads which replies other tabs write now. A conversation on screen whose writer
/// appeared is read again (shown as another tab's, not as interrupted); one whose
/// writer is gone shows its replies as stored, reopened.
async fn settle(chat: Chat) {
    let changed = chat.tabs.refresh().await;
    for id in changed.started {
        if chat.open.is_open_untracked(&id) {
            chat.open.open(id);
        }
    }
    if !changed
        .ended
        .iter()
        .any(|id| chat.open.is_open_untracked(id))
    {
        return;
    }
    let Some(db) = chat.store.get() else { return };
    for message_id in chat.open.streaming_elsewhere() {
        if let Ok(Some(stored)) = super::records::one(db.clone(), message_id.clone()).await {
            chat.open.show_abandoned(&message_id, stored);
        }
    }
}

async fn reload_conversation(chat: Chat, id: String) {
    let Some(db) = chat.store.get() else { return };
    let Ok(stored) = db.record::<ConversationRecord>(CONVERSATIONS, &id).await else {
        return;
    };
    let open = chat.open.is_open_untracked(&id);
    match stored {
        None => {
            chat.list.forget(&id);
            if open {
                chat.new_chat();
            }
        }
        Some(record) => {
            let root_changed = chat.list.apply_stored(record);
            if open && root_changed {
                chat.open.open(id);
            }
        }
    }
}

async fn reload_message(chat: Chat, id: String) {
    if chat.open.current_untracked().is_none() {
        return;
    }
    // A reply this tab is writing is this tab's to show.
    if chat.runs.is_writing(&id) {
        return;
    }
    let Some(db) = chat.store.get() else { return };
    let Ok(stored) = super::records::one(db, id.clone()).await else {
        return;
    };
    chat.open.apply_stored(&id, stored);
}
