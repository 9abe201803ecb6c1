//! `POST /api/doc-parse` (multipart: `file`, optional `provider`, and for a remote parser
//! `credential` — a BYOK envelope sealed for `docs:mineru` or `docs:llama-parse`, also
//! accepted as Neo Chat's `apiKeySecret` — or `useDefault=true`), and
//! `GET|DELETE /api/doc-parse/jobs/:id` with the job's secret in
//! `x-doc-parse-job-secret` (a query parameter is never read).
//!
//! A declared `Content-Length` over the limit is refused before anything is read, and
//! reading stops at the limit either way. A secret sent in plaintext (`apiKey`,
//! `apiToken`) is refused: remote parsers take credentials as BYOK envelopes only.

use axum::Json;
use axum::extract::{Multipart, Path, State};
use axum::http::{HeaderMap, StatusCode};
use hearth_core::api::doc_parse::{
    DocParseDeleted, DocParseJob, DocParseProvider, DocParseStarted, JOB_SECRET_HEADER,
};
use hearth_core::api::{ApiError, ErrorCode};
use serde_json::json;

use super::error::ApiErrorResponse;
use super::multipart::{Bound, accepted, malformed, read_bounded, too_large};
use crate::doc_parse::Upload;
use crate::state::AppState;

/// The most bytes of a text field (`provider`, `useDefault`).
const TEXT_FIELD_LIMIT: usize = 256;
/// The most bytes of a credential field (an envelope's JSON).
const CREDENTIAL_FIELD_LIMIT: usize = 96 * 1024;

pub(super) async fn start(
    State(state): State<AppState>,
    headers: HeaderMap,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<(StatusCode, Json<DocParseStarted>), ApiErrorResponse> {
    let multipart = accepted(&headers, multipart, state.doc_parse.max_bytes())?;
    let upload = read_upload(multipart, state.doc_parse.max_bytes()).await?;
    let started = state.doc_parse.start(upload).await?;
    Ok((StatusCode::ACCEPTED, Json(started)))
}

/// The most fields a body may have.
const MAX_FIELDS: usize = 8;

async fn read_upload(mut multipart: Multipart, max_bytes: u64) -> Result<Upload, ApiErrorResponse> {
    let mut file: Option<(Option<String>, Vec<u8>)> = None;
    let mut provider = DocParseProvider::Local;
    let mut credential = None;
    let mut use_default = false;
    let mut fields = 0;
    while let Some(field) = multipart.next_field().await.map_err(|_| malformed())? {
        fields += 1;
        if fields > MAX_FIELDS {
            return Err(malformed().into());
        }
        let name = field.name().unwrap_or_default().to_string();
        match name.as_str() {
            "file" => {
                let file_name = field.file_name().map(str::to_string);
                let bytes = read_bounded(field, max_bytes)
                    .await
                    .map_err(|bound| match bound {
                        Bound::Over => too_large(max_bytes),
                        Bound::Broken => malformed().into(),
                    })?;
                file = Some((file_name, bytes));
            }
            "provider" => {
                let bytes = read_bounded(field, TEXT_FIELD_LIMIT as u64)
                    .await
                    .map_err(|_| malformed())?;
                let text = String::from_utf8(bytes).map_err(|_| malformed())?;
                provider = DocParseProvider::parse(&text).ok_or_else(|| {
                    ApiError::new(ErrorCode::BadRequest, "Unknown parser")
                        .with_details(json!({ "field": "provider" }))
                })?;
            }
            "credential" | "apiKeySecret" => {
                let bytes = read_bounded(field, CREDENTIAL_FIELD_LIMIT as u64)
                    .await
                    .map_err(|_| malformed())?;
                let envelope = serde_json::from_slice(&bytes).map_err(|_| {
                    ApiError::new(
                        ErrorCode::AuthError,
                        "The credential is not a BYOK envelope",
                    )
                    .with_details(json!({ "field": name }))
                })?;
                credential = Some(envelope);
            }
            "useDefault" => {
                let bytes = read_bounded(field, TEXT_FIELD_LIMIT as u64)
                    .await
                    .map_err(|_| malformed())?;
                use_default = match String::from_utf8_lossy(&bytes).trim() {
                    "true" => true,
                    "false" | "" => false,
                    _ => {
                        return Err(ApiError::new(
                            ErrorCode::BadRequest,
                            "useDefault is true or false",
                        )
                        .with_details(json!({ "field": "useDefault" }))
                        .into());
                    }
                };
            }
            "apiKey" | "apiToken" | "token" => {
                return Err(ApiError::new(
                    ErrorCode::PlaintextSecretRefused,
                    "Send parser credentials as an encrypted BYOK secret, never in plaintext",
                )
                .with_details(json!({ "field": name }))
                .into());
            }
            _ => {
                return Err(ApiError::new(ErrorCode::BadRequest, "Unknown field")
                    .with_details(json!({ "field": name }))
                    .into());
            }
        }
    }
    let (name, bytes) = file.ok_or_else(|| {
        ApiError::new(ErrorCode::BadRequest, "The body has no file")
            .with_details(json!({ "field": "file" }))
    })?;
    Ok(Upload {
        name,
        bytes,
        provider,
        credential,
        use_default,
    })
}

fn secret(headers: &HeaderMap) -> Option<&str> {
    headers.get(JOB_SECRET_HEADER).and_then(|v| v.to_str().ok())
}

pub(super) async fn poll(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<DocParseJob>, ApiErrorResponse> {
    Ok(Json(state.doc_parse.poll(&id, secret(&headers)).await?))
}

pub(super) async fn cancel(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<DocParseDeleted>, ApiErrorResponse> {
    Ok(Json(state.doc_parse.cancel(&id, secret(&headers)).await?))
}
