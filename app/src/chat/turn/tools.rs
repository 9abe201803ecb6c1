//! The calls of one round that asked for tools. Each call is resolved to the function
//! the toolset offered under its name (an unknown or colliding name, or arguments that
//! are not a JSON object, is answered with an error result the model can act on),
//! confirmed when the user's mode asks for it (`hearth_core::plugin::approval`), and
//! executed through the edge with the fingerprint it was offered with (the built-in image
//! generator and the memory proposal run here instead: `images`, `super::memory`). Calls
//! run in
//! groups of four, results kept in the model's order; each call's card follows its
//! status live, and the reply is written after every group.
//!
//! Before a reply offers tools, the MCP servers whose tool lists are due (the keeping
//! time ran out, or the credential changed) are listed again, all at once and for at
//! most two seconds, in a lazy chunk (`relist`); what came and went, or why a list could
//! not be refreshed, is said in a toast.
//!
//! A call waiting for the user is denied when the reply is stopped or the user leaves
//! the conversation (fail closed); a reload denies it through the stored record
//! (`ToolCallRecord::reopened`). A denial is the call's result, so the model continues.
//! A question the model asks the user (`ask_user`) is different: it runs nothing, so it
//! waits stored, across reloads, and the reply ends until it is answered; so does a call
//! whose MCP server asks the user first (`super::elicitation`).

use hearth_core::api::ErrorCode;
use hearth_core::ask_user::{self, ASK_USER_PLUGIN_ID};
use hearth_core::chat::MessageStatus;
use hearth_core::chat::tools::{ToolCallRecord, ToolCallStatus};
use hearth_core::memory::proposal::MEMORY_PLUGIN_ID;
use hearth_core::plugin::approval::{self, Decision, Offer};
use hearth_core::plugin::builtin::IMAGE_GENERATOR_ID;
use hearth_core::plugin::selection::{self, ToolTarget, Toolset};
use hearth_core::plugin::tool_loop::batches;
use hearth_core::provider::tool_calls::ToolCall;
use hearth_core::web_search::policy::WEB_SEARCH_PLUGIN_ID;
use leptos::prelude::*;
use serde_json::Value;

use super::TurnContext;
use super::reply::Reply;
use crate::browser::{now, sleep_ms};
use crate::edge::EdgeError;
use crate::i18n::Key;
use crate::plugins::{Answer, CallError, ListState, answer_key};
use crate::ui::toast::ToastKind;

/// How often a waiting call looks for the user's answer, in ms.
const ANSWER_POLL_MS: i32 = 100;

/// The tools a reply offers now: the edge's plugins under the user's switches, or only
/// those its conversation's assistant or workspace names.
pub(super) async fn toolset(
    context: TurnContext,
    limits: hearth_core::workspace::scope::Limits<'_>,
) -> Toolset {
    context.plugins.ensure_listed().await;
    // Without the list, the reply goes ahead without installed tools; say so rather
    // than leave the user wondering why none was used.
    if let ListState::Failed(error) = context.plugins.state.get_untracked() {
        context.toasts.show(
            ToastKind::Info,
            context.i18n.t_with(
                Key::ToolsUnavailable,
                &[(
                    "reason",
                    &crate::i18n::edge_errors::describe(&context.i18n, &error),
                )],
            ),
        );
    }
    let prefs = context.prefs.value.with_untracked(|p| p.tools.clone());
    let stale = context.plugins.stale_tool_lists(&prefs, now());
    if !stale.is_empty() {
        relist(context, stale).await;
    }
    let builtins = context.plugins.builtins.get_untracked();
    let installed = context.plugins.installed.get_untracked();
    let ids = builtins
        .iter()
        .chain(&installed)
        .map(|r| r.plugin.id.as_str());
    let prefs = hearth_core::workspace::scope::tool_preferences(&prefs, limits, ids);
    selection::toolset(&builtins, &installed, &prefs)
}

/// Whether the model may ask the user questions (`ask_user`): off, like every built-in
/// tool, until the user switches it on in Settings › Tools.
pub(super) fn asks_questions(context: TurnContext) -> bool {
    context
        .prefs
        .value
        .with_untracked(|p| p.tools.plugins.get(ASK_USER_PLUGIN_ID).copied())
        .unwrap_or(false)
}

/// How long a reply waits for stale tool lists before it goes on with the lists in hand,
/// in ms: a slow or hung server must not hold every reply for its whole deadline.
const RELIST_WAIT_MS: i32 = 2_000;

