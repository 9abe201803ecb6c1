//! The model phase of one round: the request opened through the transport (direct, or
//! the relay), read through the one stream reader, its text and reasoning shown as they
//! arrive (and the images it sends kept in their places), the partial reply written at
//! least every 500 ms, and the tool calls it asked for returned.

use hearth_core::chat::GenerationError;
use hearth_core::provider::request::ChatRequest;
use hearth_core::provider::tool_calls::{ToolCall, ToolCallAssembler};
use hearth_core::provider::{MAX_STREAM_BYTES, StreamEvent, Usage};

use super::TurnContext;
use super::reply::{FLUSH_MS, Reply};
use crate::browser::now;
use crate::chat::runs::Ending;
use crate::chat::stream::{Chunk, EventReader, Limits};
use crate::chat::target::Target;
use crate::chat::transport::{OpenError, open_model_stream};

/// Streams one round into `reply`; the calls it asked for, or how the reply ends
/// instead (stopped, failed).
pub async fn stream_round(
    context: TurnContext,
    target: &Target,
    request: &ChatRequest,
    reply: &mut Reply,
    controller: &web_sys::AbortController,
) -> Result<Vec<ToolCall>, Ending> {
    let signal = controller.signal();
    let stream = match open_model_stream(
        context.providers,
        &target.provider,
        target.key.as_deref(),
        request,
        &target.capabilities,
        &signal,
    )
    .await
    {
        Ok(stream) => stream,
        Err(OpenError::Aborted) => return Err(Ending::Stopped),
        Err(OpenError::Failed(error)) => return Err(Ending::Failed(error)),
        Err(OpenError::Blocked) => {
            return Err(Ending::Failed(crate::chat::transport::unreachable()));
        }
    };
    let limits = Limits {
        max_bytes: MAX_STREAM_BYTES,
        silence_ms: stream_silence_ms().await,
        deadline_ms: None,
    };
    let mut reader = EventReader::new(stream, target.provider.kind.protocol().0, limits);
    let mut round = Round::default();
    let mut last_flush = now();
    let mut dirty = false;
    let ended = loop {
        // Never wait past the next flush: a stalled provider must not keep what already
        // arrived off the disk.
        let wait = dirty.then(|| FLUSH_MS - (now() - last_flush));
        let next = reader.next(wait).await;
        if signal.aborted() {
            break Err(Ending::Stopped);
        }
        let (events, end) = match next {
            Ok(Chunk::Data(events)) => (events, false),
            Ok(Chunk::End(events)) => (events, true),
            Ok(Chunk::Quiet) => (Vec::new(), false),
            Err(error) => {
                controller.abort();
                break Err(Ending::Failed(error.to_generation_error()));
            }
        };
        if !events.is_empty() {
            dirty = true;
            if let Err(error) = round.apply(reply, events).await {
                break Err(Ending::Failed(error));
            }
        }
        if end {
            break Ok(());
        }
        if dirty && now() - last_flush >= FLUSH_MS {
            last_flush = now();
            dirty = false;
            reply.flush(context.store).await;
        }
    };
    reply.usage.add(round.usage);
    ended.map(|()| round.calls.finish())
}

/// What one round gathers besides the text.
#[derive(Default)]
struct Round {
    calls: ToolCallAssembler,
    usage: Usage,
}

impl Round {
    /// Applies decoded events to the reply, an image after the text that came before it;
    /// a provider's error event ends it.
    async fn apply(
        &mut self,
        reply: &mut Reply,
        events: Vec<StreamEvent>,
    ) -> Result<(), GenerationError> {
        let mut text = String::new();
        let mut reasoning = String::new();
        let mut failure = None;
        for event in events {
            match event {
                StreamEvent::Text { delta } => text.push_str(&delta),
                StreamEvent::Reasoning { delta } => reasoning.push_str(&delta),
                // A refusal is the model's answer, in its words: shown as the reply.
                StreamEvent::Refusal { delta } => text.push_str(&delta),
                StreamEvent::Usage { usage } => self.usage.merge(usage),
                StreamEvent::Source { url, title } => {
                    reply.add_source(&url, &title);
                }
                StreamEvent::SearchQuery { query } => reply.add_model_query(&query),
                StreamEvent::Finish { reason } => reply.finish = Some(reason),
                StreamEvent::Error { error } => {
                    failure = Some(GenerationError::provider_error(&error.message));
                }
                call @ StreamEvent::ToolCall { .. } => self.calls.apply(&call),
                StreamEvent::Image { image, signature } => {
                    reply.append(&std::mem::take(&mut text), &std::mem::take(&mut reasoning));
                    reply
                        .keep_image(&image, signature.unwrap_or_default())
                        .await;
                }
            }
        }
        reply.append(&text, &reasoning);
        failure.map_or(Ok(()), Err)
    }
}

/// How long a stream may stay silent, in ms: the edge's limit (`/api/config`), or the
/// default when the edge cannot say.
async fn stream_silence_ms() -> f64 {
    let secs = crate::edge::fetch_config()
        .await
        .map(|config| config.stream_silence_secs)
        .unwrap_or(hearth_core::api::DEFAULT_STREAM_SILENCE_SECS);
    secs.max(1) as f64 * 1000.0
}
