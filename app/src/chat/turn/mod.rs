//! One reply, as a pipeline of phases driven by the core phase machine
//! (`hearth_core::chat::Generation`, held by `Runs`):
//! `pending → attachments → rag → searching → (model ⇄ tool)* → done | error | aborted`.
//!
//! - `prepare`: the model's provider, key and capabilities, and the question with its
//!   history (`hearth_core::chat::request`).
//! - `workspace`: the conversation's workspace, and the system prompt made from the
//!   user's, the workspace's and the conversation's instructions (recorded on the
//!   reply); its tools, skills and collections go to the phases that own them.
//! - `assistant`: the assistant the conversation started with; its tools and skills
//!   limit the turn before the workspace's.
//! - `skills`: the user's active skills (or those the model chooses among them) joined to
//!   the system prompt, and recorded on the reply.
//! - `memory`: the memories the question is about, joined to the system prompt as data
//!   and recorded on the reply; the model's proposals of new ones.
//! - `image_parts`: the attached images' bytes, for a model that sees them.
//! - `producer`: the phases that add context before the model is asked (attachments,
//!   knowledge, web search), each a small module behind one interface: the turn in,
//!   context items for one planner band out. The run loop does not change when one is
//!   added.
//! - `merge`: a merged reply's context, the compared answers it combines.
//! - `fallback`: which model answers under the conversation's fallback policy (another
//!   one only after a transient failure before anything arrived, on the same side of
//!   the network).
//! - `model`: one round streamed through the one stream reader; `output_images` keeps
//!   the images it sends, in their places.
//! - `tools`: the calls a round asked for.
//! - `web_search`: the question searched before the model is asked, and the model's own
//!   `web_search` calls, under one policy; the reply's search block.
//! - `reply`: the reply being written (its text lives in its `LiveMessage`), the 500 ms
//!   flush and how the reply ends.
//! - `after`: the conversation's title and the compression of older turns, once a reply
//!   is done.

mod after;
mod assistant;
mod attachments;
mod elicitation;
mod fallback;
mod image_parts;
mod knowledge;
mod memory;
mod merge;
mod model;
mod output_images;
mod prepare;
mod producer;
mod reply;
mod skills;
mod tools;
mod web_search;
mod workspace;

use hearth_core::chat::ConversationRecord;
use hearth_core::chat::request::RoundShape;
use hearth_core::chat::{GenerationError, MessageStatus, Phase, RunOutcome};
use hearth_core::plugin::selection::Toolset;
use hearth_core::plugin::tool_loop::{Budget, Round};
use hearth_core::preferences::ModelRef;
use hearth_core::workspace::Workspace;

use super::list::Conversations;
use super::live::LiveMessage;
use super::open::OpenConversation;
use super::runs::{Ending, Runs};
use super::store::ChatDb;
use reply::Reply;

/// What the run does with the reply's existing text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Writes a new reply.
    Fresh,
    /// Appends to an interrupted or stopped reply.
    Continue,
}

/// The stores and services a reply uses, captured when the chat is created (tasks run
/// without the reactive owner that provides them).
#[derive(Clone, Copy)]
pub struct TurnContext {
    /// The database.
    pub store: ChatDb,
    /// The conversation list (titles, compression).
    pub list: Conversations,
    /// The open conversation (the history, the screen).
    pub open: OpenConversation,
    /// The runs (phases, stop).
    pub runs: Runs,
    /// Providers and their keys.
    pub providers: crate::providers::Providers,
    /// Finds a model's provider, key and capabilities.
    pub targets: super::target::Targets,
    /// The user's preferences.
    pub prefs: crate::preferences::Prefs,
    /// Installed tools.
    pub plugins: crate::plugins::Plugins,
    /// Installed skills.
    pub skills: crate::skills::Skills,
    /// Toasts.
    pub toasts: crate::ui::toast::Toasts,
    /// Translations.
    pub i18n: crate::i18n::I18n,
}

/// Writes the reply `live` of `conversation_id` to its end; how it ended (for the queue).
pub async fn run(
    context: TurnContext,
    conversation_id: String,
    live: LiveMessage,
    mode: Mode,
) -> RunOutcome {
    let Some((run, controller)) = context.runs.begin(&conversation_id, live) else {
        // Another reply of this conversation is being written (two sends within a
        // moment): this one does not start, and says so rather than stay "streaming".
        reply::not_started(context.store, live).await;
        return RunOutcome::Failed;
    };
    let mut reply = Reply::new(run, conversation_id, live, mode);
    reply.show(MessageStatus::Streaming);
    let ending = drive(context, &mut reply, mode, &controller).await;
    reply.finish(context, ending).await
}

