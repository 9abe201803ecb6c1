//! The built-in assistants, served with the app (`/data/assistants/<locale>.json`): the
//! catalogue of the user's language, fetched when Settings › Assistants opens, kept and
//! shown with its state by `crate::catalogue` (a failed request is never an empty list).

use hearth_core::assistant::catalog::{Catalog, MAX_CATALOG_BYTES, read_catalog};

use crate::catalogue::{FetchError, get_text};

/// Where the catalogue on screen came from.
pub type CatalogState = crate::catalogue::CatalogState<Catalog>;

/// Fetches `locale`'s catalogue (entries that break a rule dropped by the core reader).
pub async fn fetch(locale: &str) -> Result<Catalog, FetchError> {
    let text = get_text(
        &format!("/data/assistants/{locale}.json"),
        MAX_CATALOG_BYTES,
    )
    .await?;
    let read = read_catalog(&text).map_err(|_| FetchError::Unreadable)?;
    // Our own catalogue should drop nothing; if it does, say which.
    for id in &read.dropped {
        leptos::logging::warn!("assistant catalogue {locale}: {id} dropped");
    }
    Ok(read.catalog)
}

/// The catalogue of `locale` to show: fetched (and saved), or else the saved copy, or
/// else English, or else the error.
pub async fn load(locale: &str) -> CatalogState {
    crate::catalogue::load(locale, "assistantCatalog", |locale| async move {
        fetch(&locale).await
    })
    .await
}
