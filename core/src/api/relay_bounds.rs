//! The bounds on a relayed round (`POST /api/chat/relay`): every field of a
//! [`RelayRequest`] has a finite limit, checked before the edge builds anything, and a
//! value past it is refused with the field's path and the limit (a typed 400).

use serde::Serialize;
use serde_json::Value;

use super::relay::{RelayProvider, RelayRequest};
use crate::provider::request::{ChatRequest, Message, ModelCapabilities, Part};

/// Longest model id, in characters.
pub const MAX_MODEL_CHARS: usize = 300;
/// Most messages in one round's history.
pub const MAX_MESSAGES: usize = 5_000;
/// Longest text of one message (each part, answer or tool result), in characters.
pub const MAX_MESSAGE_CHARS: usize = 200_000;
/// Longest system prompt, in characters.
pub const MAX_SYSTEM_CHARS: usize = 200_000;
/// Most parts in one user message.
pub const MAX_PARTS: usize = 64;
/// Longest MIME type of an image part.
pub const MAX_MIME_CHARS: usize = 100;
/// Most tools offered in one round (the app offers at most 64).
pub const MAX_TOOLS: usize = 128;
/// Longest tool name, in characters (providers allow 64).
pub const MAX_TOOL_NAME_CHARS: usize = 64;
/// Longest tool description, in characters.
pub const MAX_TOOL_DESCRIPTION_CHARS: usize = 16_000;
/// Largest tool parameter schema, in bytes of JSON.
pub const MAX_TOOL_SCHEMA_BYTES: usize = 64 * 1024;
/// Most tool calls one earlier answer carries.
pub const MAX_PAST_CALLS: usize = 64;
/// Longest provider token of an earlier tool call (Gemini's `thoughtSignature`, base64),
/// in characters.
pub const MAX_SIGNATURE_CHARS: usize = crate::provider::tool_calls::MAX_SIGNATURE_BYTES;
/// Longest tool call id, in characters.
pub const MAX_CALL_ID_CHARS: usize = 256;
/// Longest arguments of an earlier tool call, in characters.
pub const MAX_ARGUMENT_CHARS: usize = 256 * 1024;
/// Highest sampling temperature (every provider's range is within 0 to 2).
pub const MAX_TEMPERATURE: f32 = 2.0;
/// Highest output limit, in tokens.
pub const MAX_OUTPUT_TOKENS: u64 = 1 << 20;
/// Largest context window a model may declare, in tokens.
pub const MAX_CONTEXT_WINDOW: u64 = 100_000_000;
/// Longest base URL, in characters.
pub const MAX_URL_CHARS: usize = 2_048;
/// Longest server provider id, in characters.
pub const MAX_PROVIDER_ID_CHARS: usize = 128;

/// A field past its bound.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
#[serde(rename_all = "camelCase")]
#[error("`{field}` {problem}")]
pub struct BoundError {
    /// Where, as a path (`request.messages[3].text`).
    pub field: String,
    /// What is wrong (`is longer than 300 characters`).
    pub problem: String,
}

fn longer(field: impl Into<String>, text: &str, max: usize) -> Result<(), BoundError> {
    // A byte count bounds the character count from above: count only when it may exceed.
    if text.len() > max && text.chars().count() > max {
        return Err(BoundError {
            field: field.into(),
            problem: format!("is longer than {max} characters"),
        });
    }
    Ok(())
}

fn more(field: impl Into<String>, count: usize, max: usize) -> Result<(), BoundError> {
    if count > max {
        return Err(BoundError {
            field: field.into(),
            problem: format!("has more than {max} entries"),
        });
    }
    Ok(())
}

fn above(field: &str, value: Option<u64>, min: u64, max: u64) -> Result<(), BoundError> {
    match value {
        Some(value) if !(min..=max).contains(&value) => Err(BoundError {
            field: field.into(),
            problem: format!("must be between {min} and {max}"),
        }),
        _ => Ok(()),
    }
}

impl RelayRequest {
    /// Checks every bound; the first field past its limit is the error.
    pub fn check_bounds(&self) -> Result<(), BoundError> {
        check_provider(&self.provider)?;
        check_request(&self.request)?;
        check_capabilities(&self.capabilities)
    }
}

/// The provider part of a relay or model-list request.
pub fn check_provider(provider: &RelayProvider) -> Result<(), BoundError> {
    if let Some(id) = &provider.server_provider_id {
        longer("provider.serverProviderId", id, MAX_PROVIDER_ID_CHARS)?;
    }
    longer("provider.baseUrl", &provider.base_url, MAX_URL_CHARS)
}

fn check_capabilities(capabilities: &ModelCapabilities) -> Result<(), BoundError> {
    above(
        "capabilities.contextWindow",
        capabilities.context_window,
        1,
        MAX_CONTEXT_WINDOW,
    )?;
    above(
        "capabilities.maxOutputTokens",
        capabilities.max_output_tokens,
        1,
        MAX_OUTPUT_TOKENS,
    )
}

