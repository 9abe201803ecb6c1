//! Model providers' wire protocols, transport-agnostic: bytes in, typed events out.
//!
//! A streamed reply passes through three stages, each tested on its own:
//! 1. [`sse`]: bytes → server-sent events, whatever the chunk boundaries;
//! 2. a protocol parser ([`openai_chat`], [`openai_responses`], [`anthropic`],
//!    [`gemini`]): events → [`StreamEvent`]s (text, reasoning, refusals, tool-call
//!    fragments, images, usage, finish, provider errors), checking that the stream
//!    really ended (a body that ends in a raw JSON error ends with that error);
//! 3. for OpenAI-compatible servers, [`think`] splits inline `<think>` reasoning out of
//!    the text, even when the tags are split across chunks.
//!
//! [`StreamDecoder`] composes them. [`tool_calls`] reassembles tool-call fragments by
//! index (never by name: a model may call one tool twice in a turn) and parses their
//! arguments once, centrally. [`request`] builds the request that starts a stream,
//! [`models`] reads providers' model listings, and [`kind`] names the kinds of provider a
//! user can add and checks their settings.

pub mod anthropic;
pub mod build;
pub mod gemini;
pub mod images;
pub mod kind;
pub mod models;
pub mod openai_chat;
pub mod openai_responses;
pub mod request;
pub mod sse;
pub mod think;
pub mod tool_calls;

use serde::{Deserialize, Serialize};

use self::sse::{SseDecoder, SseEvent};
use self::think::ThinkSplitter;

/// The wire protocols Hearth speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Protocol {
    /// OpenAI Chat Completions (`/v1/chat/completions`), also spoken by
    /// OpenAI-compatible servers (Ollama, llama.cpp, vLLM, LocalAI, OpenRouter…).
    #[serde(rename = "openai-chat")]
    OpenAiChat,
    /// OpenAI Responses (`/v1/responses`).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages (`/v1/messages`).
    #[serde(rename = "anthropic")]
    Anthropic,
    /// Google Gemini (`:streamGenerateContent?alt=sse`).
    #[serde(rename = "gemini")]
    Gemini,
}

impl Protocol {
    /// Whether an earlier answer goes back with the images the model sent inside it:
    /// Gemini's model turns take inline data; the others' answers are text only.
    pub fn answers_carry_images(self) -> bool {
        matches!(self, Self::Gemini)
    }

    /// Whether the provider can search the web by itself when asked
    /// ([`request::ChatRequest::web_search`]): OpenAI's Responses `web_search` tool,
    /// Anthropic's web search tool, Gemini's Google Search grounding. Chat Completions has
    /// no general one.
    pub fn searches_itself(self) -> bool {
        !matches!(self, Self::OpenAiChat)
    }

    /// The wire name (`openai-chat`, `openai-responses`, `anthropic`, `gemini`), also
    /// used in BYOK contexts (`provider:<name>`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAiChat => "openai-chat",
            Self::OpenAiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
        }
    }
}

/// The most bytes of one streamed reply, read by the browser or relayed by the edge; past
/// it the reply ends as a stored `RESPONSE_SIZE_LIMIT` error with what arrived kept.
pub const MAX_STREAM_BYTES: usize = 8 * 1024 * 1024;

/// An SSE frame that every protocol parser reads as a provider error: the edge relay
/// appends it when it has to end a stream early (size or time limit), so the app stores a
/// typed error instead of a silent truncation.
pub fn relay_error_frame(code: &str, message: &str) -> String {
    let body = serde_json::json!({
        "type": "error",
        "code": code,
        "message": message,
        "error": { "type": code, "code": code, "message": message },
    });
    format!("event: error\ndata: {body}\n\n")
}

/// Why a reply stopped. On the wire and in stored records it is one string: `stop`,
/// `length`, `tool_calls`, `content_filter`, or the provider's own word for anything else
/// (kept as [`FinishReason::Other`]), so records written as plain strings read back typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum FinishReason {
    /// The model finished its answer.
    Stop,
    /// The output limit was reached.
    Length,
    /// The model stopped to call tools.
    ToolCalls,
    /// The provider filtered the output.
    ContentFilter,
    /// Something else, in the provider's words.
    Other(String),
}

