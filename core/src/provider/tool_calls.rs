//! Reassembles streamed tool-call fragments into whole calls, keyed by the call's index
//! in the round (never by name: a model may call the same tool twice in one turn), and
//! parses each call's arguments once. Malformed arguments are normal from small models:
//! they become a typed error on that call, never a silent `{}` or a raw string passed on.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::StreamEvent;

/// The most tool calls one round may carry.
pub const MAX_CALLS_PER_ROUND: usize = 64;
/// The largest argument text of one call.
pub const MAX_ARGUMENT_BYTES: usize = 1024 * 1024;
/// The longest signature kept with a call (Gemini's are a few kilobytes of base64); a
/// longer one is not kept, and the provider says what it makes of the call without it.
pub const MAX_SIGNATURE_BYTES: usize = 64 * 1024;

/// Why a call cannot be executed as sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ToolCallError {
    /// The model never named the tool.
    #[error("the model did not name the tool")]
    MissingName,
    /// The arguments are not JSON.
    #[error("the arguments are not valid JSON: {detail}")]
    InvalidJson {
        /// The parser's complaint.
        detail: String,
    },
    /// The arguments are JSON but not an object.
    #[error("the arguments must be a JSON object")]
    NotAnObject,
    /// The arguments exceed [`MAX_ARGUMENT_BYTES`].
    #[error("the arguments exceed {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
}

/// One reassembled call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// Position in the round.
    pub index: u32,
    /// The provider's call id (generated as `call_<index>` when the provider sent none).
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The argument text exactly as received.
    pub raw_arguments: String,
    /// The parsed arguments, or why they cannot be used.
    pub arguments: Result<serde_json::Map<String, serde_json::Value>, ToolCallError>,
    /// The provider's opaque token to send back with the call (empty: none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
}

#[derive(Debug, Default)]
struct Partial {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
    signature: Option<String>,
    too_large: bool,
}

/// Collects [`StreamEvent::ToolCall`] fragments for one round.
#[derive(Debug, Default)]
pub struct ToolCallAssembler {
    calls: BTreeMap<u32, Partial>,
    dropped: usize,
}

impl ToolCallAssembler {
    /// An empty assembler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event; other event kinds are ignored.
    pub fn apply(&mut self, event: &StreamEvent) {
        let StreamEvent::ToolCall {
            index,
            id,
            name,
            arguments,
            signature,
        } = event
        else {
            return;
        };
        if !self.calls.contains_key(index) && self.calls.len() >= MAX_CALLS_PER_ROUND {
            self.dropped += 1;
            return;
        }
        let call = self.calls.entry(*index).or_default();
        if let Some(id) = id.as_ref().filter(|id| !id.is_empty()) {
            call.id.get_or_insert_with(|| id.clone());
        }
        if let Some(name) = name.as_ref().filter(|name| !name.is_empty()) {
            call.name.get_or_insert_with(|| name.clone());
        }
        if let Some(signature) = signature
            .as_ref()
            .filter(|s| !s.is_empty() && s.len() <= MAX_SIGNATURE_BYTES)
        {
            call.signature.get_or_insert_with(|| signature.clone());
        }
        if call.arguments.len() + arguments.len() > MAX_ARGUMENT_BYTES {
            call.too_large = true;
        } else {
            call.arguments.push_str(arguments);
        }
    }

    /// Calls beyond [`MAX_CALLS_PER_ROUND`] that were dropped.
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// The calls, in index order.
    pub fn finish(self) -> Vec<ToolCall> {
        self.calls
            .into_iter()
            .map(|(index, partial)| {
                let arguments = match (&partial.name, partial.too_large) {
                    (None, _) => Err(ToolCallError::MissingName),
                    (_, true) => Err(ToolCallError::TooLarge {
                        limit: MAX_ARGUMENT_BYTES,
                    }),
                    _ => parse_arguments(&partial.arguments),
                };
                ToolCall {
                    index,
                    id: partial.id.unwrap_or_else(|| format!("call_{index}")),
                    name: partial.name.unwrap_or_default(),
                    raw_arguments: partial.arguments,
                    arguments,
                    signature: partial.signature.unwrap_or_default(),
                }
            })
            .collect()
    }
}

