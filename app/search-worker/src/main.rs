//! # hearth-search-worker
//!
//! The search worker, a wasm module of its own (nothing of the app is linked in) that the
//! app starts in a Web Worker. It holds the full-text index of conversations
//! (`hearth_core::search::SearchIndex`, `Source::Conversations`), so the page never
//! indexes, and saves it to the origin private file system so a reload does not rebuild
//! it. What of a conversation is indexed is `hearth_core::search::conversation`.
//!
//! Once its handler is installed it posts `{ready: true, startedMs}` (how long it took to
//! start, by its own clock). Requests are plain objects
//! with an `op` and a numeric `seq`, run one at a time in the order they came; every
//! answer carries the request's `seq` (a request without one is ignored) and `busyMs`,
//! the time the worker spent on it (the benchmarks' breakdown of a build and a reopen).
//!
//! | request | answer |
//! |---|---|
//! | `{op: "open", seq}` | `{op: "opened", seq, restored, covers, documents, readMs, restoreMs, error?}` |
//! | `{op: "index", seq, conversation, messages}` | `{op: "indexed", seq, id, documents, partial, readMs}` |
//! | `{op: "forget", seq, id}` | `{op: "forgotten", seq, id, removed}` |
//! | `{op: "clear", seq}` | `{op: "cleared", seq, error?}` |
//! | `{op: "compact", seq}` | `{op: "compacted", seq, documents}` |
//! | `{op: "search", seq, query, limit, titleOnly}` | `{op: "results", seq, total, parents, groups, error?}` |
//! | `{op: "save", seq, covers}` | `{op: "saved", seq, ok, covers, bytes, error?}` |
//! | `{op: "stats", seq}` | `{op: "stats", seq, documents, heapBytes, passages}` |
//! | `{op: "passages", seq, asked, slot?}` | `{op: "passages", seq, found, error?}` |
//! | anything else | `{op: "error", seq, error: "unknown op"}` |
//!
//! - **open** replaces whatever the worker holds with the saved file
//!   (`search/conversations.idx`: `"HSIX0001"`, `covers` as u64 LE, the snapshot). No
//!   file: `restored: false, covers: 0`. A file refused, or no file system: `restored:
//!   false, covers: 0` and `error` (`corrupt`, `version`, `tooLarge`, `busy`,
//!   `unavailable`, `io`), and the index is empty: rebuild it. `readMs` and `restoreMs`:
//!   the time reading the file and restoring the index from it took.
//! - **index** takes the conversation and its messages as stored (camelCase; see
//!   `records`; a message whose `conversationId` names another conversation is skipped)
//!   and replaces every document of that conversation. `documents`: how many it has now;
//!   `partial`: one was cut at a length limit; `readMs`: the time reading the posted
//!   records into texts took (the rest of `busyMs` is indexing).
//! - **forget** removes a conversation's documents; `removed`: how many.
//! - **clear** empties the index and deletes the saved file (`error` when the file could
//!   not be deleted).
//! - **compact** freezes what was added since the last compaction (the page asks once a
//!   build is done: the index then takes about a quarter of the memory, and queries no
//!   longer scan the terms added since).
//! - **search** answers the best `limit` conversations, each
//!   `{conversation, message, title, partial, timestamp, matches, score}`: its best
//!   document (`message` is a message id, or the conversation's id when `title`: the
//!   best hit is the title), how many of its documents matched. A refused query has
//!   `error` (`empty`, `tooLong`, `tooManyParts`) and no groups.
//! - **save** writes the snapshot with `covers` (the page's journal position), unless the
//!   file there covers more (`ok: false, error: "newer"`, `covers`: the file's). Other
//!   failures: `busy` (another tab's worker has the file open), `quota`, `unavailable`,
//!   `io`, with the request's `covers`. `bytes`: the file's size. The file is written to
//!   `conversations.idx.tmp` and moved over the old one where file handles can move,
//!   else in place (a torn write then fails the snapshot's checksum on open).
//! - **passages** answers a question of a conversation's knowledge collections:
//!   `asked` is the JSON of `hearth_core::knowledge::ask::Asked` (the question and the
//!   files in scope), `found` the JSON of `Answered` (the passages, and the files whose
//!   text could not be read or did not fit). The texts are read from the private file
//!   system here, at each file's `contentPath`; the index is kept while the files in
//!   scope do not change (`knowledge`), one for `slot: "palette"` (the search palette's
//!   questions of every collection) and one for the rest (a turn's). A request that
//!   does not read: `error: "request"`.
//!
//! A file another worker holds (a sync access handle is exclusive) is waited for, under
//! a second in all, before `busy`.
//!
//! A panic cannot be caught here (wasm32 panics abort, and the module is unusable after
//! the trap), so the panic hook reports `{panic: true, seq}` for the request being run
//! and the page replaces the worker.

mod dispatch;
mod file;
mod index;
mod knowledge;
mod opfs;
mod records;

use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// Logs the panic and tells the page which request caused it.
fn report_panic(info: &std::panic::PanicHookInfo) {
    console_error_panic_hook::hook(info);
    let report = Object::new();
    let _ = Reflect::set(&report, &JsValue::from_str("panic"), &JsValue::TRUE);
    if let Some(seq) = dispatch::current() {
        let _ = Reflect::set(&report, &JsValue::from_str("seq"), &JsValue::from_f64(seq));
    }
    if let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() {
        let _ = scope.post_message(&report);
    }
}

/// Installs the message handler.
fn main() {
    std::panic::set_hook(Box::new(report_panic));
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    let reply_to = scope.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        dispatch::receive(&reply_to, event.data());
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // Messages posted before this handler existed were dropped; the page waits for this.
    let ready = Object::new();
    let _ = Reflect::set(&ready, &JsValue::from_str("ready"), &JsValue::TRUE);
    // How long the worker took to start (its clock starts when the page created it).
    let _ = Reflect::set(
        &ready,
        &JsValue::from_str("startedMs"),
        &JsValue::from_f64(dispatch::now()),
    );
    let _ = Reflect::set(
        &ready,
        &JsValue::from_str("originMs"),
        &JsValue::from_f64(dispatch::origin()),
    );
    let _ = scope.post_message(&ready);
}
