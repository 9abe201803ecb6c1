//! What a parse returns ([`Parsed`], [`Page`], [`Note`]) and the bounded writer every
//! parser appends its Markdown through, so no parser can exceed the output cap or cut it
//! silently.

use hearth_core::filetype::FileKind;
use serde::Serialize;

/// A parsed document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Parsed {
    /// The kind sniffed from the bytes.
    pub kind: FileKind,
    /// The document's text as Markdown (untrusted data: render it only through
    /// `hearth_core::markdown`).
    pub markdown: String,
    /// Per-page text, for PDFs; empty for every other kind.
    pub pages: Vec<Page>,
    /// What the reader should know about this text: cuts, pages without text, parts not
    /// read.
    pub notes: Vec<Note>,
}

/// One PDF page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// The page number, from 1.
    pub number: u32,
    /// The page's text as it appears in `markdown` (cut with it).
    pub text: String,
    /// Whether the page has any extractable text; `false` is a scanned page.
    pub has_text_layer: bool,
}

/// A visible fact about a parse's result; never is anything dropped without one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "note", rename_all = "camelCase")]
pub enum Note {
    /// The Markdown was cut at `at_bytes` (the output cap); the rest was not read.
    #[serde(rename_all = "camelCase")]
    OutputTruncated {
        /// The length kept, in bytes.
        at_bytes: usize,
    },
    /// These pages have no text layer (probably scanned); their text is empty.
    PagesWithoutText {
        /// Page numbers, from 1.
        pages: Vec<u32>,
    },
    /// Only the first `read` of `total` pages were read (the page cap).
    PagesNotRead {
        /// Pages read.
        read: u32,
        /// Pages in the document.
        total: u32,
    },
    /// These pages could not be read (the PDF reader failed on them); their text is empty.
    PagesUnreadable {
        /// Page numbers, from 1.
        pages: Vec<u32>,
    },
    /// Parts of the document (slides, sheets, chapters) that are listed but missing or
    /// damaged, and were skipped.
    PartsSkipped {
        /// The parts' names inside the archive.
        parts: Vec<String>,
    },
    /// A table had more columns than are kept; the rest were dropped.
    ColumnsDropped {
        /// The columns kept per table.
        kept: usize,
    },
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Note::OutputTruncated { at_bytes } => {
                write!(f, "output cut at {at_bytes} bytes; the rest was not read")
            }
            Note::PagesWithoutText { pages } => {
                write!(f, "pages {} have no text layer (scanned)", list(pages))
            }
            Note::PagesNotRead { read, total } => {
                write!(f, "only the first {read} of {total} pages were read")
            }
            Note::PagesUnreadable { pages } => {
                write!(f, "pages {} could not be read", list(pages))
            }
            Note::PartsSkipped { parts } => {
                write!(f, "missing or damaged parts skipped: {}", parts.join(", "))
            }
            Note::ColumnsDropped { kept } => {
                write!(f, "tables wider than {kept} columns were cut to {kept}")
            }
        }
    }
}

fn list(pages: &[u32]) -> String {
    pages
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The Markdown being written, never longer than its cap.
#[derive(Debug)]
pub(crate) struct Output {
    text: String,
    limit: usize,
    cut: bool,
}

impl Output {
    pub(crate) fn new(limit: usize) -> Self {
        Output {
            text: String::new(),
            limit,
            cut: false,
        }
    }

    /// Whether the cap was reached; parsers stop reading once it is.
    pub(crate) fn full(&self) -> bool {
        self.cut
    }

    /// Bytes still free.
    pub(crate) fn room(&self) -> usize {
        self.limit - self.text.len()
    }

    /// Appends `s`, or as much of it as fits (cut on a character boundary). Returns the
    /// part appended.
    pub(crate) fn push<'s>(&mut self, s: &'s str) -> &'s str {
        if self.cut {
            return "";
        }
        let room = self.room();
        if s.len() <= room {
            self.text.push_str(s);
            return s;
        }
        let mut end = room;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&s[..end]);
        self.cut = true;
        &s[..end]
    }

    /// Appends a Markdown block, after a blank line if text precedes it. Empty blocks are
    /// skipped. Returns the part of `block` appended.
    pub(crate) fn block<'s>(&mut self, block: &'s str) -> &'s str {
        self.with_separator("\n\n", block)
    }

    /// Appends a line after a single newline (list items, slide lines).
    pub(crate) fn line<'s>(&mut self, line: &'s str) -> &'s str {
        self.with_separator("\n", line)
    }

    fn with_separator<'s>(&mut self, separator: &str, text: &'s str) -> &'s str {
        let text = text.trim_end();
        if text.trim_start().is_empty() {
            return "";
        }
        if !self.text.is_empty() {
            self.push(separator);
        }
        self.push(text)
    }

    /// The text, with a note if it was cut.
    pub(crate) fn finish(self, notes: &mut Vec<Note>) -> String {
        if self.cut {
            notes.push(Note::OutputTruncated {
                at_bytes: self.text.len(),
            });
        }
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_cut_on_a_char_boundary_with_a_note() {
        let mut out = Output::new(5);
        assert_eq!(out.push("ab"), "ab");
        // "é" is two bytes: "abcé" is 5 bytes, "abcéd" 6.
        assert_eq!(out.push("céd"), "cé");
        assert!(out.full());
        assert_eq!(out.push("more"), "");
        let mut notes = Vec::new();
        assert_eq!(out.finish(&mut notes), "abcé");
        assert_eq!(notes, vec![Note::OutputTruncated { at_bytes: 5 }]);

        let mut out = Output::new(4);
        out.push("abc");
        out.push("é");
        let mut notes = Vec::new();
        assert_eq!(out.finish(&mut notes), "abc");
        assert_eq!(notes, vec![Note::OutputTruncated { at_bytes: 3 }]);
    }

    #[test]
    fn blocks_are_separated_and_empty_ones_skipped() {
        let mut out = Output::new(100);
        out.block("# A");
        out.block("  \n");
        out.block("text  \n");
        out.line("- b");
        let mut notes = Vec::new();
        assert_eq!(out.finish(&mut notes), "# A\n\ntext\n- b");
        assert!(notes.is_empty());
        assert_eq!(
            Note::PagesWithoutText { pages: vec![3, 5] }.to_string(),
            "pages 3, 5 have no text layer (scanned)"
        );
    }
}
