//! The locales Hearth ships, and how a browser's preferred languages map onto them.
//!
//! The catalogs themselves live with the app (`app/locales/*.json`); this module only
//! knows which locales exist and how to choose one, so the rule is tested natively.

use serde::{Deserialize, Serialize};

/// A locale with a complete translation catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Locale {
    /// English, the fallback for every other language.
    #[default]
    #[serde(rename = "en")]
    En,
    /// Simplified Chinese.
    #[serde(rename = "zh-CN")]
    ZhCn,
    /// Japanese.
    #[serde(rename = "ja")]
    Ja,
}

impl Locale {
    /// Every shipped locale, English first.
    pub const ALL: [Locale; 3] = [Locale::En, Locale::ZhCn, Locale::Ja];

    /// The BCP 47 tag, as used for `<html lang>` and the catalog file name.
    pub fn tag(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::ZhCn => "zh-CN",
            Self::Ja => "ja",
        }
    }

    /// The locale's own name for itself, shown in the language picker.
    pub fn native_name(self) -> &'static str {
        match self {
            Self::En => "English",
            Self::ZhCn => "简体中文",
            Self::Ja => "日本語",
        }
    }

    /// The shipped locale that serves a BCP 47 tag, if any. Matching is on the primary
    /// language: every Chinese variant gets the Simplified catalog (the only Chinese one).
    pub fn from_tag(tag: &str) -> Option<Self> {
        let primary = tag
            .trim()
            .split(['-', '_'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Self::En),
            "zh" => Some(Self::ZhCn),
            "ja" => Some(Self::Ja),
            _ => None,
        }
    }

    /// Picks the first of the user's preferred languages (in order) that Hearth ships,
    /// falling back to English.
    pub fn negotiate<'a>(preferred: impl IntoIterator<Item = &'a str>) -> Self {
        preferred
            .into_iter()
            .find_map(Self::from_tag)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_takes_the_first_supported_language() {
        assert_eq!(Locale::negotiate(["fr-FR", "ja-JP", "en"]), Locale::Ja);
        assert_eq!(Locale::negotiate(["zh-Hans-CN"]), Locale::ZhCn);
        assert_eq!(Locale::negotiate(["zh_TW"]), Locale::ZhCn);
        assert_eq!(Locale::negotiate(["EN-gb", "ja"]), Locale::En);
    }

    #[test]
    fn negotiation_falls_back_to_english() {
        assert_eq!(Locale::negotiate(["de", "fr"]), Locale::En);
        assert_eq!(Locale::negotiate([]), Locale::En);
        assert_eq!(Locale::negotiate([""]), Locale::En);
    }

    #[test]
    fn tags_round_trip() {
        for locale in Locale::ALL {
            assert_eq!(Locale::from_tag(locale.tag()), Some(locale));
            let json = serde_json::to_string(&locale).unwrap();
            assert_eq!(json, format!("\"{}\"", locale.tag()));
        }
    }
}
