//! `/api/chat/relay`: one streamed model round through the edge, for providers that
//! block browser calls (CORS) and for server-configured providers.
//!
//! - `POST`: the body is a [`SealedJson`] (a plaintext key is refused, bounds checked);
//!   the provider service ([`crate::providers`]) opens the round, and its reply is
//!   answered as an event stream in whole events (8 MiB, `HEARTH_RELAY_TIMEOUT_SECS`),
//!   gzipped with a flush per chunk for a client that takes gzip.
//!   With a `hearth-relay-id` header the round is resumable ([`crate::relays`]).
//! - `GET /{id}` with `Last-Event-ID`: resumes a round from the batch after it.
//! - `DELETE /{id}`: stops a round (the browser's Stop); a round that ended stays as it
//!   is (204 all the same), an unknown one is a typed 404.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use hearth_core::api::relay_resume::{LAST_EVENT_ID_HEADER, RELAY_ID_HEADER};
use hearth_core::api::{ApiError, ErrorCode, RelayRequest};

use super::error::ApiErrorResponse;
use super::headers::header_text;
use super::sealed::SealedJson;
use crate::client_scope::scope;
use crate::content_coding::{accepts, gzip_stream};
use crate::state::AppState;

/// The event stream answered: gzipped (each chunk flushed at once) for a client that
/// takes gzip, as it is otherwise. A provider's events repeat the same JSON envelope, so
/// a reply crosses the network in a fraction of its bytes (`docs/BENCHMARKS.md`, relay).
fn event_stream<S>(headers: &HeaderMap, stream: S) -> Response
where
    S: Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + 'static,
{
    let gzip = accepts(headers, "gzip");
    let body = if gzip {
        Body::from_stream(gzip_stream(stream))
    } else {
        Body::from_stream(stream)
    };
    let mut response = (
        [
            (header::CONTENT_TYPE, "text/event-stream; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (HeaderName::from_static("x-accel-buffering"), "no"),
            (header::VARY, "accept-encoding"),
        ],
        body,
    )
        .into_response();
    if gzip {
        response
            .headers_mut()
            .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    response
}

pub(super) async fn relay(
    State(state): State<AppState>,
    headers: HeaderMap,
    SealedJson(relay): SealedJson<RelayRequest>,
) -> Result<Response, ApiErrorResponse> {
    let Some(id) = header_text(&headers, RELAY_ID_HEADER)? else {
        return Ok(event_stream(&headers, state.providers.relay(relay).await?));
    };
    let scope = scope(state.config.deployment.mode, &headers, &state.signer)?;
    let claim = state.relays.claim(&scope, id).await?;
    match state.providers.relay(relay).await {
        Ok(stream) => Ok(event_stream(&headers, claim.run(stream))),
        Err(error) => {
            claim.abandon().await;
            Err(error.into())
        }
    }
}

pub(super) async fn resume(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiErrorResponse> {
    let after = match header_text(&headers, LAST_EVENT_ID_HEADER)? {
        None => 0,
        Some(text) => text.trim().parse::<u64>().map_err(|_| {
            ApiError::new(
                ErrorCode::BadRequest,
                "Last-Event-ID is the number of the last batch received",
            )
        })?,
    };
    let scope = scope(state.config.deployment.mode, &headers, &state.signer)?;
    Ok(event_stream(
        &headers,
        state.relays.resume(&scope, &id, after).await?,
    ))
}

pub(super) async fn cancel(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiErrorResponse> {
    let scope = scope(state.config.deployment.mode, &headers, &state.signer)?;
    if state.relays.cancel(&scope, &id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::new(
            ErrorCode::NotFound,
            "No relayed reply is known under this id",
        )
        .into())
    }
}
