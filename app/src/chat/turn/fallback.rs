//! Which model answers a reply under its conversation's fallback policy
//! (`hearth_core::chat::fallback`): the chosen model, then (resilient, adaptive) the
//! conversation's alternatives that are enabled, listed and on the same side of the
//! network, each asked only after a transient failure before anything of the reply
//! arrived, and only when it can do what the reply needs (tools, images). Transient
//! failures are remembered for a few minutes in this page, so the adaptive policy starts
//! with a model that is answering.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use hearth_core::chat::fallback::{
    self, Candidate, Fallback, FallbackRecord, Locality, RECENT_FAILURE_MS,
};
use hearth_core::chat::{ConversationRecord, GenerationError};
use hearth_core::preferences::ModelRef;
use leptos::prelude::*;

use super::TurnContext;
use crate::browser::now;
use crate::chat::target::Target;

thread_local! {
    /// When each model last failed transiently, in this page.
    static FAILED: RefCell<HashMap<ModelRef, f64>> = RefCell::default();
}

/// Remembers that `model` failed transiently now.
fn note_failure(model: &ModelRef) {
    FAILED.with(|failed| failed.borrow_mut().insert(model.clone(), now()));
}

fn failed_lately(model: &ModelRef) -> bool {
    FAILED.with(|failed| {
        failed
            .borrow()
            .get(model)
            .is_some_and(|at| now() - at < RECENT_FAILURE_MS)
    })
}

/// What a reply needs of any model that answers it.
#[derive(Clone, Copy)]
pub(super) struct Needs {
    /// It offers tools.
    pub tools: bool,
    /// It sends images.
    pub vision: bool,
}

/// The models left to try for one reply.
pub(super) struct Failover {
    chosen: ModelRef,
    current: ModelRef,
    queue: VecDeque<ModelRef>,
    /// Why the first model asked did not answer.
    reason: Option<GenerationError>,
}

impl Failover {
    /// The plan for a reply of `conversation` on `chosen`.
    pub(super) fn plan(
        context: TurnContext,
        conversation: Option<&ConversationRecord>,
        chosen: &ModelRef,
    ) -> Self {
        let setting = Fallback::decode(conversation.and_then(|c| c.fallback.as_deref()));
        let side = |model: &ModelRef| -> Option<Locality> {
            let listed = context.providers.models().with_untracked(|models| {
                models
                    .get(&model.provider_id)
                    .is_some_and(|list| list.iter().any(|m| m.id == model.model))
            });
            context.providers.list.with_untracked(|list| {
                list.iter()
                    .find(|p| p.id == model.provider_id && p.enabled && listed)
                    .map(|p| fallback::locality(&p.base_url, p.server.is_some()))
            })
        };
        // The chosen model's side as its provider says (a model the listing no longer
        // names is still the user's choice).
        let chosen_side = context.providers.list.with_untracked(|list| {
            list.iter()
                .find(|p| p.id == chosen.provider_id)
                .map_or(Locality::Remote, |p| {
                    fallback::locality(&p.base_url, p.server.is_some())
                })
        });
        let alternatives: Vec<Candidate> = setting
            .models
            .iter()
            .filter_map(|model| {
                side(model).map(|locality| Candidate {
                    model: model.clone(),
                    locality,
                })
            })
            .collect();
        let chosen_candidate = Candidate {
            model: chosen.clone(),
            locality: chosen_side,
        };
        let order = fallback::order(
            setting.policy,
            &chosen_candidate,
            &alternatives,
            failed_lately,
        );
        Self {
            chosen: chosen.clone(),
            current: chosen.clone(),
            queue: order.into_iter().collect(),
            reason: None,
        }
    }

    /// The model to start with when it is not the chosen one (the adaptive policy, the
    /// chosen model having failed a moment ago), with its target.
    pub(super) async fn start(
        &mut self,
        context: TurnContext,
        needs: Needs,
    ) -> Option<(ModelRef, Target)> {
        let first = self.queue.front()?.clone();
        if first == self.chosen {
            self.queue.pop_front();
            return None;
        }
        self.take(context, needs).await
    }

    /// After `failure` of the model that was answering: the next model to ask and its
    /// target, or `None` (a refusal, or none left that can answer).
    pub(super) async fn next(
        &mut self,
        context: TurnContext,
        failure: &GenerationError,
        needs: Needs,
    ) -> Option<(ModelRef, Target)> {
        if !fallback::fails_over(failure) {
            return None;
        }
        note_failure(&self.current);
        self.reason.get_or_insert_with(|| failure.clone());
        self.queue.retain(|m| *m != self.current);
        self.take(context, needs).await
    }

    /// The next model in the queue that resolves and can do what the reply needs.
    async fn take(&mut self, context: TurnContext, needs: Needs) -> Option<(ModelRef, Target)> {
        while let Some(model) = self.queue.pop_front() {
            if model == self.current {
                continue;
            }
            let Ok(target) = context.targets.resolve(&model).await else {
                continue;
            };
            let fits = (!needs.tools || target.capabilities.tools)
                && (!needs.vision || target.capabilities.vision);
            if fits {
                self.current = model.clone();
                return Some((model, target));
            }
        }
        None
    }

    /// What the reply keeps when another model than the chosen one answers it.
    pub(super) fn record(&self) -> FallbackRecord {
        FallbackRecord {
            from: self.chosen.clone(),
            reason: self.reason.clone(),
        }
    }
}