/// Lists the tools of the MCP plugins `ids` again (their lists are stale), all at once,
/// waiting at most [`RELIST_WAIT_MS`]; a list that comes later serves the next reply.
/// What came and went, or why a list could not be refreshed, is said in a toast when it
/// is known: news, not failures (the reply goes on either way). Loaded only when a list
/// is stale.
#[lazy]
async fn relist(context: TurnContext, ids: Vec<String>) {
    // The listing runs on its own, so a list that answers after the wait still lands.
    let (finished, done) = futures::channel::oneshot::channel::<()>();
    leptos::task::spawn_local(async move {
        let plugins = context.plugins;
        let each = ids.into_iter().map(|id| async move {
            let title = plugins
                .find(&id)
                .map(|p| p.title)
                .unwrap_or_else(|| id.clone());
            (title, plugins.refresh_tools(&id).await)
        });
        for (title, answer) in futures::future::join_all(each).await {
            let text = match answer {
                Ok(done) if done.added.is_empty() && done.removed.is_empty() => continue,
                Ok(done) => context.i18n.t_with(
                    Key::ToolsChanged,
                    &[
                        ("title", &title),
                        ("added", &done.added.len().to_string()),
                        ("removed", &done.removed.len().to_string()),
                    ],
                ),
                Err(reason) => context.i18n.t_with(
                    Key::ToolsNotRelisted,
                    &[("title", &title), ("reason", &reason.to_string())],
                ),
            };
            context.toasts.show(ToastKind::Info, text);
        }
        let _ = finished.send(());
    });
    let waited = sleep_ms(RELIST_WAIT_MS);
    futures::pin_mut!(waited);
    futures::future::select(done, waited).await;
}

/// Runs the first `run` calls of the reply's last round (the rest were skipped).
pub(super) async fn run_calls(
    context: TurnContext,
    reply: &mut Reply,
    calls: &[ToolCall],
    run: usize,
    toolset: &Toolset,
    search: Option<&super::web_search::TurnWebSearch>,
    controller: &web_sys::AbortController,
) {
    let Some(round) = reply.rounds.len().checked_sub(1) else {
        return;
    };
    // Every card shows what it will call before anything runs.
    for call in &mut reply.rounds[round].calls {
        if let Some(target) = toolset.targets.get(&call.name) {
            call.plugin_id = Some(target.plugin_id.clone());
            call.plugin_title = Some(target.plugin_title.clone());
            call.risk = Some(target.risk);
            call.fingerprint = Some(target.fingerprint.clone());
        }
    }
    reply.show(MessageStatus::Streaming);
    for batch in batches(run) {
        if controller.signal().aborted() {
            break;
        }
        let work = batch.clone().map(|index| {
            one_call(
                context,
                &*reply,
                Place {
                    conversation_id: reply.conversation_id.clone(),
                    reply_id: reply.live.id(),
                    round,
                    index,
                },
                &calls[index],
                Offered { toolset, search },
                reply.rounds[round].calls[index].clone(),
                controller.signal(),
            )
        });
        let settled = futures::future::join_all(work).await;
        for (index, record) in batch.zip(settled) {
            reply.rounds[round].calls[index] = record;
        }
        // The pages the batch's searches found are numbered now, in the calls' order.
        if let Some(search) = search {
            search.number(reply, round);
        }
        reply.show(MessageStatus::Streaming);
        reply.flush(context.store).await;
    }
    // Stopped: what never ran is denied, so nothing is left that might still run. A
    // question for the user runs nothing: it stays open unless the reply was stopped.
    let stopped = controller.signal().aborted();
    for call in &mut reply.rounds[round].calls {
        let question = call.status == ToolCallStatus::AwaitingAnswer;
        if !call.status.is_settled() && (stopped || !question) {
            call.deny();
        }
    }
}

/// What a call can run: the reply's tools, and its searching (when it searches).
#[derive(Clone, Copy)]
struct Offered<'a> {
    toolset: &'a Toolset,
    search: Option<&'a super::web_search::TurnWebSearch>,
}

/// Where a call's card is.
struct Place {
    conversation_id: String,
    reply_id: String,
    round: usize,
    index: usize,
}

