//! The files other apps' exports attach to messages: what a source module reads of each
//! ([`SourceFile`]), the attachment it becomes on an imported message ([`PeerFile`]), and
//! where its bytes are ([`locate`]): an entry of the export's ZIP (ChatGPT names each
//! uploaded or generated file after its id: `file-AbC123-photo.png`,
//! `dalle-generations/file-AbC123-<uuid>.webp`, `file_00000000…-<uuid>.png`), or the text
//! the export holds instead of the bytes (Claude's `extracted_content`).
//!
//! A file whose bytes the export does not hold, one past [`MAX_PEER_FILE_BYTES`], and one
//! past a message's [`MAX_ATTACHMENTS`] is counted as left out, never guessed at. What
//! the bytes are is decided later, from the bytes, as for any attached file.

use std::collections::{HashMap, HashSet};

use super::{Omission, Omitted};
use crate::attachment::{MAX_ATTACHMENTS, MAX_IMAGE_BYTES, MAX_TOTAL_BYTES};
use crate::zip_store::Entry;

/// The largest file of another app's export taken in (the most one message's files may
/// have together); an image has the composer's own limit, [`MAX_IMAGE_BYTES`].
pub const MAX_PEER_FILE_BYTES: u64 = MAX_TOTAL_BYTES;
/// The longest name kept for an imported file, in characters.
const MAX_SHOWN_NAME_CHARS: usize = 200;

/// A file a source message carries, as the source describes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceFile {
    /// The id the export's ZIP names its entry after ("" when the export holds no bytes
    /// of it).
    pub pointer: String,
    /// The name the user knew it by ("" when the source gives none: the entry's name
    /// then says it).
    pub name: String,
    /// Whether the source says it is an image (for the report, when it cannot come in).
    pub image: bool,
    /// The text the source extracted from it, when the export holds that instead of its
    /// bytes.
    pub text: Option<String>,
}

impl SourceFile {
    /// The kind of thing it is, for the report when it is left out.
    pub fn omission(&self) -> Omission {
        if self.image {
            Omission::Images
        } else {
            Omission::Files
        }
    }
}

/// A file of an imported message: the attachment it becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerFile {
    /// The message it is attached to.
    pub message_id: String,
    /// The attachment's id (derived from the message's, so a second import of the same
    /// export finds it stored).
    pub attachment_id: String,
    /// What the source says of it.
    pub file: SourceFile,
}

/// Where a file's bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerBytes {
    /// An entry of the export's ZIP.
    Entry(Entry),
    /// Text the export holds (written as a text file).
    Text(String),
}

/// A file whose bytes were found, with the name it is shown by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedFile {
    /// The message it is attached to.
    pub message_id: String,
    /// The attachment's id.
    pub attachment_id: String,
    /// Its name.
    pub name: String,
    /// Its bytes.
    pub bytes: PeerBytes,
    /// What it counts as when it cannot be read after all.
    pub omission: Omission,
}

/// The files of the messages an import writes (`writing`), each with its bytes from the
/// export's `entries` (empty for a JSON file) or its text. What cannot be found or is
/// too large is counted in `omitted`; files of messages not written are skipped (they are
/// stored already).
pub fn locate(
    files: Vec<PeerFile>,
    entries: &[Entry],
    writing: &HashSet<&str>,
    omitted: &mut Omitted,
) -> Vec<LocatedFile> {
    let by_pointer = entries_by_pointer(entries);
    let mut per_message: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    for PeerFile {
        message_id,
        attachment_id,
        file,
    } in files
    {
        if !writing.contains(message_id.as_str()) {
            continue;
        }
        let omission = file.omission();
        let found = match file.text {
            Some(text) if !text.trim().is_empty() => Some((PeerBytes::Text(text), "")),
            _ => by_pointer
                .get(file.pointer.as_str())
                .filter(|entry| entry.size > 0 && entry.size <= limit(&file))
                .map(|entry| (PeerBytes::Entry((*entry).clone()), entry_label(entry))),
        };
        let held = per_message.entry(message_id.clone()).or_default();
        let Some((bytes, label)) = found.filter(|_| *held < MAX_ATTACHMENTS) else {
            omitted.add(omission, 1);
            continue;
        };
        *held += 1;
        let name = shown_name(&file.name, label, &file.pointer);
        out.push(LocatedFile {
            message_id,
            attachment_id,
            name,
            bytes,
            omission,
        });
    }
    out
}

