//! The app's IndexedDB database (`hearth`), opened once per page.
//!
//! - v1: `settings` (JSON documents by name: the provider list, …), `secrets` (sealed
//!   secrets by context, see [`crate::vault`], never plaintext), `keys` (the vault's
//!   non-extractable `CryptoKey`).
//! - v2: `conversations` (one record per conversation, key path `id`) and `messages` (one
//!   record per message, key path `id`, index `conversationId`), so the sidebar never
//!   loads a message.
//! - v3: `backups` (records a migration rewrote, as they were, under
//!   `v<version>:<store>:<id>`), and replies a crash left `streaming` are rewritten as
//!   `interrupted` in the store itself (each original backed up first).
//! - v4: `searchJournal` (see [`journal`]): which conversations changed since a search
//!   index was saved, written in the same transaction as the change itself.
//!
//! Migrations run in order inside the browser's upgrade transaction, which is atomic: a
//! migration that fails (a full disk, say) aborts the upgrade and leaves the previous
//! version's data as it was. The app then opens that version as it is, keeps working on
//! it, tells the user, and tries again on the next start. A step that rewrites records
//! copies each one to `backups` before changing it.
//!
//! A newer build opened in another tab asks for a higher version; every connection of this
//! page then closes at once (`versionchange`), so the upgrade is never blocked, and the
//! page is told ([`REPLACED_EVENT`]): from then on every call answers
//! [`StorageError::Replaced`] until the user reloads. Records are written in [`Batch`]es, one transaction each, so a full disk never
//! leaves half a change. Every failure is a [`StorageError`] the user can be shown; a full
//! quota is recognised.

use idb::{Database, DatabaseEvent, Factory, Transaction, TransactionMode, TransactionResult};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

/// The database name.
pub const DB_NAME: &str = "hearth";
/// The schema version.
pub const DB_VERSION: u32 = 4;
/// Settings documents.
pub const SETTINGS: &str = "settings";
/// Sealed secrets.
pub const SECRETS: &str = "secrets";
/// The vault key.
pub const KEYS: &str = "keys";
/// Conversation records.
pub const CONVERSATIONS: &str = "conversations";
/// Message records.
pub const MESSAGES: &str = "messages";
/// Records as they were before a migration rewrote them.
pub const BACKUPS: &str = "backups";
/// The search journal ([`journal`]).
pub const SEARCH_JOURNAL: &str = "searchJournal";
/// The search journal's index by write number.
pub const BY_SEQ: &str = "seq";
/// The performance measure of a merge's own work (not its waits), and its start mark;
/// a reply's start clears them (`chat::turn::reply`).
pub const MERGE_MEASURE: &str = "hearth:merge";
const MERGE_START: &str = "hearth:merge:start";
/// The `messages` index by conversation.
pub const BY_CONVERSATION: &str = "conversationId";
/// The window event fired when this page let go of the database for a newer version.
pub const REPLACED_EVENT: &str = "hearth-storage-replaced";

thread_local! {
    /// Whether this page let go of the database for a newer version.
    static REPLACED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this page let go of the database for a newer version (another tab's).
pub fn replaced() -> bool {
    REPLACED.with(std::cell::Cell::get)
}

/// `database`, set to close as soon as another page asks for a newer version, and to
/// tell this page.
fn let_go_on_upgrade(database: Database) -> Database {
    let raw: web_sys::IdbDatabase = database.into();
    let connection = raw.clone();
    let on_upgrade = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
        connection.close();
        if !REPLACED.with(|r| r.replace(true))
            && let Ok(event) = web_sys::Event::new(REPLACED_EVENT)
        {
            let _ = leptos::prelude::window().dispatch_event(&event);
        }
    });
    raw.set_onversionchange(Some(wasm_bindgen::JsCast::unchecked_ref(
        on_upgrade.as_ref(),
    )));
    // A connection lives as long as the page.
    on_upgrade.forget();
    Database::from(raw)
}

mod batch;
pub mod document;
pub mod journal;
pub mod memory;
mod schema;

pub use batch::Batch;
use batch::{Write, merge_into, to_object};
use schema::migrate;

fn from_object<T: DeserializeOwned>(value: &JsValue) -> Result<T, StorageError> {
    let text: String = js_sys::JSON::stringify(value)
        .map_err(|_| StorageError::Corrupt("record".into()))?
        .into();
    serde_json::from_str(&text).map_err(|e| StorageError::Corrupt(e.to_string()))
}

