//! # hearth-html-worker
//!
//! The inline HTML worker, a wasm module of its own (nothing of the app is linked in)
//! that the app starts in a Web Worker the first time a reply holds an HTML block
//! (`hearth_app::render::html_blocks`). It carries the HTML parser (`ammonia`), which
//! neither the app nor the Markdown worker has to load. Once its handler is installed it
//! posts `{ready: true}`; then each request is `{id, source}` and each answer
//! `{id, html}`, where `html` comes from `hearth_core::markdown::html_block::sanitise`
//! (`null` for a block over its size limit, which the page leaves as text). A panic
//! reports `{panic: true, id}`; the page then gives up on that block and replaces the
//! worker.

use std::cell::Cell;

use hearth_core::markdown::html_block::sanitise;
use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

thread_local! {
    /// The id of the request being sanitised, for the panic report.
    static CURRENT: Cell<Option<f64>> = const { Cell::new(None) };
}

fn scope() -> Option<DedicatedWorkerGlobalScope> {
    js_sys::global().dyn_into().ok()
}

fn post(fields: &[(&str, JsValue)]) {
    let message = Object::new();
    for (name, value) in fields {
        let _ = Reflect::set(&message, &JsValue::from_str(name), value);
    }
    if let Some(scope) = scope() {
        let _ = scope.post_message(&message);
    }
}

/// Logs the panic and tells the page which request caused it.
fn report_panic(info: &std::panic::PanicHookInfo) {
    console_error_panic_hook::hook(info);
    let id = CURRENT
        .with(Cell::get)
        .map_or(JsValue::NULL, JsValue::from_f64);
    post(&[("panic", JsValue::TRUE), ("id", id)]);
}

/// Installs the message handler.
fn main() {
    std::panic::set_hook(Box::new(report_panic));
    let Some(scope) = scope() else {
        return;
    };
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let data = event.data();
        let Some(id) = Reflect::get(&data, &JsValue::from_str("id"))
            .ok()
            .and_then(|id| id.as_f64())
        else {
            return;
        };
        let source = Reflect::get(&data, &JsValue::from_str("source"))
            .ok()
            .and_then(|source| source.as_string())
            .unwrap_or_default();
        CURRENT.with(|current| current.set(Some(id)));
        let html = sanitise(&source).map_or(JsValue::NULL, |html| JsValue::from_str(&html));
        CURRENT.with(|current| current.set(None));
        post(&[("id", JsValue::from_f64(id)), ("html", html)]);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // Messages posted before this handler existed were dropped; the page waits for this.
    post(&[("ready", JsValue::TRUE)]);
}
