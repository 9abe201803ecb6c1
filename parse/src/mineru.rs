//! MinerU results: the ZIP a MinerU parse service returns, whose `full.md` (at the root
//! or in one folder) is the document as Markdown. Read with the same ZIP bounds as every
//! archive, and `full.md` itself capped at the output limit.

use hearth_core::filetype::FileKind;

use crate::archive::{Archive, utf8};
use crate::error::{Oversized, ParseError};
use crate::limits::Limits;

/// The kind MinerU archives are reported as in errors (they are not a document kind).
const KIND: FileKind = FileKind::Markdown;
const MARKDOWN: &str = "full.md";

/// The `full.md` of a MinerU result archive.
pub fn mineru_result(zip_bytes: &[u8], limits: &Limits) -> Result<String, ParseError> {
    if zip_bytes.len() as u64 > limits.max_input_bytes {
        return Err(ParseError::TooLarge {
            what: Oversized::Input,
            limit: limits.max_input_bytes,
        });
    }
    let mut zip = Archive::open(zip_bytes, KIND, &limits.zip)?;
    // The shallowest `full.md` (MinerU puts it at the root or in the job's folder).
    let name = zip
        .names()
        .filter(|n| *n == MARKDOWN || n.ends_with("/full.md"))
        .min_by_key(|n| (n.matches('/').count(), n.len()))
        .map(str::to_string)
        .ok_or(ParseError::MineruMissingMarkdown)?;
    let cap = limits.max_output_bytes as u64;
    let bytes = zip
        .read_capped(&name, cap, |_, limit| ParseError::TooLarge {
            what: Oversized::MineruMarkdown,
            limit,
        })?
        .ok_or(ParseError::MineruMissingMarkdown)?;
    utf8(KIND, &name, bytes)
}
