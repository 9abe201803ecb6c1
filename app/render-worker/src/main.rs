//! # hearth-render-worker
//!
//! The Markdown render worker, a wasm module of its own (nothing of the app is linked
//! in) that the app starts in a Web Worker on first use (`hearth_app::render`). Once its
//! handler is installed it posts `{ready: true}`; then each request is
//! `{id, text, copy, plain}` and each answer is `{id, html}`, where `html` comes from
//! `hearth_core::markdown::render` and is therefore safe to assign with `inner_html`.
//! Nothing else runs in the worker.

use hearth_core::markdown::{Labels, render};
use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

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
    console_error_panic_hook::set_once();
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
        };
        let html = render(&string(&data, "text"), &labels);
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
