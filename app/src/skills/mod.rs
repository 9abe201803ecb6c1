//! The user's skills (`hearth_core::skill`): the library record (installed skills, the
//! active set, auto-selection) kept as one document in the settings store, read the first
//! time anything needs it (Settings › Skills, or a turn) so the first screen never pays
//! for it (`Skills` is a zero-sized handle on one page-wide signal, so nothing is built
//! at start either), and the built-in catalogue ([`catalog`]). Every change is made by the core
//! library (bounded, typed errors) on a copy, stored, and only then shown; other tabs
//! hear of it on the `hearth-skills` channel and read the record again
//! (`crate::storage::document`).

pub mod catalog;
mod import;

pub use import::ImportOutcome;

use hearth_core::skill::library::{LibraryError, Origin, SkillLibrary};
use hearth_core::skill::skill_md::SkillMdError;
use hearth_core::skill::{SkillMeta, TextSkill};
use leptos::prelude::*;

use crate::storage::document::{DocumentCell, DocumentError, SettingsDocument};

/// The channel other tabs hear changes on.
const CHANNEL_NAME: &str = "hearth-skills";

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
    /// The stored library could not be read (storage unavailable, or a damaged record):
    /// nothing is applied, and nothing is written over it.
    Unreadable(String),
}

impl From<LibraryError> for SkillsError {
    fn from(error: LibraryError) -> Self {
        Self::Library(error)
    }
}

impl From<DocumentError<LibraryError>> for SkillsError {
    fn from(error: DocumentError<LibraryError>) -> Self {
        match error {
            DocumentError::Refused(error) => Self::Library(error),
            DocumentError::Storage(reason) => Self::Storage(reason),
            DocumentError::Unreadable(reason) => Self::Unreadable(reason),
        }
    }
}

thread_local! {
    /// The library, once read: created by the first chunk that asks, owned by no
    /// component (it lives as long as the page), so the first screen builds nothing for
    /// skills.
    static LIBRARY: DocumentCell<SkillLibrary> = DocumentCell::default();
}

/// The library's document: anything in a stored record that breaks a rule is dropped.
static DOCUMENT: SettingsDocument<SkillLibrary> = SettingsDocument {
    key: "skills",
    channel: CHANNEL_NAME,
    cell: &LIBRARY,
    repair: |library| library.repaired().0,
};

/// The skills: a handle on the page's one library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Skills;

impl Skills {
    /// The library, once read (`None` until then); reading it in a view tracks it.
    pub fn library(&self) -> ArcRwSignal<Option<SkillLibrary>> {
        DOCUMENT.value()
    }

    /// The library, read from storage the first time (no record is an empty library;
    /// anything in it that breaks a rule is dropped). A record that cannot be read is an
    /// error, never an empty library: a change written over it would lose every skill.
    pub async fn ensure_loaded(&self) -> Result<SkillLibrary, SkillsError> {
        Ok(DOCUMENT.ensure_loaded::<LibraryError>().await?)
    }

    /// Applies `change` to a copy of the library, stores it, then shows it; what
    /// `change` answered.
    pub async fn change<T>(
        &self,
        change: impl FnOnce(&mut SkillLibrary) -> Result<T, LibraryError>,
    ) -> Result<T, SkillsError> {
        Ok(DOCUMENT.change(change).await?)
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

/// The app's skills.
pub fn use_skills() -> Skills {
    Skills
}