fn unknown_tool(name: &str, toolset: &Toolset) -> String {
    match toolset.collisions.iter().find(|c| c.name == name) {
        Some(collision) => format!("{collision}; it was not offered. Use another tool."),
        None if name.is_empty() => "The call named no tool.".to_string(),
        None => format!("There is no tool named {name}; call only the tools offered."),
    }
}

async fn one_call(
    context: TurnContext,
    reply: &Reply,
    place: Place,
    call: &ToolCall,
    offered: Offered<'_>,
    mut record: ToolCallRecord,
    signal: web_sys::AbortSignal,
) -> ToolCallRecord {
    let Offered { toolset, search } = offered;
    let Some(target) = toolset.targets.get(&call.name) else {
        record.settle(
            ToolCallStatus::Failed,
            unknown_tool(&call.name, toolset),
            true,
        );
        return record;
    };
    let args = match &call.arguments {
        Ok(map) => Value::Object(map.clone()),
        Err(error) => {
            record.settle(
                ToolCallStatus::Failed,
                format!("The arguments could not be used: {error}. Call the tool again with a JSON object."),
                true,
            );
            return record;
        }
    };
    // A question for the user waits, stored, for their answer; the reply ends here and
    // goes on once it is answered (`crate::chat::Chat::answer_question`).
    if target.plugin_id == ASK_USER_PLUGIN_ID {
        let empty = serde_json::Map::new();
        match ask_user::questions_of(args.as_object().unwrap_or(&empty)) {
            Ok(_) => record.status = ToolCallStatus::AwaitingAnswer,
            Err(why) => record.settle(ToolCallStatus::Failed, why, true),
        }
        reply.show_call(place.round, place.index, &record);
        return record;
    }
    // Searching reads the web and never asks (as in Neo Chat); it answers at once.
    if target.plugin_id == WEB_SEARCH_PLUGIN_ID {
        record.status = ToolCallStatus::Running;
        reply.show_call(place.round, place.index, &record);
        let started = now();
        match search {
            Some(search) => search.call(&args, &signal, &mut record).await,
            None => record.settle(ToolCallStatus::Failed, "Web search is off.", true),
        }
        record.duration_ms = Some((now() - started).max(0.0) as u64);
        reply.show_call(place.round, place.index, &record);
        return record;
    }
    let mode = context.prefs.value.with_untracked(|p| p.tools.confirm);
    let decision = context
        .plugins
        .approvals
        .with_untracked(|a| approval::decide(mode, a, &target.approval_key()));
    if let Decision::Ask(offer) = decision {
        record.status = ToolCallStatus::AwaitingApproval;
        reply.show_call(place.round, place.index, &record);
        // Stored at once: another tab shows the question (and answers it through the
        // channel), a reload finds the call waiting and denies it.
        reply.store_shown_calls(context.store).await;
        let key = answer_key(&place.reply_id, place.round, place.index);
        match wait_for_answer(context, &key, &place.conversation_id, &signal).await {
            Answer::Deny => {
                record.deny();
                return record;
            }
            Answer::AllowSession if offer == Offer::OnceOrSession => {
                context.plugins.approve(target.approval_key());
            }
            Answer::AllowSession | Answer::AllowOnce => {}
        }
    }
    if signal.aborted() {
        record.deny();
        return record;
    }
    record.status = ToolCallStatus::Running;
    reply.show_call(place.round, place.index, &record);
    let started = now();
    let mut running = record.clone();
    // Stop does not wait for a slow tool: the call is given up (the edge may still
    // finish it, so the card says its effect is unknown).
    let finished = {
        let work = async {
            if target.plugin_id == IMAGE_GENERATOR_ID {
                generate_image(context, target, &args, &signal, &mut running).await;
            } else if target.plugin_id == MEMORY_PLUGIN_ID {
                super::memory::propose(reply, &args, &mut running).await;
            } else {
                execute(context, target, args, None, &signal, &mut running).await;
            }
        };
        let stopped = async {
            while !signal.aborted() {
                sleep_ms(ANSWER_POLL_MS).await;
            }
        };
        futures::pin_mut!(work, stopped);
        matches!(
            futures::future::select(work, stopped).await,
            futures::future::Either::Left(_)
        )
    };
    // A call cut by the stop fails with the stop's reason, not the aborted request's.
    let given_up = !finished || (signal.aborted() && running.status != ToolCallStatus::Done);
    if !given_up {
        record = running;
    } else {
        record.settle(
            ToolCallStatus::Failed,
            "The reply was stopped while the call ran; whether it took effect is unknown.",
            true,
        );
        record.duration_ms = Some((now() - started).max(0.0) as u64);
    }
    reply.show_call(place.round, place.index, &record);
    record
}

