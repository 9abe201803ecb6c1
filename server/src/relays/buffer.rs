//! Where a relayed reply's batches wait for a resume: [`RelayBuffer`], in this process
//! (local mode with the memory store) or in the deployment's Redis through [`KvStore`]
//! (hosted mode, or whenever Redis is configured), so a resume on any instance reads
//! what another relayed.
//!
//! One relay is a few keys under one base, `relay:<scope>:<id>`:
//! - `:events`, a list of the batches in order (batch `n` at index `n - 1`), then an
//!   empty entry once the reply is complete; it lives [`RETAIN`] after its last write;
//! - `:owner`, the lease of the instance relaying it (renewed while it runs, [`DONE`]
//!   once it ended): a lease that lapsed means that instance stopped;
//! - `:cancel`, set when the browser stopped the reply;
//! - `:watch`, renewed while a resume reads, so the owner knows someone still does.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::kv::{KvError, KvStore};

/// How long a relay's batches are kept after its last write.
pub const RETAIN: Duration = Duration::from_secs(300);
/// How long an owner's lease lasts unless renewed.
pub const OWNER_LEASE: Duration = Duration::from_secs(5);
/// How long a resume's watch lasts unless renewed.
pub const WATCH: Duration = Duration::from_secs(10);
/// The owner lease's value once the relay ended (it then lives [`RETAIN`], so the id
/// cannot be taken again meanwhile).
pub const DONE: &str = "done";
/// The most bytes the process-local buffer holds, every relay together.
pub const LOCAL_MAX_BYTES: usize = 64 * 1024 * 1024;

/// What a resume read.
#[derive(Debug, Default, PartialEq)]
pub struct Read {
    /// The batches after the one asked for, in order.
    pub batches: Vec<Vec<u8>>,
    /// The reply is complete: nothing follows these batches.
    pub ended: bool,
    /// An instance still relays it.
    pub running: bool,
}

/// One relay kept in this process.
#[derive(Default)]
pub struct LocalRelay {
    batches: Vec<Vec<u8>>,
    bytes: usize,
    ended: bool,
    owner: Option<String>,
    cancelled: bool,
    watched_until: Option<Instant>,
    expires: Option<Instant>,
}

/// The relays' batches and leases.
#[derive(Clone)]
pub enum RelayBuffer {
    /// In this process.
    Local(Arc<Mutex<HashMap<String, LocalRelay>>>),
    /// In the deployment's Redis.
    Shared(KvStore),
}

/// Why the buffer refused.
#[derive(Debug, thiserror::Error)]
pub enum BufferError {
    /// The shared store failed or did not answer.
    #[error("the relay buffer failed: {0}")]
    Kv(#[from] KvError),
    /// The process-local buffer is full.
    #[error("the relay buffer is full")]
    Full,
}

fn events(base: &str) -> String {
    format!("{base}:events")
}
fn owner(base: &str) -> String {
    format!("{base}:owner")
}
fn cancel(base: &str) -> String {
    format!("{base}:cancel")
}
fn watch(base: &str) -> String {
    format!("{base}:watch")
}

impl RelayBuffer {
    /// The buffer for `kv`: the shared one when `kv` is shared, else this process.
    pub fn for_kv(kv: &KvStore) -> Self {
        match kv {
            KvStore::Memory(_) => Self::Local(Arc::default()),
            shared => Self::Shared(shared.clone()),
        }
    }

    fn local<T>(
        map: &Mutex<HashMap<String, LocalRelay>>,
        f: impl FnOnce(&mut HashMap<String, LocalRelay>, Instant) -> T,
    ) -> T {
        let mut map = map.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        map.retain(|_, relay| relay.expires.is_none_or(|at| at > now));
        f(&mut map, now)
    }

    /// Takes the relay `base` for `token`; false when the id is taken (running, or ended
    /// less than [`RETAIN`] ago).
    pub async fn claim(&self, base: &str, token: &str) -> Result<bool, BufferError> {
        match self {
            Self::Local(map) => Ok(Self::local(map, |map, _| {
                if map.contains_key(base) {
                    return false;
                }
                map.insert(
                    base.to_string(),
                    LocalRelay {
                        owner: Some(token.to_string()),
                        ..LocalRelay::default()
                    },
                );
                true
            })),
            Self::Shared(kv) => Ok(kv.claim(&owner(base), token, OWNER_LEASE).await?),
        }
    }

    /// Keeps `token`'s lease on `base`; false when it lapsed.
    pub async fn renew(&self, base: &str, token: &str) -> Result<bool, BufferError> {
        match self {
            Self::Local(map) => Ok(Self::local(map, |map, _| {
                map.get(base)
                    .is_some_and(|relay| relay.owner.as_deref() == Some(token))
            })),
            Self::Shared(kv) => Ok(kv.renew(&owner(base), token, OWNER_LEASE).await?),
        }
    }

    /// Gives up `token`'s claim on `base` without a reply (the provider refused): the id
    /// is free again.
    pub async fn abandon(&self, base: &str, token: &str) -> Result<(), BufferError> {
        match self {
            Self::Local(map) => Self::local(map, |map, _| {
                if map
                    .get(base)
                    .is_some_and(|relay| relay.owner.as_deref() == Some(token))
                {
                    map.remove(base);
                }
                Ok(())
            }),
            Self::Shared(kv) => Ok(kv.release(&owner(base), token).await?),
        }
    }

