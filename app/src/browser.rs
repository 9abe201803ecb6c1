//! Thin, failure-tolerant wrappers over the browser APIs the shell uses. Storage can be
//! unavailable (private modes, blocked cookies): reads then return `None` and writes are
//! dropped, and the app keeps working with its defaults.

use std::sync::atomic::{AtomicU32, Ordering};

use leptos::prelude::{document, window};
use wasm_bindgen::JsCast;

fn local_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// Runs `task` under the current reactive owner (`leptos::task::spawn_local_scoped`),
/// boxed: that function is generic over the future, and each future type copied its
/// task code into the first load (`docs/NOTES.md`, code splitting).
pub fn spawn_scoped(task: impl std::future::Future<Output = ()> + 'static) {
    let task: std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> = Box::pin(task);
    leptos::task::spawn_local_scoped(task);
}

/// A new random id (16 hex digits, from `crypto.getRandomValues`): providers' ids, and
/// anything else the app names at random.
pub fn new_id() -> String {
    let mut bytes = [0u8; 8];
    if let Ok(crypto) = window().crypto() {
        let _ = crypto.get_random_values_with_u8_array(&mut bytes);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads a `localStorage` entry.
pub fn local_storage_get(key: &str) -> Option<String> {
    local_storage()?.get_item(key).ok().flatten()
}

/// Writes a `localStorage` entry; a full or blocked storage is ignored.
pub fn local_storage_set(key: &str, value: &str) {
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(key, value);
    }
}

/// Removes a `localStorage` entry.
pub fn local_storage_remove(key: &str) {
    if let Some(storage) = local_storage() {
        let _ = storage.remove_item(key);
    }
}

/// The browser's preferred languages, most preferred first.
pub fn navigator_languages() -> Vec<String> {
    window()
        .navigator()
        .languages()
        .iter()
        .filter_map(|value| value.as_string())
        .collect()
}

/// The property `name` of a JavaScript value (a message from a worker or a frame),
/// `undefined` when it has none.
pub fn field(value: &wasm_bindgen::JsValue, name: &str) -> wasm_bindgen::JsValue {
    js_sys::Reflect::get(value, &wasm_bindgen::JsValue::from_str(name)).unwrap_or_default()
}

/// Whether the page in `frame` has an origin of its own, opaque to the app (its document
/// is out of the app's reach): what a sandbox page's own policy makes it, checked before
/// anything is posted to it. Read as a property: no binding for it on the first load.
pub fn frame_is_isolated(frame: &web_sys::HtmlIFrameElement) -> bool {
    field(frame, "contentDocument").is_null()
}

/// Whether `event` was posted by the page now in `frame` (a sandbox page's origin is
/// opaque: its window is no `instanceof Window` here, so it is compared as a value).
pub fn sent_by(frame: &web_sys::HtmlIFrameElement, event: &web_sys::MessageEvent) -> bool {
    match (frame.content_window(), event.source()) {
        (Some(window), Some(source)) => {
            wasm_bindgen::JsValue::from(source) == wasm_bindgen::JsValue::from(window)
        }
        _ => false,
    }
}

/// A frame of sandbox page `src` (a path of the edge), out of sight (CSS `class`), in
/// the body; `title` names it for assistive technology, which it is hidden from. No
/// `sandbox` attribute: the browser lets no service worker answer a sandboxed frame's
/// navigation, so with one the page could not come from the cache offline; the page's
/// own policy makes its origin opaque, and [`frame_is_isolated`] is checked before
/// anything is posted to it.
pub fn hidden_sandbox_frame(
    src: &str,
    class: &str,
    title: &str,
) -> Option<web_sys::HtmlIFrameElement> {
    use wasm_bindgen::JsCast;
    let document = leptos::prelude::document();
    let frame: web_sys::HtmlIFrameElement =
        document.create_element("iframe").ok()?.unchecked_into();
    for (name, value) in [
        ("class", class),
        ("referrerpolicy", "no-referrer"),
        ("aria-hidden", "true"),
        ("tabindex", "-1"),
        ("title", title),
        ("src", src),
    ] {
        frame.set_attribute(name, value).ok()?;
    }
    document.body()?.append_child(&frame).ok()?;
    Some(frame)
}

/// Whether the system asks for a dark colour scheme.
pub fn system_prefers_dark() -> bool {
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .is_some_and(|query| query.matches())
}

/// Sets (or, with `None`, removes) an attribute on `<html>`.
pub fn set_root_attribute(name: &str, value: Option<&str>) {
    if let Some(root) = document().document_element() {
        let _ = match value {
            Some(value) => root.set_attribute(name, value),
            None => root.remove_attribute(name),
        };
    }
}

/// Links the web app manifest in the language `tag` (`public/manifest.<tag>.webmanifest`;
/// English is `manifest.webmanifest`), so an install takes its name and shortcuts in the
/// user's language; `boot.js` links it before the app starts.
pub fn link_manifest(tag: &str) {
    let href = if tag == "en" {
        "/manifest.webmanifest".to_string()
    } else {
        format!("/manifest.{tag}.webmanifest")
    };
    if let Ok(Some(link)) = document().query_selector("link[rel=\"manifest\"]")
        && link.get_attribute("href").as_deref() != Some(href.as_str())
    {
        let _ = link.set_attribute("href", &href);
    }
}

/// The element that has focus, if it is an HTML element.
pub fn active_element() -> Option<web_sys::HtmlElement> {
    document()
        .active_element()
        .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok())
}