impl FinishReason {
    /// The stored name (`stop`, `length`, `tool_calls`, `content_filter`, or the
    /// provider's word).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Stop => "stop",
            Self::Length => "length",
            Self::ToolCalls => "tool_calls",
            Self::ContentFilter => "content_filter",
            Self::Other(other) => other,
        }
    }
}

impl From<String> for FinishReason {
    fn from(name: String) -> Self {
        match name.as_str() {
            "stop" => Self::Stop,
            "length" => Self::Length,
            "tool_calls" => Self::ToolCalls,
            "content_filter" => Self::ContentFilter,
            _ => Self::Other(name),
        }
    }
}

impl From<FinishReason> for String {
    fn from(reason: FinishReason) -> Self {
        match reason {
            FinishReason::Other(other) => other,
            known => known.as_str().to_string(),
        }
    }
}

impl std::fmt::Display for FinishReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Token counts as the provider reported them; `None` is unknown, never zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: Option<u64>,
    /// Completion tokens (including reasoning where the provider counts it so).
    pub output_tokens: Option<u64>,
    /// Of the output, reasoning tokens, where reported.
    pub reasoning_tokens: Option<u64>,
    /// Of the input, tokens served from a prompt cache, where reported.
    pub cached_input_tokens: Option<u64>,
    /// Of the input, tokens written to a prompt cache (Anthropic bills them above the
    /// input price), where reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_input_tokens: Option<u64>,
}

impl Usage {
    /// Takes every count `other` knows, keeping ours where it does not.
    pub fn merge(&mut self, other: Usage) {
        self.input_tokens = other.input_tokens.or(self.input_tokens);
        self.output_tokens = other.output_tokens.or(self.output_tokens);
        self.reasoning_tokens = other.reasoning_tokens.or(self.reasoning_tokens);
        self.cached_input_tokens = other.cached_input_tokens.or(self.cached_input_tokens);
        self.cache_write_input_tokens = other
            .cache_write_input_tokens
            .or(self.cache_write_input_tokens);
    }

    /// Adds another round's counts (a reply that called tools made several requests);
    /// a count either side does not know stays what the other says.
    pub fn add(&mut self, other: Usage) {
        fn sum(a: Option<u64>, b: Option<u64>) -> Option<u64> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.saturating_add(b)),
                (a, b) => a.or(b),
            }
        }
        self.input_tokens = sum(self.input_tokens, other.input_tokens);
        self.output_tokens = sum(self.output_tokens, other.output_tokens);
        self.reasoning_tokens = sum(self.reasoning_tokens, other.reasoning_tokens);
        self.cached_input_tokens = sum(self.cached_input_tokens, other.cached_input_tokens);
        self.cache_write_input_tokens = sum(
            self.cache_write_input_tokens,
            other.cache_write_input_tokens,
        );
    }

    /// Whether the provider reported anything.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// An image produced by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ImageData {
    /// Inline bytes, base64.
    Base64 {
        /// The MIME type, e.g. `image/png`.
        mime_type: String,
        /// The base64 payload.
        data: String,
    },
    /// A URL (possibly a `data:` URL) to be checked before display.
    Url {
        /// The URL.
        url: String,
    },
}

/// An error the provider reported inside the stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderError {
    /// The provider's error type or code, if any.
    pub code: Option<String>,
    /// The provider's message.
    pub message: String,
}

