//! OpenAI's audio routes. Speech (`POST /v1/audio/speech`): a WAV of silence, a third of
//! a second long, or thirty seconds for an input that says "long" (a reading to stop).
//! Transcription (`POST /v1/audio/transcriptions`, a form with `file` and `model`): a
//! fixed sentence. A request missing what the route needs is a 400 in OpenAI's error
//! shape.

use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use hearth_core::provider::Protocol;
use serde_json::Value;

use super::error_response;

/// A mono 16-bit WAV of `samples` silent samples at 8 kHz.
fn silence(samples: u32) -> Vec<u8> {
    let data = samples * 2;
    let mut wav = Vec::with_capacity(44 + data as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16_u32.to_le_bytes());
    wav.extend_from_slice(&1_u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1_u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8_000_u32.to_le_bytes());
    wav.extend_from_slice(&16_000_u32.to_le_bytes()); // bytes per second
    wav.extend_from_slice(&2_u16.to_le_bytes()); // block align
    wav.extend_from_slice(&16_u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data.to_le_bytes());
    wav.resize(44 + data as usize, 0);
    wav
}

/// `POST /v1/audio/speech`.
pub(super) fn speech(body: &[u8]) -> Response {
    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let input = request["input"].as_str().unwrap_or_default();
    if request["model"].as_str().is_none_or(str::is_empty) || input.is_empty() {
        return error_response(Protocol::OpenAiChat, 400, "model and input are required");
    }
    let samples = if input.contains("long") {
        240_000
    } else {
        2_700
    };
    ([(CONTENT_TYPE, "audio/wav")], silence(samples)).into_response()
}

/// What the transcription route hears in any recording.
pub const TRANSCRIBED: &str = "Dictated through the provider.";

/// `POST /v1/audio/transcriptions`.
pub(super) fn transcription(content_type: Option<&str>, body: &[u8]) -> Response {
    let form = String::from_utf8_lossy(body);
    let multipart = content_type.is_some_and(|t| t.starts_with("multipart/form-data; boundary="));
    if !multipart || !form.contains("name=\"model\"") || !form.contains("name=\"file\"") {
        return error_response(
            Protocol::OpenAiChat,
            400,
            "a form with file and model is required",
        );
    }
    (
        [(CONTENT_TYPE, "application/json")],
        serde_json::json!({ "text": TRANSCRIBED }).to_string(),
    )
        .into_response()
}
