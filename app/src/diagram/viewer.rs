//! A diagram full screen: the picture fitted to the screen, zoomed with the buttons, the
//! wheel or `+` `-` `0`, moved by dragging or with the arrow keys, and saved as SVG or
//! PNG. A dialog: focus stays inside, Escape closes it and focus returns to the button
//! that opened it. Zoom steps animate only when the user has not asked for less motion
//! (`conversation.css`).

use leptos::prelude::*;
use wasm_bindgen::JsValue;

use super::Diagram;
use super::export::{self, Format};
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::dialog::Dialog;
use crate::ui::toast::use_toasts;

const MIN_ZOOM: f64 = 0.1;
const MAX_ZOOM: f64 = 8.0;
/// How much one zoom step multiplies by.
const STEP: f64 = 1.25;
/// How far an arrow key moves the picture, in CSS pixels.
const NUDGE: f64 = 48.0;

/// A number property of a browser object (an event's `clientX`, an element's
/// `clientWidth`), read as a property: a binding of its own for each would weigh on
/// every page load, since the app's bindings all load with it.
fn number(object: &impl AsRef<JsValue>, name: &str) -> f64 {
    crate::browser::field(object.as_ref(), name)
        .as_f64()
        .unwrap_or_default()
}

/// Where the picture is: its scale and its top-left corner in the stage.
#[derive(Debug, Clone, Copy, PartialEq)]
struct View {
    zoom: f64,
    x: f64,
    y: f64,
}

impl View {
    /// The picture (`width` × `height`) fitted and centred in a `stage_w` × `stage_h`
    /// stage, never enlarged past twice its size.
    fn fit(width: f64, height: f64, stage_w: f64, stage_h: f64) -> Self {
        let zoom = (stage_w / width.max(1.0))
            .min(stage_h / height.max(1.0))
            .clamp(MIN_ZOOM, 2.0);
        Self {
            zoom,
            x: (stage_w - width * zoom) / 2.0,
            y: (stage_h - height * zoom) / 2.0,
        }
    }

    /// Zoomed by `factor` about the stage point (`at_x`, `at_y`), which stays in place.
    fn zoomed(self, factor: f64, at_x: f64, at_y: f64) -> Self {
        let zoom = (self.zoom * factor).clamp(MIN_ZOOM, MAX_ZOOM);
        let applied = zoom / self.zoom;
        Self {
            zoom,
            x: at_x - (at_x - self.x) * applied,
            y: at_y - (at_y - self.y) * applied,
        }
    }

    fn moved(self, dx: f64, dy: f64) -> Self {
        Self {
            x: self.x + dx,
            y: self.y + dy,
            ..self
        }
    }
}

/// The full-screen dialog for the diagram in `shown`; closing it clears `shown`.
#[component]
pub fn DiagramViewer(
    /// The diagram shown; the dialog clears it when it closes.
    shown: RwSignal<Option<Diagram>>,
) -> impl IntoView {
    let open = RwSignal::new(true);
    Effect::new(move |_| {
        if !open.get() {
            shown.set(None);
        }
    });
    let i18n = use_i18n();
    let diagram = shown.get_untracked();
    view! {
        <Dialog open=open title=Signal::derive(move || i18n.t(Key::DiagramTitle)) class="dialog--diagram">
            {diagram.clone().map(|diagram| view! { <Viewer diagram=diagram /> })}
        </Dialog>
    }
}

