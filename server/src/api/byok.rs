//! `GET /api/byok/public-key`: the key browsers wrap their per-request AES keys with.

use axum::Json;
use axum::extract::State;
use hearth_core::api::{ApiError, ErrorCode};
use hearth_core::byok::PublicKeyResponse;

use super::error::ApiErrorResponse;
use crate::state::AppState;

pub(super) async fn public_key(
    State(state): State<AppState>,
) -> Result<Json<PublicKeyResponse>, ApiErrorResponse> {
    match &state.byok {
        Some(keys) => Ok(Json(keys.public_key())),
        None => Err(ApiError::new(
            ErrorCode::ServiceUnavailable,
            "This edge has no BYOK key configured",
        )
        .into()),
    }
}
