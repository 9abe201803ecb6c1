//! OpenAI's Images API route (`POST /v1/images/generations`): a 1×1 PNG per image.

use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use hearth_core::provider::Protocol;
use serde_json::{Value, json};

use super::{CREATED, error_response};

/// A 1×1 PNG, base64: what the Images API route draws.
pub const PIXEL_PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// OpenAI's `POST /v1/images/generations`: `n` images (default 1) in `b64_json`, with a
/// `revised_prompt` as DALL·E 3 gives; a request without a model or a prompt is a 400 in
/// OpenAI's error shape.
pub(super) fn images(body: &[u8]) -> Response {
    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let prompt = request["prompt"].as_str().unwrap_or_default();
    if request["model"].as_str().is_none_or(str::is_empty) || prompt.is_empty() {
        return error_response(Protocol::OpenAiChat, 400, "model and prompt are required");
    }
    let n = request["n"].as_u64().unwrap_or(1).clamp(1, 10);
    let data: Vec<Value> = (0..n)
        .map(|_| json!({"b64_json": PIXEL_PNG_BASE64, "revised_prompt": format!("{prompt}, as a single pixel")}))
        .collect();
    (
        [(CONTENT_TYPE, "application/json")],
        json!({"created": CREATED, "data": data}).to_string(),
    )
        .into_response()
}
