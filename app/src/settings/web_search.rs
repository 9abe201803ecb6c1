//! Settings › Web search: the service replies search with (off, this deployment's own,
//! the model provider's own, SearXNG, Brave, Tavily, Exa or Google Programmable
//! Search), what it needs (an
//! instance address, a key sealed in the vault, an engine id) and how many pages a
//! search asks for; under them, what the one resolver says (`crate::web_search::
//! resolve`): ready, or the one thing missing, in the user's language.

use hearth_core::web_search::capability::SearchChoice;
use hearth_core::web_search::settings::WebSearchSettings;
use hearth_core::web_search::{MAX_RESULTS, SearchProviderKind};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, tr, use_i18n};
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, use_toasts};

/// A choice's value in the select.
fn slug(choice: SearchChoice) -> &'static str {
    match choice {
        SearchChoice::Off => "off",
        SearchChoice::ModelOwn => "model",
        SearchChoice::Default => "default",
        SearchChoice::Provider(kind) => kind.as_str(),
    }
}

fn choice_of(slug: &str) -> SearchChoice {
    match slug {
        "default" => SearchChoice::Default,
        "model" => SearchChoice::ModelOwn,
        other => other
            .parse::<SearchProviderKind>()
            .map_or(SearchChoice::Off, SearchChoice::Provider),
    }
}

/// A service's name as its makers write it.
fn service_name(kind: SearchProviderKind) -> &'static str {
    match kind {
        SearchProviderKind::Searxng => "SearXNG",
        SearchProviderKind::Brave => "Brave Search",
        SearchProviderKind::Tavily => "Tavily",
        SearchProviderKind::Exa => "Exa",
        SearchProviderKind::Google => "Google Programmable Search",
    }
}

