//! The palette's other sources: the user's memories, workspaces and knowledge
//! collections, read when the palette opens and searched in the page with the one engine
//! (`hearth_core::search::local`), listed after the conversations; then the passages of
//! the collections' files ([`find_in_files`]: asked of the search worker, which reads
//! and indexes the texts off the page, as for a turn's question). Opening a memory
//! shows it in Settings › Memory (scrolled to, its Edit focused), a collection (or a
//! passage of one of its files) in Settings › Knowledge the same way; opening a
//! workspace makes it the current one, so the sidebar lists its conversations. A source
//! that cannot be read is said, never shown as having nothing.

use hearth_core::search::Source;
use hearth_core::search::local::{LocalDocument, search_local};
use leptos::prelude::*;

use super::found::Passage;
use crate::i18n::{I18n, Key};

/// How many memories, workspaces and collections the palette lists.
pub const RESULTS: usize = 10;
/// The most characters of a memory without tags shown as its title.
const TITLE_CHARS: usize = 60;

/// What was found in the other sources.
#[derive(Debug, Clone, PartialEq)]
pub struct Other {
    /// What it is.
    pub source: Source,
    /// Its id.
    pub id: String,
    /// A workspace's name; a memory's tags (or the start of what it says); where a
    /// file's passage is (`Collection › file — Heading`).
    pub title: String,
    /// The passage that matched.
    pub passage: Passage,
    /// A passage of one of a collection's files (`id` is the collection's).
    pub in_file: bool,
}

/// Reads the memories, the workspaces and the knowledge library (each once per page);
/// what could not be read, in the user's language.
pub async fn load(i18n: I18n) -> Vec<String> {
    let mut said = Vec::new();
    if let Err(error) = crate::memory::run(crate::memory::Op::Load).await {
        said.push(i18n.t_with(
            Key::SearchOthersUnreadable,
            &[
                ("what", &i18n.t(Key::SettingsTabMemory)),
                ("reason", &crate::memory::error_text(&error, i18n)),
            ],
        ));
    }
    if let Err(error) = crate::workspaces::use_workspaces().ensure_loaded().await {
        said.push(i18n.t_with(
            Key::SearchOthersUnreadable,
            &[
                ("what", &i18n.t(Key::SettingsTabWorkspaces)),
                ("reason", &crate::workspaces::reason(&error)),
            ],
        ));
    }
    if let Err(error) = crate::knowledge::use_knowledge().load().await {
        said.push(i18n.t_with(
            Key::SearchOthersUnreadable,
            &[
                ("what", &i18n.t(Key::SettingsTabKnowledge)),
                ("reason", &crate::knowledge::error_text(&error, i18n)),
            ],
        ));
    }
    said
}

/// The memories, workspaces and collections matching `query`, best first (tracked: each
/// source as it is read or changes).
pub fn find(query: &str) -> Vec<Other> {
    if query.trim().is_empty() {
        return Vec::new();
    }
    let mut documents: Vec<LocalDocument> = crate::memory::use_memories().book().with(|book| {
        book.iter()
            .flat_map(|b| &b.memories)
            .map(hearth_core::memory::Memory::search_document)
            .collect()
    });
    let workspaces = crate::workspaces::use_workspaces().library();
    workspaces.with(|library| {
        documents.extend(
            library
                .iter()
                .flat_map(|l| &l.workspaces)
                .map(hearth_core::workspace::Workspace::search_document),
        )
    });
    crate::knowledge::use_knowledge().library().with(|library| {
        documents.extend(
            library
                .iter()
                .flat_map(|l| &l.collections)
                .map(hearth_core::knowledge::Collection::search_document),
        )
    });
    // A query the language refuses is said by the conversations' answer already.
    let Ok(hits) = search_local(&documents, query, RESULTS) else {
        return Vec::new();
    };
    hits.into_iter()
        .map(|hit| {
            // A workspace's name; a memory's tags, or the start of what it says.
            let document = documents
                .iter()
                .find(|d| d.source == hit.source && d.id == hit.id);
            let title = match document {
                Some(d) if !d.title.is_empty() => d.title.clone(),
                Some(d) => d.body.chars().take(TITLE_CHARS).collect(),
                None => String::new(),
            };
            Other {
                source: hit.source,
                id: hit.id,
                title,
                passage: super::found::passage_of(hit.snippet),
                in_file: false,
            }
        })
        .collect()
}

/// The performance mark of each search of the collections' files.
pub const FILES_ASKED_MARK: &str = "hearth:search:files-asked";

/// The passages of the collections' files that `query` finds, best first; what could
/// not be searched, in the user's language.
pub async fn find_in_files(query: &str, i18n: I18n) -> Result<Vec<Other>, String> {
    use crate::knowledge::retrieval::{RetrievalError, search_all};
    // Counted by tests: the palette asks once the query rests, not per keystroke.
    crate::browser::mark(FILES_ASKED_MARK);
    match search_all(query).await {
        Ok(answered) => Ok(answered
            .passages
            .iter()
            .map(|found| Other {
                source: Source::Knowledge,
                id: found.place.collection.clone(),
                title: found.label(),
                passage: super::found::passage(query, without_headings(found)),
                in_file: true,
            })
            .collect()),
        Err(error) => Err(i18n.t_with(
            Key::SearchOthersUnreadable,
            &[
                ("what", &i18n.t(Key::SearchKindKnowledgeFiles)),
                (
                    "reason",
                    &match &error {
                        RetrievalError::Library(error) => crate::knowledge::error_text(error, i18n),
                        RetrievalError::Worker(_) => i18n.t(Key::SearchUnavailable),
                    },
                ),
            ],
        )),
    }
}

/// A passage's text without the heading lines it starts with that its title already
/// names (`# March` under `… — March`).
fn without_headings(found: &hearth_core::knowledge::retrieve::Passage) -> &str {
    let mut rest = found.text.trim_start();
    while let Some((line, after)) = rest.split_once('\n') {
        let heading = line.trim_start_matches('#').trim();
        if !line.starts_with('#') || !found.headings.iter().any(|h| h.trim() == heading) {
            break;
        }
        rest = after.trim_start();
    }
    rest
}

/// Opens `other`: a memory in Settings › Memory, a collection in Settings › Knowledge,
/// a workspace as the current one.
pub fn open(other: &Other) {
    let shell = crate::shell::use_shell();
    match other.source {
        Source::Workspaces => {
            let workspace = crate::workspaces::use_workspaces()
                .library()
                .with_untracked(|library| {
                    library
                        .iter()
                        .flat_map(|l| &l.workspaces)
                        .find(|w| w.id == other.id)
                        .map(crate::workspaces::summary)
                });
            if let Some(summary) = workspace {
                crate::chat::use_chat().workspace.set(Some(summary));
                shell.drawer_open.set(false);
            }
        }
        source => {
            let tab = if source == Source::Knowledge {
                "knowledge"
            } else {
                "memory"
            };
            shell.reveal.set(Some(other.id.clone()));
            shell.settings_tab.set(tab.to_string());
            shell.settings_open.set(true);
        }
    }
}
