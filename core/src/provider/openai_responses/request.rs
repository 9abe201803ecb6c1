//! The OpenAI Responses request body (`/responses`): instructions apart from the
//! input, nothing stored on the provider's side.

use serde_json::{Map, Value, json};

use crate::provider::request::{
    ChatRequest, Context, Endpoint, Message, PartRef, answer_text, assistant_text_with_calls,
    insert_common, result_as_text,
};

/// The URL and body of a streamed request on `endpoint`, whose API root is `base`.
pub(crate) fn build(
    context: &mut Context,
    base: &str,
    _endpoint: &Endpoint,
    request: &ChatRequest,
) -> (String, Value) {
    (format!("{base}/responses"), body(context, request))
}

fn body(context: &mut Context, request: &ChatRequest) -> Value {
    let tools = context.tools_on(request);
    let mut input = Vec::new();
    for message in &request.messages {
        match message {
            Message::User { parts } => {
                let content: Vec<Value> = context
                    .user_parts(parts)
                    .iter()
                    .map(|p| match p {
                        PartRef::Text(text) => json!({"type": "input_text", "text": text}),
                        PartRef::Image { mime_type, data } => json!({
                            "type": "input_image",
                            "image_url": format!("data:{mime_type};base64,{data}")
                        }),
                    })
                    .collect();
                input.push(json!({"role": "user", "content": content}));
            }
            Message::Assistant {
                text,
                tool_calls,
                images,
            } if tools => {
                let text = answer_text(text, images);
                if !text.is_empty() {
                    input.push(json!({"role": "assistant", "content": text}));
                }
                for call in tool_calls {
                    input.push(json!({"type": "function_call", "call_id": call.id,
                        "name": call.name, "arguments": call.arguments}));
                }
            }
            Message::Assistant {
                text,
                tool_calls,
                images,
            } => input.push(
                json!({"role": "assistant", "content": assistant_text_with_calls(text, images, tool_calls)}),
            ),
            Message::Tool { call_id, content, .. } if tools => input.push(
                json!({"type": "function_call_output", "call_id": call_id, "output": content}),
            ),
            Message::Tool { name, content, .. } => input.push(
                json!({"role": "user", "content": result_as_text(name, content)}),
            ),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model.trim()));
    body.insert("input".into(), Value::Array(input));
    body.insert("stream".into(), json!(true));
    // Conversations live in the browser; nothing is kept on the provider's side.
    body.insert("store".into(), json!(false));
    if let Some(system) = request.system.as_ref().filter(|s| !s.trim().is_empty()) {
        body.insert("instructions".into(), json!(system));
    }
    insert_common(&mut body, request, "max_output_tokens");
    let mut offered: Vec<Value> = Vec::new();
    if tools {
        offered.extend(request.tools.iter().map(|t| {
            json!({"type": "function", "name": t.name,
            "description": t.description, "parameters": t.parameters})
        }));
    }
    if request.web_search {
        offered.push(json!({"type": "web_search"}));
    }
    if !offered.is_empty() {
        body.insert("tools".into(), Value::Array(offered));
    }
    if let Some(effort) = context.effort(request) {
        body.insert(
            "reasoning".into(),
            json!({"effort": effort.as_str(), "summary": "auto"}),
        );
    }
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::provider::Protocol;
    use crate::provider::build::build;
    use crate::provider::request::fixtures::*;

    #[test]
    fn responses_api_shape() {
        let built = build(
            &endpoint(
                Protocol::OpenAiResponses,
                "https://api.openai.com/v1",
                false,
            ),
            &conversation(),
            &FULL,
        )
        .unwrap();
        assert_eq!(built.url, "https://api.openai.com/v1/responses");
        let body = &built.body;
        assert_eq!(body["instructions"], "Be brief.");
        assert_eq!(body["store"], false);
        assert_eq!(body["input"][0]["content"][1]["type"], "input_image");
        assert_eq!(body["input"][2]["type"], "function_call");
        assert_eq!(
            body["input"][3],
            json!({"type": "function_call_output", "call_id": "call_1", "output": "18°C"})
        );
        assert_eq!(body["tools"][0]["name"], "weather");
        assert_eq!(body["reasoning"]["effort"], "high");
    }
}
