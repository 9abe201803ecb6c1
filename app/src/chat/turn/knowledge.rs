//! The knowledge phase (`rag`): the passages the question finds in the conversation's
//! knowledge collections (`crate::knowledge::retrieval`), for the planner's knowledge
//! band, each carrying its citation; a file whose text cannot be read, or that is past
//! the bound of what one question searches, stands in as one item saying so, and the
//! reply names it. A library that cannot be read, or a search worker that fails, fails
//! the reply (`KNOWLEDGE_UNAVAILABLE`, with its reason) rather than answering as if the
//! collections were empty.

use futures::future::LocalBoxFuture;
use hearth_core::chat::request::{ContextItem, TurnRequest};
use hearth_core::chat::{GenerationError, Phase};
use hearth_core::context::Band;

use super::producer::PhaseProducer;

/// The producer, for a conversation's collections.
pub struct Knowledge {
    /// The collections' ids.
    pub collections: Vec<String>,
}

impl PhaseProducer for Knowledge {
    fn phase(&self) -> Phase {
        Phase::Rag
    }

    fn band(&self) -> Band {
        Band::Rag
    }

    fn applies(&self, _turn: &TurnRequest) -> bool {
        !self.collections.is_empty()
    }

    fn produce<'a>(
        &'a self,
        turn: &'a TurnRequest,
        _signal: &'a web_sys::AbortSignal,
    ) -> LocalBoxFuture<'a, Result<Vec<ContextItem>, GenerationError>> {
        Box::pin(passages(
            self.collections.clone(),
            turn.history.newest.content.clone(),
        ))
    }
}

/// The passages of `collections` that `question` finds. (Not a lazy chunk of its own:
/// split off, the chunker and the search engine it shares with the attachments' and
/// memory's chunks moved into the main module, 715 B more on the first load.)
async fn passages(
    collections: Vec<String>,
    question: String,
) -> Result<Vec<ContextItem>, GenerationError> {
    let found = crate::knowledge::retrieval::passages(&collections, &question)
        .await
        .map_err(|error| GenerationError::knowledge_unavailable(&error.to_string()))?;
    let mut items = found.items;
    let left_out = |name: String, why: &str| ContextItem {
        id: format!("knowledge:{name}@missing"),
        source: name.clone(),
        origin: name,
        text: why.to_string(),
        missing: true,
        cite: None,
    };
    items.extend(found.unreadable.into_iter().map(|name| {
        left_out(
            name,
            "[This file's text is no longer stored in this browser.]",
        )
    }));
    items.extend(found.over_budget.into_iter().map(|name| {
        left_out(
            name,
            "[This file was not searched: the collections hold more text than one question searches.]",
        )
    }));
    Ok(items)
}
