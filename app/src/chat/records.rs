//! The message records of a turn as it starts (the user's question, the reply about to
//! be written), and reading message records back from the database (or the tab's
//! memory, for a temporary chat), in a lazily loaded
//! chunk: their deserialisers (tool rounds, typed errors, usage, timings) are large and
//! the first screen, which lists conversations only, never needs them.

use hearth_core::attachment::Attachment;
use hearth_core::chat::{MessageRecord, MessageStatus, Role};
use hearth_core::preferences::ModelRef;
use leptos::prelude::*;

use crate::browser::{new_id, now};
use crate::storage::memory::MemoryRecords;
use crate::storage::{BY_CONVERSATION, CONVERSATIONS, Db, MESSAGES, StorageError};

/// Every message of conversation `id`: from `memory` for a temporary chat.
#[lazy]
pub async fn of_conversation(
    db: Db,
    memory: StoredValue<MemoryRecords, LocalStorage>,
    id: String,
) -> Result<Vec<MessageRecord>, StorageError> {
    if let Some(records) = temporary_messages(memory, &id) {
        return Ok(records);
    }
    db.records_by::<MessageRecord>(MESSAGES, BY_CONVERSATION, &id)
        .await
}

/// The messages of conversation `id` when it is a temporary chat (kept in `memory`).
fn temporary_messages(
    memory: StoredValue<MemoryRecords, LocalStorage>,
    id: &str,
) -> Option<Vec<MessageRecord>> {
    let records = memory.try_with_value(|memory| {
        memory
            .holds(CONVERSATIONS, id)
            .then(|| memory.by(MESSAGES, BY_CONVERSATION, id))
    })??;
    Some(
        records
            .into_iter()
            .filter_map(|record| serde_json::from_value(record).ok())
            .collect(),
    )
}

/// Message `id`, if it is stored.
#[lazy]
pub async fn one(db: Db, id: String) -> Result<Option<MessageRecord>, StorageError> {
    db.record::<MessageRecord>(MESSAGES, &id).await
}

/// The user's message `text`, below `parent`.
pub(super) fn question_record(
    conversation_id: &str,
    parent: Option<String>,
    text: String,
    attachments: Vec<Attachment>,
) -> MessageRecord {
    let at = now();
    MessageRecord {
        id: new_id(),
        conversation_id: conversation_id.to_string(),
        parent_id: parent,
        role: Some(Role::User),
        content: text,
        attachments,
        created_at: at,
        updated_at: at,
        ..Default::default()
    }
}

/// A reply about to be written by `choice`, below `parent`.
pub(super) fn reply_record(
    conversation_id: &str,
    parent: Option<String>,
    choice: &ModelRef,
) -> MessageRecord {
    let at = now();
    MessageRecord {
        id: new_id(),
        conversation_id: conversation_id.to_string(),
        parent_id: parent,
        role: Some(Role::Assistant),
        status: MessageStatus::Streaming,
        provider_id: Some(choice.provider_id.clone()),
        model: Some(choice.model.clone()),
        created_at: at,
        updated_at: at,
        ..Default::default()
    }
}
