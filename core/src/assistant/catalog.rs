//! The built-in assistant catalogues: one `assistants-v1` document per locale
//! (`public/data/assistants/<locale>.json`), each entry a whole assistant (they are
//! short). A catalogue is outside input: it is read with a size bound, and an entry that
//! breaks a rule of [`super::checked`] (or repeats an id) is dropped and counted, never
//! shown.

use serde::{Deserialize, Serialize};

use super::{Assistant, repaired};

/// The schema every catalogue declares.
pub const SCHEMA_VERSION: &str = "assistants-v1";
/// The largest catalogue read, in bytes.
pub const MAX_CATALOG_BYTES: usize = 512 * 1024;
/// The most entries a catalogue may hold.
pub const MAX_CATALOG_ASSISTANTS: usize = 200;

/// A catalogue document.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Catalog {
    /// `assistants-v1`.
    pub schema_version: String,
    /// The locale its text is written in.
    pub locale: String,
    /// Its assistants, in the order shown.
    pub assistants: Vec<Assistant>,
}

/// A catalogue as read: the entries kept, and the ids of those dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadCatalog {
    /// The catalogue with only acceptable entries, each marked built in.
    pub catalog: Catalog,
    /// The ids of the entries dropped.
    pub dropped: Vec<String>,
}

/// Why a catalogue could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// Over [`MAX_CATALOG_BYTES`].
    #[error("the assistant catalogue is larger than {MAX_CATALOG_BYTES} bytes")]
    TooLarge,
    /// Not JSON of the expected shape.
    #[error("the assistant catalogue is not valid: {0}")]
    Malformed(String),
    /// Another schema.
    #[error("the assistant catalogue has schema {0:?}, not {SCHEMA_VERSION}")]
    Schema(String),
    /// Over [`MAX_CATALOG_ASSISTANTS`] entries.
    #[error("the assistant catalogue lists more than {MAX_CATALOG_ASSISTANTS} assistants")]
    TooMany,
}

/// Reads a catalogue document. Entries that break a rule, and any entry whose id was
/// already listed, are dropped and reported; the rest are marked built in and carry no
/// model (a catalogue cannot know the user's providers).
pub fn read_catalog(text: &str) -> Result<ReadCatalog, CatalogError> {
    if text.len() > MAX_CATALOG_BYTES {
        return Err(CatalogError::TooLarge);
    }
    let mut catalog: Catalog = serde_json::from_str(text)
        .map_err(|e| CatalogError::Malformed(crate::api::redact_parse_error(&e.to_string())))?;
    if catalog.schema_version != SCHEMA_VERSION {
        return Err(CatalogError::Schema(catalog.schema_version));
    }
    if catalog.assistants.len() > MAX_CATALOG_ASSISTANTS {
        return Err(CatalogError::TooMany);
    }
    let mut seen = std::collections::HashSet::new();
    let mut dropped = Vec::new();
    let mut kept = Vec::with_capacity(catalog.assistants.len());
    for entry in std::mem::take(&mut catalog.assistants) {
        let id = entry.id.clone();
        match repaired(Assistant {
            builtin: true,
            model: None,
            ..entry
        }) {
            Some(assistant) if seen.insert(assistant.id.clone()) => kept.push(assistant),
            _ => dropped.push(id),
        }
    }
    catalog.assistants = kept;
    Ok(ReadCatalog { catalog, dropped })
}
