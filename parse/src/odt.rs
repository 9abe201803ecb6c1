//! OpenDocument texts (ODT): `content.xml`'s headings (`text:h` by outline level),
//! paragraphs, list items (indented by nesting) and tables (repeated and covered cells
//! kept in their columns, nested tables flattened into their cell), in document order.
//!
//! Not read: footnotes and endnotes, annotations, tracked deletions, headers and
//! footers (`styles.xml`), frames' images.

use hearth_core::filetype::FileKind;

use crate::archive::Archive;
use crate::error::ParseError;
use crate::limits::Limits;
use crate::output::{Note, Output};
use crate::table::{MAX_COLUMNS, Table};
use crate::xml::{Tag, Xml, attr, local};

const KIND: FileKind = FileKind::Odt;

/// Elements whose whole subtree is left out.
const SKIPPED: [&str; 4] = ["note", "annotation", "tracked-changes", "notes"];

pub(crate) fn parse(
    bytes: &[u8],
    limits: &Limits,
    out: &mut Output,
    notes: &mut Vec<Note>,
) -> Result<(), ParseError> {
    let mut zip = Archive::open(bytes, KIND, &limits.zip)?;
    let text = zip
        .read_text("content.xml")?
        .ok_or_else(|| ParseError::malformed(KIND, "content.xml is missing"))?;
    if content(&text, out)? {
        notes.push(Note::ColumnsDropped { kept: MAX_COLUMNS });
    }
    Ok(())
}

#[derive(Debug, Default)]
struct Para {
    text: String,
    heading: Option<usize>,
    list_depth: usize,
}

#[derive(Debug, Default)]
struct OpenTable {
    table: Table,
    cell: Option<String>,
    repeat: usize,
}

/// Writes the body; returns whether a table lost columns.
fn content(text: &str, out: &mut Output) -> Result<bool, ParseError> {
    let mut xml = Xml::new(text, KIND).skipping(&SKIPPED);
    let mut paras: Vec<Para> = Vec::new();
    let mut tables: Vec<OpenTable> = Vec::new();
    let mut list_depth = 0usize;
    let mut last_list = false;
    let mut dropped = false;
    while !out.full() {
        match xml.next()? {
            Tag::Start(start) => match local(&start) {
                "h" => {
                    let level = attr(&start, "outline-level").and_then(|l| l.parse().ok());
                    paras.push(Para {
                        heading: Some(level.unwrap_or(1usize).clamp(1, 6)),
                        ..Para::default()
                    });
                }
                "p" => paras.push(Para {
                    list_depth,
                    ..Para::default()
                }),
                "list" => list_depth += 1,
                "s" => {
                    let count = attr(&start, "c").and_then(|c| c.parse().ok());
                    push_text(&mut paras, &" ".repeat(count.unwrap_or(1usize).min(100)));
                }
                "tab" => push_text(&mut paras, "\t"),
                "line-break" => push_text(&mut paras, "\n"),
                "table" => tables.push(OpenTable::default()),
                "table-row" => {
                    if let Some(t) = tables.last_mut() {
                        t.table.start_row();
                    }
                }
                "table-cell" | "covered-table-cell" => {
                    if let Some(t) = tables.last_mut() {
                        let repeat =
                            attr(&start, "number-columns-repeated").and_then(|r| r.parse().ok());
                        t.repeat = repeat.unwrap_or(1usize).clamp(1, MAX_COLUMNS);
                        t.cell = Some(String::new());
                    }
                }
                _ => {}
            },
            Tag::Text(text) => push_text(&mut paras, &collapse(&text)),
            Tag::End(name) => match name.as_str() {
                "h" | "p" => {
                    let Some(p) = paras.pop() else { continue };
                    if let Some(cell) = tables.last_mut().and_then(|t| t.cell.as_mut()) {
                        append(cell, &p.text);
                    } else if let Some(outer) = paras.last_mut() {
                        // A paragraph inside a frame inside a paragraph.
                        append(&mut outer.text, &p.text);
                    } else {
                        last_list = write_para(out, &p, last_list);
                    }
                }
                "list" => list_depth = list_depth.saturating_sub(1),
                "table-cell" | "covered-table-cell" => {
                    if let Some(t) = tables.last_mut()
                        && let Some(cell) = t.cell.take()
                    {
                        for _ in 1..t.repeat {
                            t.table.push_cell(cell.clone());
                        }
                        t.table.push_cell(cell);
                    }
                }
                "table" => {
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

/// ODF collapses runs of white space in text to one space (`text:s`, `text:tab` and
/// `text:line-break` are the literal ones).
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    out
}

fn append(target: &mut String, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if !target.is_empty() {
        target.push(' ');
    }
    target.push_str(text);
}

/// Writes one body paragraph; returns whether it was a list item.
fn write_para(out: &mut Output, p: &Para, last_list: bool) -> bool {
    let text = p.text.trim();
    if text.is_empty() {
        return last_list;
    }
    if let Some(level) = p.heading {
        let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        out.block(&format!("{} {line}", "#".repeat(level)));
        false
    } else if p.list_depth > 0 {
        let item = format!(
            "{}- {}",
            "  ".repeat(p.list_depth - 1),
            text.replace('\n', " ")
        );
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
