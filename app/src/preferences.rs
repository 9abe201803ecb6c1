//! The user's chat preferences (default and title models, system prompt, per-model
//! metadata) as one IndexedDB record in the settings store, loaded once and shared
//! through context. Every save is validated by `hearth_core::preferences` first, and the
//! signal changes only after the write succeeded, so the screen never shows a setting
//! that was not stored. Other tabs hear of a save on the `hearth-preferences` channel
//! and reload the record.

use hearth_core::preferences::{Preferences, PreferencesError};
use leptos::prelude::*;

use crate::storage::{Db, SETTINGS};

/// The record's key in the settings store.
const DOCUMENT: &str = "preferences";
/// The channel other tabs hear saves on.
const CHANNEL: &str = "hearth-preferences";

/// Why a save failed.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveError {
    /// The preferences are invalid; nothing was written.
    Invalid(PreferencesError),
    /// Storage refused the write; nothing changed.
    Storage(String),
}

impl std::fmt::Display for SaveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Invalid(error) => error.fmt(f),
            Self::Storage(error) => f.write_str(error),
        }
    }
}

/// The stored preferences (the defaults when none are stored; `None` when they cannot be
/// read, or without a database, which only fetches this chunk). Lazily loaded: the
/// preferences' deserialiser is not needed to draw the first screen.
#[lazy]
async fn stored(db: Option<Db>) -> Option<Preferences> {
    let stored = db?.get_json::<Preferences>(SETTINGS, DOCUMENT).await.ok()?;
    Some(stored.unwrap_or_default())
}

/// The preferences, shared through context.
#[derive(Clone, Copy)]
pub struct Prefs {
    /// The stored preferences (defaults until loaded).
    pub value: RwSignal<Preferences>,
    /// Whether the stored record has been read (or cannot be).
    loaded: RwSignal<bool>,
    db: StoredValue<Option<Db>, LocalStorage>,
    channel: StoredValue<Option<web_sys::BroadcastChannel>, LocalStorage>,
}

impl Prefs {
    /// Starts loading the record and listening to other tabs.
    pub fn load() -> Self {
        let prefs = Self {
            value: RwSignal::new(Preferences::default()),
            loaded: RwSignal::new(false),
            db: StoredValue::new_local(None),
            channel: StoredValue::new_local(None),
        };
        leptos::task::spawn_local(async move {
            // The record's reader is a lazily loaded chunk: fetched while the database opens.
            if let (Ok(db), _) = futures::join!(Db::open(), stored(None)) {
                prefs.db.set_value(Some(db));
                prefs.reload().await;
            }
            prefs.loaded.set(true);
        });
        if let Ok(channel) = web_sys::BroadcastChannel::new(CHANNEL) {
            // The app lives as long as the page: the listener is never removed.
            gloo_events::EventListener::new(&channel, "message", move |_| {
                leptos::task::spawn_local(async move { prefs.reload().await });
            })
            .forget();
            prefs.channel.set_value(Some(channel));
        }
        prefs
    }

    /// Whether the stored preferences have been read (or cannot be), tracked: until
    /// then the default model is not known.
    pub fn loaded(&self) -> bool {
        self.loaded.get()
    }

    async fn reload(&self) {
        let Some(db) = self.db.get_value() else {
            return;
        };
        if let Some(stored) = stored(Some(db)).await {
            self.value.set(stored);
        }
    }

    /// Validates and stores `next`; the signal changes only once the write succeeded.
    pub async fn save(&self, next: Preferences) -> Result<(), SaveError> {
        next.validate().map_err(SaveError::Invalid)?;
        let db = match self.db.get_value() {
            Some(db) => db,
            None => Db::open()
                .await
                .map_err(|e| SaveError::Storage(e.to_string()))?,
        };
        db.put_json(SETTINGS, DOCUMENT, &next)
            .await
            .map_err(|e| SaveError::Storage(e.to_string()))?;
        self.value.set(next);
        if let Some(channel) = self.channel.get_value() {
            let _ = channel.post_message(&wasm_bindgen::JsValue::from_str("saved"));
        }
        Ok(())
    }

    /// Changes the stored preferences with `change` and saves them.
    pub async fn update(&self, change: impl FnOnce(&mut Preferences)) -> Result<(), SaveError> {
        let mut next = self.value.get_untracked();
        change(&mut next);
        self.save(next).await
    }
}

/// The app's preferences.
pub fn use_prefs() -> Prefs {
    expect_context::<Prefs>()
}