/// Moves focus to the element with `id`, if there is one. An element that has the focus
/// already is blurred and focused again: `focus()` alone does nothing to it, and when the
/// page's selection had moved elsewhere meanwhile (into a dialog since closed), typed
/// text went nowhere; focusing it anew puts the selection back inside it.
pub fn focus_by_id(id: &str) {
    let Some(element) = document()
        .get_element_by_id(id)
        .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return;
    };
    if document().active_element().as_ref() == Some(element.as_ref()) {
        let _ = element.blur();
    }
    let _ = element.focus();
}

/// A document-unique id for ARIA relationships (`prefix-N`).
pub fn unique_id(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The focusable elements inside `container`, in tab order of the document.
pub fn focusable_within(container: &web_sys::Element) -> Vec<web_sys::HtmlElement> {
    const SELECTOR: &str = "a[href], button:not([disabled]), input:not([disabled]), \
        select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1'])";
    let Ok(nodes) = container.query_selector_all(SELECTOR) else {
        return Vec::new();
    };
    (0..nodes.length())
        .filter_map(|i| nodes.item(i))
        .filter_map(|node| node.dyn_into::<web_sys::HtmlElement>().ok())
        .filter(|element| element.tab_index() >= 0 && element.get_client_rects().length() > 0)
        .collect()
}

/// The location's hash without `#`.
pub fn location_hash() -> String {
    window()
        .location()
        .hash()
        .unwrap_or_default()
        .trim_start_matches('#')
        .to_string()
}

/// Replaces the location's hash (or removes it) without a history entry or a scroll.
pub fn replace_hash(hash: Option<&str>) {
    let Ok(history) = window().history() else {
        return;
    };
    let location = window().location();
    let base = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    let url = match hash {
        Some(hash) => format!("{base}#{hash}"),
        None => base,
    };
    let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
}

/// The URL of `file` in the build's content-hashed app directory (named by
/// `<meta name="hearth-app-dir">`, which `scripts/build-app-wasm.sh` writes): where the
/// workers' loaders are.
pub fn app_asset(file: &str) -> Option<String> {
    let dir = document()
        .query_selector("meta[name='hearth-app-dir']")
        .ok()
        .flatten()?
        .get_attribute("content")
        .filter(|dir| dir.starts_with("/app-"))?;
    Some(format!("{dir}/{file}"))
}

/// Adds a `performance.mark` (read by the benchmarks in `bench/src/bin/chat_bench.rs`).
pub fn mark(name: &str) {
    if let Some(performance) = window().performance() {
        let _ = performance.mark(name);
    }
}

/// Adds a `performance.measure` named `name` from the mark `start` to now, and drops
/// the mark (read by the benchmarks, like [`mark`]).
pub fn measure(name: &str, start: &str) {
    if let Some(performance) = window().performance() {
        let _ = performance.measure_with_start_mark(name, start);
        performance.clear_marks_with_mark_name(start);
    }
}

/// Adds a `performance.measure` named `name` lasting `duration_ms` and ending now: a
/// time measured elsewhere (a worker's), for the benchmarks.
pub fn record_measure(name: &str, duration_ms: f64) {
    let Some(performance) = window().performance() else {
        return;
    };
    let end = performance.now();
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"start".into(), &(end - duration_ms).into());
    let _ = js_sys::Reflect::set(&options, &"end".into(), &end.into());
    let measure = js_sys::Reflect::get(&performance, &"measure".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(measure) = measure {
        let _ = measure.call2(&performance, &name.into(), &options);
    }
}

/// Adds a `performance.mark` named `name` at `at` (the page's clock, ms).
pub fn mark_at(name: &str, at: f64) {
    let Some(performance) = window().performance() else {
        return;
    };
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"startTime".into(), &at.into());
    let mark = js_sys::Reflect::get(&performance, &"mark".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(mark) = mark {
        let _ = mark.call2(&performance, &name.into(), &options);
    }
}

/// The page's clock in milliseconds since it started (`performance.now()`; 0 without
/// one).
pub fn clock() -> f64 {
    window()
        .performance()
        .map_or(0.0, |performance| performance.now())
}

/// Drops the measures named `name` (so a long session keeps a bounded number).
pub fn clear_measures(name: &str) {
    if let Some(performance) = window().performance() {
        performance.clear_measures_with_measure_name(name);
    }
}

/// Selects the text of the input with `id`, if there is one.
pub fn select_text_of(id: &str) {
    if let Some(input) = document()
        .get_element_by_id(id)
        .and_then(|element| element.dyn_into::<web_sys::HtmlInputElement>().ok())
    {
        input.select();
    }
}

/// How much this site stores and may store, in bytes: `(usage, quota)`.
pub async fn storage_estimate() -> Option<(f64, f64)> {
    let promise = window().navigator().storage().estimate().ok()?;
    let estimate: web_sys::StorageEstimate = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .ok()?
        .unchecked_into();
    Some((estimate.get_usage()?, estimate.get_quota()?))
}

/// Whether the browser promised to keep this site's data under storage pressure.
pub async fn storage_persisted() -> Option<bool> {
    let promise = window().navigator().storage().persisted().ok()?;
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .ok()?
        .as_bool()
}

/// Asks the browser to keep this site's data; `Some(true)` when it agreed.
pub async fn storage_persist() -> Option<bool> {
    let promise = window().navigator().storage().persist().ok()?;
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .ok()?
        .as_bool()
}

/// Why a download could not be offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownloadError {
    /// The browser would not hold the file's bytes.
    NoBlob,
    /// The browser would not give the file a URL.
    NoUrl,
    /// There is no document to start the download from.
    NoDocument,
}

