//! The edge's small shared state — lockouts, rate-limit counters and (as text documents
//! and lists in Redis) plugin registrations, document-parse jobs and relayed replies'
//! buffers — behind one store, [`KvStore`], with
//! three backends, one file each:
//! - [`memory`]: this process only, right for local mode;
//! - [`redis`] (`redis://` or `rediss://`, which Upstash also speaks): shared by every
//!   instance of a hosted deployment;
//! - [`upstash`] (Upstash's REST API): the same, over HTTPS.
//!
//! [`documents`] puts text documents with an expiry and leases on top: in this process
//! for the memory store, in Redis otherwise.
//!
//! Hosted mode refuses to start without Redis, and a Redis that stops answering makes the
//! routes that need it answer 503 — never a silent fall back to per-instance state. Every
//! value is an integer with an expiry; Redis operations are atomic (MULTI/EXEC) and time
//! out after two seconds.

pub mod documents;
mod error;
pub mod memory;
pub mod redis;
pub mod upstash;

use std::sync::Arc;
use std::time::Duration;

use hearth_core::api::StoreState;

pub use self::error::KvError;
pub use self::memory::MEMORY_MAX_KEYS;
use self::memory::MemoryStore;
use self::redis::RedisStore;
use self::upstash::Upstash;

/// The store.
#[derive(Clone)]
pub enum KvStore {
    /// In this process.
    Memory(MemoryStore),
    /// In Redis.
    Redis(RedisStore),
    /// In Redis behind Upstash's REST API.
    Upstash(Arc<Upstash>),
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
        Self::Memory(MemoryStore::default())
    }

    /// Connects to Redis at `url` (`redis://…` or `rediss://…`), failing if it does not
    /// answer a PING.
    pub async fn redis(url: &str) -> Result<Self, KvError> {
        let store = Self::Redis(RedisStore::connect(url).await?);
        store.ping().await?;
        Ok(store)
    }

    /// Upstash's REST API at `url` with `token`, failing if it does not answer a PING.
    pub async fn upstash(url: &str, token: &str) -> Result<Self, KvError> {
        let store = Self::Upstash(Arc::new(Upstash::new(url, token, self::redis::TIMEOUT)?));
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
            Self::Redis(redis) => redis.ping().await,
            Self::Upstash(upstash) => upstash.ping().await,
        }
    }

    /// Adds one to `key` (from zero), setting its expiry when it is created. Returns the
    /// new value and the time the key has left.
    pub async fn incr(&self, key: &str, ttl: Duration) -> Result<(i64, Duration), KvError> {
        match self {
            Self::Memory(memory) => Ok(memory.incr(key, ttl)),
            Self::Redis(redis) => redis.incr(key, ttl).await,
            Self::Upstash(upstash) => upstash.incr(key, ttl).await,
        }
    }

    /// Sets `key` to `value` for `ttl`.
    pub async fn set(&self, key: &str, value: i64, ttl: Duration) -> Result<(), KvError> {
        match self {
            Self::Memory(memory) => {
                memory.set(key, value, ttl);
                Ok(())
            }
            Self::Redis(redis) => redis.set(key, value, ttl).await,
            Self::Upstash(upstash) => upstash.set(key, value, ttl).await,
        }
    }

    /// The value and remaining lifetime of `key`, if it exists.
    pub async fn get(&self, key: &str) -> Result<Option<(i64, Duration)>, KvError> {
        match self {
            Self::Memory(memory) => Ok(memory.get(key)),
            Self::Redis(redis) => redis.get(key).await,
            Self::Upstash(upstash) => upstash.get(key).await,
        }
    }

    /// Removes `key`.
    pub async fn delete(&self, key: &str) -> Result<(), KvError> {
        match self {
            Self::Memory(memory) => {
                memory.delete(key);
                Ok(())
            }
            Self::Redis(redis) => redis.delete(key).await,
            Self::Upstash(upstash) => upstash.delete(key).await,
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
            Self::Redis(redis) => redis.get_text(key).await,
            Self::Upstash(upstash) => upstash.get_text(key).await,
        }
    }

    /// Stores `value` at `key` (no expiry); an empty value deletes the key.
    pub async fn set_text(&self, key: &str, value: &str) -> Result<(), KvError> {
        match self {
            Self::Memory(_) => Err(memory_keeps_counters()),
            Self::Redis(redis) => redis.set_text(key, value).await,
            Self::Upstash(upstash) => upstash.set_text(key, value).await,
        }
    }
}

/// Documents with an expiry and leases in Redis (the document-parse jobs). The memory
/// store keeps counters only; a process-local job store keeps its own.
impl KvStore {
    /// Stores `value` at `key` for `ttl`.
    pub async fn put_text(&self, key: &str, value: &str, ttl: Duration) -> Result<(), KvError> {
        match self {
            Self::Memory(_) => Err(memory_keeps_counters()),
            Self::Redis(redis) => redis.put_text(key, value, ttl).await,
            Self::Upstash(upstash) => upstash.put_text(key, value, ttl).await,
        }
    }

    /// Takes the lease at `key` for `owner` for `ttl`, unless someone holds it; whether
    /// it was taken.
    pub async fn claim(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, KvError> {
        match self {
            Self::Memory(_) => Err(memory_keeps_counters()),
            Self::Redis(redis) => redis.claim(key, owner, ttl).await,
            Self::Upstash(upstash) => upstash.claim(key, owner, ttl).await,
        }
    }

    /// Extends `owner`'s lease at `key` to `ttl` from now; false when it is not theirs
    /// any more (it expired, or someone else took it).
    pub async fn renew(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, KvError> {
        match self {
            Self::Memory(_) => Err(memory_keeps_counters()),
            Self::Redis(redis) => redis.renew(key, owner, ttl).await,
            Self::Upstash(upstash) => upstash.renew(key, owner, ttl).await,
        }
    }

    /// Gives up `owner`'s lease at `key`; a lease someone else holds stays.
    pub async fn release(&self, key: &str, owner: &str) -> Result<(), KvError> {
        match self {
            Self::Memory(_) => Err(memory_keeps_counters()),
            Self::Redis(redis) => redis.release(key, owner).await,
            Self::Upstash(upstash) => upstash.release(key, owner).await,
        }
    }
}

/// Lists with an expiry in Redis (the relayed replies' buffers). The memory store keeps
/// counters only; a process-local relay buffer keeps its own.
impl KvStore {
    /// Appends `values` (at least one) to the list at `key`, which then lives `ttl`; the
    /// list's length.
    pub async fn push_texts(
        &self,
        key: &str,
        values: &[String],
        ttl: Duration,
    ) -> Result<u64, KvError> {
        match self {
            Self::Memory(_) => Err(memory_keeps_counters()),
            Self::Redis(redis) => redis.push_texts(key, values, ttl).await,
            Self::Upstash(upstash) => upstash.push_texts(key, values, ttl).await,
        }
    }

    /// The list at `key` from index `from` on; empty when there is none.
    pub async fn range_text(&self, key: &str, from: u64) -> Result<Vec<String>, KvError> {
        match self {
            Self::Memory(_) => Err(memory_keeps_counters()),
            Self::Redis(redis) => redis.range_text(key, from).await,
            Self::Upstash(upstash) => upstash.range_text(key, from).await,
        }
    }
}

fn memory_keeps_counters() -> KvError {
    KvError("the memory store keeps counters only".into())
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
