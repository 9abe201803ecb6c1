//! One generation: plan the request from the active path (`hearth_core::context`), open
//! the stream (direct, or the relay when the provider blocks the browser), decode it
//! (`hearth_core::provider::StreamDecoder`), show it as it arrives, write the partial
//! reply at least every 500 ms, and store how it ended: done, stopped (`aborted`, text
//! kept), or failed (`generationError`, never written into the text). Then the next
//! queued message is sent.

use hearth_core::chat::compression;
use hearth_core::chat::record::Timings;
use hearth_core::chat::tools::{self, ToolRound};
use hearth_core::chat::{GenerationError, MessageRecord, MessageStatus, RunOutcome};
use hearth_core::context::{self, Item, PlanInput, estimate_tokens};
use hearth_core::plugin::selection::Toolset;
use hearth_core::plugin::tool_loop::{Budget, Round, final_round_instruction};
use hearth_core::provider::request::{ChatRequest, Message, ModelCapabilities, Part};
use hearth_core::provider::tool_calls::{ToolCall, ToolCallAssembler};
use hearth_core::provider::{
    FinishReason, MAX_STREAM_BYTES, StreamDecoder, StreamError, StreamEvent, Usage,
};
use leptos::prelude::*;
use serde_json::json;

use super::transport::{self, Next, OpenError, Stream};
use super::{Chat, ModelChoice, RunInfo, now};
use crate::providers::Provider;
use crate::storage::{Batch, MESSAGES};

/// How often a streaming reply is written to IndexedDB.
pub const FLUSH_MS: f64 = 500.0;

/// The instruction added (not stored) when the user asks to continue a reply.
const CONTINUE_PROMPT: &str =
    "Continue your previous answer exactly where it stopped. Do not repeat what you already wrote.";

/// What the run does with the reply's existing text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Writes a new reply.
    Fresh,
    /// Appends to an interrupted or stopped reply.
    Continue,
}

/// Everything the run needs, gathered before it starts; each round plans its request
/// from it ([`round_request`]).
struct Prepared {
    provider: Provider,
    key: Option<String>,
    capabilities: ModelCapabilities,
    /// The model id.
    model: String,
    /// The system prompt (with a compression summary, when one applies).
    system: Option<String>,
    /// The messages before the question that the planner may keep, oldest first.
    earlier: Vec<MessageRecord>,
    /// The question.
    newest: MessageRecord,
    /// What a continuation adds after the reply's rounds.
    continuation: Vec<Message>,
}

/// The reply as the run knows it (the source of truth while streaming; the screen and
/// the database follow it).
pub(super) struct Reply {
    run_id: u64,
    pub(super) conversation_id: String,
    pub(super) id: String,
    content: String,
    reasoning: String,
    /// The rounds that called tools, before the text of the current round.
    pub(super) rounds: Vec<ToolRound>,
    usage: Usage,
    finish: Option<FinishReason>,
    error: Option<GenerationError>,
    started: f64,
    first_token: Option<f64>,
}

/// Starts a run for `reply_id` in `conversation_id`.
pub fn start(chat: Chat, conversation_id: String, reply_id: String, mode: Mode) {
    let run_id = chat.next_run.get_value();
    chat.next_run.set_value(run_id + 1);
    let controller = web_sys::AbortController::new().ok();
    if let Some(controller) = &controller {
        chat.aborts
            .update_value(|a| drop(a.insert(conversation_id.clone(), controller.clone())));
    }
    chat.runs.update(|runs| {
        runs.insert(
            conversation_id.clone(),
            RunInfo {
                message_id: reply_id.clone(),
                run_id,
            },
        );
    });
    let providers = chat.providers;
    chat.spawn(async move {
        let outcome = run(
            chat,
            providers,
            (&conversation_id, &reply_id, run_id),
            mode,
            controller,
        )
        .await;
        chat.finish_run(&conversation_id, run_id);
        let next = chat.queues.try_update(|queues| {
            queues
                .get_mut(&conversation_id)
                .and_then(|queue| queue.next_after(outcome))
        });
        if let Some(Some(message)) = next
            && chat.current.get_untracked().as_deref() == Some(&conversation_id)
        {
            chat.send(message.text);
        }
    });
}

