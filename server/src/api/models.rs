//! `POST /api/providers/models`: a provider's model list, fetched by the edge — for
//! providers whose CORS blocks the browser and for server-configured providers (whose
//! listed models are answered without a call).

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use hearth_core::api::{ApiError, ErrorCode, ModelListRequest, ModelListResponse};
use hearth_core::provider::models::{ModelInfo, list_url, parse_list};
use hearth_core::provider::request::{ModelCapabilities, auth_headers};
use reqwest::Method;
use serde_json::json;

use super::error::ApiErrorResponse;
use super::provider;
use super::relay::to_headers;
use super::sealed::SealedJson;
use crate::safe_fetch::OutboundRequest;
use crate::state::AppState;

pub(super) async fn list(
    State(state): State<AppState>,
    SealedJson(request): SealedJson<ModelListRequest>,
) -> Response {
    if let Some(id) = &request.provider.server_provider_id
        && let Some(configured) = state.server_providers.iter().find(|p| &p.id == id)
        && !configured.models.is_empty()
    {
        let models = configured
            .models
            .iter()
            .map(|id| ModelInfo {
                id: id.clone(),
                display_name: None,
                capabilities: ModelCapabilities::default(),
            })
            .collect();
        return Json(ModelListResponse { models }).into_response();
    }
    let resolved = match provider::resolve(&state, &request.provider) {
        Ok(resolved) => resolved,
        Err(refusal) => return *refusal,
    };
    let protocol = resolved.endpoint.protocol;
    let url = match list_url(&resolved.endpoint) {
        Ok(url) => url,
        Err(error) => {
            return ApiErrorResponse(ApiError::new(ErrorCode::BadRequest, error.to_string()))
                .into_response();
        }
    };
    let outbound = OutboundRequest {
        target: resolved.target,
        method: Method::GET,
        url,
        headers: Vec::new(),
        secret_headers: resolved
            .key
            .as_deref()
            .map(|key| to_headers(auth_headers(protocol, key)))
            .unwrap_or_default(),
        body: None,
    };
    let response = match state.fetch.fetch(outbound).await {
        Ok(response) => response,
        Err(error) => return ApiErrorResponse(error.to_api_error()).into_response(),
    };
    if !response.status.is_success() {
        return provider::upstream_error(
            response.status.as_u16(),
            &response.body,
            resolved.key.as_deref(),
        );
    }
    match parse_list(protocol, &String::from_utf8_lossy(&response.body)) {
        Ok(models) => Json(ModelListResponse { models }).into_response(),
        Err(error) => ApiErrorResponse(
            ApiError::new(
                ErrorCode::UpstreamError,
                "The provider's model list is unreadable",
            )
            .with_details(json!({ "reason": error.to_string() })),
        )
        .into_response(),
    }
}
