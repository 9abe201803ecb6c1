//! Workspaces: named places for conversations, each with its own colour and icon, its
//! instructions (a system prompt), and the defaults its conversations start from: a
//! model, the tools and skills they use (or the user's own switches), the knowledge
//! collections they are answered from. Kept as one record (the library); every change
//! is checked here and fails with a typed [`WorkspaceError`] that leaves the library as
//! it was. A conversation names its workspace by id; an id no workspace has (one deleted
//! since) means no workspace, so deleting one never touches a conversation.
//!
//! - `prompt`: the system prompt of a turn, from the user's, the workspace's and the
//!   conversation's instructions, and which of them applied.
//! - `scope`: what a workspace changes in a turn (tools, skills, collections).
//! - `files`: its files (documents read into every turn): bounds, and which stored
//!   files a change leaves behind.

pub mod files;
pub mod prompt;
pub mod scope;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, HashSet};

use serde::{Deserialize, Serialize};

use crate::attachment::Attachment;
pub use crate::knowledge::Colour;
use crate::preferences::{MAX_SYSTEM_PROMPT_CHARS, ModelRef};

/// The most workspaces kept.
pub const MAX_WORKSPACES: usize = 50;
/// The most characters in a name.
pub const MAX_NAME_CHARS: usize = 60;
/// The most tools one workspace names (its skills are bounded like the user's active
/// ones, `crate::skill::library::MAX_ACTIVE`).
pub const MAX_NAMED: usize = 100;

/// A workspace's icon, by the name the app draws it under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WorkspaceIcon {
    /// A folder.
    #[default]
    Folder,
    /// A briefcase (work).
    Briefcase,
    /// Code.
    Code,
    /// A book (study, reading).
    Book,
    /// A pen (writing).
    Pen,
    /// A speech bubble (conversation).
    Chat,
}

impl WorkspaceIcon {
    /// Every icon, in the order they are offered.
    pub const ALL: [WorkspaceIcon; 6] = [
        Self::Folder,
        Self::Briefcase,
        Self::Code,
        Self::Book,
        Self::Pen,
        Self::Chat,
    ];

    /// Its stable name (storage, test hooks).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Folder => "folder",
            Self::Briefcase => "briefcase",
            Self::Code => "code",
            Self::Book => "book",
            Self::Pen => "pen",
            Self::Chat => "chat",
        }
    }
}

/// One workspace.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Workspace {
    /// Its id.
    pub id: String,
    /// Its name (unique, ignoring case).
    pub name: String,
    /// Its colour.
    pub colour: Colour,
    /// Its icon.
    pub icon: WorkspaceIcon,
    /// Its instructions, joined to the system prompt of its conversations' turns.
    pub system_prompt: String,
    /// The model a new conversation here starts with (`None`: the composer's choice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelRef>,
    /// The only tools (plugin ids) its conversations use; `None`: the user's switches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugins: Option<BTreeSet<String>>,
    /// The only skills (ids of installed skills) its conversations apply; `None`: the
    /// user's active skills.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<BTreeSet<String>>,
    /// The knowledge collections every conversation here is answered from, besides its
    /// own.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub knowledge: Vec<String>,
    /// Its files, read into every turn of its conversations after their own files
    /// (stored in `files::FOLDER`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<Attachment>,
    /// When it was made, ms since the epoch.
    pub created_at: f64,
    /// When it last changed, ms since the epoch.
    pub updated_at: f64,
}

/// A workspace as the editor hands it over.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WorkspaceDraft {
    /// The name.
    pub name: String,
    /// The colour.
    pub colour: Colour,
    /// The icon.
    pub icon: WorkspaceIcon,
    /// The instructions.
    pub system_prompt: String,
    /// The default model.
    pub model: Option<ModelRef>,
    /// The only tools, or the user's switches.
    pub plugins: Option<BTreeSet<String>>,
    /// The only skills, or the user's active ones.
    pub skills: Option<BTreeSet<String>>,
    /// The collections.
    pub knowledge: Vec<String>,
    /// The files.
    pub files: Vec<Attachment>,
}

impl Workspace {
    /// The editor's draft of it.
    pub fn draft(&self) -> WorkspaceDraft {
        WorkspaceDraft {
            name: self.name.clone(),
            colour: self.colour,
            icon: self.icon,
            system_prompt: self.system_prompt.clone(),
            model: self.model.clone(),
            plugins: self.plugins.clone(),
            skills: self.skills.clone(),
            knowledge: self.knowledge.clone(),
            files: self.files.clone(),
        }
    }

