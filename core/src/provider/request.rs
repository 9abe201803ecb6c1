//! Building one streamed model request per protocol, from a protocol-neutral
//! [`ChatRequest`] and what the model can do ([`ModelCapabilities`]).
//!
//! The rules every protocol shares:
//! - image parts go only to vision models; for others each image becomes a short text
//!   note (counted in [`BuiltRequest::omitted_images`] so the app can say so);
//! - tools go only to tool-capable models; for others earlier tool calls and results in
//!   the history are rendered as plain text, so the conversation still makes sense;
//! - reasoning effort is sent only when the user set it and the model reasons;
//! - temperature and output limits only when set (Anthropic requires `max_tokens`, so it
//!   gets the model's output limit or a default).
//!
//! Authentication is separate ([`auth_headers`]): the browser adds the user's key for a
//! direct call, the edge adds it for a relayed one, and no key ever goes into a URL.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::Protocol;

/// Output tokens asked of Anthropic when neither the request nor the model says.
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u64 = 8192;

/// What a model can do. Unknown limits are `None`, never zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCapabilities {
    /// Accepts image input.
    pub vision: bool,
    /// Accepts tool definitions.
    pub tools: bool,
    /// Has a reasoning mode whose effort can be set.
    pub reasoning: bool,
    /// Context window in tokens.
    pub context_window: Option<u64>,
    /// Maximum output tokens.
    pub max_output_tokens: Option<u64>,
}

/// How hard a reasoning model should think.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningEffort {
    /// Quick.
    Low,
    /// Balanced.
    Medium,
    /// Thorough.
    High,
}

impl ReasoningEffort {
    fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }

    /// A thinking budget in tokens, for protocols that take one.
    pub fn budget_tokens(self) -> u64 {
        match self {
            Self::Low => 2048,
            Self::Medium => 8192,
            Self::High => 24576,
        }
    }
}

/// A part of a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An inline image.
    Image {
        /// Its MIME type.
        mime_type: String,
        /// Base64 bytes.
        data: String,
    },
}

/// A tool call the assistant made earlier in the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PastToolCall {
    /// The call id the provider gave it.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The JSON arguments, as text.
    pub arguments: String,
}

/// One message of the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "role")]
pub enum Message {
    /// The user.
    User {
        /// Text and images.
        parts: Vec<Part>,
    },
    /// The model's earlier answer, with the tool calls it made.
    Assistant {
        /// The answer text.
        text: String,
        /// Calls made in that round.
        #[serde(default)]
        tool_calls: Vec<PastToolCall>,
    },
    /// The result of a tool call.
    Tool {
        /// The call this answers.
        call_id: String,
        /// The tool's name.
        name: String,
        /// The result text.
        content: String,
    },
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its arguments.
    pub parameters: Value,
}

/// A protocol-neutral request for one streamed round.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatRequest {
    /// The model id.
    pub model: String,
    /// The effective system prompt.
    pub system: Option<String>,
    /// The history, oldest first, ending with the new user message.
    pub messages: Vec<Message>,
    /// Tools offered this round.
    pub tools: Vec<ToolSpec>,
    /// Sampling temperature, when the user set one.
    pub temperature: Option<f32>,
    /// Output limit, when the user set one.
    pub max_output_tokens: Option<u64>,
    /// Reasoning effort, when the user set one.
    pub reasoning_effort: Option<ReasoningEffort>,
}

/// Where a provider lives and which dialect it speaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// The wire protocol.
    pub protocol: Protocol,
    /// The base URL as the user entered it (`https://api.openai.com/v1`,
    /// `http://127.0.0.1:11434/v1`, `https://api.anthropic.com`, …).
    pub base_url: String,
    /// An OpenAI-compatible server rather than OpenAI itself: gets `max_tokens` and
    /// `chat_template_kwargs` (llama.cpp reads effort there) instead of OpenAI-only fields.
    pub compatible: bool,
}

