//! `POST /api/providers/models`: a provider's model list, fetched by the edge — for
//! providers whose CORS blocks the browser and for server-configured providers (whose
//! listed models are answered without a call). The body is a [`SealedJson`]; the
//! provider service ([`crate::providers`]) answers it.

use axum::Json;
use axum::extract::State;
use hearth_core::api::{ModelListRequest, ModelListResponse};

use super::error::ApiErrorResponse;
use super::sealed::SealedJson;
use crate::state::AppState;

pub(super) async fn list(
    State(state): State<AppState>,
    SealedJson(request): SealedJson<ModelListRequest>,
) -> Result<Json<ModelListResponse>, ApiErrorResponse> {
    Ok(Json(state.providers.models(request).await?))
}
