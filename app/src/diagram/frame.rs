//! The diagram sandbox, framed out of sight: the edge's `/sandbox/diagram` page (an
//! opaque origin by its own policy, which is checked before anything is posted to it; no
//! network), from the service worker's cache when offline, and the vendored Mermaid,
//! fetched here with its integrity checked (`hearth_core::diagram::MERMAID_INTEGRITY`)
//! and posted to it once. Requests (draw a source as SVG, or a drawing as PNG) go to it
//! one at a time; each answer must come from that frame, carry the request's id, have
//! the shape that request expects and stay within its bound. A request not answered
//! within [`DRAW_TIMEOUT`] fails, and the frame (with whatever hangs in it) is replaced;
//! a sandbox that cannot start within [`START_TIMEOUT`] fails every request, and the next
//! request after [`RETRY_AFTER`] starts it again. A request still queued when a longer
//! source extending it arrives (a diagram streaming) is skipped.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::time::Duration;

use hearth_core::diagram::{MAX_PNG_BYTES, MAX_SVG_BYTES, MERMAID_INTEGRITY, MERMAID_SCRIPT};
use js_sys::{Object, Reflect};
use leptos::prelude::{set_timeout, window};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{HtmlIFrameElement, MessageEvent};

use super::DrawError;
use crate::browser::field;

/// Where the edge serves the sandbox page.
const SANDBOX_PATH: &str = "/sandbox/diagram";
/// How long the page and Mermaid (about 1.5 MB compressed, once) may take to be ready.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one drawing may take.
const DRAW_TIMEOUT: Duration = Duration::from_secs(12);
/// How long after the sandbox failed to start a request starts it again.
const RETRY_AFTER: f64 = 15_000.0;

/// What becomes of a request: its answer (an SVG string, a PNG blob), an error, or
/// [`None`] when it was skipped.
type Done = Box<dyn FnOnce(Option<Result<JsValue, DrawError>>)>;

/// What the sandbox is asked for.
enum Request {
    /// `source` drawn as SVG.
    Draw { source: String, dark: bool },
    /// The drawing `svg` as PNG, `scale` times its size.
    Png { svg: String, dark: bool, scale: f64 },
}

struct Job {
    id: String,
    request: Request,
    done: Done,
}

impl Job {
    /// Whether this (queued) job is a drawing that the drawing of `source` supersedes.
    fn superseded_by(&self, source: &str, dark: bool) -> bool {
        matches!(&self.request, Request::Draw { source: queued, dark: queued_dark }
            if *queued_dark == dark && queued.len() < source.len() && source.starts_with(queued.as_str()))
    }

    fn message(&self) -> Object {
        let message = Object::new();
        set(&message, "id", &JsValue::from_str(&self.id));
        let theme = |dark: bool| JsValue::from_str(if dark { "dark" } else { "light" });
        match &self.request {
            Request::Draw { source, dark } => {
                set(&message, "hearth", &"diagram-render".into());
                set(&message, "source", &JsValue::from_str(source));
                set(&message, "theme", &theme(*dark));
            }
            Request::Png { svg, dark, scale } => {
                set(&message, "hearth", &"diagram-png".into());
                set(&message, "svg", &JsValue::from_str(svg));
                set(&message, "scale", &JsValue::from_f64(*scale));
                set(&message, "theme", &theme(*dark));
            }
        }
        message
    }

    /// The answer `data` of `kind` to this job, checked against what it asked for.
    fn answer(&self, kind: &str, data: &JsValue) -> Result<JsValue, DrawError> {
        if kind == "error" {
            let message = field(data, "message").as_string().unwrap_or_default();
            return Err(match message.as_str() {
                "too_large" => DrawError::TooLarge,
                "not_loaded" => DrawError::Unavailable,
                _ => DrawError::Invalid(message.chars().take(500).collect()),
            });
        }
        match (&self.request, kind) {
            (Request::Draw { .. }, "rendered") => match field(data, "svg").as_string() {
                Some(svg) if svg.len() > MAX_SVG_BYTES => Err(DrawError::TooLarge),
                Some(svg) if svg.starts_with("<svg") => Ok(JsValue::from_str(&svg)),
                _ => Err(DrawError::Invalid(String::new())),
            },
            (Request::Png { .. }, "png") => match field(data, "png").dyn_into::<web_sys::Blob>() {
                Ok(png) if png.size() > MAX_PNG_BYTES => Err(DrawError::TooLarge),
                Ok(png) => Ok(png.into()),
                Err(_) => Err(DrawError::Invalid(String::new())),
            },
            _ => Err(DrawError::Invalid(String::new())),
        }
    }
}

#[derive(Default, PartialEq)]
enum Phase {
    #[default]
    Idle,
    Starting,
    Ready,
    /// It could not start, at this time (ms since the epoch).
    Failed(f64),
}

