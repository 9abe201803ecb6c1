//! PDF text, page by page, through pdf_oxide: each page's text layer, pages without one
//! flagged (scanned), a PDF with none at all refused as `NoTextLayer`, a PDF that needs a
//! password refused as `Encrypted` (one whose empty user password opens it is read).
//!
//! pdf_oxide is a large parser of hostile input; a panic inside it is caught here and
//! becomes `Malformed` (or an unreadable page), so one bad file cannot take the caller's
//! thread down. Time is not bounded here: the edge runs parses in a subprocess it can
//! kill.

use std::panic::{AssertUnwindSafe, catch_unwind};

use hearth_core::filetype::FileKind;
use pdf_oxide::PdfDocument;

use crate::error::ParseError;
use crate::limits::Limits;
use crate::output::{Note, Output, Page};

const KIND: FileKind = FileKind::Pdf;
/// After this many unreadable pages in a row the rest are not tried: a `/Count` larger
/// than the tree makes every later page fail the same way.
const MAX_FAILURES_IN_A_ROW: usize = 16;

pub(crate) fn parse(
    bytes: &[u8],
    limits: &Limits,
    out: &mut Output,
    notes: &mut Vec<Note>,
) -> Result<Vec<Page>, ParseError> {
    let doc = guarded(|| PdfDocument::from_bytes(bytes.to_vec()))?.map_err(error)?;
    if guarded(|| doc.is_encrypted() && !doc.is_authenticated())? {
        return Err(ParseError::Encrypted { kind: KIND });
    }
    let total = match guarded(|| declared_pages(&doc))?? {
        // A tree that declares no pages may be one `page_count` can still walk (pdf_oxide
        // probes pages one by one, linearly); a tree it cannot read is never handed to it.
        0 => guarded(|| doc.page_count())?.map_err(error)?,
        n => n,
    };
    let total = u32::try_from(total).unwrap_or(u32::MAX);
    if total == 0 {
        return Err(ParseError::malformed(KIND, "the document has no pages"));
    }
    let mut read = total.min(limits.max_pages);
    let mut pages = Vec::new();
    let mut without_text = Vec::new();
    let mut unreadable = Vec::new();
    let mut failures_in_a_row = 0;
    for index in 0..read {
        if out.full() {
            break;
        }
        let number = index + 1;
        let text = match guarded(|| doc.extract_text(index as usize)) {
            Ok(Ok(text)) => text,
            Ok(Err(pdf_oxide::Error::EncryptedPdf)) => {
                return Err(ParseError::Encrypted { kind: KIND });
            }
            Ok(Err(_)) | Err(_) => {
                unreadable.push(number);
                pages.push(Page {
                    number,
                    text: String::new(),
                    has_text_layer: false,
                });
                failures_in_a_row += 1;
                if failures_in_a_row == MAX_FAILURES_IN_A_ROW {
                    read = number;
                    break;
                }
                continue;
            }
        };
        failures_in_a_row = 0;
        let text = text.trim();
        let has_text_layer = !text.is_empty();
        if !has_text_layer {
            without_text.push(number);
        }
        let kept = out.block(text).to_string();
        pages.push(Page {
            number,
            text: kept,
            has_text_layer,
        });
    }
    if !pages.is_empty() && pages.iter().all(|p| !p.has_text_layer) {
        return Err(if unreadable.is_empty() {
            ParseError::NoTextLayer { pages: total }
        } else {
            ParseError::malformed(
                KIND,
                format!("none of its pages could be read ({} tried)", pages.len()),
            )
        });
    }
    if !without_text.is_empty() {
        notes.push(Note::PagesWithoutText {
            pages: without_text,
        });
    }
    if !unreadable.is_empty() {
        notes.push(Note::PagesUnreadable { pages: unreadable });
    }
    if read < total {
        notes.push(Note::PagesNotRead { read, total });
    }
    Ok(pages)
}

/// The page tree root's `/Count`, read through the catalog.
///
/// `PdfDocument::page_count` falls back, when this read fails, to counting the tree
/// recursively with a depth cap but no visited set: a `/Pages` node whose `/Kids` hold
/// itself twice makes that 2^50 calls (a hang). So a PDF whose declared count cannot be
/// read is refused here as `Malformed` instead.
fn declared_pages(doc: &PdfDocument) -> Result<usize, ParseError> {
    let unreadable = |why: &str| ParseError::malformed(KIND, format!("the page tree {why}"));
    let catalog = doc.catalog().map_err(error)?;
    let pages = catalog
        .as_dict()
        .and_then(|d| d.get("Pages"))
        .and_then(|p| p.as_reference())
        .ok_or_else(|| unreadable("is not named by the catalog"))?;
    let root = doc.load_object(pages).map_err(error)?;
    let count = root
        .as_dict()
        .and_then(|d| d.get("Count"))
        .ok_or_else(|| unreadable("has no /Count"))?;
    let count = match count.as_reference() {
        Some(reference) => doc.load_object(reference).map_err(error)?.as_integer(),
        None => count.as_integer(),
    };
    count
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| unreadable("has a /Count that is not a page count"))
}

/// Runs `f`, turning a panic into `Malformed`.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, ParseError> {
    catch_unwind(AssertUnwindSafe(f))
        .map_err(|_| ParseError::malformed(KIND, "the PDF reader failed on this file"))
}

fn error(e: pdf_oxide::Error) -> ParseError {
    match e {
        pdf_oxide::Error::EncryptedPdf => ParseError::Encrypted { kind: KIND },
        other => ParseError::malformed(KIND, other),
    }
}
