//! Resumable relayed replies: the service behind `POST /api/chat/relay` with a
//! `hearth-relay-id`, `GET /api/chat/relay/{id}` (resume) and `DELETE …` (stop).
//!
//! A named relay is run by a task of its own, not by the connection that asked for it:
//! each batch of whole events is numbered, appended to the [`buffer`] and sent to the
//! connection, marked as `core::api::relay_resume` describes. When that connection drops
//! (a proxy cut it, the network went away), the reply goes on; a resume on any instance
//! answers the batches after the browser's `Last-Event-ID`, then follows the rest. An
//! instance that dies stops renewing its lease, and a resume then answers what it
//! relayed and says the rest is lost. Nobody reading for `HEARTH_RELAY_RESUME_SECS`, or
//! a stop from the browser, ends the provider call.
//!
//! A relay without an id is the plain stream it always was: a hang-up ends it.
//!
//! - [`buffer`]: where batches wait (this process, or Redis);
//! - `owner`: the tasks that run a named relay, and its connection's stream;
//! - `resume`: a resume's stream.

pub mod buffer;
mod owner;
mod resume;

use std::time::Duration;

use bytes::Bytes;
use futures_util::Stream;
use hearth_core::api::relay_resume::valid_relay_id;
use hearth_core::api::{ApiError, ErrorCode};
use tokio::sync::mpsc;

use self::buffer::{BufferError, RelayBuffer};
use crate::kv::KvStore;

/// How often a resume polls the buffer for new batches.
const POLL: Duration = Duration::from_millis(100);
/// How often the owner renews its lease and checks for a stop, and a resume its watch.
const TICK: Duration = Duration::from_secs(1);
/// How long a resume rides out a failing store before it hangs up (the browser then
/// resumes again).
const STORE_PATIENCE: Duration = Duration::from_secs(15);

/// A relayed stream's bytes.
pub type Bytestream = std::pin::Pin<Box<dyn Stream<Item = Result<Bytes, std::io::Error>> + Send>>;

/// The relay service. Cheap to clone.
#[derive(Clone)]
pub struct Relays {
    buffer: RelayBuffer,
    resume_window: Duration,
}

/// A relay id taken for one reply, not yet running.
pub struct Claim {
    relays: Relays,
    base: String,
    token: String,
}

fn unavailable(error: BufferError) -> ApiError {
    tracing::warn!(%error, "relay buffer");
    ApiError::new(
        ErrorCode::ServiceUnavailable,
        "The edge's shared store is not answering; try again shortly",
    )
}

fn base(scope: &str, id: &str) -> Result<String, ApiError> {
    if !valid_relay_id(id) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            "A relay id is 16 to 64 letters, digits or dashes",
        ));
    }
    Ok(format!("relay:{scope}:{id}"))
}

fn not_kept() -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        "No relayed reply is kept under this id (it ended long ago, or never started)",
    )
}

/// The base of a relay named in a path: an id no relay can have is simply not found.
fn known_base(scope: &str, id: &str) -> Result<String, ApiError> {
    base(scope, id).map_err(|_| not_kept())
}

fn token() -> String {
    let mut bytes = [0u8; 16];
    let _ = getrandom::fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Relays {
    /// The service keeping batches beside `kv`; a dropped reply runs on for
    /// `resume_window` with nobody reading.
    pub fn new(kv: &KvStore, resume_window: Duration) -> Self {
        Self {
            buffer: RelayBuffer::for_kv(kv),
            resume_window,
        }
    }

    /// Takes relay id `id` for `scope`'s next reply; refused when the id is in use.
    pub async fn claim(&self, scope: &str, id: &str) -> Result<Claim, ApiError> {
        let base = base(scope, id)?;
        let token = token();
        if !self
            .buffer
            .claim(&base, &token)
            .await
            .map_err(unavailable)?
        {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                "This relay id is already in use; resume it, or name a new one",
            ));
        }
        Ok(Claim {
            relays: self.clone(),
            base,
            token,
        })
    }

    /// The batches of `scope`'s relay `id` after batch `after`, then the rest as it
    /// comes; a typed 404 when no such relay is known.
    pub async fn resume(&self, scope: &str, id: &str, after: u64) -> Result<Bytestream, ApiError> {
        let base = known_base(scope, id)?;
        let first = self
            .buffer
            .read(&base, after)
            .await
            .map_err(unavailable)?
            .ok_or_else(not_kept)?;
        let _ = self.buffer.watch(&base).await;
        Ok(Box::pin(resume::follow(
            self.buffer.clone(),
            base,
            after,
            first,
        )))
    }

    /// Stops `scope`'s relay `id` (one that ended stays as it is); false when no such
    /// relay is known.
    pub async fn cancel(&self, scope: &str, id: &str) -> Result<bool, ApiError> {
        let base = known_base(scope, id)?;
        self.buffer.cancel(&base).await.map_err(unavailable)
    }
}

impl Claim {
    /// The provider refused: the id is free again.
    pub async fn abandon(self) {
        let _ = self.relays.buffer.abandon(&self.base, &self.token).await;
    }

    /// Runs the reply `upstream` under this id; the stream answered to the connection
    /// that asked for it.
    pub fn run<S>(self, upstream: S) -> Bytestream
    where
        S: Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static,
    {
        // Unbounded, yet bounded by the reply's own cap (8 MiB): the owner never waits on
        // the connection, and a fast provider's bursts never overflow it.
        let (live, receiver) = mpsc::unbounded_channel::<Bytes>();
        tokio::spawn(owner::own(self, Box::pin(upstream), live));
        Box::pin(owner::with_heartbeats(receiver))
    }
}