fn check_request(request: &ChatRequest) -> Result<(), BoundError> {
    if request.model.trim().is_empty() {
        return Err(BoundError {
            field: "request.model".into(),
            problem: "is empty".into(),
        });
    }
    longer("request.model", &request.model, MAX_MODEL_CHARS)?;
    if let Some(system) = &request.system {
        longer("request.system", system, MAX_SYSTEM_CHARS)?;
    }
    if let Some(temperature) = request.temperature
        && !(temperature.is_finite() && (0.0..=MAX_TEMPERATURE).contains(&temperature))
    {
        return Err(BoundError {
            field: "request.temperature".into(),
            problem: format!("must be between 0 and {MAX_TEMPERATURE}"),
        });
    }
    above(
        "request.maxOutputTokens",
        request.max_output_tokens,
        1,
        MAX_OUTPUT_TOKENS,
    )?;
    more("request.tools", request.tools.len(), MAX_TOOLS)?;
    for (i, tool) in request.tools.iter().enumerate() {
        longer(
            format!("request.tools[{i}].name"),
            &tool.name,
            MAX_TOOL_NAME_CHARS,
        )?;
        longer(
            format!("request.tools[{i}].description"),
            &tool.description,
            MAX_TOOL_DESCRIPTION_CHARS,
        )?;
        check_schema(i, &tool.parameters)?;
    }
    more("request.messages", request.messages.len(), MAX_MESSAGES)?;
    for (i, message) in request.messages.iter().enumerate() {
        check_message(i, message)?;
    }
    Ok(())
}

fn check_schema(i: usize, schema: &Value) -> Result<(), BoundError> {
    let size = serde_json::to_vec(schema).map_or(usize::MAX, |bytes| bytes.len());
    if size > MAX_TOOL_SCHEMA_BYTES {
        return Err(BoundError {
            field: format!("request.tools[{i}].parameters"),
            problem: format!("is larger than {MAX_TOOL_SCHEMA_BYTES} bytes"),
        });
    }
    Ok(())
}

/// One part of a message (a question's, or an image of an earlier answer) at `field`.
fn check_part(field: &str, part: &Part) -> Result<(), BoundError> {
    match part {
        Part::Text { text } => longer(format!("{field}.text"), text, MAX_MESSAGE_CHARS),
        Part::Image { mime_type, .. } => {
            longer(format!("{field}.mimeType"), mime_type, MAX_MIME_CHARS)?;
            if mime_type.starts_with("image/") {
                Ok(())
            } else {
                Err(BoundError {
                    field: format!("{field}.mimeType"),
                    problem: "is not an image type".into(),
                })
            }
        }
    }
}

