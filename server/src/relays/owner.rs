//! The owner of a named relay: the task that reads the provider's reply, numbers each
//! batch and sends it to the connection ([`own`]), the task that writes the batches to
//! the buffer in bursts ([`write_batches`]), and the connection's stream with its
//! heartbeats ([`with_heartbeats`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use hearth_core::api::relay_resume::{END_BLOCK, HEARTBEAT_BLOCK, HEARTBEAT_SECS, frame_batch};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::buffer::RelayBuffer;
use super::{Bytestream, Claim, TICK};

/// The owner task: reads the provider's reply to its end (or a stop, or nobody reading
/// for the resume window), numbering each batch, sending it to the connection and
/// handing it to the [`write_batches`] task.
pub(super) async fn own(
    claim: Claim,
    mut upstream: Bytestream,
    live: mpsc::UnboundedSender<Bytes>,
) {
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
pub(super) fn with_heartbeats(
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
