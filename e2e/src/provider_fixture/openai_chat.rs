//! OpenAI's shapes, as the fixture speaks them: Chat Completions chunks ending in `data:
//! [DONE]`, the `{"error": …}` body both OpenAI APIs answer with, the in-stream error
//! chunk, and the `/v1/models` listing (OpenRouter's `supported_parameters` when tool
//! models are on).

use serde_json::{Value, json};

use super::stream::{Kind, Piece, Script, answer_pieces, argument_pieces, call_id, pieces};
use super::{CREATED, Reply, STREAM_ERROR_MESSAGE};

/// The OpenAI model listing (also what an unrecognised client gets).
pub(super) fn listing(
    ids: &[String],
    tools: bool,
    fields: &std::collections::HashMap<String, Value>,
) -> Value {
    json!({
        "object": "list",
        "data": ids.iter().map(|id| {
            let mut model = json!({
                "id": id,
                "object": "model",
                "created": CREATED,
                "owned_by": "hearth-fixture",
            });
            if tools {
                model["supported_parameters"] = json!(["tools", "tool_choice", "temperature"]);
            }
            if let Some(Value::Object(extra)) = fields.get(id) {
                for (key, value) in extra {
                    model[key] = value.clone();
                }
            }
            model
        }).collect::<Vec<_>>(),
    })
}

/// OpenAI's error body for an HTTP `status` (both the Chat Completions and Responses APIs).
pub(super) fn error_body(status: u16, message: &str) -> Value {
    let (kind, code) = match status {
        401 => ("invalid_request_error", Some("invalid_api_key")),
        403 => ("permission_error", None),
        404 => ("invalid_request_error", Some("model_not_found")),
        429 => ("requests", Some("rate_limit_exceeded")),
        _ if status < 500 => ("invalid_request_error", None),
        _ => ("server_error", None),
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

/// The in-stream error chunk.
pub(super) fn error_frame() -> String {
    format!(
        "data: {}\n\n",
        json!({"error": {"message": STREAM_ERROR_MESSAGE, "type": "server_error",
            "param": null, "code": "server_error"}})
    )
}

/// OpenAI Chat Completions chunks.
pub(super) fn script(model: &str, reply: &Reply) -> Script {
    let mut script = Script::default();
    let chunk = |choices: Value| {
        let mut chunk = json!({
            "id": "chatcmpl-fixture",
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": model,
            "system_fingerprint": "fp_fixture",
            "choices": choices,
        });
        if reply.usage.is_some() {
            // With `stream_options.include_usage`, OpenAI sends `usage: null` until the end.
            chunk["usage"] = Value::Null;
        }
        if !reply.sources.is_empty() {
            chunk["search_results"] = reply
                .sources
                .iter()
                .map(|(url, title)| json!({"title": title, "url": url, "date": null}))
                .collect();
            chunk["citations"] = reply.sources.iter().map(|(url, _)| json!(url)).collect();
        }
        format!("data: {chunk}\n\n")
    };
    let delta = |delta: Value| {
        chunk(json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": null}]))
    };
    script.push(
        delta(json!({"role": "assistant", "content": "", "refusal": null})),
        Kind::Other,
    );
    for piece in pieces(&reply.reasoning, reply.text_chunk_chars) {
        script.push(delta(json!({"reasoning_content": piece})), Kind::Delta);
    }
    for piece in answer_pieces(reply) {
        let fields = match piece {
            Piece::Text(text) => json!({"content": text}),
            Piece::Image(index) => {
                let image = &reply.images[index];
                let url = image
                    .link
                    .clone()
                    .unwrap_or_else(|| format!("data:{};base64,{}", image.mime_type, image.data));
                json!({"images": [{"type": "image_url", "image_url": {"url": url}}]})
            }
        };
        script.push(delta(fields), Kind::Delta);
    }
    let arguments: Vec<Vec<String>> = reply
        .tool_calls
        .iter()
        .map(|(_, arguments)| argument_pieces(arguments))
        .collect();
    for (index, (name, _)) in reply.tool_calls.iter().enumerate() {
        script.push(
            delta(
                json!({"tool_calls": [{"index": index, "id": call_id(index), "type": "function",
                "function": {"name": name, "arguments": ""}}]}),
            ),
            Kind::Delta,
        );
    }
    // Parallel calls interleave: a piece of each in turn.
    let rounds = arguments.iter().map(Vec::len).max().unwrap_or(0);
    for round in 0..rounds {
        for (index, pieces) in arguments.iter().enumerate() {
            if let Some(piece) = pieces.get(round) {
                script.push(
                    delta(json!({"tool_calls": [{"index": index,
                        "function": {"arguments": piece}}]})),
                    Kind::Delta,
                );
            }
        }
    }
    let finish = if reply.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    script.push(
        chunk(json!([{"index": 0, "delta": {}, "logprobs": null, "finish_reason": finish}])),
        Kind::Other,
    );
    if let Some((input, output)) = reply.usage {
        let mut last = json!({
            "id": "chatcmpl-fixture",
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": model,
            "system_fingerprint": "fp_fixture",
            "choices": [],
        });
        last["usage"] = json!({"prompt_tokens": input, "completion_tokens": output,
            "total_tokens": input + output});
        script.push(format!("data: {last}\n\n"), Kind::Other);
    }
    script.push("data: [DONE]\n\n".to_string(), Kind::Other);
    script
}
