//! The memory backend: expiring counters in this process, right for local mode. Bounded
//! to [`MEMORY_MAX_KEYS`]; it keeps no text documents (a process-local registry keeps
//! its own).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most keys the memory store holds.
pub const MEMORY_MAX_KEYS: usize = 100_000;

/// One value of the memory store.
#[derive(Debug, Clone)]
pub struct Entry {
    value: i64,
    expires: Instant,
}

/// Counters in this process.
#[derive(Clone, Default)]
pub struct MemoryStore(Arc<Mutex<HashMap<String, Entry>>>);

impl MemoryStore {
    /// Adds one to `key` (from zero), setting its expiry when it is created.
    pub fn incr(&self, key: &str, ttl: Duration) -> (i64, Duration) {
        self.with(|entries, now| {
            make_room(entries, key, now);
            let entry = entries
                .entry(key.to_string())
                .and_modify(|entry| {
                    if entry.expires <= now {
                        *entry = Entry {
                            value: 0,
                            expires: now + ttl,
                        };
                    }
                })
                .or_insert(Entry {
                    value: 0,
                    expires: now + ttl,
                });
            entry.value += 1;
            (entry.value, entry.expires - now)
        })
    }

    /// Sets `key` to `value` for `ttl`.
    pub fn set(&self, key: &str, value: i64, ttl: Duration) {
        self.with(|entries, now| {
            make_room(entries, key, now);
            entries.insert(
                key.to_string(),
                Entry {
                    value,
                    expires: now + ttl,
                },
            );
        });
    }

    /// The value and remaining lifetime of `key`, if it exists.
    pub fn get(&self, key: &str) -> Option<(i64, Duration)> {
        self.with(|entries, now| {
            let entry = entries.get(key)?;
            (entry.expires > now).then(|| (entry.value, entry.expires - now))
        })
    }

    /// Removes `key`.
    pub fn delete(&self, key: &str) {
        self.with(|entries, _| entries.remove(key));
    }

    fn with<R>(&self, f: impl FnOnce(&mut HashMap<String, Entry>, Instant) -> R) -> R {
        let mut entries = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut entries, Instant::now())
    }
}

/// Keeps the memory store under its cap: expired entries go first, then the tenth of the
/// entries closest to expiry.
fn make_room(entries: &mut HashMap<String, Entry>, key: &str, now: Instant) {
    if entries.len() < MEMORY_MAX_KEYS || entries.contains_key(key) {
        return;
    }
    entries.retain(|_, entry| entry.expires > now);
    if entries.len() >= MEMORY_MAX_KEYS {
        let mut by_expiry: Vec<(String, Instant)> = entries
            .iter()
            .map(|(k, e)| (k.clone(), e.expires))
            .collect();
        by_expiry.sort_by_key(|(_, expires)| *expires);
        for (key, _) in by_expiry.into_iter().take(MEMORY_MAX_KEYS / 10) {
            entries.remove(&key);
        }
    }
}