/// One typed event of a streamed reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum StreamEvent {
    /// Answer text.
    Text {
        /// The new text.
        delta: String,
    },
    /// Reasoning ("thinking") text, never part of the answer.
    Reasoning {
        /// The new reasoning text.
        delta: String,
    },
    /// Refusal text: the model declined, in its own words (OpenAI's `delta.refusal`,
    /// `refusal` content parts, `response.refusal.delta`). Kept apart from the answer so
    /// a consumer can show it as a refusal rather than lose it.
    Refusal {
        /// The new refusal text.
        delta: String,
    },
    /// A fragment of a tool call; fragments with the same `index` belong together.
    ToolCall {
        /// The call's position in this round.
        index: u32,
        /// The provider's call id, when this fragment carries it.
        id: Option<String>,
        /// The tool name, when this fragment carries it.
        name: Option<String>,
        /// A fragment of the JSON arguments.
        arguments: String,
        /// An opaque token the provider wants back with the call in the next request
        /// (Gemini's `thoughtSignature`), when this fragment carries it.
        signature: Option<String>,
    },
    /// An image.
    Image {
        /// The image.
        image: ImageData,
        /// An opaque token the provider wants back with the image in later requests
        /// (Gemini's `thoughtSignature`), when its part carries one.
        signature: Option<String>,
    },
    /// A web page the reply draws on (a provider's own search or grounding), named when
    /// the provider names it; the same page may come more than once.
    Source {
        /// The page.
        url: String,
        /// Its title ("" when not given).
        title: String,
    },
    /// A query the provider's own web search ran (Gemini's `webSearchQueries`, an
    /// OpenAI Responses `web_search_call`); the same query may come more than once.
    SearchQuery {
        /// The query.
        query: String,
    },
    /// Token counts (may arrive more than once; later counts win field by field).
    Usage {
        /// The counts.
        usage: Usage,
    },
    /// The reply ended normally.
    Finish {
        /// Why.
        reason: FinishReason,
    },
    /// The provider reported an error; the reply ends here, partial output kept.
    Error {
        /// What it said.
        error: ProviderError,
    },
}

/// A stream that cannot be decoded. Output already returned stays valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// A line longer than the framer accepts.
    #[error("a stream line is longer than {limit} bytes")]
    LineTooLong {
        /// The limit.
        limit: usize,
    },
    /// An event's data is not the JSON the protocol defines.
    #[error("the provider sent malformed data: {detail}")]
    Malformed {
        /// What was wrong, with a short excerpt.
        detail: String,
    },
    /// The stream ended before the protocol's terminal event.
    #[error("the stream ended before the reply was complete")]
    Truncated,
}

impl StreamError {
    /// A malformed-data error quoting at most 120 characters of `data`.
    pub(crate) fn malformed(what: &str, data: &str) -> Self {
        let excerpt: String = data.chars().take(120).collect();
        Self::Malformed {
            detail: format!("{what}: {excerpt}"),
        }
    }
}

/// Turns one protocol's SSE events into [`StreamEvent`]s.
pub trait ProtocolParser {
    /// Handles one SSE event.
    fn on_event(&mut self, event: &SseEvent) -> Result<Vec<StreamEvent>, StreamError>;
    /// Called at the end of the byte stream: fails with [`StreamError::Truncated`] if the
    /// protocol's terminal event never came (and no provider error ended the reply).
    fn finish(&mut self) -> Result<Vec<StreamEvent>, StreamError>;
}

/// A new parser for `protocol`.
pub fn parser_for(protocol: Protocol) -> Box<dyn ProtocolParser + Send> {
    match protocol {
        Protocol::OpenAiChat => Box::new(openai_chat::Parser::default()),
        Protocol::OpenAiResponses => Box::new(openai_responses::Parser::default()),
        Protocol::Anthropic => Box::new(anthropic::Parser::default()),
        Protocol::Gemini => Box::new(gemini::Parser::default()),
    }
}

/// Bytes of a streamed reply in, [`StreamEvent`]s out.
pub struct StreamDecoder {
    sse: SseDecoder,
    parser: Box<dyn ProtocolParser + Send>,
    think: Option<ThinkSplitter>,
    ended: bool,
    /// The error that stopped the stream, reported by every later call.
    failed: Option<StreamError>,
}

