//! Previewing an HTML, SVG or JavaScript code block of a reply. The code never runs in
//! the app: it is posted to the artifact sandbox (`/sandbox/artifact`, served by the edge
//! with its own policy: an opaque origin, no network, no forms, popups or navigation),
//! framed here without a `sandbox` attribute, which would keep the service worker from
//! answering it offline; the code is posted only once the frame is seen to be isolated
//! (`browser::frame_is_isolated`). HTML and SVG show in the frame;
//! JavaScript runs in a worker there, ended after 3 s or by Stop, and its console output
//! comes back as text. Every message is checked: it must come from this dialog's frame, carry this
//! run's id and have the expected shape. The dialog's body is a lazily loaded chunk.

use leptos::prelude::*;
use web_sys::Element;

use crate::browser::field;
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::dialog::Dialog;
use crate::ui::lazy::lazy_view;

/// Where the edge serves the sandbox page.
const SANDBOX_PATH: &str = "/sandbox/artifact";

/// How long the sandbox page may take to say it is ready before the preview says it
/// could not start (offline, or the page blocked): the page is one small file.
const START_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(8);

/// The most output lines kept, whatever the page sends (it caps them itself at 200).
const MAX_LINES: usize = 200;

/// A code block to preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// `html`, `svg` or `js` (`hearth_core::markdown::preview_kind`).
    pub kind: String,
    pub source: String,
}

impl Artifact {
    /// The code block whose Preview button is `button`.
    pub fn of_button(button: &Element) -> Option<Self> {
        let kind = button.get_attribute("data-kind")?;
        let source = button
            .closest(".code-block")
            .ok()??
            .query_selector("code")
            .ok()??
            .text_content()?;
        let kind = hearth_core::markdown::preview_kind(&kind)?.to_string();
        Some(Self { kind, source })
    }
}

/// The preview dialog for the artifact in `shown`; closing it clears `shown`.
#[component]
pub fn PreviewDialog(shown: RwSignal<Option<Artifact>>) -> impl IntoView {
    let open = RwSignal::new(true);
    Effect::new(move |_| {
        if !open.get() {
            shown.set(None);
        }
    });
    let artifact = shown.get_untracked();
    let i18n = use_i18n();
    view! {
        <Dialog open=open title=Signal::derive(move || i18n.t(Key::PreviewTitle)) class="dialog--preview">
            {artifact.clone().map(|artifact| lazy_view(preview_body(artifact), "preview preview--loading"))}
        </Dialog>
    }
}

/// How a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Starting,
    Running,
    Shown,
    Finished(Finish),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Finish {
    Done,
    Timeout,
    /// The user stopped it.
    Stopped,
    Failed,
    TooLarge,
    /// The sandbox page never said it was ready.
    Unavailable,
}

