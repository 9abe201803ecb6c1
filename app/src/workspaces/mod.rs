//! The user's workspaces (`hearth_core::workspace`), kept as one document of the
//! settings store like the templates: read the first time something needs it (the
//! sidebar's workspace menu, Settings › Workspaces, a reply), never at start; every
//! change made by the core library on a copy (typed errors, nothing half-done), stored,
//! and only then shown; other tabs hear of it on the `hearth-workspaces` channel.
//!
//! - `current`: the workspace the sidebar is in, as a summary in local storage (on the
//!   first load; everything else here is loaded lazily).
//! - `button`: the sidebar's workspace button; `switch`: its menu.
//! - `placement`: a conversation's workspace and its own instructions, as a dialog.
//! - `words`: a workspace's icon, and a failure in the user's language.
//! - `files`: the custody of workspaces' stored files (what a change or a deletion
//!   leaves behind is deleted).

pub mod button;
pub mod current;
pub mod files;
pub mod placement;
mod placement_fallback;
pub mod switch;
pub mod words;

use hearth_core::workspace::files::left_behind;
use hearth_core::workspace::{Workspace, WorkspaceDraft, WorkspaceError, WorkspaceLibrary};
use leptos::prelude::*;

use crate::storage::document::{DocumentCell, DocumentError, SettingsDocument};
pub use current::{CurrentWorkspace, Summary};

/// Why a change of the workspaces did not happen (nothing changed).
#[derive(Debug, Clone, PartialEq)]
pub enum WorkspacesError {
    /// The library refused it (a rule, a bound).
    Library(WorkspaceError),
    /// Storage refused the write.
    Storage(String),
    /// The stored record could not be read: nothing is applied or written over it.
    Unreadable(String),
}

impl From<DocumentError<WorkspaceError>> for WorkspacesError {
    fn from(error: DocumentError<WorkspaceError>) -> Self {
        match error {
            DocumentError::Refused(error) => Self::Library(error),
            DocumentError::Storage(reason) => Self::Storage(reason),
            DocumentError::Unreadable(reason) => Self::Unreadable(reason),
        }
    }
}

thread_local! {
    /// The library, once read; owned by no component.
    static LIBRARY: DocumentCell<WorkspaceLibrary> = DocumentCell::default();
}

/// The library's document: a stored record that breaks a rule loses what breaks it.
static DOCUMENT: SettingsDocument<WorkspaceLibrary> = SettingsDocument {
    key: "workspaces",
    channel: "hearth-workspaces",
    cell: &LIBRARY,
    repair: |library| library.repaired().0,
};

/// What a failure to read or write says beyond its kind (a toast adds it to its
/// sentence).
pub fn reason(error: &WorkspacesError) -> String {
    match error {
        WorkspacesError::Library(error) => error.to_string(),
        WorkspacesError::Storage(reason) | WorkspacesError::Unreadable(reason) => reason.clone(),
    }
}

/// The summary the sidebar keeps of `workspace`.
pub fn summary(workspace: &Workspace) -> Summary {
    Summary {
        id: workspace.id.clone(),
        name: workspace.name.clone(),
        colour: workspace.colour.as_str().to_string(),
        model: workspace.model.clone(),
    }
}

/// The workspaces: a handle on the page's one library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Workspaces;

impl Workspaces {
    /// The library, once read (`None` until then); reading it in a view tracks it.
    pub fn library(&self) -> ArcRwSignal<Option<WorkspaceLibrary>> {
        DOCUMENT.value()
    }

    /// The library, read from storage the first time (no record is an empty library).
    pub async fn ensure_loaded(&self) -> Result<WorkspaceLibrary, WorkspacesError> {
        let library = DOCUMENT.ensure_loaded::<WorkspaceError>().await?;
        files::sweep_once(&library);
        Ok(library)
    }

    /// Applies `change` to a copy of the library, stores it, then shows it; the current
    /// workspace's summary follows (renamed, recoloured, deleted).
    pub async fn change<T>(
        &self,
        current: CurrentWorkspace,
        change: impl FnOnce(&mut WorkspaceLibrary) -> Result<T, WorkspaceError>,
    ) -> Result<T, WorkspacesError> {
        let out = DOCUMENT.change(change).await?;
        if let Some(id) = current.id_untracked() {
            let now = self
                .library()
                .with_untracked(|l| l.as_ref().and_then(|l| l.get(&id)).map(summary));
            current.set(now);
        }
        Ok(out)
    }

    /// Saves the editor's workspace: a change of `id`, or a new one; its id. The stored
    /// files the change no longer refers to are deleted once it is stored.
    pub async fn save(
        &self,
        current: CurrentWorkspace,
        id: Option<String>,
        draft: WorkspaceDraft,
    ) -> Result<String, WorkspacesError> {
        let now = crate::browser::now();
        let (saved_id, before, after) = self
            .change(current, move |library| {
                let before = id
                    .as_deref()
                    .and_then(|id| library.get(id))
                    .map(|w| w.files.clone())
                    .unwrap_or_default();
                let id = match id {
                    Some(id) => library.update(&id, draft, now).map(|()| id)?,
                    None => {
                        let id = crate::browser::new_id();
                        library.add(id.clone(), draft, now).map(|()| id)?
                    }
                };
                let after = library
                    .get(&id)
                    .map(|w| w.files.clone())
                    .unwrap_or_default();
                Ok((id, before, after))
            })
            .await?;
        files::forget(left_behind(&before, &after)).await;
        Ok(saved_id)
    }

    /// Removes the workspace `id` (its conversations stay, in no workspace); it, for an
    /// Undo. Its stored files go once the Undo has passed.
    pub async fn remove(
        &self,
        current: CurrentWorkspace,
        id: String,
    ) -> Result<Workspace, WorkspacesError> {
        let removed = self
            .change(current, move |library| library.remove(&id))
            .await?;
        files::forget_after_undo(removed.clone());
        Ok(removed)
    }
}

thread_local! {
    /// Set by "New workspace" in the sidebar's menu, taken by Settings › Workspaces.
    static NEW_REQUESTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Asks Settings › Workspaces, as it opens, for a new workspace's editor.
pub fn ask_for_new() {
    NEW_REQUESTED.with(|asked| asked.set(true));
}

/// Whether a new workspace's editor was asked for (once).
pub fn take_new_request() -> bool {
    NEW_REQUESTED.with(|asked| asked.replace(false))
}

/// The app's workspaces.
pub fn use_workspaces() -> Workspaces {
    Workspaces
}