/// A request ready to send (without authentication).
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltRequest {
    /// The full URL.
    pub url: String,
    /// Headers besides authentication.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Value,
    /// Images replaced by a note because the model has no vision.
    pub omitted_images: usize,
}

/// A request that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// The base URL is not http(s).
    #[error("the provider URL must start with http:// or https://")]
    InvalidBaseUrl,
    /// The model id is empty or contains characters a URL path cannot carry safely.
    #[error("the model id `{0}` is not valid")]
    InvalidModel(String),
    /// There is nothing to send.
    #[error("the request has no messages")]
    NoMessages,
}

/// Text that stands in for an image sent to a model without vision.
const IMAGE_OMITTED: &str = "[image omitted: this model does not accept images]";

/// Builds the streamed request for `request` on `endpoint`.
pub fn build(
    endpoint: &Endpoint,
    request: &ChatRequest,
    capabilities: &ModelCapabilities,
) -> Result<BuiltRequest, RequestError> {
    let base = api_base(endpoint)?;
    let base = base.as_str();
    let model = request.model.trim();
    let model_ok = !model.is_empty()
        && model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/' | '@'));
    if !model_ok || model.contains("..") {
        return Err(RequestError::InvalidModel(request.model.clone()));
    }
    if request.messages.is_empty() {
        return Err(RequestError::NoMessages);
    }
    let mut context = Context {
        capabilities,
        omitted_images: 0,
    };
    let (url, body) = match endpoint.protocol {
        Protocol::OpenAiChat => (
            format!("{base}/chat/completions"),
            openai_chat(&mut context, endpoint, request),
        ),
        Protocol::OpenAiResponses => (
            format!("{base}/responses"),
            openai_responses(&mut context, request),
        ),
        Protocol::Anthropic => (format!("{base}/messages"), anthropic(&mut context, request)),
        Protocol::Gemini => {
            let model = model.strip_prefix("models/").unwrap_or(model);
            (
                format!("{base}/models/{model}:streamGenerateContent?alt=sse"),
                gemini(&mut context, request),
            )
        }
    };
    Ok(BuiltRequest {
        url,
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("accept".into(), "text/event-stream".into()),
        ],
        body,
        omitted_images: context.omitted_images,
    })
}

/// The versioned API root of `endpoint`, without a trailing slash. Anthropic's users
/// enter `https://api.anthropic.com` or `…/v1`; both mean the `/v1` root.
pub fn api_base(endpoint: &Endpoint) -> Result<String, RequestError> {
    let base = endpoint.base_url.trim().trim_end_matches('/');
    if !(base.starts_with("https://") || base.starts_with("http://")) || base.contains(['?', '#']) {
        return Err(RequestError::InvalidBaseUrl);
    }
    Ok(match endpoint.protocol {
        Protocol::Anthropic if !base.ends_with("/v1") => format!("{base}/v1"),
        _ => base.to_string(),
    })
}

/// The headers that carry `api_key` for `protocol`. Gemini's key goes in a header, not in
/// the `?key=` query parameter, so it never lands in a URL or a log. Anthropic also gets
/// the header that allows calls straight from a browser.
pub fn auth_headers(protocol: Protocol, api_key: &str) -> Vec<(String, String)> {
    match protocol {
        Protocol::OpenAiChat | Protocol::OpenAiResponses => {
            vec![("authorization".into(), format!("Bearer {api_key}"))]
        }
        Protocol::Anthropic => vec![
            ("x-api-key".into(), api_key.to_string()),
            ("anthropic-version".into(), "2023-06-01".into()),
            (
                "anthropic-dangerous-direct-browser-access".into(),
                "true".into(),
            ),
        ],
        Protocol::Gemini => vec![("x-goog-api-key".into(), api_key.to_string())],
    }
}

struct Context<'a> {
    capabilities: &'a ModelCapabilities,
    omitted_images: usize,
}

