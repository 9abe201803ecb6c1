//! The user's assistants (`hearth_core::assistant`): their own and a copy of each one
//! used lately, kept as one document of the settings store like the workspaces: read
//! the first time something needs it (Settings › Assistants, a reply in a conversation
//! started with one), never at start; every change made by the core library on a copy
//! (typed errors, nothing half-done), stored, and only then shown; other tabs hear of it
//! on the `hearth-assistants` channel.
//!
//! - `catalog`: the built-in assistants of the user's language, with their state.
//! - `opening`: the assistant a new chat starts with (on the first load: plain strings).
//! - `start`: starting a chat with an assistant.
//! - `words`: a failure in the user's language.

pub mod catalog;
pub mod opening;
pub mod start;
pub mod words;

use hearth_core::assistant::{Assistant, AssistantDraft, AssistantError, AssistantLibrary};
use leptos::prelude::*;

use crate::storage::document::{DocumentCell, DocumentError, SettingsDocument};

/// Why a change of the assistants did not happen (nothing changed).
#[derive(Debug, Clone, PartialEq)]
pub enum AssistantsError {
    /// The library refused it (a rule, a bound).
    Library(AssistantError),
    /// Storage refused the write.
    Storage(String),
    /// The stored record could not be read: nothing is applied or written over it.
    Unreadable(String),
}

impl From<DocumentError<AssistantError>> for AssistantsError {
    fn from(error: DocumentError<AssistantError>) -> Self {
        match error {
            DocumentError::Refused(error) => Self::Library(error),
            DocumentError::Storage(reason) => Self::Storage(reason),
            DocumentError::Unreadable(reason) => Self::Unreadable(reason),
        }
    }
}

thread_local! {
    /// The library, once read; owned by no component.
    static LIBRARY: DocumentCell<AssistantLibrary> = DocumentCell::default();
}

/// The library's document: a stored record that breaks a rule loses what breaks it.
static DOCUMENT: SettingsDocument<AssistantLibrary> = SettingsDocument {
    key: "assistants",
    channel: "hearth-assistants",
    cell: &LIBRARY,
    repair: |library| library.repaired().0,
};

/// What a failure to read or write says beyond its kind (a toast adds it to its
/// sentence).
pub fn reason(error: &AssistantsError) -> String {
    match error {
        AssistantsError::Library(error) => error.to_string(),
        AssistantsError::Storage(reason) | AssistantsError::Unreadable(reason) => reason.clone(),
    }
}

/// The assistants: a handle on the page's one library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Assistants;

impl Assistants {
    /// The library, once read (`None` until then); reading it in a view tracks it.
    pub fn library(&self) -> ArcRwSignal<Option<AssistantLibrary>> {
        DOCUMENT.value()
    }

    /// The library, read from storage the first time (no record is an empty library).
    pub async fn ensure_loaded(&self) -> Result<AssistantLibrary, AssistantsError> {
        Ok(DOCUMENT.ensure_loaded::<AssistantError>().await?)
    }

    /// Applies `change` to a copy of the library, stores it, then shows it.
    pub async fn change<T>(
        &self,
        change: impl FnOnce(&mut AssistantLibrary) -> Result<T, AssistantError>,
    ) -> Result<T, AssistantsError> {
        Ok(DOCUMENT.change(change).await?)
    }

    /// Saves the editor's assistant: a change of `id`, or a new one; its id.
    pub async fn save(
        &self,
        id: Option<String>,
        draft: AssistantDraft,
    ) -> Result<String, AssistantsError> {
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

    /// Removes the user's own assistant `id`; it, for an Undo.
    pub async fn remove(&self, id: String) -> Result<Assistant, AssistantsError> {
        self.change(move |library| library.remove(&id)).await
    }

    /// Notes that `assistant` started a chat (first among the recent ones).
    pub async fn used(&self, assistant: Assistant) -> Result<(), AssistantsError> {
        let now = crate::browser::now();
        self.change(move |library| library.used(&assistant, now))
            .await
    }
}

/// The app's assistants.
pub fn use_assistants() -> Assistants {
    Assistants
}
