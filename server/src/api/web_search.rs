//! `POST /api/search`: one web search. The body is a [`SealedJson`] (a user's key arrives
//! sealed); the search service ([`crate::web_search`]) answers it.

use axum::Json;
use axum::extract::State;
use hearth_core::api::web_search::{WebSearchRequest, WebSearchResponse};

use super::error::ApiErrorResponse;
use super::sealed::SealedJson;
use crate::state::AppState;

pub(super) async fn search(
    State(state): State<AppState>,
    SealedJson(request): SealedJson<WebSearchRequest>,
) -> Result<Json<WebSearchResponse>, ApiErrorResponse> {
    Ok(Json(state.web_search.search(request).await?))
}