    /// Appends `batches` (in order) to `base`; the number of the last.
    pub async fn append(&self, base: &str, batches: &[Vec<u8>]) -> Result<u64, BufferError> {
        match self {
            Self::Local(map) => Self::local(map, |map, _| {
                let held: usize = map.values().map(|relay| relay.bytes).sum();
                let adding: usize = batches.iter().map(Vec::len).sum();
                if held + adding > LOCAL_MAX_BYTES {
                    return Err(BufferError::Full);
                }
                let relay = map.entry(base.to_string()).or_default();
                relay.batches.extend(batches.iter().cloned());
                relay.bytes += adding;
                Ok(relay.batches.len() as u64)
            }),
            Self::Shared(kv) => {
                let texts: Vec<String> = batches
                    .iter()
                    .map(|batch| String::from_utf8_lossy(batch).into_owned())
                    .collect();
                Ok(kv.push_texts(&events(base), &texts, RETAIN).await?)
            }
        }
    }

    /// Marks `base` complete: nothing more will be appended.
    pub async fn finish(&self, base: &str) -> Result<(), BufferError> {
        match self {
            Self::Local(map) => Self::local(map, |map, now| {
                let relay = map.entry(base.to_string()).or_default();
                relay.ended = true;
                relay.owner = Some(DONE.into());
                relay.expires = Some(now + RETAIN);
                Ok(())
            }),
            Self::Shared(kv) => {
                kv.push_texts(&events(base), &[String::new()], RETAIN)
                    .await?;
                Ok(kv.put_text(&owner(base), DONE, RETAIN).await?)
            }
        }
    }

    /// The batches of `base` after batch `after`; `None` when the relay is unknown (never
    /// started here, or expired).
    pub async fn read(&self, base: &str, after: u64) -> Result<Option<Read>, BufferError> {
        match self {
            Self::Local(map) => Ok(Self::local(map, |map, _| {
                let relay = map.get(base)?;
                let from = usize::try_from(after).unwrap_or(usize::MAX);
                Some(Read {
                    batches: relay.batches.iter().skip(from).cloned().collect(),
                    ended: relay.ended,
                    running: !relay.ended && relay.owner.is_some(),
                })
            })),
            Self::Shared(kv) => {
                let mut items = kv.range_text(&events(base), after).await?;
                let holder = kv.get_text(&owner(base)).await?;
                let ended = items.last().is_some_and(String::is_empty);
                if ended {
                    items.pop();
                }
                let running = !ended && holder.as_deref().is_some_and(|h| h != DONE);
                if items.is_empty() && holder.is_none() {
                    // Nothing after `after` and nobody holds it: known only if batch
                    // `after` itself is still there.
                    let known =
                        after > 0 && !kv.range_text(&events(base), after - 1).await?.is_empty();
                    if !known {
                        return Ok(None);
                    }
                }
                Ok(Some(Read {
                    batches: items.into_iter().map(String::into_bytes).collect(),
                    ended,
                    running,
                }))
            }
        }
    }

    /// Asks whoever relays `base` to stop (a relay that ended is left as it is); false
    /// when the relay is unknown.
    pub async fn cancel(&self, base: &str) -> Result<bool, BufferError> {
        match self {
            Self::Local(map) => Ok(Self::local(map, |map, _| match map.get_mut(base) {
                Some(relay) => {
                    relay.cancelled |= !relay.ended;
                    true
                }
                None => false,
            })),
            Self::Shared(kv) => match kv.get_text(&owner(base)).await?.as_deref() {
                None => Ok(false),
                Some(DONE) => Ok(true),
                Some(_) => {
                    kv.put_text(&cancel(base), "1", RETAIN).await?;
                    Ok(true)
                }
            },
        }
    }

    /// Whether the browser asked `base` to stop.
    pub async fn cancelled(&self, base: &str) -> Result<bool, BufferError> {
        match self {
            Self::Local(map) => Ok(Self::local(map, |map, _| {
                map.get(base).is_some_and(|relay| relay.cancelled)
            })),
            Self::Shared(kv) => Ok(kv.get_text(&cancel(base)).await?.is_some()),
        }
    }

    /// Says a resume reads `base`, for [`WATCH`].
    pub async fn watch(&self, base: &str) -> Result<(), BufferError> {
        match self {
            Self::Local(map) => Self::local(map, |map, now| {
                if let Some(relay) = map.get_mut(base) {
                    relay.watched_until = Some(now + WATCH);
                }
                Ok(())
            }),
            Self::Shared(kv) => Ok(kv.put_text(&watch(base), "1", WATCH).await?),
        }
    }

    /// Whether a resume read `base` within [`WATCH`].
    pub async fn watched(&self, base: &str) -> Result<bool, BufferError> {
        match self {
            Self::Local(map) => Ok(Self::local(map, |map, now| {
                map.get(base)
                    .and_then(|relay| relay.watched_until)
                    .is_some_and(|until| until > now)
            })),
            Self::Shared(kv) => Ok(kv.get_text(&watch(base)).await?.is_some()),
        }
    }
}