async fn run(
    chat: Chat,
    providers: crate::providers::Providers,
    (conversation_id, reply_id, run_id): (&str, &str, u64),
    mode: Mode,
    controller: Option<web_sys::AbortController>,
) -> RunOutcome {
    let Some(live) = chat.live(reply_id) else {
        return RunOutcome::Failed;
    };
    let record = live.snapshot();
    let continuing = mode == Mode::Continue;
    let mut reply = Reply {
        run_id,
        conversation_id: conversation_id.to_string(),
        id: reply_id.to_string(),
        content: if continuing {
            record.content.clone()
        } else {
            String::new()
        },
        reasoning: if continuing {
            record.reasoning.clone()
        } else {
            String::new()
        },
        rounds: if continuing {
            record.tool_rounds.clone()
        } else {
            Vec::new()
        },
        usage: Usage::default(),
        finish: None,
        error: None,
        started: now(),
        first_token: None,
    };
    chat.show_reply(&reply, MessageStatus::Streaming);
    let prepared = match prepare(chat, providers, &record, mode).await {
        Ok(prepared) => prepared,
        Err(error) => {
            reply.error = Some(error);
            return chat.end(reply, MessageStatus::Error).await;
        }
    };
    let Some(controller) = controller else {
        reply.error = Some(GenerationError::new(
            "INTERNAL",
            "AbortController is missing",
            true,
        ));
        return chat.end(reply, MessageStatus::Error).await;
    };
    // Tools only for a model that takes them, and never on a continuation (it finishes
    // the text it was writing).
    let toolset = if prepared.capabilities.tools && !continuing {
        chat.toolset().await
    } else {
        Toolset::default()
    };
    let mut budget = Budget::new();
    loop {
        let round = if toolset.is_empty() {
            Round::Final
        } else {
            budget.next_round()
        };
        let request = match round_request(&prepared, &reply.rounds, &toolset, round) {
            Ok(request) => request,
            Err(error) => {
                reply.error = Some(error);
                return chat.end(reply, MessageStatus::Error).await;
            }
        };
        let calls = match stream_round(
            chat,
            providers,
            &prepared,
            &request,
            &mut reply,
            &controller,
        )
        .await
        {
            Ok(calls) => calls,
            Err(status) => return chat.end(reply, status).await,
        };
        // A final round's calls are not run: it was offered no tools.
        if calls.is_empty() || round == Round::Final {
            return chat.end(reply, MessageStatus::Done).await;
        }
        let admission = budget.admit(calls.len());
        let mut tool_round = ToolRound {
            text: std::mem::take(&mut reply.content),
            reasoning: std::mem::take(&mut reply.reasoning),
            calls: calls.iter().map(super::tools::record_of).collect(),
        };
        for call in tool_round.calls.iter_mut().skip(admission.run) {
            call.skip();
        }
        reply.rounds.push(tool_round);
        reply.finish = None;
        chat.show_reply(&reply, MessageStatus::Streaming);
        chat.flush(&reply).await;
        super::tools::run_calls(
            chat,
            &mut reply,
            &calls,
            admission.run,
            &toolset,
            &controller,
        )
        .await;
        chat.show_reply(&reply, MessageStatus::Streaming);
        if controller.signal().aborted() {
            return chat.end(reply, MessageStatus::Aborted).await;
        }
        chat.flush(&reply).await;
    }
}

