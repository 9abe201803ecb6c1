//! The `/api/*` routes: handlers only, each parsing its request, calling a service of the
//! state ([`crate::state`]) and answering. Every answer is JSON (the relay's event stream
//! aside); every failure is an [`ApiError`] body with its status, and an unknown path
//! under `/api/` is a JSON 404, never the app's HTML.
//!
//! [`ApiError`]: hearth_core::api::ApiError

mod access;
mod byok;
mod config;
mod doc_parse;
pub mod error;
mod headers;
mod health;
pub mod json;
mod mcp;
pub mod mcp_oauth;
mod models;
mod multipart;
mod operations;
mod plugins;
mod relay;
pub mod sealed;
mod voice;
mod web_search;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

pub use error::ApiErrorResponse;

use crate::state::AppState;
use hearth_core::api::{ApiError, ErrorCode};

/// The router mounted at `/api`.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/health", get(health::health))
        .route("/config", get(config::config))
        .route("/access/verify", post(access::verify))
        .route("/access/session", get(access::session))
        .route("/byok/public-key", get(byok::public_key))
        .route("/chat/relay", post(relay::relay))
        .route("/chat/relay/{id}", get(relay::resume).delete(relay::cancel))
        .route("/providers/models", post(models::list))
        .route("/search", post(web_search::search))
        .route("/voice/speech", post(voice::speech))
        // The handler bounds every field itself (a recording up to 25 MiB).
        .route(
            "/voice/transcriptions",
            post(voice::transcriptions).layer(DefaultBodyLimit::disable()),
        )
        .route("/plugins/install", post(plugins::install))
        .route("/plugins/list", get(plugins::list))
        .route("/plugins/refresh", post(plugins::refresh))
        .route("/plugins/execute", post(plugins::execute))
        .route("/plugins/uninstall", post(plugins::uninstall))
        .route("/operations/{id}", get(operations::look_up))
        .route("/mcp/resources", post(mcp::resources))
        .route("/mcp/prompts", post(mcp::prompts))
        .route("/mcp/servers", get(mcp::servers))
        .route("/mcp/oauth/discover", post(mcp_oauth::discover))
        .route("/mcp/oauth/register", post(mcp_oauth::register))
        .route("/mcp/oauth/token", post(mcp_oauth::token))
        .route("/mcp/oauth/revoke", post(mcp_oauth::revoke))
        // The handler bounds every field itself, by the configured file limit.
        .route(
            "/doc-parse",
            post(doc_parse::start).layer(DefaultBodyLimit::disable()),
        )
        .route(
            "/doc-parse/jobs/{id}",
            get(doc_parse::poll).delete(doc_parse::cancel),
        )
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
}

/// The JSON 404 for a path under `/api` that no route serves.
pub(crate) async fn unknown_route() -> ApiErrorResponse {
    ApiError::new(ErrorCode::NotFound, "No API route matches this path").into()
}

async fn method_not_allowed() -> ApiErrorResponse {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "This API route does not accept this method",
    )
    .into()
}
