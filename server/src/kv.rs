//! The edge's small shared state — lockouts, rate-limit counters and (as text documents
//! in Redis) plugin registrations; parse jobs later — behind one store with two backends:
//! - `memory`: this process only, right for local mode;
//! - `redis` (`redis://` or `rediss://`, which Upstash also speaks): shared by every
//!   instance of a hosted deployment;
//! - `upstash` (Upstash's REST API, see [`crate::upstash`]): the same, over HTTPS.
//!
//! Hosted mode refuses to start without Redis, and a Redis that stops answering makes the
//! routes that need it answer 503 — never a silent fall back to per-instance state. Every
//! value is an integer with an expiry; Redis operations are atomic (MULTI/EXEC) and time
//! out after two seconds.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hearth_core::api::StoreState;
use serde_json::{Value, json};

use crate::upstash::integer;

/// The most keys the memory store holds.
pub const MEMORY_MAX_KEYS: usize = 100_000;
/// How long one Redis operation may take.
const REDIS_TIMEOUT: Duration = Duration::from_secs(2);
/// Prefix of every Redis key.
const PREFIX: &str = "hearth:";

/// The shared store did not answer.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the shared store is unavailable: {0}")]
pub struct KvError(pub String);

/// One value of the memory store.
#[derive(Debug, Clone)]
pub struct Entry {
    value: i64,
    expires: Instant,
}

/// The store.
#[derive(Clone)]
pub enum KvStore {
    /// In this process.
    Memory(Arc<Mutex<HashMap<String, Entry>>>),
    /// In Redis.
    Redis(redis::aio::ConnectionManager),
    /// In Redis behind Upstash's REST API.
    Upstash(Arc<crate::upstash::Upstash>),
}

impl std::fmt::Debug for KvStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Memory(_) => "KvStore::Memory",
            Self::Redis(_) => "KvStore::Redis",
            Self::Upstash(_) => "KvStore::Upstash",
        })
    }
}

impl KvStore {
    /// An empty memory store.
    pub fn memory() -> Self {
        Self::Memory(Arc::default())
    }

    /// Connects to Redis at `url` (`redis://…` or `rediss://…`), failing if it does not
    /// answer a PING.
    pub async fn redis(url: &str) -> Result<Self, KvError> {
        let client = redis::Client::open(url).map_err(|e| KvError(e.to_string()))?;
        let manager =
            tokio::time::timeout(REDIS_TIMEOUT, redis::aio::ConnectionManager::new(client))
                .await
                .map_err(|_| KvError("connecting timed out".into()))?
                .map_err(|e| KvError(e.to_string()))?;
        let store = Self::Redis(manager);
        store.ping().await?;
        Ok(store)
    }

    /// Upstash's REST API at `url` with `token`, failing if it does not answer a PING.
    pub async fn upstash(url: &str, token: &str) -> Result<Self, KvError> {
        let store = Self::Upstash(Arc::new(crate::upstash::Upstash::new(
            url,
            token,
            REDIS_TIMEOUT,
        )?));
        store.ping().await?;
        Ok(store)
    }

    /// Where the state lives.
    pub fn state(&self) -> StoreState {
        match self {
            Self::Memory(_) => StoreState::Memory,
            Self::Redis(_) | Self::Upstash(_) => StoreState::Shared,
        }
    }

    /// Checks the store answers.
    pub async fn ping(&self) -> Result<(), KvError> {
        match self {
            Self::Memory(_) => Ok(()),
            Self::Redis(manager) => {
                let mut manager = manager.clone();
                let pong: String = run(redis::cmd("PING").query_async(&mut manager)).await?;
                if pong == "PONG" {
                    Ok(())
                } else {
                    Err(KvError(format!("unexpected PING answer {pong}")))
                }
            }
            Self::Upstash(upstash) => match upstash.command(&[json!("PING")]).await? {
                Value::String(pong) if pong == "PONG" => Ok(()),
                other => Err(KvError(format!("unexpected PING answer {other}"))),
            },
        }
    }

