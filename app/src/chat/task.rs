//! Task-model calls: one request read to its end with nothing stored or shown while it
//! runs (a conversation's title, the summary of its older turns, the skills a turn's
//! model chooses, the questions suggested under an answer). They take the chat's
//! route (direct, or the relay when the browser is blocked) and the one stream reader,
//! bounded in size and total time, so a slow or chatty task model can neither hang nor
//! flood anything; a failure is returned to the caller, which falls back to what needs
//! no model.

use hearth_core::chat::GenerationError;
use hearth_core::chat::compression::{self, Compression, PathMessage};
use hearth_core::chat::title::{clean_generated_title, title_request};
use hearth_core::preferences::ModelRef;
use hearth_core::provider::StreamEvent;
use hearth_core::provider::request::ChatRequest;
use hearth_core::provider::tool_calls::{ToolCall, ToolCallAssembler};

use super::stream::{Chunk, EventReader, Limits};
use super::target::{Target, Targets};
use super::transport::{OpenError, open_model_stream};

/// The bounds of a task model's answer.
const TASK_LIMITS: Limits = Limits {
    max_bytes: 256 * 1024,
    silence_ms: 30_000.0,
    deadline_ms: Some(30_000.0),
};

/// What a task model answered: its text (reasoning left out) and the tool calls it made.
struct Answer {
    text: String,
    calls: Vec<ToolCall>,
}

/// Runs `request` on `model` to the end and returns the answer's text (reasoning left out).
async fn complete(
    targets: Targets,
    model: &ModelRef,
    request: ChatRequest,
) -> Result<String, GenerationError> {
    answer(targets, model, request).await.map(|a| a.text)
}

/// Runs `request` on `model` to the end.
async fn answer(
    targets: Targets,
    model: &ModelRef,
    request: ChatRequest,
) -> Result<Answer, GenerationError> {
    let Target {
        provider,
        key,
        capabilities,
    } = targets.resolve(model).await?;
    let controller = web_sys::AbortController::new()
        .map_err(|_| GenerationError::internal("AbortController is missing"))?;
    let signal = controller.signal();
    let stream = match open_model_stream(
        targets.providers,
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
            return Err(crate::chat::transport::unreachable());
        }
    };
    let mut reader = EventReader::new(stream, provider.kind.protocol().0, TASK_LIMITS);
    let mut text = String::new();
    let mut calls = ToolCallAssembler::default();
    loop {
        let (events, ended) = match reader.next(None).await {
            Ok(Chunk::Data(events)) => (events, false),
            Ok(Chunk::End(events)) => (events, true),
            Ok(Chunk::Quiet) => continue,
            Err(error) => {
                controller.abort();
                return Err(error.to_generation_error());
            }
        };
        for event in events {
            match event {
                StreamEvent::Text { delta } => text.push_str(&delta),
                StreamEvent::Error { error } => {
                    return Err(GenerationError::provider_error(&error.message));
                }
                call @ StreamEvent::ToolCall { .. } => calls.apply(&call),
                _ => {}
            }
        }
        if ended {
            return Ok(Answer {
                text,
                calls: calls.finish(),
            });
        }
    }
}

/// A title for the exchange `question` → `reply` from the user's title model; `None`
/// when that model fails or answers nothing usable.
pub async fn generate_title(
    targets: Targets,
    model: &ModelRef,
    question: &str,
    reply: &str,
) -> Option<String> {
    let request = title_request(&model.model, question, reply);
    match complete(targets, model, request).await {
        Ok(answer) => clean_generated_title(&answer),
        Err(error) => {
            leptos::logging::warn!("title model failed: {}", error.log_line());
            None
        }
    }
}

/// Follow-up questions to the exchange `question` → `reply` from the user's
/// related-questions model; none when that model fails or answers nothing usable.
pub async fn generate_related(
    targets: Targets,
    model: &ModelRef,
    question: &str,
    reply: &str,
) -> Vec<String> {
    let request = hearth_core::chat::related::related_request(&model.model, question, reply);
    match complete(targets, model, request).await {
        Ok(answer) => hearth_core::chat::related::clean_related(&answer, question),
        Err(error) => {
            leptos::logging::warn!("related-questions model failed: {}", error.log_line());
            Vec::new()
        }
    }
}

/// A new summary of `path[..=through]` (merged with `current`) from the user's
/// compression model; `None` when that model fails or answers nothing usable.
pub async fn generate_summary(
    targets: Targets,
    model: &ModelRef,
    path: &[PathMessage<'_>],
    through: usize,
    current: Option<&Compression>,
) -> Option<Compression> {
    let request = compression::compression_request(&model.model, path, through, current);
    match complete(targets, model, request).await {
        Ok(answer) => compression::clean_summary(&answer).map(|summary| Compression {
            summary,
            through_message_id: path[through].id.to_string(),
        }),
        Err(error) => {
            leptos::logging::warn!("compression model failed: {}", error.log_line());
            None
        }
    }
}

/// The tool calls `model` made answering `request` (the skills a turn applies, chosen
/// through `hearth_core::skill::turn::SELECT_TOOL`).
pub async fn tool_calls(
    targets: Targets,
    model: &ModelRef,
    request: ChatRequest,
) -> Result<Vec<ToolCall>, GenerationError> {
    answer(targets, model, request).await.map(|a| a.calls)
}
