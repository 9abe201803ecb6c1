//! The app's IndexedDB database (`hearth`), opened once per page. Version 1 has:
//! - `settings`: JSON documents by name (the provider list, …);
//! - `secrets`: sealed secrets by context (see [`crate::vault`]), never plaintext;
//! - `keys`: the vault's non-extractable `CryptoKey`.
//!
//! Later schema versions add conversations and messages with forward migrations (issue 3).
//! Every failure is a [`StorageError`] the user can be shown; a full disk is recognised.

use idb::{Database, DatabaseEvent, Factory, ObjectStoreParams, TransactionMode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

/// The database name.
pub const DB_NAME: &str = "hearth";
/// The schema version.
pub const DB_VERSION: u32 = 1;
/// Settings documents.
pub const SETTINGS: &str = "settings";
/// Sealed secrets.
pub const SECRETS: &str = "secrets";
/// The vault key.
pub const KEYS: &str = "keys";

/// A storage failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageError {
    /// IndexedDB is missing or refused (private mode, blocked storage).
    Unavailable(String),
    /// The browser's quota for this site is full.
    QuotaExceeded,
    /// A stored document could not be read back.
    Corrupt(String),
    /// Anything else the browser reported.
    Failed(String),
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unavailable(why) => write!(f, "browser storage is unavailable: {why}"),
            Self::QuotaExceeded => f.write_str("browser storage is full"),
            Self::Corrupt(what) => write!(f, "stored data could not be read: {what}"),
            Self::Failed(why) => write!(f, "browser storage failed: {why}"),
        }
    }
}

impl From<idb::Error> for StorageError {
    fn from(error: idb::Error) -> Self {
        let text = error.to_string();
        if text.contains("QuotaExceeded") {
            Self::QuotaExceeded
        } else {
            Self::Failed(text)
        }
    }
}

/// The open database.
#[derive(Clone)]
pub struct Db {
    database: std::rc::Rc<Database>,
}

impl Db {
    /// Opens (and, on first use, creates) the database.
    pub async fn open() -> Result<Self, StorageError> {
        let factory = Factory::new().map_err(|e| StorageError::Unavailable(e.to_string()))?;
        let mut request = factory
            .open(DB_NAME, Some(DB_VERSION))
            .map_err(|e| StorageError::Unavailable(e.to_string()))?;
        request.on_upgrade_needed(|event| {
            let Ok(database) = event.database() else {
                return;
            };
            let existing = database.store_names();
            for store in [SETTINGS, SECRETS, KEYS] {
                if !existing.iter().any(|name| name == store) {
                    let _ = database.create_object_store(store, ObjectStoreParams::new());
                }
            }
        });
        let database = request
            .await
            .map_err(|e| StorageError::Unavailable(e.to_string()))?;
        Ok(Self {
            database: std::rc::Rc::new(database),
        })
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
        transaction.commit()?.await?;
        Ok(())
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
        transaction.commit()?.await?;
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
