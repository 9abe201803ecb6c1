//! # hearth-parse
//!
//! Documents to text for Hearth's parse jobs: the bytes of an uploaded file in, bounded
//! Markdown out. Pure (no I/O, no clocks, no threads); the edge runs it in a subprocess
//! it can time out and kill, and the result is untrusted data to be rendered only
//! through `hearth_core::markdown`.
//!
//! The kind is sniffed from the bytes (`hearth_core::filetype`), never taken from the
//! name. Every bound is in [`Limits`]; every failure is a [`ParseError`] with a stable
//! code; every cut or skipped part is a [`Note`] in the result.
//!
//! ## Layout
//!
//! - [`limits`]: the bounds and their defaults.
//! - [`error`]: `ParseError` and its codes.
//! - [`output`]: `Parsed`, `Page`, `Note`, and the capped writer every parser appends to.
//! - `archive`: ZIP safety, the one reader of every ZIP-based format.
//! - `xml`: the XML event reader the XML-based formats share; `ooxml`: what DOCX,
//!   XLSX and PPTX share (relationships); `table`: Markdown tables; `numfmt`: which
//!   spreadsheet styles show dates and times, and serial numbers as ISO dates;
//!   `numbering`: Word's list numbers.
//! - One module per format: `pdf`, `docx`, `xlsx`, `pptx`, `odt`, `epub`, `html`,
//!   `text`; `mineru` reads a MinerU result archive.

mod archive;
mod docx;
mod epub;
pub mod error;
mod html;
pub mod limits;
mod mineru;
mod numbering;
mod numfmt;
mod odt;
mod ooxml;
pub mod output;
mod pdf;
mod pptx;
mod table;
mod text;
mod xlsx;
mod xml;

pub use error::{Bomb, Oversized, ParseError};
pub use hearth_core::filetype::{FileKind, UnknownType};
pub use limits::{Limits, ZipLimits};
pub use mineru::mineru_result;
pub use output::{Note, Page, Parsed};

use output::Output;

/// Parses a file's bytes into Markdown within `limits`. `name_hint` (the file's name)
/// only tells the text kinds apart; the bytes decide the rest.
pub fn parse(bytes: &[u8], name_hint: Option<&str>, limits: &Limits) -> Result<Parsed, ParseError> {
    if bytes.len() as u64 > limits.max_input_bytes {
        return Err(ParseError::TooLarge {
            what: Oversized::Input,
            limit: limits.max_input_bytes,
        });
    }
    let kind = hearth_core::filetype::sniff(bytes, name_hint)?;
    let mut out = Output::new(limits.max_output_bytes);
    let mut notes = Vec::new();
    let mut pages = Vec::new();
    match kind {
        FileKind::Pdf => pages = pdf::parse(bytes, limits, &mut out, &mut notes)?,
        FileKind::Docx => docx::parse(bytes, limits, &mut out, &mut notes)?,
        FileKind::Xlsx => xlsx::parse(bytes, limits, &mut out, &mut notes)?,
        FileKind::Pptx => pptx::parse(bytes, limits, &mut out, &mut notes)?,
        FileKind::Odt => odt::parse(bytes, limits, &mut out, &mut notes)?,
        FileKind::Epub => epub::parse(bytes, limits, &mut out, &mut notes)?,
        FileKind::Html => {
            let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            let html = String::from_utf8_lossy(body);
            out.push(&html::to_markdown(&html, kind)?);
        }
        FileKind::Markdown | FileKind::Text | FileKind::Csv | FileKind::Json => {
            text::parse(bytes, &mut out);
        }
        FileKind::Png | FileKind::Jpeg | FileKind::Gif | FileKind::Webp => {
            return Err(ParseError::Unsupported { kind });
        }
    }
    let markdown = out.finish(&mut notes);
    Ok(Parsed {
        kind,
        markdown,
        pages,
        notes,
    })
}
