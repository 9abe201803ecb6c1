//! Registering the service worker and taking a new version, in lazily loaded chunks.
//!
//! The browser checks `/sw.js` on each navigation (the edge revalidates it, and the
//! registration skips the HTTP cache), and this page asks again every hour, for a tab left
//! open for days. A new version installs beside the running one and waits; the page hears
//! of it and says so. Taking it posts [`APPLY_MESSAGE`] to the waiting worker, which
//! becomes the active one, and the page reloads when it takes control.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use wasm_bindgen_futures::JsFuture;

use super::{NewVersion, Pwa};

/// The worker's script, at the root: its scope is the whole app.
const SCRIPT: &str = "/sw.js";
/// What a page posts to the waiting worker to make it the active one (`public/sw.js`).
const APPLY_MESSAGE: &str = "hearth:apply-update";
/// How often an open page asks whether a new version exists, in ms.
const CHECK_EVERY_MS: i32 = 60 * 60 * 1000;
/// How long taking a version may wait for the new worker before the page reloads anyway.
const APPLY_BOUND_MS: i32 = 5_000;

/// Registers the worker and follows its updates.
pub async fn register(pwa: Pwa) {
    register_lazily(pwa).await;
}

/// Makes the waiting version the active one and reloads into it.
pub async fn apply() {
    apply_lazily().await;
}

fn container() -> Option<web_sys::ServiceWorkerContainer> {
    let navigator = window().navigator();
    // Absent outside a secure context, and in some private modes.
    js_sys::Reflect::has(&navigator, &"serviceWorker".into())
        .unwrap_or(false)
        .then(|| navigator.service_worker())
}

fn reload() {
    let _ = window().location().reload();
}

#[lazy]
async fn register_lazily(pwa: Pwa) {
    let Some(container) = container() else {
        return;
    };
    let options = web_sys::RegistrationOptions::new();
    options.set_update_via_cache(web_sys::ServiceWorkerUpdateViaCache::None);
    let registration = match JsFuture::from(container.register_with_options(SCRIPT, &options)).await
    {
        Ok(registration) => registration.unchecked_into::<web_sys::ServiceWorkerRegistration>(),
        // Without a worker the app still works, online only.
        Err(error) => {
            web_sys::console::warn_2(
                &"Hearth: the service worker was not registered".into(),
                &error,
            );
            return;
        }
    };
    // Whether a worker controlled this page: the first one taking it is no update.
    let controlled = Rc::new(Cell::new(container.controller().is_some()));
    if registration.waiting().is_some() && controlled.get() {
        pwa.update.set(NewVersion::Ready);
    }
    let watched = registration.clone();
    let on_found = Closure::<dyn FnMut()>::new(move || watch_installing(pwa, &watched));
    registration.set_onupdatefound(Some(on_found.as_ref().unchecked_ref()));
    on_found.forget();

    let seen = container.clone();
    let on_controller = Closure::<dyn FnMut()>::new(move || {
        let was_controlled = controlled.replace(seen.controller().is_some());
        match pwa.update.get_untracked() {
            NewVersion::Applying => reload(),
            // Another tab took the new version: this page still runs the old one.
            _ if was_controlled => pwa.update.set(NewVersion::Ready),
            _ => {}
        }
    });
    container.set_oncontrollerchange(Some(on_controller.as_ref().unchecked_ref()));
    on_controller.forget();

    loop {
        crate::browser::sleep_ms(CHECK_EVERY_MS).await;
        if let Ok(promise) = registration.update() {
            let _ = JsFuture::from(promise).await;
        }
    }
}

/// Says the new version is ready once the worker being installed is (and only when a
/// version already controls the page: the first install is no update).
fn watch_installing(pwa: Pwa, registration: &web_sys::ServiceWorkerRegistration) {
    let Some(installing) = registration.installing() else {
        return;
    };
    let worker = installing.clone();
    let on_state = Closure::<dyn FnMut()>::new(move || {
        let installed = worker.state() == web_sys::ServiceWorkerState::Installed;
        let controlled = container().and_then(|c| c.controller()).is_some();
        if installed && controlled && pwa.update.get_untracked() == NewVersion::Current {
            pwa.update.set(NewVersion::Ready);
        }
    });
    installing.set_onstatechange(Some(on_state.as_ref().unchecked_ref()));
    on_state.forget();
}

#[lazy]
async fn apply_lazily() {
    let waiting = match container() {
        Some(container) => JsFuture::from(container.get_registration())
            .await
            .ok()
            .and_then(|r| r.dyn_into::<web_sys::ServiceWorkerRegistration>().ok())
            .and_then(|r| r.waiting()),
        None => None,
    };
    // No waiting worker: another tab made it the active one already, and a reload is
    // enough.
    let Some(waiting) = waiting else {
        reload();
        return;
    };
    // The reload comes with the new worker taking control (`oncontrollerchange`).
    if waiting.post_message(&APPLY_MESSAGE.into()).is_err() {
        reload();
        return;
    }
    crate::browser::sleep_ms(APPLY_BOUND_MS).await;
    reload();
}
