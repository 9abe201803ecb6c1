//! Catalogues served with the app (`/data/…`: the built-in skills, the built-in
//! assistants): the one of the user's language is fetched when its view opens and kept in
//! the settings store as the last good copy. What the user sees says exactly where a list
//! came from (seed 000, "Market and search health states"): fresh, a saved copy (still
//! valid or stale), the English catalogue as an explicit fallback, or the error when
//! there is nothing to show; a failed request is never shown as an empty catalogue.
//! [`CatalogStatus`] is the line that says so, the same for every catalogue.

use std::future::Future;

use leptos::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::i18n::{Key, tr, use_i18n};
use crate::storage::{Db, SETTINGS};

/// How long a saved catalogue counts as valid, in ms (older: stale).
pub const VALID_FOR_MS: f64 = 72.0 * 3600.0 * 1000.0;

/// Why a catalogue (or a file beside it) could not be fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// No response.
    Unreachable,
    /// An answer other than 200 (its status).
    Status(u16),
    /// Not a catalogue this version reads (too large, malformed, another schema).
    Unreadable,
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unreachable => f.write_str("no response"),
            Self::Status(status) => write!(f, "HTTP {status}"),
            Self::Unreadable => f.write_str("unreadable"),
        }
    }
}

/// Where the catalogue on screen came from.
#[derive(Debug, Clone, PartialEq)]
pub enum CatalogState<C> {
    /// Being fetched, nothing to show yet.
    Loading,
    /// Fetched now.
    Fresh(C),
    /// The fetch failed; the saved copy of `fetched_at` is shown (`stale` past
    /// [`VALID_FOR_MS`]).
    Saved {
        /// The saved catalogue.
        catalog: C,
        /// When it was fetched, ms since the epoch.
        fetched_at: f64,
        /// Older than [`VALID_FOR_MS`].
        stale: bool,
        /// Why the fetch failed.
        error: FetchError,
    },
    /// The user's language failed with nothing saved; the English catalogue is shown.
    Fallback {
        /// The English catalogue.
        catalog: C,
        /// Why the user's language failed.
        error: FetchError,
    },
    /// Nothing to show.
    Failed(FetchError),
}

impl<C> CatalogState<C> {
    /// The catalogue shown, if any.
    pub fn shown(&self) -> Option<&C> {
        match self {
            Self::Fresh(catalog) | Self::Saved { catalog, .. } | Self::Fallback { catalog, .. } => {
                Some(catalog)
            }
            Self::Loading | Self::Failed(_) => None,
        }
    }
}

/// The saved copy of a catalogue.
#[derive(serde::Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct Saved<C> {
    fetched_at: f64,
    catalog: C,
}

/// The text at `path` (same origin), at most `max` bytes.
pub async fn get_text(path: &str, max: usize) -> Result<String, FetchError> {
    let response = JsFuture::from(window().fetch_with_str(path))
        .await
        .map_err(|_| FetchError::Unreachable)?
        .dyn_into::<web_sys::Response>()
        .map_err(|_| FetchError::Unreachable)?;
    if !response.ok() {
        return Err(FetchError::Status(response.status()));
    }
    crate::http::read_capped_text(&response, max)
        .await
        .map_err(|_| FetchError::Unreadable)
}

