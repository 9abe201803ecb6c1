//! Gemini's shapes, as the fixture speaks them: `GenerateContentResponse` chunks
//! (CRLF-framed) ending with a `finishReason`, its error bodies and in-stream error, and
//! its `/v1beta/models` listing. Like Gemini 3, it signs the first function call of a
//! reply (`thoughtSignature`) and refuses with a 400 a request whose current turn sends
//! a call back without it ([`unsigned_call`]).

use serde_json::{Value, json};

use super::stream::{Kind, Piece, Script, answer_pieces, pieces};
use super::{Reply, STREAM_ERROR_MESSAGE, display_name};

/// The Gemini model listing.
pub(super) fn listing(ids: &[String]) -> Value {
    json!({
        "models": ids.iter().map(|id| json!({
            "name": format!("models/{id}"),
            "version": "001",
            "displayName": display_name(id),
            "description": "A model of the Hearth provider fixture.",
            "inputTokenLimit": 32768,
            "outputTokenLimit": 8192,
            "supportedGenerationMethods": ["generateContent", "countTokens"],
        })).collect::<Vec<_>>(),
    })
}

/// Gemini's error body for an HTTP `status`.
pub(super) fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ if status < 500 => "FAILED_PRECONDITION",
        _ => "INTERNAL",
    };
    json!({"error": {"code": status, "message": message, "status": kind}})
}

/// The in-stream error chunk.
pub(super) fn error_frame() -> String {
    format!(
        "data: {}\r\n\r\n",
        json!({"error": {"code": 500, "message": STREAM_ERROR_MESSAGE, "status": "INTERNAL"}})
    )
}

/// The signature the fixture puts on the first function call of a reply.
pub const SIGNATURE: &str = "Zml4dHVyZS1zaWduYXR1cmU=";

/// The signature the fixture puts on a reply's `index`-th image, as Gemini's image models
/// sign theirs.
pub fn image_signature(index: usize) -> String {
    format!("Zml4dHVyZS1pbWFnZQ{index}")
}

/// Gemini 3's check of a request: in the current turn (the contents after the last user
/// text), each model content's first function call must carry the signature it was
/// given. The error message of the first that does not, as Gemini words it.
pub(super) fn unsigned_call(request: &Value) -> Option<String> {
    let contents = request["contents"].as_array()?;
    let turn_start = contents
        .iter()
        .rposition(|content| {
            content["role"].as_str().is_none_or(|role| role == "user")
                && content["parts"]
                    .as_array()
                    .is_some_and(|parts| parts.iter().any(|part| part.get("text").is_some()))
        })
        .map_or(0, |at| at + 1);
    contents[turn_start..]
        .iter()
        .enumerate()
        .filter(|(_, content)| content["role"] == "model")
        .find_map(|(position, content)| {
            let first_call = content["parts"]
                .as_array()?
                .iter()
                .find(|part| part.get("functionCall").is_some())?;
            (first_call["thoughtSignature"] != SIGNATURE).then(|| {
                format!(
                    "Function call is missing a thought_signature in functionCall parts. This is \
                     required for tools to work correctly, and missing thought_signature may \
                     lead to degraded model performance. Additional data, function call \
                     `default_api:{}` , position {}. Please refer to \
                     https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
                    first_call["functionCall"]["name"]
                        .as_str()
                        .unwrap_or_default(),
                    turn_start + position + 1
                )
            })
        })
}

/// Gemini `GenerateContentResponse` chunks (CRLF-framed, as Google sends them).
pub(super) fn script(model: &str, reply: &Reply) -> Script {
    let mut script = Script::default();
    let chunk = |parts: Value| {
        json!({
            "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}],
            "modelVersion": model,
            "responseId": "fixture-response",
        })
    };
    let frame = |value: &Value| format!("data: {value}\r\n\r\n");
    for piece in pieces(&reply.reasoning, reply.text_chunk_chars) {
        script.push(
            frame(&chunk(json!([{"text": piece, "thought": true}]))),
            Kind::Delta,
        );
    }
    for piece in answer_pieces(reply) {
        let part = match piece {
            Piece::Text(text) => json!({"text": text}),
            Piece::Image(index) => {
                let image = &reply.images[index];
                json!({
                    "inlineData": {"mimeType": image.mime_type, "data": image.data},
                    "thoughtSignature": image_signature(index),
                })
            }
        };
        script.push(frame(&chunk(json!([part]))), Kind::Delta);
    }
    if !reply.tool_calls.is_empty() {
        let calls: Vec<Value> = reply
            .tool_calls
            .iter()
            .enumerate()
            .map(|(index, (name, arguments))| {
                let args = serde_json::from_str::<Value>(arguments)
                    .unwrap_or_else(|_| Value::String(arguments.clone()));
                let mut part = json!({"functionCall": {"name": name, "args": args}});
                if index == 0 {
                    part["thoughtSignature"] = json!(SIGNATURE);
                }
                part
            })
            .collect();
        script.push(frame(&chunk(Value::Array(calls))), Kind::Delta);
    }
    let mut last = chunk(json!([{"text": ""}]));
    last["candidates"][0]["finishReason"] = json!("STOP");
    if !reply.sources.is_empty() {
        last["candidates"][0]["groundingMetadata"] = json!({
            "webSearchQueries": ["fixture query"],
            "groundingChunks": reply
                .sources
                .iter()
                .map(|(url, title)| json!({"web": {"uri": url, "title": title}}))
                .collect::<Vec<_>>(),
        });
    }
    if let Some((input, output)) = reply.usage {
        last["usageMetadata"] = json!({
            "promptTokenCount": input,
            "candidatesTokenCount": output,
            "totalTokenCount": input + output,
        });
    }
    script.push(frame(&last), Kind::Other);
    script
}
