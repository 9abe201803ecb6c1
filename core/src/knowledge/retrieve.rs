//! The passages a question finds in a conversation's collections.
//!
//! Each ready file's text is cut into passages on its structure (`crate::chunk`, ids
//! `<file>@<version>#<n>`, so a new version's passages replace the old ones) and indexed
//! with the one full-text engine (`crate::search`, source `Knowledge`: the file's name
//! and headings as the title, the passage as the body). The question is asked one word
//! at a time (`crate::search::question`); the best [`MAX_PASSAGES`] passages of the
//! files in scope come, each as a context item for the planner's knowledge band that
//! carries its citation (collection, file, version, byte range, page). Retrieval is
//! lexical: no embedding model is involved, and the reply says so.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::{Collection, KnowledgeFile};
use crate::chat::request::ContextItem;
use crate::chat::source::{Source, SourcePassage};
use crate::chunk::{ChunkSettings, chunk};
use crate::search::question::word_scores;
use crate::search::{Document, SearchIndex, Source as IndexSource};

/// The most passages one question brings.
pub const MAX_PASSAGES: usize = 8;

/// One ready file and its text, to index.
pub struct FileText<'a> {
    /// Its collection.
    pub collection: &'a Collection,
    /// The file.
    pub file: &'a KnowledgeFile,
    /// Its extracted text.
    pub text: String,
}

/// One passage of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Passage {
    /// `<file>@<version>#<n>`.
    pub id: String,
    /// Where it is.
    pub place: SourcePassage,
    /// The file's name.
    pub file_name: String,
    /// The headings it sits under, outermost first.
    pub headings: Vec<String>,
    /// Its text (with the overlap before it).
    pub text: String,
}

impl Passage {
    /// How the model and the user see where it comes from:
    /// `Collection › file — Heading › Sub (page 3)`.
    pub fn label(&self) -> String {
        let mut out = format!("{} › {}", self.place.collection_name, self.file_name);
        if !self.headings.is_empty() {
            out.push_str(" — ");
            out.push_str(&self.headings.join(" › "));
        }
        if let Some(page) = self.place.page {
            out.push_str(&format!(" (page {page})"));
        }
        out
    }

    /// The reply's source for it.
    pub fn source(&self) -> Source {
        let mut title = self.file_name.clone();
        if !self.headings.is_empty() {
            title.push_str(" — ");
            title.push_str(&self.headings.join(" › "));
        }
        Source {
            url: String::new(),
            title,
            passage: Some(self.place.clone()),
        }
    }
}

/// What identifies a set of files as indexed: each file's collection, id and version,
/// and its collection's name (passages carry it).
pub fn fingerprint<'a>(
    files: impl IntoIterator<Item = (&'a Collection, &'a KnowledgeFile)>,
) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for (collection, file) in files {
        collection.id.hash(&mut hasher);
        collection.name.hash(&mut hasher);
        file.id.hash(&mut hasher);
        file.version.hash(&mut hasher);
        file.name.hash(&mut hasher);
    }
    hasher.finish()
}

/// The ready files of `collections` (the conversation's), restricted to `files` when it
/// is not empty, in a stable order.
pub fn in_scope<'a>(
    collections: impl IntoIterator<Item = &'a Collection>,
    files: &[String],
) -> Vec<(&'a Collection, &'a KnowledgeFile)> {
    collections
        .into_iter()
        .flat_map(|c| c.ready().map(move |f| (c, f)))
        .filter(|(_, f)| files.is_empty() || files.contains(&f.id))
        .collect()
}

/// The passages of a set of files, indexed, to be kept while they do not change.
pub struct KnowledgeIndex {
    index: SearchIndex,
    passages: HashMap<String, Passage>,
    fingerprint: u64,
}

impl KnowledgeIndex {
    /// The index of `texts`.
    pub fn build(texts: &[FileText<'_>]) -> Self {
        let mut index = SearchIndex::new();
        let mut passages = HashMap::new();
        for entry in texts {
            let file = entry.file;
            let chunks = chunk(
                &entry.text,
                &file.id,
                &file.version.to_string(),
                &file.page_starts,
                ChunkSettings::default(),
            );
            for piece in chunks {
                let document = Document {
                    id: piece.id.clone(),
                    source: IndexSource::Knowledge,
                    parent: file.id.clone(),
                    position: String::new(),
                    title: format!("{} {}", file.name, piece.headings.join(" ")),
                    body: piece.text.clone(),
                    timestamp: file.added_at as i64,
                };
                // A passage the index refuses (an id past its bound) is simply not found.
                if index.upsert(&document).is_err() {
                    continue;
                }
                passages.insert(
                    piece.id.clone(),
                    Passage {
                        id: piece.id,
                        place: SourcePassage {
                            collection: entry.collection.id.clone(),
                            collection_name: entry.collection.name.clone(),
                            file: file.id.clone(),
                            version: file.version,
                            start: piece.start as u64,
                            end: piece.end as u64,
                            page: piece.page,
                        },
                        file_name: file.name.clone(),
                        headings: piece.headings,
                        text: piece.text,
                    },
                );
            }
        }
        index.compact(IndexSource::Knowledge);
        Self {
            index,
            passages,
            fingerprint: fingerprint(texts.iter().map(|t| (t.collection, t.file))),
        }
    }

    /// Its parts, to save (`super::saved`).
    pub(super) fn parts_mut(&mut self) -> (&mut SearchIndex, &HashMap<String, Passage>, u64) {
        (&mut self.index, &self.passages, self.fingerprint)
    }

    /// The index made of saved parts (`super::saved`).
    pub(super) fn from_parts(
        index: SearchIndex,
        passages: HashMap<String, Passage>,
        fingerprint: u64,
    ) -> Self {
        Self {
            index,
            passages,
            fingerprint,
        }
    }

    /// Whether this index was built from files of this fingerprint.
    pub fn is_for(&self, fingerprint: u64) -> bool {
        self.fingerprint == fingerprint
    }

    /// How many passages it holds.
    pub fn len(&self) -> usize {
        self.passages.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.passages.is_empty()
    }

    /// The passages `question` finds among the files `allowed` (by id), best first, at
    /// most [`MAX_PASSAGES`].
    pub fn retrieve(&self, question: &str, allowed: &HashSet<&str>) -> Vec<&Passage> {
        let mut found: Vec<(&Passage, f32)> =
            word_scores(&self.index, IndexSource::Knowledge, question)
                .into_iter()
                .filter_map(|(id, score)| Some((self.passages.get(&id)?, score)))
                .filter(|(passage, _)| allowed.contains(passage.place.file.as_str()))
                .collect();
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.id.cmp(&b.0.id)));
        found
            .into_iter()
            .take(MAX_PASSAGES)
            .map(|(p, _)| p)
            .collect()
    }
}

/// `passages` as context items for the knowledge band, each carrying its citation.
pub fn context_items(passages: &[&Passage]) -> Vec<ContextItem> {
    passages
        .iter()
        .map(|passage| ContextItem {
            id: passage.id.clone(),
            source: passage.label(),
            origin: passage.file_name.clone(),
            text: passage.text.clone(),
            missing: false,
            cite: Some(passage.source()),
        })
        .collect()
}

/// The passage of `text` (the file's text of `place.version`) that `place` points at,
/// or `None` when the text no longer holds it (the file changed since).
pub fn passage_text<'a>(text: &'a str, place: &SourcePassage) -> Option<&'a str> {
    let start = usize::try_from(place.start).ok()?;
    let end = usize::try_from(place.end).ok()?;
    text.get(start..end)
}
