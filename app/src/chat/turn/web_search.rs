//! The reply's web searching (the `searching` phase and the `web_search` tool), when the
//! user's search switch is on and the resolver finds a way (`crate::web_search`).
//!
//! - Before the model is asked, the question itself is searched ([`Searching`], a phase
//!   producer): its pages go to the planner's search band as citable items, so `[n]`
//!   in the answer is the reply's source `n`.
//! - A model that takes tools is offered `web_search` too, to search again with queries
//!   of its own (and the built-in page reader, to read a result); its results reach it
//!   numbered as the reply's sources, as quoted data.
//! - One policy over both (`hearth_core::web_search::policy`): at most four queries, an
//!   equivalent query not sent twice, a round with no new page ends the searching and
//!   withdraws the tool.
//! - Every search is recorded for the reply's search block (`SearchRecord`), its
//!   failures as codes: a failed search never fails the reply, and never disappears.
//! - With the model provider's own search chosen, a model whose protocol has one asks
//!   for it in every round (`ChatRequest::web_search`); the pages arrive as sources and
//!   the block counts them (`Reply::set_model_search`). A model without one is told in
//!   the block.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use hearth_core::chat::request::{ContextItem, TurnRequest};
use hearth_core::chat::tools::{ToolCallRecord, ToolCallStatus};
use hearth_core::chat::{GenerationError, Phase};
use hearth_core::context::Band;
use hearth_core::plugin::builtin;
use hearth_core::plugin::selection::{self, Toolset};
use hearth_core::web_search::WebResult;
use hearth_core::web_search::capability::{Missing, Route};
use hearth_core::web_search::policy::{self, TurnSearches};
use hearth_core::web_search::record::{self, SearchOutcome, SearchRecord};
use hearth_core::web_search::settings::{WebSearchSettings, question_query};
use leptos::prelude::*;
use serde_json::Value;

use super::TurnContext;
use super::producer::PhaseProducer;
use super::reply::Reply;
use crate::chat::live::LiveMessage;

/// The code of a reply whose search settings could not be read (a service is chosen
/// here, so the switch may be on).
const SETTINGS_UNREADABLE: &str = "SEARCH_SETTINGS_UNREADABLE";

/// One reply's searching, shared by its phase and its tool calls.
#[derive(Clone)]
pub struct TurnWebSearch(Rc<RefCell<State>>);

struct State {
    live: LiveMessage,
    route: Route,
    settings: WebSearchSettings,
    language: String,
    policy: TurnSearches,
    records: Vec<SearchRecord>,
    /// What each tool call found, by call id, until its round's calls have all run and
    /// the pages are numbered among the reply's sources.
    found: HashMap<String, (String, Vec<WebResult>)>,
}

impl TurnWebSearch {
    /// The searching of reply `live` to `question`, when the switch is on and search
    /// works now for a model that does (`model_searches`) or does not search by itself.
    /// When the switch is on but search cannot work, the reply's search block says why
    /// (the user is told, never left to wonder), and the reply goes on without.
    pub async fn for_reply(
        context: TurnContext,
        live: LiveMessage,
        question: &str,
        model_searches: bool,
    ) -> Option<Self> {
        if !crate::web_search::chosen_here() {
            return None;
        }
        // A search that cannot happen is said on the reply, never skipped silently.
        let said = |code: &str, by_model: bool| {
            let failed = SearchRecord {
                by_model,
                searches: 0,
                query: if by_model {
                    String::new()
                } else {
                    question_query(question).unwrap_or_default()
                },
                outcome: SearchOutcome::Failed {
                    code: code.into(),
                    status: None,
                },
            };
            live.record
                .update(|r| r.web_searches = record::encode(&[failed]));
        };
        let settings = match crate::web_search::settings().await {
            Ok(settings) => settings,
            Err(_) => {
                said(SETTINGS_UNREADABLE, false);
                return None;
            }
        };
        if !settings.enabled {
            return None;
        }
        let route = match crate::web_search::resolve(&settings, Some(model_searches)).await {
            Ok(route) => route,
            Err(Missing::Off) => return None,
            Err(missing) => {
                said(missing.code(), missing == Missing::ModelCannot);
                return None;
            }
        };
        Some(Self(Rc::new(RefCell::new(State {
            live,
            route,
            settings,
            language: context.i18n.locale().tag().to_string(),
            policy: TurnSearches::new(),
            records: Vec::new(),
            found: HashMap::new(),
        }))))
    }

    /// Shows the records on the reply (stored with its next write).
    fn show(&self) {
        let state = self.0.borrow();
        let encoded = record::encode(&state.records);
        state.live.record.update(|r| r.web_searches = encoded);
    }

    /// Whether the model provider searches by itself (its own tool, asked in each
    /// round's request), rather than Hearth through the edge.
    pub fn by_model(&self) -> bool {
        self.0.borrow().route == Route::ModelOwn
    }

    /// Whether the model is still offered the tool.
    pub fn offers_tool(&self) -> bool {
        !self.by_model() && self.0.borrow().policy.offers_tool()
    }

