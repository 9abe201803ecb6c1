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

pub mod buffer;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use hearth_core::api::relay_resume::{
    END_BLOCK, HEARTBEAT_BLOCK, HEARTBEAT_SECS, LOST_BLOCK, frame_batch, valid_relay_id,
};
use hearth_core::api::{ApiError, ErrorCode};
use tokio::sync::mpsc;
use tokio::time::Instant;

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
        Ok(Box::pin(follow(self.buffer.clone(), base, after, first)))
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
        tokio::spawn(own(self, Box::pin(upstream), live));
        Box::pin(with_heartbeats(receiver))
    }
}

/// The owner task: reads the provider's reply to its end (or a stop, or nobody reading
/// for the resume window), numbering each batch, sending it to the connection and
/// handing it to the [`write_batches`] task.
async fn own(claim: Claim, mut upstream: Bytestream, live: mpsc::UnboundedSender<Bytes>) {
    let Claim {
        relays,
        base,
        token,
    } = claim;
    let buffer = &relays.buffer;
    let mut live = Some(live);
    let mut alone_since: Option<Instant> = None;
    // Once the buffer failed, it no longer matches the reply: nobody may resume from it.
    let broken = Arc::new(AtomicBool::new(false));
    let (to_store, batches) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(write_batches(
        buffer.clone(),
        base.clone(),
        token.clone(),
        batches,
        broken.clone(),
    ));
    let mut numbered = 0u64;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            next = upstream.next() => {
                let Some(Ok(batch)) = next else { break };
                numbered += 1;
                // A connection that stopped reading (a proxy cut it without a word) never
                // holds the reply up: its batches wait in memory, and the browser resumes.
                let framed = Bytes::from(frame_batch(&batch, numbered));
                if let Some(sender) = &live
                    && sender.send(framed).is_err()
                {
                    live = None;
                    alone_since = Some(Instant::now());
                }
                let _ = to_store.send(batch.to_vec());
            }
            _ = tick.tick() => {
                if live.as_ref().is_some_and(mpsc::UnboundedSender::is_closed) {
                    live = None;
                    alone_since = Some(Instant::now());
                }
                if broken.load(Ordering::SeqCst) {
                    // Nobody can resume it: it runs on only for its connection.
                    if live.is_none() {
                        break;
                    }
                    continue;
                }
                let _ = buffer.renew(&base, &token).await;
                if buffer.cancelled(&base).await.unwrap_or(false) {
                    tracing::info!("a relayed reply was stopped by the browser");
                    break;
                }
                if live.is_none() {
                    if buffer.watched(&base).await.unwrap_or(true) {
                        alone_since = Some(Instant::now());
                    } else if alone_since.is_some_and(|since| since.elapsed() >= relays.resume_window) {
                        tracing::info!("a relayed reply nobody reads any more was stopped");
                        break;
                    }
                }
            }
        }
    }
    drop(upstream);
    if let Some(sender) = live {
        let _ = sender.send(Bytes::from_static(END_BLOCK.as_bytes()));
    }
    drop(to_store);
    let _ = writer.await;
}

/// Writes the owner's batches to the buffer in order, every batch that waits in one
/// write (one round trip to Redis however fast the provider writes), then the end.
/// A failed write marks the relay `broken` and gives its lease up.
async fn write_batches(
    buffer: RelayBuffer,
    base: String,
    token: String,
    mut batches: mpsc::UnboundedReceiver<Vec<u8>>,
    broken: Arc<AtomicBool>,
) {
    while let Some(first) = batches.recv().await {
        let mut waiting = vec![first];
        while let Ok(more) = batches.try_recv() {
            waiting.push(more);
        }
        if let Err(error) = buffer.append(&base, &waiting).await {
            tracing::warn!(%error, "a relayed reply can no longer be resumed");
            broken.store(true, Ordering::SeqCst);
            let _ = buffer.abandon(&base, &token).await;
            return;
        }
    }
    if let Err(error) = buffer.finish(&base).await {
        tracing::warn!(%error, "a relayed reply's end was not recorded");
    }
}

/// The live connection's stream: the owner's batches, a heartbeat while none arrive.
fn with_heartbeats(
    receiver: mpsc::UnboundedReceiver<Bytes>,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send {
    futures_util::stream::unfold(receiver, |mut receiver| async move {
        let beat = Duration::from_secs(HEARTBEAT_SECS);
        match tokio::time::timeout(beat, receiver.recv()).await {
            Ok(Some(bytes)) => Some((Ok(bytes), receiver)),
            Ok(None) => None,
            Err(_) => Some((Ok(Bytes::from_static(HEARTBEAT_BLOCK.as_bytes())), receiver)),
        }
    })
}

/// A resume's state.
struct Follow {
    buffer: RelayBuffer,
    base: String,
    /// The last batch answered.
    after: u64,
    /// Blocks ready to answer.
    ready: std::collections::VecDeque<Bytes>,
    done: bool,
    last_answer: Instant,
    last_watch: Instant,
    failing_since: Option<Instant>,
}

impl Follow {
    fn take(&mut self, read: buffer::Read) {
        for batch in read.batches {
            self.after += 1;
            self.ready
                .push_back(Bytes::from(frame_batch(&batch, self.after)));
        }
        if read.ended {
            self.ready
                .push_back(Bytes::from_static(END_BLOCK.as_bytes()));
            self.done = true;
        } else if !read.running && self.ready.is_empty() {
            // Its instance stopped and everything it relayed has been answered.
            self.ready
                .push_back(Bytes::from_static(LOST_BLOCK.as_bytes()));
            self.done = true;
        }
    }
}

/// A resume: the batches after `after` (the first read already made), then the rest.
fn follow(
    buffer: RelayBuffer,
    base: String,
    after: u64,
    first: buffer::Read,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send {
    let now = Instant::now();
    let mut state = Follow {
        buffer,
        base,
        after,
        ready: Default::default(),
        done: false,
        last_answer: now,
        last_watch: now,
        failing_since: None,
    };
    state.take(first);
    futures_util::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(block) = state.ready.pop_front() {
                state.last_answer = Instant::now();
                return Some((Ok(block), state));
            }
            if state.done {
                return None;
            }
            if state.last_watch.elapsed() >= TICK {
                state.last_watch = Instant::now();
                let _ = state.buffer.watch(&state.base).await;
            }
            if state.last_answer.elapsed() >= Duration::from_secs(HEARTBEAT_SECS) {
                state
                    .ready
                    .push_back(Bytes::from_static(HEARTBEAT_BLOCK.as_bytes()));
                continue;
            }
            tokio::time::sleep(POLL).await;
            match state.buffer.read(&state.base, state.after).await {
                Ok(Some(read)) => {
                    state.failing_since = None;
                    state.take(read);
                }
                Ok(None) => {
                    state
                        .ready
                        .push_back(Bytes::from_static(LOST_BLOCK.as_bytes()));
                    state.done = true;
                }
                Err(error) => {
                    let since = *state.failing_since.get_or_insert_with(Instant::now);
                    if since.elapsed() >= STORE_PATIENCE {
                        tracing::warn!(%error, "a resume gave up on the relay buffer");
                        // Hung up without an end: the browser resumes again later.
                        return None;
                    }
                }
            }
        }
    })
}
