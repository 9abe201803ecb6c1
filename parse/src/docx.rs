//! Word documents (DOCX): the main document part's paragraphs in order, `Heading1`..`6`
//! (and `Title`) paragraph styles as `#` headings, list paragraphs as list items with
//! the numbers Word shows (`numbering`: `1.` items, `- a)` and `- 1.2.` labels, `-`
//! bullets), each level indented under its parent's text, tables (nested ones flattened
//! into their cell) as Markdown tables with horizontally merged cells kept in their
//! columns. A text box is read once (its `mc:Fallback` copy is skipped), before the
//! paragraph that anchors it.
//!
//! Not read: headers, footers, footnotes, comments, deleted revisions and field codes,
//! images; numbering a paragraph style carries (only a paragraph's own `numPr` makes it
//! a list item); list paragraphs inside table cells are neither labelled nor counted.

use hearth_core::filetype::FileKind;

use crate::archive::Archive;
use crate::error::ParseError;
use crate::limits::Limits;
use crate::numbering::{LEVELS, Numbering};
use crate::ooxml::{self, skippable};
use crate::output::{Note, Output};
use crate::table::Table;
use crate::xml::{Tag, Xml, attr, local};

/// `mc:Fallback` repeats, for older readers, content its `mc:Choice` already holds.
const FALLBACK: [&str; 1] = ["Fallback"];
const KIND: FileKind = FileKind::Docx;

pub(crate) fn parse(
    bytes: &[u8],
    limits: &Limits,
    out: &mut Output,
    notes: &mut Vec<Note>,
) -> Result<(), ParseError> {
    let mut zip = Archive::open(bytes, KIND, &limits.zip)?;
    let main = ooxml::main_part(&mut zip, KIND, "word/document.xml")?;
    let text = zip
        .read_text(&main)?
        .ok_or_else(|| ParseError::malformed(KIND, format!("the part {main} is missing")))?;
    let rels = ooxml::part_relationships(&mut zip, KIND, &main)?;
    let numbering_part = rels
        .iter()
        .find(|(_, _, t)| t.ends_with("/numbering"))
        .map_or_else(|| "word/numbering.xml".to_string(), |(_, t, _)| t.clone());
    // Without its numbering a document's lists are still read, as bullets, and the note
    // says the numbering was skipped.
    let read = zip
        .read_text(&numbering_part)
        .map(|t| t.map(|t| Numbering::read(&t)));
    let mut numbering = match read {
        Ok(None) => Numbering::default(),
        Ok(Some(Ok(numbering))) => numbering,
        Ok(Some(Err(e))) | Err(e) if skippable(&e) => {
            notes.push(Note::PartsSkipped {
                parts: vec![numbering_part],
            });
            Numbering::default()
        }
        Ok(Some(Err(e))) | Err(e) => return Err(e),
    };
    let dropped = document(&text, &mut numbering, out)?;
    if dropped {
        notes.push(Note::ColumnsDropped {
            kept: crate::table::MAX_COLUMNS,
        });
    }
    Ok(())
}

#[derive(Debug, Default)]
struct Para {
    text: String,
    heading: Option<usize>,
    list_level: Option<usize>,
    /// Its list instance (`numId`).
    num_id: Option<String>,
}

/// The list items written one after another: where each level's text starts, so a
/// nested item's marker goes under its parent's text.
#[derive(Debug, Clone, Copy)]
struct ListRun {
    /// Whether the last block written was a list item.
    open: bool,
    widths: [usize; LEVELS],
}

impl Default for ListRun {
    fn default() -> Self {
        Self {
            open: false,
            widths: [2; LEVELS],
        }
    }
}

#[derive(Debug, Default)]
struct OpenTable {
    table: Table,
    cell: Option<String>,
    span: usize,
}

/// Elements whose children describe formatting, not content (a `tab` inside `pPr` is a
/// tab stop, not a tab).
const PROPERTIES: [&str; 6] = ["pPr", "rPr", "tblPr", "trPr", "tcPr", "sectPr"];

