//! Global search: an inverted index with BM25 ranking, built for Hearth's sizes
//! (100,000 messages and more) and for a Web Worker: pure, incremental and persistable.
//!
//! The app gives [`Document`]s to a [`SearchIndex`] ([`SearchIndex::upsert`],
//! [`SearchIndex::remove`], [`SearchIndex::remove_parent`] for a whole conversation),
//! parses what the user typed with [`Query::parse`], asks [`SearchIndex::search`] (or
//! [`SearchIndex::search_grouped`], one result per parent conversation;
//! [`SearchOptions::title_only`] for titles alone) for the top hits, and makes a
//! [`snippet`] with highlight ranges from the texts it shows. Each [`Source`] has its own
//! sub-index, so rebuilding one ([`SearchIndex::clear`] then `upsert`) leaves the others
//! alone, and each is saved and reloaded on its own ([`SearchIndex::snapshot`],
//! [`SearchIndex::restore`]).
//!
//! The index keeps no text: postings with positions (for phrases), the term dictionary
//! and a small record per document. Snippets are cut from the text the app already has.
//!
//! ## Layout
//!
//! - [`conversation`](mod@conversation): what of a conversation is indexed (its title
//!   and the messages on its active path).
//! - [`fold`](mod@fold): case and diacritic folding.
//! - [`local`](mod@local): memories, workspaces and collections, indexed for each query
//!   where they live (the palette's other sources).
//! - `token`: words, identifiers, numbers, CJK bigrams, positions and byte ranges.
//! - [`query`](mod@query): the query language (documented there) and its limits.
//! - [`question`](mod@question): a question asked one word at a time, scores added up
//!   (recall of memories and knowledge passages).
//! - `paged`: vectors in pages and byte lists in chunks, so no append copies much.
//! - `postings`: the per-term posting lists (bit-packed once frozen, varints in tails).
//! - `dict`: the sorted, front-coded term dictionary, prefix and one-edit expansion.
//! - `segment`: one source's sub-index: add, remove (a document or a parent), compaction.
//! - `rank`: matching a query against a sub-index with BM25 (title boosted), CJK pairs as
//!   adjacent characters.
//! - `engine`: [`SearchIndex`], top-k, grouping by parent, recency as the tie-breaker.
//! - `snippet`: the text around the best match with highlight ranges.
//! - `snapshot`: the versioned, checked snapshot format.

pub mod conversation;
mod dict;
mod engine;
pub mod fold;
pub mod local;
mod paged;
mod postings;
pub mod query;
pub mod question;
mod rank;
mod segment;
mod snapshot;
mod snippet;
pub mod token;

use serde::{Deserialize, Serialize};

pub use engine::{
    Group, GroupedResults, Hit, IndexStats, MAX_LIMIT, SearchIndex, SearchOptions, SearchResults,
    Upserted,
};
pub use query::{Clause, MAX_QUERY_BYTES, Query, QueryError};
pub use snapshot::{MAX_SNAPSHOT_BYTES, SNAPSHOT_VERSION, SnapshotError, checksum};
pub use snippet::{Snippet, highlights, snippet};

/// A document's body is cut past this many bytes (on a character boundary) and the
/// document is marked partial.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// A title is cut past this many bytes (and the document marked partial).
pub const MAX_TITLE_BYTES: usize = 1024;
/// The longest id, parent or position key accepted.
pub const MAX_KEY_BYTES: usize = 256;
/// The most documents one source holds.
pub const MAX_DOCUMENTS: usize = 4_000_000;

/// Where a document comes from; each source has its own sub-index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// Messages of conversations (parent: the conversation, position: the message).
    Conversations,
    /// Workspace files.
    Workspaces,
    /// Knowledge-base chunks.
    Knowledge,
    /// Memory entries.
    Memory,
}

impl Source {
    /// Every source.
    pub const ALL: [Source; 4] = [
        Source::Conversations,
        Source::Workspaces,
        Source::Knowledge,
        Source::Memory,
    ];

    /// The byte that names the source in a snapshot.
    pub fn tag(self) -> u8 {
        match self {
            Source::Conversations => 1,
            Source::Workspaces => 2,
            Source::Knowledge => 3,
            Source::Memory => 4,
        }
    }

    /// The source a snapshot byte names.
    pub fn from_tag(tag: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.tag() == tag)
    }
}

/// A document to index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    /// Unique within its source (adding the same id again replaces the document).
    pub id: String,
    /// The sub-index it belongs to.
    pub source: Source,
    /// What it belongs to (a conversation's id); results can be grouped by it.
    pub parent: String,
    /// Where it is inside its parent (a message's id), to scroll to. Stored only when it
    /// differs from the id, so an empty position reads back as the id.
    pub position: String,
    /// The title field, ranked above the body.
    pub title: String,
    /// The body field.
    pub body: String,
    /// When it was written (milliseconds since the epoch); newer wins a tie.
    pub timestamp: i64,
}

/// Why a document was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum DocError {
    /// The id is empty.
    #[error("the document has no id")]
    EmptyId,
    /// An id, parent or position is longer than [`MAX_KEY_BYTES`].
    #[error("the document's {field} is longer than {max} bytes")]
    KeyTooLong {
        /// `id`, `parent` or `position`.
        field: &'static str,
        /// The limit.
        max: usize,
    },
    /// The source already holds [`MAX_DOCUMENTS`].
    #[error("the source holds {max} documents already")]
    Full {
        /// The limit.
        max: usize,
    },
}

/// `text` cut to at most `max` bytes on a character boundary, and whether it was cut.
pub(crate) fn cut(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}