#[lazy]
fn preview_body(artifact: Artifact) -> AnyView {
    let i18n = use_i18n();
    let new_run_id = || format!("run-{:x}", (js_sys::Math::random() * 1e15) as u64);
    // Each run has its own id and frame: Run again replaces both.
    let run_id = StoredValue::new(new_run_id());
    let generation = RwSignal::new(0u32);
    let frame = NodeRef::<leptos::html::Iframe>::new();
    let again_button = NodeRef::<leptos::html::Button>::new();
    let status = RwSignal::new(Status::Starting);
    let lines: RwSignal<Vec<(String, String)>> = RwSignal::new(Vec::new());
    let truncated = RwSignal::new(false);
    let is_script = artifact.kind == "js";
    let request = StoredValue::new(artifact);
    let listener = window_event_listener(leptos::ev::message, move |event| {
        let Some(frame_now) = frame.get_untracked() else {
            return;
        };
        // Only this dialog's frame, only this run (the frame says `ready` before it has one).
        let from_frame = crate::browser::sent_by(&frame_now, &event);
        let data = event.data();
        if !from_frame || field(&data, "hearth").as_string().as_deref() != Some("sandbox") {
            return;
        }
        let run = field(&data, "runId").as_string();
        let kind = field(&data, "type").as_string().unwrap_or_default();
        let expected = run_id.get_value();
        if kind == "ready" && run.is_none() {
            // The page's own policy makes its origin opaque; without it (a proxy removed
            // it?) it would share the app's, and gets no code.
            if !crate::browser::frame_is_isolated(&frame_now) {
                status.set(Status::Finished(Finish::Unavailable));
                return;
            }
            let message = js_sys::Object::new();
            request.with_value(|artifact| {
                for (name, value) in [
                    ("hearth", "run"),
                    ("runId", expected.as_str()),
                    ("kind", artifact.kind.as_str()),
                    ("source", artifact.source.as_str()),
                ] {
                    let _ = js_sys::Reflect::set(&message, &name.into(), &value.into());
                }
            });
            if let Some(window) = frame_now.content_window() {
                let _ = window.post_message(&message, "*");
            }
            status.set(Status::Running);
            return;
        }
        if run.as_deref() != Some(expected.as_str()) {
            return;
        }
        match kind.as_str() {
            "shown" => status.set(Status::Shown),
            "output" => {
                let level = field(&data, "level").as_string().unwrap_or_default();
                if let Some(text) = field(&data, "text").as_string() {
                    lines.update(|lines| {
                        if lines.len() < MAX_LINES {
                            lines.push((level, text));
                        }
                    });
                }
            }
            "finished" => {
                truncated.set(field(&data, "truncated").as_bool() == Some(true));
                // Stopped by the user: the Stop button goes, its focus to Run again (once
                // enabled, on the next frame).
                if field(&data, "reason").as_string().as_deref() == Some("stopped") {
                    request_animation_frame(move || {
                        if let Some(button) = again_button.get_untracked() {
                            let _ = button.focus();
                        }
                    });
                }
                status.set(Status::Finished(
                    match field(&data, "reason").as_string().as_deref() {
                        Some("done") => Finish::Done,
                        Some("timeout") => Finish::Timeout,
                        Some("stopped") => Finish::Stopped,
                        Some("too_large") => Finish::TooLarge,
                        _ => Finish::Failed,
                    },
                ));
            }
            _ => {}
        }
    });
    on_cleanup(move || listener.remove());
    // A frame that never says it is ready (offline, blocked) is said, not waited on.
    let watch_start = move || {
        let run = run_id.get_value();
        set_timeout(
            move || {
                let stalled = run_id.try_with_value(|current| *current == run) == Some(true)
                    && status.try_get_untracked() == Some(Status::Starting);
                if stalled {
                    status.set(Status::Finished(Finish::Unavailable));
                }
            },
            START_TIMEOUT,
        );
    };
    watch_start();
    let again = move |_| {
        run_id.set_value(new_run_id());
        lines.set(Vec::new());
        truncated.set(false);
        status.set(Status::Starting);
        generation.update(|g| *g += 1);
        watch_start();
    };

    // Stop: the page ends the worker at once (the time limit would, later).
    let stop = move |_| {
        let Some(window) = frame.get_untracked().and_then(|f| f.content_window()) else {
            return;
        };
        let message = js_sys::Object::new();
        for (name, value) in [
            ("hearth", "stop".to_string()),
            ("runId", run_id.get_value()),
        ] {
            let _ = js_sys::Reflect::set(&message, &name.into(), &value.into());
        }
        let _ = window.post_message(&message, "*");
    };

    let status_text = move || {
        let key = match status.get() {
            Status::Starting | Status::Running => Key::PreviewRunning,
            Status::Shown => return String::new(),
            Status::Finished(Finish::Done) => Key::PreviewDone,
            Status::Finished(Finish::Timeout) => Key::PreviewTimeout,
            Status::Finished(Finish::Stopped) => Key::PreviewStopped,
            Status::Finished(Finish::Failed) => Key::PreviewFailed,
            Status::Finished(Finish::TooLarge) => Key::PreviewTooLarge,
            Status::Finished(Finish::Unavailable) => Key::PreviewUnavailable,
        };
        i18n.t(key)
    };
    let output = move || {
        let lines = lines.get();
        let finished = matches!(status.get(), Status::Finished(f) if f != Finish::Unavailable);
        if lines.is_empty() && finished {
            return view! { <p class="preview__empty">{tr(Key::PreviewNoOutput)}</p> }.into_any();
        }
        view! {
            <pre class="preview__output" role="log" aria-label=tr(Key::PreviewOutput)>
                {lines
                    .into_iter()
                    .map(|(level, text)| {
                        let class = if level == "error" || level == "warn" {
                            "preview__line preview__line--error"
                        } else {
                            "preview__line"
                        };
                        view! { <span class=class>{text}"\n"</span> }
                    })
                    .collect_view()}
            </pre>
        }
        .into_any()
    };
    view! {
        <div class="preview" data-status=move || format!("{:?}", status.get()).to_lowercase()>
            <p class="preview__note">{tr(Key::PreviewSandboxed)}</p>
            {move || {
                generation.track();
                view! {
                    <iframe
                        node_ref=frame
                        class=if is_script { "preview__frame preview__frame--hidden" } else { "preview__frame" }
                        referrerpolicy="no-referrer"
                        title=tr(Key::PreviewTitle)
                        src=SANDBOX_PATH
                    ></iframe>
                }
            }}
            <div class="preview__bar">
                <p class="preview__status" role="status">{status_text}</p>
                <Show when=move || is_script && status.get() == Status::Running>
                    <button type="button" class="button button--secondary button--small preview__stop" on:click=stop>
                        {tr(Key::PreviewStop)}
                    </button>
                </Show>
                <button
                    type="button"
                    node_ref=again_button
                    class="button button--secondary button--small preview__again"
                    disabled=move || matches!(status.get(), Status::Starting | Status::Running)
                    on:click=again
                >
                    {tr(Key::PreviewRunAgain)}
                </button>
            </div>
            {is_script.then(|| view! {
                {output}
                <Show when=move || truncated.get()>
                    <p class="preview__cut">{tr(Key::PreviewCut)}</p>
                </Show>
            })}
        </div>
    }
    .into_any()
}