/// The request of one round, planned by `core::context` as a whole: the question, the
/// system prompt, the tools offered, the reply's tool rounds so far and a continuation
/// are the fixed part; the earlier history fills what is left, whole turns, newest first.
/// In the final round after tools were used, the system prompt says to answer.
fn round_request(
    prepared: &Prepared,
    rounds: &[ToolRound],
    toolset: &Toolset,
    round: Round,
) -> Result<ChatRequest, GenerationError> {
    let tools = match round {
        Round::WithTools => toolset.specs.clone(),
        Round::Final => Vec::new(),
    };
    let system = match (round, &prepared.system) {
        (Round::Final, system) if !toolset.is_empty() => {
            let instruction = final_round_instruction();
            Some(match system {
                Some(system) => format!("{system}\n\n{instruction}"),
                None => instruction,
            })
        }
        (_, system) => system.clone(),
    };
    let mut current = tools::messages(rounds);
    current.extend(prepared.continuation.iter().cloned());
    let fixed = estimate_tokens(&prepared.newest.content)
        + system.as_deref().map_or(0, estimate_tokens)
        + estimate_tokens(&serde_json::to_string(&tools).unwrap_or_default())
        + estimate_tokens(&serde_json::to_string(&current).unwrap_or_default());
    // Whole turns (a question with its answer), oldest first.
    let mut turns: Vec<Vec<Item>> = Vec::new();
    for message in &prepared.earlier {
        let item = Item {
            id: message.id.clone(),
            tokens: message_tokens(message),
        };
        match turns.last_mut() {
            Some(turn) if !message.is_user() => turn.push(item),
            _ => turns.push(vec![item]),
        }
    }
    let plan = context::plan(&PlanInput {
        context_window: prepared.capabilities.context_window,
        output_reservation: prepared.capabilities.max_output_tokens,
        fixed_tokens: fixed,
        history: turns,
        extras: Vec::new(),
    })
    .map_err(|error| GenerationError::new(error.code(), error.to_string(), error.recoverable()))?;
    let mut messages: Vec<Message> = prepared
        .earlier
        .iter()
        .filter(|m| plan.history.contains(&m.id))
        .flat_map(to_messages)
        .collect();
    messages.extend(to_messages(&prepared.newest));
    messages.extend(current);
    Ok(ChatRequest {
        model: prepared.model.clone(),
        system,
        messages,
        tools,
        ..Default::default()
    })
}

