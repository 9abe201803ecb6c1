//! Test support: replays a recorded stream through [`StreamDecoder`] at every chunk
//! boundary and checks that the outcome never depends on where the chunks split.

// Test support only: returning the partial outcome with the error is the point.
#![allow(clippy::result_large_err, missing_docs)]

use super::tool_calls::{ToolCall, ToolCallAssembler};
use super::{
    FinishReason, ImageData, Protocol, ProviderError, StreamDecoder, StreamError, StreamEvent,
    Usage,
};

/// Everything a reply produced, with deltas joined.
#[derive(Debug, Default, PartialEq)]
pub struct Collected {
    pub text: String,
    pub reasoning: String,
    pub refusal: String,
    pub calls: Vec<ToolCall>,
    pub usage: Usage,
    pub images: Vec<ImageData>,
    /// Each image's signature, in the same order ("" for none).
    pub image_signatures: Vec<String>,
    /// The pages named, as (url, title), in order.
    pub sources: Vec<(String, String)>,
    /// The queries the provider's own search ran.
    pub queries: Vec<String>,
    pub finish: Option<FinishReason>,
    pub error: Option<ProviderError>,
    pub finish_was_last: bool,
}

fn collect(events: Vec<StreamEvent>, into: &mut Collected, calls: &mut ToolCallAssembler) {
    for event in events {
        into.finish_was_last = matches!(event, StreamEvent::Finish { .. });
        calls.apply(&event);
        match event {
            StreamEvent::Text { delta } => into.text.push_str(&delta),
            StreamEvent::Reasoning { delta } => into.reasoning.push_str(&delta),
            StreamEvent::Refusal { delta } => into.refusal.push_str(&delta),
            StreamEvent::ToolCall { .. } => {}
            StreamEvent::Image { image, signature } => {
                into.images.push(image);
                into.image_signatures.push(signature.unwrap_or_default());
            }
            StreamEvent::Source { url, title } => into.sources.push((url, title)),
            StreamEvent::SearchQuery { query } => into.queries.push(query),
            StreamEvent::Usage { usage } => into.usage.merge(usage),
            StreamEvent::Finish { reason } => {
                assert!(into.finish.is_none(), "two finish events");
                into.finish = Some(reason);
            }
            StreamEvent::Error { error } => into.error = Some(error),
        }
    }
}

/// Runs `chunks` through a fresh decoder.
pub fn run(protocol: Protocol, chunks: &[&[u8]]) -> Result<Collected, (StreamError, Collected)> {
    let mut decoder = StreamDecoder::new(protocol);
    let mut collected = Collected::default();
    let mut calls = ToolCallAssembler::new();
    let mut failure = None;
    for chunk in chunks {
        match decoder.push(chunk) {
            Ok(events) => collect(events, &mut collected, &mut calls),
            Err(error) => {
                failure = Some(error);
                break;
            }
        }
    }
    if failure.is_none() {
        match decoder.finish() {
            Ok(events) => collect(events, &mut collected, &mut calls),
            Err(error) => failure = Some(error),
        }
    }
    collected.calls = calls.finish();
    match failure {
        None => Ok(collected),
        Some(error) => Err((error, collected)),
    }
}

/// Replays `stream` whole, split at every byte, and byte by byte; all must agree.
pub fn every_split(
    protocol: Protocol,
    stream: &str,
) -> Result<Collected, (StreamError, Collected)> {
    let bytes = stream.as_bytes();
    let whole = run(protocol, &[bytes]);
    for i in 0..=bytes.len() {
        let (a, b) = bytes.split_at(i);
        assert_eq!(run(protocol, &[a, b]), whole, "split at byte {i}");
    }
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(run(protocol, &singles), whole, "byte by byte");
    whole
}
