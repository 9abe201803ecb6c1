//! `GET /api/mcp/servers`: one page of the MCP registry, answered by the registry client
//! ([`crate::mcp_registry`]); a query that does not parse is a `BAD_REQUEST`.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use hearth_core::api::{ApiError, ErrorCode, McpServersQuery};
use serde_json::json;

use super::error::ApiErrorResponse;
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
