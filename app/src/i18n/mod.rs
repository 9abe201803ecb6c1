//! Translation: the catalogs (`app/locales/<tag>.json`), the reactive current locale, and
//! `{placeholder}` interpolation.
//!
//! Only English is compiled in: it is the default and every other locale's fallback,
//! kept as its sentences alone in `Key` order (`app/build.rs`; the ids are in `Key::id`).
//! A fetched catalog is kept in `Key` order too ([`catalog::Sentences`]): only the
//! lazily loaded code that reads one needs the ids, so the first load does not carry
//! them.
//! The sentences only the settings dialog, the composer's command menu, the search
//! palette or the diagrams use are not (`LATER_DIRS` in `app/build.rs`): their chunks fetch `/locales/en.json` before they show ([`load_later_english`]), so
//! the first screen does not carry them. A fetched catalog's entry for such a key has
//! its placeholders checked when it is looked up, against that English.
//! Trunk copies the other catalogs to `dist/locales/<tag>.json` (stable names, so a
//! service worker can cache them), and the app fetches one only when that locale is in
//! effect ([`load`]): a first load pays for one language, not all of them.
//!
//! The user's choice is kept in `localStorage` (`hearth.locale`); without one, the
//! browser's language list picks the locale ([`Locale::negotiate`]).
//! - At start, `public/boot.js` already requested that locale's catalog before the wasm
//!   loaded (`window.__hearthCatalog`); [`crate::start`] waits for it, at most
//!   [`FETCH_TIMEOUT_MS`], before mounting, so a Japanese page never flashes English.
//!   Without it (no answer, too large, unreadable) the app mounts in English and logs a
//!   warning.
//! - A switch in Settings › General fetches first and switches once the catalog is here,
//!   so `<html lang>` and the texts change together; a failed fetch keeps the current
//!   language and says so in a toast.
//! - A fetched catalog is checked against English (`catalog::parse_fetched`, and
//!   `catalog::fits` at lookup for a later sentence): a stale
//!   one, cached by another build, loses its unknown keys and any sentence whose
//!   placeholders changed, and every key it lacks shows in English.
//!
//! The tests below read all three files from the source tree, and fail on a key missing
//! from any locale, an unknown key, or mismatched `{placeholders}`.
//!
//! `errors` and `edge_errors` put a reply's stored failure and a failed call to the edge
//! in the user's language.

mod catalog;
pub mod edge_errors;
pub mod errors;
mod keys;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use hearth_core::locale::Locale;
use leptos::prelude::*;

use catalog::Reference;
pub use catalog::{CatalogError, FETCH_TIMEOUT_MS, MAX_CATALOG_BYTES};
pub use keys::Key;

use crate::browser;
use catalog::{Catalog, Sentences};

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

/// English, compiled in: its sentences in `Key` order, NUL-separated (`app/build.rs`);
/// a later sentence (only the settings dialog or the command menu uses it) is empty here.
const ENGLISH: &str = include_str!(concat!(env!("OUT_DIR"), "/en.values"));

/// The compiled-in English sentence of `key`; `None` for a later one.
fn compiled_english(key: Key) -> Option<&'static str> {
    static SENTENCES: OnceLock<Vec<&'static str>> = OnceLock::new();
    SENTENCES
        .get_or_init(|| ENGLISH.split('\0').collect())
        .get(key as usize)
        .copied()
        .filter(|text| !text.is_empty())
}

/// The English sentence of `key`: compiled in, or from `/locales/en.json` once fetched
/// ([`load_later_english`]).
fn english(key: Key) -> Option<&'static str> {
    compiled_english(key)
        .or_else(|| sentence(fetched(Locale::En), key).filter(|text| !text.is_empty()))
}

/// What a fetched catalog's entry `id` is checked against.
fn reference_of(id: &str) -> Reference<'static> {
    match Key::ALL.iter().find(|key| key.id() == id) {
        None => Reference::Unknown,
        Some(key) => compiled_english(*key).map_or(Reference::Later, Reference::Sentence),
    }
}

