//! Reading message records back from the database, in a lazily loaded chunk: their
//! deserialisers (tool rounds, typed errors, usage, timings) are large and the first
//! screen, which lists conversations only, never needs them.

use hearth_core::chat::MessageRecord;
use leptos::prelude::*;

use crate::storage::{BY_CONVERSATION, Db, MESSAGES, StorageError};

/// Every message of conversation `id`.
#[lazy]
pub async fn of_conversation(db: Db, id: String) -> Result<Vec<MessageRecord>, StorageError> {
    db.records_by::<MessageRecord>(MESSAGES, BY_CONVERSATION, &id)
        .await
}

/// Message `id`, if it is stored.
#[lazy]
pub async fn one(db: Db, id: String) -> Result<Option<MessageRecord>, StorageError> {
    db.record::<MessageRecord>(MESSAGES, &id).await
}
