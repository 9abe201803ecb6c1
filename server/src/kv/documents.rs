//! [`DocumentStore`]: text documents with an expiry plus leases, either in this process
//! (local mode with the memory store) or in the deployment's Redis through [`KvStore`]
//! (hosted mode, or whenever Redis is configured), so any instance can read, answer or
//! take over what another started: document-parse jobs, and edge operations' outcomes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::kv::{KvError, KvStore};

/// The most bytes one process-local store holds (a parse job keeps its file base64 until
/// parsed).
pub const LOCAL_MAX_BYTES: usize = 512 * 1024 * 1024;

/// Text documents with an expiry, and leases.
#[derive(Clone)]
pub enum DocumentStore {
    /// In this process.
    Local(Arc<Mutex<HashMap<String, (String, Instant)>>>),
    /// In the deployment's Redis.
    Shared(KvStore),
}

/// Why the store refused.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The shared store failed or did not answer.
    #[error("the document store failed: {0}")]
    Kv(#[from] KvError),
    /// The process-local store is full.
    #[error("the document store is full")]
    Full,
}

impl DocumentStore {
    /// The store for `kv`: the shared one when `kv` is shared, else this process.
    pub fn for_kv(kv: &KvStore) -> Self {
        match kv {
            KvStore::Memory(_) => Self::Local(Arc::default()),
            shared => Self::Shared(shared.clone()),
        }
    }

    /// Whether jobs are shared between instances.
    pub fn is_shared(&self) -> bool {
        matches!(self, Self::Shared(_))
    }

    /// The document at `key`, if it has not expired.
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        match self {
            Self::Local(map) => Ok(with(map, |entries, now| {
                entries
                    .get(key)
                    .filter(|(_, expires)| *expires > now)
                    .map(|(value, _)| value.clone())
            })),
            Self::Shared(kv) => Ok(kv.get_text(key).await?),
        }
    }

    /// Stores `value` at `key` for `ttl`.
    pub async fn put(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StoreError> {
        match self {
            Self::Local(map) => with(map, |entries, now| {
                entries.retain(|_, (_, expires)| *expires > now);
                let held: usize = entries
                    .iter()
                    .filter(|(k, _)| k.as_str() != key)
                    .map(|(k, (v, _))| k.len() + v.len())
                    .sum();
                if held + key.len() + value.len() > LOCAL_MAX_BYTES {
                    return Err(StoreError::Full);
                }
                entries.insert(key.to_string(), (value.to_string(), now + ttl));
                Ok(())
            }),
            Self::Shared(kv) => Ok(kv.put_text(key, value, ttl).await?),
        }
    }

    /// Removes `key`; whether it was there.
    pub async fn delete(&self, key: &str) -> Result<(), StoreError> {
        match self {
            Self::Local(map) => {
                with(map, |entries, _| entries.remove(key));
                Ok(())
            }
            Self::Shared(kv) => Ok(kv.delete(key).await?),
        }
    }

    /// Takes the lease at `key` for `owner` unless someone holds it.
    pub async fn claim(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StoreError> {
        match self {
            Self::Local(map) => Ok(with(map, |entries, now| {
                if entries.get(key).is_some_and(|(_, expires)| *expires > now) {
                    return false;
                }
                entries.insert(key.to_string(), (owner.to_string(), now + ttl));
                true
            })),
            Self::Shared(kv) => Ok(kv.claim(key, owner, ttl).await?),
        }
    }

    /// Whether someone holds the lease at `key`.
    pub async fn is_held(&self, key: &str) -> Result<bool, StoreError> {
        Ok(self.get(key).await?.is_some())
    }

    /// Extends `owner`'s lease; false when it is no longer theirs.
    pub async fn renew(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StoreError> {
        match self {
            Self::Local(map) => Ok(with(map, |entries, now| match entries.get_mut(key) {
                Some((holder, expires)) if holder == owner && *expires > now => {
                    *expires = now + ttl;
                    true
                }
                _ => false,
            })),
            Self::Shared(kv) => Ok(kv.renew(key, owner, ttl).await?),
        }
    }

    /// Gives up `owner`'s lease.
    pub async fn release(&self, key: &str, owner: &str) -> Result<(), StoreError> {
        match self {
            Self::Local(map) => {
                with(map, |entries, _| {
                    if entries.get(key).is_some_and(|(holder, _)| holder == owner) {
                        entries.remove(key);
                    }
                });
                Ok(())
            }
            Self::Shared(kv) => Ok(kv.release(key, owner).await?),
        }
    }
}

fn with<R>(
    map: &Mutex<HashMap<String, (String, Instant)>>,
    f: impl FnOnce(&mut HashMap<String, (String, Instant)>, Instant) -> R,
) -> R {
    let mut entries = map.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&mut entries, Instant::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn documents_expire() {
        let store = DocumentStore::for_kv(&KvStore::memory());
        assert!(!store.is_shared());
        store
            .put("a", "1", Duration::from_millis(20))
            .await
            .unwrap();
        assert_eq!(store.get("a").await.unwrap().as_deref(), Some("1"));
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert_eq!(store.get("a").await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_lease_belongs_to_one_owner_until_it_expires() {
        let store = DocumentStore::for_kv(&KvStore::memory());
        let ttl = Duration::from_millis(40);
        assert!(store.claim("l", "a", ttl).await.unwrap());
        assert!(!store.claim("l", "b", ttl).await.unwrap());
        assert!(!store.renew("l", "b", ttl).await.unwrap());
        assert!(store.renew("l", "a", ttl).await.unwrap());
        store.release("l", "b").await.unwrap();
        assert!(
            store.is_held("l").await.unwrap(),
            "b cannot release a's lease"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!store.renew("l", "a", ttl).await.unwrap(), "expired");
        assert!(store.claim("l", "b", ttl).await.unwrap());
        store.release("l", "b").await.unwrap();
        assert!(!store.is_held("l").await.unwrap());
    }

    #[tokio::test]
    async fn the_local_store_refuses_more_than_it_holds() {
        let store = DocumentStore::for_kv(&KvStore::memory());
        let big = "x".repeat(LOCAL_MAX_BYTES / 2);
        store.put("a", &big, Duration::from_secs(60)).await.unwrap();
        assert!(matches!(
            store.put("b", &big, Duration::from_secs(60)).await,
            Err(StoreError::Full)
        ));
        // Replacing a document counts its new size, not both.
        store.put("a", &big, Duration::from_secs(60)).await.unwrap();
    }
}