/// `key`'s sentence in `sentences`, if they are here and have it.
fn sentence(sentences: Option<&'static Sentences>, key: Key) -> Option<&'static str> {
    sentences?.get(key as usize)?.as_deref()
}

/// `catalog` in `Key` order.
fn in_key_order(mut catalog: Catalog) -> Sentences {
    Key::ALL
        .iter()
        .map(|key| catalog.remove(key.id()))
        .collect()
}

/// The fetched catalogs this page has, by locale (in [`Locale::ALL`] order; English's
/// slot holds the later sentences once fetched). A catalog, once here, stays for the
/// page.
static CATALOGS: [OnceLock<Sentences>; 3] = [const { OnceLock::new() }; 3];

/// The key ids, standing in for the later English sentences when `en.json` could not be
/// fetched (a retry may still bring them).
static IDS: OnceLock<Sentences> = OnceLock::new();

fn slot(locale: Locale) -> &'static OnceLock<Sentences> {
    let index = Locale::ALL.iter().position(|l| *l == locale).unwrap_or(0);
    &CATALOGS[index]
}

/// A fetched catalog, if it has arrived.
#[cfg(not(test))]
fn fetched(locale: Locale) -> Option<&'static Sentences> {
    slot(locale).get()
}

/// Native tests have no network: every shipped file is read from the source tree.
#[cfg(test)]
fn fetched(locale: Locale) -> Option<&'static Sentences> {
    Some(slot(locale).get_or_init(|| in_key_order(tests::shipped(locale))))
}

/// `locale`'s catalog, if it is a fetched one and here.
fn catalog(locale: Locale) -> Option<&'static Sentences> {
    match locale {
        Locale::En => None,
        _ => fetched(locale),
    }
}

/// Whether `locale`'s strings are here (English always is).
pub fn is_loaded(locale: Locale) -> bool {
    locale == Locale::En || catalog(locale).is_some()
}

/// The path of `locale`'s catalog under `dist/`.
pub fn catalog_path(locale: Locale) -> String {
    format!("/locales/{}.json", locale.tag())
}

/// Makes `locale`'s strings available: nothing to do for English or a catalog already
/// here; otherwise fetches `/locales/<tag>.json` (or takes the request `boot.js` started
/// for it), bounded by [`FETCH_TIMEOUT_MS`] and [`MAX_CATALOG_BYTES`], and keeps what
/// survives the check against English.
pub async fn load(locale: Locale) -> Result<(), CatalogError> {
    if is_loaded(locale) {
        return Ok(());
    }
    fetch_and_keep(locale).await
}

/// Fetches, checks and keeps `locale`'s catalog: in its own lazily loaded chunk, which an
/// English page never needs.
#[lazy]
async fn fetch_and_keep(locale: Locale) -> Result<(), CatalogError> {
    let text = fetch::bounded(locale).await?;
    let parsed = catalog::parse_fetched(&text, reference_of)?;
    // A second request for the same locale may have won meanwhile: same file.
    let _ = slot(locale).set(in_key_order(parsed));
    Ok(())
}

/// Logs (as a warning) that `locale` could not be loaded.
pub fn warn_unloaded(locale: Locale, error: &CatalogError) {
    web_sys::console::warn_1(
        &format!(
            "Hearth: the {} translation could not be loaded ({error}); English is shown.",
            locale.tag()
        )
        .into(),
    );
}

/// Whether every English sentence is here (the later ones fetched).
pub fn later_english_here() -> bool {
    fetched(Locale::En).is_some()
}

/// Fetches `/locales/en.json` for the sentences not compiled in, once per page; every
/// translated text is then worded again (the locale signal is notified). What it cannot
/// fetch is logged, and those sentences show as their key ids until a later call
/// brings them.
pub async fn load_later_english() {
    if later_english_here() {
        return;
    }
    match fetch_later_english().await {
        Ok(sentences) => {
            let _ = slot(Locale::En).set(sentences);
        }
        Err((error, ids)) => {
            let _ = IDS.set(ids);
            warn_unloaded(Locale::En, &error);
        }
    }
    IN_EFFECT.with(|in_effect| {
        if let Some(i18n) = in_effect.get() {
            i18n.active.notify();
        }
    });
}

