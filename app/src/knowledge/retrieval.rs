//! The passages a turn's question finds in its conversation's collections
//! (`hearth_core::knowledge::ask`): asked of the search worker, which reads the ready
//! files' texts from the private file system, indexes them off the page and keeps the
//! index while the files (ids, versions, names) do not change; the page never indexes
//! (thousands of files take hundreds of milliseconds). A file whose text cannot be read,
//! or that did not fit the index's bound, is left out and named, never silently.

use hearth_core::chat::request::ContextItem;
use hearth_core::knowledge::ask::{Answered, Asked};
use hearth_core::knowledge::attached;
use hearth_core::knowledge::retrieve::{context_items, in_scope};
use wasm_bindgen::JsValue;

use super::{DOCUMENT, KnowledgeStoreError};
use crate::search::client::{self, WorkerError};
use crate::storage::document::DocumentError;

/// The performance measure of a question's round trip to the worker (for the
/// benchmarks).
pub const PASSAGES_MEASURE: &str = "hearth:knowledge:passages";
const PASSAGES_START: &str = "hearth:knowledge:passages:start";

/// What a question found.
pub struct Retrieved {
    /// The passages, best first, as context items that carry their citations.
    pub items: Vec<ContextItem>,
    /// The files whose text could not be read.
    pub unreadable: Vec<String>,
    /// The files left out because the collections' texts are past the index's bound.
    pub over_budget: Vec<String>,
}

/// Why no passages came.
#[derive(Debug)]
pub enum RetrievalError {
    /// The library could not be read.
    Library(KnowledgeStoreError),
    /// The search worker cannot run here, or failed while answering.
    Worker(WorkerError),
}

impl std::fmt::Display for RetrievalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Library(DocumentError::Refused(refused)) => write!(f, "{refused}"),
            Self::Library(DocumentError::Storage(why) | DocumentError::Unreadable(why)) => {
                write!(f, "the knowledge library could not be read: {why}")
            }
            Self::Worker(WorkerError::Unavailable) => {
                f.write_str("the search worker cannot run here")
            }
            Self::Worker(WorkerError::Failed) => f.write_str("the search worker failed"),
        }
    }
}

/// The passages `question` finds in the collections `collections` (a conversation's).
pub async fn passages(collections: &[String], question: &str) -> Result<Retrieved, RetrievalError> {
    let library = DOCUMENT
        .ensure_loaded()
        .await
        .map_err(RetrievalError::Library)?;
    let ids = attached(&library, collections);
    let scope = in_scope(ids.iter().filter_map(|id| library.collection(id)), &[]);
    let asked = Asked::new(&scope, question);
    crate::browser::mark(PASSAGES_START);
    let answered = in_worker(&asked, "turn").await;
    crate::browser::measure(PASSAGES_MEASURE, PASSAGES_START);
    let answered = match answered {
        Ok(answered) => answered,
        Err(error) => return Err(RetrievalError::Worker(error)),
    };
    let found: Vec<_> = answered.passages.iter().collect();
    Ok(Retrieved {
        items: context_items(&found),
        unreadable: answered.unreadable,
        over_budget: answered.over_budget,
    })
}

/// The passages `question` finds in every collection's files (the search palette's
/// question; its own index in the worker, kept apart from a turn's).
pub async fn search_all(question: &str) -> Result<Answered, RetrievalError> {
    let library = DOCUMENT
        .ensure_loaded()
        .await
        .map_err(RetrievalError::Library)?;
    let scope = in_scope(library.collections.iter(), &[]);
    if scope.is_empty() {
        return Ok(Answered::default());
    }
    let asked = Asked::new(&scope, question);
    in_worker(&asked, "palette")
        .await
        .map_err(RetrievalError::Worker)
}

/// `asked`, answered by the search worker from the index it keeps for `slot`.
async fn in_worker(asked: &Asked, slot: &str) -> Result<Answered, WorkerError> {
    let json = serde_json::to_string(asked).map_err(|_| WorkerError::Unavailable)?;
    let answer = client::request(client::op(
        "passages",
        &[
            ("asked", JsValue::from(json)),
            ("slot", JsValue::from(slot)),
        ],
    ))
    .await?;
    client::text(&answer, "found")
        .and_then(|found| serde_json::from_str::<Answered>(&found).ok())
        .ok_or(WorkerError::Failed)
}
