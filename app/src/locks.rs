//! Web Locks (`navigator.locks`), shared by every tab of this origin: an exclusive lock
//! this page holds until it lets go, and the names of the locks held now. The browser
//! lets go of a page's locks when the page closes or crashes, so a lock never outlives
//! the tab that took it. Without the API (an old browser) a claim is `Unsupported` and
//! the caller carries on alone.

use js_sys::{Array, Function, Object, Promise, Reflect};
use leptos::prelude::window;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use wasm_bindgen_futures::JsFuture;

/// A lock this page holds; dropping it lets go (the browser frees it a moment later;
/// [`HeldLock::let_go`] waits until it has).
pub struct HeldLock {
    release: Function,
    /// The request's promise: it settles once the lock is free again.
    request: Promise,
}

impl HeldLock {
    /// Lets go of the lock and waits until the browser has freed it, so a claim right
    /// after finds it free.
    pub async fn let_go(self) {
        let _ = self.release.call0(&JsValue::NULL);
        let _ = JsFuture::from(self.request.clone()).await;
    }
}

impl Drop for HeldLock {
    fn drop(&mut self) {
        let _ = self.release.call0(&JsValue::NULL);
    }
}

/// What asking for a lock gave.
pub enum Claim {
    /// The lock is this page's until the value is dropped.
    Held(HeldLock),
    /// Another page (or another part of this one) holds it.
    Taken,
    /// The browser has no Web Locks.
    Unsupported,
}

fn lock_manager() -> Option<JsValue> {
    let locks = Reflect::get(&window().navigator(), &"locks".into()).ok()?;
    locks.is_object().then_some(locks)
}

fn method(target: &JsValue, name: &str) -> Option<Function> {
    Reflect::get(target, &name.into()).ok()?.dyn_into().ok()
}

/// Whether the browser has Web Locks.
pub fn supported() -> bool {
    lock_manager().is_some()
}

/// A promise and the function that resolves it.
fn pending() -> Option<(Promise, Function)> {
    let mut resolve = None;
    let promise = Promise::new(&mut |done, _| resolve = Some(done));
    Some((promise, resolve?))
}

/// Takes the exclusive lock `name` if nobody holds it; never waits for it.
pub async fn claim(name: &str) -> Claim {
    let Some(locks) = lock_manager() else {
        return Claim::Unsupported;
    };
    let (Some(request), Some((kept, release)), Some((answer, answered))) =
        (method(&locks, "request"), pending(), pending())
    else {
        return Claim::Unsupported;
    };
    let on_grant = answered.clone();
    // Called once: with the lock, or with `null` when it is taken. The lock is held until
    // the promise returned here settles.
    let callback = Closure::once_into_js(move |lock: JsValue| -> JsValue {
        let held = !lock.is_null();
        let _ = on_grant.call1(&JsValue::NULL, &if held { "held" } else { "taken" }.into());
        if held {
            kept.into()
        } else {
            JsValue::UNDEFINED
        }
    });
    let options = Object::new();
    let _ = Reflect::set(&options, &"ifAvailable".into(), &JsValue::TRUE);
    let Ok(outer) = request
        .call3(&locks, &name.into(), &options, &callback)
        .and_then(|value| value.dyn_into::<Promise>())
    else {
        return Claim::Unsupported;
    };
    // A refused request (an opaque origin) rejects without calling back.
    let on_refusal = Closure::once_into_js(move |_: JsValue| {
        let _ = answered.call1(&JsValue::NULL, &"refused".into());
    });
    if let Some(catch) = method(&outer, "catch") {
        let _ = catch.call1(&outer, &on_refusal);
    }
    match JsFuture::from(answer)
        .await
        .ok()
        .and_then(|a| a.as_string())
    {
        Some(answer) if answer == "held" => Claim::Held(HeldLock {
            release,
            request: outer,
        }),
        Some(answer) if answer == "taken" => Claim::Taken,
        _ => Claim::Unsupported,
    }
}

/// Takes the exclusive lock `name`, waiting up to `patience_ms` for another holder to let
/// go; `None` without Web Locks or when the wait ran out (the caller carries on alone).
pub async fn wait_for(name: &str, patience_ms: f64) -> Option<HeldLock> {
    let deadline = crate::browser::now() + patience_ms;
    loop {
        match claim(name).await {
            Claim::Held(lock) => return Some(lock),
            Claim::Unsupported => return None,
            Claim::Taken if crate::browser::now() > deadline => return None,
            Claim::Taken => crate::browser::sleep_ms(50).await,
        }
    }
}

/// The names of the locks held now (by any page of this origin) that start with
/// `prefix`, the prefix taken off; `None` without Web Locks.
pub async fn held(prefix: &str) -> Option<Vec<String>> {
    let locks = lock_manager()?;
    let query = method(&locks, "query")?;
    let promise: Promise = query.call0(&locks).ok()?.dyn_into().ok()?;
    let snapshot = JsFuture::from(promise).await.ok()?;
    let held = Reflect::get(&snapshot, &"held".into()).ok()?;
    Some(
        Array::from(&held)
            .iter()
            .filter_map(|info| Reflect::get(&info, &"name".into()).ok()?.as_string())
            .filter_map(|name| name.strip_prefix(prefix).map(str::to_string))
            .collect(),
    )
}
