//! Reading a catalog that arrived over the network (`/locales/<tag>.json`): bounded, and
//! checked against English, so a stale or damaged file can never show the user a broken
//! string. Pure, so the rules are tested natively.
//!
//! A catalog cached by an older or newer build (the service worker keeps `dist/` under
//! stable names) may lack keys, carry keys this build no longer has, or have a sentence
//! whose `{placeholders}` changed since. Unknown keys are dropped, and so is any entry
//! that is empty or whose placeholders differ from the English sentence's; each dropped
//! or missing key then shows in English.

use std::collections::HashMap;

/// One locale's strings by key id, as a file holds them.
pub(crate) type Catalog = HashMap<String, String>;

/// One locale's strings in `Key` order (`None`: not in the catalog), as kept once
/// fetched and checked: looked up by position, so the first screen's code carries no
/// key ids (only the lazily loaded parsing does).
pub(crate) type Sentences = Vec<Option<String>>;

/// The largest catalog file accepted, in bytes: four times the largest shipped one
/// (Japanese, 70 KB with Settings › Knowledge), so a catalog that grows is seen by
/// `every_shipped_catalog_passes_the_fetch_check_whole` long before it is refused.
pub const MAX_CATALOG_BYTES: usize = 512 * 1024;

/// How long the app waits for a catalog: at start (the boot splash stays meanwhile) and
/// after a switch in Settings.
pub const FETCH_TIMEOUT_MS: i32 = 5_000;

/// Why a fetched catalog was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogError {
    /// No answer, or not a successful one (status 0 when there was no response).
    Unavailable(u16),
    /// No answer within [`FETCH_TIMEOUT_MS`].
    TimedOut,
    /// Larger than [`MAX_CATALOG_BYTES`] (the size seen).
    TooLarge(usize),
    /// Not a JSON object of strings, or nothing in it this build can use.
    Malformed,
}

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unavailable(0) => f.write_str("no response"),
            Self::Unavailable(status) => write!(f, "HTTP {status}"),
            Self::TimedOut => write!(f, "no answer within {FETCH_TIMEOUT_MS} ms"),
            Self::TooLarge(size) => write!(f, "{size} bytes, over {MAX_CATALOG_BYTES}"),
            Self::Malformed => f.write_str("not a usable catalog"),
        }
    }
}

/// The `{name}` placeholders of a sentence, braces included.
pub(crate) fn placeholders(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('{').filter_map(move |(start, _)| {
        text[start..]
            .find('}')
            .map(|end| &text[start..start + end + 1])
    })
}

/// Whether `a` and `b` use the same placeholders (each at least once).
pub(crate) fn same_placeholders(a: &str, b: &str) -> bool {
    placeholders(a).all(|name| b.contains(name)) && placeholders(b).all(|name| a.contains(name))
}

/// What this build knows of a key id in a fetched catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reference<'a> {
    /// Not a key of this build.
    Unknown,
    /// A key whose English is not here yet (a later sentence, `app/build.rs`): its
    /// placeholders are checked when it is looked up ([`fits`]).
    Later,
    /// A key and its English sentence.
    Sentence(&'a str),
}

/// Whether `text` can stand in for the English `reference`: not empty, same placeholders.
pub(crate) fn fits(text: &str, reference: &str) -> bool {
    !text.trim().is_empty() && same_placeholders(text, reference)
}

