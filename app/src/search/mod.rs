//! Global search over everything local: an index of every conversation's active branch
//! (titles and message text; never reasoning, tool calls, files or settings) kept in a
//! Web Worker (`client`), current through the search journal (`indexer`), and saved in
//! OPFS by the worker so the next page load answers at once.
//!
//! Nothing of it is on the first load: the context here is a few signals; the indexer,
//! the worker and the palette's view come in lazily loaded chunks on first use (the
//! palette opening, or typing in the sidebar filter).
//!
//! - `client`: the worker, its requests and answers (knowledge retrieval asks it too:
//!   `crate::knowledge::retrieval`).
//! - `indexer`: snapshot, first build, catch-up and saves.
//! - `found`: queries and the passages shown for their results.
//! - `palette`: the search palette (Ctrl+K / ⌘K).
//! - `others`: the memories and workspaces the palette also finds, searched in the page.

pub(crate) mod client;
pub mod found;
mod indexer;
mod others;
mod palette;

use leptos::prelude::*;

pub use found::{FindError, Found, FoundConversation, Passage};

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

/// The search palette, mounted (from its lazily loaded chunk, dialog and all) the first
/// time it is opened: until then it costs the page nothing.
pub fn palette() -> impl IntoView {
    let search = use_search();
    move || {
        search
            .palette_mounted
            .get()
            .then(|| crate::ui::lazy::lazy_view(palette_view(), "search-palette--unmounted"))
    }
}

#[lazy]
fn palette_view() -> AnyView {
    // Shown once its stylesheet (`crate::ui::lazy_styles`) and its English sentences
    // (`crate::i18n::load_later_english`) are here.
    let styled = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Panels);
    let worded = crate::i18n::later_english_ready();
    view! { <Show when=move || styled.get() && worded.get()><palette::SearchPalette /></Show> }
        .into_any()
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
    /// The palette has been opened once (its view is mounted from then on).
    palette_mounted: RwSignal<bool>,
    status: RwSignal<Status>,
    phase: RwSignal<Phase>,
    /// Grows each time the index changes after it is ready, so shown results refresh.
    version: RwSignal<u64>,
    chat: Chat,
}

/// The search service.
pub fn use_search() -> Search {
    expect_context::<Search>()
}

impl Search {
    /// The service for `chat`, not started.
    pub fn new(chat: Chat) -> Self {
        Self {
            palette_open: RwSignal::new(false),
            palette_mounted: RwSignal::new(false),
            status: RwSignal::new(Status::Idle),
            phase: RwSignal::new(Phase::Waiting),
            version: RwSignal::new(0),
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
        let phase = match status {
            Status::Idle | Status::Opening => Phase::Waiting,
            Status::Indexing { .. } => Phase::Building,
            Status::Ready => Phase::Ready,
            Status::Unavailable => Phase::Unavailable,
        };
        if self.phase.try_get_untracked() != Some(phase) {
            let _ = self.phase.try_set(phase);
        }
        let _ = self.status.try_set(status);
    }

    /// The index's version (tracked): a query shown on screen asks again when it moves
    /// (a message written here or in another tab, a delete-all).
    pub fn version(&self) -> u64 {
        self.version.get()
    }

    fn index_changed(&self) {
        let _ = self.version.try_update(|v| *v += 1);
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
        self.palette_mounted.set(true);
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
