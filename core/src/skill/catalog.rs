//! The built-in skill catalogues: one `skills-v1` document per locale
//! (`public/data/skills/<locale>/catalog.json`) holding every skill's metadata; the text
//! of a definition lives beside it (`<id>.md`) and is fetched only when the user installs
//! or looks at that skill. A catalogue is outside input: it is read with a size bound,
//! and an entry that fails [`super::normalise`] (a skill asking for scripts, tools,
//! network or files) is dropped and counted, never shown.

use serde::{Deserialize, Serialize};

pub use super::meta::{Activation, Category, RiskLevel, SkillMeta, SkillRisk};
use super::normalise::{self, Refusal};

/// The schema every catalogue declares.
pub const SCHEMA_VERSION: &str = "skills-v1";
/// The largest catalogue read, in bytes.
pub const MAX_CATALOG_BYTES: usize = 1024 * 1024;
/// The most entries a catalogue may hold.
pub const MAX_CATALOG_SKILLS: usize = 1_000;

/// A catalogue document.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Catalog {
    /// `skills-v1`.
    pub schema_version: String,
    /// The locale its text is written in.
    pub locale: String,
    /// When it was written (a date).
    pub generated_at: String,
    /// Its skills, in the order shown.
    pub skills: Vec<SkillMeta>,
}

/// A catalogue as read: the entries kept, and those dropped with the rule they broke.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadCatalog {
    /// The catalogue with only acceptable entries.
    pub catalog: Catalog,
    /// `(id, why)` of every entry dropped.
    pub dropped: Vec<(String, Refusal)>,
}

/// Why a catalogue could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// Over [`MAX_CATALOG_BYTES`].
    #[error("the skill catalogue is larger than {MAX_CATALOG_BYTES} bytes")]
    TooLarge,
    /// Not JSON of the expected shape.
    #[error("the skill catalogue is not valid: {0}")]
    Malformed(String),
    /// Another schema.
    #[error("the skill catalogue has schema {0:?}, not {SCHEMA_VERSION}")]
    Schema(String),
    /// Over [`MAX_CATALOG_SKILLS`] entries.
    #[error("the skill catalogue lists more than {MAX_CATALOG_SKILLS} skills")]
    TooManySkills,
}

/// Reads a catalogue document. Entries that fail normalisation, and any entry whose id
/// was already listed, are dropped and reported.
pub fn read_catalog(text: &str) -> Result<ReadCatalog, CatalogError> {
    if text.len() > MAX_CATALOG_BYTES {
        return Err(CatalogError::TooLarge);
    }
    let mut catalog: Catalog = serde_json::from_str(text)
        .map_err(|e| CatalogError::Malformed(crate::api::redact_parse_error(&e.to_string())))?;
    if catalog.schema_version != SCHEMA_VERSION {
        return Err(CatalogError::Schema(catalog.schema_version));
    }
    if catalog.skills.len() > MAX_CATALOG_SKILLS {
        return Err(CatalogError::TooManySkills);
    }
    let mut dropped = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut kept = Vec::with_capacity(catalog.skills.len());
    for entry in std::mem::take(&mut catalog.skills) {
        match normalise::check_meta(entry.clone()) {
            Ok(meta) if seen.insert(meta.id.clone()) => kept.push(meta),
            Ok(meta) => dropped.push((meta.id, Refusal::DuplicateId)),
            Err(refusal) => dropped.push((entry.id, refusal)),
        }
    }
    catalog.skills = kept;
    Ok(ReadCatalog { catalog, dropped })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> serde_json::Value {
        serde_json::json!({
            "id": id, "title": "T", "description": "D", "category": "writing",
            "tags": ["a"], "risk": {"level": "low", "textOnly": true},
            "activation": {"useWhen": ["u"], "avoidWhen": [], "exampleQueries": []}
        })
    }

    fn doc(skills: Vec<serde_json::Value>) -> String {
        serde_json::json!({"schemaVersion": "skills-v1", "locale": "en", "skills": skills})
            .to_string()
    }

    #[test]
    fn unsafe_and_repeated_entries_are_dropped_with_their_rule() {
        let mut scripted = entry("needs-script");
        scripted["risk"]["scriptRequired"] = true.into();
        let mut online = entry("needs-network");
        online["risk"]["networkRequired"] = true.into();
        let read = read_catalog(&doc(vec![
            entry("proofread"),
            scripted,
            online,
            entry("proofread"),
            entry("Bad Id"),
        ]))
        .unwrap();
        let ids: Vec<_> = read.catalog.skills.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["proofread"]);
        assert_eq!(
            read.dropped,
            vec![
                ("needs-script".into(), Refusal::ScriptRequired),
                ("needs-network".into(), Refusal::NetworkRequired),
                ("proofread".into(), Refusal::DuplicateId),
                ("Bad Id".into(), Refusal::BadId),
            ]
        );
    }

    #[test]
    fn a_catalogue_of_another_schema_or_size_is_refused() {
        let other = serde_json::json!({"schemaVersion": "skills-v2", "skills": []}).to_string();
        assert_eq!(
            read_catalog(&other),
            Err(CatalogError::Schema("skills-v2".into()))
        );
        assert!(matches!(
            read_catalog("[1,"),
            Err(CatalogError::Malformed(_))
        ));
        let huge = " ".repeat(MAX_CATALOG_BYTES + 1);
        assert_eq!(read_catalog(&huge), Err(CatalogError::TooLarge));
        let many = doc((0..=MAX_CATALOG_SKILLS)
            .map(|i| entry(&format!("s{i}")))
            .collect());
        assert_eq!(read_catalog(&many), Err(CatalogError::TooManySkills));
    }

    #[test]
    fn unknown_categories_read_as_other() {
        let mut e = entry("x");
        e["category"] = "astrology".into();
        let read = read_catalog(&doc(vec![e])).unwrap();
        assert_eq!(read.catalog.skills[0].category, Category::Other);
        assert_eq!(Category::from_code(" Coding "), Category::Coding);
    }
}
