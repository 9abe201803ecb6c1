//! EPUB books: the package document found through `META-INF/container.xml`, its spine
//! read in order, and each spine document converted as HTML (`html`), one after another.
//!
//! Not read: the navigation document's separate table of contents (its chapters are read
//! when the spine lists them), images. A spine document that `META-INF/encryption.xml`
//! lists (DRM) makes the book `Encrypted`; obfuscated fonts are no obstacle.

use std::collections::HashMap;

use hearth_core::filetype::FileKind;

use crate::archive::Archive;
use crate::error::ParseError;
use crate::limits::Limits;
use crate::ooxml::skippable;
use crate::output::{Note, Output};
use crate::xml::{Tag, Xml, attr, dir_of, local, resolve_target};

const KIND: FileKind = FileKind::Epub;

pub(crate) fn parse(
    bytes: &[u8],
    limits: &Limits,
    out: &mut Output,
    notes: &mut Vec<Note>,
) -> Result<(), ParseError> {
    let mut zip = Archive::open(bytes, KIND, &limits.zip)?;
    let encrypted = match zip.read_text("META-INF/encryption.xml")? {
        Some(text) => cipher_references(&text)?,
        None => Vec::new(),
    };
    let container = zip
        .read_text("META-INF/container.xml")?
        .ok_or_else(|| ParseError::malformed(KIND, "META-INF/container.xml is missing"))?;
    let opf_path = rootfile(&container)?
        .ok_or_else(|| ParseError::malformed(KIND, "the container names no package"))?;
    let opf = zip
        .read_text(&opf_path)?
        .ok_or_else(|| ParseError::malformed(KIND, format!("{opf_path} is missing")))?;
    let (spine, missing) = spine(&opf)?;
    let mut skipped: Vec<String> = missing
        .into_iter()
        .map(|id| format!("spine item {id}"))
        .collect();
    for href in spine {
        if out.full() {
            break;
        }
        let Some(part) = resolve_target(dir_of(&opf_path), &href) else {
            skipped.push(href);
            continue;
        };
        if encrypted.contains(&part) {
            return Err(ParseError::Encrypted { kind: KIND });
        }
        let chapter = match zip.read_text(&part) {
            Ok(Some(text)) => crate::html::to_markdown(&text, KIND),
            Ok(None) => {
                skipped.push(part);
                continue;
            }
            Err(e) => Err(e),
        };
        match chapter {
            Ok(text) => {
                out.block(&text);
            }
            Err(e) if skippable(&e) => skipped.push(part),
            Err(e) => return Err(e),
        }
    }
    if !skipped.is_empty() {
        notes.push(Note::PartsSkipped { parts: skipped });
    }
    Ok(())
}

/// The package document's path from `container.xml`.
fn rootfile(text: &str) -> Result<Option<String>, ParseError> {
    let mut xml = Xml::new(text, KIND);
    loop {
        match xml.next()? {
            Tag::Start(start) if local(&start) == "rootfile" => {
                if let Some(path) = attr(&start, "full-path") {
                    return Ok(Some(path));
                }
            }
            Tag::Eof => return Ok(None),
            _ => {}
        }
    }
}

/// The parts `encryption.xml` lists as encrypted (paths from the archive's root).
fn cipher_references(text: &str) -> Result<Vec<String>, ParseError> {
    let mut xml = Xml::new(text, KIND);
    let mut parts = Vec::new();
    loop {
        match xml.next()? {
            Tag::Start(start) if local(&start) == "CipherReference" => {
                parts.extend(attr(&start, "URI").and_then(|uri| resolve_target("", &uri)));
            }
            Tag::Eof => return Ok(parts),
            _ => {}
        }
    }
}

/// The spine's documents (their manifest hrefs) in reading order, and the ids of spine
/// entries the manifest does not have.
fn spine(text: &str) -> Result<(Vec<String>, Vec<String>), ParseError> {
    let mut xml = Xml::new(text, KIND);
    let mut manifest: HashMap<String, String> = HashMap::new();
    let mut order = Vec::new();
    loop {
        match xml.next()? {
            Tag::Start(start) => match local(&start) {
                "item" => {
                    if let (Some(id), Some(href)) = (attr(&start, "id"), attr(&start, "href")) {
                        manifest.insert(id, href);
                    }
                }
                "itemref" => order.extend(attr(&start, "idref")),
                _ => {}
            },
            Tag::Eof => break,
            _ => {}
        }
    }
    let mut hrefs = Vec::new();
    let mut missing = Vec::new();
    for id in order {
        match manifest.get(&id) {
            Some(href) => hrefs.push(href.clone()),
            None => missing.push(id),
        }
    }
    Ok((hrefs, missing))
}
