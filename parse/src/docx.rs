//! Word documents (DOCX): the main document part's paragraphs in order, `Heading1`..`6`
//! (and `Title`) paragraph styles as `#` headings, numbered or bulleted paragraphs as
//! `-` list items indented by level, tables (nested ones flattened into their cell) as
//! Markdown tables with horizontally merged cells kept in their columns. A text box is
//! read once (its `mc:Fallback` copy is skipped), before the paragraph that anchors it.
//!
//! Not read: headers, footers, footnotes, comments, deleted revisions and field codes,
//! images; list numbering is shown as bullets.

use hearth_core::filetype::FileKind;

use crate::archive::Archive;
use crate::error::ParseError;
use crate::limits::Limits;
use crate::ooxml;
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
    let dropped = document(&text, out)?;
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
fn document(text: &str, out: &mut Output) -> Result<bool, ParseError> {
    let mut xml = Xml::new(text, KIND).skipping(&FALLBACK);
    let mut paras: Vec<Para> = Vec::new();
    let mut tables: Vec<OpenTable> = Vec::new();
    let mut in_text = false;
    let mut in_props = 0usize;
    let mut last_list = false;
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
                "numId" if attr(&start, "val").as_deref() == Some("0") => {
                    if let Some(p) = paras.last_mut() {
                        p.list_level = None;
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
                        last_list = write_para(out, &p, last_list);
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
                        last_list = false;
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

/// Writes one body paragraph; returns whether it was a list item.
fn write_para(out: &mut Output, p: &Para, last_list: bool) -> bool {
    let text = p.text.trim();
    if text.is_empty() {
        return last_list;
    }
    if let Some(level) = p.heading {
        let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        out.block(&format!("{} {line}", "#".repeat(level)));
        false
    } else if let Some(level) = p.list_level {
        let item = format!("{}- {}", "  ".repeat(level), text.replace('\n', " "));
        if last_list {
            out.line(&item);
        } else {
            out.block(&item);
        }
        true
    } else {
        out.block(text);
        false
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