/// Parses a fetched catalog and keeps the entries that can stand in for this build's
/// English sentence (`reference` by key id): known keys, non-empty, same placeholders
/// (for a later key, not empty; its placeholders wait for its English).
pub(crate) fn parse_fetched<'a>(
    source: &str,
    reference: impl Fn(&str) -> Reference<'a>,
) -> Result<Catalog, CatalogError> {
    if source.len() > MAX_CATALOG_BYTES {
        return Err(CatalogError::TooLarge(source.len()));
    }
    let mut parsed: Catalog = serde_json::from_str(source).map_err(|_| CatalogError::Malformed)?;
    parsed.retain(|id, text| match reference(id) {
        Reference::Unknown => false,
        Reference::Later => !text.trim().is_empty(),
        Reference::Sentence(english) => fits(text, english),
    });
    if parsed.is_empty() {
        return Err(CatalogError::Malformed);
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn english(id: &str) -> Reference<'static> {
        [
            ("a.plain", "New chat"),
            ("a.count", "{count} messages"),
            ("a.two", "{a} and {b}"),
        ]
        .into_iter()
        .find_map(|(key, text)| (key == id).then_some(Reference::Sentence(text)))
        .unwrap_or(if id == "a.later" {
            Reference::Later
        } else {
            Reference::Unknown
        })
    }

    #[test]
    fn a_later_key_is_kept_unless_empty_and_checked_when_looked_up() {
        let parsed = parse_fetched(r#"{"a.later": "{n} 件", "a.plain": "新"}"#, english)
            .expect("a valid catalog");
        assert_eq!(parsed["a.later"], "{n} 件");
        let parsed = parse_fetched(r#"{"a.later": " ", "a.plain": "新"}"#, english).expect("valid");
        assert!(!parsed.contains_key("a.later"));
        assert!(fits("{n} 件", "{n} items"));
        assert!(!fits("{count} 件", "{n} items"));
        assert!(!fits(" ", "items"));
    }

    #[test]
    fn a_current_catalog_is_kept_whole() {
        let parsed = parse_fetched(
            r#"{"a.plain": "新しいチャット", "a.count": "{count} 件", "a.two": "{b}と{a}"}"#,
            english,
        )
        .expect("a valid catalog");
        assert_eq!(parsed.len(), 3);
        assert_eq!(parsed["a.two"], "{b}と{a}");
    }

    #[test]
    fn a_stale_catalog_keeps_only_what_still_fits() {
        // Missing `a.plain`, an old placeholder name, an empty entry, a removed key.
        let parsed = parse_fetched(
            r#"{"a.count": "{n} 件", "a.two": " ", "a.removed": "古い", "a.plain": "新"}"#,
            english,
        )
        .expect("something usable remains");
        assert_eq!(parsed.keys().collect::<Vec<_>>(), vec!["a.plain"]);
    }

    #[test]
    fn nothing_usable_is_refused() {
        for source in [
            "{}",
            r#"{"a.removed": "古い"}"#,
            "[]",
            r#"{"a.plain": 1}"#,
            "<!doctype html><html></html>",
            "",
        ] {
            assert_eq!(
                parse_fetched(source, english),
                Err(CatalogError::Malformed),
                "{source:?}"
            );
        }
    }

    #[test]
    fn an_oversized_file_is_refused_before_parsing() {
        let head = r#"{"a.plain": "新"}"#;
        let at_the_cap = format!("{head}{}", " ".repeat(MAX_CATALOG_BYTES - head.len()));
        assert_eq!(at_the_cap.len(), MAX_CATALOG_BYTES);
        assert!(parse_fetched(&at_the_cap, english).is_ok());
        let over = format!("{at_the_cap} ");
        assert_eq!(
            parse_fetched(&over, english),
            Err(CatalogError::TooLarge(MAX_CATALOG_BYTES + 1))
        );
    }

    #[test]
    fn placeholders_are_the_braced_names() {
        assert_eq!(
            placeholders("{a} and {b}, {a}").collect::<Vec<_>>(),
            vec!["{a}", "{b}", "{a}"]
        );
        assert_eq!(placeholders("none").count(), 0);
        assert!(same_placeholders("{a} and {b}", "{b}, {a}, {a}"));
        assert!(!same_placeholders("{a} and {b}", "{a}"));
        assert!(!same_placeholders("{a}", "{a} {c}"));
        assert!(same_placeholders("none", "なし"));
    }
}
