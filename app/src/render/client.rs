//! The page's side of the render worker. The worker starts on the first request, from
//! `hearth-render_loader.js` in the build's content-hashed directory, which
//! `scripts/build-app-wasm.sh` names in `<meta name="hearth-app-dir">`. Answers are
//! matched to requests by id.
//!
//! A worker that dies (its `error` event, a panic it reports, or no answer for
//! [`TIMEOUT`] while it has work) is terminated and replaced, and every pending request
//! is posted again; [`super::supervisor`] decides which request is to blame and when to
//! stop retrying. A request that brought down two workers is answered with an error and
//! its text (`markdown::render_failed`); only if no worker can start at all are requests
//! answered with `None`, and callers show the text as plain text: never unsanitised HTML.

use std::cell::RefCell;
use std::time::Duration;

use hearth_core::markdown::{Labels, render_failed};
use js_sys::{Object, Reflect};
use leptos::prelude::set_timeout;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

use super::supervisor::{Recovery, Supervisor};

/// How long a busy worker may go without answering before it is taken as hung. A whole
/// 4 MiB message renders in a second or two.
pub const TIMEOUT: Duration = Duration::from_secs(15);

type Callback = Box<dyn FnOnce(Option<String>)>;

/// A request and who waits for it.
struct Pending {
    /// `{id, text, copy, plain, large, preview}`, posted again to a replacement worker.
    request: Object,
    done: Callback,
    labels: Labels,
}

#[derive(Default)]
struct State {
    worker: Option<Worker>,
    supervisor: Supervisor<Pending>,
    /// A watchdog timer is set.
    watching: bool,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

fn worker_url() -> Option<String> {
    crate::browser::app_asset("hearth-render_loader.js")
}

fn get(data: &JsValue, name: &str) -> Option<JsValue> {
    Reflect::get(data, &JsValue::from_str(name)).ok()
}

/// Answers what a failure left: errors for the requests to blame, nothing for those
/// abandoned. Called outside the state's borrow (callbacks may render again).
fn answer(recovery: Recovery<Pending>) {
    for pending in recovery.failed {
        let text = get(&pending.request, "text")
            .and_then(|text| text.as_string())
            .unwrap_or_default();
        (pending.done)(Some(render_failed(&text, &pending.labels)));
    }
    for pending in recovery.abandoned {
        (pending.done)(None);
    }
}

/// Worker `epoch` failed (`culprit`: the request it reported panicking on): replaces it.
fn on_failure(epoch: u32, culprit: Option<u64>, detail: &JsValue) {
    let recovery = STATE.with(|state| {
        let mut state = state.borrow_mut();
        let mut recovery = state.supervisor.failed(epoch, culprit)?;
        web_sys::console::warn_2(&"Markdown renderer failed; restarting it:".into(), detail);
        if let Some(worker) = state.worker.take() {
            worker.terminate();
        }
        if recovery.restart {
            start(&mut state, &mut recovery);
        }
        Some(recovery)
    });
    if let Some(recovery) = recovery {
        answer(recovery);
    }
}

/// Starts the current worker, or turns rendering off when none can be built (adding the
/// pending requests to `recovery.abandoned`).
fn start(state: &mut State, recovery: &mut Recovery<Pending>) {
    match start_worker(state.supervisor.epoch()) {
        Some(worker) => state.worker = Some(worker),
        None => recovery.abandoned.extend(state.supervisor.disable()),
    }
}

fn on_message(epoch: u32, event: MessageEvent) {
    let data = event.data();
    let flag = |name| get(&data, name).and_then(|v| v.as_bool()) == Some(true);
    let id = get(&data, "id").and_then(|v| v.as_f64()).map(|v| v as u64);
    if flag("ready") {
        let watch = STATE.with(|state| {
            let mut state = state.borrow_mut();
            let state = &mut *state;
            if let Some(worker) = &state.worker {
                for pending in state.supervisor.ready(epoch) {
                    let _ = worker.post_message(&pending.request);
                }
            }
            state.supervisor.busy()
        });
        if watch {
            watch_for_hangs();
        }
        return;
    }
    if flag("panic") {
        on_failure(epoch, id, &"panic".into());
        return;
    }
    let html = get(&data, "html").and_then(|v| v.as_string());
    let Some(id) = id else { return };
    let pending = STATE.with(|state| state.borrow_mut().supervisor.answered(id));
    if let Some(pending) = pending {
        (pending.done)(html);
    }
}

/// Sets the watchdog unless it is set: when the worker is busy and has not answered
/// anything for [`TIMEOUT`], it is replaced.
fn watch_for_hangs() {
    let progress = STATE.with(|state| {
        let mut state = state.borrow_mut();
        if state.watching {
            return None;
        }
        state.watching = true;
        Some(state.supervisor.progress())
    });
    let Some(progress) = progress else { return };
    set_timeout(
        move || {
            let (busy, now) = STATE.with(|state| {
                let mut state = state.borrow_mut();
                state.watching = false;
                (state.supervisor.busy(), state.supervisor.progress())
            });
            if !busy {
                return;
            }
            if now == progress {
                on_failure(progress.0, None, &"no answer in time".into());
            } else {
                watch_for_hangs();
            }
        },
        TIMEOUT,
    );
}

fn start_worker(epoch: u32) -> Option<Worker> {
    let worker = Worker::new(&worker_url()?).ok()?;
    let on_answer =
        Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| on_message(epoch, event));
    worker.set_onmessage(Some(on_answer.as_ref().unchecked_ref()));
    on_answer.forget();
    let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |event: web_sys::Event| {
        let detail = get(&event, "message").unwrap_or_default();
        on_failure(epoch, None, &detail);
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Some(worker)
}

/// Renders `text` in the worker and calls `done` with the sanitised HTML, or with `None`
/// when the renderer is unavailable. `done` is always called, at most once.
pub fn render(text: &str, labels: &Labels, done: impl FnOnce(Option<String>) + 'static) {
    let request = Object::new();
    let _ = Reflect::set(&request, &"text".into(), &JsValue::from_str(text));
    let _ = Reflect::set(&request, &"copy".into(), &labels.copy_code.as_str().into());
    let _ = Reflect::set(
        &request,
        &"plain".into(),
        &labels.plain_text.as_str().into(),
    );
    let _ = Reflect::set(&request, &"large".into(), &labels.too_large.as_str().into());
    let _ = Reflect::set(&request, &"preview".into(), &labels.preview.as_str().into());
    let pending = Pending {
        request: request.clone(),
        done: Box::new(done),
        labels: labels.clone(),
    };
    // `Ok(true)`: posted; `Err`: to answer now (rendering is off).
    let outcome = STATE.with(|state| {
        let mut state = state.borrow_mut();
        let (id, post_now) = match state.supervisor.submit(pending) {
            Ok(sent) => sent,
            Err(pending) => {
                return Err(Recovery {
                    abandoned: vec![pending],
                    ..Recovery::default()
                });
            }
        };
        let _ = Reflect::set(&request, &"id".into(), &JsValue::from_f64(id as f64));
        if state.worker.is_none() {
            let mut recovery = Recovery::default();
            start(&mut state, &mut recovery);
            if !recovery.abandoned.is_empty() {
                return Err(recovery);
            }
        }
        match &state.worker {
            Some(worker) if post_now => Ok(worker.post_message(&request).is_ok()),
            _ => Ok(false),
        }
    });
    match outcome {
        Ok(true) => watch_for_hangs(),
        Ok(false) => {}
        Err(recovery) => answer(recovery),
    }
}
