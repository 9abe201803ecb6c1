//! The user's skills (`hearth_core::skill`): the library record (installed skills, the
//! active set, auto-selection) kept as one document in the settings store, read the first
//! time anything needs it (Settings › Skills, or a turn) so the first screen never pays
//! for it (`Skills` is a zero-sized handle on one page-wide signal, so nothing is built
//! at start either), and the built-in catalogue ([`catalog`]). Every change is made by the core
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

thread_local! {
    /// The library, once read (`None` until then): created by the first chunk that asks,
    /// owned by no component (it lives as long as the page), so the first screen builds
    /// nothing for skills.
    static LIBRARY: ArcRwSignal<Option<SkillLibrary>> = ArcRwSignal::new(None);
    /// The channel other tabs' changes arrive on, once listened to.
    static LISTENING: std::cell::RefCell<Option<web_sys::BroadcastChannel>> =
        const { std::cell::RefCell::new(None) };
}

/// The skills: a handle on the page's one library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Skills;

impl Skills {
    /// The library, once read (`None` until then); reading it in a view tracks it.
    pub fn library(&self) -> ArcRwSignal<Option<SkillLibrary>> {
        LIBRARY.with(Clone::clone)
    }

    /// The library, read from storage the first time (no record is an empty library;
    /// anything in it that breaks a rule is dropped). A record that cannot be read is an
    /// error, never an empty library: a change written over it would lose every skill.
    pub async fn ensure_loaded(&self) -> Result<SkillLibrary, SkillsError> {
        if let Some(library) = self.library().get_untracked() {
            return Ok(library);
        }
        self.listen();
        self.reload().await
    }

    async fn reload(&self) -> Result<SkillLibrary, SkillsError> {
        let unreadable = |e: crate::storage::StorageError| SkillsError::Unreadable(e.to_string());
        let stored = Db::open()
            .await
            .map_err(unreadable)?
            .get_json::<SkillLibrary>(SETTINGS, DOCUMENT)
            .await
            .map_err(unreadable)?;
        let (library, _) = stored.unwrap_or_default().repaired();
        self.library().set(Some(library.clone()));
        Ok(library)
    }

    fn listen(&self) {
        if LISTENING.with(|c| c.borrow().is_some()) {
            return;
        }
        let Ok(channel) = web_sys::BroadcastChannel::new(CHANNEL_NAME) else {
            return;
        };
        let skills = *self;
        // Lives as long as the page, like the store.
        gloo_events::EventListener::new(&channel, "message", move |_| {
            leptos::task::spawn_local(async move {
                // Unreadable now: the library shown stays as it was, and the next change
                // reads (and refuses) again.
                let _ = skills.reload().await;
            });
        })
        .forget();
        LISTENING.with(|c| *c.borrow_mut() = Some(channel));
    }

    /// Applies `change` to a copy of the library, stores it, then shows it; what
    /// `change` answered.
    pub async fn change<T>(
        &self,
        change: impl FnOnce(&mut SkillLibrary) -> Result<T, LibraryError>,
    ) -> Result<T, SkillsError> {
        let mut next = self.ensure_loaded().await?;
        let answer = change(&mut next)?;
        let db = Db::open()
            .await
            .map_err(|e| SkillsError::Storage(e.to_string()))?;
        db.put_json(SETTINGS, DOCUMENT, &next)
            .await
            .map_err(|e| SkillsError::Storage(e.to_string()))?;
        self.library().set(Some(next));
        LISTENING.with(|c| {
            if let Some(channel) = c.borrow().as_ref() {
                let _ = channel.post_message(&wasm_bindgen::JsValue::from_str("changed"));
            }
        });
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

/// The app's skills.
pub fn use_skills() -> Skills {
    Skills
}
