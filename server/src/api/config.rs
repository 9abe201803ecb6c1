//! `GET /api/config`: the public, secret-free description of this deployment.

use axum::Json;
use axum::extract::State;
use hearth_core::api::PublicConfig;

use crate::state::AppState;

pub(super) async fn config(State(state): State<AppState>) -> Json<PublicConfig> {
    Json(state.config.as_ref().clone())
}
