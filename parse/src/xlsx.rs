//! Excel workbooks (XLSX): every sheet in workbook order as `## Sheet name` and a
//! Markdown table of its cells, placed by their references; shared strings (rich text
//! runs joined, phonetic guides left out), inline strings, formula results as cached,
//! numbers as stored, booleans as TRUE/FALSE, error values as written.
//!
//! Not read: number formats (a date is its serial number), merged-cell ranges, charts,
//! comments, hidden-sheet state (hidden sheets are read too).

use hearth_core::filetype::FileKind;

use crate::archive::Archive;
use crate::error::ParseError;
use crate::limits::Limits;
use crate::ooxml::{self, skippable};
use crate::output::{Note, Output};
use crate::table::{MAX_COLUMNS, Table};
use crate::xml::{Tag, Xml, attr, local, rel_id};

const KIND: FileKind = FileKind::Xlsx;

pub(crate) fn parse(
    bytes: &[u8],
    limits: &Limits,
    out: &mut Output,
    notes: &mut Vec<Note>,
) -> Result<(), ParseError> {
    let mut zip = Archive::open(bytes, KIND, &limits.zip)?;
    let workbook = ooxml::main_part(&mut zip, KIND, "xl/workbook.xml")?;
    let text = zip
        .read_text(&workbook)?
        .ok_or_else(|| ParseError::malformed(KIND, format!("the part {workbook} is missing")))?;
    let sheets = sheet_list(&text)?;
    let rels = ooxml::part_relationships(&mut zip, KIND, &workbook)?;
    let strings_part = rels
        .iter()
        .find(|(_, _, t)| t.ends_with("/sharedStrings"))
        .map_or_else(|| "xl/sharedStrings.xml".to_string(), |(_, t, _)| t.clone());
    let shared = match zip.read_text(&strings_part)? {
        Some(text) => shared_strings(&text)?,
        None => Vec::new(),
    };
    let mut skipped = Vec::new();
    let mut dropped = false;
    for (name, rel_id) in sheets {
        if out.full() {
            break;
        }
        let Some((_, part, _)) = rels.iter().find(|(id, _, _)| *id == rel_id) else {
            skipped.push(format!("sheet {name}"));
            continue;
        };
        let table = match zip.read_text(part) {
            Ok(Some(text)) => sheet(&text, &shared, out.room()),
            Ok(None) => {
                skipped.push(part.clone());
                continue;
            }
            Err(e) => Err(e),
        };
        match table {
            Ok(table) => {
                dropped |= table.dropped;
                out.block(&format!("## {}", name.trim()));
                out.block(&table.render());
            }
            Err(e) if skippable(&e) => skipped.push(part.clone()),
            Err(e) => return Err(e),
        }
    }
    if dropped {
        notes.push(Note::ColumnsDropped { kept: MAX_COLUMNS });
    }
    if !skipped.is_empty() {
        notes.push(Note::PartsSkipped { parts: skipped });
    }
    Ok(())
}

/// The sheets as (name, relationship id), in workbook order.
fn sheet_list(text: &str) -> Result<Vec<(String, String)>, ParseError> {
    let mut xml = Xml::new(text, KIND);
    let mut sheets = Vec::new();
    loop {
        match xml.next()? {
            Tag::Start(start) if local(&start) == "sheet" => {
                let name = attr(&start, "name").unwrap_or_default();
                if let Some(id) = rel_id(&start) {
                    sheets.push((name, id));
                }
            }
            Tag::Eof => return Ok(sheets),
            _ => {}
        }
    }
}

/// The shared string table.
fn shared_strings(text: &str) -> Result<Vec<String>, ParseError> {
    let mut xml = Xml::new(text, KIND);
    let mut strings = Vec::new();
    let mut current: Option<String> = None;
    let mut in_text = false;
    let mut in_phonetic = false;
    loop {
        match xml.next()? {
            Tag::Start(start) => match local(&start) {
                "si" => current = Some(String::new()),
                "t" => in_text = true,
                "rPh" => in_phonetic = true,
                _ => {}
            },
            Tag::Text(t) if in_text && !in_phonetic => {
                if let Some(s) = current.as_mut() {
                    s.push_str(&t);
                }
            }
            Tag::End(name) => match name.as_str() {
                "si" => strings.extend(current.take()),
                "t" => in_text = false,
                "rPh" => in_phonetic = false,
                _ => {}
            },
            Tag::Eof => return Ok(strings),
            Tag::Text(_) => {}
        }
    }
}

#[derive(Debug, Default)]
struct Cell {
    column: Option<usize>,
    kind: String,
    value: String,
    inline: String,
}

/// One worksheet's cells, collected until about `room` bytes of text.
fn sheet(text: &str, shared: &[String], room: usize) -> Result<Table, ParseError> {
    let mut xml = Xml::new(text, KIND);
    let mut table = Table::default();
    let mut cell: Option<Cell> = None;
    let mut next_column = 0usize;
    let mut in_value = false;
    let mut in_inline = false;
    let mut in_phonetic = false;
    while table.bytes <= room {
        match xml.next()? {
            Tag::Start(start) => match local(&start) {
                "row" => {
                    table.start_row();
                    next_column = 0;
                }
                "c" => {
                    cell = Some(Cell {
                        column: attr(&start, "r").and_then(|r| column_of(&r)),
                        kind: attr(&start, "t").unwrap_or_default(),
                        ..Cell::default()
                    });
                }
                "v" => in_value = true,
                "is" => in_inline = true,
                "rPh" => in_phonetic = true,
                _ => {}
            },
            Tag::Text(t) => {
                if let Some(c) = cell.as_mut() {
                    if in_value {
                        c.value.push_str(&t);
                    } else if in_inline && !in_phonetic {
                        c.inline.push_str(&t);
                    }
                }
            }
            Tag::End(name) => match name.as_str() {
                "v" => in_value = false,
                "is" => in_inline = false,
                "rPh" => in_phonetic = false,
                "c" => {
                    if let Some(c) = cell.take() {
                        let column = c.column.unwrap_or(next_column);
                        next_column = column + 1;
                        table.put_cell(column, value_of(&c, shared));
                    }
                }
                _ => {}
            },
            Tag::Eof => break,
        }
    }
    Ok(table)
}

/// A cell's text by its type.
fn value_of(c: &Cell, shared: &[String]) -> String {
    match c.kind.as_str() {
        "s" => c
            .value
            .trim()
            .parse::<usize>()
            .ok()
            .and_then(|i| shared.get(i))
            .cloned()
            .unwrap_or_default(),
        "inlineStr" => c.inline.clone(),
        "b" => match c.value.trim() {
            "1" => "TRUE".to_string(),
            "0" => "FALSE".to_string(),
            other => other.to_string(),
        },
        _ => c.value.clone(),
    }
}

/// The zero-based column of a reference (`C7` → 2); `None` past the last column Excel has.
fn column_of(reference: &str) -> Option<usize> {
    let letters = reference.bytes().take_while(u8::is_ascii_alphabetic);
    let mut column = 0usize;
    let mut any = false;
    for b in letters {
        any = true;
        column = column * 26 + usize::from(b.to_ascii_uppercase() - b'A') + 1;
        if column > 16_384 {
            return None;
        }
    }
    any.then(|| column - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_letters() {
        assert_eq!(column_of("A1"), Some(0));
        assert_eq!(column_of("c7"), Some(2));
        assert_eq!(column_of("AA10"), Some(26));
        assert_eq!(column_of("XFD1"), Some(16_383));
        assert_eq!(column_of("ZZZZ1"), None);
        assert_eq!(column_of("12"), None);
    }
}
