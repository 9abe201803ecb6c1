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
//! This module holds the protocol-neutral types and what the protocols share; the
//! dispatch is `provider::build`, and each protocol's body is built beside its stream parser
//! (`openai_chat::request`, `openai_responses::request`, `anthropic::request`,
//! `gemini::request`).
//!
//! Authentication is separate ([`auth_headers`]): the browser adds the user's key for a
//! direct call, the edge adds it for a relayed one, and no key ever goes into a URL.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::Protocol;

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
    pub(crate) fn as_str(self) -> &'static str {
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
    /// The provider's opaque token sent back with the call (Gemini's
    /// `thoughtSignature`; empty: none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
}

/// An image the model itself sent inside an earlier answer, at its place. Gemini takes it
/// back as the answer's image part (with its signature); every other protocol's answers
/// are text only, so there it is [`ANSWER_IMAGE_NOT_SENT`] (or the note `part` is).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PastImage {
    /// The byte offset of the answer's text it followed.
    pub at: u32,
    /// The image, or the note standing in for it (its bytes are gone, or it was a link).
    pub part: Part,
    /// The provider's opaque token sent back with the image (Gemini's
    /// `thoughtSignature`; empty: none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
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
        /// The images it sent inside its text, in order of place.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<PastImage>,
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
    /// The provider searches the web with its own tool this round (only where the
    /// protocol has one: `Protocol::searches_itself`); the pages it uses arrive as
    /// sources.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub web_search: bool,
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

/// Text that stands in for an image sent to a model without vision (also for an attached
/// image the app did not load for such a model, `chat::request`).
pub const IMAGE_OMITTED: &str = "[image omitted: this model does not accept images]";

/// Text that stands in for an image the model sent inside an earlier answer, where the
/// protocol's answers cannot carry one.
pub const ANSWER_IMAGE_NOT_SENT: &str = "[an image shown with this answer, not included here]";

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

/// What a protocol's body builder needs besides the request: the model's capabilities,
/// and a count of the images it had to leave out.
pub(crate) struct Context<'a> {
    pub(crate) capabilities: &'a ModelCapabilities,
    pub(crate) omitted_images: usize,
}

impl Context<'_> {
    pub(crate) fn tools_on(&self, request: &ChatRequest) -> bool {
        self.capabilities.tools && !request.tools.is_empty()
    }

    pub(crate) fn effort(&self, request: &ChatRequest) -> Option<ReasoningEffort> {
        request
            .reasoning_effort
            .filter(|_| self.capabilities.reasoning)
    }

    /// User parts with images replaced by a note when the model has no vision.
    pub(crate) fn user_parts<'p>(&mut self, parts: &'p [Part]) -> Vec<PartRef<'p>> {
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

/// A user part as a protocol sends it (an image the model cannot see is already a note).
pub(crate) enum PartRef<'a> {
    Text(&'a str),
    Image { mime_type: &'a str, data: &'a str },
}

/// A past tool call as text, for models without tools.
pub(crate) fn call_as_text(call: &PastToolCall) -> String {
    format!("[called tool {} with {}]", call.name, call.arguments)
}

/// A tool result as text, for models without tools.
pub(crate) fn result_as_text(name: &str, content: &str) -> String {
    format!("[result of tool {name}]\n{content}")
}

/// A piece of an earlier answer, in order: a stretch of its text, or an image it sent.
pub(crate) enum AnswerPiece<'a> {
    Text(&'a str),
    Image(&'a PastImage),
}

/// The answer `text` cut around its `images`, in order of place. An offset past the end
/// or inside a character moves back to the nearest character boundary; empty stretches
/// are left out.
pub(crate) fn answer_pieces<'a>(text: &'a str, images: &'a [PastImage]) -> Vec<AnswerPiece<'a>> {
    let mut placed: Vec<(usize, &PastImage)> = images
        .iter()
        .map(|image| {
            let mut at = (image.at as usize).min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            (at, image)
        })
        .collect();
    placed.sort_by_key(|(at, _)| *at);
    let mut pieces = Vec::new();
    let mut from = 0;
    for (at, image) in placed {
        if at > from {
            pieces.push(AnswerPiece::Text(&text[from..at]));
        }
        pieces.push(AnswerPiece::Image(image));
        from = at;
    }
    if from < text.len() {
        pieces.push(AnswerPiece::Text(&text[from..]));
    }
    pieces
}

/// An earlier answer as text only: each image it sent is its note, or
/// [`ANSWER_IMAGE_NOT_SENT`] (for protocols whose answers carry no image).
pub(crate) fn answer_text<'a>(text: &'a str, images: &[PastImage]) -> std::borrow::Cow<'a, str> {
    if images.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + images.len() * 64);
    for piece in answer_pieces(text, images) {
        match piece {
            AnswerPiece::Text(stretch) => out.push_str(stretch),
            AnswerPiece::Image(image) => {
                if !out.is_empty() && !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(match &image.part {
                    Part::Text { text } => text,
                    Part::Image { .. } => ANSWER_IMAGE_NOT_SENT,
                });
                out.push('\n');
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// An assistant turn's text with its tool calls written out, for models without tools.
pub(crate) fn assistant_text_with_calls(
    text: &str,
    images: &[PastImage],
    calls: &[PastToolCall],
) -> String {
    let mut all = answer_text(text, images).into_owned();
    for call in calls {
        if !all.is_empty() {
            all.push('\n');
        }
        all.push_str(&call_as_text(call));
    }
    all
}

/// Inserts the temperature and the output limit (under `max_key`) when the request sets them.
pub(crate) fn insert_common(body: &mut Map<String, Value>, request: &ChatRequest, max_key: &str) {
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if let Some(max) = request.max_output_tokens {
        body.insert(max_key.into(), json!(max));
    }
}

/// Appends `items` to the last turn when it has the same `role`, else opens a new turn
/// (`{"role": role, field: items}`): Anthropic and Gemini want roles to alternate.
pub(crate) fn push_turn(turns: &mut Vec<Value>, field: &str, role: &str, items: Vec<Value>) {
    match turns.last_mut() {
        Some(last) if last["role"] == role => {
            if let Some(existing) = last[field].as_array_mut() {
                existing.extend(items);
            }
        }
        _ => turns.push(json!({ "role": role, field: items })),
    }
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! A conversation and model capabilities every protocol's request tests build from.

    use super::*;

    pub(crate) fn endpoint(protocol: Protocol, base: &str, compatible: bool) -> Endpoint {
        Endpoint {
            protocol,
            base_url: base.to_string(),
            compatible,
        }
    }

    pub(crate) fn conversation() -> ChatRequest {
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
                    images: Vec::new(),
                    text: "Checking.".into(),
                    tool_calls: vec![PastToolCall {
                        id: "call_1".into(),
                        name: "weather".into(),
                        arguments: "{\"city\":\"Paris\"}".into(),
                        signature: "c2lnLTE=".into(),
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
            web_search: false,
        }
    }

    pub(crate) const FULL: ModelCapabilities = ModelCapabilities {
        vision: true,
        tools: true,
        reasoning: true,
        context_window: Some(200_000),
        max_output_tokens: Some(64_000),
    };
    pub(crate) const PLAIN: ModelCapabilities = ModelCapabilities {
        vision: false,
        tools: false,
        reasoning: false,
        context_window: None,
        max_output_tokens: None,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

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
