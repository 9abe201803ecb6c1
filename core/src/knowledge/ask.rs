//! A question asked of the files in a conversation's scope: the page sends an [`Asked`]
//! to the search worker and gets an [`Answered`] back, as JSON. The worker keeps its
//! index in a [`KeptIndex`], which says whether the scope's texts must be read again
//! (and which paths may be read) and answers from them.
//!
//! What is indexed at once is bounded: the files in scope are taken in order until their
//! texts reach [`MAX_INDEXED_CHARS`]; the rest are named as left out, never dropped
//! silently.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::retrieve::{FileText, KnowledgeIndex, Passage, fingerprint, in_scope};
use super::transfer::KnowledgePath;
use super::{Collection, KnowledgeFile};

/// The most characters of text indexed for one scope (about 32 M; the index keeps each
/// passage's text beside its postings, so the worker's memory is a multiple of this).
pub const MAX_INDEXED_CHARS: u64 = 32 * 1024 * 1024;

/// A question and the files it is asked of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asked {
    /// The collections in scope, each with only its files in scope.
    pub collections: Vec<Collection>,
    /// The question.
    pub question: String,
}

impl Asked {
    /// `question`, asked of `scope` (from [`in_scope`]).
    pub fn new(scope: &[(&Collection, &KnowledgeFile)], question: &str) -> Self {
        let mut collections: Vec<Collection> = Vec::new();
        for (collection, file) in scope {
            let at = match collections.iter().position(|c| c.id == collection.id) {
                Some(at) => at,
                None => {
                    collections.push(Collection {
                        id: collection.id.clone(),
                        name: collection.name.clone(),
                        description: collection.description.clone(),
                        colour: collection.colour,
                        files: Vec::new(),
                        created_at: collection.created_at,
                    });
                    collections.len() - 1
                }
            };
            collections[at].files.push((*file).clone());
        }
        Self {
            collections,
            question: question.to_string(),
        }
    }

    /// The files it is asked of that are indexed, and the names of those over
    /// [`MAX_INDEXED_CHARS`].
    pub fn bounded(&self) -> (Vec<(&Collection, &KnowledgeFile)>, Vec<String>) {
        let mut total = 0u64;
        let mut over = Vec::new();
        let mut kept = Vec::new();
        for (collection, file) in in_scope(self.collections.iter(), &[]) {
            total = total.saturating_add(file.chars);
            if total > MAX_INDEXED_CHARS {
                over.push(file.name.clone());
            } else {
                kept.push((collection, file));
            }
        }
        (kept, over)
    }
}

/// What a question found.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Answered {
    /// The passages, best first.
    pub passages: Vec<Passage>,
    /// The files whose text could not be read.
    pub unreadable: Vec<String>,
    /// The files left out because the scope's texts passed [`MAX_INDEXED_CHARS`].
    pub over_budget: Vec<String>,
}

/// The index of the last scope asked, kept while its files do not change.
#[derive(Default)]
pub struct KeptIndex(Option<KnowledgeIndex>);

impl KeptIndex {
    /// Whether the kept index is for exactly `scope`'s files (no text need be read).
    pub fn is_for(&self, scope: &[(&Collection, &KnowledgeFile)]) -> bool {
        let wanted = fingerprint(scope.iter().copied());
        self.0.as_ref().is_some_and(|index| index.is_for(wanted))
    }

    /// Answers `asked`. `texts` are the texts of its bounded scope when the kept index
    /// is not for it (`None` when it is); `unreadable` names the files whose text could
    /// not be read. An index missing a file is not kept: the next question reads it
    /// again.
    pub fn answer(
        &mut self,
        asked: &Asked,
        texts: Option<Vec<FileText<'_>>>,
        unreadable: Vec<String>,
    ) -> Answered {
        let (scope, over_budget) = asked.bounded();
        let allowed: HashSet<&str> = scope.iter().map(|(_, f)| f.id.as_str()).collect();
        let passages = match texts {
            Some(texts) => {
                let index = KnowledgeIndex::build(&texts);
                let found = index.retrieve(&asked.question, &allowed);
                let passages = found.into_iter().cloned().collect();
                self.0 = unreadable.is_empty().then_some(index);
                passages
            }
            None => self.0.as_ref().map_or_else(Vec::new, |index| {
                let found = index.retrieve(&asked.question, &allowed);
                found.into_iter().cloned().collect()
            }),
        };
        Answered {
            passages,
            unreadable,
            over_budget,
        }
    }

    /// The stored paths whose texts answering `asked` needs: none when the kept index
    /// is for its files. Only a collection's own files are ever read (`KnowledgePath`):
    /// a record pointing anywhere else is not listed, and counts as unreadable.
    pub fn paths_to_read(&self, asked: &Asked) -> Vec<String> {
        let (scope, _) = asked.bounded();
        if self.is_for(&scope) {
            return Vec::new();
        }
        scope
            .iter()
            .filter_map(|(_, file)| KnowledgePath::parse(&file.content_path))
            .map(|at| at.path())
            .collect()
    }

    /// Answers `asked`, reading the texts of [`KeptIndex::paths_to_read`] with `read` (a
    /// stored path → its text, `None` when it cannot be read) only when the kept index
    /// is not for its files.
    pub async fn answer_reading<R, F>(&mut self, asked: &Asked, read: R) -> Answered
    where
        R: Fn(String) -> F,
        F: std::future::Future<Output = Option<String>>,
    {
        let (scope, _) = asked.bounded();
        if self.is_for(&scope) {
            return self.answer(asked, None, Vec::new());
        }
        let mut texts = Vec::new();
        let mut unreadable = Vec::new();
        for (collection, file) in scope {
            let path = KnowledgePath::parse(&file.content_path).map(|at| at.path());
            let text = match path {
                Some(path) => read(path).await,
                None => None,
            };
            match text {
                Some(text) => texts.push(FileText {
                    collection,
                    file,
                    text,
                }),
                None => unreadable.push(file.name.clone()),
            }
        }
        self.answer(asked, Some(texts), unreadable)
    }

    /// The kept index as bytes to save (`None`: there is none).
    pub fn saved(&mut self) -> Option<Vec<u8>> {
        self.0.as_mut().map(KnowledgeIndex::saved)
    }

    /// Takes the index saved as `bytes` when none is kept; whether it did (a save that
    /// does not read is ignored: the next question builds the index).
    pub fn restore(&mut self, bytes: &[u8]) -> bool {
        if self.0.is_some() {
            return false;
        }
        self.0 = KnowledgeIndex::from_saved(bytes);
        self.0.is_some()
    }

    /// How many passages the kept index holds.
    pub fn passages(&self) -> usize {
        self.0.as_ref().map_or(0, KnowledgeIndex::len)
    }
}
