//! `Batch`: record writes applied together in one transaction, all or none. A put writes
//! a whole new record; a merge sets the given fields on the stored object itself (and
//! bumps its `rev`), so a long reply's other fields are never converted and another
//! tab's changes to other fields survive.

use serde::Serialize;
use wasm_bindgen::JsValue;

use super::StorageError;

/// One write of a [`Batch`].
#[derive(Debug, Clone)]
pub(super) enum Write {
    Put {
        store: &'static str,
        key: String,
        json: String,
    },
    Delete {
        store: &'static str,
        key: String,
    },
    Merge {
        store: &'static str,
        key: String,
        patch: serde_json::Map<String, serde_json::Value>,
    },
}

/// Record writes applied together in one transaction: all or none.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    pub(super) writes: Vec<Write>,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes `record` (which carries its key, `id`) to `store`.
    pub fn put<T: Serialize>(&mut self, store: &'static str, record: &T) -> &mut Self {
        if let Ok(value) = serde_json::to_value(record) {
            let key = value["id"].as_str().unwrap_or_default().to_string();
            self.writes.push(Write::Put {
                store,
                key,
                json: value.to_string(),
            });
        }
        self
    }

    /// Writes `record`, a JSON object that carries its key (`id`), to `store`.
    pub fn put_json(&mut self, store: &'static str, record: &serde_json::Value) -> &mut Self {
        self.writes.push(Write::Put {
            store,
            key: record["id"].as_str().unwrap_or_default().to_string(),
            json: record.to_string(),
        });
        self
    }

    /// Whether a put to `store` writes a record whose top-level boolean `field` is true.
    /// (A record's JSON is serde's, without spaces; a string that quotes `"field":true`
    /// is written with its quotes escaped, so it is never taken for the field.)
    pub fn puts_marked(&self, store: &str, field: &str) -> bool {
        let mark = format!("\"{field}\":true");
        self.writes.iter().any(|write| {
            matches!(write, Write::Put { store: s, json, .. } if *s == store && json.contains(&mark))
        })
    }

    /// Every (store, key) the batch writes, in order.
    pub fn keys(&self) -> Vec<(&'static str, String)> {
        self.writes
            .iter()
            .map(|write| match write {
                Write::Put { store, key, .. }
                | Write::Delete { store, key }
                | Write::Merge { store, key, .. } => (*store, key.clone()),
            })
            .collect()
    }

    /// Changes only the fields in `patch` of the stored record `key` and bumps its `rev`,
    /// leaving every other field as the last writer (maybe another tab) left it. A record
    /// that no longer exists is not recreated.
    pub fn merge(&mut self, store: &'static str, key: &str, patch: serde_json::Value) -> &mut Self {
        if let serde_json::Value::Object(patch) = patch {
            self.writes.push(Write::Merge {
                store,
                key: key.to_string(),
                patch,
            });
        }
        self
    }

    /// Deletes `key` from `store`.
    pub fn delete(&mut self, store: &'static str, key: &str) -> &mut Self {
        self.writes.push(Write::Delete {
            store,
            key: key.to_string(),
        });
        self
    }

    /// Moves the writes `take` picks out of this batch into the returned one, in order.
    /// `take` sees each write's store, key and, for a put, the record as JSON.
    pub fn split_off(&mut self, mut take: impl FnMut(&str, &str, Option<&str>) -> bool) -> Self {
        let (taken, kept) = std::mem::take(&mut self.writes)
            .into_iter()
            .partition(|write| match write {
                Write::Put { store, key, json } => take(store, key, Some(json)),
                Write::Delete { store, key } | Write::Merge { store, key, .. } => {
                    take(store, key, None)
                }
            });
        self.writes = kept;
        Self { writes: taken }
    }

    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    pub(super) fn stores(&self) -> Vec<&'static str> {
        let mut stores: Vec<&'static str> = self
            .writes
            .iter()
            .map(|write| match write {
                Write::Put { store, .. }
                | Write::Delete { store, .. }
                | Write::Merge { store, .. } => *store,
            })
            .collect();
        stores.sort_unstable();
        stores.dedup();
        stores
    }
}

pub(super) fn to_object(json: &str) -> Result<JsValue, StorageError> {
    js_sys::JSON::parse(json).map_err(|_| StorageError::Failed("record is not JSON".into()))
}

/// Sets `patch`'s fields on the stored object `record` and bumps its `rev`, in place: the
/// rest of the record (a long reply's text, say) is never converted.
pub(super) fn merge_into(
    record: &JsValue,
    patch: &serde_json::Map<String, serde_json::Value>,
) -> Result<(), StorageError> {
    let failed = |_| StorageError::Failed("record field".into());
    for (name, field) in patch {
        js_sys::Reflect::set(record, &JsValue::from_str(name), &field_value(field)?)
            .map_err(failed)?;
    }
    let rev = js_sys::Reflect::get(record, &JsValue::from_str("rev"))
        .ok()
        .and_then(|r| r.as_f64())
        .unwrap_or(0.0);
    js_sys::Reflect::set(
        record,
        &JsValue::from_str("rev"),
        &JsValue::from_f64(rev + 1.0),
    )
    .map_err(failed)?;
    Ok(())
}

/// One field as the object store keeps it: strings, numbers and booleans directly, the
/// rest through JSON (small: rounds, usage, timings).
fn field_value(field: &serde_json::Value) -> Result<JsValue, StorageError> {
    Ok(match field {
        serde_json::Value::Null => JsValue::NULL,
        serde_json::Value::Bool(b) => JsValue::from_bool(*b),
        serde_json::Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(text) => JsValue::from_str(text),
        other => to_object(&other.to_string())?,
    })
}
