//! Asking the worker, and the passage shown for each result: the index keeps no text, so
//! the matching message is read back from the database and cut around its best match
//! (`hearth_core::search::snippet`), with the ranges to highlight.

use hearth_core::search::{Query, QueryError, Snippet, snippet};
use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};

use super::client::{self, WorkerError, op};
use crate::storage::{Db, MESSAGES};

/// The performance measure of a query's round trip to the worker (for the benchmarks).
pub const QUERY_MEASURE: &str = "hearth:search:query";
const QUERY_START: &str = "hearth:search:query:start";

/// The longest passage shown, in bytes.
pub const PASSAGE_BYTES: usize = 180;

/// Why a query got no results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindError {
    /// Nothing searchable was typed.
    Empty,
    /// The query is longer than the engine takes.
    TooLong,
    /// The query has too many words or phrases.
    TooManyParts,
    /// Search cannot run here.
    Unavailable,
    /// The worker was lost while answering (it is being started again).
    Lost,
}

impl From<QueryError> for FindError {
    fn from(error: QueryError) -> Self {
        match error {
            QueryError::Empty => Self::Empty,
            QueryError::TooLong { .. } => Self::TooLong,
            QueryError::TooManyParts { .. } => Self::TooManyParts,
        }
    }
}

/// One conversation with matches.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundConversation {
    /// Its id.
    pub id: String,
    /// The best matching message; `None` when its title matched best.
    pub message: Option<String>,
    /// The best match's text was cut when indexed: later text is not searchable.
    pub partial: bool,
    /// When the best match was written (ms since the epoch).
    pub timestamp: f64,
    /// How many of its messages (and its title) matched.
    pub matches: usize,
}

/// A query's results.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Found {
    /// Documents matched in all.
    pub total: usize,
    /// Conversations matched in all.
    pub conversations: usize,
    /// The best conversations, best first.
    pub results: Vec<FoundConversation>,
}

/// Asks the worker for the conversations matching `text`.
pub async fn find(text: &str, title_only: bool, limit: usize) -> Result<Found, FindError> {
    // Checked here too, so a bad query never costs a round trip.
    Query::parse(text)?;
    super::indexer::note_query();
    crate::browser::mark(QUERY_START);
    let answer = client::request(op(
        "search",
        &[
            ("query", JsValue::from_str(text)),
            ("limit", JsValue::from_f64(limit as f64)),
            ("titleOnly", JsValue::from_bool(title_only)),
        ],
    ))
    .await
    .map_err(|error| match error {
        WorkerError::Unavailable => FindError::Unavailable,
        WorkerError::Failed => FindError::Lost,
    })?;
    crate::browser::measure(QUERY_MEASURE, QUERY_START);
    match client::text(&answer, "error").as_deref() {
        None => {}
        Some("tooLong") => return Err(FindError::TooLong),
        Some("tooManyParts") => return Err(FindError::TooManyParts),
        Some(_) => return Err(FindError::Empty),
    }
    let groups: Array = client::field(&answer, "groups")
        .dyn_into()
        .unwrap_or_default();
    let results = groups
        .iter()
        .filter_map(|group| {
            let id = client::text(&group, "conversation")?;
            let title = client::flag(&group, "title");
            Some(FoundConversation {
                message: client::text(&group, "message").filter(|m| !title && *m != id),
                id,
                partial: client::flag(&group, "partial"),
                timestamp: client::number(&group, "timestamp"),
                matches: client::number(&group, "matches") as usize,
            })
        })
        .collect();
    Ok(Found {
        total: client::number(&answer, "total") as usize,
        conversations: client::number(&answer, "parents") as usize,
        results,
    })
}

/// A cut of a text with the parts to highlight.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Passage {
    /// Pieces in order: (text, highlighted).
    pub pieces: Vec<(String, bool)>,
    /// Text was left out before.
    pub cut_start: bool,
    /// Text was left out after.
    pub cut_end: bool,
}

/// The passage of `text` around its best match for `query`.
pub fn passage(query: &str, text: &str) -> Passage {
    let Ok(query) = Query::parse(query) else {
        return Passage::default();
    };
    passage_of(snippet(&query, text, PASSAGE_BYTES))
}

/// A cut text as pieces to show, highlighted or not.
pub fn passage_of(cut: Snippet) -> Passage {
    let mut pieces = Vec::new();
    let mut at = 0;
    for (start, end) in cut.highlights {
        if start > at {
            pieces.push((cut.text[at..start].to_string(), false));
        }
        pieces.push((cut.text[start..end].to_string(), true));
        at = end;
    }
    if at < cut.text.len() {
        pieces.push((cut.text[at..].to_string(), false));
    }
    Passage {
        pieces,
        cut_start: cut.cut_start,
        cut_end: cut.cut_end,
    }
}

/// The text of message `id` as stored (`None` when it is gone: the index is behind).
pub async fn message_text(db: &Db, id: &str) -> Option<String> {
    let record = db.get_raw(MESSAGES, id).await.ok()??;
    client::text(&record, "content")
}