/// The dialog's content: the toolbar, the picture in its stage, the keyboard hint.
#[component]
fn Viewer(diagram: Diagram) -> impl IntoView {
    let toasts = use_toasts();
    let diagram = StoredValue::new(Some(diagram));
    let view = RwSignal::new(None::<View>);
    let dragging = RwSignal::new(None::<(f64, f64)>);
    let stage = NodeRef::<leptos::html::Div>::new();
    let image = NodeRef::<leptos::html::Img>::new();
    let hint_id = crate::browser::unique_id("diagram-hint");

    let stage_size = move || {
        stage
            .get_untracked()
            .map(|s| (number(&s, "clientWidth"), number(&s, "clientHeight")))
            .unwrap_or((800.0, 600.0))
    };
    // The drawing's size is on its root element (the sandbox set it from its viewBox).
    let size = diagram
        .with_value(|d| d.as_ref().and_then(Diagram::svg))
        .and_then(|svg| hearth_core::diagram::svg_size(&svg))
        .unwrap_or((800.0, 600.0));
    let fit = move || {
        let (stage_w, stage_h) = stage_size();
        view.set(Some(View::fit(size.0, size.1, stage_w, stage_h)));
    };
    let zoom_by = move |factor: f64| {
        let (stage_w, stage_h) = stage_size();
        view.update(|v| {
            if let Some(current) = v {
                *current = current.zoomed(factor, stage_w / 2.0, stage_h / 2.0);
            }
        });
    };
    // The transform goes through the CSSOM: the CSP allows no inline style.
    Effect::new(move |_| {
        let (Some(current), Some(image)) = (view.get(), image.get()) else {
            return;
        };
        let _ = web_sys::HtmlElement::style(&image).set_property(
            "transform",
            &format!(
                "translate({}px, {}px) scale({})",
                current.x, current.y, current.zoom
            ),
        );
    });
    let percent = move || {
        view.get()
            .map(|v| format!("{}%", (v.zoom * 100.0).round()))
            .unwrap_or_default()
    };
    let save = move |format: Format| {
        if let Some(diagram) = diagram.get_value() {
            export::save(&diagram, format, toasts);
        }
    };
    let on_key = move |event: leptos::ev::KeyboardEvent| {
        match event.key().as_str() {
            "ArrowLeft" => view.update(|v| *v = v.map(|v| v.moved(NUDGE, 0.0))),
            "ArrowRight" => view.update(|v| *v = v.map(|v| v.moved(-NUDGE, 0.0))),
            "ArrowUp" => view.update(|v| *v = v.map(|v| v.moved(0.0, NUDGE))),
            "ArrowDown" => view.update(|v| *v = v.map(|v| v.moved(0.0, -NUDGE))),
            "+" | "=" => zoom_by(STEP),
            "-" | "_" => zoom_by(1.0 / STEP),
            "0" => fit(),
            _ => return,
        }
        event.prevent_default();
    };
    let on_wheel = move |event: leptos::ev::WheelEvent| {
        event.prevent_default();
        let factor = if number(&event, "deltaY") < 0.0 {
            STEP
        } else {
            1.0 / STEP
        };
        let (at_x, at_y) = stage
            .get_untracked()
            .map(|s| {
                let rect = s.get_bounding_client_rect();
                (
                    number(&event, "clientX") - number(&rect, "left"),
                    number(&event, "clientY") - number(&rect, "top"),
                )
            })
            .unwrap_or_default();
        view.update(|v| *v = v.map(|v| v.zoomed(factor, at_x, at_y)));
    };
    let on_down = move |event: leptos::ev::PointerEvent| {
        dragging.set(Some((number(&event, "clientX"), number(&event, "clientY"))));
    };
    let on_move = move |event: leptos::ev::PointerEvent| {
        let Some((last_x, last_y)) = dragging.get_untracked() else {
            return;
        };
        let (x, y) = (number(&event, "clientX"), number(&event, "clientY"));
        dragging.set(Some((x, y)));
        view.update(|v| *v = v.map(|v| v.moved(x - last_x, y - last_y)));
    };
    let on_up = move |_: leptos::ev::PointerEvent| dragging.set(None);

    let (url, alt) = diagram
        .get_value()
        .map(|d| (d.url, d.alt))
        .unwrap_or_default();
    let tool = |label: Key, text: Option<&'static str>, action: Box<dyn Fn()>| {
        view! {
            <button
                type="button"
                class="button button--secondary button--small"
                aria-label=tr(label)
                title=tr(label)
                on:click=move |_| action()
            >
                {match text {
                    Some(text) => text.into_any(),
                    None => tr(label).into_any(),
                }}
            </button>
        }
    };
    view! {
            <div class="diagram-viewer">
                <div class="diagram-viewer__bar" role="toolbar" aria-label=tr(Key::DiagramTitle)>
                    {tool(Key::DiagramZoomOut, Some("−"), Box::new(move || zoom_by(1.0 / STEP)))}
                    <span class="diagram-viewer__zoom" aria-live="polite">{percent}</span>
                    {tool(Key::DiagramZoomIn, Some("+"), Box::new(move || zoom_by(STEP)))}
                    {tool(Key::DiagramZoomFit, None, Box::new(fit))}
                    <span class="diagram-viewer__gap"></span>
                    {tool(Key::DiagramSaveSvg, None, Box::new(move || save(Format::Svg)))}
                    {tool(Key::DiagramSavePng, None, Box::new(move || save(Format::Png)))}
                </div>
                <div
                    node_ref=stage
                    class="diagram-viewer__stage"
                    class:is-dragging=move || dragging.get().is_some()
                    tabindex="0"
                    role="img"
                    aria-label=alt.clone()
                    aria-describedby=hint_id.clone()
                    data-autofocus=""
                    on:keydown=on_key
                    on:wheel=on_wheel
                    on:pointerdown=on_down
                    on:pointermove=on_move
                    on:pointerup=on_up
                    on:pointercancel=on_up
                    on:pointerleave=on_up
                >
                    <img
                        node_ref=image
                        class="diagram-viewer__image"
                        class:is-placed=move || view.get().is_some()
                        src=url
                        alt=""
                        draggable="false"
                        on:load=move |_| fit()
                    />
                </div>
                <p id=hint_id class="diagram-viewer__hint">{tr(Key::DiagramViewerHint)}</p>
            </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_is_fitted_and_centred_and_zoom_keeps_the_point_under_it() {
        let fitted = View::fit(400.0, 200.0, 800.0, 800.0);
        assert_eq!(fitted.zoom, 2.0, "never past twice its size");
        assert_eq!((fitted.x, fitted.y), (0.0, 200.0));
        let wide = View::fit(4_000.0, 100.0, 800.0, 600.0);
        assert!((wide.zoom - 0.2).abs() < 1e-9);
        // The stage point under (300, 250) stays there.
        let zoomed = fitted.zoomed(1.5, 300.0, 250.0);
        let before = (
            (300.0 - fitted.x) / fitted.zoom,
            (250.0 - fitted.y) / fitted.zoom,
        );
        let after = (
            (300.0 - zoomed.x) / zoomed.zoom,
            (250.0 - zoomed.y) / zoomed.zoom,
        );
        assert!((before.0 - after.0).abs() < 1e-9 && (before.1 - after.1).abs() < 1e-9);
        assert_eq!(fitted.zoomed(1_000.0, 0.0, 0.0).zoom, MAX_ZOOM);
        assert_eq!(fitted.zoomed(0.0001, 0.0, 0.0).zoom, MIN_ZOOM);
        assert_eq!(fitted.moved(10.0, -5.0).x, fitted.x + 10.0);
    }
}
