//! Task-model calls: one request read to its end with nothing stored or shown while it
//! runs (a conversation's title, the summary of its older turns). They take the chat's route (direct, or the relay when
//! the browser is blocked) and are bounded in size and time, so a slow or chatty task
//! model can neither hang nor flood anything; a failure is returned to the caller, which
//! falls back to what needs no model.

use hearth_core::chat::GenerationError;
use hearth_core::chat::compression::{self, Compression, PathMessage};
use hearth_core::chat::title::{clean_generated_title, title_request};
use hearth_core::provider::{StreamDecoder, StreamEvent};

use super::run::{Target, open, stream_error, target};
use super::transport::{Next, OpenError};
use super::{Chat, ModelChoice, now};

/// The most bytes of a task model's stream read.
const MAX_TASK_BYTES: usize = 256 * 1024;
/// How long a task call may take in all.
const TASK_DEADLINE_MS: f64 = 30_000.0;

fn failed(code: &str, message: impl Into<String>) -> GenerationError {
    GenerationError::new(code, message, true)
}

/// Runs `request` on `model` to the end and returns the answer's text (reasoning left out).
async fn complete(
    chat: Chat,
    model: &ModelChoice,
    request: hearth_core::provider::request::ChatRequest,
) -> Result<String, GenerationError> {
    let Target {
        provider,
        key,
        capabilities,
    } = target(chat, chat.providers, model).await?;
    let controller = web_sys::AbortController::new()
        .map_err(|_| failed("INTERNAL", "AbortController is missing"))?;
    let signal = controller.signal();
    let stream = match open(
        chat.providers,
        &provider,
        key.as_deref(),
        &request,
        &capabilities,
        &signal,
    )
    .await
    {
        Ok(stream) => stream,
        Err(OpenError::Failed(error)) => return Err(error),
        Err(OpenError::Blocked | OpenError::Aborted) => {
            return Err(failed(
                "PROVIDER_UNREACHABLE",
                "the task model is unreachable",
            ));
        }
    };
    let deadline = now() + TASK_DEADLINE_MS;
    let mut decoder = StreamDecoder::new(provider.kind.protocol().0);
    let mut text = String::new();
    let mut received = 0usize;
    loop {
        let left = deadline - now();
        if left <= 0.0 {
            controller.abort();
            return Err(failed("RESPONSE_TIMEOUT", "the task model took too long"));
        }
        let (events, ended) = match stream.next_within(left as i32).await {
            Ok(Next::Bytes(bytes)) => {
                received += bytes.len();
                if received > MAX_TASK_BYTES {
                    controller.abort();
                    return Err(failed(
                        "RESPONSE_SIZE_LIMIT",
                        "the task model said too much",
                    ));
                }
                (decoder.push(&bytes), false)
            }
            Ok(Next::End) => (decoder.finish(), true),
            Ok(Next::Quiet) => continue,
            Err(()) => return Err(failed("STREAM_INTERRUPTED", "the connection broke")),
        };
        let events = events.map_err(|e| stream_error(&e))?;
        for event in events {
            match event {
                StreamEvent::Text { delta } => text.push_str(&delta),
                StreamEvent::Error { error } => {
                    return Err(failed("PROVIDER_ERROR", error.message));
                }
                _ => {}
            }
        }
        if ended || decoder.ended() {
            return Ok(text);
        }
    }
}

/// A title for the exchange `question` → `reply` from the user's title model; `None`
/// when that model fails or answers nothing usable.
pub(super) async fn generate_title(
    chat: Chat,
    model: &ModelChoice,
    question: &str,
    reply: &str,
) -> Option<String> {
    let request = title_request(&model.model, question, reply);
    match complete(chat, model, request).await {
        Ok(answer) => clean_generated_title(&answer),
        Err(error) => {
            leptos::logging::warn!("title model failed: {} ({})", error.code, error.message);
            None
        }
    }
}

/// A new summary of `path[..=through]` (merged with `current`) from the user's
/// compression model; `None` when that model fails or answers nothing usable.
pub(super) async fn generate_summary(
    chat: Chat,
    model: &ModelChoice,
    path: &[PathMessage<'_>],
    through: usize,
    current: Option<&Compression>,
) -> Option<Compression> {
    let request = compression::compression_request(&model.model, path, through, current);
    match complete(chat, model, request).await {
        Ok(answer) => compression::clean_summary(&answer).map(|summary| Compression {
            summary,
            through_message_id: path[through].id.to_string(),
        }),
        Err(error) => {
            leptos::logging::warn!(
                "compression model failed: {} ({})",
                error.code,
                error.message
            );
            None
        }
    }
}
