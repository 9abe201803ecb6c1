//! The requests: queued and run one at a time, in the order they came (a file operation
//! waits on promises, and the next request must not start meanwhile), each answered
//! with its `seq` and the time it took here (`busyMs`, for the benchmarks' breakdown).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use hearth_core::search::SearchOptions;
use hearth_core::search::conversation::MessageText;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::{DedicatedWorkerGlobalScope, WorkerGlobalScope};

use crate::file;
use crate::index::{Index, query_error};
use crate::knowledge;
use crate::opfs::{self, Stored};
use crate::records::{self, Fields};

thread_local! {
    /// The index of conversations.
    static INDEX: RefCell<Index> = RefCell::default();
    /// Requests waiting for the one being run.
    static QUEUE: RefCell<VecDeque<JsValue>> = const { RefCell::new(VecDeque::new()) };
    /// A request is being run (the queue is being drained).
    static RUNNING: Cell<bool> = const { Cell::new(false) };
    /// The `seq` of the request being run, for the panic report.
    static CURRENT: Cell<Option<f64>> = const { Cell::new(None) };
}

/// The `seq` of the request being run, if any.
pub fn current() -> Option<f64> {
    CURRENT.with(Cell::get)
}

/// Queues `request`, and drains the queue unless that is under way.
pub fn receive(scope: &DedicatedWorkerGlobalScope, request: JsValue) {
    QUEUE.with(|queue| queue.borrow_mut().push_back(request));
    if RUNNING.with(|running| running.replace(true)) {
        return;
    }
    let scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        while let Some(request) = QUEUE.with(|queue| queue.borrow_mut().pop_front()) {
            if let Some(answer) = run(&request).await {
                let _ = scope.post_message(&answer);
            }
        }
        RUNNING.with(|running| running.set(false));
    });
}

/// An answer being built: `{op, seq, ...}`.
struct Answer(Object);

impl Answer {
    fn new(op: &str, seq: f64) -> Self {
        Self(Object::new()).with("op", op).with("seq", seq)
    }

    fn with(self, key: &str, value: impl Into<JsValue>) -> Self {
        let _ = Reflect::set(&self.0, &JsValue::from_str(key), &value.into());
        self
    }
}

