//! `ApiJson<T, LIMIT>`: a JSON body extractor whose failures use the one error shape.
//! The body must be `application/json`; a declared `Content-Length` over `LIMIT` is
//! refused before anything is read, and reading stops at `LIMIT` bytes either way.

use axum::body::to_bytes;
use axum::extract::{FromRequest, Request};
use axum::http::header;
use hearth_core::api::{ApiError, ErrorCode, redact_parse_error};
use serde::de::DeserializeOwned;
use serde_json::json;

use super::error::ApiErrorResponse;

/// The default cap on JSON bodies: 36 MiB (room for inline attachments).
pub const JSON_BODY_LIMIT: usize = 36 * 1024 * 1024;

/// A parsed JSON body of at most `LIMIT` bytes.
#[derive(Debug)]
pub struct ApiJson<T, const LIMIT: usize = JSON_BODY_LIMIT>(pub T);

fn too_large(limit: usize) -> ApiErrorResponse {
    ApiError::new(
        ErrorCode::PayloadTooLarge,
        format!("The request body exceeds {limit} bytes"),
    )
    .with_details(json!({ "limitBytes": limit }))
    .into()
}

impl<S, T, const LIMIT: usize> FromRequest<S> for ApiJson<T, LIMIT>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiErrorResponse;

    async fn from_request(request: Request, _state: &S) -> Result<Self, Self::Rejection> {
        let headers = request.headers();
        let is_json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !is_json {
            return Err(ApiError::new(
                ErrorCode::UnsupportedMediaType,
                "The request body must be application/json",
            )
            .into());
        }
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|length| length > LIMIT as u64) {
            return Err(too_large(LIMIT));
        }
        let bytes = to_bytes(request.into_body(), LIMIT)
            .await
            .map_err(|_| too_large(LIMIT))?;
        serde_json::from_slice(&bytes)
            .map(ApiJson)
            .map_err(|error| {
                ApiError::new(ErrorCode::BadRequest, "Invalid request body")
                    .with_details(json!({ "error": redact_parse_error(&error.to_string()) }))
                    .into()
            })
    }
}
