//! Translation: the catalogs (`app/locales/<tag>.json`, compiled in), the reactive
//! current locale, and `{placeholder}` interpolation.
//!
//! The user's choice is kept in `localStorage` (`hearth.locale`); without one, the
//! browser's language list picks the locale ([`Locale::negotiate`]). A key missing from a
//! catalog falls back to English at run time, but the tests below fail on it first.

pub mod errors;
mod keys;

use std::collections::HashMap;
use std::sync::OnceLock;

use hearth_core::locale::Locale;
use leptos::prelude::*;

pub use keys::Key;

use crate::browser;

const STORAGE_KEY: &str = "hearth.locale";

thread_local! {
    /// The app's [`I18n`], for text made outside a view (see [`message`]).
    static IN_EFFECT: std::cell::Cell<Option<I18n>> = const { std::cell::Cell::new(None) };
}

/// The locale in effect, untracked, for text made outside a view: the app's once
/// [`I18n::from_browser`] has run, English before (and in native tests).
pub fn locale_in_effect() -> Locale {
    IN_EFFECT
        .with(std::cell::Cell::get)
        .map_or(Locale::En, |i18n| i18n.locale_untracked())
}

/// `key` in the locale in effect with its placeholders filled, untracked: how an error the
/// user may see words its `Display`, so a toast or a status line that shows it is in the
/// user's language.
pub fn message(key: Key, values: &[(&str, &str)]) -> String {
    interpolate(&translate(locale_in_effect(), key), values)
}

/// The raw catalog files, by locale.
pub(crate) fn catalog_source(locale: Locale) -> &'static str {
    match locale {
        Locale::En => include_str!("../../locales/en.json"),
        Locale::ZhCn => include_str!("../../locales/zh-CN.json"),
        Locale::Ja => include_str!("../../locales/ja.json"),
    }
}

/// One locale's strings by key id.
pub(crate) type Catalog = HashMap<String, String>;

fn catalogs() -> &'static [Catalog; 3] {
    static CATALOGS: OnceLock<[Catalog; 3]> = OnceLock::new();
    CATALOGS.get_or_init(|| Locale::ALL.map(|l| parse_catalog(catalog_source(l))))
}

fn parse_catalog(source: &str) -> Catalog {
    serde_json::from_str(source).unwrap_or_default()
}

fn catalog(locale: Locale) -> &'static Catalog {
    let index = Locale::ALL.iter().position(|l| *l == locale).unwrap_or(0);
    &catalogs()[index]
}

/// Looks `key` up in `locale`, falling back to English, then to the key id.
pub fn translate(locale: Locale, key: Key) -> String {
    catalog(locale)
        .get(key.id())
        .or_else(|| catalog(Locale::En).get(key.id()))
        .cloned()
        .unwrap_or_else(|| key.id().to_string())
}

/// Replaces each `{name}` in `template` with its value.
pub fn interpolate(template: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .fold(template.to_string(), |text, (name, value)| {
            text.replace(&format!("{{{name}}}"), value)
        })
}

/// The reactive locale, provided as context by the app root.
#[derive(Clone, Copy)]
pub struct I18n {
    /// The user's explicit choice; `None` follows the browser.
    pub choice: RwSignal<Option<Locale>>,
    browser: Locale,
}

impl I18n {
    /// Reads the stored choice and the browser's languages.
    pub fn from_browser() -> Self {
        let stored = browser::local_storage_get(STORAGE_KEY).and_then(|tag| Locale::from_tag(&tag));
        let languages = browser::navigator_languages();
        let i18n = Self {
            choice: RwSignal::new(stored),
            browser: Locale::negotiate(languages.iter().map(String::as_str)),
        };
        IN_EFFECT.with(|in_effect| in_effect.set(Some(i18n)));
        i18n
    }

    /// The locale in effect, untracked (a disposed choice counts as none).
    fn locale_untracked(&self) -> Locale {
        self.choice
            .try_get_untracked()
            .flatten()
            .unwrap_or(self.browser)
    }

