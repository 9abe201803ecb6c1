//! The reply being written. Its text and reasoning live in its `LiveMessage` (one owner:
//! the screen shows them as they grow, the flush reads them); the rest of what the run
//! knows (the rounds that called tools, the images the model sent, usage, why it
//! finished, the error) is here and shown on the record. The partial reply is written at least every 500 ms, merged
//! field by field so another tab's changes to other fields survive; how the reply ended
//! is written last.

use hearth_core::chat::context_note::ContextNote;
use hearth_core::chat::output_image::{self, KeptImage, LostReason, OutputImage};
use hearth_core::chat::record::Timings;
use hearth_core::chat::source::{self, Source};
use hearth_core::chat::tools::{ToolCallRecord, ToolCallStatus, ToolRound};
use hearth_core::chat::{GenerationError, MessageStatus, RunId, RunOutcome};
use hearth_core::provider::tool_calls::ToolCall;
use hearth_core::provider::{FinishReason, ImageData, Usage};
use hearth_core::skill::AppliedSkill;
use hearth_core::web_search::record::{self, SearchOutcome, SearchRecord};
use leptos::prelude::*;
use serde_json::json;

use super::{Mode, TurnContext, after};
use crate::browser::now;
use crate::chat::live::LiveMessage;
use crate::chat::runs::Ending;
use crate::chat::store::ChatDb;
use crate::storage::{Batch, MESSAGES};

/// How often a streaming reply is written to IndexedDB.
pub const FLUSH_MS: f64 = 500.0;
/// The performance measure of one flush, and the mark it starts from.
const FLUSH_MEASURE: &str = "hearth:flush";
const FLUSH_START: &str = "hearth:flush:start";

/// The reply as the run knows it.
pub struct Reply {
    /// Its run.
    pub run: RunId,
    /// Its conversation.
    pub conversation_id: String,
    /// Its record and text on screen.
    pub live: LiveMessage,
    /// The rounds that called tools, before the text of the current round.
    pub rounds: Vec<ToolRound>,
    /// The images the model sent, each at its place.
    pub images: Vec<OutputImage>,
    /// The pages the reply draws on, numbered in this order.
    pub sources: Vec<Source>,
    /// Tokens used so far.
    pub usage: Usage,
    /// Why the last round finished.
    pub finish: Option<FinishReason>,
    /// What the last round's request left out of the context.
    pub notes: Vec<ContextNote>,
    /// The skills applied to the reply.
    pub skills: Vec<AppliedSkill>,
    /// The model provider searches by itself: the search block counts the pages.
    model_search: bool,
    /// The queries the provider's own search ran, each once.
    model_queries: Vec<String>,
    /// The model that answered instead of the chosen one, and the record kept of it.
    fallback: Option<(hearth_core::preferences::ModelRef, String)>,
    started: f64,
    first_token: Option<f64>,
    /// When the reply ended (the total its record and its screen say).
    ended: Option<f64>,
}

impl Reply {
    /// The reply `live` as run `run` starts it: a fresh reply starts empty, a
    /// continuation keeps its text and rounds.
    pub fn new(run: RunId, conversation_id: String, live: LiveMessage, mode: Mode) -> Self {
        // Only the last reply's flushes (and merges) are kept.
        crate::browser::clear_measures(FLUSH_MEASURE);
        crate::browser::clear_measures(crate::storage::MERGE_MEASURE);
        let (rounds, images, sources) = match mode {
            Mode::Fresh => {
                live.content.set(String::new());
                live.reasoning.set(String::new());
                live.record.update(|r| {
                    r.memory = None;
                    r.prompts = None;
                    r.images.clear();
                    r.sources = None;
                    r.web_searches = None;
                    r.related.clear();
                });
                (Vec::new(), Vec::new(), Vec::new())
            }
            Mode::Continue => live
                .record
                .with_untracked(|r| (r.tool_rounds.clone(), r.images.clone(), r.sources())),
        };
        Self {
            run,
            conversation_id,
            live,
            rounds,
            images,
            sources,
            usage: Usage::default(),
            finish: None,
            notes: Vec::new(),
            skills: live.record.with_untracked(|r| r.skill_invocations.clone()),
            model_search: false,
            model_queries: Vec::new(),
            fallback: None,
            started: now(),
            first_token: None,
            ended: None,
        }
    }

