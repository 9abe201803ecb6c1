//! OpenAI chat streaming on both sides of a provider fixture: the frames a fixture
//! writes, a flag that says when the edge hung up on it, and the text a relayed answer
//! decodes to.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hearth_core::provider::{Protocol, StreamDecoder, StreamEvent};
use serde_json::json;

/// Sets its flag when dropped: held by a fixture's response stream, it says the edge hung
/// up on the provider.
pub struct DropFlag(pub Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// One text delta event.
pub fn chunk(text: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": text}}]})
    )
}

/// The finish event and `[DONE]`.
pub fn finish() -> String {
    format!(
        "data: {}\n\ndata: [DONE]\n\n",
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    )
}

/// The text of an OpenAI chat stream, and all its events.
pub fn decode(bytes: &[u8]) -> (String, Vec<StreamEvent>) {
    let mut decoder = StreamDecoder::new(Protocol::OpenAiChat);
    let mut events = decoder.push(bytes).unwrap();
    events.extend(decoder.finish().unwrap_or_default());
    let text = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Text { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    (text, events)
}
