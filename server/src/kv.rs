//! The edge's small shared state (lockouts, and later rate-limit counters, plugin
//! registrations and parse jobs) behind one store. This build has the in-process memory
//! store, which is right for local mode; hosted mode refuses to start until the Redis
//! store lands (it must not silently fall back to per-instance state).
//!
//! Keys expire; the memory store drops expired keys lazily and caps its size, evicting
//! the entries closest to expiry first when full.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most keys the memory store holds.
pub const MEMORY_MAX_KEYS: usize = 100_000;

#[derive(Debug, Clone)]
struct Entry {
    value: i64,
    expires: Instant,
}

/// An in-process store with expiring integer values.
#[derive(Debug, Clone, Default)]
pub struct KvStore {
    entries: Arc<Mutex<HashMap<String, Entry>>>,
}

impl KvStore {
    /// An empty memory store.
    pub fn memory() -> Self {
        Self::default()
    }

    fn with<R>(&self, f: impl FnOnce(&mut HashMap<String, Entry>, Instant) -> R) -> R {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        f(&mut entries, now)
    }

    /// Adds one to `key` (starting from zero), setting its expiry when it is created.
    /// Returns the new value.
    pub fn incr(&self, key: &str, ttl: Duration) -> i64 {
        self.with(|entries, now| {
            if entries.len() >= MEMORY_MAX_KEYS && !entries.contains_key(key) {
                evict(entries, now);
            }
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
            entry.value
        })
    }

    /// Sets `key` to `value` for `ttl`.
    pub fn set(&self, key: &str, value: i64, ttl: Duration) {
        self.with(|entries, now| {
            if entries.len() >= MEMORY_MAX_KEYS && !entries.contains_key(key) {
                evict(entries, now);
            }
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
        self.with(|entries, _| {
            entries.remove(key);
        });
    }
}

fn evict(entries: &mut HashMap<String, Entry>, now: Instant) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_expire_and_restart() {
        let store = KvStore::memory();
        assert_eq!(store.incr("a", Duration::from_millis(30)), 1);
        assert_eq!(store.incr("a", Duration::from_millis(30)), 2);
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(store.get("a"), None);
        assert_eq!(store.incr("a", Duration::from_secs(10)), 1);
        store.delete("a");
        assert_eq!(store.get("a"), None);
    }

    #[test]
    fn values_carry_their_remaining_lifetime() {
        let store = KvStore::memory();
        store.set("lock", 42, Duration::from_secs(60));
        let (value, left) = store.get("lock").unwrap();
        assert_eq!(value, 42);
        assert!(left <= Duration::from_secs(60) && left > Duration::from_secs(59));
    }
}
