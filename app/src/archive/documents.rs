//! The settings documents that travel with an export beside the conversations: the
//! skill library, the memory book, the prompt templates, the workspaces, the assistants,
//! the web search settings (never a key) and the knowledge library (the workspaces' and the collections' stored files travel
//! too). For an export each is read and added, or left out and said when it cannot be
//! read (the rest still goes); for an import each is merged by its own rules, and a
//! failure is said beside the conversations that did come in.

use std::collections::BTreeSet;

use hearth_core::chat::archive::Archive;
use hearth_core::chat::export_file::CarriedFile;
use hearth_core::knowledge::KnowledgeLibrary;
use hearth_core::knowledge::transfer::{KnowledgePath, Merged};

use super::PartialImport;
use crate::storage::document::DocumentError;

/// Which documents an export had to leave out (unreadable).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct LeftOut {
    pub skills: bool,
    pub memory: bool,
    pub templates: bool,
    pub workspaces: bool,
    pub assistants: bool,
    pub knowledge: bool,
    pub web_search: bool,
    pub prices: bool,
}

/// What adding the documents to an export did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Added {
    /// The documents left out.
    pub left_out: LeftOut,
    /// The knowledge collections it holds.
    pub collections: usize,
    /// The files (records) of those collections.
    pub knowledge_files: usize,
    /// The stored files of the knowledge collections, to carry beside the records.
    pub knowledge_paths: Vec<KnowledgePath>,
    /// The stored files of the workspaces, to carry beside the records.
    pub workspace_files: Vec<String>,
}

/// The collections and files (records) of an export's knowledge library, when it has
/// one that reads.
pub(super) fn knowledge_counts(archive: &Archive) -> Option<(usize, usize)> {
    let library: KnowledgeLibrary = serde_json::from_value(archive.knowledge.clone()?).ok()?;
    let files = library.collections.iter().map(|c| c.files.len()).sum();
    Some((library.collections.len(), files))
}

/// Adds the documents to `archive`.
pub(super) async fn add_to(archive: &mut Archive, skills: crate::skills::Skills) -> Added {
    let mut added = Added::default();
    match crate::knowledge::use_knowledge().for_export().await {
        Ok((library, paths)) if !library.collections.is_empty() => {
            added.collections = library.collections.len();
            added.knowledge_files = library.collections.iter().map(|c| c.files.len()).sum();
            added.knowledge_paths = paths;
            archive.knowledge = serde_json::to_value(&library).ok();
        }
        Ok(_) => {}
        Err(_) => added.left_out.knowledge = true,
    }
    let library = skills.ensure_loaded().await;
    added.left_out.skills = library.is_err();
    archive.skills = library
        .ok()
        .filter(|library| *library != Default::default())
        .and_then(|library| serde_json::to_value(&library).ok());
    let memory = crate::memory::run(crate::memory::Op::Export).await;
    let left_out = &mut added.left_out;
    left_out.memory = memory.is_err();
    if let Ok(crate::memory::Answer::Exported(value)) = memory {
        archive.memory = value;
    }
    let templates = crate::templates::use_templates().ensure_loaded().await;
    left_out.templates = templates.is_err();
    archive.templates = templates
        .ok()
        .filter(|templates| !templates.templates.is_empty())
        .and_then(|templates| serde_json::to_value(&templates).ok());
    let workspaces = crate::workspaces::use_workspaces().ensure_loaded().await;
    left_out.workspaces = workspaces.is_err();
    if let Ok(library) = &workspaces {
        added.workspace_files = library.stored_files().into_iter().collect();
    }
    archive.workspaces = workspaces
        .ok()
        .filter(|workspaces| !workspaces.workspaces.is_empty())
        .and_then(|workspaces| serde_json::to_value(&workspaces).ok());
    let assistants = crate::assistants::use_assistants().ensure_loaded().await;
    left_out.assistants = assistants.is_err();
    archive.assistants = assistants
        .ok()
        .filter(|assistants| !assistants.custom.is_empty() || !assistants.recent.is_empty())
        .and_then(|assistants| serde_json::to_value(&assistants).ok());
    match crate::web_search::for_export().await {
        Ok(settings) => archive.web_search = settings,
        Err(_) => left_out.web_search = true,
    }
    match crate::usage::for_export().await {
        Ok(prices) => archive.prices = prices,
        Err(_) => left_out.prices = true,
    }
    added
}

