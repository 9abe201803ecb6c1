//! The built-in skill catalogues, served with the app (`/data/skills/<locale>/`): the
//! catalogue of the user's language, fetched when Settings › Skills opens (kept and shown
//! with its state by `crate::catalogue`), and a definition's text fetched when a skill is
//! installed.

use hearth_core::skill::catalog::{Catalog, read_catalog};

pub use crate::catalogue::FetchError;
use crate::catalogue::get_text;

/// The largest definition read, in bytes.
const MAX_DEFINITION_BYTES: usize = 128 * 1024;

/// Where the catalogue on screen came from.
pub type CatalogState = crate::catalogue::CatalogState<Catalog>;

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
    crate::catalogue::load(locale, "skillCatalog", |locale| async move {
        fetch(&locale).await
    })
    .await
}