/// Parses argument text; empty text is an empty object (tools without parameters).
pub fn parse_arguments(
    text: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, ToolCallError> {
    if text.trim().is_empty() {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(_) => Err(ToolCallError::NotAnObject),
        Err(error) => Err(ToolCallError::InvalidJson {
            detail: error.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fragment(index: u32, id: Option<&str>, name: Option<&str>, arguments: &str) -> StreamEvent {
        StreamEvent::ToolCall {
            index,
            id: id.map(str::to_string),
            name: name.map(str::to_string),
            arguments: arguments.to_string(),
            signature: None,
        }
    }

    #[test]
    fn a_signature_is_kept_once_per_call_and_never_past_its_bound() {
        let signed = |index: u32, signature: String| StreamEvent::ToolCall {
            index,
            id: Some(format!("c{index}")),
            name: Some("search".into()),
            arguments: "{}".into(),
            signature: Some(signature),
        };
        let mut assembler = ToolCallAssembler::new();
        for event in [
            signed(0, "first".into()),
            signed(0, "a later fragment's".into()),
            signed(1, "x".repeat(MAX_SIGNATURE_BYTES)),
            signed(2, "x".repeat(MAX_SIGNATURE_BYTES + 1)),
            fragment(3, Some("c3"), Some("search"), "{}"),
        ] {
            assembler.apply(&event);
        }
        let lengths: Vec<usize> = assembler
            .finish()
            .iter()
            .map(|call| call.signature.len())
            .collect();
        assert_eq!(lengths, [5, MAX_SIGNATURE_BYTES, 0, 0]);
    }

    #[test]
    fn reassembles_interleaved_calls_of_the_same_tool_by_index() {
        let mut assembler = ToolCallAssembler::new();
        for event in [
            fragment(0, Some("a"), Some("search"), ""),
            fragment(1, Some("b"), Some("search"), "{\"q\":"),
            fragment(0, None, None, "{\"q\":\"rust"),
            fragment(1, None, None, "\"leptos\"}"),
            fragment(0, None, None, "\"}"),
            StreamEvent::Text {
                delta: "ignored".into(),
            },
        ] {
            assembler.apply(&event);
        }
        let calls = assembler.finish();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].id, "a");
        assert_eq!(calls[0].arguments.as_ref().unwrap()["q"], "rust");
        assert_eq!(calls[1].id, "b");
        assert_eq!(calls[1].arguments.as_ref().unwrap()["q"], "leptos");
    }

    #[test]
    fn bad_arguments_are_typed_errors_with_the_raw_text_kept() {
        let mut assembler = ToolCallAssembler::new();
        assembler.apply(&fragment(0, None, Some("f"), "{\"a\": 1"));
        assembler.apply(&fragment(1, None, Some("g"), "[1, 2]"));
        assembler.apply(&fragment(2, None, None, "{}"));
        assembler.apply(&fragment(3, None, Some("h"), ""));
        let calls = assembler.finish();
        assert!(matches!(
            calls[0].arguments,
            Err(ToolCallError::InvalidJson { .. })
        ));
        assert_eq!(calls[0].raw_arguments, "{\"a\": 1");
        assert_eq!(calls[0].id, "call_0");
        assert_eq!(calls[1].arguments, Err(ToolCallError::NotAnObject));
        assert_eq!(calls[2].arguments, Err(ToolCallError::MissingName));
        assert_eq!(calls[3].arguments, Ok(serde_json::Map::new()));
    }

    #[test]
    fn limits_calls_and_argument_size() {
        let mut assembler = ToolCallAssembler::new();
        for index in 0..(MAX_CALLS_PER_ROUND as u32 + 3) {
            assembler.apply(&fragment(index, None, Some("f"), "{}"));
        }
        assert_eq!(assembler.dropped(), 3);
        assert_eq!(assembler.finish().len(), MAX_CALLS_PER_ROUND);

        let mut assembler = ToolCallAssembler::new();
        let big = "x".repeat(MAX_ARGUMENT_BYTES / 2 + 1);
        assembler.apply(&fragment(0, None, Some("f"), &big));
        assembler.apply(&fragment(0, None, None, &big));
        let calls = assembler.finish();
        assert_eq!(
            calls[0].arguments,
            Err(ToolCallError::TooLarge {
                limit: MAX_ARGUMENT_BYTES
            })
        );
    }
}