/// The catalogue of `locale` to show: fetched by `fetch` (and saved under
/// `<saved_as>:<locale>`), or else the saved copy, or else English, or else the error.
pub async fn load<C, F>(
    locale: &str,
    saved_as: &str,
    fetch: impl Fn(String) -> F,
) -> CatalogState<C>
where
    C: Serialize + DeserializeOwned + Clone,
    F: Future<Output = Result<C, FetchError>>,
{
    let db = Db::open().await.ok();
    let key = format!("{saved_as}:{locale}");
    let error = match fetch(locale.to_string()).await {
        Ok(catalog) => {
            if let Some(db) = &db {
                let saved = Saved {
                    fetched_at: crate::browser::now(),
                    catalog: catalog.clone(),
                };
                let _ = db.put_json(SETTINGS, &key, &saved).await;
            }
            return CatalogState::Fresh(catalog);
        }
        Err(error) => error,
    };
    if let Some(db) = &db
        && let Ok(Some(saved)) = db.get_json::<Saved<C>>(SETTINGS, &key).await
    {
        let stale = crate::browser::now() - saved.fetched_at > VALID_FOR_MS;
        return CatalogState::Saved {
            catalog: saved.catalog,
            fetched_at: saved.fetched_at,
            stale,
            error,
        };
    }
    if locale != "en"
        && let Ok(catalog) = fetch("en".to_string()).await
    {
        return CatalogState::Fallback { catalog, error };
    }
    CatalogState::Failed(error)
}

/// A view's catalogue of the user's language: its state (this view's alone), loaded now
/// and again whenever the language changes, and a way to load it again (Try again).
/// `load` fetches a locale's catalogue with its state.
pub fn use_catalogue<C, F>(
    load: impl Fn(String) -> F + Copy + Send + Sync + 'static,
) -> (RwSignal<CatalogState<C>>, Callback<()>)
where
    C: Send + Sync + 'static,
    F: Future<Output = CatalogState<C>> + 'static,
{
    let i18n = use_i18n();
    let state = RwSignal::new(CatalogState::Loading);
    let reload = Callback::new(move |()| {
        let tag = i18n.locale().tag().to_string();
        state.set(CatalogState::Loading);
        leptos::task::spawn_local(async move {
            let loaded = load(tag).await;
            // The view may have closed meanwhile.
            let _ = state.try_set(loaded);
        });
    });
    Effect::new(move |_| {
        let _ = i18n.locale();
        untrack(|| reload.run(()));
    });
    (state, reload)
}

/// The line that says where a catalogue came from (nothing when it is fresh), with Try
/// again when the fetch failed. It is `<id>-state`, its button `<id>-retry`; `failed`
/// is the sentence for nothing to show, which says what still works.
#[component]
pub fn CatalogStatus<C: Clone + Send + Sync + 'static>(
    /// The catalogue's state.
    state: RwSignal<CatalogState<C>>,
    /// The prefix of the line's id and its button's.
    id: &'static str,
    /// The sentence when there is nothing to show.
    failed: Key,
    /// Fetches the catalogue again.
    retry: Callback<()>,
) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let date = |ms: f64| {
            js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms))
                .to_locale_date_string(i18n.locale().tag(), &wasm_bindgen::JsValue::UNDEFINED)
                .as_string()
                .unwrap_or_default()
        };
        let (key, values, can_retry) = state.with(|state| match state {
            CatalogState::Loading => Some((Key::SkillsCatalogLoading, Vec::new(), false)),
            CatalogState::Fresh(_) => None,
            CatalogState::Saved {
                fetched_at,
                stale,
                error,
                ..
            } => Some((
                if *stale {
                    Key::SkillsCatalogStale
                } else {
                    Key::SkillsCatalogSaved
                },
                vec![("date", date(*fetched_at)), ("reason", error.to_string())],
                true,
            )),
            CatalogState::Fallback { error, .. } => Some((
                Key::SkillsCatalogFallback,
                vec![("reason", error.to_string())],
                true,
            )),
            CatalogState::Failed(error) => {
                Some((failed, vec![("reason", error.to_string())], true))
            }
        })?;
        let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let text = i18n.t_with(key, &values);
        let role = if key == Key::SkillsCatalogLoading {
            "status"
        } else {
            "alert"
        };
        Some(view! {
            <div class="notice notice--warning skills-catalog-state" role=role id=format!("{id}-state")
                data-state=format!("{key:?}")>
                <span>{text}</span>
                {can_retry.then(|| view! {
                    <button type="button" class="button button--secondary button--small"
                        id=format!("{id}-retry")
                        on:click=move |_| retry.run(())>{tr(Key::MessageRetry)}</button>
                })}
            </div>
        })
    }
}
