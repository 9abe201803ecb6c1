//! The `hearth-chat` BroadcastChannel: after every write a tab announces which records it
//! changed (ids only, never data: the database stays the one source of truth), and when
//! it starts and ends writing a conversation's reply (`tabs`); a tab showing another's
//! reply asks it to stop here, and answers a tool call waiting in it. `sync` listens on
//! the same channel.

use js_sys::{Object, Reflect};
use web_sys::BroadcastChannel;

use crate::storage::{Batch, CONVERSATIONS};

const CHANNEL: &str = "hearth-chat";

thread_local! {
    static CHANNEL_HANDLE: Option<BroadcastChannel> = BroadcastChannel::new(CHANNEL).ok();
}

/// Runs `f` with the channel, when the browser has one.
pub fn with_channel(f: impl FnOnce(&BroadcastChannel)) {
    CHANNEL_HANDLE.with(|channel| {
        if let Some(channel) = channel {
            f(channel);
        }
    });
}

fn post(fields: &[(&str, &str)]) {
    with_channel(|channel| {
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

/// Tells other tabs that this tab started (or ended) writing `conversation_id`'s reply.
pub fn announce_run(conversation_id: &str, started: bool) {
    let kind = if started { "run" } else { "ran" };
    post(&[("kind", kind), ("id", conversation_id)]);
}

/// Asks the tab writing `conversation_id`'s reply to stop it.
pub fn ask_stop(conversation_id: &str) {
    post(&[("kind", "stop"), ("id", conversation_id)]);
}

/// Gives the tab writing `conversation_id`'s reply the user's answer to the tool call
/// waiting under `key` (only that tab can run the call).
pub fn give_answer(conversation_id: &str, key: &str, answer: &str) {
    post(&[
        ("kind", "answer"),
        ("id", conversation_id),
        ("key", key),
        ("answer", answer),
    ]);
}
