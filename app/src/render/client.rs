//! The page's side of the render worker. The worker starts on the first request, from
//! `hearth-render_loader.js` in the build's content-hashed directory, which
//! `scripts/build-app-wasm.sh` names in `<meta name="hearth-app-dir">`. Answers are
//! matched to requests by id. If the worker cannot start or dies, every pending and later request is answered
//! with `None` and callers show the text as plain text: never unsanitised HTML.

use std::cell::RefCell;
use std::collections::HashMap;

use hearth_core::markdown::Labels;
use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

type Callback = Box<dyn FnOnce(Option<String>)>;

#[derive(Default)]
struct State {
    worker: Option<Worker>,
    /// The worker said it is listening (requests posted earlier would be lost).
    ready: bool,
    /// Requests waiting for `ready`.
    waiting: Vec<Object>,
    failed: bool,
    next_id: u32,
    pending: HashMap<u32, Callback>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

fn worker_url() -> Option<String> {
    let dir = leptos::prelude::document()
        .query_selector("meta[name='hearth-app-dir']")
        .ok()
        .flatten()?
        .get_attribute("content")
        .filter(|dir| dir.starts_with("/app-"))?;
    Some(format!("{dir}/hearth-render_loader.js"))
}

/// Answers every pending request with `None` and refuses later ones.
fn fail_all() {
    let pending: Vec<Callback> = STATE.with(|state| {
        let mut state = state.borrow_mut();
        state.failed = true;
        if let Some(worker) = state.worker.take() {
            worker.terminate();
        }
        state
            .pending
            .drain()
            .map(|(_, callback)| callback)
            .collect()
    });
    for callback in pending {
        callback(None);
    }
}

fn on_answer(event: MessageEvent) {
    let data = event.data();
    if Reflect::get(&data, &JsValue::from_str("ready"))
        .ok()
        .and_then(|v| v.as_bool())
        == Some(true)
    {
        STATE.with(|state| {
            let mut state = state.borrow_mut();
            state.ready = true;
            let waiting = std::mem::take(&mut state.waiting);
            if let Some(worker) = &state.worker {
                for request in waiting {
                    let _ = worker.post_message(&request);
                }
            }
        });
        return;
    }
    let id = Reflect::get(&data, &JsValue::from_str("id"))
        .ok()
        .and_then(|v| v.as_f64())
        .map(|v| v as u32);
    let html = Reflect::get(&data, &JsValue::from_str("html"))
        .ok()
        .and_then(|v| v.as_string());
    let Some(id) = id else { return };
    let callback = STATE.with(|state| state.borrow_mut().pending.remove(&id));
    if let Some(callback) = callback {
        callback(html);
    }
}

fn start_worker() -> Option<Worker> {
    let worker = Worker::new(&worker_url()?).ok()?;
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(on_answer);
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn Fn(web_sys::Event)>::new(|event: web_sys::Event| {
        // Said once, in the console: replies then show as plain text, which is safe.
        let detail = Reflect::get(&event, &JsValue::from_str("message")).unwrap_or_default();
        web_sys::console::warn_2(&"Markdown renderer stopped:".into(), &detail);
        fail_all();
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Some(worker)
}

/// Renders `text` in the worker and calls `done` with the sanitised HTML, or with `None`
/// when the renderer is unavailable. `done` is always called, at most once.
pub fn render(text: &str, labels: &Labels, done: impl FnOnce(Option<String>) + 'static) {
    let sent = STATE.with(|state| {
        let mut state = state.borrow_mut();
        if state.failed {
            return None;
        }
        if state.worker.is_none() {
            match start_worker() {
                Some(worker) => state.worker = Some(worker),
                None => {
                    state.failed = true;
                    return None;
                }
            }
        }
        state.next_id = state.next_id.wrapping_add(1);
        let id = state.next_id;
        let request = Object::new();
        let _ = Reflect::set(&request, &"id".into(), &JsValue::from(id));
        let _ = Reflect::set(&request, &"text".into(), &JsValue::from_str(text));
        let _ = Reflect::set(&request, &"copy".into(), &labels.copy_code.as_str().into());
        let _ = Reflect::set(
            &request,
            &"plain".into(),
            &labels.plain_text.as_str().into(),
        );
        if state.ready {
            state.worker.as_ref()?.post_message(&request).ok()?;
        } else {
            state.waiting.push(request);
        }
        Some(id)
    });
    match sent {
        Some(id) => STATE.with(|state| {
            state.borrow_mut().pending.insert(id, Box::new(done));
        }),
        None => done(None),
    }
}
