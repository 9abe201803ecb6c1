//! A reply saved as a PNG ("Save as PNG"): the reply as it shows (its rendered text,
//! images and diagrams; no tool calls, reasoning or buttons), drawn in the page's theme
//! by the picture sandbox (the edge's `/sandbox/picture`: an opaque origin with no
//! network), at twice its size or less for a long one, and offered as a file. The app
//! posts the reply's rendered HTML, its own stylesheets and the blobs of the reply's
//! stored images; the sandbox answers with the PNG. A frame is made for each picture and
//! removed once it has answered or [`TIMEOUT`] has passed.
//!
//! Its sentences are fetched with the later English before anything is said.

use std::time::Duration;

use gloo_events::EventListener;
use hearth_core::chat::markdown_export;
use js_sys::{Array, Object, Promise, Reflect};
use leptos::prelude::{document, set_timeout_with_handle, window};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, Element, HtmlIFrameElement, MessageEvent};

use crate::browser::{self, field, frame_is_isolated};
use crate::files::{self, IMAGES};
use crate::i18n::{I18n, Key};
use crate::ui::toast::{ToastKind, Toasts};

/// Where the edge serves the sandbox page.
const SANDBOX_PATH: &str = "/sandbox/picture";
/// How long the page may take to load, lay the reply out and draw it.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The widths a picture is laid out at, in CSS pixels (the page's own bounds).
const WIDTHS: (f64, f64) = (280.0, 1200.0);
/// The most stylesheet text posted (the page's own bound).
const MAX_CSS_BYTES: usize = 1024 * 1024;
/// The largest PNG taken from the sandbox.
const MAX_PNG_BYTES: f64 = 96.0 * 1024.0 * 1024.0;
/// The one request's id (one frame per picture).
const REQUEST_ID: &str = "reply";

/// Why no picture was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PictureError {
    /// The reply is longer than a picture can be.
    TooLarge,
    /// The sandbox did not start, was not isolated, did not answer, or failed.
    Failed,
}

/// Offers message `id`, as it shows, as `<title>.png`; says what went wrong in `toasts`.
pub fn save_reply(id: String, title: String, toasts: Toasts, i18n: I18n) {
    leptos::task::spawn_local(async move {
        crate::i18n::load_later_english().await;
        toasts.show(ToastKind::Info, i18n.t(Key::PictureMaking));
        let drawn = match request(&id).await {
            Some(request) => draw(request).await,
            None => Err(PictureError::Failed),
        };
        let name = markdown_export::file_name(&title, &i18n.t(Key::ConversationUntitled), "png");
        let saved =
            drawn.and_then(|png| browser::download(&name, &png).map_err(|_| PictureError::Failed));
        if let Err(error) = saved {
            let key = match error {
                PictureError::TooLarge => Key::PictureTooLarge,
                PictureError::Failed => Key::PictureFailed,
            };
            toasts.show(ToastKind::Error, i18n.t(key));
        }
    });
}

/// What the sandbox is asked: the reply's parts as HTML, the widest part's width, the
/// theme, the app's stylesheets and the reply's stored images; `None` when the reply is
/// not on the page.
async fn request(id: &str) -> Option<Object> {
    let article = document()
        .query_selector(&format!("[data-message-id=\"{id}\"]"))
        .ok()??;
    let parts = article
        .query_selector_all(".message__markdown, .reply-sources")
        .ok()?;
    let mut html = String::new();
    let mut width: f64 = 0.0;
    let mut names: Vec<String> = Vec::new();
    for index in 0..parts.length() {
        let Some(part) = parts.item(index).and_then(|n| n.dyn_into::<Element>().ok()) else {
            continue;
        };
        html.push_str(&part.outer_html());
        width = width.max(part.get_bounding_client_rect().width());
        let Ok(linked) = part.query_selector_all("[data-image]") else {
            continue;
        };
        for index in 0..linked.length() {
            let name = linked
                .item(index)
                .and_then(|n| n.dyn_into::<Element>().ok())
                .and_then(|link| link.get_attribute("data-image"));
            if let Some(name) = name.filter(|name| !names.contains(name)) {
                names.push(name);
            }
        }
    }
    if html.is_empty() {
        return None;
    }
    let images = Array::new();
    for name in names {
        // An image that cannot be read shows as its text alternative.
        if let Ok(blob) = files::blob(IMAGES, &name).await {
            let image = Object::new();
            set(&image, "name", &JsValue::from_str(&name));
            set(&image, "blob", &blob);
            images.push(&image);
        }
    }
    let request = Object::new();
    set(&request, "hearth", &"picture-png".into());
    set(&request, "id", &REQUEST_ID.into());
    set(&request, "html", &JsValue::from_str(&html));
    set(&request, "css", &JsValue::from_str(&stylesheets().await));
    let width = width.round().clamp(WIDTHS.0, WIDTHS.1);
    set(&request, "width", &JsValue::from_f64(width));
    let theme = if crate::diagram::page_is_dark() {
        "dark"
    } else {
        "light"
    };
    set(&request, "theme", &theme.into());
    set(&request, "images", &images);
    Some(request)
}