/// The later English sentences, fetched and checked; or why not, with the key ids to
/// show in their place. In a lazily loaded chunk: only it needs the ids.
#[lazy]
async fn fetch_later_english() -> Result<Sentences, (CatalogError, Sentences)> {
    let parsed = fetch::bounded(Locale::En).await.and_then(|text| {
        catalog::parse_fetched(&text, |id| {
            if Key::ALL.iter().any(|key| key.id() == id) {
                Reference::Later
            } else {
                Reference::Unknown
            }
        })
    });
    parsed.map(in_key_order).map_err(|error| {
        let ids = Key::ALL.iter().map(|key| Some(key.id().to_string()));
        (error, ids.collect())
    })
}

/// Whether every English sentence is here, for a view that waits for them: true at once
/// when they are, else once [`load_later_english`] (started now) has settled.
pub fn later_english_ready() -> RwSignal<bool> {
    let ready = RwSignal::new(later_english_here());
    if !ready.get_untracked() {
        leptos::task::spawn_local(async move {
            load_later_english().await;
            let _ = ready.try_set(true);
        });
    }
    ready
}

/// Whether every English sentence is here, for a view shown only while `wanted` holds:
/// [`load_later_english`] starts the first time it does, never before (a first screen
/// that does not show the view fetches nothing).
pub fn later_english_when(wanted: impl Fn() -> bool + 'static) -> RwSignal<bool> {
    let ready = RwSignal::new(later_english_here());
    Effect::new(move |asked: Option<bool>| {
        let asked = asked.unwrap_or(false);
        if asked || !wanted() || ready.get_untracked() {
            return asked;
        }
        leptos::task::spawn_local(async move {
            load_later_english().await;
            let _ = ready.try_set(true);
        });
        true
    });
    ready
}

mod fetch {
    //! The request for a catalog, in the browser.

    use hearth_core::locale::Locale;
    use js_sys::{Array, Promise, Reflect};
    use leptos::prelude::window;
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;

    use super::{CatalogError, FETCH_TIMEOUT_MS};

    /// The global where `boot.js` leaves `{ tag, response }`: the catalog request it
    /// started before the wasm loaded.
    const BOOT_REQUEST: &str = "__hearthCatalog";

    /// The response promise for `locale`: the one `boot.js` started if it is for this
    /// locale (taken once), else a new request.
    fn request(locale: Locale) -> Promise {
        let window = window();
        let key = JsValue::from_str(BOOT_REQUEST);
        if let Ok(started) = Reflect::get(&window, &key)
            && started.is_object()
        {
            let _ = Reflect::delete_property(window.unchecked_ref::<js_sys::Object>(), &key);
            let tag = Reflect::get(&started, &JsValue::from_str("tag")).ok();
            if tag.and_then(|tag| tag.as_string()).as_deref() == Some(locale.tag())
                && let Ok(promise) = Reflect::get(&started, &JsValue::from_str("response"))
                    .and_then(|value| value.dyn_into::<Promise>())
            {
                return promise;
            }
        }
        window.fetch_with_str(&super::catalog_path(locale))
    }

    /// Settles like `promise`, or rejects with `undefined` once `deadline` has.
    async fn before(promise: Promise, deadline: &Promise) -> Result<JsValue, CatalogError> {
        JsFuture::from(Promise::race(&Array::of2(&promise, deadline)))
            .await
            .map_err(|error| {
                if error.is_undefined() {
                    CatalogError::TimedOut
                } else {
                    CatalogError::Unavailable(0)
                }
            })
    }