#[derive(Default)]
struct Host {
    phase: Phase,
    /// Counts the frames made, so a timer of an earlier one does nothing.
    generation: u64,
    frame: Option<HtmlIFrameElement>,
    /// The page said it is ready for the script.
    page_ready: bool,
    /// Mermaid's text, once fetched (kept as a JavaScript string for a later frame).
    script: Option<JsValue>,
    fetching: bool,
    listening: bool,
    next_id: u64,
    queue: VecDeque<Job>,
    busy: Option<Job>,
}

thread_local! {
    static HOST: RefCell<Host> = RefCell::new(Host::default());
}

fn now() -> f64 {
    js_sys::Date::now()
}

/// Has `source` drawn in the light or dark theme; `done` gets the SVG or why not
/// (`None`: a longer source replaced the request before it was sent).
pub fn draw(
    source: String,
    dark: bool,
    done: impl FnOnce(Option<Result<String, DrawError>>) + 'static,
) {
    ask(
        Request::Draw { source, dark },
        Box::new(move |answer| {
            done(answer.map(|answer| {
                answer.and_then(|svg| {
                    svg.as_string()
                        .ok_or_else(|| DrawError::Invalid(String::new()))
                })
            }))
        }),
    );
}

/// Has the drawing `svg` made a PNG `scale` times its size, on the theme's surface.
pub fn png(
    svg: String,
    dark: bool,
    scale: f64,
    done: impl FnOnce(Result<web_sys::Blob, DrawError>) + 'static,
) {
    ask(
        Request::Png { svg, dark, scale },
        Box::new(move |answer| {
            done(
                answer
                    .unwrap_or(Err(DrawError::Unavailable))
                    .and_then(|png| png.dyn_into().map_err(|_| DrawError::Unavailable)),
            )
        }),
    );
}

/// Queues `request` (a queued drawing it supersedes is skipped) and starts the sandbox
/// if it is not running.
fn ask(request: Request, done: Done) {
    let refused = HOST.with(|host| {
        let host = host.borrow();
        matches!(host.phase, Phase::Failed(at) if now() - at < RETRY_AFTER)
    });
    if refused {
        done(Some(Err(DrawError::Unavailable)));
        return;
    }
    let (skipped, idle) = HOST.with(|host| {
        let mut host = host.borrow_mut();
        host.next_id += 1;
        let id = format!("d{}", host.next_id);
        let (skipped, kept): (Vec<Job>, Vec<Job>) = match &request {
            Request::Draw { source, dark } => host
                .queue
                .drain(..)
                .partition(|job| job.superseded_by(source, *dark)),
            Request::Png { .. } => (Vec::new(), host.queue.drain(..).collect()),
        };
        host.queue = kept.into();
        host.queue.push_back(Job { id, request, done });
        let idle = matches!(host.phase, Phase::Idle | Phase::Failed(_));
        (skipped, idle)
    });
    for job in skipped {
        (job.done)(None);
    }
    if idle {
        start();
    } else {
        send_next();
    }
}

/// Makes a new frame (and fetches Mermaid, the first time).
fn start() {
    let generation = HOST.with(|host| {
        let mut host = host.borrow_mut();
        if let Some(old) = host.frame.take() {
            old.remove();
        }
        host.phase = Phase::Starting;
        host.page_ready = false;
        host.generation += 1;
        if !host.listening {
            host.listening = true;
            let listener = Closure::<dyn Fn(MessageEvent)>::new(on_message);
            let _ = window()
                .add_event_listener_with_callback("message", listener.as_ref().unchecked_ref());
            listener.forget();
        }
        host.generation
    });
    let Some(frame) =
        crate::browser::hidden_sandbox_frame(SANDBOX_PATH, "diagram-sandbox", "diagram renderer")
    else {
        fail_all(DrawError::Unavailable);
        return;
    };
    let fetch = HOST.with(|host| {
        let mut host = host.borrow_mut();
        host.frame = Some(frame);
        let fetch = host.script.is_none() && !host.fetching;
        host.fetching |= fetch;
        fetch
    });
    if fetch {
        leptos::task::spawn_local(async {
            let script = fetch_script().await;
            let failed = script.is_none();
            HOST.with(|host| {
                let mut host = host.borrow_mut();
                host.fetching = false;
                host.script = script;
            });
            if failed {
                fail_all(DrawError::Unavailable);
            } else {
                load_when_ready();
            }
        });
    }
    set_timeout(
        move || {
            let stuck = HOST.with(|host| {
                let host = host.borrow();
                host.generation == generation && host.phase == Phase::Starting
            });
            if stuck {
                fail_all(DrawError::Unavailable);
            }
        },
        START_TIMEOUT,
    );
}