/// The most bytes `file` may have.
fn limit(file: &SourceFile) -> u64 {
    if file.image {
        MAX_IMAGE_BYTES
    } else {
        MAX_PEER_FILE_BYTES
    }
}

/// The name to show: the source's, else the entry's own after its id, else the id.
fn shown_name(given: &str, label: &str, pointer: &str) -> String {
    let name = [given.trim(), label, pointer]
        .into_iter()
        .find(|n| !n.is_empty())
        .unwrap_or("file");
    name.chars().take(MAX_SHOWN_NAME_CHARS).collect()
}

/// What an entry's name says of the file after its id (`file-x-photo.png` →
/// `photo.png`), or "" when it says nothing more.
fn entry_label(entry: &Entry) -> &str {
    let base = base_name(&entry.name);
    let id = pointer_of(base).unwrap_or_default();
    base[id.len()..].trim_start_matches(['-', '.'])
}

/// The entries that hold a file named after its id, by that id; where two have one
/// id, the shallower (then the first) wins.
fn entries_by_pointer(entries: &[Entry]) -> HashMap<&str, &Entry> {
    let mut out: HashMap<&str, &Entry> = HashMap::new();
    for entry in entries {
        let Some(id) = pointer_of(base_name(&entry.name)) else {
            continue;
        };
        let depth = |e: &Entry| e.name.matches('/').count();
        match out.get(id) {
            Some(held) if depth(held) <= depth(entry) => {}
            _ => {
                out.insert(id, entry);
            }
        }
    }
    out
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The file id an entry's name starts with: `file-` or `file_` and the letters and
/// digits after it, up to the next `-` or `.`.
fn pointer_of(base: &str) -> Option<&str> {
    let rest = base
        .strip_prefix("file-")
        .or_else(|| base.strip_prefix("file_"))?;
    let end = rest.find(['-', '.']).unwrap_or(rest.len());
    let id = &rest[..end];
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .then(|| &base[..5 + end])
}

/// The file id an asset pointer names (`file-service://file-x`, `sediment://file_0…`,
/// with any query cut off), or "" for anything else.
pub fn pointer_id(asset_pointer: &str) -> &str {
    let id = asset_pointer
        .split_once("://")
        .map_or(asset_pointer, |(_, rest)| rest);
    let id = id.split(['?', '#']).next().unwrap_or_default();
    match pointer_of(id) {
        Some(found) if found.len() == id.len() => id,
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zip_store::{self, DosTime};

    /// The directory of a ZIP holding these entries.
    fn entries(files: &[(&str, &[u8])]) -> Vec<Entry> {
        let zip = zip_store::write_all(files, DosTime::from_unix_ms(0.0)).unwrap();
        let at = zip_store::find_directory(&zip, zip.len() as u64).unwrap();
        let range = at.range.start as usize..at.range.end as usize;
        zip_store::read_foreign_directory(&zip[range], &at).unwrap()
    }

    fn peer(message: &str, id: &str, file: SourceFile) -> PeerFile {
        PeerFile {
            message_id: message.into(),
            attachment_id: id.into(),
            file,
        }
    }

    fn pointing(pointer: &str, image: bool) -> SourceFile {
        SourceFile {
            pointer: pointer.into(),
            image,
            ..Default::default()
        }
    }

    #[test]
    fn asset_pointers_name_file_ids() {
        assert_eq!(pointer_id("file-service://file-AbC123"), "file-AbC123");
        assert_eq!(
            pointer_id(
                "sediment://file_00000000c8008207b0e86e736b64663b?shared_conversation_id=6a"
            ),
            "file_00000000c8008207b0e86e736b64663b"
        );
        assert_eq!(pointer_id("file-x"), "file-x");
        for other in [
            "",
            "https://example.com/a.png",
            "sediment://",
            "file-service://file-",
            "file-service://../file-x",
            "file-service://file-x/../../y",
        ] {
            assert_eq!(pointer_id(other), "", "{other}");
        }
    }

    #[test]
    fn files_are_found_by_the_id_their_entries_start_with() {
        let listed = entries(&[
            ("conversations.json", b"[]"),
            ("file-AbC-photo.png", b"png"),
            ("dalle-generations/file-Gen-1b2c.webp", b"webp"),
            ("deep/file-AbC-copy.png", b"other"),
            ("file_0000abcd-9f8e.png", b"sediment"),
            ("file-Doc-report.pdf", b"%PDF"),
            ("file-Empty-none.txt", b""),
        ]);
        let files = vec![
            peer("m1", "a1", pointing("file-AbC", true)),
            peer("m1", "a2", pointing("file-Gen", true)),
            peer("m2", "a3", pointing("file_0000abcd", true)),
            peer(
                "m2",
                "a4",
                SourceFile {
                    name: "Quarterly report.pdf".into(),
                    ..pointing("file-Doc", false)
                },
            ),
            peer("m2", "a5", pointing("file-Missing", true)),
            peer("m2", "a6", pointing("file-Empty", false)),
            peer("stored", "a7", pointing("file-AbC", true)),
        ];
        let writing = HashSet::from(["m1", "m2"]);
        let mut omitted = Omitted::default();
        let found = locate(files, &listed, &writing, &mut omitted);
        let names: Vec<(&str, &str, &str)> = found
            .iter()
            .map(|f| {
                let PeerBytes::Entry(entry) = &f.bytes else {
                    panic!("an entry")
                };
                (
                    f.attachment_id.as_str(),
                    f.name.as_str(),
                    entry.name.as_str(),
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("a1", "photo.png", "file-AbC-photo.png"),
                ("a2", "1b2c.webp", "dalle-generations/file-Gen-1b2c.webp"),
                ("a3", "9f8e.png", "file_0000abcd-9f8e.png"),
                ("a4", "Quarterly report.pdf", "file-Doc-report.pdf"),
            ]
        );
        // The missing image and the empty file are left out, and said; the file of a
        // message that is stored already is not looked for.
        assert_eq!(
            omitted.kinds(),
            [(Omission::Images, 1), (Omission::Files, 1)]
        );
    }

    #[test]
    fn held_text_needs_no_entry_and_bounds_are_kept() {
        let listed = entries(&[("file-Big-huge.png", b"x")]);
        let mut big = listed.clone();
        big[0].size = MAX_IMAGE_BYTES + 1;
        let text = SourceFile {
            name: "notes.txt".into(),
            text: Some("the notes".into()),
            ..Default::default()
        };
        let mut files = vec![
            peer("m", "t", text),
            peer("m", "b", pointing("file-Big", true)),
        ];
        // Past the per-message limit, the rest are left out.
        for i in 0..MAX_ATTACHMENTS {
            files.push(peer(
                "m",
                &format!("x{i}"),
                SourceFile {
                    text: Some(format!("text {i}")),
                    ..Default::default()
                },
            ));
        }
        let mut omitted = Omitted::default();
        let found = locate(files, &big, &HashSet::from(["m"]), &mut omitted);
        assert_eq!(found.len(), MAX_ATTACHMENTS);
        assert_eq!(found[0].bytes, PeerBytes::Text("the notes".into()));
        assert_eq!(found[0].name, "notes.txt");
        assert_eq!(found[1].name, "file");
        assert_eq!(
            omitted.kinds(),
            [(Omission::Images, 1), (Omission::Files, 1)]
        );
        // Not too large: found.
        let mut omitted = Omitted::default();
        let found = locate(
            vec![peer("m", "b", pointing("file-Big", true))],
            &listed,
            &HashSet::from(["m"]),
            &mut omitted,
        );
        assert_eq!(found[0].name, "huge.png");
        assert!(omitted.is_empty());
    }
}