impl StreamDecoder {
    /// A decoder for `protocol`. OpenAI-compatible streams also get inline `<think>`
    /// splitting, since local servers put reasoning in the text that way.
    pub fn new(protocol: Protocol) -> Self {
        Self {
            sse: SseDecoder::new(),
            parser: parser_for(protocol),
            think: (protocol == Protocol::OpenAiChat).then(ThinkSplitter::new),
            ended: false,
            failed: None,
        }
    }

    /// Feeds a chunk of bytes. When the chunk breaks the stream partway (a malformed
    /// event), the events decoded before the break are returned and the error comes from
    /// the next `push` or `finish`: how the bytes were cut never changes what is kept.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<StreamEvent>, StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let mut out = Vec::new();
        let framed = match self.sse.push(chunk) {
            Ok(framed) => framed,
            Err(error) => return Err(self.fail(error)),
        };
        for event in framed {
            match self.parser.on_event(&event) {
                Ok(events) => self.route(events, &mut out),
                Err(error) => {
                    let error = self.fail(error);
                    return if out.is_empty() { Err(error) } else { Ok(out) };
                }
            }
        }
        if let Some(error) = self.sse.failure().cloned() {
            self.fail(error);
        }
        Ok(out)
    }

    fn fail(&mut self, error: StreamError) -> StreamError {
        self.failed = Some(error.clone());
        error
    }

    /// Ends the stream: flushes held-back text and checks that the reply completed.
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>, StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let mut out = Vec::new();
        if let Some(event) = self.sse.finish() {
            let events = self.parser.on_event(&event)?;
            self.route(events, &mut out);
        }
        if !self.ended
            && let Some(event) = self.sse.trailing().and_then(trailing_error_event)
        {
            let events = self.parser.on_event(&event)?;
            self.route(events, &mut out);
        }
        self.flush_think(&mut out);
        let tail = self.parser.finish()?;
        self.route(tail, &mut out);
        Ok(out)
    }

    /// Whether a finish or error event has been returned.
    pub fn ended(&self) -> bool {
        self.ended
    }

    fn route(&mut self, events: Vec<StreamEvent>, out: &mut Vec<StreamEvent>) {
        for event in events {
            match (&mut self.think, event) {
                (Some(think), StreamEvent::Text { delta }) => out.extend(think.push(&delta)),
                (_, event) => {
                    if matches!(
                        event,
                        StreamEvent::Finish { .. } | StreamEvent::Error { .. }
                    ) {
                        self.flush_think(out);
                        self.ended = true;
                    }
                    out.push(event);
                }
            }
        }
    }

    fn flush_think(&mut self, out: &mut Vec<StreamEvent>) {
        if let Some(think) = &mut self.think {
            out.extend(think.finish());
        }
    }
}

/// A body that ends in a raw JSON error instead of SSE (Gemini does this when a stream
/// fails partway: `{"error": {…}}`, often pretty-printed over several lines or wrapped in
/// `[…]`) becomes an `error` event carrying that object, which every protocol parser
/// reads as a provider error. Anything else after the last `data:` line stays ignored.
fn trailing_error_event(text: &str) -> Option<SseEvent> {
    let is_error = |value: &serde_json::Value| value.get("error").is_some_and(|e| !e.is_null());
    let value: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
    let error = match value {
        serde_json::Value::Array(items) => items.into_iter().find(is_error)?,
        value => Some(value).filter(is_error)?,
    };
    Some(SseEvent {
        event: "error".to_string(),
        data: error.to_string(),
        id: None,
    })
}

/// Parses an event's JSON data, or reports it as malformed.
pub(crate) fn parse_json(data: &str) -> Result<serde_json::Value, StreamError> {
    serde_json::from_str(data).map_err(|_| StreamError::malformed("not JSON", data))
}

/// The pages a reply named so far, so that each becomes one [`StreamEvent::Source`]
/// (Perplexity repeats its whole list in every chunk).
#[derive(Debug, Default)]
pub(crate) struct SourcesSeen(std::collections::HashSet<String>);