    /// What of it is searchable (the search palette): its name as the title, its
    /// instructions and its files' names as the body.
    pub fn search_document(&self) -> crate::search::local::LocalDocument {
        crate::search::local::LocalDocument::with_names(
            crate::search::Source::Workspaces,
            (&self.id, &self.name),
            &self.system_prompt,
            self.files.iter().map(|file| file.name.as_str()),
            self.updated_at,
        )
    }

    /// Its instructions, trimmed; `None` when there are none.
    pub fn instructions(&self) -> Option<&str> {
        Some(self.system_prompt.trim()).filter(|p| !p.is_empty())
    }
}

/// The library record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkspaceLibrary {
    /// The workspaces, in the order made.
    pub workspaces: Vec<Workspace>,
}

/// Why a change of the library was refused (nothing changed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase", tag = "code")]
pub enum WorkspaceError {
    /// The name is empty or over [`MAX_NAME_CHARS`].
    #[error("a name needs 1 to {MAX_NAME_CHARS} characters")]
    BadName,
    /// Another workspace has that name.
    #[error("another workspace is already called {0}")]
    NameTaken(String),
    /// The instructions are over [`MAX_SYSTEM_PROMPT_CHARS`].
    #[error("the instructions have {0} characters; the most is {MAX_SYSTEM_PROMPT_CHARS}")]
    PromptTooLong(usize),
    /// More than [`MAX_NAMED`] tools, more skills than may be active at once, or more
    /// collections than a conversation may use.
    #[error("a workspace names at most {MAX_NAMED} tools, {skills} skills and {collections} collections", skills = crate::skill::library::MAX_ACTIVE, collections = crate::knowledge::MAX_ATTACHED)]
    TooManyNamed,
    /// More than `files::MAX_FILES` files, or more than `files::MAX_TOTAL_BYTES`
    /// together.
    #[error("a workspace keeps at most {max} files, {mb} MB together", max = files::MAX_FILES, mb = files::MAX_TOTAL_BYTES / (1024 * 1024))]
    TooManyFiles,
    /// Already [`MAX_WORKSPACES`] workspaces.
    #[error("at most {MAX_WORKSPACES} workspaces can be kept")]
    TooMany,
    /// No workspace has that id.
    #[error("that workspace does not exist")]
    NotFound,
}

/// A draft that keeps the rules: the name trimmed, the lists bounded and without
/// repeats or empty ids, the files without what no workspace holds.
fn checked(mut draft: WorkspaceDraft) -> Result<WorkspaceDraft, WorkspaceError> {
    draft.name = draft.name.trim().to_string();
    if draft.name.is_empty() || draft.name.chars().count() > MAX_NAME_CHARS {
        return Err(WorkspaceError::BadName);
    }
    let length = draft.system_prompt.chars().count();
    if length > MAX_SYSTEM_PROMPT_CHARS {
        return Err(WorkspaceError::PromptTooLong(length));
    }
    let named = |set: &Option<BTreeSet<String>>| set.as_ref().map_or(0, BTreeSet::len);
    let mut seen = HashSet::new();
    draft
        .knowledge
        .retain(|id| !id.is_empty() && seen.insert(id.clone()));
    if named(&draft.plugins) > MAX_NAMED
        || named(&draft.skills) > crate::skill::library::MAX_ACTIVE
        || draft.knowledge.len() > crate::knowledge::MAX_ATTACHED
    {
        return Err(WorkspaceError::TooManyNamed);
    }
    for set in [&mut draft.plugins, &mut draft.skills]
        .into_iter()
        .flatten()
    {
        set.retain(|id| !id.is_empty());
    }
    draft.files =
        files::kept(std::mem::take(&mut draft.files)).map_err(|_| WorkspaceError::TooManyFiles)?;
    if draft
        .model
        .as_ref()
        .is_some_and(|m| m.provider_id.is_empty() || m.model.is_empty())
    {
        draft.model = None;
    }
    Ok(draft)
}

impl WorkspaceLibrary {
    /// The workspace `id`.
    pub fn get(&self, id: &str) -> Option<&Workspace> {
        self.workspaces.iter().find(|w| w.id == id)
    }

