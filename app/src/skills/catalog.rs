//! The built-in skill catalogues, served with the app (`/data/skills/<locale>/`): the
//! catalogue of the user's language, fetched when Settings › Skills opens and kept in the
//! settings store as the last good copy, and a definition's text fetched when a skill is
//! installed. What the user sees says exactly where the list came from (seed 000,
//! "Market and search health states"): fresh, a saved copy (still valid or stale), the
//! English catalogue as an explicit fallback, or the error when there is nothing to show;
//! a failed request is never shown as an empty catalogue.

use hearth_core::skill::catalog::{Catalog, read_catalog};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::storage::{Db, SETTINGS};

/// The largest definition read, in bytes.
const MAX_DEFINITION_BYTES: usize = 128 * 1024;
/// How long a saved catalogue counts as valid, in ms (older: stale).
pub const VALID_FOR_MS: f64 = 72.0 * 3600.0 * 1000.0;

/// Why a catalogue or definition could not be fetched.
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
pub enum CatalogState {
    /// Being fetched, nothing to show yet.
    Loading,
    /// Fetched now.
    Fresh(Catalog),
    /// The fetch failed; the saved copy of `fetched_at` is shown (`stale` past
    /// [`VALID_FOR_MS`]).
    Saved {
        /// The saved catalogue.
        catalog: Catalog,
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
        catalog: Catalog,
        /// Why the user's language failed.
        error: FetchError,
    },
    /// Nothing to show.
    Failed(FetchError),
}

impl CatalogState {
    /// The catalogue shown, if any, and the locale its text is in.
    pub fn shown(&self) -> Option<&Catalog> {
        match self {
            Self::Fresh(catalog) | Self::Saved { catalog, .. } | Self::Fallback { catalog, .. } => {
                Some(catalog)
            }
            Self::Loading | Self::Failed(_) => None,
        }
    }
}

/// The saved copy of a catalogue.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Saved {
    fetched_at: f64,
    catalog: Catalog,
}

fn saved_key(locale: &str) -> String {
    format!("skillCatalog:{locale}")
}

async fn get_text(path: &str, max: usize) -> Result<String, FetchError> {
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

/// Fetches `locale`'s catalogue (unsafe entries dropped by the core reader).
pub async fn fetch(locale: &str) -> Result<Catalog, FetchError> {
    let text = get_text(
        &format!("/data/skills/{locale}/catalog.json"),
        hearth_core::skill::catalog::MAX_CATALOG_BYTES,
    )
    .await?;
    let read = read_catalog(&text).map_err(|_| FetchError::Unreadable)?;
    // Our own catalogue should drop nothing; if it does, say which and why.
    for (id, refusal) in &read.dropped {
        leptos::logging::warn!("skill catalogue {locale}: {id} dropped: {refusal}");
    }
    Ok(read.catalog)
}

/// Fetches the text of the built-in `id` in `locale`.
pub async fn definition(locale: &str, id: &str) -> Result<String, FetchError> {
    if !hearth_core::skill::normalise::is_valid_id(id) {
        return Err(FetchError::Unreadable);
    }
    get_text(
        &format!("/data/skills/{locale}/{id}.md"),
        MAX_DEFINITION_BYTES,
    )
    .await
}

/// The catalogue of `locale` to show: fetched (and saved), or else the saved copy, or
/// else English, or else the error.
pub async fn load(locale: &str) -> CatalogState {
    let db = Db::open().await.ok();
    let error = match fetch(locale).await {
        Ok(catalog) => {
            if let Some(db) = &db {
                let saved = Saved {
                    fetched_at: crate::browser::now(),
                    catalog: catalog.clone(),
                };
                let _ = db.put_json(SETTINGS, &saved_key(locale), &saved).await;
            }
            return CatalogState::Fresh(catalog);
        }
        Err(error) => error,
    };
    if let Some(db) = &db
        && let Ok(Some(saved)) = db.get_json::<Saved>(SETTINGS, &saved_key(locale)).await
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
        && let Ok(catalog) = fetch("en").await
    {
        return CatalogState::Fallback { catalog, error };
    }
    CatalogState::Failed(error)
}
