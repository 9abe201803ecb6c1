//! The page's side of the search worker (crate `hearth-search-worker`): starting it from
//! `hearth-search_loader.js` in the build's directory, posting requests with a `seq`,
//! and handing each answer to the future that waits for it. A worker that fails (its
//! `error` event or a panic it reports) fails every pending request with
//! [`WorkerError::Failed`]; the next request starts a new worker, and the indexer opens
//! its snapshot again. After [`MAX_STARTS`] failed workers search is off for the page.

use std::cell::RefCell;
use std::collections::HashMap;

use futures::channel::oneshot;
use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

/// How many workers may fail before search is given up for the page.
pub const MAX_STARTS: u32 = 3;

/// Why a request got no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerError {
    /// No worker can run here (no build directory, a browser without workers, or too
    /// many failures).
    Unavailable,
    /// The worker failed while the request was pending.
    Failed,
}

type Reply = oneshot::Sender<Result<JsValue, WorkerError>>;

#[derive(Default)]
struct State {
    worker: Option<Worker>,
    /// The current worker's number; what older workers report is ignored.
    epoch: u32,
    ready: bool,
    /// Requests posted before the worker listened, in order.
    queued: Vec<Object>,
    pending: HashMap<u64, Reply>,
    next_seq: u64,
    starts: u32,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

fn get(data: &JsValue, name: &str) -> Option<JsValue> {
    Reflect::get(data, &JsValue::from_str(name)).ok()
}

fn worker_url() -> Option<String> {
    crate::browser::app_asset("hearth-search_loader.js")
}

/// The number of the worker now running (it changes when one is replaced): the indexer
/// compares it to know its worker's memory was lost.
pub fn epoch() -> u32 {
    STATE.with(|state| state.borrow().epoch)
}

/// An answer on its way.
pub type Answer = oneshot::Receiver<Result<JsValue, WorkerError>>;

/// Sends `request` (an object; its `seq` is set here) and waits for the answer.
pub async fn request(request: Object) -> Result<JsValue, WorkerError> {
    wait(post(request)?).await
}

/// The answer `answer` brings.
pub async fn wait(answer: Answer) -> Result<JsValue, WorkerError> {
    answer.await.unwrap_or(Err(WorkerError::Failed))
}

/// Sends `request` now (an object; its `seq` is set here); the answer arrives on the
/// receiver, so several requests can be in flight.
pub fn post(request: Object) -> Result<Answer, WorkerError> {
    let (sender, receiver) = oneshot::channel();
    let posted = STATE.with(|state| {
        let mut state = state.borrow_mut();
        if state.worker.is_none() && !start(&mut state) {
            return Err(WorkerError::Unavailable);
        }
        state.next_seq += 1;
        let seq = state.next_seq;
        let _ = Reflect::set(&request, &"seq".into(), &JsValue::from_f64(seq as f64));
        state.pending.insert(seq, sender);
        if state.ready {
            if let Some(worker) = &state.worker {
                let _ = worker.post_message(&request);
            }
        } else {
            state.queued.push(request);
        }
        Ok(())
    });
    posted?;
    Ok(receiver)
}

/// Starts a worker; `false` when none can run.
fn start(state: &mut State) -> bool {
    if state.starts >= MAX_STARTS {
        return false;
    }
    let Some(url) = worker_url() else {
        return false;
    };
    crate::browser::mark("hearth:search:worker-created");
    let Ok(worker) = Worker::new(&url) else {
        return false;
    };
    state.starts += 1;
    state.epoch = state.epoch.wrapping_add(1);
    state.ready = false;
    let epoch = state.epoch;
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        on_message(epoch, &event.data());
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn Fn(JsValue)>::new(move |detail: JsValue| {
        on_failure(epoch, &detail);
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    state.worker = Some(worker);
    true
}

/// Marks when the worker's clock started (`hearth:search:worker-began`) and measures how
/// long it took to start (`hearth:search:worker-start`), from its `ready`: the
/// benchmarks' breakdown of a reopen.
fn note_start(ready: &JsValue) {
    let started = get(ready, "startedMs").and_then(|v| v.as_f64());
    crate::browser::record_measure("hearth:search:worker-start", started.unwrap_or(0.0));
    if let Some(origin) = get(ready, "originMs").and_then(|v| v.as_f64()) {
        let page = leptos::prelude::window()
            .performance()
            .map_or(0.0, |p| p.time_origin());
        crate::browser::mark_at("hearth:search:worker-began", origin - page);
    }
}

fn on_message(epoch: u32, data: &JsValue) {
    let flag = |name| get(data, name).and_then(|v| v.as_bool()) == Some(true);
    if flag("ready") {
        note_start(data);
        STATE.with(|state| {
            let mut state = state.borrow_mut();
            if state.epoch != epoch {
                return;
            }
            state.ready = true;
            let queued = std::mem::take(&mut state.queued);
            if let Some(worker) = &state.worker {
                for request in queued {
                    let _ = worker.post_message(&request);
                }
            }
        });
        return;
    }
    if flag("panic") {
        on_failure(epoch, &"panic".into());
        return;
    }
    let Some(seq) = get(data, "seq").and_then(|v| v.as_f64()) else {
        return;
    };
    let reply = STATE.with(|state| {
        let mut state = state.borrow_mut();
        (state.epoch == epoch)
            .then(|| state.pending.remove(&(seq as u64)))
            .flatten()
    });
    if let Some(reply) = reply {
        let _ = reply.send(Ok(data.clone()));
    }
}

/// Worker `epoch` failed: every pending request fails; the next request starts another.
fn on_failure(epoch: u32, detail: &JsValue) {
    let failed = STATE.with(|state| {
        let mut state = state.borrow_mut();
        if state.epoch != epoch || state.worker.is_none() {
            return Vec::new();
        }
        web_sys::console::warn_2(&"Search worker failed:".into(), detail);
        if let Some(worker) = state.worker.take() {
            worker.terminate();
        }
        state.ready = false;
        state.queued.clear();
        state.pending.drain().map(|(_, reply)| reply).collect()
    });
    for reply in failed {
        let _ = reply.send(Err(WorkerError::Failed));
    }
}

/// A request object `{op, ...fields}`.
pub fn op(name: &str, fields: &[(&str, JsValue)]) -> Object {
    let request = Object::new();
    let _ = Reflect::set(&request, &"op".into(), &name.into());
    for (field, value) in fields {
        let _ = Reflect::set(&request, &(*field).into(), value);
    }
    request
}

/// Field `name` of an answer as a number (0 when absent).
pub fn number(answer: &JsValue, name: &str) -> f64 {
    get(answer, name).and_then(|v| v.as_f64()).unwrap_or(0.0)
}

/// Field `name` of an answer as a flag.
pub fn flag(answer: &JsValue, name: &str) -> bool {
    get(answer, name).and_then(|v| v.as_bool()).unwrap_or(false)
}

/// Field `name` of an answer as text.
pub fn text(answer: &JsValue, name: &str) -> Option<String> {
    get(answer, name).and_then(|v| v.as_string())
}

/// Field `name` of an answer.
pub fn field(answer: &JsValue, name: &str) -> JsValue {
    get(answer, name).unwrap_or(JsValue::UNDEFINED)
}
