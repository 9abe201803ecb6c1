//! PowerPoint decks (PPTX): every slide in presentation order as `## Slide N`, then its
//! text paragraphs in the order the slide's shape tree holds them, and its tables as
//! Markdown tables.
//!
//! Not read: speaker notes, comments, chart and SmartArt text, slide layouts and masters
//! (placeholder prompts), images.

use hearth_core::filetype::FileKind;

use crate::archive::Archive;
use crate::error::ParseError;
use crate::limits::Limits;
use crate::ooxml::{self, skippable};
use crate::output::{Note, Output};
use crate::table::{MAX_COLUMNS, Table};
use crate::xml::{Tag, Xml, local, rel_id};

/// `mc:Fallback` repeats, for older readers, content its `mc:Choice` already holds.
const FALLBACK: [&str; 1] = ["Fallback"];
const KIND: FileKind = FileKind::Pptx;

pub(crate) fn parse(
    bytes: &[u8],
    limits: &Limits,
    out: &mut Output,
    notes: &mut Vec<Note>,
) -> Result<(), ParseError> {
    let mut zip = Archive::open(bytes, KIND, &limits.zip)?;
    let presentation = ooxml::main_part(&mut zip, KIND, "ppt/presentation.xml")?;
    let text = zip.read_text(&presentation)?.ok_or_else(|| {
        ParseError::malformed(KIND, format!("the part {presentation} is missing"))
    })?;
    let order = slide_ids(&text)?;
    let rels = ooxml::part_relationships(&mut zip, KIND, &presentation)?;
    let mut skipped = Vec::new();
    let mut dropped = false;
    for (index, rel_id) in order.iter().enumerate() {
        if out.full() {
            break;
        }
        let Some((_, part, _)) = rels.iter().find(|(id, _, _)| id == rel_id) else {
            skipped.push(format!("slide {}", index + 1));
            continue;
        };
        let slide_text = match zip.read_text(part) {
            Ok(Some(text)) => text,
            Ok(None) => {
                skipped.push(part.clone());
                continue;
            }
            Err(e) if skippable(&e) => {
                skipped.push(part.clone());
                continue;
            }
            Err(e) => return Err(e),
        };
        let mut blocks = Vec::new();
        match slide(&slide_text, &mut blocks) {
            Ok(lost) => dropped |= lost,
            Err(e) if skippable(&e) => {
                skipped.push(part.clone());
                continue;
            }
            Err(e) => return Err(e),
        }
        out.block(&format!("## Slide {}", index + 1));
        for block in blocks {
            match block {
                Block::Line(line) => out.block(&line),
                Block::Table(table) => out.block(&table),
            };
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

/// The slides' relationship ids in presentation order.
fn slide_ids(text: &str) -> Result<Vec<String>, ParseError> {
    let mut xml = Xml::new(text, KIND);
    let mut ids = Vec::new();
    loop {
        match xml.next()? {
            Tag::Start(start) if local(&start) == "sldId" => ids.extend(rel_id(&start)),
            Tag::Eof => return Ok(ids),
            _ => {}
        }
    }
}

enum Block {
    Line(String),
    Table(String),
}

/// A slide's paragraphs and tables in order; returns whether a table lost columns.
fn slide(text: &str, blocks: &mut Vec<Block>) -> Result<bool, ParseError> {
    let mut xml = Xml::new(text, KIND).skipping(&FALLBACK);
    let mut para: Option<String> = None;
    let mut in_text = false;
    let mut tables: Vec<(Table, Option<String>)> = Vec::new();
    let mut dropped = false;
    loop {
        match xml.next()? {
            Tag::Start(start) => match local(&start) {
                "p" => para = Some(String::new()),
                "t" => in_text = true,
                "br" => {
                    if let Some(p) = para.as_mut() {
                        p.push(' ');
                    }
                }
                "tbl" => tables.push((Table::default(), None)),
                "tr" => {
                    if let Some((t, _)) = tables.last_mut() {
                        t.start_row();
                    }
                }
                "tc" => {
                    if let Some((_, cell)) = tables.last_mut() {
                        *cell = Some(String::new());
                    }
                }
                _ => {}
            },
            Tag::Text(t) if in_text => {
                if let Some(p) = para.as_mut() {
                    p.push_str(&t);
                }
            }
            Tag::Text(_) => {}
            Tag::End(name) => match name.as_str() {
                "t" => in_text = false,
                "p" => {
                    let Some(p) = para.take() else { continue };
                    let p = p.trim();
                    if p.is_empty() {
                        continue;
                    }
                    if let Some(cell) = tables.last_mut().and_then(|(_, c)| c.as_mut()) {
                        if !cell.is_empty() {
                            cell.push(' ');
                        }
                        cell.push_str(p);
                    } else {
                        blocks.push(Block::Line(p.to_string()));
                    }
                }
                "tc" => {
                    if let Some((t, cell)) = tables.last_mut()
                        && let Some(cell) = cell.take()
                    {
                        t.push_cell(cell);
                    }
                }
                "tbl" => {
                    if let Some((t, _)) = tables.pop() {
                        dropped |= t.dropped;
                        blocks.push(Block::Table(t.render()));
                    }
                }
                _ => {}
            },
            Tag::Eof => return Ok(dropped),
        }
    }
}