    fn name_taken(&self, name: &str, id: &str) -> bool {
        let name = name.to_lowercase();
        self.workspaces
            .iter()
            .any(|w| w.id != id && w.name.to_lowercase() == name)
    }

    /// Adds a workspace under `id` (made by the caller, unique).
    pub fn add(
        &mut self,
        id: String,
        draft: WorkspaceDraft,
        now: f64,
    ) -> Result<(), WorkspaceError> {
        let draft = checked(draft)?;
        if self.workspaces.len() >= MAX_WORKSPACES {
            return Err(WorkspaceError::TooMany);
        }
        if self.name_taken(&draft.name, &id) {
            return Err(WorkspaceError::NameTaken(draft.name));
        }
        let mut workspace = Workspace {
            id,
            created_at: now,
            ..Default::default()
        };
        fill(&mut workspace, draft, now);
        self.workspaces.push(workspace);
        Ok(())
    }

    /// Changes the workspace `id`.
    pub fn update(
        &mut self,
        id: &str,
        draft: WorkspaceDraft,
        now: f64,
    ) -> Result<(), WorkspaceError> {
        let draft = checked(draft)?;
        if self.name_taken(&draft.name, id) {
            return Err(WorkspaceError::NameTaken(draft.name));
        }
        let workspace = self
            .workspaces
            .iter_mut()
            .find(|w| w.id == id)
            .ok_or(WorkspaceError::NotFound)?;
        fill(workspace, draft, now);
        Ok(())
    }

    /// Removes the workspace `id` (its conversations stay, in no workspace); it, for an
    /// Undo.
    pub fn remove(&mut self, id: &str) -> Result<Workspace, WorkspaceError> {
        let index = self
            .workspaces
            .iter()
            .position(|w| w.id == id)
            .ok_or(WorkspaceError::NotFound)?;
        Ok(self.workspaces.remove(index))
    }

    /// Puts back a removed workspace (an Undo, an import), unless its id or name came
    /// back meanwhile or the library is full.
    pub fn put_back(&mut self, workspace: Workspace) -> Result<(), WorkspaceError> {
        if self.workspaces.len() >= MAX_WORKSPACES {
            return Err(WorkspaceError::TooMany);
        }
        if self.get(&workspace.id).is_some() || self.name_taken(&workspace.name, &workspace.id) {
            return Err(WorkspaceError::NameTaken(workspace.name));
        }
        self.workspaces.push(workspace);
        Ok(())
    }

    /// The library with everything that breaks a rule dropped or mended (a stored or
    /// imported record), and how many workspaces were dropped.
    pub fn repaired(mut self) -> (Self, usize) {
        let before = self.workspaces.len();
        let mut ids = HashSet::new();
        let mut names = HashSet::new();
        self.workspaces.retain_mut(|w| {
            w.files = files::fitting(std::mem::take(&mut w.files));
            let Ok(draft) = checked(w.draft()) else {
                return false;
            };
            let (created, updated) = (w.created_at, w.updated_at);
            fill(w, draft, updated);
            w.created_at = created;
            !w.id.is_empty() && ids.insert(w.id.clone()) && names.insert(w.name.to_lowercase())
        });
        self.workspaces.truncate(MAX_WORKSPACES);
        let dropped = before - self.workspaces.len();
        (self, dropped)
    }

    /// Every stored file its workspaces refer to (`files::FOLDER`).
    pub fn stored_files(&self) -> BTreeSet<String> {
        files::stored_names(self.workspaces.iter().flat_map(|w| &w.files))
    }

    /// Adds another library's workspaces (an import): those whose id and name are not
    /// here, within the bounds. How many were added.
    pub fn merge(&mut self, other: WorkspaceLibrary) -> usize {
        let (other, _) = other.repaired();
        other
            .workspaces
            .into_iter()
            .filter(|w| self.put_back(w.clone()).is_ok())
            .count()
    }
}

/// Writes a checked `draft` into `workspace`.
fn fill(workspace: &mut Workspace, draft: WorkspaceDraft, now: f64) {
    workspace.name = draft.name;
    workspace.colour = draft.colour;
    workspace.icon = draft.icon;
    workspace.system_prompt = draft.system_prompt;
    workspace.model = draft.model;
    workspace.plugins = draft.plugins;
    workspace.skills = draft.skills;
    workspace.knowledge = draft.knowledge;
    workspace.files = draft.files;
    workspace.updated_at = now;
}