/// Writes the document body; returns whether a table lost columns.
fn document(text: &str, numbering: &mut Numbering, out: &mut Output) -> Result<bool, ParseError> {
    let mut xml = Xml::new(text, KIND).skipping(&FALLBACK);
    let mut paras: Vec<Para> = Vec::new();
    let mut tables: Vec<OpenTable> = Vec::new();
    let mut in_text = false;
    let mut in_props = 0usize;
    let mut list = ListRun::default();
    let mut dropped = false;
    while !out.full() {
        match xml.next()? {
            Tag::Start(start) => match local(&start) {
                name if PROPERTIES.contains(&name) => in_props += 1,
                "p" => paras.push(Para::default()),
                "pStyle" => {
                    if let (Some(p), Some(style)) = (paras.last_mut(), attr(&start, "val")) {
                        p.heading = heading_level(&style);
                    }
                }
                "numPr" => {
                    if let Some(p) = paras.last_mut() {
                        p.list_level = Some(0);
                    }
                }
                "ilvl" => {
                    if let Some(p) = paras.last_mut() {
                        let level = attr(&start, "val").and_then(|v| v.parse().ok());
                        p.list_level = Some(level.unwrap_or(0).min(8));
                    }
                }
                "numId" => {
                    if let Some(p) = paras.last_mut() {
                        match attr(&start, "val") {
                            Some(id) if id.trim() == "0" => p.list_level = None,
                            id => p.num_id = id,
                        }
                    }
                }
                "t" => in_text = true,
                "tab" if in_props == 0 => push_text(&mut paras, "\t"),
                "br" | "cr" if in_props == 0 => push_text(&mut paras, "\n"),
                "tbl" => tables.push(OpenTable::default()),
                "tr" => {
                    if let Some(t) = tables.last_mut() {
                        t.table.start_row();
                    }
                }
                "tc" => {
                    if let Some(t) = tables.last_mut() {
                        t.cell = Some(String::new());
                        t.span = 1;
                    }
                }
                "gridSpan" => {
                    if let Some(t) = tables.last_mut() {
                        let span = attr(&start, "val").and_then(|v| v.parse().ok());
                        t.span = span.unwrap_or(1).clamp(1, crate::table::MAX_COLUMNS);
                    }
                }
                _ => {}
            },
            Tag::Text(text) if in_text => push_text(&mut paras, &text),
            Tag::Text(_) => {}
            Tag::End(name) => match name.as_str() {
                name if PROPERTIES.contains(&name) => in_props = in_props.saturating_sub(1),
                "t" => in_text = false,
                "p" => {
                    let Some(p) = paras.pop() else { continue };
                    if let Some(cell) = tables.last_mut().and_then(|t| t.cell.as_mut()) {
                        append(cell, &p.text);
                    } else {
                        list = write_para(out, &p, list, numbering);
                    }
                }
                "tc" => {
                    if let Some(t) = tables.last_mut()
                        && let Some(cell) = t.cell.take()
                    {
                        t.table.push_cell(cell);
                        for _ in 1..t.span {
                            t.table.push_cell(String::new());
                        }
                    }
                }
                "tbl" => {
                    let Some(done) = tables.pop() else { continue };
                    dropped |= done.table.dropped;
                    if let Some(cell) = tables.last_mut().and_then(|t| t.cell.as_mut()) {
                        for row in &done.table.rows {
                            append(cell, &row.join(" "));
                        }
                    } else {
                        out.block(&done.table.render());
                        list = ListRun::default();
                    }
                }
                _ => {}
            },
            Tag::Eof => break,
        }
    }
    Ok(dropped)
}

fn push_text(paras: &mut [Para], text: &str) {
    if let Some(p) = paras.last_mut() {
        p.text.push_str(text);
    }
}

/// Appends a paragraph's text to a table cell, a space between paragraphs.
fn append(cell: &mut String, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if !cell.is_empty() {
        cell.push(' ');
    }
    cell.push_str(text);
}

/// Writes one body paragraph after `list`; the list run after it.
fn write_para(out: &mut Output, p: &Para, list: ListRun, numbering: &mut Numbering) -> ListRun {
    let text = p.text.trim();
    if text.is_empty() {
        return list;
    }
    if let Some(level) = p.heading {
        let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        out.block(&format!("{} {line}", "#".repeat(level)));
        ListRun::default()
    } else if let Some(level) = p.list_level {
        let level = level.min(LEVELS - 1);
        let mut run = if list.open { list } else { ListRun::default() };
        let marker = numbering.mark(p.num_id.as_deref().unwrap_or_default(), level);
        let indent: usize = run.widths[..level].iter().sum();
        let item = format!(
            "{}{}{}",
            " ".repeat(indent),
            marker.written(),
            text.replace('\n', " ")
        );
        if list.open {
            out.line(&item);
        } else {
            out.block(&item);
        }
        run.widths[level] = marker.width();
        run.open = true;
        run
    } else {
        out.block(text);
        ListRun::default()
    }
}

/// `Heading1`..`Heading6` (any case, `heading 1` too) and `Title`.
fn heading_level(style: &str) -> Option<usize> {
    let lower = style.to_ascii_lowercase();
    if lower == "title" {
        return Some(1);
    }
    let level: usize = lower.strip_prefix("heading")?.trim().parse().ok()?;
    (1..=6).contains(&level).then_some(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_styles() {
        assert_eq!(heading_level("Heading1"), Some(1));
        assert_eq!(heading_level("heading 6"), Some(6));
        assert_eq!(heading_level("Heading7"), None);
        assert_eq!(heading_level("Title"), Some(1));
        assert_eq!(heading_level("Normal"), None);
    }
}