/// A storage failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageError {
    /// IndexedDB is missing or refused (private mode, blocked storage).
    Unavailable(String),
    /// The browser's quota for this site is full.
    QuotaExceeded,
    /// A stored document could not be read back.
    Corrupt(String),
    /// The upgrade to the current schema failed; the previous version's data is in use.
    UpgradeFailed(String),
    /// A newer version opened in another tab took the database over; this page must be
    /// reloaded.
    Replaced,
    /// Anything else the browser reported.
    Failed(String),
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unavailable(why) => write!(f, "browser storage is unavailable: {why}"),
            Self::QuotaExceeded => f.write_str("browser storage is full"),
            Self::Corrupt(what) => write!(f, "stored data could not be read: {what}"),
            Self::UpgradeFailed(why) => write!(f, "the storage upgrade failed: {why}"),
            Self::Replaced => f.write_str("a newer version in another tab took the storage over"),
            Self::Failed(why) => write!(f, "browser storage failed: {why}"),
        }
    }
}

impl From<idb::Error> for StorageError {
    fn from(error: idb::Error) -> Self {
        let text = error.to_string();
        if replaced() {
            Self::Replaced
        } else if text.contains("QuotaExceeded") {
            Self::QuotaExceeded
        } else {
            Self::Failed(text)
        }
    }
}

/// Commits `transaction` and waits until it is durable. A transaction the browser
/// aborts at commit (a full quota is reported this way, not as a failed request) is an
/// error: none of its writes happened.
async fn commit(transaction: Transaction) -> Result<(), StorageError> {
    let raw: web_sys::IdbTransaction = transaction.into();
    let watch = raw.clone();
    match Transaction::from(raw).commit()?.await? {
        TransactionResult::Committed => Ok(()),
        TransactionResult::Aborted => Err(match watch.error() {
            Some(error) if error.name() == "QuotaExceededError" => StorageError::QuotaExceeded,
            Some(error) => StorageError::Failed(format!("{}: {}", error.name(), error.message())),
            None => StorageError::Failed("the browser aborted the write".into()),
        }),
    }
}

/// The open database.
#[derive(Clone)]
pub struct Db {
    database: std::rc::Rc<Database>,
    /// Why the upgrade to [`DB_VERSION`] failed, when this is the previous version.
    pub upgrade_failed: Option<String>,
}

