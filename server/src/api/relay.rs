//! `POST /api/chat/relay`: one streamed model round through the edge, for providers that
//! block browser calls (CORS) and for server-configured providers. The body is a
//! [`SealedJson`] (a plaintext key is refused, bounds checked); the provider service
//! ([`crate::providers`]) opens the round, and its reply is answered as an event stream
//! in whole events (8 MiB, `HEARTH_RELAY_TIMEOUT_SECS`).

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderName, header};
use axum::response::{IntoResponse, Response};
use hearth_core::api::RelayRequest;

use super::error::ApiErrorResponse;
use super::sealed::SealedJson;
use crate::state::AppState;

pub(super) async fn relay(
    State(state): State<AppState>,
    SealedJson(relay): SealedJson<RelayRequest>,
) -> Result<Response, ApiErrorResponse> {
    let stream = state.providers.relay(relay).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/event-stream; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(stream),
    )
        .into_response())
}