    /// Adds one to `key` (from zero), setting its expiry when it is created. Returns the
    /// new value and the time the key has left.
    pub async fn incr(&self, key: &str, ttl: Duration) -> Result<(i64, Duration), KvError> {
        match self {
            Self::Memory(entries) => Ok(with(entries, |entries, now| {
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
            })),
            Self::Redis(manager) => {
                let mut manager = manager.clone();
                let key = format!("{PREFIX}{key}");
                let (value, _, left): (i64, i64, i64) = run(redis::pipe()
                    .atomic()
                    .cmd("INCR")
                    .arg(&key)
                    .cmd("PEXPIRE")
                    .arg(&key)
                    .arg(millis(ttl))
                    .arg("NX")
                    .cmd("PTTL")
                    .arg(&key)
                    .query_async(&mut manager))
                .await?;
                Ok((
                    value,
                    Duration::from_millis(u64::try_from(left).unwrap_or(0)),
                ))
            }
            Self::Upstash(upstash) => {
                let key = format!("{PREFIX}{key}");
                let results = upstash
                    .transaction(&[
                        vec![json!("INCR"), json!(key)],
                        vec![
                            json!("PEXPIRE"),
                            json!(key),
                            json!(millis(ttl)),
                            json!("NX"),
                        ],
                        vec![json!("PTTL"), json!(key)],
                    ])
                    .await?;
                let value =
                    integer(&results[0]).ok_or_else(|| KvError("INCR gave no number".into()))?;
                let left = integer(&results[2]).unwrap_or(0);
                Ok((
                    value,
                    Duration::from_millis(u64::try_from(left).unwrap_or(0)),
                ))
            }
        }
    }

    /// Sets `key` to `value` for `ttl`.
    pub async fn set(&self, key: &str, value: i64, ttl: Duration) -> Result<(), KvError> {
        match self {
            Self::Memory(entries) => {
                with(entries, |entries, now| {
                    make_room(entries, key, now);
                    entries.insert(
                        key.to_string(),
                        Entry {
                            value,
                            expires: now + ttl,
                        },
                    );
                });
                Ok(())
            }
            Self::Redis(manager) => {
                let mut manager = manager.clone();
                run(redis::cmd("SET")
                    .arg(format!("{PREFIX}{key}"))
                    .arg(value)
                    .arg("PX")
                    .arg(millis(ttl))
                    .query_async::<()>(&mut manager))
                .await
            }
            Self::Upstash(upstash) => upstash
                .command(&[
                    json!("SET"),
                    json!(format!("{PREFIX}{key}")),
                    json!(value),
                    json!("PX"),
                    json!(millis(ttl)),
                ])
                .await
                .map(drop),
        }
    }

    /// The value and remaining lifetime of `key`, if it exists.
    pub async fn get(&self, key: &str) -> Result<Option<(i64, Duration)>, KvError> {
        match self {
            Self::Memory(entries) => Ok(with(entries, |entries, now| {
                let entry = entries.get(key)?;
                (entry.expires > now).then(|| (entry.value, entry.expires - now))
            })),
            Self::Redis(manager) => {
                let mut manager = manager.clone();
                let key = format!("{PREFIX}{key}");
                let (value, left): (Option<i64>, i64) = run(redis::pipe()
                    .atomic()
                    .cmd("GET")
                    .arg(&key)
                    .cmd("PTTL")
                    .arg(&key)
                    .query_async(&mut manager))
                .await?;
                Ok(value.map(|v| (v, Duration::from_millis(u64::try_from(left).unwrap_or(0)))))
            }
            Self::Upstash(upstash) => {
                let key = format!("{PREFIX}{key}");
                let results = upstash
                    .transaction(&[
                        vec![json!("GET"), json!(key)],
                        vec![json!("PTTL"), json!(key)],
                    ])
                    .await?;
                let left = integer(&results[1]).unwrap_or(0);
                Ok(integer(&results[0])
                    .map(|v| (v, Duration::from_millis(u64::try_from(left).unwrap_or(0)))))
            }
        }
    }

