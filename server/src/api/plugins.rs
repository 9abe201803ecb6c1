//! `POST /api/plugins/install`, `GET /api/plugins/list`, `POST /api/plugins/refresh`,
//! `POST /api/plugins/execute` and `POST /api/plugins/uninstall`: each finds the caller's
//! scope, hands the parsed body to the plugin service ([`crate::plugins`]) and answers
//! its result as JSON. An install's, a refresh's and a call's body is a [`SealedJson`]: a
//! credential in plaintext is refused before it is parsed. Install, execute and uninstall
//! run as named operations when the request carries `hearth-operation-id`
//! ([`crate::operations`]): a repeat answers the recorded answer.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use hearth_core::api::operations::OPERATION_ID_HEADER;
use hearth_core::api::{
    ApiError, PluginExecuteRequest, PluginInstallRequest, PluginListResponse, PluginRefreshRequest,
    PluginRefreshResponse, PluginUninstallRequest,
};
use serde::Serialize;
use serde_json::{Value, json};

use super::error::ApiErrorResponse;
use super::headers::header_text;
use super::json::ApiJson;
use super::sealed::SealedJson;
use crate::operations::{Answer, Kind};
use crate::state::AppState;

/// The answer of a named (or unnamed) operation.
fn answered(answer: Answer) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, Json(answer.body)).into_response()
}

/// A service's result as the JSON an operation records.
fn as_json<T: Serialize>(result: Result<T, ApiError>) -> Result<Value, ApiError> {
    result.map(|value| serde_json::to_value(value).unwrap_or(Value::Null))
}

/// `POST /api/plugins/install`.
pub(super) async fn install(
    State(state): State<AppState>,
    headers: HeaderMap,
    SealedJson(request): SealedJson<PluginInstallRequest>,
) -> Result<Response, ApiErrorResponse> {
    let scope = state.plugins.scope(&headers)?;
    let operation = header_text(&headers, OPERATION_ID_HEADER)?;
    let work = async { as_json(state.plugins.install(&scope, request).await) };
    let answer = state
        .operations
        .once(&scope, operation, Kind::Install, work);
    Ok(answered(answer.await?))
}

/// `GET /api/plugins/list`.
pub(super) async fn list(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<PluginListResponse>, ApiErrorResponse> {
    let scope = state.plugins.scope(&headers)?;
    Ok(Json(state.plugins.list(&scope).await?))
}

/// `POST /api/plugins/refresh`: an MCP plugin's tools listed again.
pub(super) async fn refresh(
    State(state): State<AppState>,
    headers: HeaderMap,
    SealedJson(request): SealedJson<PluginRefreshRequest>,
) -> Result<Json<PluginRefreshResponse>, ApiErrorResponse> {
    let scope = state.plugins.scope(&headers)?;
    Ok(Json(state.plugins.refresh_tools(&scope, request).await?))
}

/// `POST /api/plugins/uninstall`.
pub(super) async fn uninstall(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<PluginUninstallRequest>,
) -> Result<Response, ApiErrorResponse> {
    let scope = state.plugins.scope(&headers)?;
    let operation = header_text(&headers, OPERATION_ID_HEADER)?;
    let work = async {
        state.plugins.uninstall(&scope, &request.plugin_id).await?;
        Ok(json!({ "removed": request.plugin_id }))
    };
    let answer = state
        .operations
        .once(&scope, operation, Kind::Uninstall, work);
    Ok(answered(answer.await?))
}

/// `POST /api/plugins/execute`.
pub(super) async fn execute(
    State(state): State<AppState>,
    headers: HeaderMap,
    SealedJson(request): SealedJson<PluginExecuteRequest>,
) -> Result<Response, ApiErrorResponse> {
    let scope = state.plugins.scope(&headers)?;
    let operation = header_text(&headers, OPERATION_ID_HEADER)?;
    let work = async { as_json(state.plugins.execute(&scope, request).await) };
    let answer = state
        .operations
        .once(&scope, operation, Kind::Execute, work);
    Ok(answered(answer.await?))
}
