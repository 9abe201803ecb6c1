//! The Anthropic Messages request body (`/messages`): alternating roles with tool
//! results inside user turns, a thinking budget for reasoning, and always `max_tokens`.

use serde_json::{Map, Value, json};

use crate::provider::request::{
    ChatRequest, Context, Endpoint, Message, PartRef, answer_text, assistant_text_with_calls,
    push_turn, result_as_text,
};

/// Output tokens asked of Anthropic when neither the request nor the model says.
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u64 = 8192;

/// The URL and body of a streamed request on `endpoint`, whose API root is `base`.
pub(crate) fn build(
    context: &mut Context,
    base: &str,
    _endpoint: &Endpoint,
    request: &ChatRequest,
) -> (String, Value) {
    (format!("{base}/messages"), body(context, request))
}

/// Anthropic's server-side web search tool, by its versioned type.
const WEB_SEARCH_TOOL: &str = "web_search_20250305";

fn body(context: &mut Context, request: &ChatRequest) -> Value {
    let tools = context.tools_on(request);
    let mut messages: Vec<Value> = Vec::new();
    // Anthropic wants alternating roles, with tool results inside a user turn.
    let mut push =
        |role: &str, blocks: Vec<Value>| push_turn(&mut messages, "content", role, blocks);
    for message in &request.messages {
        match message {
            Message::User { parts } => {
                let blocks = context
                    .user_parts(parts)
                    .iter()
                    .map(|p| match p {
                        PartRef::Text(text) => json!({"type": "text", "text": text}),
                        PartRef::Image { mime_type, data } => json!({"type": "image",
                            "source": {"type": "base64", "media_type": mime_type, "data": data}}),
                    })
                    .collect();
                push("user", blocks);
            }
            Message::Assistant {
                text,
                tool_calls,
                images,
            } if tools => {
                let text = answer_text(text, images);
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for call in tool_calls {
                    let input: Value = serde_json::from_str(&call.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}));
                }
                push("assistant", blocks);
            }
            Message::Assistant {
                text,
                tool_calls,
                images,
            } => push(
                "assistant",
                vec![
                    json!({"type": "text", "text": assistant_text_with_calls(text, images, tool_calls)}),
                ],
            ),
            Message::Tool {
                call_id, content, ..
            } if tools => push(
                "user",
                vec![json!({"type": "tool_result", "tool_use_id": call_id, "content": content})],
            ),
            Message::Tool { name, content, .. } => push(
                "user",
                vec![json!({"type": "text", "text": result_as_text(name, content)})],
            ),
        }
    }
    let effort = context.effort(request);
    let mut max_tokens = request
        .max_output_tokens
        .or(context.capabilities.max_output_tokens)
        .unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS);
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model.trim()));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    if let Some(system) = request.system.as_ref().filter(|s| !s.trim().is_empty()) {
        body.insert("system".into(), json!(system));
    }
    if let Some(effort) = effort {
        let budget = effort.budget_tokens();
        // The thinking budget counts against max_tokens and must leave room for the answer.
        max_tokens = max_tokens.max(budget + 1024);
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    } else if let Some(temperature) = request.temperature {
        // Extended thinking only accepts the default temperature.
        body.insert("temperature".into(), json!(temperature));
    }
    body.insert("max_tokens".into(), json!(max_tokens));
    let mut offered: Vec<Value> = Vec::new();
    if tools {
        offered.extend(request.tools.iter().map(|t| {
            json!({"name": t.name, "description": t.description,
            "input_schema": t.parameters})
        }));
    }
    if request.web_search {
        offered.push(json!({"type": WEB_SEARCH_TOOL, "name": "web_search",
            "max_uses": crate::web_search::policy::MAX_QUERIES_PER_TURN}));
    }
    if !offered.is_empty() {
        body.insert("tools".into(), Value::Array(offered));
    }
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use super::ANTHROPIC_DEFAULT_MAX_TOKENS;
    use crate::provider::Protocol;
    use crate::provider::build::build;
    use crate::provider::request::fixtures::*;

    #[test]
    fn anthropic_shape_with_thinking_and_tool_results_in_user_turns() {
        let built = build(
            &endpoint(Protocol::Anthropic, "https://api.anthropic.com", false),
            &conversation(),
            &FULL,
        )
        .unwrap();
        assert_eq!(built.url, "https://api.anthropic.com/v1/messages");
        let body = &built.body;
        assert_eq!(body["system"], "Be brief.");
        assert_eq!(
            body["messages"][0]["content"][1]["source"]["media_type"],
            "image/png"
        );
        assert_eq!(body["messages"][1]["content"][1]["type"], "tool_use");
        assert_eq!(body["messages"][1]["content"][1]["input"]["city"], "Paris");
        // The tool result and the next question share one user turn.
        assert_eq!(body["messages"][2]["role"], "user");
        assert_eq!(body["messages"][2]["content"][0]["type"], "tool_result");
        assert_eq!(body["messages"][2]["content"][1]["text"], "And tomorrow?");
        assert_eq!(body["messages"].as_array().unwrap().len(), 3);
        assert_eq!(body["thinking"]["budget_tokens"], 24576);
        assert!(
            body.get("temperature").is_none(),
            "thinking requires the default temperature"
        );
        assert_eq!(body["max_tokens"], 64_000);
        assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
    }

    #[test]
    fn anthropic_always_has_max_tokens() {
        let mut request = conversation();
        request.reasoning_effort = None;
        let built = build(
            &endpoint(Protocol::Anthropic, "https://api.anthropic.com/v1/", false),
            &request,
            &PLAIN,
        )
        .unwrap();
        assert_eq!(built.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(built.body["max_tokens"], ANTHROPIC_DEFAULT_MAX_TOKENS);
        assert!(built.body.get("temperature").is_some());
    }
}
