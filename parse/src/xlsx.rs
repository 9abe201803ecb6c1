//! Excel workbooks (XLSX): every sheet in workbook order as `## Sheet name` and a
//! Markdown table of its cells, placed by their references; shared strings (rich text
//! runs joined, phonetic guides left out), inline strings, formula results as cached,
//! numbers as stored unless their style shows a date or a time (then ISO 8601:
//! `2024-01-01`, `2024-01-01 18:00`, `12:30:00`, `36:00:00` for an elapsed time; see
//! `numfmt`), booleans as TRUE/FALSE, error values as written.
//!
//! Not read: other number formats (a price is its stored number, a percentage its
//! fraction), merged-cell ranges, charts, comments, hidden-sheet state (hidden sheets
//! are read too).

use hearth_core::filetype::FileKind;

use crate::archive::Archive;
use crate::error::ParseError;
use crate::limits::Limits;
use crate::numfmt::Shown;
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
    let (sheets, date1904) = sheet_list(&text)?;
    let rels = ooxml::part_relationships(&mut zip, KIND, &workbook)?;
    let related = |kind: &str, default: &str| {
        rels.iter()
            .find(|(_, _, t)| t.ends_with(kind))
            .map_or_else(|| default.to_string(), |(_, t, _)| t.clone())
    };
    let strings_part = related("/sharedStrings", "xl/sharedStrings.xml");
    let shared = match zip.read_text(&strings_part)? {
        Some(text) => shared_strings(&text)?,
        None => Vec::new(),
    };
    let mut skipped = Vec::new();
    // Without its styles a workbook's numbers are still read, as stored, and the note
    // says the styles were skipped.
    let styles_part = related("/styles", "xl/styles.xml");
    let shown = match zip
        .read_text(&styles_part)
        .map(|text| text.map(|t| cell_styles(&t)))
    {
        Ok(None) => Vec::new(),
        Ok(Some(Ok(shown))) => shown,
        Ok(Some(Err(e))) | Err(e) if skippable(&e) => {
            skipped.push(styles_part);
            Vec::new()
        }
        Ok(Some(Err(e))) | Err(e) => return Err(e),
    };
    let styles = Styles { shown, date1904 };
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
            Ok(Some(text)) => sheet(&text, &shared, &styles, out.room()),
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

/// The sheets as (name, relationship id), in workbook order, and whether the workbook
/// counts dates from 1904.
fn sheet_list(text: &str) -> Result<(Vec<(String, String)>, bool), ParseError> {
    let mut xml = Xml::new(text, KIND);
    let mut sheets = Vec::new();
    let mut date1904 = false;
    loop {
        match xml.next()? {
            Tag::Start(start) if local(&start) == "sheet" => {
                let name = attr(&start, "name").unwrap_or_default();
                if let Some(id) = rel_id(&start) {
                    sheets.push((name, id));
                }
            }
            Tag::Start(start) if local(&start) == "workbookPr" => {
                date1904 = matches!(attr(&start, "date1904").as_deref(), Some("1" | "true"));
            }
            Tag::Eof => return Ok((sheets, date1904)),
            _ => {}
        }
    }
}

/// How each cell style (by index, as a cell's `s` names it) shows numbers, and the
/// workbook's date system.
#[derive(Debug, Default)]
struct Styles {
    shown: Vec<Shown>,
    date1904: bool,
}

impl Styles {
    /// A number cell's `value` in style `style`: a date or time as ISO 8601 when the
    /// style shows one, else as stored.
    fn number(&self, value: &str, style: Option<usize>) -> String {
        style
            .and_then(|s| self.shown.get(s))
            .and_then(|shown| shown.write(value, self.date1904))
            .unwrap_or_else(|| value.to_string())
    }
}

/// The cell styles of `xl/styles.xml` (`cellXfs`, in order), each with how its number
/// format shows numbers (custom formats from `numFmts`, the rest built in).
fn cell_styles(text: &str) -> Result<Vec<Shown>, ParseError> {
    let mut xml = Xml::new(text, KIND);
    let mut custom: Vec<(u32, Shown)> = Vec::new();
    let mut styles = Vec::new();
    let mut in_cell_xfs = false;
    loop {
        match xml.next()? {
            Tag::Start(start) => match local(&start) {
                "numFmt" => {
                    let id = attr(&start, "numFmtId").and_then(|id| id.trim().parse().ok());
                    if let (Some(id), Some(code)) = (id, attr(&start, "formatCode")) {
                        custom.push((id, Shown::of_code(&code)));
                    }
                }
                "cellXfs" => in_cell_xfs = true,
                "xf" if in_cell_xfs => {
                    let id: u32 = attr(&start, "numFmtId")
                        .and_then(|id| id.trim().parse().ok())
                        .unwrap_or(0);
                    let shown = custom
                        .iter()
                        .find(|(custom_id, _)| *custom_id == id)
                        .map_or_else(|| Shown::of_builtin(id), |(_, shown)| *shown);
                    styles.push(shown);
                }
                _ => {}
            },
            Tag::End(name) if name == "cellXfs" => in_cell_xfs = false,
            Tag::Eof => return Ok(styles),
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
    /// Its style's index (`s`).
    style: Option<usize>,
    value: String,
    inline: String,
}

/// One worksheet's cells, collected until about `room` bytes of text.
fn sheet(text: &str, shared: &[String], styles: &Styles, room: usize) -> Result<Table, ParseError> {
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
                        style: attr(&start, "s").and_then(|s| s.trim().parse().ok()),
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
                        table.put_cell(column, value_of(&c, shared, styles));
                    }
                }
                _ => {}
            },
            Tag::Eof => break,
        }
    }
    Ok(table)
}

/// A cell's text by its type (a number as its style shows it).
fn value_of(c: &Cell, shared: &[String], styles: &Styles) -> String {
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
        "" | "n" => styles.number(&c.value, c.style),
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
