//! Files attached to a message: what a message keeps of each ([`Attachment`]), how the
//! composer decides it may add one ([`check_add`]), where its text comes from
//! ([`Reader`]: the browser for text kinds, the edge's parse jobs for documents). How its
//! text enters a turn is `chat::attachment_context`.

use serde::{Deserialize, Serialize};

use crate::api::doc_parse::ParseNote;
use crate::filetype::FileKind;

/// The most files one message carries.
pub const MAX_ATTACHMENTS: usize = 10;
/// The most bytes of all of one message's files together.
pub const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;
/// The largest text file read in the browser (documents the edge parses have the
/// edge's own limit, `PublicConfig::document_parse_max_bytes`).
pub const MAX_TEXT_BYTES: u64 = 16 * 1024 * 1024;
/// The largest image accepted before it is scaled down in the browser.
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;
/// The most characters of text kept of one file (about 500k tokens).
pub const MAX_TEXT_CHARS: usize = 2_000_000;

/// What a message keeps of an attached file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    /// Its id (also its files' names in the browser's file store).
    pub id: String,
    /// The file's name as the user had it.
    pub name: String,
    /// What its bytes are.
    pub kind: FileKind,
    /// The original's size in bytes.
    pub size: u64,
    /// Characters of extracted text.
    pub text_chars: u64,
    /// What the user should know about the text (cut, scanned pages).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<ParseNote>,
}

/// Where a kind's text comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// Decoded in the browser (text, Markdown, CSV, JSON, HTML).
    Browser,
    /// Parsed by the edge (`/api/doc-parse`: PDF, Office, OpenDocument, EPUB).
    Edge,
    /// Not text: an image, sent as itself to models that see.
    Image,
}

impl Reader {
    /// The reader for `kind`.
    pub fn of(kind: FileKind) -> Self {
        if kind.is_image() {
            Self::Image
        } else if matches!(
            kind,
            FileKind::Text | FileKind::Markdown | FileKind::Csv | FileKind::Json | FileKind::Html
        ) {
            Self::Browser
        } else {
            Self::Edge
        }
    }
}

/// Why a file cannot be added. Codes are stable: the app renders them in the user's
/// language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttachError {
    /// The message already has [`MAX_ATTACHMENTS`].
    #[error("a message can carry at most {max} files")]
    TooMany {
        /// The limit.
        max: usize,
    },
    /// The file alone is over its kind's limit.
    #[error("the file is larger than {max} bytes")]
    TooLarge {
        /// The limit.
        max: u64,
    },
    /// With it, the message's files would be over [`MAX_TOTAL_BYTES`].
    #[error("the files together would be larger than {max} bytes")]
    TotalTooLarge {
        /// The limit.
        max: u64,
    },
    /// Its bytes are no kind Hearth reads.
    #[error("the file's type is not one Hearth can read")]
    UnknownType,
    /// Documents need the edge's parser, and this deployment has none.
    #[error("this server cannot read documents of this type")]
    NoParser,
    /// An empty file.
    #[error("the file is empty")]
    Empty,
}

impl AttachError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::TooMany { .. } => "attach_too_many",
            Self::TooLarge { .. } => "attach_too_large",
            Self::TotalTooLarge { .. } => "attach_total_too_large",
            Self::UnknownType => "attach_unknown_type",
            Self::NoParser => "attach_no_parser",
            Self::Empty => "attach_empty",
        }
    }
}

/// What the deployment offers the composer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachLimits {
    /// Whether the edge parses documents.
    pub edge_parser: bool,
    /// The largest file the edge parses.
    pub edge_max_bytes: u64,
}

/// Whether a file of `kind` and `size` may join files of `held` sizes.
pub fn check_add(
    held: &[u64],
    kind: FileKind,
    size: u64,
    limits: AttachLimits,
) -> Result<(), AttachError> {
    if held.len() >= MAX_ATTACHMENTS {
        return Err(AttachError::TooMany {
            max: MAX_ATTACHMENTS,
        });
    }
    if size == 0 {
        return Err(AttachError::Empty);
    }
    let max = match Reader::of(kind) {
        Reader::Browser => MAX_TEXT_BYTES,
        Reader::Edge if !limits.edge_parser => return Err(AttachError::NoParser),
        Reader::Edge => limits.edge_max_bytes,
        Reader::Image => MAX_IMAGE_BYTES,
    };
    if size > max {
        return Err(AttachError::TooLarge { max });
    }
    if held.iter().sum::<u64>() + size > MAX_TOTAL_BYTES {
        return Err(AttachError::TotalTooLarge {
            max: MAX_TOTAL_BYTES,
        });
    }
    Ok(())
}

/// `text` cut to [`MAX_TEXT_CHARS`] on a character boundary, with a note when cut.
pub fn bounded_text(text: &str) -> (String, Option<ParseNote>) {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        None => (text.to_string(), None),
        Some((end, _)) => (
            text[..end].to_string(),
            Some(ParseNote::Truncated { bytes: end as u64 }),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: AttachLimits = AttachLimits {
        edge_parser: true,
        edge_max_bytes: 1000,
    };

    #[test]
    fn kinds_are_read_where_they_can_be() {
        assert_eq!(Reader::of(FileKind::Markdown), Reader::Browser);
        assert_eq!(Reader::of(FileKind::Html), Reader::Browser);
        assert_eq!(Reader::of(FileKind::Pdf), Reader::Edge);
        assert_eq!(Reader::of(FileKind::Docx), Reader::Edge);
        assert_eq!(Reader::of(FileKind::Png), Reader::Image);
    }

    #[test]
    fn limits_are_checked_before_anything_is_added() {
        assert_eq!(check_add(&[], FileKind::Pdf, 1000, LIMITS), Ok(()));
        assert_eq!(
            check_add(&[], FileKind::Pdf, 1001, LIMITS),
            Err(AttachError::TooLarge { max: 1000 })
        );
        assert_eq!(
            check_add(
                &[],
                FileKind::Pdf,
                10,
                AttachLimits {
                    edge_parser: false,
                    ..LIMITS
                }
            ),
            Err(AttachError::NoParser)
        );
        assert_eq!(
            check_add(&[1; MAX_ATTACHMENTS], FileKind::Text, 1, LIMITS),
            Err(AttachError::TooMany {
                max: MAX_ATTACHMENTS
            })
        );
        assert_eq!(
            check_add(&[MAX_TOTAL_BYTES - 5], FileKind::Text, 6, LIMITS),
            Err(AttachError::TotalTooLarge {
                max: MAX_TOTAL_BYTES
            })
        );
        assert_eq!(
            check_add(&[], FileKind::Text, 0, LIMITS),
            Err(AttachError::Empty)
        );
        assert_eq!(
            check_add(&[], FileKind::Text, MAX_TEXT_BYTES + 1, LIMITS).map_err(|e| e.code()),
            Err("attach_too_large")
        );
    }

    #[test]
    fn text_is_bounded_with_a_note() {
        let (kept, note) = bounded_text("short");
        assert_eq!((kept.as_str(), note), ("short", None));
        let long = "é".repeat(MAX_TEXT_CHARS + 3);
        let (kept, note) = bounded_text(&long);
        assert_eq!(kept.chars().count(), MAX_TEXT_CHARS);
        assert_eq!(
            note,
            Some(ParseNote::Truncated {
                bytes: kept.len() as u64
            })
        );
    }
}