impl SourcesSeen {
    /// Pushes the page `url` titled `title` onto `out` unless it came before or `url` is
    /// not a string.
    pub(crate) fn push(
        &mut self,
        out: &mut Vec<StreamEvent>,
        url: &serde_json::Value,
        title: &serde_json::Value,
    ) {
        let Some(url) = url.as_str().map(str::trim).filter(|u| !u.is_empty()) else {
            return;
        };
        if self.0.insert(url.to_string()) {
            out.push(StreamEvent::Source {
                url: url.to_string(),
                title: title.as_str().unwrap_or_default().to_string(),
            });
        }
    }
}

/// A non-negative integer field, if present.
pub(crate) fn count(value: &serde_json::Value) -> Option<u64> {
    value.as_u64()
}

#[cfg(test)]
pub(crate) mod replay;

#[cfg(test)]
mod relay_frame {
    use super::*;

    #[test]
    fn every_protocol_reads_the_relay_error_frame_as_a_provider_error() {
        for protocol in [
            Protocol::OpenAiChat,
            Protocol::OpenAiResponses,
            Protocol::Anthropic,
            Protocol::Gemini,
        ] {
            let mut decoder = StreamDecoder::new(protocol);
            let events = decoder
                .push(
                    relay_error_frame("RESPONSE_SIZE_LIMIT", "The reply exceeded 8 MiB").as_bytes(),
                )
                .unwrap();
            let error = events.iter().find_map(|e| match e {
                StreamEvent::Error { error } => Some(error.clone()),
                _ => None,
            });
            let error = error.unwrap_or_else(|| panic!("{protocol:?}: {events:?}"));
            assert_eq!(error.message, "The reply exceeded 8 MiB", "{protocol:?}");
            assert!(
                decoder.finish().is_ok(),
                "{protocol:?}: an error ends the reply cleanly"
            );
        }
        assert_eq!(
            serde_json::to_string(&Protocol::OpenAiChat).unwrap(),
            format!("\"{}\"", Protocol::OpenAiChat.as_str())
        );
    }
}

#[cfg(test)]
mod trailing_error {
    use super::replay::every_split;
    use super::*;

    /// Not only Gemini: any protocol's body that ends with a raw JSON error object instead
    /// of an event ends as that provider error, the text before it kept; after the
    /// protocol's own terminal event, trailing text changes nothing.
    #[test]
    fn every_protocol_reads_a_raw_json_error_ending_the_body_as_a_provider_error() {
        let raw = "{\n  \"error\": {\n    \"code\": 503,\n    \"type\": \"overloaded\",\n    \"message\": \"Try again later\"\n  }\n}\n";
        let text = [
            (
                Protocol::OpenAiChat,
                "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n",
            ),
            (
                Protocol::OpenAiResponses,
                "data: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\n",
            ),
            (
                Protocol::Anthropic,
                "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
            ),
            (
                Protocol::Gemini,
                "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}]}}]}\n\n",
            ),
        ];
        for (protocol, events) in text {
            let got = every_split(protocol, &format!("{events}{raw}"))
                .unwrap_or_else(|e| panic!("{protocol:?}: {e:?}"));
            assert_eq!(got.text, "Hi", "{protocol:?}");
            let error = got.error.unwrap_or_else(|| panic!("{protocol:?}"));
            assert_eq!(error.message, "Try again later", "{protocol:?}");
            assert_eq!(got.finish, None, "{protocol:?}");
        }
        let done = concat!(
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let got = every_split(Protocol::OpenAiChat, &format!("{done}{raw}")).unwrap();
        assert_eq!(got.finish, Some(FinishReason::Stop));
        assert_eq!(got.error, None);
    }
}

#[cfg(test)]
mod breaks {
    use super::*;

