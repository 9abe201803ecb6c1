//! Showing a view whose code lives in a lazily loaded wasm chunk (a `#[lazy]` function,
//! split out by `scripts/build-app-wasm.sh`). Unlike `<Suspense>`, this waits for the
//! chunk only: resources read inside the view are not its business, so the view is never
//! torn down and rebuilt when one of them reloads (which would lose focus and state).

use std::future::Future;
use std::pin::Pin;

use leptos::either::Either;
use leptos::prelude::*;

/// Shows the view `load` produces once its chunk has arrived, and until then an empty
/// placeholder with `placeholder_class` marked busy.
pub fn lazy_view(
    load: impl Future<Output = AnyView> + 'static,
    placeholder_class: &'static str,
) -> impl IntoView {
    shown_when_loaded(Box::pin(load), placeholder_class)
}

/// [`lazy_view`] over a boxed future: one copy of this code serves every lazy view
/// (generic over each chunk's future, it was copied into the first load once per call
/// site).
fn shown_when_loaded(
    load: Pin<Box<dyn Future<Output = AnyView>>>,
    placeholder_class: &'static str,
) -> impl IntoView {
    let slot = StoredValue::new_local(None::<AnyView>);
    let ready = RwSignal::new(false);
    // A scoped task keeps the current owner, so the view finds its contexts.
    crate::browser::spawn_scoped(async move {
        let view = load.await;
        if slot.try_set_value(Some(view)).is_none() {
            let _ = ready.try_set(true);
        }
    });
    move || match ready.get() {
        true => Either::Left(slot.try_update_value(Option::take).flatten()),
        false => Either::Right(view! { <div class=placeholder_class aria-busy="true"></div> }),
    }
}