    /// The catalog's text, or why there is none within [`FETCH_TIMEOUT_MS`] (the
    /// response and its body together).
    pub(super) async fn bounded(locale: Locale) -> Result<String, CatalogError> {
        let deadline = Promise::new(&mut |_, reject| {
            let _ = window()
                .set_timeout_with_callback_and_timeout_and_arguments_0(&reject, FETCH_TIMEOUT_MS);
        });
        let response: web_sys::Response = before(request(locale), &deadline)
            .await?
            .dyn_into()
            .map_err(|_| CatalogError::Unavailable(0))?;
        if !response.ok() {
            return Err(CatalogError::Unavailable(response.status()));
        }
        let body = response.text().map_err(|_| CatalogError::Malformed)?;
        before(body, &deadline)
            .await?
            .as_string()
            .ok_or(CatalogError::Malformed)
    }
}

/// Looks `key` up in `locale`, falling back to English, then to the key id (once the
/// later English could not be fetched; nothing before it has settled). A later
/// sentence's translation stands only once its English confirms the placeholders.
pub fn translate(locale: Locale, key: Key) -> String {
    let english = english(key);
    sentence(catalog(locale), key)
        .filter(|text| {
            compiled_english(key).is_some() || english.is_some_and(|e| catalog::fits(text, e))
        })
        .or(english)
        .or_else(|| sentence(IDS.get(), key))
        .unwrap_or_default()
        .to_string()
}

/// Replaces each `{name}` in `template` with its value.
pub fn interpolate(template: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .fold(template.to_string(), |text, (name, value)| {
            text.replace(&format!("{{{name}}}"), value)
        })
}

/// The stored choice, if any.
fn stored_choice() -> Option<Locale> {
    browser::local_storage_get(STORAGE_KEY).and_then(|tag| Locale::from_tag(&tag))
}

/// Counts switches of language, so only the latest applies when catalogs arrive out of
/// order.
static SWITCHES: AtomicU32 = AtomicU32::new(0);

/// The reactive locale, provided as context by the app root.
#[derive(Clone, Copy)]
pub struct I18n {
    /// The user's explicit choice; `None` follows the browser.
    pub choice: RwSignal<Option<Locale>>,
    browser: Locale,
    /// The locale in effect, always one whose catalog is here (always `Some`: the same
    /// signal type as `choice`, which keeps the wasm smaller).
    active: RwSignal<Option<Locale>>,
}

impl I18n {
    /// The locale a page starts in: the stored choice, else the browser's languages.
    /// [`crate::start`] loads its catalog before mounting.
    pub fn wanted_at_start() -> Locale {
        stored_choice().unwrap_or_else(|| {
            Locale::negotiate(browser::navigator_languages().iter().map(String::as_str))
        })
    }

    /// Reads the stored choice and the browser's languages. A locale whose catalog did
    /// not arrive at start is not in effect: the page is English and the picker shows
    /// English (choosing the stored language again retries); the stored choice is kept
    /// for the next start.
    pub fn from_browser() -> Self {
        let stored = stored_choice();
        let languages = browser::navigator_languages();
        let browser = Locale::negotiate(languages.iter().map(String::as_str));
        let wanted = stored.unwrap_or(browser);
        let active = if is_loaded(wanted) {
            wanted
        } else {
            Locale::En
        };
        let choice = match stored {
            Some(locale) if locale != active => Some(Locale::En),
            other => other,
        };
        let i18n = Self {
            choice: RwSignal::new(choice),
            browser,
            active: RwSignal::new(Some(active)),
        };
        IN_EFFECT.with(|in_effect| in_effect.set(Some(i18n)));
        i18n
    }

    /// The locale in effect, untracked (a disposed signal counts as English).
    fn locale_untracked(&self) -> Locale {
        self.active
            .try_get_untracked()
            .flatten()
            .unwrap_or_default()
    }

    /// The locale in effect (tracked).
    pub fn locale(&self) -> Locale {
        self.active.get().unwrap_or_default()
    }

