//! The user's skills (`hearth_core::skill`): the library record (installed skills, the
//! active set, auto-selection) kept as one document in the settings store, read the first
//! time anything needs it (Settings › Skills, or a turn) so the first screen never pays
//! for it, and the built-in catalogue ([`catalog`]). Every change is made by the core
//! library (bounded, typed errors) on a copy, stored, and only then shown; other tabs
//! hear of it on the `hearth-skills` channel and read the record again.

pub mod catalog;
mod import;

pub use import::ImportOutcome;

use hearth_core::skill::library::{LibraryError, Origin, SkillLibrary};
use hearth_core::skill::skill_md::SkillMdError;
use hearth_core::skill::{SkillMeta, TextSkill};
use leptos::prelude::*;

use crate::storage::{Db, SETTINGS};

/// The library's key in the settings store.
const DOCUMENT: &str = "skills";
/// The channel other tabs hear changes on.
const CHANNEL: &str = "hearth-skills";

/// Why a change of the skills did not happen (nothing changed).
#[derive(Debug, Clone, PartialEq)]
pub enum SkillsError {
    /// The library refused it (a rule, a bound).
    Library(LibraryError),
    /// A `SKILL.md` could not be imported.
    Import(SkillMdError),
    /// A built-in's text could not be fetched.
    Definition(catalog::FetchError),
    /// Storage refused the write.
    Storage(String),
}

impl From<LibraryError> for SkillsError {
    fn from(error: LibraryError) -> Self {
        Self::Library(error)
    }
}

/// The skills, shared through context.
#[derive(Clone, Copy)]
pub struct Skills {
    /// The library, once read (`None` until then).
    pub library: RwSignal<Option<SkillLibrary>>,
    /// The built-in catalogue shown in Settings, and how fresh it is.
    pub catalog: RwSignal<catalog::CatalogState>,
    listening: StoredValue<Option<web_sys::BroadcastChannel>, LocalStorage>,
}

impl Skills {
    /// The store, with nothing read yet.
    pub fn new() -> Self {
        Self {
            library: RwSignal::new(None),
            catalog: RwSignal::new(catalog::CatalogState::Loading),
            listening: StoredValue::new_local(None),
        }
    }

    /// The library, read from storage the first time (a record that cannot be read
    /// counts as empty; anything in it that breaks a rule is dropped).
    pub async fn ensure_loaded(&self) -> SkillLibrary {
        if let Some(library) = self.library.get_untracked() {
            return library;
        }
        self.listen();
        self.reload().await
    }

    async fn reload(&self) -> SkillLibrary {
        let library = read_library().await;
        self.library.set(Some(library.clone()));
        library
    }

    fn listen(&self) {
        if self.listening.with_value(Option::is_some) {
            return;
        }
        let Ok(channel) = web_sys::BroadcastChannel::new(CHANNEL) else {
            return;
        };
        let skills = *self;
        // Lives as long as the page, like the store.
        gloo_events::EventListener::new(&channel, "message", move |_| {
            leptos::task::spawn_local(async move {
                skills.reload().await;
            });
        })
        .forget();
        self.listening.set_value(Some(channel));
    }

    /// Applies `change` to a copy of the library, stores it, then shows it; what
    /// `change` answered.
    pub async fn change<T>(
        &self,
        change: impl FnOnce(&mut SkillLibrary) -> Result<T, LibraryError>,
    ) -> Result<T, SkillsError> {
        let mut next = self.ensure_loaded().await;
        let answer = change(&mut next)?;
        let next = write_library(next).await.map_err(SkillsError::Storage)?;
        self.library.set(Some(next));
        if let Some(channel) = self.listening.get_value() {
            let _ = channel.post_message(&wasm_bindgen::JsValue::from_str("changed"));
        }
        Ok(answer)
    }

    /// Installs the built-in `meta` from `locale`'s catalogue (its text fetched now) and
    /// turns it on when there is room.
    pub async fn install(&self, meta: SkillMeta, locale: &str) -> Result<(), SkillsError> {
        let content = catalog::definition(locale, &meta.id)
            .await
            .map_err(SkillsError::Definition)?;
        let id = meta.id.clone();
        let now = crate::browser::now();
        let locale = locale.to_string();
        self.change(move |library| {
            library.install_builtin(meta, &content, &locale, now)?;
            // Installing is asking for it: on, unless the active set is full.
            let _ = library.set_active(&id, true);
            Ok(())
        })
        .await
    }

    /// Puts an edited built-in back to its catalogue text.
    pub async fn reset(&self, id: &str, locale: &str) -> Result<(), SkillsError> {
        let read = catalog::fetch(locale)
            .await
            .map_err(SkillsError::Definition)?;
        let meta = read
            .skills
            .into_iter()
            .find(|s| s.id == id)
            .ok_or(SkillsError::Library(LibraryError::NotInstalled))?;
        let content = catalog::definition(locale, id)
            .await
            .map_err(SkillsError::Definition)?;
        let now = crate::browser::now();
        self.change(move |library| library.reset_builtin(meta, &content, now))
            .await
    }

    /// Saves the editor's skill: a change of `id`, or a new custom skill; its id.
    pub async fn save(&self, id: Option<String>, skill: TextSkill) -> Result<String, SkillsError> {
        let now = crate::browser::now();
        self.change(move |library| match id {
            Some(id) => library
                .update(&id, skill.meta, &skill.content, now)
                .map(|()| id),
            None => {
                let id = library.add_custom(skill.meta, &skill.content, Origin::Custom, now)?;
                let _ = library.set_active(&id, true);
                Ok(id)
            }
        })
        .await
    }
}

/// The stored library (a record that cannot be read counts as empty; anything in it that
/// breaks a rule is dropped). In a lazily loaded chunk of its own: a turn and Settings
/// both read it, and code two chunks share would otherwise land in the main module
/// (the record's deserialiser and every check of `normalise`).
#[lazy]
async fn read_library() -> SkillLibrary {
    let stored = match Db::open().await {
        Ok(db) => db
            .get_json::<SkillLibrary>(SETTINGS, DOCUMENT)
            .await
            .ok()
            .flatten(),
        Err(_) => None,
    };
    stored.unwrap_or_default().repaired().0
}

/// Stores `library`; it again, once written. Its own chunk, like [`read_library`].
#[lazy]
async fn write_library(library: SkillLibrary) -> Result<SkillLibrary, String> {
    let db = Db::open().await.map_err(|e| e.to_string())?;
    db.put_json(SETTINGS, DOCUMENT, &library)
        .await
        .map_err(|e| e.to_string())?;
    Ok(library)
}

impl Default for Skills {
    fn default() -> Self {
        Self::new()
    }
}

/// The app's skills.
pub fn use_skills() -> Skills {
    expect_context::<Skills>()
}