/// Merges the documents of `archive` into this browser's; each failure joins `partial`.
/// `written` are the files the import wrote: the knowledge and workspace files no
/// record ends up referring to are deleted. What the knowledge library's merge did,
/// when the archive had one.
pub(super) async fn merge_from(
    archive: &Archive,
    (skills, current): (crate::skills::Skills, crate::workspaces::CurrentWorkspace),
    written: &[CarriedFile],
    partial: &mut Vec<PartialImport>,
) -> Option<Merged> {
    // Skills: those not installed here come in (within the bounds); a skill this
    // browser has keeps its local version.
    if let Some(value) = archive.skills.clone() {
        let merged = match serde_json::from_value(value) {
            Ok(library) => skills.change(move |l| Ok(l.merge(library))).await,
            // Said, not dropped: the rest of the import stands.
            Err(_) => Err(crate::skills::SkillsError::Import(
                hearth_core::skill::skill_md::SkillMdError::Unreadable,
            )),
        };
        if let Err(reason) = merged {
            partial.push(PartialImport::Skills(reason));
        }
    }
    // Memories: newer copies win, the switches stay this browser's.
    if let Some(value) = archive.memory.clone() {
        let merged = crate::memory::run(crate::memory::Op::Merge(value)).await;
        if let Err(reason) = merged {
            partial.push(PartialImport::Memory(reason));
        }
    }
    // Templates: those whose id and command are free here come in.
    if let Some(value) = archive.templates.clone() {
        let merged = match serde_json::from_value::<hearth_core::template::library::TemplateLibrary>(
            value,
        ) {
            Ok(library) => {
                crate::templates::use_templates()
                    .change(move |l| Ok(l.merge(library)))
                    .await
            }
            Err(error) => Err(crate::templates::TemplatesError::Unreadable(
                error.to_string(),
            )),
        };
        if let Err(reason) = merged {
            partial.push(PartialImport::Templates(reason));
        }
    }
    // Workspaces: those whose id and name are free here come in; the conversations
    // name theirs by id.
    if let Some(value) = archive.workspaces.clone() {
        let merged = match serde_json::from_value::<hearth_core::workspace::WorkspaceLibrary>(value)
        {
            Ok(library) => {
                crate::workspaces::use_workspaces()
                    .change(current, move |l| Ok(l.merge(library)))
                    .await
            }
            Err(error) => Err(crate::workspaces::WorkspacesError::Unreadable(
                error.to_string(),
            )),
        };
        if let Err(reason) = merged {
            partial.push(PartialImport::Workspaces(reason));
        }
    }
    forget_unreferenced_workspace_files(written).await;
    // Assistants: the user's own whose id is free here, and recent ones not remembered.
    if let Some(value) = archive.assistants.clone() {
        let merged = match serde_json::from_value::<hearth_core::assistant::AssistantLibrary>(value)
        {
            Ok(library) => {
                crate::assistants::use_assistants()
                    .change(move |l| Ok(l.merge(library)))
                    .await
            }
            Err(error) => Err(crate::assistants::AssistantsError::Unreadable(
                error.to_string(),
            )),
        };
        if let Err(reason) = merged {
            partial.push(PartialImport::Assistants(reason));
        }
    }
    // Web search: taken only where no service is chosen yet; keys never travel.
    if let Some(value) = archive.web_search.clone()
        && let Err(reason) = crate::web_search::adopt(value).await
    {
        partial.push(PartialImport::WebSearch(reason));
    }
    // Prices: each model this browser has no price of its own for.
    if let Some(value) = archive.prices.clone()
        && let Err(reason) = crate::usage::adopt(value).await
    {
        partial.push(PartialImport::Prices(reason));
    }
    // Knowledge: untrusted, merged collection by collection; the files written for
    // what did not come in are deleted again.
    let knowledge = crate::knowledge::use_knowledge();
    let merged = archive.knowledge.clone().map(|incoming| {
        serde_json::from_value::<KnowledgeLibrary>(incoming)
            .map_err(|error| DocumentError::Unreadable(error.to_string()))
    });
    let merged = match merged {
        Some(Ok(library)) => Some(knowledge.merge(library).await),
        Some(Err(unreadable)) => Some(Err(unreadable)),
        None => None,
    };
    let knowledge_written: Vec<KnowledgePath> = written
        .iter()
        .filter_map(|file| match file {
            CarriedFile::Knowledge(path) => Some(path.clone()),
            _ => None,
        })
        .collect();
    knowledge.remove_unreferenced(&knowledge_written).await;
    match merged? {
        Ok(merged) => Some(merged),
        Err(reason) => {
            partial.push(PartialImport::Knowledge(reason));
            None
        }
    }
}

/// Deletes the workspace files this import `written` that no workspace refers to (those
/// of a workspace that did not come in: its name taken here, the library full).
async fn forget_unreferenced_workspace_files(written: &[CarriedFile]) {
    let written: BTreeSet<String> = written
        .iter()
        .filter_map(|file| match file {
            CarriedFile::Workspace(name) => Some(name.clone()),
            _ => None,
        })
        .collect();
    if written.is_empty() {
        return;
    }
    // A library that cannot be read keeps them: better an unused file than a lost one.
    let Ok(library) = crate::workspaces::use_workspaces().ensure_loaded().await else {
        return;
    };
    let unreferenced = written
        .difference(&library.stored_files())
        .cloned()
        .collect();
    crate::workspaces::files::forget(unreferenced).await;
}