/// Every context producer, in the order their phases run (the conversation's and its
/// workspace's files, then the workspace's and the conversation's knowledge collections,
/// then the web).
fn producers(
    conversation: Option<&ConversationRecord>,
    workspace: Option<&Workspace>,
    search: Option<&web_search::TurnWebSearch>,
) -> Vec<Box<dyn producer::PhaseProducer>> {
    let own = conversation
        .map(|c| c.knowledge.as_slice())
        .unwrap_or_default();
    let collections = hearth_core::workspace::scope::collections(workspace, own);
    let workspace_files = workspace.map(|w| w.files.clone()).unwrap_or_default();
    let mut all: Vec<Box<dyn producer::PhaseProducer>> = vec![
        Box::new(attachments::Attachments { workspace_files }),
        Box::new(knowledge::Knowledge { collections }),
    ];
    if let Some(search) = search {
        all.push(Box::new(web_search::Searching {
            search: search.clone(),
        }));
    }
    all
}

/// Moves the reply through its phases; how it ends.
async fn drive(
    context: TurnContext,
    reply: &mut Reply,
    mode: Mode,
    controller: &web_sys::AbortController,
) -> Ending {
    let signal = controller.signal();
    let record = reply.live.snapshot();
    let conversation = context.list.find(&reply.conversation_id);
    let workspace = workspace::of(context, conversation.as_ref()).await;
    let assistant = assistant::of(context, conversation.as_ref()).await;
    let mut prepared = match prepare::prepare(context, &record, mode).await {
        Ok(prepared) => prepared,
        Err(error) => return Ending::Failed(error),
    };
    let prompts = workspace::instruct(
        &mut prepared,
        workspace.as_ref(),
        assistant.as_ref(),
        conversation.as_ref(),
    );
    let limits = hearth_core::workspace::scope::limits(assistant.as_ref(), workspace.as_ref());
    reply.skills = skills::apply(context, &mut prepared, &record, mode, limits).await;
    let memory = memory::apply(context, &mut prepared, &record).await;
    if let Err(error) = merge::apply(context, &mut prepared, &record) {
        return Ending::Failed(error);
    }
    // A continuation keeps the record its reply was written with (proposals included).
    if mode == Mode::Fresh {
        reply.set_memory(memory.memory);
        reply.set_prompts(prompts);
    }
    reply.show(MessageStatus::Streaming);
    if signal.aborted() {
        return Ending::Stopped;
    }
    // Searching belongs to a fresh reply (a continuation finishes its text, a merge
    // combines answers already written).
    let search = match mode {
        Mode::Fresh if record.merged_from.is_empty() => {
            let (protocol, _) = prepared.target.provider.kind.protocol();
            let question = prepared.turn.history.newest.content.clone();
            web_search::TurnWebSearch::for_reply(
                context,
                reply.live,
                &question,
                protocol.searches_itself(),
            )
            .await
        }
        _ => None,
    };
    let model_search = search
        .as_ref()
        .is_some_and(web_search::TurnWebSearch::by_model);
    if model_search {
        reply.set_model_search();
    }
    for producer in producers(conversation.as_ref(), workspace.as_ref(), search.as_ref()) {
        if !producer.applies(&prepared.turn) {
            continue;
        }
        if !enter(context, reply, producer.phase()) {
            return Ending::Stopped;
        }
        match producer.produce(&prepared.turn, &signal).await {
            Ok(items) => prepared.turn.context.push((producer.band(), items)),
            Err(error) => return Ending::Failed(error),
        }
        if signal.aborted() {
            return Ending::Stopped;
        }
    }
    if prepared.target.capabilities.vision {
        let (protocol, _) = prepared.target.provider.kind.protocol();
        let loaded = image_parts::load(&prepared.turn, protocol.answers_carry_images()).await;
        prepared.turn.images = loaded.images;
        prepared.turn.missing_images = loaded.missing;
    }
    // Tools only for a model that takes them, and never on a continuation of written
    // text (it finishes that text); one that stopped between tool rounds (a question
    // answered) goes on with its tools.
    let between_rounds = record.content.is_empty() && !record.tool_rounds.is_empty();
    let offers_tools = mode == Mode::Fresh || between_rounds;
    let mut toolset = if prepared.target.capabilities.tools && offers_tools {
        let mut toolset = tools::toolset(context, limits).await;
        if memory.propose {
            hearth_core::memory::proposal::offer(&mut toolset);
        }
        if tools::asks_questions(context) {
            hearth_core::ask_user::offer(&mut toolset);
        }
        if let Some(search) = &search {
            search.offer(context, &mut toolset);
        }
        toolset
    } else {
        Toolset::default()
    };
    let needs = fallback::Needs {
        tools: !toolset.is_empty(),
        vision: !prepared.turn.images.is_empty(),
    };
    let chosen = ModelRef {
        provider_id: record.provider_id.clone().unwrap_or_default(),
        model: record.model.clone().unwrap_or_default(),
    };
    // The model's own search belongs to the chosen model: no other answers for it.
    let mut failover = (!model_search && mode == Mode::Fresh)
        .then(|| fallback::Failover::plan(context, conversation.as_ref(), &chosen));
    if let Some(failover) = failover.as_mut()
        && let Some((model, target)) = failover.start(context, needs).await
    {
        reply.answered_by(&model, &failover.record());
        switch_model(&mut prepared, &model, target);
    }
    // Calls whose server asked the user, now answered, run again before the model
    // reads their results; a server that asks once more ends the reply again.
    if between_rounds && elicitation::has_answered(reply) {
        if !enter(context, reply, Phase::Tool) {
            return Ending::Stopped;
        }
        elicitation::run_answered(context, reply, &toolset, &signal).await;
        if reply.awaits_answer() {
            return Ending::Done;
        }
        if signal.aborted() {
            return Ending::Stopped;
        }
    }
    let mut budget = Budget::new();
    loop {
        let round = if toolset.is_empty() {
            Round::Final
        } else {
            budget.next_round()
        };
        let request = match prepared.turn.round(RoundShape {
            rounds: &reply.rounds,
            tools: &toolset.specs,
            round,
        }) {
            Ok(planned) => {
                reply.notes = planned.notes;
                reply.cite(planned.cited);
                let mut request = planned.request;
                request.web_search = model_search;
                request
            }
            Err(error) => return Ending::Failed(GenerationError::context(&error)),
        };
        if !enter(context, reply, Phase::Model) {
            return Ending::Stopped;
        }
        let calls =
            match model::stream_round(context, &prepared.target, &request, reply, controller).await
            {
                Ok(calls) => calls,
                Err(Ending::Failed(error)) if reply.nothing_yet() && !signal.aborted() => {
                    let next = match failover.as_mut() {
                        Some(failover) => failover.next(context, &error, needs).await,
                        None => None,
                    };
                    let (Some((model, target)), Some(failover)) = (next, failover.as_ref()) else {
                        return Ending::Failed(error);
                    };
                    reply.answered_by(&model, &failover.record());
                    switch_model(&mut prepared, &model, target);
                    continue;
                }
                Err(ending) => return ending,
            };
        // A final round's calls are not run: it was offered no tools.
        if calls.is_empty() || round == Round::Final {
            return Ending::Done;
        }
        if !enter(context, reply, Phase::Tool) {
            return Ending::Stopped;
        }
        let admission = budget.admit(calls.len());
        reply.open_tool_round(&calls, admission.run);
        reply.flush(context.store).await;
        tools::run_calls(
            context,
            reply,
            &calls,
            admission.run,
            &toolset,
            search.as_ref(),
            controller,
        )
        .await;
        if let Some(search) = &search {
            search.end_round();
            if !search.offers_tool() {
                hearth_core::web_search::policy::withdraw(&mut toolset);
            }
        }
        // A question for the user: the reply ends here, waiting for the answer.
        if reply.awaits_answer() {
            return Ending::Done;
        }
        reply.show(MessageStatus::Streaming);
        if signal.aborted() {
            return Ending::Stopped;
        }
        reply.flush(context.store).await;
    }
}

/// The rounds from now on go to `model` at `target`.
fn switch_model(
    prepared: &mut prepare::Prepared,
    model: &ModelRef,
    target: crate::chat::target::Target,
) {
    prepared.turn.model = model.model.clone();
    prepared.turn.capabilities = target.capabilities;
    prepared.target = target;
}

/// Moves the reply to `phase`; `false` when its run is no longer the current one.
fn enter(context: TurnContext, reply: &Reply, phase: Phase) -> bool {
    context.runs.enter(&reply.conversation_id, reply.run, phase)
}