impl Db {
    /// Opens (and, on first use, creates or upgrades) the database. When an upgrade of an
    /// existing database fails, opens it as it is, with [`Db::upgrade_failed`] set.
    pub async fn open() -> Result<Self, StorageError> {
        if replaced() {
            return Err(StorageError::Replaced);
        }
        let factory = Factory::new().map_err(|e| StorageError::Unavailable(e.to_string()))?;
        let mut request = factory
            .open(DB_NAME, Some(DB_VERSION))
            .map_err(|e| StorageError::Unavailable(e.to_string()))?;
        let from = std::rc::Rc::new(std::cell::Cell::new(None::<u32>));
        let seen = from.clone();
        // Why the browser aborted the upgrade (`QuotaExceededError`, …), if it did.
        let aborted = std::rc::Rc::new(std::cell::RefCell::new(None::<String>));
        let abort_reason = aborted.clone();
        request.on_upgrade_needed(move |event| {
            let old = event.old_version().unwrap_or(0);
            seen.set(Some(old));
            let Ok(database) = event.database() else {
                return;
            };
            let raw: web_sys::IdbVersionChangeEvent = event.into();
            let transaction = raw
                .target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::IdbOpenDbRequest>(t).ok())
                .and_then(|r| r.transaction());
            let Some(transaction) = transaction else {
                return;
            };
            let watched = transaction.clone();
            let on_abort = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
                let reason = watched
                    .error()
                    .map(|e| format!("{}: {}", e.name(), e.message()))
                    .unwrap_or_else(|| "the browser aborted it".into());
                *abort_reason.borrow_mut() = Some(reason);
            });
            transaction.set_onabort(Some(wasm_bindgen::JsCast::unchecked_ref(on_abort.as_ref())));
            // An upgrade runs once per page at most.
            on_abort.forget();
            for version in old + 1..=DB_VERSION {
                if let Err(error) = migrate(&database, &transaction, version) {
                    // Aborting the upgrade leaves the old version as it was.
                    let _ = transaction.abort();
                    leptos::logging::warn!("migration to v{version} failed: {error}");
                    return;
                }
            }
        });
        match request.await {
            Ok(database) => {
                let database = let_go_on_upgrade(database);
                Ok(Self {
                    database: std::rc::Rc::new(database),
                    upgrade_failed: None,
                })
            }
            // An existing database whose upgrade failed: keep using it as it is.
            Err(error) if from.get().is_some_and(|v| v >= 2) => {
                let database = factory
                    .open(DB_NAME, None)
                    .map_err(|e| StorageError::Unavailable(e.to_string()))?
                    .await
                    .map_err(|e| StorageError::Unavailable(e.to_string()))?;
                let database = let_go_on_upgrade(database);
                let reason = aborted.borrow_mut().take();
                Ok(Self {
                    database: std::rc::Rc::new(database),
                    upgrade_failed: Some(reason.unwrap_or_else(|| error.to_string())),
                })
            }
            Err(error) => Err(StorageError::Unavailable(error.to_string())),
        }
    }

    /// A raw value.
    pub async fn get_raw(&self, store: &str, key: &str) -> Result<Option<JsValue>, StorageError> {
        let transaction = self
            .database
            .transaction(&[store], TransactionMode::ReadOnly)?;
        let value = transaction
            .object_store(store)?
            .get(JsValue::from_str(key))?
            .await?;
        transaction.await?;
        Ok(value)
    }

    /// Writes a raw value; the write is durable when this returns.
    pub async fn put_raw(
        &self,
        store: &str,
        key: &str,
        value: &JsValue,
    ) -> Result<(), StorageError> {
        let transaction = self
            .database
            .transaction(&[store], TransactionMode::ReadWrite)?;
        transaction
            .object_store(store)?
            .put(value, Some(&JsValue::from_str(key)))?
            .await?;
        commit(transaction).await?;
        Ok(())
    }

    /// Writes `value` under `key` unless something is there already, in one transaction,
    /// and returns what is stored afterwards (ours, or the one that was first). Two tabs,
    /// or two parts of one page, creating the same value at once agree on one.
    pub async fn put_raw_if_absent(
        &self,
        store: &str,
        key: &str,
        value: &JsValue,
    ) -> Result<JsValue, StorageError> {
        let transaction = self
            .database
            .transaction(&[store], TransactionMode::ReadWrite)?;
        let records = transaction.object_store(store)?;
        let existing = records
            .get(JsValue::from_str(key))?
            .await?
            .filter(|v| !v.is_undefined());
        let stored = match existing {
            Some(existing) => existing,
            None => {
                records.put(value, Some(&JsValue::from_str(key)))?.await?;
                value.clone()
            }
        };
        commit(transaction).await?;
        Ok(stored)
    }

    /// Deletes a value.
    pub async fn delete(&self, store: &str, key: &str) -> Result<(), StorageError> {
        let transaction = self
            .database
            .transaction(&[store], TransactionMode::ReadWrite)?;
        transaction
            .object_store(store)?
            .delete(JsValue::from_str(key))?
            .await?;
        commit(transaction).await?;
        Ok(())
    }

    /// How many entries `store` has.
    pub async fn count(&self, store: &str) -> Result<u32, StorageError> {
        let transaction = self
            .database
            .transaction(&[store], TransactionMode::ReadOnly)?;
        let count = transaction.object_store(store)?.count(None)?.await?;
        transaction.await?;
        Ok(count)
    }

    /// Applies `batch` in one transaction; when this returns `Ok`, all of it is durable,
    /// and when it returns an error, none of it was applied.
    pub async fn apply(&self, batch: &Batch) -> Result<(), StorageError> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut stores = batch.stores();
        let journaled = journal::covers(&stores) && self.has_journal();
        if journaled {
            stores.push(SEARCH_JOURNAL);
        }
        let transaction = self
            .database
            .transaction(&stores, TransactionMode::ReadWrite)?;
        let raw: web_sys::IdbTransaction = transaction.into();
        let watch = raw.clone();
        let transaction = Transaction::from(raw);
        // A full disk aborts the transaction; a request after that fails with an abort,
        // not the quota error, so the transaction's own error says what happened.
        let written: Result<(), StorageError> = async {
            // The conversations this batch changes, for the search journal.
            let mut changed = journal::Changed::default();
            for write in &batch.writes {
                match write {
                    Write::Put { store, json, key } => {
                        let record = to_object(json)?;
                        changed.note(store, key, &record);
                        transaction.object_store(store)?.put(&record, None)?.await?;
                    }
                    Write::Delete { store, key } => {
                        let records = transaction.object_store(store)?;
                        if journaled {
                            let current = records.get(JsValue::from_str(key))?.await?;
                            changed.note(store, key, &current.unwrap_or(JsValue::UNDEFINED));
                        }
                        records.delete(JsValue::from_str(key))?.await?;
                    }
                    Write::Merge { store, key, patch } => {
                        let records = transaction.object_store(store)?;
                        let current = records.get(JsValue::from_str(key))?.await?;
                        let Some(current) = current.filter(|v| v.is_object()) else {
                            continue;
                        };
                        changed.note(store, key, &current);
                        // The synchronous part of a merge, measured for the benchmarks.
                        crate::browser::mark(MERGE_START);
                        merge_into(&current, patch)?;
                        crate::browser::measure(MERGE_MEASURE, MERGE_START);
                        records.put(&current, None)?.await?;
                    }
                }
            }
            if journaled {
                journal::record(&transaction.object_store(SEARCH_JOURNAL)?, changed).await?;
            }
            Ok(())
        }
        .await;
        if let Err(error) = written {
            return Err(match watch.error() {
                Some(cause) if cause.name() == "QuotaExceededError" => StorageError::QuotaExceeded,
                _ => error,
            });
        }
        commit(transaction).await?;
        Ok(())
    }

    /// Empties `stores` in one transaction: all of them or none. Emptying a chat store
    /// tells the search journal that everything changed.
    pub async fn clear(&self, stores: &[&str]) -> Result<(), StorageError> {
        let journaled =
            journal::covers(stores) && !stores.contains(&SEARCH_JOURNAL) && self.has_journal();
        let mut all: Vec<&str> = stores.to_vec();
        if journaled {
            all.push(SEARCH_JOURNAL);
        }
        let transaction = self
            .database
            .transaction(&all, TransactionMode::ReadWrite)?;
        for store in stores {
            transaction.object_store(store)?.clear()?.await?;
        }
        if journaled {
            journal::record_everything(&transaction.object_store(SEARCH_JOURNAL)?).await?;
        }
        commit(transaction).await?;
        Ok(())
    }

    /// One record by key.
    pub async fn record<T: DeserializeOwned>(
        &self,
        store: &str,
        key: &str,
    ) -> Result<Option<T>, StorageError> {
        match self.get_raw(store, key).await? {
            Some(value) if !value.is_undefined() => from_object(&value).map(Some),
            _ => Ok(None),
        }
    }

    /// Every record of `store`; unreadable ones are skipped, never fatal.
    pub async fn all_records<T: DeserializeOwned>(
        &self,
        store: &str,
    ) -> Result<Vec<T>, StorageError> {
        let values = self.all_raw(store).await?;
        Ok(values.iter().filter_map(|v| from_object(v).ok()).collect())
    }

    /// Every record of `store` as stored, unconverted (for a worker to read).
    pub async fn all_raw(&self, store: &str) -> Result<Vec<JsValue>, StorageError> {
        let transaction = self
            .database
            .transaction(&[store], TransactionMode::ReadOnly)?;
        let values = transaction
            .object_store(store)?
            .get_all(None, None)?
            .await?;
        transaction.await?;
        Ok(values)
    }

    /// The records of `store` whose `index` equals `key`, as stored, unconverted.
    pub async fn raw_by(
        &self,
        store: &str,
        index: &str,
        key: &str,
    ) -> Result<Vec<JsValue>, StorageError> {
        let transaction = self
            .database
            .transaction(&[store], TransactionMode::ReadOnly)?;
        let values = transaction
            .object_store(store)?
            .index(index)?
            .get_all(Some(idb::Query::Key(JsValue::from_str(key))), None)?
            .await?;
        transaction.await?;
        Ok(values)
    }

    /// The records of `store` whose `index` equals `key`.
    pub async fn records_by<T: DeserializeOwned>(
        &self,
        store: &str,
        index: &str,
        key: &str,
    ) -> Result<Vec<T>, StorageError> {
        let values = self.raw_by(store, index, key).await?;
        Ok(values.iter().filter_map(|v| from_object(v).ok()).collect())
    }

    /// A JSON document (stored as a string, so any structured-clone quirk is avoided).
    pub async fn get_json<T: DeserializeOwned>(
        &self,
        store: &str,
        key: &str,
    ) -> Result<Option<T>, StorageError> {
        match self.get_raw(store, key).await? {
            None => Ok(None),
            Some(value) => {
                let text = value
                    .as_string()
                    .ok_or_else(|| StorageError::Corrupt(key.to_string()))?;
                serde_json::from_str(&text)
                    .map(Some)
                    .map_err(|e| StorageError::Corrupt(format!("{key}: {e}")))
            }
        }
    }

    /// Writes a JSON document.
    pub async fn put_json<T: Serialize>(
        &self,
        store: &str,
        key: &str,
        value: &T,
    ) -> Result<(), StorageError> {
        let text = serde_json::to_string(value).map_err(|e| StorageError::Failed(e.to_string()))?;
        self.put_raw(store, key, &JsValue::from_str(&text)).await
    }
}
