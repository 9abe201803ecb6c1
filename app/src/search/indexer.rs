//! Keeping the worker's index equal to what is stored, driven by the search journal
//! (`storage::journal`): the index reflects every write up to number `last`, and a sync
//! indexes again exactly the conversations written after it.
//!
//! - **Start:** the worker opens its snapshot, which says which write number it covers.
//!   With none (or one the journal cannot vouch for) the index is built from nothing:
//!   first every title, so the sidebar filter answers early, then every conversation's
//!   messages, a few requests in flight, progress shown, then compacted. Then a sync.
//! - **Sync:** after any chat change in this tab or another (`ChatDb::changes`), at most
//!   every [`SYNC_EVERY_MS`]. A conversation this tab is still writing a reply in waits
//!   until the reply ends, and the saved index never claims to cover it meanwhile.
//! - **Save:** [`SAVE_AFTER_MS`] after the last change and the last query, and when the
//!   page is hidden; the worker keeps the newer of two tabs' snapshots. Saving compacts
//!   the whole index in the worker, which answers nothing meanwhile, so it waits while
//!   the user is searching.
//!
//! A worker that fails loses its memory; the next search starts the indexer again.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use js_sys::Array;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

use super::client::{self, WorkerError, op};
use super::{Search, Status};
use crate::chat::Chat;
use crate::storage::{BY_CONVERSATION, CONVERSATIONS, Db, MESSAGES, StorageError};

/// The shortest time between two syncs.
pub const SYNC_EVERY_MS: i32 = 400;
/// How long after the last change the index is saved.
pub const SAVE_AFTER_MS: i32 = 3_000;
/// How many conversations are sent to the worker before waiting for its answers.
const IN_FLIGHT: usize = 4;

#[derive(Default)]
struct State {
    /// The write number the index reflects everything up to.
    last: f64,
    /// Conversations left for later (a reply is being written there), with the number of
    /// their write.
    deferred: HashMap<String, f64>,
    /// The worker this state belongs to.
    epoch: u32,
    syncing: bool,
    again: bool,
    /// The index has changes the saved snapshot lacks.
    dirty: bool,
    /// A save is planned (its timer's generation).
    save_planned: u32,
    /// When the last query was asked (ms since the epoch).
    last_query: f64,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// Why the indexer stopped.
#[derive(Debug)]
enum Stop {
    Worker(WorkerError),
    Storage(StorageError),
}

impl From<WorkerError> for Stop {
    fn from(error: WorkerError) -> Self {
        Self::Worker(error)
    }
}

impl From<StorageError> for Stop {
    fn from(error: StorageError) -> Self {
        Self::Storage(error)
    }
}

/// Brings the index up (snapshot, build, catch-up) and keeps it current.
pub async fn start(search: Search, chat: Chat) {
    match bring_up(search, chat).await {
        Ok(()) => search.set_status(Status::Ready),
        Err(Stop::Worker(WorkerError::Failed)) => search.set_status(Status::Idle),
        Err(Stop::Worker(WorkerError::Unavailable)) => search.set_status(Status::Unavailable),
        Err(Stop::Storage(error)) => {
            // Shown where every storage problem is: the banner.
            chat.store.show_error(error);
            search.set_status(Status::Unavailable);
        }
    }
}

async fn bring_up(search: Search, chat: Chat) -> Result<(), Stop> {
    search.set_status(Status::Opening);
    crate::browser::mark("hearth:search:start");
    let Some(db) = chat.store.wait().await else {
        return Err(Stop::Worker(WorkerError::Unavailable));
    };
    let opened = client::request(op("open", &[])).await?;
    crate::browser::record_measure("hearth:search:open-read", client::number(&opened, "readMs"));
    crate::browser::record_measure(
        "hearth:search:open-restore",
        client::number(&opened, "restoreMs"),
    );
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        *state = State {
            epoch: client::epoch(),
            ..State::default()
        };
    });
    let covers = client::number(&opened, "covers");
    let counter = db.journal_counter().await?;
    // A snapshot newer than the journal belongs to a database since deleted.
    let trusted = client::flag(&opened, "restored") && db.has_journal() && covers <= counter;
    if trusted {
        set_last(covers);
        crate::browser::mark("hearth:search:restored");
    } else {
        build(search, &db).await?;
        crate::browser::mark("hearth:search:built");
    }
    search.set_status(Status::Ready);
    sync(chat, &db).await?;
    plan_save(chat);
    chat.store.under_root(|| {
        Effect::new(move |first: Option<()>| {
            chat.store.changes();
            if first.is_some() {
                schedule_sync(search, chat);
            }
        });
        let _ = window_event_listener(leptos::ev::visibilitychange, move |_| {
            if document().hidden() {
                chat.store.spawn(save());
            }
        });
    });
    Ok(())
}

