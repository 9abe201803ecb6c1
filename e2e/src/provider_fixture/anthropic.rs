//! Anthropic's shapes, as the fixture speaks them: Messages events ending in
//! `message_stop`, its error bodies and `error` event, and its `/v1/models` listing.

use serde_json::{Value, json};

use super::stream::{Kind, Script, argument_pieces, pieces};
use super::{Reply, STREAM_ERROR_MESSAGE, display_name};

/// The Anthropic model listing.
pub(super) fn listing(ids: &[String]) -> Value {
    json!({
        "data": ids.iter().map(|id| json!({
            "type": "model",
            "id": id,
            "display_name": display_name(id),
            "created_at": "2025-01-01T00:00:00Z",
        })).collect::<Vec<_>>(),
        "has_more": false,
        "first_id": ids.first(),
        "last_id": ids.last(),
    })
}

/// Anthropic's error body for an HTTP `status`.
pub(super) fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ if status < 500 => "invalid_request_error",
        _ => "api_error",
    };
    json!({
        "type": "error",
        "error": {"type": kind, "message": message},
        "request_id": "req_fixture",
    })
}

/// The in-stream `error` event.
pub(super) fn error_frame() -> String {
    format!(
        "event: error\ndata: {}\n\n",
        json!({"type": "error", "error": {"type": "overloaded_error",
            "message": STREAM_ERROR_MESSAGE}})
    )
}

/// Anthropic Messages events.
pub(super) fn script(model: &str, reply: &Reply) -> Script {
    let mut script = Script::default();
    let mut message = json!({
        "id": "msg_fixture",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": null,
        "stop_sequence": null,
    });
    if let Some((input, _)) = reply.usage {
        message["usage"] = json!({"input_tokens": input, "output_tokens": 1});
    }
    script.event(
        Kind::Other,
        "message_start",
        &json!({"type": "message_start", "message": message}),
    );
    script.event(Kind::Other, "ping", &json!({"type": "ping"}));
    let mut block = 0;
    let mut start = |script: &mut Script, kind: Kind, content: Value| {
        script.event(
            kind,
            "content_block_start",
            &json!({"type": "content_block_start", "index": block, "content_block": content}),
        );
        block += 1;
        block - 1
    };
    let delta = |script: &mut Script, kind: Kind, index: usize, delta: Value| {
        script.event(
            kind,
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        );
    };
    let stop = |script: &mut Script, index: usize| {
        script.event(
            Kind::Other,
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        );
    };
    if !reply.reasoning.is_empty() {
        let index = start(
            &mut script,
            Kind::Other,
            json!({"type": "thinking", "thinking": "", "signature": ""}),
        );
        for piece in pieces(&reply.reasoning, reply.text_chunk_chars) {
            delta(
                &mut script,
                Kind::Delta,
                index,
                json!({"type": "thinking_delta", "thinking": piece}),
            );
        }
        delta(
            &mut script,
            Kind::Other,
            index,
            json!({"type": "signature_delta", "signature": "Zml4dHVyZQ=="}),
        );
        stop(&mut script, index);
    }
    if !reply.text.is_empty() || reply.tool_calls.is_empty() {
        let index = start(
            &mut script,
            Kind::Other,
            json!({"type": "text", "text": ""}),
        );
        for piece in pieces(&reply.text, reply.text_chunk_chars) {
            delta(
                &mut script,
                Kind::Delta,
                index,
                json!({"type": "text_delta", "text": piece}),
            );
        }
        stop(&mut script, index);
    }
    for (call, (name, arguments)) in reply.tool_calls.iter().enumerate() {
        let index = start(
            &mut script,
            Kind::Delta,
            json!({"type": "tool_use", "id": format!("toolu_fixture_{call}"), "name": name,
                "input": {}}),
        );
        // Anthropic opens every tool input with an empty fragment.
        let fragments = std::iter::once(String::new()).chain(argument_pieces(arguments));
        for piece in fragments {
            delta(
                &mut script,
                Kind::Delta,
                index,
                json!({"type": "input_json_delta", "partial_json": piece}),
            );
        }
        stop(&mut script, index);
    }
    let stop_reason = if reply.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    let mut end = json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": null},
    });
    if let Some((_, output)) = reply.usage {
        end["usage"] = json!({"output_tokens": output});
    }
    script.event(Kind::Other, "message_delta", &end);
    script.event(
        Kind::Other,
        "message_stop",
        &json!({"type": "message_stop"}),
    );
    script
}