/// Streams one round into `reply`: its text and reasoning shown as they arrive, the
/// partial reply written at least every 500 ms, and the tool calls it asked for
/// returned. `Err` is how the reply ends instead (stopped, failed), with `reply.error`
/// set for a failure.
async fn stream_round(
    chat: Chat,
    providers: crate::providers::Providers,
    prepared: &Prepared,
    request: &ChatRequest,
    reply: &mut Reply,
    controller: &web_sys::AbortController,
) -> Result<Vec<ToolCall>, MessageStatus> {
    let signal = controller.signal();
    let stream = match open(
        providers,
        &prepared.provider,
        prepared.key.as_deref(),
        request,
        &prepared.capabilities,
        &signal,
    )
    .await
    {
        Ok(stream) => stream,
        Err(OpenError::Aborted) => return Err(MessageStatus::Aborted),
        Err(OpenError::Failed(error)) => {
            reply.error = Some(error);
            return Err(MessageStatus::Error);
        }
        Err(OpenError::Blocked) => {
            reply.error = Some(blocked_error());
            return Err(MessageStatus::Error);
        }
    };
    let protocol = prepared.provider.kind.protocol().0;
    let mut decoder = StreamDecoder::new(protocol);
    let mut assembler = ToolCallAssembler::new();
    let mut round_usage = Usage::default();
    let silence_ms = stream_silence_ms().await;
    let mut last_flush = now();
    let mut last_bytes = now();
    let mut dirty = false;
    let mut received = 0usize;
    let ended = loop {
        // Never wait past the next flush (a stalled provider must not keep what already
        // arrived off the disk) or past the silence limit.
        let silent_for = now() - last_bytes;
        if silent_for >= silence_ms {
            controller.abort();
            reply.error = Some(GenerationError::new(
                "RESPONSE_TIMEOUT",
                format!(
                    "The provider sent nothing for {} s, so the reply was given up; what \
                     arrived is kept",
                    (silence_ms / 1000.0).round()
                ),
                true,
            ));
            break Err(MessageStatus::Error);
        }
        let mut wait = silence_ms - silent_for;
        if dirty {
            wait = wait.min(FLUSH_MS - (now() - last_flush));
        }
        let next = stream.next_within(wait.max(1.0) as i32).await;
        if signal.aborted() {
            break Err(MessageStatus::Aborted);
        }
        let (events, ended) = match next {
            Ok(Next::Bytes(bytes)) => {
                last_bytes = now();
                // Bounded like the relay: a provider's stream is outside input.
                received += bytes.len();
                if received > MAX_STREAM_BYTES {
                    controller.abort();
                    reply.error = Some(GenerationError::new(
                        "RESPONSE_SIZE_LIMIT",
                        format!(
                            "The reply grew past {} MiB and was cut there; what arrived is kept",
                            MAX_STREAM_BYTES / (1024 * 1024)
                        ),
                        false,
                    ));
                    break Err(MessageStatus::Error);
                }
                (decoder.push(&bytes), false)
            }
            Ok(Next::End) => (decoder.finish(), true),
            Ok(Next::Quiet) => (Ok(Vec::new()), false),
            Err(()) => {
                reply.error = Some(GenerationError::new(
                    "STREAM_INTERRUPTED",
                    "The connection to the provider broke; what arrived is kept",
                    true,
                ));
                break Err(MessageStatus::Error);
            }
        };
        match events {
            Ok(events) if !events.is_empty() => {
                chat.apply(reply, &mut assembler, &mut round_usage, events);
                dirty = true;
            }
            Ok(_) => {}
            Err(error) => {
                reply.error = Some(stream_error(&error));
                break Err(MessageStatus::Error);
            }
        }
        if reply.error.is_some() {
            break Err(MessageStatus::Error);
        }
        if ended || decoder.ended() {
            break Ok(());
        }
        if dirty && now() - last_flush >= FLUSH_MS {
            last_flush = now();
            dirty = false;
            chat.flush(reply).await;
        }
    };
    reply.usage.add(round_usage);
    ended.map(|()| assembler.finish())
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

fn blocked_error() -> GenerationError {
    GenerationError::new(
        "PROVIDER_UNREACHABLE",
        "The browser may not call this provider directly (it does not allow cross-origin \
         requests, or it is unreachable), and the edge relay could not reach it either. \
         Check the provider's URL in Settings → Providers, or start the local server.",
        true,
    )
}

pub(super) fn stream_error(error: &StreamError) -> GenerationError {
    match error {
        StreamError::Truncated => GenerationError::new(
            "STREAM_TRUNCATED",
            "The reply ended before the provider finished it; what arrived is kept",
            true,
        ),
        other => GenerationError::new("STREAM_MALFORMED", other.to_string(), true),
    }
}

/// Direct first (unless known to need the relay); the relay when the browser is blocked.
pub(super) async fn open(
    providers: crate::providers::Providers,
    provider: &Provider,
    key: Option<&str>,
    request: &ChatRequest,
    capabilities: &ModelCapabilities,
    signal: &web_sys::AbortSignal,
) -> Result<Stream, OpenError> {
    if !provider.via_relay {
        match transport::open_direct(provider, key, request, capabilities, signal).await {
            Err(OpenError::Blocked) => {}
            other => return other,
        }
    }
    match transport::open_relay(provider, key, request, capabilities, signal).await {
        Ok(stream) => {
            let _ = providers.mark_via_relay(&provider.id).await;
            Ok(stream)
        }
        Err(OpenError::Blocked) => Err(OpenError::Failed(blocked_error())),
        Err(OpenError::Failed(error)) if !provider.via_relay => {
            let mut error = error;
            error.message = format!("{} ({})", blocked_error().message, error.message);
            Err(OpenError::Failed(error))
        }
        other => other,
    }
}

/// The provider, key and capabilities a call to `model` uses.
pub(super) struct Target {
    pub provider: Provider,
    pub key: Option<String>,
    pub capabilities: ModelCapabilities,
}

/// Finds `model`'s provider and key, and its capabilities: the listing's, with what the
/// user corrected in Settings › Models laid over them.
pub(super) async fn target(
    chat: Chat,
    providers: crate::providers::Providers,
    model: &ModelChoice,
) -> Result<Target, GenerationError> {
    let provider = providers
        .list
        .with_untracked(|list| list.iter().find(|p| p.id == model.provider_id).cloned())
        .ok_or_else(|| {
            GenerationError::new(
                "PROVIDER_MISSING",
                "The provider of this model was removed; choose another model",
                false,
            )
        })?;
    let key = providers
        .api_key(&model.provider_id)
        .await
        .map_err(|e| GenerationError::new("KEY_UNREADABLE", e.to_string(), false))?;
    let listed = providers
        .models()
        .with_untracked(|m| {
            m.get(&model.provider_id)
                .and_then(|list| list.iter().find(|info| info.id == model.model))
                .map(|info| info.capabilities)
        })
        .unwrap_or_default();
    let capabilities = chat
        .prefs
        .value
        .with_untracked(|prefs| prefs.capabilities(model, listed));
    Ok(Target {
        provider,
        key,
        capabilities,
    })
}

/// Gathers the provider, key, capabilities and the planned history.
async fn prepare(
    chat: Chat,
    providers: crate::providers::Providers,
    reply: &MessageRecord,
    mode: Mode,
) -> Result<Prepared, GenerationError> {
    let model = ModelChoice {
        provider_id: reply.provider_id.clone().unwrap_or_default(),
        model: reply.model.clone().unwrap_or_default(),
    };
    let Target {
        provider,
        key,
        capabilities,
    } = target(chat, providers, &model).await?;
    let system = chat.prefs.value.with_untracked(|p| p.system_prompt());
    // The active path up to the reply, without it.
    let path = chat.path.get_untracked();
    let end = path
        .iter()
        .position(|id| *id == reply.id)
        .unwrap_or(path.len());
    let history: Vec<MessageRecord> = path[..end]
        .iter()
        .filter_map(|id| chat.live(id).map(|l| l.snapshot()))
        .filter(|m| m.is_user() || !m.content.trim().is_empty() || !m.tool_rounds.is_empty())
        .collect();
    let Some((newest, earlier)) = history.split_last() else {
        return Err(GenerationError::new(
            "NO_MESSAGES",
            "There is nothing to answer",
            false,
        ));
    };
    // A summary of older turns (Settings › Models › compression) replaces them, while the
    // message it reaches is on this path.
    let compression = chat.conversations.with_untracked(|list| {
        list.iter()
            .find(|c| c.id == reply.conversation_id)
            .and_then(|c| c.compression.clone())
    });
    let (summary, start) = {
        let view = path_view(earlier);
        match compression::applied(&view, compression.as_ref()) {
            Some((summary, start)) => (Some(summary.to_string()), start),
            None => (None, 0),
        }
    };
    let earlier = &earlier[start..];
    let system = compression::system_with_summary(system, summary.as_deref());
    let mut continuation = Vec::new();
    if mode == Mode::Continue {
        continuation.push(Message::Assistant {
            text: reply.content.clone(),
            tool_calls: Vec::new(),
        });
        continuation.push(user(CONTINUE_PROMPT));
    }
    Ok(Prepared {
        provider,
        key,
        capabilities,
        model: model.model,
        system,
        earlier: earlier.to_vec(),
        newest: newest.clone(),
        continuation,
    })
}

/// `messages` as compression sees them.
pub(super) fn path_view(messages: &[MessageRecord]) -> Vec<compression::PathMessage<'_>> {
    messages
        .iter()
        .map(|m| compression::PathMessage {
            id: &m.id,
            user: m.is_user(),
            text: &m.content,
        })
        .collect()
}

