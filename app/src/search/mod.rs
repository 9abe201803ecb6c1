//! Global search over everything local: an index of every conversation's active branch
//! (titles and message text; never reasoning, tool calls, files or settings) kept in a
//! Web Worker (`client`), current through the search journal (`indexer`), and saved in
//! OPFS by the worker so the next page load answers at once.
//!
//! Nothing of it is on the first load: the context here is a few signals; the indexer,
//! the worker and the palette's view come in lazily loaded chunks on first use (the
//! palette opening, or typing in the sidebar filter).
//!
//! - `client`: the worker, its requests and answers.
//! - `indexer`: snapshot, first build, catch-up and saves.
//! - `found`: queries and the passages shown for their results.
//! - `palette`: the search palette (Ctrl+K / ⌘K).

mod client;
pub mod found;
mod indexer;
mod palette;

use leptos::prelude::*;

pub use found::{FindError, Found, FoundConversation, Passage};
pub use palette::SearchPalette;

use crate::chat::Chat;

/// Where the index is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Not started (search not used yet on this page, or its worker was lost).
    Idle,
    /// The worker is opening its snapshot.
    Opening,
    /// Built from nothing: `done` of `total` conversations so far.
    Indexing {
        /// Conversations indexed.
        done: usize,
        /// Conversations in all.
        total: usize,
    },
    /// Answers reflect what is stored.
    Ready,
    /// Search cannot run in this browser (no workers, no storage).
    Unavailable,
}

/// How far the index is, coarsely: what a query's answer depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Nothing to ask yet (not started, or opening its snapshot).
    Waiting,
    /// Being built: answers cover what is in so far (titles first).
    Building,
    /// Answers reflect what is stored.
    Ready,
    /// Search cannot run here.
    Unavailable,
}

/// The search service, provided as context.
#[derive(Clone, Copy)]
pub struct Search {
    /// The palette is open.
    pub palette_open: RwSignal<bool>,
    status: RwSignal<Status>,
    phase: Memo<Phase>,
    chat: Chat,
}

/// The search service.
pub fn use_search() -> Search {
    expect_context::<Search>()
}

impl Search {
    /// The service for `chat`, not started.
    pub fn new(chat: Chat) -> Self {
        let status = RwSignal::new(Status::Idle);
        Self {
            palette_open: RwSignal::new(false),
            status,
            phase: Memo::new(move |_| match status.get() {
                Status::Idle | Status::Opening => Phase::Waiting,
                Status::Indexing { .. } => Phase::Building,
                Status::Ready => Phase::Ready,
                Status::Unavailable => Phase::Unavailable,
            }),
            chat,
        }
    }

    /// Where the index is (tracked; changes with every conversation while it is built).
    pub fn status(&self) -> Status {
        self.status.get()
    }

    /// How far the index is (tracked; changes only between phases, so a query that
    /// depends on it is asked again once per phase, not per conversation indexed).
    pub fn phase(&self) -> Phase {
        self.phase.get()
    }

    fn set_status(&self, status: Status) {
        let _ = self.status.try_set(status);
    }

    /// Starts the index unless it runs: on first use, and again after its worker was lost.
    pub fn start(&self) {
        if self.status.get_untracked() != Status::Idle {
            return;
        }
        self.set_status(Status::Opening);
        let (search, chat) = (*self, self.chat);
        chat.store
            .spawn(async move { start_indexer(search, chat).await });
    }

    /// Opens the palette.
    pub fn open_palette(&self) {
        self.start();
        self.palette_open.set(true);
    }

    /// The conversations matching `text`, best first (`title_only`: matching their titles
    /// alone), at most `limit`.
    pub async fn find(
        &self,
        text: String,
        title_only: bool,
        limit: usize,
    ) -> Result<Found, FindError> {
        self.start();
        let found = find_lazily(text, title_only, limit).await;
        if found == Err(FindError::Lost) {
            // The worker died; its replacement needs the index brought up again.
            self.set_status(Status::Idle);
            self.start();
        }
        found
    }

    /// Opens conversation `id` at `message` (scrolled to and highlighted).
    pub fn open_result(&self, id: String, message: Option<String>) {
        self.chat.open.reveal(id, message);
    }
}

/// The indexer, in its own lazily loaded chunk.
#[lazy]
async fn start_indexer(search: Search, chat: Chat) {
    indexer::start(search, chat).await;
}

/// A query, in its own lazily loaded chunk.
#[lazy]
async fn find_lazily(text: String, title_only: bool, limit: usize) -> Result<Found, FindError> {
    found::find(&text, title_only, limit).await
}
