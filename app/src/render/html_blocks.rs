//! Inline HTML blocks on the page. The Markdown renderer leaves each HTML block of a
//! reply as escaped source text inside a `data-html-block` element; [`upgrade`] (called
//! when such HTML is about to be shown) hands those sources to the HTML worker (crate
//! `hearth-html-worker`, which alone carries the HTML parser) and puts what it keeps in
//! their place. The worker starts only for the first block, so a reply without HTML
//! costs nothing more. This page side is small and lives with the message view (only
//! `MarkdownBody` calls it), not in the first load.
//!
//! The kept markup arrives with its declarations in `data-hb-style`: the CSP forbids
//! inline styles, so they are parsed again (`html_css::declarations`, token colours
//! only) and set through the CSSOM, parents before children, each text colour paired
//! with the fill behind it (`html_css::pair_text`) so it keeps its contrast.
//!
//! Answers are cached by source (a re-rendered block, a remounted message, a finished
//! block that was the streaming tail a moment ago show at once), and while a block
//! streams it shows the answer for the longest source it starts with until its own
//! arrives. A block the worker cannot take (too long, or the worker failed) stays as
//! text.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use hearth_core::markdown::HTML_BLOCK_MARK;
use hearth_core::markdown::html_css::{self, Backdrop, STYLE_ATTRIBUTE};
use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Element, HtmlElement, MessageEvent, Worker};

use crate::browser::field;

/// The most answers kept, and the most bytes they may hold together.
const CACHE_ENTRIES: usize = 48;
const CACHE_BYTES: usize = 4 * 1024 * 1024;

/// Set on a block once its sanitised markup is in place.
const READY: &str = "data-html-ready";
/// Set on a block whose source the worker has been asked for.
const ASKED: &str = "data-html-asked";
/// Set on a block the worker could not take: it stays as text.
const FAILED: &str = "data-html-failed";
/// Set on an element whose own fill decides its text colour and its children's.
const BACKDROP: &str = "data-hb-backdrop";

/// Upgrades the page's HTML blocks on the next frame (by then the HTML that holds them
/// is in the page), before it is painted.
pub fn upgrade() {
    leptos::prelude::request_animation_frame(upgrade_blocks);
}

fn upgrade_blocks() {
    let Ok(blocks) = leptos::prelude::document()
        .query_selector_all(&format!("[{HTML_BLOCK_MARK}]:not([{ASKED}])"))
    else {
        return;
    };
    for index in 0..blocks.length() {
        let Some(block) = blocks
            .item(index)
            .and_then(|node| node.dyn_into::<Element>().ok())
        else {
            continue;
        };
        let source = block.text_content().unwrap_or_default();
        let known = STATE.with(|state| state.borrow().cached(&source));
        match known {
            Some((html, true)) => show(&block, &html),
            Some((html, false)) => {
                show(&block, &html);
                ask(source, block);
            }
            None => ask(source, block),
        }
    }
}

/// Puts `html` (the worker's answer, sanitised) in `block` and applies its styles.
fn show(block: &Element, html: &str) {
    block.set_inner_html(html);
    let _ = block.remove_attribute(HTML_BLOCK_MARK);
    let _ = block.set_attribute(READY, "");
    let Ok(styled) = block.query_selector_all(&format!("[{STYLE_ATTRIBUTE}]")) else {
        return;
    };
    // Document order: an element's parents are styled (and marked) before it.
    for index in 0..styled.length() {
        let Some(element) = styled
            .item(index)
            .and_then(|node| node.dyn_into::<HtmlElement>().ok())
        else {
            continue;
        };
        apply_style(&element);
    }
}

fn apply_style(element: &HtmlElement) {
    let declarations =
        html_css::declarations(&element.get_attribute(STYLE_ATTRIBUTE).unwrap_or_default());
    let own_fill = html_css::backdrop(&declarations);
    let behind = own_fill.unwrap_or_else(|| {
        element
            .parent_element()
            .and_then(|parent| parent.closest(&format!("[{BACKDROP}]")).ok().flatten())
            .and_then(|filled| filled.get_attribute(BACKDROP))
            .map_or(Backdrop::Page, |name| Backdrop::from_name(&name))
    });
    let style = element.style();
    let mut own_text = None;
    for (property, value) in &declarations {
        if property == "color" {
            own_text = Some(value.as_str());
        }
        let _ = style.set_property(property, value);
    }
    if let Some(colour) = html_css::pair_text(own_text, behind, own_fill.is_some()) {
        let _ = style.set_property("color", colour);
    }
    if let Some(fill) = own_fill {
        let _ = element.set_attribute(BACKDROP, fill.name());
    }
}