/// The Web search tab.
#[component]
pub fn WebSearchPanel() -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let choice = RwSignal::new("off".to_string());
    let searxng_url = RwSignal::new(String::new());
    let engine_id = RwSignal::new(String::new());
    let results = RwSignal::new(String::new());
    let key = RwSignal::new(String::new());
    let saved_key = RwSignal::new(None::<String>);
    let verdict = RwSignal::new(None::<Result<(), String>>);
    let unreadable = RwSignal::new(None::<String>);
    let saving = RwSignal::new(false);
    // Until the stored settings are read, Save waits, and a field the user already
    // changed keeps the user's value (a slow read must not undo a choice).
    let loaded = RwSignal::new(false);
    let touched = StoredValue::new(false);

    let kind = move || choice.with(|c| c.parse::<SearchProviderKind>().ok());
    // What the resolver says of what is stored, and the saved key's masked form. Only
    // the latest verdict is shown: an earlier one that finishes later (the first, made
    // while the page fetched the configuration) would put a stale sentence back.
    let judged = StoredValue::new(0_u64);
    let judge = move || {
        judged.update_value(|n| *n += 1);
        let mine = judged.get_value();
        spawn_local(async move {
            let Ok(stored) = crate::web_search::settings().await else {
                return;
            };
            let said = match crate::web_search::resolve(&stored, None).await {
                Ok(_) => Ok(()),
                Err(missing) => Err(crate::web_search::missing_text(&i18n, missing)),
            };
            if judged.try_get_value() == Some(mine) {
                let _ = verdict.try_set(Some(said));
            }
        });
    };
    let shown_key = StoredValue::new(0_u64);
    let show_saved_key = move || {
        shown_key.update_value(|n| *n += 1);
        let mine = shown_key.get_value();
        spawn_local(async move {
            let masked = match kind() {
                Some(kind) if kind.needs_key() => crate::web_search::masked_key(kind).await,
                _ => None,
            };
            if shown_key.try_get_value() == Some(mine) {
                let _ = saved_key.try_set(masked);
            }
        });
    };
    spawn_local(async move {
        match crate::web_search::settings().await {
            Ok(stored) => {
                if !touched.get_value() {
                    choice.set(slug(stored.choice).to_string());
                    searxng_url.set(stored.searxng_url);
                    engine_id.set(stored.google_engine_id);
                    results.set(stored.results.to_string());
                }
                loaded.set(true);
                show_saved_key();
                judge();
            }
            Err(reason) => unreadable.set(Some(reason)),
        }
    });

    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() || !loaded.get_untracked() {
            return;
        }
        saving.set(true);
        let typed_key = key.get_untracked();
        let chosen = choice_of(&choice.get_untracked());
        let url = searxng_url.get_untracked();
        let id = engine_id.get_untracked();
        let count = results
            .get_untracked()
            .parse()
            .unwrap_or(hearth_core::web_search::DEFAULT_RESULTS as u8);
        spawn_local(async move {
            let mut outcome = crate::web_search::change(move |s: &mut WebSearchSettings| {
                s.choice = chosen;
                s.searxng_url = url;
                s.google_engine_id = id;
                s.results = count;
            })
            .await;
            if outcome.is_ok()
                && let SearchChoice::Provider(kind) = chosen
                && kind.needs_key()
                && !typed_key.trim().is_empty()
            {
                outcome = crate::web_search::save_key(kind, &typed_key).await;
            }
            saving.set(false);
            match outcome {
                Ok(()) => {
                    key.set(String::new());
                    toasts.show(ToastKind::Info, i18n.t(Key::WebSearchSaved));
                }
                Err(reason) => toasts.show(
                    ToastKind::Error,
                    i18n.t_with(Key::WebSearchSaveFailed, &[("reason", &reason)]),
                ),
            }
            show_saved_key();
            judge();
        });
    };
    let forget = move |_| {
        let Some(kind) = kind() else { return };
        spawn_local(async move {
            if let Err(reason) = crate::web_search::save_key(kind, "").await {
                toasts.show(
                    ToastKind::Error,
                    i18n.t_with(Key::WebSearchSaveFailed, &[("reason", &reason)]),
                );
            }
            show_saved_key();
            judge();
        });
    };
    let keyed = move || kind().is_some_and(SearchProviderKind::needs_key);

    view! {
        <form class="settings-section web-search-panel" id="web-search-panel" on:submit=submit novalidate
            on:input=move |_| touched.set_value(true) data-loaded=move || loaded.get().to_string()>
            <p class="field__hint">{tr(Key::WebSearchIntro)}</p>
            {move || unreadable.get().map(|text| view! { <p class="field__error" role="alert">{text}</p> })}
            <Field
                id="web-search-service"
                label=tr(Key::WebSearchService)
                control=Control::Select
                value=choice
                on_input=move |v: String| {
                    choice.set(v);
                    key.set(String::new());
                    show_saved_key();
                }
            >
                <option value="off" selected=move || choice.get() == "off">{tr(Key::WebSearchServiceOff)}</option>
                <option value="default" selected=move || choice.get() == "default">
                    {tr(Key::WebSearchServiceDefault)}
                </option>
                <option value="model" selected=move || choice.get() == "model">
                    {tr(Key::WebSearchServiceModel)}
                </option>
                {SearchProviderKind::ALL
                    .into_iter()
                    .map(|k| view! {
                        <option value=k.as_str() selected=move || choice.get() == k.as_str()>{service_name(k)}</option>
                    })
                    .collect_view()}
            </Field>
            <Show when=move || kind() == Some(SearchProviderKind::Searxng)>
                <Field
                    id="web-search-searxng-url"
                    label=tr(Key::WebSearchSearxngUrl)
                    control=Control::Url
                    value=searxng_url
                    on_input=move |v| searxng_url.set(v)
                    placeholder=Signal::derive(|| "http://127.0.0.1:8888".to_string())
                    hint=tr(Key::WebSearchSearxngHint)
                />
            </Show>
            <Show when=keyed>
                <super::saved_key::SavedKeyField id="web-search-api-key" forget_id="web-search-forget-key"
                    key saved=saved_key on_forget=forget />
            </Show>
            <Show when=move || kind() == Some(SearchProviderKind::Google)>
                <Field
                    id="web-search-engine-id"
                    label=tr(Key::WebSearchEngineId)
                    value=engine_id
                    on_input=move |v| engine_id.set(v)
                />
            </Show>
            <Show when=move || choice.get() != "off">
                <Field
                    id="web-search-results"
                    label=tr(Key::WebSearchResults)
                    control=Control::Select
                    value=results
                    on_input=move |v| results.set(v)
                >
                    {[3u8, 5, 8, MAX_RESULTS as u8]
                        .into_iter()
                        .map(|n| view! {
                            <option value=n.to_string() selected=move || results.get() == n.to_string()>{n.to_string()}</option>
                        })
                        .collect_view()}
                </Field>
            </Show>
            <p class="web-search-panel__verdict" id="web-search-verdict" role="status"
                data-ready=move || verdict.with(|v| matches!(v, Some(Ok(()))).to_string())>
                {move || match verdict.get() {
                    Some(Ok(())) => i18n.t(Key::WebSearchReady),
                    Some(Err(missing)) => missing,
                    None => String::new(),
                }}
            </p>
            <div class="provider-form__actions">
                <button type="submit" class="button button--primary" id="web-search-save"
                    aria-busy=move || saving.get().to_string() disabled=move || saving.get() || !loaded.get()>
                    {tr(Key::ProviderSave)}
                </button>
            </div>
        </form>
    }
}
