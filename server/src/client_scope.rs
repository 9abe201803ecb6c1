//! Whose edge state a request touches: everyone's one scope in local mode (`local`); the
//! client's own signed identity when hosted (`client:<id>`), so one user cannot see or
//! change another's plugins, relayed replies or operation outcomes.

use axum::http::HeaderMap;
use hearth_core::api::{ApiError, DeploymentMode, ErrorCode};

use crate::rate_limit;
use crate::signing::Signer;

/// The scope of a request with `headers` in a deployment of `mode`.
pub fn scope(
    mode: DeploymentMode,
    headers: &HeaderMap,
    signer: &Signer,
) -> Result<String, ApiError> {
    if mode != DeploymentMode::Hosted {
        return Ok("local".into());
    }
    rate_limit::client_id(headers, signer)
        .map(|id| format!("client:{id}"))
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::BadRequest,
                "This browser has no client identity yet; reload the page and try again",
            )
        })
}