/// Mermaid's text, fetched with its integrity checked (any other bytes fail the fetch).
async fn fetch_script() -> Option<JsValue> {
    let init = web_sys::RequestInit::new();
    // Set as a plain property: a binding of its own would weigh on every page load.
    set(&init, "integrity", &JsValue::from_str(MERMAID_INTEGRITY));
    let response: web_sys::Response =
        JsFuture::from(window().fetch_with_str_and_init(MERMAID_SCRIPT, &init))
            .await
            .ok()?
            .dyn_into()
            .ok()?;
    if !response.ok() {
        return None;
    }
    JsFuture::from(response.text().ok()?).await.ok()
}

fn set(object: &Object, name: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(name), value);
}

fn post(host: &Host, message: &Object) {
    if let Some(window) = host
        .frame
        .as_ref()
        .and_then(HtmlIFrameElement::content_window)
    {
        // The frame's origin is opaque: no target origin can name it.
        let _ = window.post_message(message, "*");
    }
}

/// Posts Mermaid to the page once both are here.
fn load_when_ready() {
    HOST.with(|host| {
        let host = host.borrow();
        if host.phase != Phase::Starting || !host.page_ready {
            return;
        }
        let Some(script) = &host.script else { return };
        let message = Object::new();
        set(&message, "hearth", &"diagram-load".into());
        set(&message, "script", script);
        post(&host, &message);
    });
}

/// Sends the next request if the sandbox is ready and idle.
fn send_next() {
    let sent = HOST.with(|host| {
        let mut host = host.borrow_mut();
        if host.phase != Phase::Ready || host.busy.is_some() {
            return None;
        }
        let job = host.queue.pop_front()?;
        post(&host, &job.message());
        let id = job.id.clone();
        host.busy = Some(job);
        Some(id)
    });
    let Some(id) = sent else { return };
    set_timeout(move || timed_out(&id), DRAW_TIMEOUT);
}

/// The request `id` took too long: it fails, and a new frame takes the rest.
fn timed_out(id: &str) {
    let job = HOST.with(|host| {
        let mut host = host.borrow_mut();
        if host.busy.as_ref().is_none_or(|job| job.id != id) {
            return None;
        }
        host.busy.take()
    });
    if let Some(job) = job {
        (job.done)(Some(Err(DrawError::Timeout)));
        start();
    }
}

/// Fails the request being drawn and every queued one; the frame goes.
fn fail_all(error: DrawError) {
    let jobs: Vec<Job> = HOST.with(|host| {
        let mut host = host.borrow_mut();
        host.phase = Phase::Failed(now());
        if let Some(frame) = host.frame.take() {
            frame.remove();
        }
        let mut jobs: Vec<Job> = host.busy.take().into_iter().collect();
        jobs.extend(host.queue.drain(..));
        jobs
    });
    for job in jobs {
        (job.done)(Some(Err(error.clone())));
    }
}

fn on_message(event: MessageEvent) {
    // Only the current frame, only its answers' shapes.
    let from_frame = HOST.with(|host| {
        host.borrow()
            .frame
            .as_ref()
            .is_some_and(|frame| crate::browser::sent_by(frame, &event))
    });
    let data = event.data();
    if !from_frame || field(&data, "hearth").as_string().as_deref() != Some("diagram") {
        return;
    }
    match field(&data, "type").as_string().as_deref() {
        Some("ready") => {
            if !HOST.with(|host| {
                host.borrow()
                    .frame
                    .as_ref()
                    .is_some_and(crate::browser::frame_is_isolated)
            }) {
                // Its policy did not arrive (a proxy removed it?): the page would share the
                // app's origin, so it gets nothing.
                web_sys::console::warn_1(
                    &"The diagram sandbox is not isolated; diagrams stay as code".into(),
                );
                fail_all(DrawError::Unavailable);
                return;
            }
            HOST.with(|host| host.borrow_mut().page_ready = true);
            load_when_ready();
        }
        Some("loaded") => {
            HOST.with(|host| {
                let mut host = host.borrow_mut();
                if host.phase == Phase::Starting {
                    host.phase = Phase::Ready;
                }
            });
            send_next();
        }
        Some("failed") => fail_all(DrawError::Unavailable),
        Some(kind @ ("rendered" | "png" | "error")) => {
            let id = field(&data, "id").as_string().unwrap_or_default();
            let job = HOST.with(|host| {
                let mut host = host.borrow_mut();
                if host.busy.as_ref().is_none_or(|job| job.id != id) {
                    return None;
                }
                host.busy.take()
            });
            // Its timer is left to run out: it finds another job busy, or none.
            let Some(job) = job else { return };
            let answer = job.answer(kind, &data);
            (job.done)(Some(answer));
            send_next();
        }
        _ => {}
    }
}