    /// Found by the stream fuzz targets: events before a malformed one in the same chunk
    /// used to vanish with the error, so what was kept depended on where chunks ended.
    #[test]
    fn what_arrived_before_a_malformed_event_is_kept_however_the_bytes_were_cut() {
        let stream = "data: {\"choices\":[{\"delta\":{\"content\":\"kept\"}}]}\n\ndata: {oops\n\n";
        for cut in 0..=stream.len() {
            let mut decoder = StreamDecoder::new(Protocol::OpenAiChat);
            let mut text = String::new();
            let mut failed = None;
            for part in [&stream[..cut], &stream[cut..]] {
                match decoder.push(part.as_bytes()) {
                    Ok(events) => text.extend(events.into_iter().filter_map(|e| match e {
                        StreamEvent::Text { delta } => Some(delta),
                        _ => None,
                    })),
                    Err(error) => {
                        failed = Some(error);
                        break;
                    }
                }
            }
            let failed = failed.or_else(|| decoder.finish().err());
            assert_eq!(text, "kept", "cut at {cut}");
            assert!(
                matches!(failed, Some(StreamError::Malformed { .. })),
                "cut at {cut}: {failed:?}"
            );
            // Once broken, it stays broken.
            assert!(decoder.push(b"data: {}\n\n").is_err());
        }
    }
}

#[cfg(test)]
mod robustness {
    use super::*;

    /// A small deterministic generator, so a failure reproduces exactly.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Pieces of real streams, shuffled into nonsense: every decoder must return events
    /// or a typed error, never panic, whatever it is fed.
    #[test]
    fn hostile_byte_streams_never_panic() {
        const PIECES: [&str; 16] = [
            "data: ",
            "event: ",
            "\n",
            "\r\n",
            "\r",
            ": c\n",
            "[DONE]",
            "{\"choices\":[{\"delta\":",
            "{\"content\":\"x\"}",
            "\"tool_calls\":[{\"index\":",
            "4294967296",
            "}]}",
            "\u{feff}",
            "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\"",
            "{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{}}]}}]}",
            "\u{00e9}\u{4e2d}",
        ];
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for protocol in [
            Protocol::OpenAiChat,
            Protocol::OpenAiResponses,
            Protocol::Anthropic,
            Protocol::Gemini,
        ] {
            for _ in 0..400 {
                let mut stream = Vec::new();
                for _ in 0..(rng.next() % 40) {
                    let piece = PIECES[(rng.next() % PIECES.len() as u64) as usize];
                    stream.extend_from_slice(piece.as_bytes());
                    if rng.next().is_multiple_of(7) {
                        stream.push((rng.next() % 256) as u8);
                    }
                }
                let mut decoder = StreamDecoder::new(protocol);
                let mut failed = false;
                for chunk in stream.chunks(1 + (rng.next() % 9) as usize) {
                    if decoder.push(chunk).is_err() {
                        failed = true;
                        break;
                    }
                }
                if !failed {
                    let _ = decoder.finish();
                }
            }
        }
    }
}

#[cfg(test)]
mod usage {
    use super::*;

    #[test]
    fn rounds_add_up_and_an_unknown_count_stays_what_the_other_says() {
        let mut total = Usage {
            input_tokens: Some(100),
            output_tokens: Some(20),
            ..Default::default()
        };
        total.add(Usage {
            input_tokens: Some(150),
            output_tokens: None,
            reasoning_tokens: Some(5),
            ..Default::default()
        });
        assert_eq!(total.input_tokens, Some(250));
        assert_eq!(total.output_tokens, Some(20));
        assert_eq!(total.reasoning_tokens, Some(5));
        assert_eq!(total.cached_input_tokens, None);
    }
}

#[cfg(test)]
mod finish_reason {
    use super::*;

    #[test]
    fn a_finish_reason_is_one_string_both_ways() {
        for (reason, name) in [
            (FinishReason::Stop, "stop"),
            (FinishReason::Length, "length"),
            (FinishReason::ToolCalls, "tool_calls"),
            (FinishReason::ContentFilter, "content_filter"),
            (FinishReason::Other("end_turn".into()), "end_turn"),
        ] {
            let json = serde_json::to_value(&reason).unwrap();
            assert_eq!(json, serde_json::json!(name));
            assert_eq!(
                serde_json::from_value::<FinishReason>(json).unwrap(),
                reason
            );
            assert_eq!(reason.to_string(), name);
        }
    }
}
