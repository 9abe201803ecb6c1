//! OpenAI Responses events as the fixture streams them: typed, numbered, ending in
//! `response.completed`, and the in-stream `error` event. (Its HTTP error bodies are
//! OpenAI's, in [`super::openai_chat`].)

use serde_json::{Value, json};

use super::stream::{Kind, Script, argument_pieces, call_id, pieces};
use super::{CREATED, Reply, ReplyImage, STREAM_ERROR_MESSAGE};

/// The in-stream `error` event; `sequence` is its sequence number.
pub(super) fn error_frame(sequence: usize) -> String {
    format!(
        "event: error\ndata: {}\n\n",
        json!({"type": "error", "sequence_number": sequence, "code": "server_error",
            "message": STREAM_ERROR_MESSAGE, "param": null})
    )
}

/// OpenAI Responses events.
pub(super) fn script(model: &str, reply: &Reply) -> Script {
    let mut script = Script::default();
    let response = |status: &str, output: Value, usage: Value| {
        json!({
            "id": "resp_fixture",
            "object": "response",
            "created_at": CREATED,
            "status": status,
            "model": model,
            "output": output,
            "usage": usage,
        })
    };
    let start = response("in_progress", json!([]), Value::Null);
    script.responses(
        Kind::Other,
        "response.created",
        json!({"response": start.clone()}),
    );
    script.responses(
        Kind::Other,
        "response.in_progress",
        json!({"response": start}),
    );
    let mut output = Vec::new();
    if !reply.reasoning.is_empty() {
        let (id, index, text) = ("rs_fixture", output.len(), &reply.reasoning);
        script.responses(
            Kind::Other,
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": id, "type": "reasoning", "summary": []}}),
        );
        let at = json!({"item_id": id, "output_index": index, "summary_index": 0});
        let with = |extra: Value| {
            let mut value = at.clone();
            if let (Some(value), Value::Object(extra)) = (value.as_object_mut(), extra) {
                value.extend(extra);
            }
            value
        };
        script.responses(
            Kind::Other,
            "response.reasoning_summary_part.added",
            with(json!({"part": {"type": "summary_text", "text": ""}})),
        );
        for piece in pieces(text, reply.text_chunk_chars) {
            script.responses(
                Kind::Delta,
                "response.reasoning_summary_text.delta",
                with(json!({"delta": piece})),
            );
        }
        script.responses(
            Kind::Other,
            "response.reasoning_summary_text.done",
            with(json!({"text": text})),
        );
        script.responses(
            Kind::Other,
            "response.reasoning_summary_part.done",
            with(json!({"part": {"type": "summary_text", "text": text}})),
        );
        let item = json!({"id": id, "type": "reasoning",
            "summary": [{"type": "summary_text", "text": text}]});
        script.responses(
            Kind::Other,
            "response.output_item.done",
            json!({"output_index": index, "item": item.clone()}),
        );
        output.push(item);
    }
    let (first, later): (Vec<_>, Vec<_>) = reply.images.iter().partition(|i| i.after_chars == 0);
    for image in first {
        image_item(&mut script, &mut output, image);
    }
    if !reply.text.is_empty() || reply.tool_calls.is_empty() {
        let (id, index, text) = ("msg_fixture", output.len(), &reply.text);
        script.responses(
            Kind::Other,
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": id, "type": "message",
                "status": "in_progress", "role": "assistant", "content": []}}),
        );
        script.responses(
            Kind::Other,
            "response.content_part.added",
            json!({"item_id": id, "output_index": index, "content_index": 0,
                "part": {"type": "output_text", "text": "", "annotations": []}}),
        );
        for piece in pieces(text, reply.text_chunk_chars) {
            script.responses(
                Kind::Delta,
                "response.output_text.delta",
                json!({"item_id": id, "output_index": index, "content_index": 0,
                    "delta": piece, "logprobs": []}),
            );
        }
        script.responses(
            Kind::Other,
            "response.output_text.done",
            json!({"item_id": id, "output_index": index, "content_index": 0,
                "text": text, "logprobs": []}),
        );
        let part = json!({"type": "output_text", "text": text, "annotations": []});
        script.responses(
            Kind::Other,
            "response.content_part.done",
            json!({"item_id": id, "output_index": index, "content_index": 0,
                "part": part.clone()}),
        );
        let item = json!({"id": id, "type": "message", "status": "completed",
            "role": "assistant", "content": [part]});
        script.responses(
            Kind::Other,
            "response.output_item.done",
            json!({"output_index": index, "item": item.clone()}),
        );
        output.push(item);
    }
    for image in later {
        image_item(&mut script, &mut output, image);
    }
    for (call, (name, arguments)) in reply.tool_calls.iter().enumerate() {
        let (id, index) = (format!("fc_fixture_{call}"), output.len());
        script.responses(
            Kind::Delta,
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": id, "type": "function_call",
                "status": "in_progress", "call_id": call_id(call), "name": name,
                "arguments": ""}}),
        );
        for piece in argument_pieces(arguments) {
            script.responses(
                Kind::Delta,
                "response.function_call_arguments.delta",
                json!({"item_id": id, "output_index": index, "delta": piece}),
            );
        }
        script.responses(
            Kind::Other,
            "response.function_call_arguments.done",
            json!({"item_id": id, "output_index": index, "arguments": arguments}),
        );
        let item = json!({"id": id, "type": "function_call", "status": "completed",
            "call_id": call_id(call), "name": name, "arguments": arguments});
        script.responses(
            Kind::Other,
            "response.output_item.done",
            json!({"output_index": index, "item": item.clone()}),
        );
        output.push(item);
    }
    let usage = reply.usage.map_or(Value::Null, |(input, output)| {
        json!({
            "input_tokens": input,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input + output,
        })
    });
    script.responses(
        Kind::Other,
        "response.completed",
        json!({"response": response("completed", Value::Array(output), usage)}),
    );
    script
}

/// An `image_generation_call` output item, as the image generation tool sends it: added,
/// then done with its result.
fn image_item(script: &mut Script, output: &mut Vec<Value>, image: &ReplyImage) {
    let (id, index) = (format!("ig_fixture_{}", output.len()), output.len());
    let format = image.mime_type.strip_prefix("image/").unwrap_or("png");
    script.responses(
        Kind::Other,
        "response.output_item.added",
        json!({"output_index": index, "item": {"id": id, "type": "image_generation_call",
            "status": "in_progress"}}),
    );
    let item = json!({"id": id, "type": "image_generation_call", "status": "completed",
        "output_format": format, "result": image.data});
    script.responses(
        Kind::Delta,
        "response.output_item.done",
        json!({"output_index": index, "item": item.clone()}),
    );
    output.push(item);
}
