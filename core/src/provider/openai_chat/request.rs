//! The OpenAI Chat Completions request body (`/chat/completions`), for OpenAI and for
//! OpenAI-compatible servers (`max_tokens` and `chat_template_kwargs` instead of the
//! OpenAI-only fields).

use serde_json::{Map, Value, json};

use crate::provider::request::{
    ChatRequest, Context, Endpoint, Message, PartRef, answer_text, assistant_text_with_calls,
    insert_common, result_as_text,
};

/// The URL and body of a streamed request on `endpoint`, whose API root is `base`.
pub(crate) fn build(
    context: &mut Context,
    base: &str,
    endpoint: &Endpoint,
    request: &ChatRequest,
) -> (String, Value) {
    (
        format!("{base}/chat/completions"),
        body(context, endpoint, request),
    )
}

fn body(context: &mut Context, endpoint: &Endpoint, request: &ChatRequest) -> Value {
    let tools = context.tools_on(request);
    let mut messages = Vec::new();
    if let Some(system) = request.system.as_ref().filter(|s| !s.trim().is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        match message {
            Message::User { parts } => {
                let parts = context.user_parts(parts);
                let content = if parts.iter().all(|p| matches!(p, PartRef::Text(_))) {
                    json!(parts.iter().map(|p| match p { PartRef::Text(t) => *t, _ => "" }).collect::<Vec<_>>().join("\n"))
                } else {
                    Value::Array(
                        parts
                            .iter()
                            .map(|p| match p {
                                PartRef::Text(text) => json!({"type": "text", "text": text}),
                                PartRef::Image { mime_type, data } => json!({
                                    "type": "image_url",
                                    "image_url": {"url": format!("data:{mime_type};base64,{data}")}
                                }),
                            })
                            .collect(),
                    )
                };
                messages.push(json!({"role": "user", "content": content}));
            }
            Message::Assistant {
                text,
                tool_calls,
                images,
            } if tools && !tool_calls.is_empty() => {
                let text = answer_text(text, images);
                messages.push(json!({
                    "role": "assistant",
                    "content": if text.is_empty() { Value::Null } else { json!(text) },
                    "tool_calls": tool_calls.iter().map(|c| json!({
                        "id": c.id, "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments}
                    })).collect::<Vec<_>>(),
                }));
            }
            Message::Assistant {
                text,
                tool_calls,
                images,
            } => messages.push(
                json!({"role": "assistant", "content": assistant_text_with_calls(text, images, tool_calls)}),
            ),
            Message::Tool { call_id, content, .. } if tools => messages.push(
                json!({"role": "tool", "tool_call_id": call_id, "content": content}),
            ),
            Message::Tool { name, content, .. } => messages.push(
                json!({"role": "user", "content": result_as_text(name, content)}),
            ),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model.trim()));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    let max_key = if endpoint.compatible {
        "max_tokens"
    } else {
        "max_completion_tokens"
    };
    insert_common(&mut body, request, max_key);
    if tools {
        body.insert(
            "tools".into(),
            Value::Array(
                request
                    .tools
                    .iter()
                    .map(|t| {
                        json!({"type": "function", "function": {
                            "name": t.name, "description": t.description, "parameters": t.parameters
                        }})
                    })
                    .collect(),
            ),
        );
    }
    if let Some(effort) = context.effort(request) {
        body.insert("reasoning_effort".into(), json!(effort.as_str()));
        if endpoint.compatible {
            // llama.cpp ignores `reasoning_effort` and reads the template's kwargs.
            body.insert(
                "chat_template_kwargs".into(),
                json!({"reasoning_effort": effort.as_str()}),
            );
        }
    }
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::provider::Protocol;
    use crate::provider::build::build;
    use crate::provider::request::IMAGE_OMITTED;
    use crate::provider::request::fixtures::*;

    #[test]
    fn openai_chat_with_every_capability() {
        let built = build(
            &endpoint(Protocol::OpenAiChat, "https://api.openai.com/v1/", false),
            &conversation(),
            &FULL,
        )
        .unwrap();
        assert_eq!(built.url, "https://api.openai.com/v1/chat/completions");
        let body = &built.body;
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "Be brief."})
        );
        assert_eq!(body["messages"][1]["content"][1]["type"], "image_url");
        assert_eq!(
            body["messages"][1]["content"][1]["image_url"]["url"],
            "data:image/png;base64,iVBOR"
        );
        assert_eq!(
            body["messages"][2]["tool_calls"][0]["function"]["name"],
            "weather"
        );
        assert_eq!(
            body["messages"][3],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "18°C"})
        );
        assert_eq!(
            body["messages"][4],
            json!({"role": "user", "content": "And tomorrow?"})
        );
        assert_eq!(body["tools"][0]["function"]["name"], "weather");
        assert_eq!(body["reasoning_effort"], "high");
        assert!(
            body.get("chat_template_kwargs").is_none(),
            "OpenAI rejects unknown fields"
        );
        assert!((body["temperature"].as_f64().unwrap() - 0.3).abs() < 1e-6);
        assert_eq!(built.omitted_images, 0);
    }

    #[test]
    fn a_plain_model_gets_no_images_no_tools_and_no_effort() {
        let built = build(
            &endpoint(Protocol::OpenAiChat, "http://127.0.0.1:11434/v1", true),
            &conversation(),
            &PLAIN,
        )
        .unwrap();
        let body = &built.body;
        let text = body.to_string();
        assert!(!text.contains("image_url"), "{text}");
        assert!(body.get("tools").is_none());
        assert!(body.get("reasoning_effort").is_none());
        assert!(body.get("chat_template_kwargs").is_none());
        assert_eq!(built.omitted_images, 1);
        assert_eq!(
            body["messages"][1]["content"],
            format!("Weather in Paris? See photo.\n{IMAGE_OMITTED}")
        );
        assert_eq!(
            body["messages"][2]["content"],
            "Checking.\n[called tool weather with {\"city\":\"Paris\"}]"
        );
        assert_eq!(
            body["messages"][3]["role"], "user",
            "tool results become user text"
        );
        assert!(!text.contains("\"role\":\"tool\""));
    }

    #[test]
    fn compatible_servers_get_max_tokens_and_template_kwargs() {
        let mut request = conversation();
        request.max_output_tokens = Some(512);
        let built = build(
            &endpoint(Protocol::OpenAiChat, "http://127.0.0.1:8080/v1", true),
            &request,
            &FULL,
        )
        .unwrap();
        assert_eq!(built.body["max_tokens"], 512);
        assert!(built.body.get("max_completion_tokens").is_none());
        assert_eq!(
            built.body["chat_template_kwargs"]["reasoning_effort"],
            "high"
        );
        let official = build(
            &endpoint(Protocol::OpenAiChat, "https://api.openai.com/v1", false),
            &request,
            &FULL,
        )
        .unwrap();
        assert_eq!(official.body["max_completion_tokens"], 512);
    }
}
