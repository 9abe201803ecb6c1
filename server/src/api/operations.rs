//! `GET /api/operations/{id}`: where one of the caller's named edge operations is
//! (running, interrupted, or done with its answer), from the operation service
//! ([`crate::operations`]).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use hearth_core::api::operations::OperationState;

use super::error::ApiErrorResponse;
use crate::client_scope::scope;
use crate::state::AppState;

pub(super) async fn look_up(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<OperationState>, ApiErrorResponse> {
    let scope = scope(state.config.deployment.mode, &headers, &state.signer)?;
    Ok(Json(state.operations.look_up(&scope, &id).await?))
}
