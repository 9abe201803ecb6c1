//! Temporary chats: a conversation marked `temporary` and its messages live in this tab's
//! memory ([`MemoryRecords`]), never in the database. Every chat write is split here
//! ([`split`], then [`apply`] once the rest is stored) when a temporary chat exists or
//! a write starts one; reads of a temporary chat come from memory (`super::records`, the
//! lazily loaded reading of messages); keeping one ([`take`]) stores it as any other
//! conversation. Lazily loaded: a tab that never makes a temporary chat never loads
//! this. The database side is `super::store::ChatDb`'s.

use std::collections::HashSet;

use hearth_core::chat::ConversationRecord;
use leptos::prelude::*;
use serde_json::Value;

use crate::storage::memory::MemoryRecords;
use crate::storage::{BY_CONVERSATION, Batch, CONVERSATIONS, MESSAGES};

type Memory = StoredValue<MemoryRecords, LocalStorage>;

/// `batch` as (what the database stores, what stays in memory). A tab whose memory is
/// gone (the app torn down) can no longer tell a temporary chat's writes apart: it
/// stores nothing rather than risk storing one.
#[lazy]
pub async fn split(memory: Memory, batch: Batch) -> (Batch, Batch) {
    memory
        .try_with_value(move |memory| {
            let mut batch = batch;
            let temporary = split_temporary(memory, &mut batch);
            (batch, temporary)
        })
        .unwrap_or_default()
}

/// Applies `batch` to the temporary chats.
#[lazy]
pub async fn apply(memory: Memory, batch: Batch) {
    memory.update_value(|memory| memory.apply(batch));
}

/// What keeping temporary chat `id` takes: its record as kept (no longer temporary),
/// the batch that stores it with its messages, and the batch that puts it back in
/// memory should that fail. Its records leave memory now; `None` when it is not one.
#[lazy]
pub async fn take(memory: Memory, id: String) -> Option<(ConversationRecord, Batch, Batch)> {
    let (conversation, messages) = memory.try_update_value(|memory| {
        let conversation = memory.take(CONVERSATIONS, |key, _| key == id);
        let messages = memory.take(MESSAGES, |_, record| {
            record[BY_CONVERSATION].as_str() == Some(id.as_str())
        });
        (conversation, messages)
    })?;
    let mut back = Batch::new();
    for record in &conversation {
        back.put_json(CONVERSATIONS, record);
    }
    for record in &messages {
        back.put_json(MESSAGES, record);
    }
    let Some(mut record) = conversation
        .first()
        .and_then(|record| serde_json::from_value::<ConversationRecord>(record.clone()).ok())
    else {
        memory.update_value(|memory| memory.apply(back));
        return None;
    };
    record.temporary = false;
    let mut keep = Batch::new();
    keep.put(CONVERSATIONS, &record);
    for message in &messages {
        keep.put_json(MESSAGES, message);
    }
    Some((record, keep, back))
}

/// Moves the writes to temporary chats out of `batch`: their conversations (those in
/// `memory`, and those the batch starts as temporary) and their messages.
fn split_temporary(memory: &MemoryRecords, batch: &mut Batch) -> Batch {
    let mut conversations: HashSet<String> = memory.keys(CONVERSATIONS).into_iter().collect();
    let field = |json: Option<&str>, name: &str| {
        json.and_then(|json| serde_json::from_str::<Value>(json).ok())
            .map(|record| record[name].clone())
            .unwrap_or_default()
    };
    batch.split_off(|store, key, json| match store {
        CONVERSATIONS => {
            let temporary =
                conversations.contains(key) || field(json, "temporary") == Value::Bool(true);
            if temporary {
                conversations.insert(key.to_string());
            }
            temporary
        }
        MESSAGES => {
            memory.holds(MESSAGES, key)
                || field(json, BY_CONVERSATION)
                    .as_str()
                    .is_some_and(|id| conversations.contains(id))
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_temporary_chats_and_their_messages_are_split_off() {
        let mut memory = MemoryRecords::default();
        let mut first = Batch::new();
        first
            .put_json(CONVERSATIONS, &json!({"id": "t", "temporary": true}))
            .put_json(MESSAGES, &json!({"id": "q", "conversationId": "t"}))
            .put_json(CONVERSATIONS, &json!({"id": "s", "temporary": false}))
            .put_json(MESSAGES, &json!({"id": "r", "conversationId": "s"}))
            .put_json("settings", &json!({"id": "t"}));
        assert!(first.puts_marked(CONVERSATIONS, "temporary"));
        let taken = split_temporary(&memory, &mut first);
        assert_eq!(
            taken.keys(),
            [(CONVERSATIONS, "t".into()), (MESSAGES, "q".into())]
        );
        assert_eq!(first.keys().len(), 3, "the rest is stored");
        assert!(!first.puts_marked(CONVERSATIONS, "temporary"));
        memory.apply(taken);

        // Later writes find the chat in memory: a merge, a reply, a delete.
        let mut later = Batch::new();
        later
            .merge(CONVERSATIONS, "t", json!({"title": "x"}))
            .merge(MESSAGES, "q", json!({"content": "y"}))
            .put_json(MESSAGES, &json!({"id": "a", "conversationId": "t"}))
            .merge(CONVERSATIONS, "s", json!({"title": "z"}))
            .delete(MESSAGES, "r");
        let taken = split_temporary(&memory, &mut later);
        assert_eq!(taken.keys().len(), 3);
        assert_eq!(
            later.keys(),
            [(CONVERSATIONS, "s".into()), (MESSAGES, "r".into())]
        );
    }

    #[test]
    fn a_title_that_quotes_the_mark_does_not_start_a_temporary_chat() {
        let mut batch = Batch::new();
        batch.put_json(
            CONVERSATIONS,
            &json!({"id": "s", "title": "\"temporary\":true"}),
        );
        assert!(!batch.puts_marked(CONVERSATIONS, "temporary"));
        let taken = split_temporary(&MemoryRecords::default(), &mut batch);
        assert!(taken.is_empty());
    }
}
