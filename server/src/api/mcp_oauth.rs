//! `POST /api/mcp/oauth/discover`, `/register`, `/token` and `/revoke`: the edge's part
//! of an OAuth sign-in to an MCP server (and of Sign out), each handed to the OAuth
//! service ([`crate::mcp_oauth`]). A token or revocation request is a [`SealedJson`]: a
//! token or client secret in plaintext is refused before it is parsed. `GET /oauth/client-metadata.json` (outside `/api`:
//! authorization servers fetch it) is Hearth's Client ID Metadata Document for the
//! origin that was asked.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::header::HOST;
use hearth_core::api::mcp_oauth::{
    OauthDiscoverRequest, OauthRegisterRequest, OauthRevokeRequest, OauthTokenRequest,
};
use hearth_core::plugin::oauth::SignInPlan;
use hearth_core::plugin::oauth::client::Client;
use hearth_core::plugin::oauth::flow::Tokens;
use serde_json::Value;

use super::error::ApiErrorResponse;
use super::json::ApiJson;
use super::sealed::SealedJson;
use crate::state::AppState;

/// `POST /api/mcp/oauth/discover`.
pub(super) async fn discover(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<OauthDiscoverRequest>,
) -> Result<Json<SignInPlan>, ApiErrorResponse> {
    Ok(Json(
        state
            .mcp_oauth
            .discover(&request.server_url, &request.headers)
            .await?,
    ))
}

/// `POST /api/mcp/oauth/register`.
pub(super) async fn register(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<OauthRegisterRequest>,
) -> Result<Json<Client>, ApiErrorResponse> {
    Ok(Json(state.mcp_oauth.register(&request).await?))
}

/// `POST /api/mcp/oauth/token`.
pub(super) async fn token(
    State(state): State<AppState>,
    SealedJson(request): SealedJson<OauthTokenRequest>,
) -> Result<Json<Tokens>, ApiErrorResponse> {
    let now = crate::clock::now_ms();
    Ok(Json(state.mcp_oauth.token(request, now).await?))
}

/// `POST /api/mcp/oauth/revoke`.
pub(super) async fn revoke(
    State(state): State<AppState>,
    SealedJson(request): SealedJson<OauthRevokeRequest>,
) -> Result<Json<Value>, ApiErrorResponse> {
    state.mcp_oauth.revoke(&request).await?;
    Ok(Json(serde_json::json!({ "revoked": true })))
}

/// `GET /oauth/client-metadata.json`: the document for the host asked (already checked
/// against the allowed hosts), on HTTPS unless that host is this machine's loopback.
pub async fn client_metadata(headers: HeaderMap) -> Json<Value> {
    let host = headers
        .get(HOST)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("localhost");
    Json(crate::mcp_oauth::metadata_document(
        &crate::mcp_oauth::origin_of_host(host),
    ))
}