fn user(text: &str) -> Message {
    Message::User {
        parts: vec![Part::Text {
            text: text.to_string(),
        }],
    }
}

/// A stored message as the request carries it: a reply that called tools is its rounds
/// (the calls and their results) followed by its final text.
fn to_messages(record: &MessageRecord) -> Vec<Message> {
    if record.is_user() {
        return vec![user(&record.content)];
    }
    let mut out = tools::messages(&record.tool_rounds);
    out.push(Message::Assistant {
        text: record.content.clone(),
        tool_calls: Vec::new(),
    });
    out
}

/// Tokens a stored message costs a request, its tool rounds included.
fn message_tokens(record: &MessageRecord) -> u64 {
    let rounds: usize = record
        .tool_rounds
        .iter()
        .map(ToolRound::context_chars)
        .sum();
    estimate_tokens(&record.content) + (rounds as u64).div_ceil(4)
}

impl Chat {
    /// Marks run `run_id` of `conversation_id` as over (a later run is left alone).
    fn finish_run(&self, conversation_id: &str, run_id: u64) {
        self.aborts
            .update_value(|a| drop(a.remove(conversation_id)));
        self.runs.update(|runs| {
            if runs
                .get(conversation_id)
                .is_some_and(|r| r.run_id == run_id)
            {
                runs.remove(conversation_id);
            }
        });
    }

