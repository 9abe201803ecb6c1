//! The phases that add context to a turn before the model is asked. Each producer is a
//! small module behind [`PhaseProducer`]: the turn in, context items for one planner
//! band out (`hearth_core::context::Band`); the planner decides what of them fits. The
//! run loop asks every producer in `turn::producers` in order and enters its phase only when
//! it applies, so adding attachments, knowledge or web search is one module and one line
//! here.

use futures::future::LocalBoxFuture;
use hearth_core::chat::request::{ContextItem, TurnRequest};
use hearth_core::chat::{GenerationError, Phase};
use hearth_core::context::Band;

/// A phase that adds context.
pub trait PhaseProducer {
    /// The phase the reply shows while it works.
    fn phase(&self) -> Phase;

    /// The planner band its items compete in.
    fn band(&self) -> Band;

    /// Whether it has anything to do for this turn (a turn with no attachments skips
    /// the attachments phase, and shows no such phase).
    fn applies(&self, turn: &TurnRequest) -> bool;

    /// Its items, most relevant first. A stopped reply's `signal` is aborted.
    fn produce<'a>(
        &'a self,
        turn: &'a TurnRequest,
        signal: &'a web_sys::AbortSignal,
    ) -> LocalBoxFuture<'a, Result<Vec<ContextItem>, GenerationError>>;
}