impl Context<'_> {
    fn tools_on(&self, request: &ChatRequest) -> bool {
        self.capabilities.tools && !request.tools.is_empty()
    }

    fn effort(&self, request: &ChatRequest) -> Option<ReasoningEffort> {
        request
            .reasoning_effort
            .filter(|_| self.capabilities.reasoning)
    }

    /// User parts with images replaced by a note when the model has no vision.
    fn user_parts<'p>(&mut self, parts: &'p [Part]) -> Vec<PartRef<'p>> {
        parts
            .iter()
            .map(|part| match part {
                Part::Text { text } => PartRef::Text(text),
                Part::Image { .. } if !self.capabilities.vision => {
                    self.omitted_images += 1;
                    PartRef::Text(IMAGE_OMITTED)
                }
                Part::Image { mime_type, data } => PartRef::Image { mime_type, data },
            })
            .collect()
    }
}

enum PartRef<'a> {
    Text(&'a str),
    Image { mime_type: &'a str, data: &'a str },
}

/// A past tool call as text, for models without tools.
fn call_as_text(call: &PastToolCall) -> String {
    format!("[called tool {} with {}]", call.name, call.arguments)
}

/// A tool result as text, for models without tools.
fn result_as_text(name: &str, content: &str) -> String {
    format!("[result of tool {name}]\n{content}")
}

fn assistant_text_with_calls(text: &str, calls: &[PastToolCall]) -> String {
    let mut all = text.to_string();
    for call in calls {
        if !all.is_empty() {
            all.push('\n');
        }
        all.push_str(&call_as_text(call));
    }
    all
}

fn insert_common(body: &mut Map<String, Value>, request: &ChatRequest, max_key: &str) {
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if let Some(max) = request.max_output_tokens {
        body.insert(max_key.into(), json!(max));
    }
}