    /// Applies decoded events to the reply and the screen; tool-call fragments go to
    /// `calls`, the round's usage to `usage`.
    fn apply(
        &self,
        reply: &mut Reply,
        calls: &mut ToolCallAssembler,
        usage: &mut Usage,
        events: Vec<StreamEvent>,
    ) {
        let mut text = String::new();
        let mut reasoning = String::new();
        for event in events {
            match event {
                StreamEvent::Text { delta } => text.push_str(&delta),
                StreamEvent::Reasoning { delta } => reasoning.push_str(&delta),
                // A refusal is the model's answer, in its words: shown as the reply.
                StreamEvent::Refusal { delta } => text.push_str(&delta),
                StreamEvent::Usage { usage: reported } => usage.merge(reported),
                StreamEvent::Finish { reason } => reply.finish = Some(reason),
                StreamEvent::Error { error } => {
                    reply.error = Some(GenerationError::new(
                        "PROVIDER_ERROR",
                        error.message.clone(),
                        true,
                    ));
                }
                call @ StreamEvent::ToolCall { .. } => calls.apply(&call),
                // Images arrive with output blocks.
                StreamEvent::Image { .. } => {}
            }
        }
        if (!text.is_empty() || !reasoning.is_empty()) && reply.first_token.is_none() {
            reply.first_token = Some(now());
        }
        reply.content.push_str(&text);
        reply.reasoning.push_str(&reasoning);
        if let Some(live) = self.live(&reply.id) {
            if !text.is_empty() {
                live.content.update(|c| c.push_str(&text));
            }
            if !reasoning.is_empty() {
                live.reasoning.update(|r| r.push_str(&reasoning));
            }
        }
    }

    pub(super) fn show_reply(&self, reply: &Reply, status: MessageStatus) {
        if let Some(live) = self.live(&reply.id) {
            if live.content.with_untracked(|c| *c != reply.content) {
                live.content.set(reply.content.clone());
            }
            if live.reasoning.with_untracked(|r| *r != reply.reasoning) {
                live.reasoning.set(reply.reasoning.clone());
            }
            live.record.update(|r| {
                if r.tool_rounds != reply.rounds {
                    r.tool_rounds = reply.rounds.clone();
                }
                r.status = status;
                r.generation_error = reply.error.clone();
                r.usage = reply.usage;
                r.finish_reason = reply.finish.clone();
                r.timings = timings(reply, status);
            });
        }
    }

    /// Writes the partial reply (the 500 ms flush).
    pub(super) async fn flush(&self, reply: &Reply) {
        let mut batch = Batch::new();
        batch.merge(
            MESSAGES,
            &reply.id,
            json!({
                "content": reply.content,
                "reasoning": reply.reasoning,
                "toolRounds": reply.rounds,
                "status": MessageStatus::Streaming,
                "updatedAt": now(),
            }),
        );
        let _ = self.write(&batch).await;
    }

    /// Stores how the reply ended and shows it.
    async fn end(&self, reply: Reply, status: MessageStatus) -> RunOutcome {
        self.show_reply(&reply, status);
        // The reply is final on screen, so its actions are available from now on.
        self.finish_run(&reply.conversation_id, reply.run_id);
        let mut batch = Batch::new();
        batch.merge(
            MESSAGES,
            &reply.id,
            json!({
                "content": reply.content,
                "reasoning": reply.reasoning,
                "toolRounds": reply.rounds,
                "status": status,
                "generationError": reply.error,
                "usage": reply.usage,
                "timings": timings(&reply, status),
                "finishReason": reply.finish,
                "updatedAt": now(),
            }),
        );
        let _ = self.write(&batch).await;
        if status == MessageStatus::Done {
            let question = self
                .live(&reply.id)
                .and_then(|l| l.record.with_untracked(|r| r.parent_id.clone()))
                .and_then(|parent| self.live(&parent))
                .map(|l| l.content.get_untracked())
                .unwrap_or_default();
            // In the background: a title model's call must not hold up the queue.
            let chat = *self;
            let conversation_id = reply.conversation_id.clone();
            let answer = reply.content.clone();
            self.spawn(async move {
                chat.auto_title(&conversation_id, &question, &answer).await;
                chat.compress(&conversation_id).await;
            });
        }
        match status {
            MessageStatus::Done => RunOutcome::Completed,
            MessageStatus::Aborted => RunOutcome::Stopped,
            _ => RunOutcome::Failed,
        }
    }
}

fn timings(reply: &Reply, status: MessageStatus) -> Timings {
    let ms = |at: f64| (at - reply.started).max(0.0) as u64;
    Timings {
        first_token_ms: reply.first_token.map(ms),
        total_ms: (status != MessageStatus::Streaming).then(|| ms(now())),
    }
}
