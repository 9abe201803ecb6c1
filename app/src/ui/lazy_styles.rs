//! The stylesheet of the panels that load lazily (the settings dialog, the search palette,
//! the password screen): `panels.css`, outside the first load. The first panel to open
//! links it; each panel shows its content once [`ready`] says the stylesheet is here, so
//! none is ever shown unstyled. A stylesheet that does not arrive (offline without the
//! service worker's copy) counts as here once it has failed: the panel shows rather than
//! never. Only the panels' own chunks use this, so the first load carries none of it.

use leptos::prelude::*;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::Closure;

/// Where the stylesheet is served (Trunk copies `style/panels.css` there).
const HREF: &str = "/panels.css";

thread_local! {
    /// Whether the stylesheet has loaded (or failed); `None` until it is linked.
    static READY: std::cell::RefCell<Option<ArcRwSignal<bool>>> =
        const { std::cell::RefCell::new(None) };
}

/// Whether the panels' stylesheet is here; links it the first time it is asked.
pub fn ready() -> Signal<bool> {
    let signal = READY.with(|ready| {
        ready
            .borrow_mut()
            .get_or_insert_with(|| {
                let signal = ArcRwSignal::new(false);
                link(signal.clone());
                signal
            })
            .clone()
    });
    Signal::derive(move || signal.get())
}

/// Adds the `<link>` to the head; `signal` turns true on its load or error (or at once,
/// when it cannot be added).
fn link(signal: ArcRwSignal<bool>) {
    let document = document();
    let settle = {
        let signal = signal.clone();
        Closure::once_into_js(move || signal.set(true))
    };
    let added = (|| {
        let element = document.create_element("link").ok()?;
        element.set_attribute("rel", "stylesheet").ok()?;
        element.set_attribute("href", HREF).ok()?;
        for event in ["onload", "onerror"] {
            js_sys::Reflect::set(&element, &JsValue::from_str(event), &settle).ok()?;
        }
        document
            .query_selector("head")
            .ok()??
            .append_child(&element)
            .ok()
    })();
    if added.is_none() {
        signal.set(true);
    }
}