    /// Sets or clears the user's choice and remembers it, once the chosen locale's
    /// catalog is here (fetched first if need be). A catalog that cannot be fetched
    /// leaves everything as it was and hands `failed` the sentence saying so (the caller
    /// shows it: translation knows nothing of toasts).
    pub fn choose(&self, choice: Option<Locale>, failed: impl FnOnce(String) + 'static) {
        let wanted = choice.unwrap_or(self.browser);
        let switch = SWITCHES.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        if is_loaded(wanted) {
            self.apply(choice, wanted);
            return;
        }
        let this = *self;
        leptos::task::spawn_local(async move {
            let result = load(wanted).await;
            if SWITCHES.load(Ordering::Relaxed) != switch {
                return; // A later choice replaced this one.
            }
            match result {
                Ok(()) => this.apply(choice, wanted),
                Err(error) => {
                    warn_unloaded(wanted, &error);
                    // The picker goes back to the choice in effect.
                    this.choice.notify();
                    failed(this.t_with(
                        Key::SettingsLanguageFailed,
                        &[("language", wanted.native_name())],
                    ));
                }
            }
        });
    }

    fn apply(&self, choice: Option<Locale>, locale: Locale) {
        match choice {
            Some(chosen) => browser::local_storage_set(STORAGE_KEY, chosen.tag()),
            None => browser::local_storage_remove(STORAGE_KEY),
        }
        self.choice.set(choice);
        self.active.set(Some(locale));
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

    /// The shipped file of `locale`, from the source tree.
    fn source(locale: Locale) -> &'static str {
        match locale {
            Locale::En => include_str!("../../locales/en.json"),
            Locale::ZhCn => include_str!("../../locales/zh-CN.json"),
            Locale::Ja => include_str!("../../locales/ja.json"),
        }
    }

    /// The shipped catalog of `locale` as it is, unchecked (so the tests see every flaw).
    pub(super) fn shipped(locale: Locale) -> Catalog {
        serde_json::from_str(source(locale)).unwrap_or_default()
    }

    fn placeholders(text: &str) -> BTreeSet<String> {
        catalog::placeholders(text).map(str::to_string).collect()
    }