    /// Offers the model `web_search` while searching lasts, and the page reader with it
    /// (to read a result, not only its excerpt), whatever the user's tool switches say.
    pub fn offer(&self, context: TurnContext, toolset: &mut Toolset) {
        if !self.offers_tool() {
            return;
        }
        policy::offer(toolset);
        selection::offer_builtin(
            toolset,
            &context.plugins.builtins.get_untracked(),
            builtin::WEB_READER_ID,
            builtin::READ_WEB_PAGE,
        );
    }

    /// Ends a round of tool calls (a round that found nothing new ends the searching).
    pub fn end_round(&self) {
        self.0.borrow_mut().policy.end_round();
    }

    /// Searches `query` (admitted by the policy), recording it; the pages found, or
    /// `None` when it failed (the record says why).
    async fn search(&self, query: String, signal: &web_sys::AbortSignal) -> Option<Vec<WebResult>> {
        let (route, settings, language, at) = {
            let mut state = self.0.borrow_mut();
            state.records.push(SearchRecord {
                by_model: false,
                searches: 0,
                query: query.clone(),
                outcome: SearchOutcome::Searching,
            });
            (
                state.route,
                state.settings.clone(),
                state.language.clone(),
                state.records.len() - 1,
            )
        };
        self.show();
        let answer = crate::web_search::search(route, &settings, &query, &language, signal).await;
        let (outcome, results) = {
            let mut state = self.0.borrow_mut();
            match answer {
                Ok(answer) => {
                    let new = state.policy.found(&answer.results) as u32;
                    let pages = answer.results.len() as u32;
                    (SearchOutcome::Found { pages, new }, Some(answer.results))
                }
                Err(failure) => (
                    SearchOutcome::Failed {
                        code: if signal.aborted() {
                            record::INTERRUPTED.into()
                        } else {
                            failure.code
                        },
                        status: failure.status,
                    },
                    None,
                ),
            }
        };
        self.0.borrow_mut().records[at].outcome = outcome;
        self.show();
        results
    }

    /// Runs the model's `web_search` call `record` with `args` (found pages wait for
    /// [`Self::number`]; a refusal or failure settles the call at once).
    pub async fn call(
        &self,
        args: &Value,
        signal: &web_sys::AbortSignal,
        record: &mut ToolCallRecord,
    ) {
        let query = args["query"].as_str().unwrap_or_default();
        let admitted = self.0.borrow_mut().policy.admit(query);
        let query = match admitted {
            Ok(query) => query,
            Err(refusal) => {
                record.settle(ToolCallStatus::Done, refusal.tool_result(), false);
                return;
            }
        };
        match self.search(query.clone(), signal).await {
            Some(results) => {
                // Settled by `number` once the round's calls have all run.
                record.status = ToolCallStatus::Done;
                self.0
                    .borrow_mut()
                    .found
                    .insert(record.id.clone(), (query, results));
            }
            None => record.settle(
                ToolCallStatus::Failed,
                "The search failed; its reason is shown to the user. Answer from what you \
                 have, and say that the search failed.",
                true,
            ),
        }
    }

    /// Numbers the pages round `round`'s `web_search` calls found among the reply's
    /// sources, and settles each call with its results as the model reads them.
    pub fn number(&self, reply: &mut Reply, round: usize) {
        let Some(mut calls) = reply
            .rounds
            .get_mut(round)
            .map(|r| std::mem::take(&mut r.calls))
        else {
            return;
        };
        for call in &mut calls {
            let Some((query, results)) = self.0.borrow_mut().found.remove(&call.id) else {
                continue;
            };
            let numbers: Vec<Option<usize>> = results
                .iter()
                .map(|r| reply.add_source(&r.url, &r.title))
                .collect();
            let text = policy::results_for_model(&query, &results, &numbers);
            call.settle(ToolCallStatus::Done, text, false);
        }
        reply.rounds[round].calls = calls;
    }
}

/// The searching phase: the question searched before the model is asked.
pub struct Searching {
    /// The reply's searching.
    pub search: TurnWebSearch,
}

impl PhaseProducer for Searching {
    fn phase(&self) -> Phase {
        Phase::Searching
    }

    fn band(&self) -> Band {
        Band::Search
    }

    fn applies(&self, turn: &TurnRequest) -> bool {
        !self.search.by_model() && question_query(&turn.history.newest.content).is_some()
    }

    fn produce<'a>(
        &'a self,
        turn: &'a TurnRequest,
        signal: &'a web_sys::AbortSignal,
    ) -> LocalBoxFuture<'a, Result<Vec<ContextItem>, GenerationError>> {
        Box::pin(async move {
            let Some(query) = question_query(&turn.history.newest.content) else {
                return Ok(Vec::new());
            };
            let admitted = self.search.0.borrow_mut().policy.admit(&query);
            let Ok(query) = admitted else {
                return Ok(Vec::new());
            };
            // A failed search is on the reply's search block; the reply goes on without.
            let found = self.search.search(query, signal).await.unwrap_or_default();
            self.search.0.borrow_mut().policy.begin_model_rounds();
            Ok(policy::context_items(&found))
        })
    }
}