    /// Adds text and reasoning that arrived.
    pub fn append(&mut self, text: &str, reasoning: &str) {
        if (!text.is_empty() || !reasoning.is_empty()) && self.first_token.is_none() {
            self.first_token = Some(now());
        }
        if !text.is_empty() {
            self.live.content.update(|c| c.push_str(text));
        }
        if !reasoning.is_empty() {
            self.live.reasoning.update(|r| r.push_str(reasoning));
        }
    }

    /// Keeps an image the model sent where the text stands now: its bytes in the private
    /// file system, or in the record when that fails, or why it could not be kept. Never
    /// fails the reply. `signature`: the provider's token to send back with it ("" none).
    pub async fn keep_image(&mut self, image: &ImageData, signature: String) {
        let at = self.live.content.with_untracked(String::len);
        let kept = if output_image::has_room(&self.images) {
            super::output_images::keep(image).await
        } else {
            KeptImage::Lost {
                reason: LostReason::TooMany,
            }
        };
        self.images.push(OutputImage {
            round: u32::try_from(self.rounds.len()).unwrap_or(u32::MAX),
            at: u32::try_from(at).unwrap_or(u32::MAX),
            kept,
            signature,
        });
        self.show(MessageStatus::Streaming);
    }

    /// Adds a page the reply draws on (each page once, bounded: `hearth_core::chat::source`);
    /// its number, or `None` when it was not kept.
    pub fn add_source(&mut self, url: &str, title: &str) -> Option<usize> {
        // A page refused (unsafe, or past the bound) changes nothing on screen.
        let number = source::add(&mut self.sources, url, title);
        if number.is_some() {
            self.show(MessageStatus::Streaming);
        }
        number
    }

    /// Adds the passages and pages the request numbered for the model (`[n]` is source
    /// `n`): only while the reply has no sources yet, so the numbers stay the request's.
    pub fn cite(&mut self, cited: Vec<hearth_core::chat::source::Source>) {
        if !self.sources.is_empty() || cited.is_empty() {
            return;
        }
        for cited in cited {
            if cited.passage.is_some() {
                source::add_passage(&mut self.sources, cited);
            } else {
                source::add(&mut self.sources, &cited.url, &cited.title);
            }
        }
        self.show(MessageStatus::Streaming);
    }

    /// The round's text and reasoning become a round that called `calls`; only the first
    /// `run` of them will run, the rest are skipped.
    pub fn open_tool_round(&mut self, calls: &[ToolCall], run: usize) {
        let mut round = ToolRound {
            text: self
                .live
                .content
                .try_update(std::mem::take)
                .unwrap_or_default(),
            reasoning: self
                .live
                .reasoning
                .try_update(std::mem::take)
                .unwrap_or_default(),
            calls: calls.iter().map(record_of).collect(),
        };
        for call in round.calls.iter_mut().skip(run) {
            call.skip();
        }
        self.rounds.push(round);
        self.finish = None;
        self.show(MessageStatus::Streaming);
    }

    /// Whether nothing of the reply has arrived yet (no text, reasoning, image or round):
    /// another model may still answer it whole.
    pub fn nothing_yet(&self) -> bool {
        self.rounds.is_empty()
            && self.images.is_empty()
            && self.live.content.with_untracked(String::is_empty)
            && self.live.reasoning.with_untracked(String::is_empty)
    }

    /// Another model than the chosen one answers the reply (`record` says which was
    /// chosen and why it did not answer).
    pub fn answered_by(
        &mut self,
        model: &hearth_core::preferences::ModelRef,
        record: &hearth_core::chat::fallback::FallbackRecord,
    ) {
        let kept = record.encode();
        self.fallback = Some((model.clone(), kept.clone()));
        self.live.record.update(|r| {
            r.provider_id = Some(model.provider_id.clone());
            r.model = Some(model.model.clone());
            r.fallback = Some(kept);
        });
    }

    /// Whether the last round asked the user a question that waits for an answer.
    pub fn awaits_answer(&self) -> bool {
        self.rounds.last().is_some_and(|round| {
            round
                .calls
                .iter()
                .any(|c| c.status == hearth_core::chat::tools::ToolCallStatus::AwaitingAnswer)
        })
    }

    /// The model provider searches by itself for this reply: its search block says so
    /// and counts the pages it draws on.
    pub fn set_model_search(&mut self) {
        self.model_search = true;
        self.show(MessageStatus::Streaming);
    }

