//! Reading the API's own request headers (`hearth-relay-id`, `Last-Event-ID`,
//! `hearth-operation-id`): absent, text, or a typed refusal.

use axum::http::HeaderMap;
use hearth_core::api::{ApiError, ErrorCode};

/// The header `name` as text, if present; a 400 when it is not text.
pub(super) fn header_text<'a>(
    headers: &'a HeaderMap,
    name: &str,
) -> Result<Option<&'a str>, ApiError> {
    headers
        .get(name)
        .map(|value| {
            value.to_str().map_err(|_| {
                ApiError::new(
                    ErrorCode::BadRequest,
                    format!("The {name} header is not text"),
                )
            })
        })
        .transpose()
}