fn field(request: &JsValue, name: &str) -> JsValue {
    Reflect::get(request, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// The worker's clock, in milliseconds (0 where there is none).
pub fn now() -> f64 {
    js_sys::global()
        .dyn_into::<WorkerGlobalScope>()
        .ok()
        .and_then(|scope| scope.performance())
        .map_or(0.0, |performance| performance.now())
}

/// When the worker's clock started (`performance.timeOrigin`, ms since the epoch).
pub fn origin() -> f64 {
    js_sys::global()
        .dyn_into::<WorkerGlobalScope>()
        .ok()
        .and_then(|scope| scope.performance())
        .map_or(0.0, |performance| performance.time_origin())
}

/// Runs `request`; `None` (no answer) when it has no numeric `seq` to answer with.
async fn run(request: &JsValue) -> Option<Object> {
    let seq = request.number("seq")?;
    CURRENT.with(|current| current.set(Some(seq)));
    let started = now();
    let answer = match request.text("op").unwrap_or_default().as_str() {
        "open" => open(seq).await,
        "index" => index(seq, request),
        "forget" => forget(seq, request),
        "clear" => clear(seq).await,
        "compact" => compact(seq),
        "search" => search(seq, request),
        "save" => save(seq, request).await,
        "stats" => stats(seq),
        "passages" => passages(seq, request).await,
        _ => Answer::new("error", seq).with("error", "unknown op"),
    };
    CURRENT.with(|current| current.set(None));
    Some(answer.with("busyMs", now() - started).0)
}

/// Replaces the index with the saved one (or an empty one when there is none or it is
/// refused).
async fn open(seq: f64) -> Answer {
    let started = now();
    let loaded = opfs::load().await;
    let read = now();
    let (index, covers, error) = match loaded {
        Ok(Some(bytes)) => match Index::restore(&bytes) {
            Ok((index, covers)) => (Some(index), covers, None),
            Err(code) => (None, 0, Some(code)),
        },
        Ok(None) => (None, 0, None),
        Err(code) => (None, 0, Some(code)),
    };
    let restored = index.is_some();
    let restore_ms = now() - read;
    let index = index.unwrap_or_default();
    let documents = index.documents();
    INDEX.with(|held| *held.borrow_mut() = index);
    let answer = Answer::new("opened", seq)
        .with("restored", restored)
        .with("covers", covers as f64)
        .with("documents", documents as f64)
        .with("readMs", read - started)
        .with("restoreMs", restore_ms);
    match error {
        Some(code) => answer.with("error", code),
        None => answer,
    }
}

fn index(seq: f64, request: &JsValue) -> Answer {
    let started = now();
    let conversation = records::conversation(&field(request, "conversation"));
    let messages = field(request, "messages");
    let messages: Vec<MessageText> = if Array::is_array(&messages) {
        Array::from(&messages)
            .iter()
            .filter_map(|message| records::message(&message, &conversation.id))
            .collect()
    } else {
        Vec::new()
    };
    let read_ms = now() - started;
    let indexed = INDEX.with(|held| held.borrow_mut().replace(&conversation, &messages));
    Answer::new("indexed", seq)
        .with("readMs", read_ms)
        .with("id", conversation.id.as_str())
        .with("documents", indexed.documents as f64)
        .with("partial", indexed.partial)
}

fn forget(seq: f64, request: &JsValue) -> Answer {
    let id = request.text("id").unwrap_or_default();
    let removed = INDEX.with(|held| held.borrow_mut().forget(&id));
    Answer::new("forgotten", seq)
        .with("id", id.as_str())
        .with("removed", removed as f64)
}

fn compact(seq: f64) -> Answer {
    let documents = INDEX.with(|held| {
        let mut held = held.borrow_mut();
        held.compact();
        held.documents()
    });
    Answer::new("compacted", seq).with("documents", documents as f64)
}

async fn clear(seq: f64) -> Answer {
    INDEX.with(|held| held.borrow_mut().clear());
    let answer = Answer::new("cleared", seq);
    match opfs::delete().await {
        Ok(()) => answer,
        Err(code) => answer.with("error", code),
    }
}

fn search(seq: f64, request: &JsValue) -> Answer {
    let query = request.text("query").unwrap_or_default();
    let limit = request
        .number("limit")
        .filter(|limit| *limit >= 0.0)
        .map_or(SearchOptions::default().limit, |limit| limit as usize);
    let title_only = field(request, "titleOnly").as_bool() == Some(true);
    let answer = Answer::new("results", seq);
    let results = INDEX.with(|held| held.borrow().search(&query, limit, title_only));
    let results = match results {
        Ok(results) => results,
        Err(error) => {
            return answer
                .with("error", query_error(&error))
                .with("total", 0.0)
                .with("parents", 0.0)
                .with("groups", Array::new());
        }
    };
    let groups: Array = results
        .groups
        .iter()
        .map(|found| {
            Answer(Object::new())
                .with("conversation", found.conversation.as_str())
                .with("message", found.message.as_str())
                .with("title", found.title)
                .with("partial", found.partial)
                .with("timestamp", found.timestamp as f64)
                .with("matches", found.matches as f64)
                .with("score", f64::from(found.score))
                .0
        })
        .collect();
    answer
        .with("total", results.total as f64)
        .with("parents", results.parents as f64)
        .with("groups", groups)
}

async fn save(seq: f64, request: &JsValue) -> Answer {
    let covers = file::covers_from(request.number("covers"));
    let snapshot = || INDEX.with(|held| held.borrow_mut().snapshot());
    let (ok, covers, bytes, error) = match opfs::store(covers, snapshot).await {
        Ok(Stored::Written(bytes)) => (true, covers, bytes, None),
        Ok(Stored::Newer(current)) => (false, current, 0, Some("newer")),
        Err(code) => (false, covers, 0, Some(code)),
    };
    let answer = Answer::new("saved", seq)
        .with("ok", ok)
        .with("covers", covers as f64)
        .with("bytes", bytes as f64);
    match error {
        Some(code) => answer.with("error", code),
        None => answer,
    }
}

fn stats(seq: f64) -> Answer {
    let (documents, heap) = INDEX.with(|held| {
        let held = held.borrow();
        (held.documents(), held.heap_bytes())
    });
    Answer::new("stats", seq)
        .with("documents", documents as f64)
        .with("heapBytes", heap as f64)
        .with("passages", knowledge::passages_kept() as f64)
}

async fn passages(seq: f64, request: &JsValue) -> Answer {
    let asked = request.text("asked").unwrap_or_default();
    let slot = knowledge::Slot::named(request.text("slot").as_deref());
    match knowledge::passages(&asked, slot).await {
        Some(found) => Answer::new("passages", seq).with("found", found.as_str()),
        None => Answer::new("passages", seq).with("error", "request"),
    }
}
