//! A provider's reply relayed in whole server-sent events: bytes are held until the last
//! complete event (`core::provider::sse::last_event_boundary`) and forwarded up to it,
//! within a size cap and a deadline. Hitting either, or an upstream failure, drops the
//! partial event and ends the stream with an error frame every protocol parser reads as
//! a provider error.

use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use hearth_core::provider::relay_error_frame;
use hearth_core::provider::sse::last_event_boundary;
use tokio::time::Instant;

struct Relay<S> {
    upstream: S,
    buffer: BytesMut,
    forwarded: usize,
    deadline: Instant,
    limit: usize,
    finished: bool,
}

/// Forwards `upstream` in whole SSE events; past `limit` bytes or `deadline`, or on an
/// upstream failure, drops the partial event and ends with an error frame.
pub fn whole_events<S>(
    upstream: S,
    deadline: Instant,
    limit: usize,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send
where
    S: Stream<Item = reqwest::Result<Bytes>> + Send + Unpin + 'static,
{
    let state = Relay {
        upstream,
        buffer: BytesMut::new(),
        forwarded: 0,
        deadline,
        limit,
        finished: false,
    };
    futures_util::stream::unfold(state, |mut state| async move {
        loop {
            if state.finished {
                return None;
            }
            let next = tokio::time::timeout_at(state.deadline, state.upstream.next()).await;
            let frame = |code: &str, message: &str| Bytes::from(relay_error_frame(code, message));
            match next {
                Err(_) => {
                    state.finished = true;
                    let message = "The provider did not finish within the relay's time limit";
                    return Some((Ok(frame("RESPONSE_TIMEOUT", message)), state));
                }
                Ok(Some(Err(_))) => {
                    state.finished = true;
                    let message = "The connection to the provider failed mid-reply";
                    return Some((Ok(frame("UPSTREAM_UNREACHABLE", message)), state));
                }
                Ok(None) => {
                    state.finished = true;
                    let rest = state.buffer.split().freeze();
                    if rest.is_empty() {
                        return None;
                    }
                    return Some((Ok(rest), state));
                }
                Ok(Some(Ok(chunk))) => {
                    if state.forwarded + state.buffer.len() + chunk.len() > state.limit {
                        state.finished = true;
                        let message = format!("The reply exceeded {} bytes", state.limit);
                        return Some((Ok(frame("RESPONSE_SIZE_LIMIT", &message)), state));
                    }
                    state.buffer.extend_from_slice(&chunk);
                    if let Some(end) = last_event_boundary(&state.buffer) {
                        let events = state.buffer.split_to(end).freeze();
                        state.forwarded += events.len();
                        return Some((Ok(events), state));
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn whole_events_only_and_an_error_frame_at_the_limit() {
        let chunks: Vec<reqwest::Result<Bytes>> = vec![
            Ok(Bytes::from_static(b"data: one\n\nda")),
            Ok(Bytes::from_static(b"ta: two\n\n")),
            Ok(Bytes::from(vec![b'x'; 100])),
        ];
        let deadline = Instant::now() + Duration::from_secs(5);
        let out: Vec<Bytes> = whole_events(futures_util::stream::iter(chunks), deadline, 60)
            .map(|r| r.unwrap())
            .collect()
            .await;
        assert_eq!(out[0].as_ref(), b"data: one\n\n");
        assert_eq!(out[1].as_ref(), b"data: two\n\n");
        assert!(String::from_utf8_lossy(&out[2]).starts_with("event: error\n"));
        assert_eq!(out.len(), 3);
    }
}
