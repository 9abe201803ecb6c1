//! Records kept only in this tab's memory and never written to IndexedDB: what the
//! temporary chats are made of. A [`Batch`] applies here as it would to the database (a
//! put replaces the record, a merge sets fields and bumps `rev` on a record that exists,
//! a delete removes it), on JSON values.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Batch;
use super::batch::Write;

/// Records by store and key, in this tab's memory.
#[derive(Debug, Default)]
pub struct MemoryRecords {
    records: BTreeMap<(String, String), Value>,
}

impl MemoryRecords {
    /// Applies every write of `batch`.
    pub fn apply(&mut self, batch: Batch) {
        for write in batch.writes {
            match write {
                Write::Put { store, key, json } => {
                    if let Ok(record) = serde_json::from_str::<Value>(&json) {
                        self.records.insert((store.to_string(), key), record);
                    }
                }
                Write::Delete { store, key } => {
                    self.records.remove(&(store.to_string(), key));
                }
                Write::Merge { store, key, patch } => {
                    let Some(Value::Object(record)) =
                        self.records.get_mut(&(store.to_string(), key))
                    else {
                        continue;
                    };
                    let rev = record.get("rev").and_then(Value::as_u64).unwrap_or(0);
                    record.extend(patch);
                    record.insert("rev".into(), Value::from(rev + 1));
                }
            }
        }
    }

    /// Whether no record is here.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Whether record `key` of `store` is here.
    pub fn holds(&self, store: &str, key: &str) -> bool {
        self.records
            .contains_key(&(store.to_string(), key.to_string()))
    }

    /// Every record of `store`.
    pub fn all(&self, store: &str) -> Vec<Value> {
        self.records
            .iter()
            .filter(|((s, _), _)| s == store)
            .map(|(_, record)| record.clone())
            .collect()
    }

    /// The records of `store` whose `field` is the string `value` (what an index on that
    /// field would find).
    pub fn by(&self, store: &str, field: &str, value: &str) -> Vec<Value> {
        self.records
            .iter()
            .filter(|((s, _), record)| s == store && record[field].as_str() == Some(value))
            .map(|(_, record)| record.clone())
            .collect()
    }

    /// The keys of `store`'s records.
    pub fn keys(&self, store: &str) -> Vec<String> {
        self.records
            .keys()
            .filter(|(s, _)| s == store)
            .map(|(_, key)| key.clone())
            .collect()
    }

    /// Removes and returns the records of `store` that `pick` chooses.
    pub fn take(&mut self, store: &str, mut pick: impl FnMut(&str, &Value) -> bool) -> Vec<Value> {
        let chosen: Vec<(String, String)> = self
            .records
            .iter()
            .filter(|((s, key), record)| s == store && pick(key, record))
            .map(|(at, _)| at.clone())
            .collect();
        chosen
            .into_iter()
            .filter_map(|at| self.records.remove(&at))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn put(batch: &mut Batch, store: &'static str, record: Value) {
        batch.put_json(store, &record);
    }

    #[test]
    fn writes_apply_as_the_database_applies_them() {
        let mut memory = MemoryRecords::default();
        let mut batch = Batch::new();
        put(&mut batch, "c", json!({"id": "a", "title": "", "rev": 1}));
        put(
            &mut batch,
            "m",
            json!({"id": "1", "conversationId": "a", "content": "hi"}),
        );
        put(
            &mut batch,
            "m",
            json!({"id": "2", "conversationId": "b", "content": "no"}),
        );
        memory.apply(batch);
        assert!(memory.holds("c", "a") && !memory.holds("c", "1"));
        assert_eq!(memory.keys("m"), ["1", "2"]);
        assert_eq!(memory.by("m", "conversationId", "a").len(), 1);

        // A merge sets its fields and bumps `rev`; one for a record not here does nothing.
        let mut batch = Batch::new();
        batch.merge("c", "a", json!({"title": "Named"}));
        batch.merge("c", "gone", json!({"title": "x"}));
        batch.delete("m", "2");
        memory.apply(batch);
        assert_eq!(
            memory.all("c"),
            [json!({"id": "a", "title": "Named", "rev": 2})]
        );
        assert!(!memory.holds("c", "gone"));
        assert_eq!(memory.keys("m"), ["1"]);

        let taken = memory.take("m", |_, record| record["conversationId"] == "a");
        assert_eq!(taken.len(), 1);
        assert!(memory.all("m").is_empty());
    }

    #[test]
    fn a_batch_splits_in_order_by_store_key_and_record() {
        let mut batch = Batch::new();
        put(&mut batch, "c", json!({"id": "t", "temporary": true}));
        put(&mut batch, "c", json!({"id": "s"}));
        batch.merge("c", "t", json!({"title": "x"}));
        batch.delete("m", "9");
        let mut seen = Vec::new();
        let taken = batch.split_off(|store, key, json| {
            seen.push((store.to_string(), key.to_string(), json.is_some()));
            key == "t"
        });
        assert_eq!(
            seen,
            [
                ("c".into(), "t".into(), true),
                ("c".into(), "s".into(), true),
                ("c".into(), "t".into(), false),
                ("m".into(), "9".into(), false),
            ]
        );
        assert_eq!(taken.keys(), [("c", "t".into()), ("c", "t".into())]);
        assert_eq!(batch.keys(), [("c", "s".into()), ("m", "9".into())]);
    }
}
