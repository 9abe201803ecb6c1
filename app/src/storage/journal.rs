//! The search journal: which conversations changed, numbered, so a saved search index
//! knows what it is missing. Every batch that writes a conversation or a message also
//! writes, in the same transaction, the next write number (`seq`) under the counter
//! key [`COUNTER`] and under each conversation it touched; emptying the chat stores
//! writes it under [`EVERYTHING`]. Records are `{id, seq}` (key path `id`, index `seq`).
//!
//! A search index that reflects every write up to number `n` reads the entries with a
//! `seq` above `n` ([`Db::journal_since`]): exactly the conversations to index again,
//! and the counter to reflect next. Because the change and its entry commit together,
//! a crash between them is impossible, and a tab that saves an index never has to
//! trust another tab's bookkeeping. Entries are never deleted (one small record per
//! conversation ever changed), so any number of tabs can each catch up from their own
//! `n`.

use idb::{ObjectStore, TransactionMode};
use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

use super::{BY_SEQ, CONVERSATIONS, Db, MESSAGES, SEARCH_JOURNAL, StorageError};

/// The key of the counter entry (its `seq` is the last write number).
pub const COUNTER: &str = "#";
/// The key written when the chat stores were emptied: rebuild the index from nothing.
pub const EVERYTHING: &str = "*";

/// Whether writes to `stores` are journaled.
pub(super) fn covers(stores: &[&str]) -> bool {
    stores.iter().any(|s| *s == CONVERSATIONS || *s == MESSAGES)
}

/// The conversations a batch changes, collected while it is applied.
#[derive(Debug, Default)]
pub(super) struct Changed(Vec<String>);

impl Changed {
    /// Notes the conversation of a write to `store` of record `key`, whose stored (or new)
    /// object is `record`.
    pub(super) fn note(&mut self, store: &str, key: &str, record: &JsValue) {
        let conversation = match store {
            CONVERSATIONS => Some(key.to_string()),
            MESSAGES => Reflect::get(record, &"conversationId".into())
                .ok()
                .and_then(|v| v.as_string()),
            _ => None,
        };
        if let Some(id) = conversation.filter(|id| !id.is_empty())
            && !self.0.contains(&id)
        {
            self.0.push(id);
        }
    }
}

fn entry(id: &str, seq: f64) -> JsValue {
    let entry = Object::new();
    let _ = Reflect::set(&entry, &"id".into(), &id.into());
    let _ = Reflect::set(&entry, &"seq".into(), &JsValue::from_f64(seq));
    entry.into()
}

fn seq_of(value: &JsValue) -> Option<f64> {
    Reflect::get(value, &"seq".into()).ok()?.as_f64()
}

/// The next write number, written to the counter.
async fn next(journal: &ObjectStore) -> Result<f64, StorageError> {
    let last = journal
        .get(JsValue::from_str(COUNTER))?
        .await?
        .as_ref()
        .and_then(seq_of)
        .unwrap_or(0.0);
    let seq = last + 1.0;
    journal.put(&entry(COUNTER, seq), None)?.await?;
    Ok(seq)
}

/// Journals `changed` inside the batch's transaction.
pub(super) async fn record(journal: &ObjectStore, changed: Changed) -> Result<(), StorageError> {
    if changed.0.is_empty() {
        return Ok(());
    }
    let seq = next(journal).await?;
    for id in changed.0 {
        journal.put(&entry(&id, seq), None)?.await?;
    }
    Ok(())
}

/// Journals that everything changed, inside the clearing transaction.
pub(super) async fn record_everything(journal: &ObjectStore) -> Result<(), StorageError> {
    let seq = next(journal).await?;
    journal.put(&entry(EVERYTHING, seq), None)?.await?;
    Ok(())
}

/// What changed after write number `after`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Since {
    /// The last write number (`after` when nothing was written since).
    pub last: f64,
    /// The chat stores were emptied since (rebuild everything).
    pub everything: bool,
    /// The conversations changed since (maybe deleted since), with the number of their
    /// last write.
    pub conversations: Vec<(String, f64)>,
}

impl Db {
    /// Whether this database keeps the search journal (not when its upgrade failed).
    pub fn has_journal(&self) -> bool {
        self.database
            .store_names()
            .iter()
            .any(|name| name == SEARCH_JOURNAL)
    }

    /// What changed after write number `after`, read in one transaction.
    pub async fn journal_since(&self, after: f64) -> Result<Since, StorageError> {
        let mut since = Since {
            last: after,
            ..Since::default()
        };
        if !self.has_journal() {
            return Ok(since);
        }
        let transaction = self
            .database
            .transaction(&[SEARCH_JOURNAL], TransactionMode::ReadOnly)?;
        let range = idb::KeyRange::lower_bound(&JsValue::from_f64(after), Some(true))?;
        let entries = transaction
            .object_store(SEARCH_JOURNAL)?
            .index(BY_SEQ)?
            .get_all(Some(idb::Query::KeyRange(range)), None)?
            .await?;
        transaction.await?;
        for value in entries {
            let (Some(id), Some(seq)) = (
                Reflect::get(&value, &"id".into())
                    .ok()
                    .and_then(|v| v.as_string()),
                seq_of(&value),
            ) else {
                continue;
            };
            since.last = since.last.max(seq);
            match id.as_str() {
                COUNTER => {}
                EVERYTHING => since.everything = true,
                _ => since.conversations.push((id, seq)),
            }
        }
        Ok(since)
    }

    /// The last write number.
    pub async fn journal_counter(&self) -> Result<f64, StorageError> {
        if !self.has_journal() {
            return Ok(0.0);
        }
        Ok(self
            .get_raw(SEARCH_JOURNAL, COUNTER)
            .await?
            .as_ref()
            .and_then(seq_of)
            .unwrap_or(0.0))
    }
}