/// Runs the built-in image generator here in the browser and settles `record`.
async fn generate_image(
    context: TurnContext,
    target: &ToolTarget,
    args: &Value,
    signal: &web_sys::AbortSignal,
    record: &mut ToolCallRecord,
) {
    let started = now();
    let empty = serde_json::Map::new();
    let map = args.as_object().unwrap_or(&empty);
    match crate::chat::images::generate(context.targets, &target.function, map, signal).await {
        Ok(made) => {
            record.settle(ToolCallStatus::Done, made.text, false);
            record.files = made.files;
        }
        Err(why) => record.settle(ToolCallStatus::Failed, why.to_string(), true),
    }
    record.duration_ms = Some((now() - started).max(0.0) as u64);
}

/// Sends the call to the edge (with the user's `replies` to its server's questions, when
/// it asked) and settles `record` with the outcome, or leaves it waiting for the user
/// when its server asks first (`super::elicitation`).
pub(super) async fn execute(
    context: TurnContext,
    target: &ToolTarget,
    args: Value,
    replies: Option<(Value, Option<String>)>,
    signal: &web_sys::AbortSignal,
    record: &mut ToolCallRecord,
) {
    let started = now();
    match context
        .plugins
        .execute(
            &target.plugin_id,
            &target.function,
            &target.fingerprint,
            args,
            replies,
            Some(signal),
        )
        .await
    {
        Ok(response) if response.input_required.is_some() => {
            if let Some(asked) = response.input_required {
                hearth_core::plugin::elicitation::ask(record, asked);
            }
            record.duration_ms = Some(response.duration_ms);
        }
        Ok(response) => {
            let result = response.result;
            // An MCP App's page shows the structured content; the model reads the text.
            if target.has_page {
                record.structured =
                    hearth_core::plugin::mcp_app::kept_structured(result.structured.as_ref());
            }
            let text = match (&result.structured, result.text.is_empty()) {
                (Some(structured), true) => structured.to_string(),
                _ => result.text,
            };
            record.settle(ToolCallStatus::Done, text, result.is_error);
            hearth_core::plugin::elicitation::settled(record);
            record.truncated = result.truncated;
            let (kept, dropped) = keep_images(&result.images).await;
            record.files = kept;
            record.images = dropped;
            record.duration_ms = Some(response.duration_ms);
        }
        Err(error) => {
            if let CallError::Edge(EdgeError::Api(api)) = &error
                && api.code == ErrorCode::FingerprintMismatch
            {
                // The plugin changed under the reply: list again for the next one.
                let plugins = context.plugins;
                leptos::task::spawn_local(async move { plugins.refresh().await });
            }
            record.settle(ToolCallStatus::Failed, error.to_string(), true);
            hearth_core::plugin::elicitation::settled(record);
            record.duration_ms = Some((now() - started).max(0.0) as u64);
        }
    }
}

/// Keeps the images a tool returned in the private file system, for its card; returns
/// their file names and how many could not be kept (not an image by its bytes, or no
/// room).
async fn keep_images(images: &[hearth_core::plugin::result::ToolImage]) -> (Vec<String>, u32) {
    let mut kept = Vec::new();
    let mut dropped = 0;
    for image in images {
        let Ok((mime, bytes)) = hearth_core::provider::images::decode_base64(&image.data) else {
            dropped += 1;
            continue;
        };
        let name = crate::files::new_name(crate::chat::images::extension(mime));
        match crate::files::save(crate::files::IMAGES, &name, &bytes).await {
            Ok(()) => kept.push(name),
            Err(_) => dropped += 1,
        }
    }
    (kept, dropped)
}

/// Waits for the user's answer to a waiting call. A stopped reply, or the user leaving
/// the conversation (the card is gone), denies it.
async fn wait_for_answer(
    context: TurnContext,
    key: &str,
    conversation_id: &str,
    signal: &web_sys::AbortSignal,
) -> Answer {
    loop {
        if let Some(answer) = context.plugins.take_answer(key) {
            return answer;
        }
        let here = context.open.is_open_untracked(conversation_id);
        if signal.aborted() || !here {
            return Answer::Deny;
        }
        sleep_ms(ANSWER_POLL_MS).await;
    }
}
