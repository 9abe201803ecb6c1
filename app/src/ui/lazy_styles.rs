//! Stylesheets outside the first load, for views that load lazily: `panels.css` (the
//! settings dialog, the search palette, the password screen), `conversation.css` (the
//! messages) and `sidebar.css` (the sidebar's workspace button and menu). The first view
//! that needs one links it; each view shows its content once [`ready`] says its
//! stylesheet is here, so none is ever shown unstyled. A stylesheet that does not arrive
//! (offline without the service worker's copy) counts as here once it has failed: the
//! view shows rather than never. Only the lazy views' own chunks use this, so the first
//! load carries none of it.

use leptos::prelude::*;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::Closure;

/// A stylesheet outside the first load (Trunk copies `style/<name>.css` to `/<name>.css`).
#[derive(Clone, Copy)]
pub enum Sheet {
    /// The settings dialog, the search palette, the password screen.
    Panels,
    /// The messages of the open conversation.
    Conversation,
    /// The sidebar's workspace button and menu.
    Sidebar,
}

impl Sheet {
    fn href(self) -> &'static str {
        match self {
            Sheet::Panels => "/panels.css",
            Sheet::Conversation => "/conversation.css",
            Sheet::Sidebar => "/sidebar.css",
        }
    }
}

thread_local! {
    /// Whether each sheet has loaded (or failed); `None` until it is linked.
    static READY: std::cell::RefCell<[Option<ArcRwSignal<bool>>; 3]> =
        const { std::cell::RefCell::new([None, None, None]) };
}

/// Whether `sheet` is here; links it the first time it is asked.
pub fn ready(sheet: Sheet) -> Signal<bool> {
    let signal = READY.with(|ready| {
        ready.borrow_mut()[sheet as usize]
            .get_or_insert_with(|| {
                let signal = ArcRwSignal::new(false);
                link(sheet.href(), signal.clone());
                signal
            })
            .clone()
    });
    Signal::derive(move || signal.get())
}

/// Adds the `<link>` to `href` to the head; `signal` turns true on its load or error (or
/// at once, when it cannot be added).
fn link(href: &str, signal: ArcRwSignal<bool>) {
    let document = document();
    let settle = {
        let signal = signal.clone();
        Closure::once_into_js(move || signal.set(true))
    };
    let added = (|| {
        let element = document.create_element("link").ok()?;
        element.set_attribute("rel", "stylesheet").ok()?;
        element.set_attribute("href", href).ok()?;
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