fn set_last(last: f64) {
    STATE.with(|state| state.borrow_mut().last = last);
}

fn last() -> f64 {
    STATE.with(|state| state.borrow().last)
}

/// Where a build's time went, for the benchmarks (`performance` measures named
/// `hearth:search:build-*`): the page waiting for IndexedDB, the worker reading the
/// records it was posted and indexing them, and the compaction.
#[derive(Default)]
struct BuildTimes {
    reads: f64,
    worker: f64,
    records: f64,
}

impl BuildTimes {
    /// Counts the worker's time for `answer` (an `indexed` answer).
    fn answered(&mut self, answer: &JsValue) {
        self.worker += client::number(answer, "busyMs");
        self.records += client::number(answer, "readMs");
    }

    fn record(&self, compacted: &JsValue) {
        crate::browser::record_measure("hearth:search:build-reads", self.reads);
        crate::browser::record_measure("hearth:search:build-worker", self.worker);
        crate::browser::record_measure("hearth:search:build-records", self.records);
        crate::browser::record_measure(
            "hearth:search:build-compact",
            client::number(compacted, "busyMs"),
        );
    }
}

/// Indexes everything stored, from nothing.
async fn build(search: Search, db: &Db) -> Result<(), Stop> {
    let mut times = BuildTimes::default();
    let counter = db.journal_counter().await?;
    client::request(op("clear", &[])).await?;
    let read_from = crate::browser::clock();
    let conversations = db.all_raw(CONVERSATIONS).await?;
    times.reads += crate::browser::clock() - read_from;
    let total = conversations.len();
    search.set_status(Status::Indexing { done: 0, total });
    let no_messages = Array::new();
    // Titles first: the title filter answers before the messages are in.
    let mut flight = VecDeque::new();
    for conversation in &conversations {
        flight.push_back(client::post(index_request(conversation, &no_messages))?);
        if flight.len() >= IN_FLIGHT * 8
            && let Some(answer) = flight.pop_front()
        {
            times.answered(&client::wait(answer).await?);
        }
    }
    for answer in flight.drain(..) {
        times.answered(&client::wait(answer).await?);
    }
    for (done, conversation) in conversations.iter().enumerate() {
        let id = client::text(conversation, "id").unwrap_or_default();
        let read_from = crate::browser::clock();
        let messages = db.raw_by(MESSAGES, BY_CONVERSATION, &id).await?;
        times.reads += crate::browser::clock() - read_from;
        let messages: Array = messages.into_iter().collect();
        flight.push_back(client::post(index_request(conversation, &messages))?);
        if flight.len() >= IN_FLIGHT
            && let Some(answer) = flight.pop_front()
        {
            times.answered(&client::wait(answer).await?);
        }
        search.set_status(Status::Indexing {
            done: done + 1,
            total,
        });
    }
    for answer in flight.drain(..) {
        times.answered(&client::wait(answer).await?);
    }
    // Frozen at once: queries then expand prefixes and typos in the sorted dictionary
    // instead of scanning every term the build added, and the index shrinks to a quarter.
    let compacted = client::request(op("compact", &[])).await?;
    times.record(&compacted);
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        state.last = counter;
        state.dirty = true;
    });
    Ok(())
}

fn index_request(conversation: &JsValue, messages: &Array) -> js_sys::Object {
    op(
        "index",
        &[
            ("conversation", conversation.clone()),
            ("messages", messages.into()),
        ],
    )
}

/// Indexes conversation `id` again as it is stored now (forgets it when it is gone).
async fn reindex(db: &Db, id: &str) -> Result<(), Stop> {
    match db.get_raw(CONVERSATIONS, id).await? {
        Some(conversation) if conversation.is_object() => {
            let messages: Array = db
                .raw_by(MESSAGES, BY_CONVERSATION, id)
                .await?
                .into_iter()
                .collect();
            client::request(index_request(&conversation, &messages)).await?;
        }
        _ => {
            client::request(op("forget", &[("id", JsValue::from_str(id))])).await?;
        }
    }
    Ok(())
}