    #[test]
    fn a_catalog_kept_in_key_order_is_looked_up_by_position() {
        // The shape of the key-id fallback too: every key's id at its key's place.
        let ids: Catalog = Key::ALL
            .iter()
            .map(|key| (key.id().to_string(), key.id().to_string()))
            .chain([("no.such.key".to_string(), "dropped".to_string())])
            .collect();
        let ordered: &'static Sentences = Box::leak(Box::new(in_key_order(ids)));
        assert_eq!(ordered.len(), Key::ALL.len());
        for key in Key::ALL {
            assert_eq!(sentence(Some(ordered), *key), Some(key.id()), "{key:?}");
        }
        let sparse: &'static Sentences = Box::leak(Box::new(in_key_order(Catalog::from([(
            Key::AppName.id().to_string(),
            "Hearth".to_string(),
        )]))));
        assert_eq!(sentence(Some(sparse), Key::AppName), Some("Hearth"));
        assert_eq!(sentence(Some(sparse), Key::SidebarNewChat), None);
        assert_eq!(sentence(None, Key::AppName), None);
    }

    #[test]
    fn every_catalog_is_valid_json_object_of_strings() {
        for locale in Locale::ALL {
            let parsed: Result<Catalog, _> = serde_json::from_str(source(locale));
            assert!(parsed.is_ok(), "{}: {:?}", locale.tag(), parsed.err());
        }
    }

    #[test]
    fn every_shipped_catalog_passes_the_fetch_check_whole() {
        for locale in Locale::ALL {
            let checked = catalog::parse_fetched(source(locale), reference_of)
                .unwrap_or_else(|error| panic!("{}: {error}", locale.tag()));
            assert_eq!(checked, shipped(locale), "{}", locale.tag());
            assert!(
                source(locale).len() * 4 < MAX_CATALOG_BYTES,
                "{} is close to the size cap",
                locale.tag()
            );
        }
    }

    #[test]
    fn the_compiled_in_english_is_en_json_in_key_order_less_the_later_sentences() {
        let file = shipped(Locale::En);
        assert_eq!(ENGLISH.split('\0').count(), Key::ALL.len());
        for key in Key::ALL {
            let sentence = file.get(key.id()).map(String::as_str);
            assert!(
                compiled_english(*key).is_none() || compiled_english(*key) == sentence,
                "{key:?}"
            );
            // With en.json fetched (the native tests have every file), all are here.
            assert_eq!(english(*key), sentence, "{key:?}");
            assert_eq!(
                reference_of(key.id()),
                compiled_english(*key).map_or(Reference::Later, Reference::Sentence)
            );
        }
        assert_eq!(reference_of("no.such.key"), Reference::Unknown);
        // The first screen's sentences are compiled in; the settings dialog's are later.
        assert!(compiled_english(Key::SidebarNewChat).is_some());
        assert!(compiled_english(Key::ToolRiskDestructive).is_some());
        assert!(compiled_english(Key::SettingsLanguageFailed).is_some());
        // (Named by id: naming it here would count as a use outside the dialog.)
        let providers_tab = Key::ALL.iter().find(|k| k.id() == "settings.tab.providers");
        assert_eq!(providers_tab.and_then(|key| compiled_english(*key)), None);
        assert!(providers_tab.is_some());
    }

    /// Every `Name` of a `Key::Name` in the `.rs` files under `dir`, with their paths.
    fn key_uses(dir: &std::path::Path, uses: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                key_uses(&path, uses);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (at, _) in text.match_indices("Key::") {
                    let name: String = text[at + 5..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    uses.push((name, path.to_string_lossy().replace('\\', "/")));
                }
            }
        }
    }

    #[test]
    fn a_sentence_left_for_later_is_used_only_by_the_views_that_wait_for_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut uses = Vec::new();
        key_uses(&root.join("src"), &mut uses);
        let later: BTreeSet<String> = Key::ALL
            .iter()
            .filter(|key| compiled_english(**key).is_none())
            .map(|key| format!("{key:?}"))
            .collect();
        assert!(later.len() > 100, "only {} later sentences", later.len());
        for (name, path) in uses {
            if later.contains(&name) {
                assert!(
                    path.contains("/src/settings/")
                        || path.contains("/src/diagram/")
                        || path.contains("/src/knowledge/")
                        || path.ends_with("/src/shell/collections.rs")
                        || path.ends_with("/src/conversation/passage.rs")
                        || path.contains("/src/mcp_app/")
                        || path.ends_with("/src/picture.rs")
                        || path.contains("/src/shell/commands/")
                        || path.ends_with("/src/shell/shortcuts_dialog.rs")
                        || path.ends_with("/src/search/palette.rs")
                        || path.contains("/src/web_search/")
                        || path.contains("/src/usage/")
                        || path.contains("/src/voice/")
                        || path.ends_with("/src/shell/search_switch.rs")
                        || path.ends_with("/src/shell/dictation.rs")
                        || path.ends_with("/src/conversation/search_block.rs")
                        || path.ends_with("/src/conversation/question_card.rs")
                        || path.ends_with("/src/conversation/server_question.rs")
                        || path.ends_with("/src/conversation/comparison.rs")
                        || path.ends_with("/src/conversation/merged.rs")
                        || path.ends_with("/src/shell/compare_picker.rs")
                        || path.ends_with("/src/workspaces/switch.rs")
                        || path.ends_with("/src/workspaces/placement.rs")
                        || path.ends_with("/src/workspaces/placement_fallback.rs")
                        || path.ends_with("/src/workspaces/words.rs")
                        || path.ends_with("/src/assistants/words.rs"),
                    "{name} is left for later but {path} uses it"
                );
            }
        }
    }

    #[test]
    fn catalog_paths_are_the_files_trunk_copies() {
        assert_eq!(catalog_path(Locale::Ja), "/locales/ja.json");
        assert_eq!(catalog_path(Locale::ZhCn), "/locales/zh-CN.json");
    }

    #[test]
    fn every_key_is_translated_in_every_locale() {
        for locale in Locale::ALL {
            let entries = shipped(locale);
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
            let entries = shipped(locale);
            let unknown: Vec<&String> = entries
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