fn openai_chat(context: &mut Context, endpoint: &Endpoint, request: &ChatRequest) -> Value {
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
            Message::Assistant { text, tool_calls } if tools && !tool_calls.is_empty() => {
                messages.push(json!({
                    "role": "assistant",
                    "content": if text.is_empty() { Value::Null } else { json!(text) },
                    "tool_calls": tool_calls.iter().map(|c| json!({
                        "id": c.id, "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments}
                    })).collect::<Vec<_>>(),
                }));
            }
            Message::Assistant { text, tool_calls } => messages.push(
                json!({"role": "assistant", "content": assistant_text_with_calls(text, tool_calls)}),
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

fn openai_responses(context: &mut Context, request: &ChatRequest) -> Value {
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
            Message::Assistant { text, tool_calls } if tools => {
                if !text.is_empty() {
                    input.push(json!({"role": "assistant", "content": text}));
                }
                for call in tool_calls {
                    input.push(json!({"type": "function_call", "call_id": call.id,
                        "name": call.name, "arguments": call.arguments}));
                }
            }
            Message::Assistant { text, tool_calls } => input.push(
                json!({"role": "assistant", "content": assistant_text_with_calls(text, tool_calls)}),
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
    if tools {
        body.insert(
            "tools".into(),
            Value::Array(
                request
                    .tools
                    .iter()
                    .map(|t| {
                        json!({"type": "function", "name": t.name,
                        "description": t.description, "parameters": t.parameters})
                    })
                    .collect(),
            ),
        );
    }
    if let Some(effort) = context.effort(request) {
        body.insert(
            "reasoning".into(),
            json!({"effort": effort.as_str(), "summary": "auto"}),
        );
    }
    Value::Object(body)
}

/// Appends `items` to the last turn when it has the same `role`, else opens a new turn
/// (`{"role": role, field: items}`): Anthropic and Gemini want roles to alternate.
fn push_turn(turns: &mut Vec<Value>, field: &str, role: &str, items: Vec<Value>) {
    match turns.last_mut() {
        Some(last) if last["role"] == role => {
            if let Some(existing) = last[field].as_array_mut() {
                existing.extend(items);
            }
        }
        _ => turns.push(json!({ "role": role, field: items })),
    }
}

fn anthropic(context: &mut Context, request: &ChatRequest) -> Value {
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
            Message::Assistant { text, tool_calls } if tools => {
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
            Message::Assistant { text, tool_calls } => push(
                "assistant",
                vec![json!({"type": "text", "text": assistant_text_with_calls(text, tool_calls)})],
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
    if tools {
        body.insert(
            "tools".into(),
            Value::Array(
                request
                    .tools
                    .iter()
                    .map(|t| {
                        json!({"name": t.name, "description": t.description,
                        "input_schema": t.parameters})
                    })
                    .collect(),
            ),
        );
    }
    Value::Object(body)
}

fn gemini(context: &mut Context, request: &ChatRequest) -> Value {
    let tools = context.tools_on(request);
    let mut contents: Vec<Value> = Vec::new();
    let mut push = |role: &str, parts: Vec<Value>| push_turn(&mut contents, "parts", role, parts);
    for message in &request.messages {
        match message {
            Message::User { parts } => {
                let parts = context
                    .user_parts(parts)
                    .iter()
                    .map(|p| match p {
                        PartRef::Text(text) => json!({"text": text}),
                        PartRef::Image { mime_type, data } => {
                            json!({"inlineData": {"mimeType": mime_type, "data": data}})
                        }
                    })
                    .collect();
                push("user", parts);
            }
            Message::Assistant { text, tool_calls } if tools => {
                let mut parts = Vec::new();
                if !text.is_empty() {
                    parts.push(json!({"text": text}));
                }
                for call in tool_calls {
                    let args: Value = serde_json::from_str(&call.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    parts.push(json!({"functionCall": {"name": call.name, "args": args}}));
                }
                push("model", parts);
            }
            Message::Assistant { text, tool_calls } => push(
                "model",
                vec![json!({"text": assistant_text_with_calls(text, tool_calls)})],
            ),
            Message::Tool { name, content, .. } if tools => push(
                "user",
                vec![json!({"functionResponse": {"name": name, "response": {"content": content}}})],
            ),
            Message::Tool { name, content, .. } => {
                push("user", vec![json!({"text": result_as_text(name, content)})])
            }
        }
    }
    let mut generation = Map::new();
    insert_common(&mut generation, request, "maxOutputTokens");
    if let Some(effort) = context.effort(request) {
        generation.insert(
            "thinkingConfig".into(),
            json!({"thinkingBudget": effort.budget_tokens(), "includeThoughts": true}),
        );
    }
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents));
    if let Some(system) = request.system.as_ref().filter(|s| !s.trim().is_empty()) {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}]}),
        );
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    if tools {
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": request.tools.iter().map(|t| json!({
                "name": t.name, "description": t.description, "parameters": t.parameters
            })).collect::<Vec<_>>()}]),
        );
    }
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(protocol: Protocol, base: &str, compatible: bool) -> Endpoint {
        Endpoint {
            protocol,
            base_url: base.to_string(),
            compatible,
        }
    }

    fn conversation() -> ChatRequest {
        ChatRequest {
            model: "m-1".into(),
            system: Some("Be brief.".into()),
            messages: vec![
                Message::User {
                    parts: vec![
                        Part::Text {
                            text: "Weather in Paris? See photo.".into(),
                        },
                        Part::Image {
                            mime_type: "image/png".into(),
                            data: "iVBOR".into(),
                        },
                    ],
                },
                Message::Assistant {
                    text: "Checking.".into(),
                    tool_calls: vec![PastToolCall {
                        id: "call_1".into(),
                        name: "weather".into(),
                        arguments: "{\"city\":\"Paris\"}".into(),
                    }],
                },
                Message::Tool {
                    call_id: "call_1".into(),
                    name: "weather".into(),
                    content: "18°C".into(),
                },
                Message::User {
                    parts: vec![Part::Text {
                        text: "And tomorrow?".into(),
                    }],
                },
            ],
            tools: vec![ToolSpec {
                name: "weather".into(),
                description: "Current weather".into(),
                parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
            }],
            temperature: Some(0.3),
            max_output_tokens: None,
            reasoning_effort: Some(ReasoningEffort::High),
        }
    }

    const FULL: ModelCapabilities = ModelCapabilities {
        vision: true,
        tools: true,
        reasoning: true,
        context_window: Some(200_000),
        max_output_tokens: Some(64_000),
    };
    const PLAIN: ModelCapabilities = ModelCapabilities {
        vision: false,
        tools: false,
        reasoning: false,
        context_window: None,
        max_output_tokens: None,
    };

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

    #[test]
    fn effort_is_only_sent_when_the_user_set_it() {
        let mut request = conversation();
        request.reasoning_effort = None;
        for protocol in [
            Protocol::OpenAiChat,
            Protocol::OpenAiResponses,
            Protocol::Anthropic,
            Protocol::Gemini,
        ] {
            let built = build(
                &endpoint(protocol, "https://x.example/v1", true),
                &request,
                &FULL,
            )
            .unwrap();
            let text = built.body.to_string();
            for needle in ["reasoning", "thinking", "effort"] {
                assert!(!text.contains(needle), "{protocol:?} sent {needle}: {text}");
            }
        }
    }

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

    #[test]
    fn gemini_shape() {
        let mut request = conversation();
        request.model = "models/gemini-2.5-flash".into();
        let built = build(
            &endpoint(
                Protocol::Gemini,
                "https://generativelanguage.googleapis.com/v1beta",
                false,
            ),
            &request,
            &FULL,
        )
        .unwrap();
        assert_eq!(
            built.url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert!(!built.url.contains("key="), "keys never go in URLs");
        let body = &built.body;
        assert_eq!(body["systemInstruction"]["parts"][0]["text"], "Be brief.");
        assert_eq!(
            body["contents"][0]["parts"][1]["inlineData"]["mimeType"],
            "image/png"
        );
        assert_eq!(body["contents"][1]["role"], "model");
        assert_eq!(
            body["contents"][1]["parts"][1]["functionCall"]["args"]["city"],
            "Paris"
        );
        assert_eq!(
            body["contents"][2]["parts"][0]["functionResponse"]["name"],
            "weather"
        );
        assert_eq!(
            body["generationConfig"]["thinkingConfig"]["includeThoughts"],
            true
        );
        assert_eq!(
            body["tools"][0]["functionDeclarations"][0]["name"],
            "weather"
        );
    }

    #[test]
    fn invalid_inputs_are_typed_errors() {
        let request = conversation();
        assert_eq!(
            build(
                &endpoint(Protocol::OpenAiChat, "ftp://x", false),
                &request,
                &FULL
            ),
            Err(RequestError::InvalidBaseUrl)
        );
        for model in ["", "a b", "../../admin", "m?key=1", "m#x"] {
            let mut bad = conversation();
            bad.model = model.into();
            assert!(
                matches!(
                    build(&endpoint(Protocol::Gemini, "https://x", false), &bad, &FULL),
                    Err(RequestError::InvalidModel(_))
                ),
                "{model:?}"
            );
        }
        let mut empty = conversation();
        empty.messages.clear();
        assert_eq!(
            build(
                &endpoint(Protocol::OpenAiChat, "https://x", false),
                &empty,
                &FULL
            ),
            Err(RequestError::NoMessages)
        );
    }

    #[test]
    fn auth_headers_per_protocol() {
        assert_eq!(
            auth_headers(Protocol::OpenAiChat, "sk-1"),
            vec![("authorization".to_string(), "Bearer sk-1".to_string())]
        );
        let anthropic = auth_headers(Protocol::Anthropic, "sk-ant");
        assert!(anthropic.contains(&("x-api-key".into(), "sk-ant".into())));
        assert!(
            anthropic
                .iter()
                .any(|(k, _)| k == "anthropic-dangerous-direct-browser-access")
        );
        assert_eq!(
            auth_headers(Protocol::Gemini, "g"),
            vec![("x-goog-api-key".to_string(), "g".to_string())]
        );
    }
}
