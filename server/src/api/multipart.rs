//! What the multipart routes (`/api/doc-parse`, `/api/voice/transcriptions`) share: a
//! declared length over the limit refused before anything is read, the body taken as
//! multipart or refused, each field read up to its cap, and the answers to a body that
//! is too large or malformed.

use axum::extract::Multipart;
use axum::extract::multipart::MultipartRejection;
use axum::http::{HeaderMap, header};
use hearth_core::api::doc_parse::MULTIPART_OVERHEAD_BYTES;
use hearth_core::api::{ApiError, ErrorCode};
use serde_json::json;

use super::error::ApiErrorResponse;

/// The body as multipart, once its declared length is within `max_bytes` (of file) and
/// the form's overhead.
pub(super) fn accepted(
    headers: &HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
    max_bytes: u64,
) -> Result<Multipart, ApiErrorResponse> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > max_bytes + MULTIPART_OVERHEAD_BYTES) {
        return Err(too_large(max_bytes));
    }
    multipart.map_err(|_| {
        ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "The request body must be multipart/form-data",
        )
        .into()
    })
}

/// Why a field could not be read.
pub(super) enum Bound {
    /// It is longer than allowed.
    Over,
    /// The body broke off or is not multipart.
    Broken,
}

/// A field's bytes, reading no more than `cap` of them.
pub(super) async fn read_bounded(
    mut field: axum::extract::multipart::Field<'_>,
    cap: u64,
) -> Result<Vec<u8>, Bound> {
    let mut bytes = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(|_| Bound::Broken)? {
        if (bytes.len() + chunk.len()) as u64 > cap {
            return Err(Bound::Over);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// The 413 for a file over `limit` bytes.
pub(super) fn too_large(limit: u64) -> ApiErrorResponse {
    ApiError::new(
        ErrorCode::PayloadTooLarge,
        format!("The file is larger than {limit} bytes"),
    )
    .with_details(json!({ "limitBytes": limit }))
    .into()
}

/// The 400 for a body that is not a well-formed form.
pub(super) fn malformed() -> ApiError {
    ApiError::new(ErrorCode::BadRequest, "The multipart body is malformed")
}
