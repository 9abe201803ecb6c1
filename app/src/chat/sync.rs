//! Two tabs, one database. After every write a tab announces what it changed on the
//! `hearth-chat` BroadcastChannel; the other tabs reload just that record from IndexedDB
//! and show it. Nobody sends data over the channel, only ids, so the database stays the
//! one source of truth, and field-level merges (`storage::Batch::merge`) keep a tab from
//! overwriting fields another tab changed.

use hearth_core::chat::record::newer;
use hearth_core::chat::{ConversationRecord, MessageRecord, MessageTree};
use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{BroadcastChannel, MessageEvent};

use super::Chat;
use crate::storage::{Batch, CONVERSATIONS, MESSAGES};

const CHANNEL: &str = "hearth-chat";

thread_local! {
    static CHANNEL_HANDLE: Option<BroadcastChannel> = BroadcastChannel::new(CHANNEL).ok();
}

fn post(fields: &[(&str, &str)]) {
    CHANNEL_HANDLE.with(|channel| {
        let Some(channel) = channel else { return };
        let message = Object::new();
        for (name, value) in fields {
            let _ = Reflect::set(&message, &(*name).into(), &(*value).into());
        }
        let _ = channel.post_message(&message);
    });
}

/// Tells other tabs which records `batch` wrote (or deleted).
pub fn announce(batch: &Batch) {
    for (store, id) in batch.keys() {
        let kind = if store == CONVERSATIONS {
            "conversation"
        } else {
            "message"
        };
        post(&[("kind", kind), ("id", &id)]);
    }
}

/// Tells other tabs that many records changed at once (an import, a delete-all): they
/// reload the whole list instead of one record per message.
pub fn announce_all() {
    post(&[("kind", "all"), ("id", "")]);
}

fn text(data: &JsValue, name: &str) -> String {
    Reflect::get(data, &name.into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// Starts applying other tabs' announcements to `chat`.
pub fn listen(chat: Chat) {
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let data = event.data();
        let kind = text(&data, "kind");
        let id = text(&data, "id");
        chat.spawn(async move {
            match kind.as_str() {
                "conversation" => reload_conversation(chat, id).await,
                "message" => reload_message(chat, id).await,
                "all" => chat.reload_all().await,
                _ => {}
            }
        });
    });
    CHANNEL_HANDLE.with(|channel| {
        if let Some(channel) = channel {
            channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        }
    });
    on_message.forget();
}

async fn reload_conversation(chat: Chat, id: String) {
    use leptos::prelude::*;
    let Some(db) = chat.db() else { return };
    let Ok(stored) = db.record::<ConversationRecord>(CONVERSATIONS, &id).await else {
        return;
    };
    let open = chat.current.get_untracked().as_deref() == Some(&id);
    match stored {
        None => {
            chat.conversations
                .update(|list| list.retain(|c| c.id != id));
            if open {
                chat.new_chat();
            }
        }
        Some(record) => {
            let root_changed = chat.conversations.with_untracked(|list| {
                list.iter()
                    .find(|c| c.id == id)
                    .is_none_or(|c| c.active_root_id != record.active_root_id)
            });
            chat.conversations.update(|list| {
                match list.iter_mut().find(|c| c.id == id) {
                    Some(current) => {
                        if newer(
                            record.rev,
                            record.updated_at,
                            current.rev,
                            current.updated_at,
                        ) || record != *current
                        {
                            *current = record;
                        }
                    }
                    None => list.push(record),
                }
                super::sort(list);
            });
            if open && root_changed {
                chat.open(id);
            }
        }
    }
}

async fn reload_message(chat: Chat, id: String) {
    use leptos::prelude::*;
    let Some(current) = chat.current.get_untracked() else {
        return;
    };
    // A reply this tab is writing is this tab's to show.
    let ours = chat
        .runs
        .with_untracked(|runs| runs.values().any(|r| r.message_id == id));
    if ours {
        return;
    }
    let Some(db) = chat.db() else { return };
    let Ok(stored) = db.record::<MessageRecord>(MESSAGES, &id).await else {
        return;
    };
    // Only the open conversation's messages matter here.
    let stored = stored.filter(|record| record.conversation_id == current);
    match (stored, chat.live(&id)) {
        (Some(record), Some(live)) => {
            let current = live.record.with_untracked(|r| (r.rev, r.updated_at));
            if newer(record.rev, record.updated_at, current.0, current.1) {
                let structure_changed = live
                    .record
                    .with_untracked(|r| r.active_child_id != record.active_child_id);
                live.replace(record);
                if structure_changed {
                    rebuild_tree(chat);
                }
            }
        }
        (Some(record), None) => {
            chat.add_live(record);
            rebuild_tree(chat);
        }
        (None, Some(_)) => {
            chat.messages.update(|m| {
                m.remove(&id);
            });
            rebuild_tree(chat);
        }
        (None, None) => {}
    }
}

/// Rebuilds the open conversation's tree from its live records.
fn rebuild_tree(chat: Chat) {
    use leptos::prelude::*;
    let mut records: Vec<(f64, hearth_core::chat::NodeRecord)> =
        chat.messages.with_untracked(|m| {
            m.values()
                .map(|live| live.record.with_untracked(|r| (r.created_at, r.node())))
                .collect()
        });
    // Siblings keep the order they were written in.
    records.sort_by(|a, b| a.0.total_cmp(&b.0));
    let nodes: Vec<_> = records.into_iter().map(|(_, node)| node).collect();
    let root = chat.current_record().and_then(|c| c.active_root_id);
    chat.tree
        .set(MessageTree::from_records(&nodes, root.as_deref()));
}