/// Leaves `block` as text for good.
fn fail(block: &Element) {
    let _ = block.remove_attribute(HTML_BLOCK_MARK);
    let _ = block.set_attribute(FAILED, "");
}

/// The worker, its requests and the answers kept.
#[derive(Default)]
struct State {
    worker: Option<Worker>,
    /// The worker has installed its handler.
    ready: bool,
    next_id: u64,
    /// What each request was for.
    asked: HashMap<u64, String>,
    /// The blocks waiting for each source (one request per source).
    waiting: HashMap<String, Vec<Element>>,
    /// Requests to post once the worker is ready.
    queued: Vec<Object>,
    cache: VecDeque<(String, String)>,
}

impl State {
    /// The answer for `source` (`true`), or for the longest source it extends (`false`).
    fn cached(&self, source: &str) -> Option<(String, bool)> {
        let mut best: Option<&(String, String)> = None;
        for entry in &self.cache {
            if entry.0 == source {
                return Some((entry.1.clone(), true));
            }
            if source.starts_with(entry.0.as_str())
                && best.is_none_or(|best| best.0.len() < entry.0.len())
            {
                best = Some(entry);
            }
        }
        best.map(|(_, html)| (html.clone(), false))
    }

    fn remember(&mut self, source: String, html: String) {
        self.cache.retain(|(known, _)| *known != source);
        self.cache.push_back((source, html));
        let mut bytes: usize = self.cache.iter().map(|(s, h)| s.len() + h.len()).sum();
        while self.cache.len() > CACHE_ENTRIES || (bytes > CACHE_BYTES && self.cache.len() > 1) {
            if let Some((s, h)) = self.cache.pop_front() {
                bytes -= s.len() + h.len();
            }
        }
    }

    /// Gives up on every waiting block (it stays as text) and drops the worker.
    fn fail_all(&mut self) {
        if let Some(worker) = self.worker.take() {
            worker.terminate();
        }
        self.ready = false;
        self.asked.clear();
        self.queued.clear();
        for block in self.waiting.drain().flat_map(|(_, blocks)| blocks) {
            fail(&block);
        }
    }
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// Asks the worker for `source` on behalf of `block` (once per source).
fn ask(source: String, block: Element) {
    let _ = block.set_attribute(ASKED, "");
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        if let Some(blocks) = state.waiting.get_mut(&source) {
            blocks.push(block);
            return;
        }
        if state.worker.is_none() {
            match start_worker() {
                Some(worker) => state.worker = Some(worker),
                None => {
                    fail(&block);
                    return;
                }
            }
        }
        state.next_id += 1;
        let id = state.next_id;
        let request = Object::new();
        let _ = Reflect::set(&request, &"id".into(), &JsValue::from_f64(id as f64));
        let _ = Reflect::set(&request, &"source".into(), &JsValue::from_str(&source));
        state.asked.insert(id, source.clone());
        state.waiting.insert(source, vec![block]);
        match (&state.worker, state.ready) {
            (Some(worker), true) => {
                let _ = worker.post_message(&request);
            }
            _ => state.queued.push(request),
        }
    });
}

fn on_message(event: MessageEvent) {
    let data = event.data();
    if field(&data, "ready").as_bool() == Some(true) {
        STATE.with(|state| {
            let mut state = state.borrow_mut();
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
    if field(&data, "panic").as_bool() == Some(true) {
        web_sys::console::warn_1(&"The HTML block sanitiser failed; blocks stay as text".into());
        STATE.with(|state| state.borrow_mut().fail_all());
        return;
    }
    let Some(id) = field(&data, "id").as_f64().map(|id| id as u64) else {
        return;
    };
    let html = field(&data, "html").as_string();
    let blocks = STATE.with(|state| {
        let mut state = state.borrow_mut();
        let source = state.asked.remove(&id)?;
        let blocks = state.waiting.remove(&source).unwrap_or_default();
        if let Some(html) = &html {
            state.remember(source, html.clone());
        }
        Some(blocks)
    });
    for block in blocks.unwrap_or_default() {
        if !block.is_connected() {
            continue;
        }
        match &html {
            Some(html) => show(&block, html),
            None => fail(&block),
        }
    }
}

fn start_worker() -> Option<Worker> {
    let worker = Worker::new(&crate::browser::app_asset("hearth-html_loader.js")?).ok()?;
    let on_answer = Closure::<dyn Fn(MessageEvent)>::new(on_message);
    worker.set_onmessage(Some(on_answer.as_ref().unchecked_ref()));
    on_answer.forget();
    let on_error = Closure::<dyn Fn(web_sys::Event)>::new(|_: web_sys::Event| {
        STATE.with(|state| state.borrow_mut().fail_all());
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Some(worker)
}
