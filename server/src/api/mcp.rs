//! `GET /api/mcp/servers`: one page of the MCP registry, answered by the registry client
//! ([`crate::mcp_registry`]); a query that does not parse is a `BAD_REQUEST`.
//! `POST /api/mcp/resources` and `/api/mcp/prompts`: an installed MCP plugin's resources
//! and prompts, through the plugin service ([`crate::plugins`]).

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use hearth_core::api::{
    ApiError, ErrorCode, McpPromptsAction, McpPromptsRequest, McpResourcesAction,
    McpResourcesRequest, McpServersQuery,
};
use hearth_core::byok::Envelope;
use serde_json::{Value, json};

use super::error::ApiErrorResponse;
use super::json::ApiJson;
use crate::mcp::Browse;
use crate::state::AppState;

/// `GET /api/mcp/servers?cursor=&search=&limit=`.
pub(super) async fn servers(
    State(state): State<AppState>,
    query: Result<Query<McpServersQuery>, QueryRejection>,
) -> Response {
    let Query(query) = match query {
        Ok(query) => query,
        Err(rejection) => {
            return ApiErrorResponse(
                ApiError::new(ErrorCode::BadRequest, "Invalid query")
                    .with_details(json!({ "error": rejection.body_text() })),
            )
            .into_response();
        }
    };
    match state.mcp_registry.list(&query).await {
        Ok(page) => Json(page).into_response(),
        Err(error) => ApiErrorResponse(error).into_response(),
    }
}

/// Answers `what` of the caller's MCP plugin `plugin_id`, its credential in `envelope`.
async fn browse(
    state: &AppState,
    headers: &HeaderMap,
    plugin_id: &str,
    envelope: Option<&Envelope>,
    what: Browse,
) -> Result<Json<Value>, ApiErrorResponse> {
    let scope = state.plugins.scope(headers)?;
    Ok(Json(
        state
            .plugins
            .browse(&scope, plugin_id, envelope, what)
            .await?,
    ))
}

/// `POST /api/mcp/resources`: list a server's resources, or read one.
pub(super) async fn resources(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<McpResourcesRequest>,
) -> Result<Json<Value>, ApiErrorResponse> {
    let what = match request.action {
        McpResourcesAction::List => Browse::Resources,
        McpResourcesAction::Read { uri } => Browse::ReadResource(uri),
    };
    let (id, auth) = (&request.plugin_id, request.auth.as_ref());
    browse(&state, &headers, id, auth, what).await
}

/// `POST /api/mcp/prompts`: list a server's prompts, or get one with its arguments.
pub(super) async fn prompts(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<McpPromptsRequest>,
) -> Result<Json<Value>, ApiErrorResponse> {
    let what = match request.action {
        McpPromptsAction::List => Browse::Prompts,
        McpPromptsAction::Get { name, args } => Browse::GetPrompt(
            name,
            args.into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
        ),
    };
    let (id, auth) = (&request.plugin_id, request.auth.as_ref());
    browse(&state, &headers, id, auth, what).await
}
