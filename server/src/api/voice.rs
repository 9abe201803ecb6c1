//! `POST /api/voice/speech` (a [`SealedJson`] body: the service and the text; answered
//! with the audio) and `POST /api/voice/transcriptions` (multipart: `audio`, the
//! recording; `service`, the service as JSON with any key sealed; optional `language`;
//! answered with `{text}`). The voice service ([`crate::voice`]) makes the calls.
//!
//! A declared `Content-Length` over the limit is refused before anything is read, and
//! reading stops at the limit either way; a key sent in plaintext is refused as the
//! other sealed routes refuse it.

use axum::Json;
use axum::body::Body;
use axum::extract::{Multipart, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use hearth_core::api::relay_bounds::BoundError;
use hearth_core::api::{ApiError, ErrorCode};
use hearth_core::byok::find_plaintext_secret;
use hearth_core::voice::{MAX_AUDIO_BYTES, SpeechRequest, TranscriptionResponse, VoiceService};
use serde_json::json;

use super::error::ApiErrorResponse;
use super::multipart::{Bound, accepted, malformed, read_bounded, too_large};
use super::sealed::SealedJson;
use crate::state::AppState;
use crate::voice::Recording;

/// The most bytes of the `service` field (a provider and an envelope).
const SERVICE_FIELD_LIMIT: usize = 96 * 1024;
/// The most bytes of the `language` field.
const LANGUAGE_FIELD_LIMIT: usize = 16;
/// The most fields a body may have.
const MAX_FIELDS: usize = 4;

pub(super) async fn speech(
    State(state): State<AppState>,
    SealedJson(request): SealedJson<SpeechRequest>,
) -> Result<Response, ApiErrorResponse> {
    let spoken = state.voice.speak(request).await?;
    let content_type = HeaderValue::from_str(&spoken.content_type)
        .unwrap_or_else(|_| HeaderValue::from_static("audio/mpeg"));
    Ok(Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CACHE_CONTROL, "no-store")
        .body(Body::from(spoken.bytes))
        .expect("a valid response"))
}

pub(super) async fn transcriptions(
    State(state): State<AppState>,
    headers: HeaderMap,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<Json<TranscriptionResponse>, ApiErrorResponse> {
    let multipart = accepted(&headers, multipart, MAX_AUDIO_BYTES)?;
    let (service, recording) = read_form(multipart).await?;
    Ok(Json(state.voice.transcribe(&service, recording).await?))
}

fn out_of_bounds(error: &BoundError) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, error.to_string())
        .with_details(json!({ "field": error.field, "problem": error.problem }))
}

/// A recording's type as the browser gave it, when it is a plain `audio/*` type.
fn audio_type(given: Option<&str>) -> Option<String> {
    let given = given?.split(';').next()?.trim().to_ascii_lowercase();
    let subtype = given.strip_prefix("audio/")?;
    (!subtype.is_empty()
        && subtype.len() <= 32
        && subtype
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '+')))
    .then_some(given)
}

async fn read_form(
    mut multipart: Multipart,
) -> Result<(VoiceService, Recording), ApiErrorResponse> {
    let mut audio: Option<(String, String, Vec<u8>)> = None;
    let mut service: Option<VoiceService> = None;
    let mut language: Option<String> = None;
    let mut fields = 0;
    while let Some(field) = multipart.next_field().await.map_err(|_| malformed())? {
        fields += 1;
        if fields > MAX_FIELDS {
            return Err(malformed().into());
        }
        let name = field.name().unwrap_or_default().to_string();
        match name.as_str() {
            "audio" => {
                let content_type = audio_type(field.content_type()).ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::UnsupportedMediaType,
                        "The recording must be audio (audio/webm, audio/ogg, audio/wav, …)",
                    )
                })?;
                let file_name = field.file_name().unwrap_or("speech.webm").to_string();
                let bytes =
                    read_bounded(field, MAX_AUDIO_BYTES)
                        .await
                        .map_err(|bound| match bound {
                            Bound::Over => too_large(MAX_AUDIO_BYTES),
                            Bound::Broken => malformed().into(),
                        })?;
                if bytes.is_empty() {
                    return Err(
                        ApiError::new(ErrorCode::BadRequest, "The recording is empty").into(),
                    );
                }
                audio = Some((file_name, content_type, bytes));
            }
            "service" => {
                let bytes = read_bounded(field, SERVICE_FIELD_LIMIT as u64)
                    .await
                    .map_err(|_| malformed())?;
                let value: serde_json::Value =
                    serde_json::from_slice(&bytes).map_err(|_| malformed())?;
                if let Some(path) = find_plaintext_secret(&value) {
                    return Err(ApiError::new(
                        ErrorCode::PlaintextSecretRefused,
                        "Voice keys must be sent as BYOK envelopes, never in plaintext",
                    )
                    .with_details(json!({ "field": format!("service.{path}") }))
                    .into());
                }
                let parsed: VoiceService = serde_json::from_value(value).map_err(|_| {
                    ApiError::new(
                        ErrorCode::BadRequest,
                        "The voice service is not one Hearth knows",
                    )
                })?;
                parsed
                    .check_bounds(false)
                    .map_err(|error| out_of_bounds(&error))?;
                service = Some(parsed);
            }
            "language" => {
                let bytes = read_bounded(field, LANGUAGE_FIELD_LIMIT as u64)
                    .await
                    .map_err(|_| malformed())?;
                let text = String::from_utf8(bytes).map_err(|_| malformed())?;
                if !text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                    return Err(ApiError::new(
                        ErrorCode::BadRequest,
                        "The language is not a language tag",
                    )
                    .into());
                }
                language = Some(text);
            }
            _ => return Err(malformed().into()),
        }
    }
    let (file_name, content_type, bytes) = audio
        .ok_or_else(|| ApiError::new(ErrorCode::BadRequest, "The body has no `audio` recording"))?;
    let service = service
        .ok_or_else(|| ApiError::new(ErrorCode::BadRequest, "The body names no `service`"))?;
    Ok((
        service,
        Recording {
            bytes,
            file_name,
            content_type,
            language,
        },
    ))
}