/// The text of the app's stylesheets, as linked now (the lazy ones included), within
/// [`MAX_CSS_BYTES`]; a sheet that cannot be read is left out.
async fn stylesheets() -> String {
    let mut css = String::new();
    let Ok(links) = document().query_selector_all("link[rel=stylesheet]") else {
        return css;
    };
    for index in 0..links.length() {
        let href = links
            .item(index)
            .and_then(|n| n.dyn_into::<Element>().ok())
            .and_then(|link| link.get_attribute("href"));
        let Some(href) = href else { continue };
        let Some(text) = sheet_text(&href).await else {
            continue;
        };
        if css.len() + text.len() > MAX_CSS_BYTES {
            break;
        }
        css.push_str(&text);
        css.push('\n');
    }
    css
}

async fn sheet_text(href: &str) -> Option<String> {
    let response: web_sys::Response = JsFuture::from(window().fetch_with_str(href))
        .await
        .ok()?
        .dyn_into()
        .ok()?;
    if !response.ok() {
        return None;
    }
    JsFuture::from(response.text().ok()?)
        .await
        .ok()?
        .as_string()
}

/// Has the sandbox draw `request`, in a frame of its own that goes afterwards.
async fn draw(request: Object) -> Result<Blob, PictureError> {
    let frame = browser::hidden_sandbox_frame(SANDBOX_PATH, "picture-sandbox", "picture maker")
        .ok_or(PictureError::Failed)?;
    let answer = exchange(&frame, request).await;
    frame.remove();
    read_answer(&answer)
}

/// Posts `request` once the page in `frame` is ready and isolated; its answer, or a
/// string saying why there is none.
async fn exchange(frame: &HtmlIFrameElement, request: Object) -> JsValue {
    let mut settle = None;
    let answered = Promise::new(&mut |resolve, _| settle = Some(resolve));
    let Some(settle) = settle else {
        return JsValue::from_str("no_promise");
    };
    let on_message = {
        let frame = frame.clone();
        let settle = settle.clone();
        EventListener::new(&window(), "message", move |event| {
            let Some(event) = event.dyn_ref::<MessageEvent>() else {
                return;
            };
            let data = event.data();
            if !browser::sent_by(&frame, event)
                || field(&data, "hearth").as_string().as_deref() != Some("picture")
            {
                return;
            }
            match field(&data, "type").as_string().as_deref() {
                // Its policy did not arrive (a proxy removed it?): the page would share
                // the app's origin, so it gets nothing.
                Some("ready") if !frame_is_isolated(&frame) => {
                    let _ = settle.call1(&JsValue::NULL, &"not_isolated".into());
                }
                Some("ready") => {
                    if let Some(window) = frame.content_window() {
                        // The frame's origin is opaque: no target origin can name it.
                        let _ = window.post_message(&request, "*");
                    }
                }
                Some("png" | "error")
                    if field(&data, "id").as_string().as_deref() == Some(REQUEST_ID) =>
                {
                    let _ = settle.call1(&JsValue::NULL, &data);
                }
                _ => {}
            }
        })
    };
    let timer = set_timeout_with_handle(
        move || {
            let _ = settle.call1(&JsValue::NULL, &"timeout".into());
        },
        TIMEOUT,
    );
    let answer = JsFuture::from(answered).await.unwrap_or_default();
    drop(on_message);
    if let Ok(timer) = timer {
        timer.clear();
    }
    answer
}

/// The PNG in the sandbox's `answer`, or why there is none.
fn read_answer(answer: &JsValue) -> Result<Blob, PictureError> {
    match field(answer, "type").as_string().as_deref() {
        Some("png") => match field(answer, "png").dyn_into::<Blob>() {
            Ok(png) if png.size() > 0.0 && png.size() <= MAX_PNG_BYTES => Ok(png),
            _ => Err(PictureError::Failed),
        },
        Some("error") if field(answer, "message").as_string().as_deref() == Some("too_large") => {
            Err(PictureError::TooLarge)
        }
        _ => Err(PictureError::Failed),
    }
}

fn set(object: &Object, name: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(name), value);
}
