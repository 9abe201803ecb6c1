//! The local parser: the edge turns a file into Markdown itself, with no external
//! service (`hearth_parse`: PDF, Office, OpenDocument, EPUB, HTML, text kinds). Parsing
//! runs inside the worker process only ([`super::worker`]); the type check runs at
//! upload, from the bytes (`hearth_core::filetype`).

use hearth_core::api::doc_parse::{ParseNote, ParsedPage};
use hearth_core::filetype::sniff;
use hearth_parse::{Limits, Note, Parsed};

use super::job::{Outcome, failure};

/// Parses `bytes` (named `name`, a hint only) into at most `max_output` bytes of text.
pub fn parse(bytes: &[u8], name: Option<&str>, max_output: u64) -> Outcome {
    let limits = Limits {
        max_input_bytes: bytes.len() as u64,
        max_output_bytes: usize::try_from(max_output).unwrap_or(usize::MAX),
        ..Limits::default()
    };
    match hearth_parse::parse(bytes, name, &limits) {
        Ok(parsed) => completed(parsed),
        Err(error) => Outcome::Failed {
            error: failure(error.code(), error.to_string()),
        },
    }
}

fn completed(parsed: Parsed) -> Outcome {
    // Each page's text appears in the Markdown in order: its offset is where it starts.
    let mut from = 0;
    let pages = parsed
        .pages
        .iter()
        .map(|page| {
            let offset = parsed.markdown[from..]
                .find(page.text.as_str())
                .map_or(from, |at| from + at);
            from = (offset + page.text.len()).min(parsed.markdown.len());
            ParsedPage {
                number: page.number,
                offset: offset as u64,
                has_text: page.has_text_layer,
            }
        })
        .collect();
    let notes = parsed
        .notes
        .iter()
        .map(|note| match note {
            Note::OutputTruncated { at_bytes } => ParseNote::Truncated {
                bytes: *at_bytes as u64,
            },
            Note::PagesWithoutText { pages } => ParseNote::PagesWithoutText {
                pages: pages.clone(),
            },
            other => ParseNote::Skipped {
                what: other.to_string(),
            },
        })
        .collect();
    Outcome::Completed {
        markdown: parsed.markdown,
        pages,
        notes,
    }
}

/// The type of `bytes` as the job records it, or why it is refused: a kind the parser
/// reads, never an image or unknown bytes.
pub fn kind_of(bytes: &[u8], name: Option<&str>) -> Result<String, String> {
    match sniff(bytes, name) {
        Ok(kind) if kind.is_image() => Err(format!(
            "The file is an image ({kind}); images are not parsed into text"
        )),
        Ok(kind) => Ok(kind.as_str().to_string()),
        Err(_) => Err("The file's bytes are not a type Hearth can parse".to_string()),
    }
}
