//! One file of a knowledge collection: where it is on its way in ([`Stage`]), what failed
//! there ([`Failure`]), its stored paths and version, and the rules that read only the
//! file (is it ready, in flight, what a retry runs, whether a reparse must ask first).

use serde::{Deserialize, Serialize};

use crate::api::doc_parse::ParseNote;
use crate::filetype::FileKind;

/// Where a file is on its way into a collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Stage {
    /// Its original is being stored.
    #[default]
    Upload,
    /// Its text is being extracted (in the browser or by the edge's parser).
    Parse,
    /// Its text is being cut into passages and indexed.
    Index,
    /// Ready: its passages can be found.
    Ready,
}

impl Stage {
    /// Its stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Upload => "upload",
            Self::Parse => "parse",
            Self::Index => "index",
            Self::Ready => "ready",
        }
    }
}

/// What failed, at which stage: a stored upload or content write is a storage failure,
/// parsing is the parser's, indexing the index's; each is recorded where it happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    /// The stage that failed.
    pub stage: Stage,
    /// A stable code the app renders in the user's language.
    pub code: String,
    /// A limit or the parser's words, when there are any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// One file of a collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeFile {
    /// Unique in the library.
    pub id: String,
    /// Its name, as the user's file had it.
    pub name: String,
    /// Its type, once its bytes were read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<FileKind>,
    /// The original's size in bytes.
    #[serde(default)]
    pub size: u64,
    /// The version of its extracted text (a reparse or an edit makes a new one; passage
    /// ids name it, so an old version's passages are never found again).
    #[serde(default = "first_version")]
    pub version: u32,
    /// Where it is.
    #[serde(default)]
    pub stage: Stage,
    /// What failed, when something did (the stage stays where it failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The original, in the private file system (empty until stored).
    #[serde(default)]
    pub source_path: String,
    /// The extracted text (the source's own path for a text file; empty until stored).
    #[serde(default)]
    pub content_path: String,
    /// Where pages 1, 2, … start in the text, in bytes (empty without pages).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub page_starts: Vec<u64>,
    /// The text's length in characters.
    #[serde(default)]
    pub chars: u64,
    /// Its passages, once indexed.
    #[serde(default)]
    pub passages: u32,
    /// The user edited the extracted text.
    #[serde(default)]
    pub edited: bool,
    /// The original is no longer stored (the extracted text still is).
    #[serde(default)]
    pub source_missing: bool,
    /// What the parser said about the text (cuts, scanned pages).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<ParseNote>,
    /// When it was added (ms since the epoch).
    #[serde(default)]
    pub added_at: f64,
}

fn first_version() -> u32 {
    1
}

impl KnowledgeFile {
    /// Whether its passages can be found.
    pub fn is_ready(&self) -> bool {
        self.stage == Stage::Ready && self.failure.is_none() && !self.content_path.is_empty()
    }

    /// Whether it is on its way in (not ready, not failed).
    pub fn in_flight(&self) -> bool {
        self.stage != Stage::Ready && self.failure.is_none()
    }

    /// Whether the original is a text the browser reads itself: then the original is
    /// the content, one path for both.
    pub fn text_is_source(kind: FileKind) -> bool {
        matches!(
            kind,
            FileKind::Markdown | FileKind::Text | FileKind::Csv | FileKind::Json
        )
    }

    /// Whether a reparse must ask first: it would overwrite text the user edited.
    pub fn reparse_needs_confirmation(&self) -> bool {
        self.edited
    }

    /// The stage a retry starts from: parsing again needs the stored original, indexing
    /// again the stored text; a failed upload has neither (the file must be added again).
    pub fn retry_stage(&self) -> Option<Stage> {
        let failure = self.failure.as_ref()?;
        match failure.stage {
            Stage::Upload => None,
            Stage::Parse if self.source_path.is_empty() || self.source_missing => None,
            Stage::Parse => Some(Stage::Parse),
            Stage::Index | Stage::Ready if self.content_path.is_empty() => {
                (!self.source_path.is_empty() && !self.source_missing).then_some(Stage::Parse)
            }
            Stage::Index | Stage::Ready => Some(Stage::Index),
        }
    }

    /// The paths this record refers to.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        [self.source_path.as_str(), self.content_path.as_str()]
            .into_iter()
            .filter(|p| !p.is_empty())
    }
}