    /// The locale in effect (tracked).
    pub fn locale(&self) -> Locale {
        self.choice.get().unwrap_or(self.browser)
    }

    /// Sets or clears the user's choice and remembers it.
    pub fn choose(&self, choice: Option<Locale>) {
        match choice {
            Some(locale) => browser::local_storage_set(STORAGE_KEY, locale.tag()),
            None => browser::local_storage_remove(STORAGE_KEY),
        }
        self.choice.set(choice);
    }

    /// The string for `key` in the current locale (tracked).
    pub fn t(&self, key: Key) -> String {
        translate(self.locale(), key)
    }

    /// The string for `key` with its placeholders filled (tracked).
    pub fn t_with(&self, key: Key, values: &[(&str, &str)]) -> String {
        interpolate(&self.t(key), values)
    }
}

/// The app's [`I18n`].
pub fn use_i18n() -> I18n {
    expect_context::<I18n>()
}

/// A reactive closure yielding `key` in the current locale, for use in views.
pub fn tr(key: Key) -> impl Fn() -> String + Copy + Send + Sync + 'static {
    let i18n = use_i18n();
    move || i18n.t(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn placeholders(text: &str) -> BTreeSet<String> {
        text.split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_string()))
            .collect()
    }

    #[test]
    fn every_catalog_is_valid_json_object_of_strings() {
        for locale in Locale::ALL {
            let parsed: Result<HashMap<String, String>, _> =
                serde_json::from_str(catalog_source(locale));
            assert!(parsed.is_ok(), "{}: {:?}", locale.tag(), parsed.err());
        }
    }

    #[test]
    fn every_key_is_translated_in_every_locale() {
        for locale in Locale::ALL {
            let entries = catalog(locale);
            let missing: Vec<&str> = Key::ALL
                .iter()
                .map(|k| k.id())
                .filter(|id| entries.get(*id).is_none_or(|text| text.trim().is_empty()))
                .collect();
            assert!(
                missing.is_empty(),
                "{} is missing translations for {missing:?}",
                locale.tag()
            );
        }
    }

    #[test]
    fn no_catalog_has_keys_the_app_does_not_use() {
        let known: BTreeSet<&str> = Key::ALL.iter().map(|k| k.id()).collect();
        for locale in Locale::ALL {
            let unknown: Vec<&String> = catalog(locale)
                .keys()
                .filter(|id| !known.contains(id.as_str()))
                .collect();
            assert!(
                unknown.is_empty(),
                "{} has unknown keys {unknown:?}",
                locale.tag()
            );
        }
    }

    #[test]
    fn placeholders_match_english_in_every_locale() {
        for key in Key::ALL {
            let english = placeholders(&translate(Locale::En, *key));
            for locale in Locale::ALL {
                let translated = placeholders(&translate(locale, *key));
                assert_eq!(
                    translated,
                    english,
                    "{} in {} has placeholders {translated:?}, English has {english:?}",
                    key.id(),
                    locale.tag()
                );
            }
        }
    }

    #[test]
    fn key_ids_are_unique() {
        let ids: BTreeSet<&str> = Key::ALL.iter().map(|k| k.id()).collect();
        assert_eq!(ids.len(), Key::ALL.len());
    }

    #[test]
    fn translations_differ_from_english_where_expected() {
        assert_eq!(translate(Locale::ZhCn, Key::SidebarNewChat), "新对话");
        assert_eq!(translate(Locale::Ja, Key::SidebarNewChat), "新しいチャット");
        assert_eq!(translate(Locale::En, Key::SidebarNewChat), "New chat");
    }

    #[test]
    fn interpolation_fills_every_occurrence() {
        assert_eq!(
            interpolate("{a} and {b}, {a}", &[("a", "x"), ("b", "y")]),
            "x and y, x"
        );
        assert_eq!(
            interpolate("no placeholders", &[("a", "x")]),
            "no placeholders"
        );
    }
}
