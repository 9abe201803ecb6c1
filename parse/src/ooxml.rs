//! What the OOXML formats (DOCX, XLSX, PPTX) share beyond ZIP and XML: finding the main
//! part through the package relationships, the ordered parts a main part lists through
//! its own relationships, and which part errors skip a part instead of failing the file.

use hearth_core::filetype::FileKind;

use crate::archive::Archive;
use crate::error::ParseError;
use crate::xml::{dir_of, relationships, resolve_target};

const OFFICE_DOCUMENT: &str = "/officeDocument";

/// The main part named by `_rels/.rels`, or `fallback` when it names none.
pub(crate) fn main_part(
    zip: &mut Archive<'_>,
    kind: FileKind,
    fallback: &str,
) -> Result<String, ParseError> {
    if let Some(rels) = zip.read_text("_rels/.rels")? {
        for (_, target, rel_type) in relationships(&rels, kind)? {
            if rel_type.ends_with(OFFICE_DOCUMENT)
                && let Some(part) = resolve_target("", &target)
            {
                return Ok(part);
            }
        }
    }
    Ok(fallback.to_string())
}

/// The relationships of `part` (`xl/workbook.xml` → `xl/_rels/workbook.xml.rels`) as
/// (id, resolved target, type); none when the part has no relationships.
pub(crate) fn part_relationships(
    zip: &mut Archive<'_>,
    kind: FileKind,
    part: &str,
) -> Result<Vec<(String, String, String)>, ParseError> {
    let dir = dir_of(part);
    let file = part.rsplit_once('/').map_or(part, |(_, f)| f);
    let rels_name = if dir.is_empty() {
        format!("_rels/{file}.rels")
    } else {
        format!("{dir}/_rels/{file}.rels")
    };
    let Some(rels) = zip.read_text(&rels_name)? else {
        return Ok(Vec::new());
    };
    Ok(relationships(&rels, kind)?
        .into_iter()
        .filter_map(|(id, target, rel_type)| {
            resolve_target(dir, &target).map(|t| (id, t, rel_type))
        })
        .collect())
}

/// Whether a part's error skips that part (with a note) rather than failing the file:
/// damage does, a bound crossed or a password never does.
pub(crate) fn skippable(e: &ParseError) -> bool {
    matches!(e, ParseError::Malformed { .. })
}
