//! A resume of a named relay: the batches after the browser's last, from the buffer,
//! then the rest as the owner writes it, with heartbeats; the end, or the lost mark when
//! the owner's instance stopped.

use std::time::Duration;

use bytes::Bytes;
use futures_util::Stream;
use hearth_core::api::relay_resume::{
    END_BLOCK, HEARTBEAT_BLOCK, HEARTBEAT_SECS, LOST_BLOCK, frame_batch,
};
use tokio::time::Instant;

use super::buffer::{self, RelayBuffer};
use super::{POLL, STORE_PATIENCE, TICK};

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
pub(super) fn follow(
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
