//! Reading conversation records back from the database, in a lazily loaded chunk: their
//! deserialiser (twenty fields, the compression summary) is among the largest single
//! pieces of code the first screen would otherwise carry. The chunk is fetched while the
//! database opens, so the sidebar's list does not wait for it.

use hearth_core::chat::ConversationRecord;
use leptos::prelude::*;

use super::store::ChatDb;
use crate::storage::{CONVERSATIONS, Db, StorageError};

/// Every stored conversation (none without a database: the first load calls this then,
/// to fetch the chunk while the database opens; the list's read needs no other).
#[lazy]
pub async fn all(db: Option<Db>) -> Result<Vec<ConversationRecord>, StorageError> {
    match db {
        Some(db) => db.all_records::<ConversationRecord>(CONVERSATIONS).await,
        None => Ok(Vec::new()),
    }
}

/// Conversation `id`'s stored record, if any.
#[lazy]
pub async fn one(store: ChatDb, id: String) -> Result<Option<ConversationRecord>, StorageError> {
    let Some(db) = store.get() else {
        return Ok(None);
    };
    db.record::<ConversationRecord>(CONVERSATIONS, &id).await
}