impl std::fmt::Display for DownloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::NoBlob => "the browser could not hold the file",
            Self::NoUrl => "the browser could not offer the file",
            Self::NoDocument => "no document",
        })
    }
}

/// A file built in order from byte runs, held by the browser rather than in memory:
/// every [`BlobBuilder::FOLD_BYTES`] the runs so far become one blob, so a large export
/// never sits whole in the page's heap.
pub struct BlobBuilder {
    parts: js_sys::Array,
    pending: usize,
}

impl BlobBuilder {
    /// How many bytes of runs are gathered before they are folded into one blob.
    const FOLD_BYTES: usize = 16 * 1024 * 1024;

    /// An empty file.
    pub fn new() -> Self {
        Self {
            parts: js_sys::Array::new(),
            pending: 0,
        }
    }

    /// Appends `bytes`.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), DownloadError> {
        self.parts.push(&js_sys::Uint8Array::from(bytes));
        self.pending += bytes.len();
        if self.pending >= Self::FOLD_BYTES {
            let folded = web_sys::Blob::new_with_u8_array_sequence(&self.parts)
                .map_err(|_| DownloadError::NoBlob)?;
            self.parts = js_sys::Array::of1(&folded);
            self.pending = 0;
        }
        Ok(())
    }

    /// The whole file, typed `mime`.
    pub fn finish(self, mime: &str) -> Result<web_sys::Blob, DownloadError> {
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(mime);
        web_sys::Blob::new_with_u8_array_sequence_and_options(&self.parts, &options)
            .map_err(|_| DownloadError::NoBlob)
    }
}

impl Default for BlobBuilder {
    fn default() -> Self {
        Self::new()
    }
}

/// Offers `blob` as a file download named `filename`.
pub fn download(filename: &str, blob: &web_sys::Blob) -> Result<(), DownloadError> {
    let url = web_sys::Url::create_object_url_with_blob(blob).map_err(|_| DownloadError::NoUrl)?;
    let anchor: web_sys::HtmlAnchorElement = document()
        .create_element("a")
        .map_err(|_| DownloadError::NoDocument)?
        .unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(filename);
    anchor.click();
    // The download reads the object URL after the click returns; free it a while later.
    leptos::prelude::set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(60),
    );
    Ok(())
}

/// Offers `bytes` as a file download named `filename`, typed `mime`.
pub fn download_bytes(filename: &str, mime: &str, bytes: &[u8]) -> Result<(), DownloadError> {
    let mut blob = BlobBuilder::new();
    blob.push(bytes)?;
    download(filename, &blob.finish(mime)?)
}

/// The file chosen in `input`, if any.
pub fn chosen_file(input: &web_sys::HtmlInputElement) -> Option<web_sys::File> {
    input.files().and_then(|files| files.get(0))
}

/// The bytes `range` of `blob` (a chosen file), read without reading the rest; `None`
/// when the browser cannot read it (the file changed or went away since it was chosen).
pub async fn read_range(blob: &web_sys::Blob, range: std::ops::Range<u64>) -> Option<Vec<u8>> {
    let part = blob
        .slice_with_f64_and_f64(range.start as f64, range.end as f64)
        .ok()?;
    let buffer = wasm_bindgen_futures::JsFuture::from(part.array_buffer())
        .await
        .ok()?;
    Some(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Whether the browser says the device is online (`navigator.onLine`: false means surely
/// offline; true means only that some network is up).
pub fn is_online() -> bool {
    window().navigator().on_line()
}

/// Now, in ms since the epoch.
pub fn now() -> f64 {
    js_sys::Date::now()
}

/// Waits `ms` milliseconds.
pub async fn sleep_ms(ms: i32) {
    gloo_timers::future::TimeoutFuture::new(ms.max(0) as u32).await;
}
