//! The user's prompt templates (`hearth_core::template`), kept as one document of the
//! settings store like the skills: read the first time something needs it (Settings ›
//! Templates, or the composer's `/` menu), never at start; every change made by the core
//! library on a copy (typed errors, nothing half-done), stored, and only then shown;
//! other tabs hear of it on the `hearth-templates` channel.

use hearth_core::template::library::{
    LibraryError, PromptTemplate, TemplateDraft, TemplateLibrary,
};
use leptos::prelude::*;

use crate::storage::document::{DocumentCell, DocumentError, SettingsDocument};

/// Why a change of the templates did not happen (nothing changed).
#[derive(Debug, Clone, PartialEq)]
pub enum TemplatesError {
    /// The library refused it (a rule, a bound).
    Library(LibraryError),
    /// Storage refused the write.
    Storage(String),
    /// The stored record could not be read: nothing is applied or written over it.
    Unreadable(String),
}

impl From<DocumentError<LibraryError>> for TemplatesError {
    fn from(error: DocumentError<LibraryError>) -> Self {
        match error {
            DocumentError::Refused(error) => Self::Library(error),
            DocumentError::Storage(reason) => Self::Storage(reason),
            DocumentError::Unreadable(reason) => Self::Unreadable(reason),
        }
    }
}

thread_local! {
    /// The library, once read; owned by no component.
    static LIBRARY: DocumentCell<TemplateLibrary> = DocumentCell::default();
}

/// The library's document: a stored record that breaks a rule loses what breaks it.
static DOCUMENT: SettingsDocument<TemplateLibrary> = SettingsDocument {
    key: "templates",
    channel: "hearth-templates",
    cell: &LIBRARY,
    repair: |library| library.repaired().0,
};

/// The templates: a handle on the page's one library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Templates;

impl Templates {
    /// The library, once read (`None` until then); reading it in a view tracks it.
    pub fn library(&self) -> ArcRwSignal<Option<TemplateLibrary>> {
        DOCUMENT.value()
    }

    /// The library, read from storage the first time (no record is an empty library).
    pub async fn ensure_loaded(&self) -> Result<TemplateLibrary, TemplatesError> {
        Ok(DOCUMENT.ensure_loaded::<LibraryError>().await?)
    }

    /// Applies `change` to a copy of the library, stores it, then shows it.
    pub async fn change<T>(
        &self,
        change: impl FnOnce(&mut TemplateLibrary) -> Result<T, LibraryError>,
    ) -> Result<T, TemplatesError> {
        Ok(DOCUMENT.change(change).await?)
    }

    /// Saves the editor's template: a change of `id`, or a new one; its id.
    pub async fn save(
        &self,
        id: Option<String>,
        draft: TemplateDraft,
    ) -> Result<String, TemplatesError> {
        let now = crate::browser::now();
        self.change(move |library| match id {
            Some(id) => library.update(&id, draft, now).map(|()| id),
            None => {
                let id = crate::browser::new_id();
                library.add(id.clone(), draft, now).map(|()| id)
            }
        })
        .await
    }

    /// Removes the template `id`; it, for an Undo.
    pub async fn remove(&self, id: String) -> Result<PromptTemplate, TemplatesError> {
        self.change(move |library| library.remove(&id)).await
    }
}

/// The app's templates.
pub fn use_templates() -> Templates {
    Templates
}
