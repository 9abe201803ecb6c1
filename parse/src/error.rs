//! Why a parse failed: one typed error with a stable code per variant, and messages a
//! user can act on.

use hearth_core::filetype::{FileKind, UnknownType};

/// A parse that did not produce text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The bytes are of no kind Hearth recognises.
    #[error(transparent)]
    UnknownType(#[from] UnknownType),
    /// A recognised kind that has no text to extract (an image).
    #[error("a {kind} file is an image, not a document with text; attach it as an image instead")]
    Unsupported {
        /// The kind that was recognised.
        kind: FileKind,
    },
    /// The input, or MinerU's `full.md`, is larger than the limit.
    #[error(
        "the {what} is larger than the {limit} bytes Hearth reads; split it into smaller files"
    )]
    TooLarge {
        /// What was too large.
        what: Oversized,
        /// The limit in bytes.
        limit: u64,
    },
    /// A ZIP archive that inflates past a bound.
    #[error("the archive was refused as a possible ZIP bomb: {reason}")]
    ZipBomb {
        /// Which bound it crossed.
        reason: Bomb,
    },
    /// A ZIP entry whose name could escape a folder.
    #[error("the archive was refused: the entry name {name:?} points outside the archive")]
    PathTraversal {
        /// The entry name as stored.
        name: String,
    },
    /// A password-protected document or archive entry.
    #[error("this {kind} file is password-protected; remove the password and upload it again")]
    Encrypted {
        /// The kind of the file.
        kind: FileKind,
    },
    /// Bytes that do not follow their format.
    #[error("this {kind} file is damaged or not what its contents claim ({detail})")]
    Malformed {
        /// The kind the bytes were sniffed as.
        kind: FileKind,
        /// What was wrong, for the log and the curious user.
        detail: String,
    },
    /// A PDF in which no page has text (a scan).
    #[error(
        "none of this PDF's {pages} pages has a text layer (it is probably scanned); \
         run it through OCR, or use a parse service that does OCR"
    )]
    NoTextLayer {
        /// How many pages the PDF has.
        pages: u32,
    },
    /// A MinerU result archive without `full.md`.
    #[error("the MinerU result has no full.md; the parse service may have failed")]
    MineruMissingMarkdown,
}

impl ParseError {
    /// The stable error code of this variant.
    pub fn code(&self) -> &'static str {
        match self {
            ParseError::UnknownType(e) => e.code(),
            ParseError::Unsupported { .. } => "parse_unsupported",
            ParseError::TooLarge { .. } => "parse_too_large",
            ParseError::ZipBomb { .. } => "parse_zip_bomb",
            ParseError::PathTraversal { .. } => "parse_path_traversal",
            ParseError::Encrypted { .. } => "parse_encrypted",
            ParseError::Malformed { .. } => "parse_malformed",
            ParseError::NoTextLayer { .. } => "parse_no_text_layer",
            ParseError::MineruMissingMarkdown => "parse_mineru_missing_markdown",
        }
    }

    /// A `Malformed` error for `kind`.
    pub(crate) fn malformed(kind: FileKind, detail: impl std::fmt::Display) -> Self {
        ParseError::Malformed {
            kind,
            detail: detail.to_string(),
        }
    }
}

/// What [`ParseError::TooLarge`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Oversized {
    /// The uploaded file.
    Input,
    /// The `full.md` of a MinerU result.
    MineruMarkdown,
}

impl std::fmt::Display for Oversized {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Oversized::Input => "file",
            Oversized::MineruMarkdown => "MinerU result's full.md",
        })
    }
}

/// The bound a ZIP bomb crossed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Bomb {
    /// More entries than allowed.
    #[error("it lists at least {count} entries, more than the {limit} allowed")]
    TooManyEntries {
        /// How many were counted (at least).
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// One entry inflates past the per-entry cap.
    #[error("{entry:?} inflates to more than {limit} bytes")]
    EntryTooLarge {
        /// The entry.
        entry: String,
        /// The limit.
        limit: u64,
    },
    /// The entries read inflate past the total cap.
    #[error("its entries inflate to more than {limit} bytes in total")]
    TotalTooLarge {
        /// The limit.
        limit: u64,
    },
    /// An entry inflates far more than its compressed bytes can honestly hold.
    #[error("{entry:?} inflates more than {limit} times its compressed size")]
    Ratio {
        /// The entry.
        entry: String,
        /// The limit.
        limit: u64,
    },
    /// An entry inflates past the size its directory record declares.
    #[error("{entry:?} inflates past the {declared} bytes it declares")]
    SizeMismatch {
        /// The entry.
        entry: String,
        /// The declared size.
        declared: u64,
    },
}
