//! Two tabs, one database. Another tab's announcement (`broadcast`) names the records it
//! wrote; this tab reloads just those from IndexedDB and shows them. Nobody sends data
//! over the channel, only ids, so the database stays the one source of truth, and
//! field-level merges (`storage::Batch::merge`) keep a tab from overwriting fields
//! another tab changed.

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