    /// Removes `key`.
    pub async fn delete(&self, key: &str) -> Result<(), KvError> {
        match self {
            Self::Memory(entries) => {
                with(entries, |entries, _| entries.remove(key));
                Ok(())
            }
            Self::Redis(manager) => {
                let mut manager = manager.clone();
                run(redis::cmd("DEL")
                    .arg(format!("{PREFIX}{key}"))
                    .query_async::<()>(&mut manager))
                .await
            }
            Self::Upstash(upstash) => upstash
                .command(&[json!("DEL"), json!(format!("{PREFIX}{key}"))])
                .await
                .map(drop),
        }
    }
}

/// A text document in Redis (the plugin registry's per-client lists). The memory store
/// keeps counters only; a process-local registry keeps its documents itself.
impl KvStore {
    /// The document at `key`, if any; `None` from the memory store.
    pub async fn get_text(&self, key: &str) -> Result<Option<String>, KvError> {
        match self {
            Self::Memory(_) => Ok(None),
            Self::Redis(manager) => {
                let mut manager = manager.clone();
                run(redis::cmd("GET")
                    .arg(format!("{PREFIX}{key}"))
                    .query_async(&mut manager))
                .await
            }
            Self::Upstash(upstash) => {
                match upstash
                    .command(&[json!("GET"), json!(format!("{PREFIX}{key}"))])
                    .await?
                {
                    Value::String(text) => Ok(Some(text)),
                    Value::Null => Ok(None),
                    other => Err(KvError(format!("GET gave {other}"))),
                }
            }
        }
    }

    /// Stores `value` at `key` (no expiry); an empty value deletes the key.
    pub async fn set_text(&self, key: &str, value: &str) -> Result<(), KvError> {
        match self {
            Self::Memory(_) => Err(KvError("the memory store keeps counters only".into())),
            Self::Redis(manager) => {
                let mut manager = manager.clone();
                let key = format!("{PREFIX}{key}");
                if value.is_empty() {
                    run(redis::cmd("DEL").arg(key).query_async::<i64>(&mut manager)).await?;
                } else {
                    run(redis::cmd("SET")
                        .arg(key)
                        .arg(value)
                        .query_async::<String>(&mut manager))
                    .await?;
                }
                Ok(())
            }
            Self::Upstash(upstash) => {
                let key = json!(format!("{PREFIX}{key}"));
                let command = if value.is_empty() {
                    vec![json!("DEL"), key]
                } else {
                    vec![json!("SET"), key, json!(value)]
                };
                upstash.command(&command).await.map(drop)
            }
        }
    }
}

fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

async fn run<T>(operation: impl Future<Output = redis::RedisResult<T>>) -> Result<T, KvError> {
    tokio::time::timeout(REDIS_TIMEOUT, operation)
        .await
        .map_err(|_| KvError("timed out".into()))?
        .map_err(|e| KvError(e.to_string()))
}

fn with<R>(
    entries: &Mutex<HashMap<String, Entry>>,
    f: impl FnOnce(&mut HashMap<String, Entry>, Instant) -> R,
) -> R {
    let mut entries = entries
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&mut entries, Instant::now())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn counters_expire_and_restart() {
        let store = KvStore::memory();
        assert_eq!(
            store.incr("a", Duration::from_millis(30)).await.unwrap().0,
            1
        );
        assert_eq!(
            store.incr("a", Duration::from_millis(30)).await.unwrap().0,
            2
        );
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert!(store.get("a").await.unwrap().is_none());
        assert_eq!(store.incr("a", Duration::from_secs(10)).await.unwrap().0, 1);
        store.delete("a").await.unwrap();
        assert!(store.get("a").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn values_carry_their_remaining_lifetime() {
        let store = KvStore::memory();
        store
            .set("lock", 42, Duration::from_secs(60))
            .await
            .unwrap();
        let (value, left) = store.get("lock").await.unwrap().unwrap();
        assert_eq!(value, 42);
        assert!(left <= Duration::from_secs(60) && left > Duration::from_secs(59));
        assert_eq!(store.state(), StoreState::Memory);
    }

    #[tokio::test]
    async fn an_unreachable_redis_is_an_error_not_a_fallback() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let error = KvStore::redis(&format!("redis://127.0.0.1:{port}/"))
            .await
            .unwrap_err();
        assert!(!error.0.is_empty());
    }
}
