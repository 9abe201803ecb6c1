//! # hearth-render-worker
//!
//! The Markdown render worker, a wasm module of its own (nothing of the app is linked
//! in) that the app starts in a Web Worker on first use (`hearth_app::render`). Once its
//! handler is installed it posts `{ready: true}`; then each request is
//! `{id, text, copy, plain, large, preview}` and each answer is `{id, html}`, where `html` comes
//! from `hearth_core::markdown::render` and is therefore safe to assign with `inner_html`.
//! Nothing else runs in the worker.
//!
//! A panic cannot be caught here (wasm32 panics abort, and the module is unusable after
//! the trap), so the panic hook reports `{panic: true, id}` for the request being
//! rendered and the page replaces the worker (`hearth_app::render::client`).

use std::cell::Cell;

use hearth_core::markdown::{Labels, render};
use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

thread_local! {
    /// The id of the request being rendered, for the panic report.
    static CURRENT: Cell<Option<f64>> = const { Cell::new(None) };
}

/// Logs the panic and tells the page which request caused it.
fn report_panic(info: &std::panic::PanicHookInfo) {
    console_error_panic_hook::hook(info);
    let report = Object::new();
    let _ = Reflect::set(&report, &JsValue::from_str("panic"), &JsValue::TRUE);
    if let Some(id) = CURRENT.with(Cell::get) {
        let _ = Reflect::set(&report, &JsValue::from_str("id"), &JsValue::from_f64(id));
    }
    if let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() {
        let _ = scope.post_message(&report);
    }
}

fn field(data: &JsValue, name: &str) -> Option<JsValue> {
    Reflect::get(data, &JsValue::from_str(name)).ok()
}

fn string(data: &JsValue, name: &str) -> String {
    field(data, name)
        .and_then(|value| value.as_string())
        .unwrap_or_default()
}

/// Installs the message handler.
fn main() {
    std::panic::set_hook(Box::new(report_panic));
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    let reply_to = scope.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let data = event.data();
        let Some(id) = field(&data, "id") else {
            return;
        };
        let labels = Labels {
            copy_code: string(&data, "copy"),
            plain_text: string(&data, "plain"),
            too_large: string(&data, "large"),
            preview: string(&data, "preview"),
            ..Labels::default()
        };
        CURRENT.with(|current| current.set(id.as_f64()));
        let html = render(&string(&data, "text"), &labels);
        CURRENT.with(|current| current.set(None));
        let answer = Object::new();
        let _ = Reflect::set(&answer, &JsValue::from_str("id"), &id);
        let _ = Reflect::set(
            &answer,
            &JsValue::from_str("html"),
            &JsValue::from_str(&html),
        );
        let _ = reply_to.post_message(&answer);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // Messages posted before this handler existed were dropped; the page waits for this.
    let ready = Object::new();
    let _ = Reflect::set(&ready, &JsValue::from_str("ready"), &JsValue::TRUE);
    let _ = scope.post_message(&ready);
}