fn check_message(i: usize, message: &Message) -> Result<(), BoundError> {
    let at = |field: &str| format!("request.messages[{i}].{field}");
    match message {
        Message::User { parts } => {
            more(at("parts"), parts.len(), MAX_PARTS)?;
            for (p, part) in parts.iter().enumerate() {
                check_part(&at(&format!("parts[{p}]")), part)?;
            }
        }
        Message::Assistant {
            text,
            tool_calls,
            images,
        } => {
            longer(at("text"), text, MAX_MESSAGE_CHARS)?;
            more(at("images"), images.len(), MAX_PARTS)?;
            for (m, image) in images.iter().enumerate() {
                check_part(&at(&format!("images[{m}].part")), &image.part)?;
                longer(
                    at(&format!("images[{m}].signature")),
                    &image.signature,
                    MAX_SIGNATURE_CHARS,
                )?;
            }
            more(at("toolCalls"), tool_calls.len(), MAX_PAST_CALLS)?;
            for (c, call) in tool_calls.iter().enumerate() {
                longer(
                    at(&format!("toolCalls[{c}].id")),
                    &call.id,
                    MAX_CALL_ID_CHARS,
                )?;
                longer(
                    at(&format!("toolCalls[{c}].name")),
                    &call.name,
                    MAX_TOOL_NAME_CHARS,
                )?;
                longer(
                    at(&format!("toolCalls[{c}].arguments")),
                    &call.arguments,
                    MAX_ARGUMENT_CHARS,
                )?;
                longer(
                    at(&format!("toolCalls[{c}].signature")),
                    &call.signature,
                    MAX_SIGNATURE_CHARS,
                )?;
            }
        }
        Message::Tool {
            call_id,
            name,
            content,
        } => {
            longer(at("callId"), call_id, MAX_CALL_ID_CHARS)?;
            longer(at("name"), name, MAX_TOOL_NAME_CHARS)?;
            longer(at("content"), content, MAX_MESSAGE_CHARS)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Protocol;
    use crate::provider::request::{PastImage, PastToolCall, ToolSpec};
    use serde_json::json;

    fn request() -> RelayRequest {
        RelayRequest {
            provider: RelayProvider {
                server_provider_id: None,
                protocol: Protocol::OpenAiChat,
                base_url: "https://api.example.com/v1".into(),
                compatible: false,
                api_key: None,
            },
            request: ChatRequest {
                model: "gpt-test".into(),
                system: Some("Be brief.".into()),
                messages: vec![
                    Message::User {
                        parts: vec![Part::Text { text: "Hi".into() }],
                    },
                    Message::Assistant {
                        text: "Hello".into(),
                        tool_calls: vec![PastToolCall {
                            id: "call_1".into(),
                            name: "lookup".into(),
                            arguments: "{}".into(),
                            signature: String::new(),
                        }],
                        images: vec![],
                    },
                    Message::Tool {
                        call_id: "call_1".into(),
                        name: "lookup".into(),
                        content: "42".into(),
                    },
                ],
                tools: vec![ToolSpec {
                    name: "lookup".into(),
                    description: "Looks up".into(),
                    parameters: json!({"type": "object"}),
                }],
                temperature: Some(0.7),
                max_output_tokens: Some(1024),
                reasoning_effort: None,
                web_search: false,
            },
            capabilities: ModelCapabilities::default(),
        }
    }

    fn past_image(mime_type: &str, signature: &str) -> PastImage {
        PastImage {
            at: 0,
            part: Part::Image {
                mime_type: mime_type.into(),
                data: "iVBOR".into(),
            },
            signature: signature.into(),
        }
    }

    fn field_of(request: &RelayRequest) -> String {
        request.check_bounds().unwrap_err().field
    }

    #[test]
    fn an_ordinary_round_is_within_bounds() {
        assert_eq!(request().check_bounds(), Ok(()));
        let mut edge = request();
        edge.request.model = "m".repeat(MAX_MODEL_CHARS);
        edge.request.temperature = Some(MAX_TEMPERATURE);
        // Multi-byte text is counted in characters, not bytes.
        edge.request.messages[0] = Message::User {
            parts: vec![Part::Text {
                text: "語".repeat(MAX_MESSAGE_CHARS),
            }],
        };
        assert_eq!(edge.check_bounds(), Ok(()));
    }

    #[test]
    fn every_field_past_its_bound_is_named() {
        type Change = Box<dyn Fn(&mut RelayRequest)>;
        let cases: Vec<(&str, Change)> = vec![
            (
                "request.model",
                Box::new(|r| r.request.model = "m".repeat(MAX_MODEL_CHARS + 1)),
            ),
            ("request.model", Box::new(|r| r.request.model = " ".into())),
            (
                "request.system",
                Box::new(|r| r.request.system = Some("s".repeat(MAX_SYSTEM_CHARS + 1))),
            ),
            (
                "request.temperature",
                Box::new(|r| r.request.temperature = Some(2.5)),
            ),
            (
                "request.temperature",
                Box::new(|r| r.request.temperature = Some(-0.1)),
            ),
            (
                "request.temperature",
                Box::new(|r| r.request.temperature = Some(f32::NAN)),
            ),
            (
                "request.maxOutputTokens",
                Box::new(|r| r.request.max_output_tokens = Some(0)),
            ),
            (
                "request.maxOutputTokens",
                Box::new(|r| r.request.max_output_tokens = Some(MAX_OUTPUT_TOKENS + 1)),
            ),
            (
                "request.messages",
                Box::new(|r| {
                    let one = r.request.messages[0].clone();
                    r.request.messages = vec![one; MAX_MESSAGES + 1];
                }),
            ),
            (
                "request.messages[0].parts[0].text",
                Box::new(|r| {
                    r.request.messages[0] = Message::User {
                        parts: vec![Part::Text {
                            text: "x".repeat(MAX_MESSAGE_CHARS + 1),
                        }],
                    }
                }),
            ),
            (
                "request.messages[0].parts",
                Box::new(|r| {
                    r.request.messages[0] = Message::User {
                        parts: vec![Part::Text { text: "x".into() }; MAX_PARTS + 1],
                    }
                }),
            ),
            (
                "request.messages[0].parts[0].mimeType",
                Box::new(|r| {
                    r.request.messages[0] = Message::User {
                        parts: vec![Part::Image {
                            mime_type: "text/html".into(),
                            data: String::new(),
                        }],
                    }
                }),
            ),
            (
                "request.messages[1].text",
                Box::new(|r| {
                    r.request.messages[1] = Message::Assistant {
                        text: "x".repeat(MAX_MESSAGE_CHARS + 1),
                        tool_calls: vec![],
                        images: vec![],
                    }
                }),
            ),
            (
                "request.messages[1].images",
                Box::new(|r| {
                    r.request.messages[1] = Message::Assistant {
                        text: String::new(),
                        tool_calls: vec![],
                        images: vec![past_image("image/png", ""); MAX_PARTS + 1],
                    }
                }),
            ),
            (
                "request.messages[1].images[1].part.mimeType",
                Box::new(|r| {
                    r.request.messages[1] = Message::Assistant {
                        text: String::new(),
                        tool_calls: vec![],
                        images: vec![past_image("image/png", ""), past_image("text/html", "")],
                    }
                }),
            ),
            (
                "request.messages[1].images[0].part.text",
                Box::new(|r| {
                    r.request.messages[1] = Message::Assistant {
                        text: String::new(),
                        tool_calls: vec![],
                        images: vec![PastImage {
                            at: 0,
                            part: Part::Text {
                                text: "x".repeat(MAX_MESSAGE_CHARS + 1),
                            },
                            signature: String::new(),
                        }],
                    }
                }),
            ),
            (
                "request.messages[1].images[0].signature",
                Box::new(|r| {
                    r.request.messages[1] = Message::Assistant {
                        text: String::new(),
                        tool_calls: vec![],
                        images: vec![past_image(
                            "image/png",
                            &"x".repeat(MAX_SIGNATURE_CHARS + 1),
                        )],
                    }
                }),
            ),
            (
                "request.messages[1].toolCalls[0].arguments",
                Box::new(|r| {
                    r.request.messages[1] = Message::Assistant {
                        text: String::new(),
                        tool_calls: vec![PastToolCall {
                            id: "c".into(),
                            name: "n".into(),
                            arguments: "x".repeat(MAX_ARGUMENT_CHARS + 1),
                            signature: String::new(),
                        }],
                        images: vec![],
                    }
                }),
            ),
            (
                "request.messages[1].toolCalls[0].signature",
                Box::new(|r| {
                    r.request.messages[1] = Message::Assistant {
                        text: String::new(),
                        tool_calls: vec![PastToolCall {
                            id: "c".into(),
                            name: "n".into(),
                            arguments: "{}".into(),
                            signature: "x".repeat(MAX_SIGNATURE_CHARS + 1),
                        }],
                        images: vec![],
                    }
                }),
            ),
            (
                "request.messages[2].content",
                Box::new(|r| {
                    r.request.messages[2] = Message::Tool {
                        call_id: "c".into(),
                        name: "n".into(),
                        content: "x".repeat(MAX_MESSAGE_CHARS + 1),
                    }
                }),
            ),
            (
                "request.messages[2].callId",
                Box::new(|r| {
                    r.request.messages[2] = Message::Tool {
                        call_id: "c".repeat(MAX_CALL_ID_CHARS + 1),
                        name: "n".into(),
                        content: String::new(),
                    }
                }),
            ),
            (
                "request.tools",
                Box::new(|r| {
                    let one = r.request.tools[0].clone();
                    r.request.tools = vec![one; MAX_TOOLS + 1];
                }),
            ),
            (
                "request.tools[0].name",
                Box::new(|r| r.request.tools[0].name = "t".repeat(MAX_TOOL_NAME_CHARS + 1)),
            ),
            (
                "request.tools[0].parameters",
                Box::new(|r| {
                    r.request.tools[0].parameters =
                        json!({"description": "d".repeat(MAX_TOOL_SCHEMA_BYTES)});
                }),
            ),
            (
                "capabilities.contextWindow",
                Box::new(|r| r.capabilities.context_window = Some(0)),
            ),
            (
                "capabilities.maxOutputTokens",
                Box::new(|r| r.capabilities.max_output_tokens = Some(u64::MAX)),
            ),
            (
                "provider.baseUrl",
                Box::new(|r| r.provider.base_url = "h".repeat(MAX_URL_CHARS + 1)),
            ),
            (
                "provider.serverProviderId",
                Box::new(|r| {
                    r.provider.server_provider_id = Some("i".repeat(MAX_PROVIDER_ID_CHARS + 1))
                }),
            ),
        ];
        for (field, change) in cases {
            let mut request = request();
            change(&mut request);
            assert_eq!(field_of(&request), field);
            assert!(
                request
                    .check_bounds()
                    .unwrap_err()
                    .to_string()
                    .contains(field)
            );
        }
    }

    #[test]
    fn unknown_top_level_fields_are_refused() {
        let mut body = serde_json::to_value(request()).unwrap();
        assert!(serde_json::from_value::<RelayRequest>(body.clone()).is_ok());
        body["url"] = json!("http://127.0.0.1:6379/");
        let error = serde_json::from_value::<RelayRequest>(body).unwrap_err();
        assert!(error.to_string().contains("unknown field"), "{error}");
    }
}
