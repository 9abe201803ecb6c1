//! The composer's web search switch (and its other optional controls: the microphone,
//! comparing models), in a lazily loaded chunk: shown only when replies
//! can search (`crate::web_search::resolve` finds a way), pressed while they do. The
//! switch is the settings' `enabled`, so every tab shows the same state. Until a service
//! is chosen in this browser (`crate::web_search::chosen_here`, a local storage entry
//! other tabs hear of), it reads nothing: the first screen opens no settings document.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, tr, use_i18n};
use crate::ui::icon::{Icon, icon};
use crate::ui::toast::{ToastKind, use_toasts};

/// The composer's optional controls, in one chunk: the switch, the microphone
/// (`super::dictation`) adding what it hears to `text`, and comparing models
/// (`super::compare_picker`).
#[lazy]
pub fn switch(text: RwSignal<String>) -> AnyView {
    view! {
        <SearchSwitch />
        <super::dictation::Microphone text=text />
        <super::compare_picker::ComparePicker />
    }
    .into_any()
}

#[component]
fn SearchSwitch() -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let settings = crate::web_search::value();
    let ready = RwSignal::new(false);
    let chosen = RwSignal::new(crate::web_search::chosen_here());
    // Lives as long as the switch: a service chosen in another tab shows it here.
    let listener = gloo_events::EventListener::new(&window(), "storage", move |_| {
        let _ = chosen.try_set(crate::web_search::chosen_here());
    });
    let listener = send_wrapper::SendWrapper::new(listener);
    on_cleanup(move || drop(listener));
    // Resolved again whenever the settings change (here or in another tab, a key saved).
    let watched = settings.clone();
    // Only the latest resolution counts (an earlier one may finish later).
    let asked = StoredValue::new(0_u64);
    Effect::new(move |_| {
        let current = watched.get();
        asked.update_value(|n| *n += 1);
        let mine = asked.get_value();
        if !chosen.get() && current.is_none() {
            let _ = ready.try_set(false);
            return;
        }
        spawn_local(async move {
            let current = match current {
                Some(current) => current,
                None => match crate::web_search::settings().await {
                    Ok(read) => read,
                    Err(_) => return,
                },
            };
            let can = crate::web_search::resolve(&current, None).await.is_ok();
            if asked.try_get_value() == Some(mine) {
                let _ = ready.try_set(can);
            }
        });
    });
    let on = Memo::new(move |_| settings.with(|s| s.as_ref().is_some_and(|s| s.enabled)));
    let toggle = move |_| {
        let next = !on.get_untracked();
        spawn_local(async move {
            if let Err(reason) = crate::web_search::change(|s| s.enabled = next).await {
                toasts.show(
                    ToastKind::Error,
                    i18n.t_with(Key::WebSearchSaveFailed, &[("reason", &reason)]),
                );
            }
        });
    };
    // Its English sentences come with the catalogue (`crate::i18n::load_later_english`),
    // fetched only once the switch is to be shown.
    let worded = crate::i18n::later_english_when(move || ready.get());
    view! {
        <Show when=move || ready.get() && worded.get()>
            <button
                type="button"
                id="composer-web-search"
                class="icon-button composer__search"
                class:composer__search--on=on
                aria-pressed=move || on.get().to_string()
                aria-label=tr(Key::WebSearchSwitch)
                title=tr(Key::WebSearchSwitch)
                on:click=toggle
            >
                {icon(Icon::Globe)}
            </button>
        </Show>
    }
}
