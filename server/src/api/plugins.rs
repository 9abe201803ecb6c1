//! `POST /api/plugins/install`, `GET /api/plugins/list`, `POST /api/plugins/execute` and
//! `POST /api/plugins/uninstall`: each finds the caller's scope, hands the parsed body
//! to the plugin service ([`crate::plugins`]) and answers its result as JSON. An
//! install's and a call's body is a [`SealedJson`]: a credential in plaintext is
//! refused before it is parsed.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use hearth_core::api::{
    PluginExecuteRequest, PluginExecuteResponse, PluginInstallRequest, PluginInstallResponse,
    PluginListResponse, PluginUninstallRequest,
};
use serde_json::{Value, json};

use super::error::ApiErrorResponse;
use super::json::ApiJson;
use super::sealed::SealedJson;
use crate::state::AppState;

/// `POST /api/plugins/install`.
pub(super) async fn install(
    State(state): State<AppState>,
    headers: HeaderMap,
    SealedJson(request): SealedJson<PluginInstallRequest>,
) -> Result<Json<PluginInstallResponse>, ApiErrorResponse> {
    let scope = state.plugins.scope(&headers)?;
    Ok(Json(state.plugins.install(&scope, request).await?))
}

/// `GET /api/plugins/list`.
pub(super) async fn list(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<PluginListResponse>, ApiErrorResponse> {
    let scope = state.plugins.scope(&headers)?;
    Ok(Json(state.plugins.list(&scope).await?))
}

/// `POST /api/plugins/uninstall`.
pub(super) async fn uninstall(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<PluginUninstallRequest>,
) -> Result<Json<Value>, ApiErrorResponse> {
    let scope = state.plugins.scope(&headers)?;
    state.plugins.uninstall(&scope, &request.plugin_id).await?;
    Ok(Json(json!({ "removed": request.plugin_id })))
}

/// `POST /api/plugins/execute`.
pub(super) async fn execute(
    State(state): State<AppState>,
    headers: HeaderMap,
    SealedJson(request): SealedJson<PluginExecuteRequest>,
) -> Result<Json<PluginExecuteResponse>, ApiErrorResponse> {
    let scope = state.plugins.scope(&headers)?;
    Ok(Json(state.plugins.execute(&scope, request).await?))
}