    /// Notes a query the provider's own search ran (each once, at most as many as a
    /// reply records).
    pub fn add_model_query(&mut self, query: &str) {
        let query = query.split_whitespace().collect::<Vec<_>>().join(" ");
        if query.is_empty()
            || self.model_queries.contains(&query)
            || self.model_queries.len() >= record::MAX_RECORDED
        {
            return;
        }
        self.model_queries.push(query);
        self.show(MessageStatus::Streaming);
    }

    /// Shows what the run knows with `status` and `error`.
    fn show_with(&self, status: MessageStatus, error: Option<&GenerationError>) {
        let searched = self.model_search.then(|| {
            let pages = self.sources.iter().filter(|s| s.passage.is_none()).count() as u32;
            record::encode(&[SearchRecord {
                query: self.model_queries.join(" · "),
                by_model: true,
                searches: u32::try_from(self.model_queries.len().max(1)).unwrap_or(u32::MAX),
                outcome: SearchOutcome::Found { pages, new: pages },
            }])
        });
        self.live.record.update(|r| {
            if let Some(searched) = searched
                && r.web_searches != searched
            {
                r.web_searches = searched;
            }
            if r.tool_rounds != self.rounds {
                r.tool_rounds = self.rounds.clone();
            }
            if r.images != self.images {
                r.images = self.images.clone();
            }
            let sources = source::encode(&self.sources);
            if r.sources != sources {
                r.sources = sources;
            }
            r.status = status;
            r.generation_error = error.cloned();
            r.usage = self.usage;
            r.finish_reason = self.finish.clone();
            r.timings = self.timings(status);
            if r.context_notes != self.notes {
                r.context_notes = self.notes.clone();
            }
            if r.skill_invocations != self.skills {
                r.skill_invocations = self.skills.clone();
            }
        });
    }

    /// Records what memory the reply's request carried (its `memory` record, JSON text:
    /// `crate::memory` reads and writes it).
    pub fn set_memory(&self, memory: Option<String>) {
        self.live.record.update(|r| r.memory = memory);
    }

    /// Records which instructions the reply's request carried (its `prompts` record,
    /// JSON text: `hearth_core::workspace::prompt` reads and writes it).
    pub fn set_prompts(&self, prompts: Option<String>) {
        self.live.record.update(|r| r.prompts = prompts);
    }

    /// Changes what the reply's record keeps of memory (shown at once, stored with the
    /// next write; the record, not the run, holds it, as calls that run side by side
    /// change it).
    pub fn change_memory(&self, change: impl FnOnce(Option<String>) -> Option<String>) {
        self.live
            .record
            .update(|r| r.memory = change(r.memory.take()));
    }

    fn memory(&self) -> Option<String> {
        self.live.record.with_untracked(|r| r.memory.clone())
    }

    /// The reply's searches as its record keeps them (`super::web_search` shows them).
    fn web_searches(&self) -> Option<String> {
        self.live.record.with_untracked(|r| r.web_searches.clone())
    }

    /// Shows what the run knows, still streaming or ended with `status`.
    pub fn show(&self, status: MessageStatus) {
        self.show_with(status, None);
    }

    /// Shows one call's new state on its card.
    pub fn show_call(&self, round: usize, index: usize, call: &ToolCallRecord) {
        self.live.record.update(|r| {
            if let Some(slot) = r
                .tool_rounds
                .get_mut(round)
                .and_then(|round| round.calls.get_mut(index))
            {
                *slot = call.clone();
            }
        });
    }

    fn timings(&self, status: MessageStatus) -> Timings {
        let ms = |at: f64| (at - self.started).max(0.0) as u64;
        Timings {
            first_token_ms: self.first_token.map(ms),
            total_ms: (status != MessageStatus::Streaming)
                .then(|| ms(self.ended.unwrap_or_else(now))),
        }
    }

    /// Stores the tool calls as shown (a call now waiting for the user, say), so another
    /// tab shows the question and a reload finds it.
    pub async fn store_shown_calls(&self, store: ChatDb) {
        let rounds = self.live.record.with_untracked(|r| r.tool_rounds.clone());
        let mut batch = Batch::new();
        batch.merge(
            MESSAGES,
            &self.live.id(),
            json!({"toolRounds": rounds, "updatedAt": now()}),
        );
        let _ = store.write(batch).await;
    }