/// Plans a sync soon; a sync already running runs once more instead.
fn schedule_sync(search: Search, chat: Chat) {
    let start = STATE.with(|state| {
        let mut state = state.borrow_mut();
        if state.syncing {
            state.again = true;
            false
        } else {
            state.syncing = true;
            true
        }
    });
    if !start {
        return;
    }
    chat.store.spawn(async move {
        loop {
            crate::browser::sleep_ms(SYNC_EVERY_MS).await;
            let Some(db) = chat.store.get() else { break };
            if client::epoch() != STATE.with(|s| s.borrow().epoch) {
                // The worker was replaced: its index is gone; the next search restarts.
                search.set_status(Status::Idle);
                break;
            }
            match sync(chat, &db).await {
                // Open results and filters ask again.
                Ok(true) => search.index_changed(),
                Ok(false) => {}
                Err(Stop::Storage(error)) => chat.store.show_error(error),
                // The worker was lost: the next search brings the index up again.
                Err(Stop::Worker(_)) => search.set_status(Status::Idle),
            }
            let again = STATE.with(|state| {
                let mut state = state.borrow_mut();
                std::mem::take(&mut state.again)
            });
            if !again {
                break;
            }
        }
        STATE.with(|state| state.borrow_mut().syncing = false);
        plan_save(chat);
    });
}

/// Indexes what was written after `last` (and what waited for a reply to end); whether
/// the index changed.
async fn sync(chat: Chat, db: &Db) -> Result<bool, Stop> {
    let since = db.journal_since(last()).await?;
    if since.everything {
        build_quietly(db).await?;
        return Ok(true);
    }
    let mut todo: HashMap<String, f64> =
        STATE.with(|state| std::mem::take(&mut state.borrow_mut().deferred));
    for (id, seq) in since.conversations {
        todo.insert(id, seq);
    }
    let mut deferred = HashMap::new();
    let mut changed = false;
    for (id, seq) in todo {
        if !chat.runs.writing(&id).is_empty() {
            deferred.insert(id, seq);
            continue;
        }
        reindex(db, &id).await?;
        changed = true;
    }
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        state.last = since.last;
        for (id, seq) in deferred {
            state.deferred.insert(id, seq);
        }
        state.dirty |= changed;
    });
    Ok(changed)
}

/// A rebuild after everything changed (a delete-all, an import into an empty store),
/// without the progress of a first build.
async fn build_quietly(db: &Db) -> Result<(), Stop> {
    let counter = db.journal_counter().await?;
    client::request(op("clear", &[])).await?;
    for conversation in db.all_raw(CONVERSATIONS).await? {
        let id = client::text(&conversation, "id").unwrap_or_default();
        reindex(db, &id).await?;
    }
    client::request(op("compact", &[])).await?;
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        state.last = counter;
        state.deferred.clear();
        state.dirty = true;
    });
    Ok(())
}

/// Saves [`SAVE_AFTER_MS`] after the last call.
fn plan_save(chat: Chat) {
    let generation = STATE.with(|state| {
        let mut state = state.borrow_mut();
        state.save_planned = state.save_planned.wrapping_add(1);
        state.save_planned
    });
    chat.store.spawn(async move {
        loop {
            crate::browser::sleep_ms(SAVE_AFTER_MS).await;
            let (planned, last_query) = STATE.with(|state| {
                let state = state.borrow();
                (state.save_planned, state.last_query)
            });
            if planned != generation {
                return;
            }
            // Someone is searching: a save now would hold their answers up.
            if crate::browser::now() - last_query >= f64::from(SAVE_AFTER_MS) {
                break;
            }
        }
        save().await;
    });
}

/// Notes that a query is being asked (a planned save waits for a quiet moment).
pub fn note_query() {
    STATE.with(|state| state.borrow_mut().last_query = crate::browser::now());
}

/// The write number a snapshot of the index may claim: `last`, or less while a
/// conversation waits to be indexed.
fn covers() -> f64 {
    STATE.with(|state| {
        let state = state.borrow();
        state
            .deferred
            .values()
            .fold(state.last, |covers, seq| covers.min(seq - 1.0))
    })
}

/// Saves the index when it has changes the snapshot lacks.
async fn save() {
    let (dirty, epoch) = STATE.with(|state| {
        let state = state.borrow();
        (state.dirty, state.epoch)
    });
    if !dirty || epoch != client::epoch() {
        return;
    }
    let covers = covers();
    STATE.with(|state| state.borrow_mut().dirty = false);
    let saved = client::request(op("save", &[("covers", JsValue::from_f64(covers))])).await;
    let ok = saved
        .as_ref()
        .is_ok_and(|answer| client::flag(answer, "ok"));
    if !ok {
        // Another tab holds the file (or saved a newer one): try again later.
        STATE.with(|state| state.borrow_mut().dirty = true);
    }
}
