//! `POST /api/chat/relay`: one streamed model round through the edge, for providers that
//! block browser calls (CORS) — later also for server-configured providers.
//!
//! The edge opens the key envelope for `provider:<protocol>` (the route decides the
//! context), builds the provider request with the same `core` builder the browser uses,
//! sends it through `safe_fetch` (URL policy on every hop and address), and streams the
//! provider's SSE back unchanged, in whole events, within a size cap (8 MiB) and a
//! deadline (`HEARTH_RELAY_TIMEOUT_SECS`, default 120 s). Hitting either ends the stream
//! with an error frame every protocol parser reads as a provider error. If the browser
//! goes away, the response body is dropped, and with it the upstream connection.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use hearth_core::api::{ApiError, ErrorCode, RelayRequest};
use hearth_core::provider::relay_error_frame;
use hearth_core::provider::request::{self, auth_headers};
use hearth_core::provider::sse::last_event_boundary;
use reqwest::Method;
use tokio::time::Instant;

use super::error::ApiErrorResponse;
use super::provider;
use super::sealed::SealedJson;
use crate::safe_fetch::{OutboundRequest, read_capped};
use crate::state::AppState;

/// The most bytes of one relayed reply (the same bound the browser applies).
pub use hearth_core::provider::MAX_STREAM_BYTES;
/// The most bytes of an upstream error body read.
const MAX_ERROR_BODY: usize = 64 * 1024;

fn fail(code: ErrorCode, message: impl Into<String>) -> Response {
    ApiErrorResponse(ApiError::new(code, message)).into_response()
}

pub(super) async fn relay(
    State(state): State<AppState>,
    SealedJson(relay): SealedJson<RelayRequest>,
) -> Response {
    let resolved = match provider::resolve(&state, &relay.provider) {
        Ok(resolved) => resolved,
        Err(refusal) => return *refusal,
    };
    let protocol = resolved.endpoint.protocol;
    let built = match request::build(&resolved.endpoint, &relay.request, &relay.capabilities) {
        Ok(built) => built,
        Err(error) => return fail(ErrorCode::BadRequest, error.to_string()),
    };
    let secret_headers = resolved
        .key
        .as_deref()
        .map(|key| to_headers(auth_headers(protocol, key)))
        .unwrap_or_default();
    let outbound = OutboundRequest {
        target: resolved.target,
        method: Method::POST,
        url: built.url,
        headers: to_headers(built.headers),
        secret_headers,
        body: Some(Bytes::from(
            serde_json::to_vec(&built.body).unwrap_or_default(),
        )),
    };
    let response = match state.fetch.open(outbound).await {
        Ok(response) => response,
        Err(error) => return ApiErrorResponse(error.to_api_error()).into_response(),
    };
    let status = response.status();
    if !status.is_success() {
        let body = read_capped(response, MAX_ERROR_BODY)
            .await
            .unwrap_or_default();
        return provider::upstream_error(status.as_u16(), &body, resolved.key.as_deref());
    }
    let deadline = Instant::now() + state.relay_timeout;
    let stream = whole_events(response.bytes_stream(), deadline, MAX_STREAM_BYTES);
    (
        [
            (header::CONTENT_TYPE, "text/event-stream; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}

/// Header pairs as typed headers (invalid ones dropped).
pub(super) fn to_headers(pairs: Vec<(String, String)>) -> Vec<(HeaderName, HeaderValue)> {
    pairs
        .into_iter()
        .filter_map(|(name, value)| {
            Some((
                HeaderName::try_from(name).ok()?,
                HeaderValue::try_from(value).ok()?,
            ))
        })
        .collect()
}

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
fn whole_events<S>(
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