    /// Writes the partial reply (the 500 ms flush), measured as `hearth:flush` (the
    /// benchmarks read the measures of the last reply).
    pub async fn flush(&self, store: ChatDb) {
        crate::browser::mark(FLUSH_START);
        let mut batch = Batch::new();
        let fields = self.live.content.with_untracked(|content| {
            self.live.reasoning.with_untracked(|reasoning| {
                json!({
                    "content": content,
                    "reasoning": reasoning,
                    "toolRounds": self.rounds,
                    "images": self.images,
                    "sources": source::encode(&self.sources),
                    "contextNotes": self.notes,
                    "skillInvocations": self.skills,
                    "memory": self.memory(),
                    "webSearches": self.web_searches(),
                    "status": MessageStatus::Streaming,
                    "updatedAt": now(),
                })
            })
        });
        batch.merge(MESSAGES, &self.live.id(), fields);
        let _ = store.write(batch).await;
        crate::browser::measure(FLUSH_MEASURE, FLUSH_START);
    }

    /// Ends the reply: stored, then shown final (its actions are available from now on)
    /// and its run over, and once done, the conversation titled and compressed in the
    /// background. Stored first: a reply the screen shows ended is on disk, so a reload
    /// or a closed tab at that moment keeps all of it. How it ended, for the queue.
    pub async fn finish(mut self, context: TurnContext, ending: Ending) -> RunOutcome {
        self.ended = Some(now());
        let (status, error) = match &ending {
            Ending::Done => (MessageStatus::Done, None),
            Ending::Stopped => (MessageStatus::Aborted, None),
            Ending::Failed(error) => (MessageStatus::Error, Some(error.clone())),
        };
        let mut batch = Batch::new();
        let fields = self.live.content.with_untracked(|content| {
            self.live.reasoning.with_untracked(|reasoning| {
                json!({
                    "content": content,
                    "reasoning": reasoning,
                    "toolRounds": self.rounds,
                    "images": self.images,
                    "sources": source::encode(&self.sources),
                    "contextNotes": self.notes,
                    "skillInvocations": self.skills,
                    "memory": self.memory(),
                    "webSearches": self.web_searches(),
                    "status": status,
                    "generationError": error,
                    "usage": self.usage,
                    "timings": self.timings(status),
                    "finishReason": self.finish,
                    "updatedAt": now(),
                })
            })
        });
        let mut fields = fields;
        if let Some((model, kept)) = &self.fallback {
            fields["providerId"] = json!(model.provider_id);
            fields["model"] = json!(model.model);
            fields["fallback"] = json!(kept);
        }
        batch.merge(MESSAGES, &self.live.id(), fields);
        let _ = context.store.write(batch).await;
        self.show_with(status, error.as_ref());
        let kept = context.runs.end(&self.conversation_id, self.run, &ending);
        if ending == Ending::Done {
            let question = self
                .live
                .record
                .with_untracked(|r| r.parent_id.clone())
                .and_then(|parent| context.open.live(&parent))
                .map(|l| l.content.get_untracked())
                .unwrap_or_default();
            let answer = self.live.content.get_untracked();
            let conversation_id = self.conversation_id.clone();
            // In the background: a title model's call must not hold up the queue.
            let reply_id = self.live.id();
            // Of replies written side by side, only the first titles and compresses.
            let mark = self.live.record.with_untracked(|r| r.compare.clone());
            let leads = hearth_core::chat::compare::leads(&reply_id, mark.as_deref());
            context.store.spawn(async move {
                if leads {
                    after::title(context, &conversation_id, &question, &answer).await;
                }
                after::related(context, &reply_id, &question, &answer).await;
                if leads {
                    after::compress(context, &conversation_id).await;
                }
            });
        }
        context.open.adopt(&self.conversation_id, kept);
        ending.outcome()
    }
}

/// Ends the reply `live` before its run began (another run held the conversation):
/// shown and stored as failed, so it can be retried.
pub async fn not_started(store: ChatDb, live: LiveMessage) {
    let error = GenerationError::internal("another reply of this conversation was running");
    let mut batch = Batch::new();
    batch.merge(
        MESSAGES,
        &live.id(),
        json!({
            "status": MessageStatus::Error,
            "generationError": error,
            "updatedAt": now(),
        }),
    );
    let _ = store.write(batch).await;
    // Shown once stored, as [`Reply::finish`] does.
    live.record.update(|r| {
        r.status = MessageStatus::Error;
        r.generation_error = Some(error);
    });
}

/// A call as first recorded, before anything ran.
fn record_of(call: &ToolCall) -> ToolCallRecord {
    ToolCallRecord {
        id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.raw_arguments.clone(),
        signature: call.signature.clone(),
        status: ToolCallStatus::Pending,
        ..Default::default()
    }
}
