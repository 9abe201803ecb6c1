//! The export file: a ZIP of stored entries ([`crate::zip_store`]) holding the records as
//! [`RECORDS_ENTRY`] (an [`Archive`](super::archive::Archive) in JSON) and, beside them,
//! every file the messages refer to as `files/<directory>/<name>`, every file of the
//! knowledge collections as `files/knowledge/<collection>/<file>/<part>` and every
//! workspace's file as `files/workspace-files/<name>`, byte for byte ([`CarriedFile`]).
//!
//! What an entry may be called, how large it may be and how many there may be is decided
//! here from the central directory, before a byte of any entry is read: an archive that
//! holds anything else (a path that climbs out, an unknown directory, a name Hearth would
//! not make, a file over [`MAX_FILE_BYTES`]) is refused whole. A records-only `.json`
//! export (version 1) still reads; [`is_zip`] tells the two apart by their bytes.

use std::collections::BTreeSet;

use super::archive::{ArchiveError, MAX_ARCHIVE_BYTES};
use super::record::MessageRecord;
use crate::knowledge::transfer::KnowledgePath;
use crate::stored_file::{FileDir, StoredFile, is_safe_name, message_files};
use crate::workspace::files as workspace_files;
use crate::zip_store::Entry;

/// The entry that holds the records.
pub const RECORDS_ENTRY: &str = "hearth-export.json";
/// The folder of the files, inside the archive.
pub const FILES_FOLDER: &str = "files";
/// The largest file an archive may carry.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// The most files an archive may carry (the most entries [`crate::zip_store`] writes or
/// reads, less the records).
pub const MAX_FILES: usize = crate::zip_store::MAX_ENTRIES - 1;

/// The name an export written on `date` (`YYYY-MM-DD`) is saved as.
pub fn file_name(date: &str) -> String {
    format!("hearth-export-{date}.zip")
}

/// Whether a file starting with `first` (its first four bytes) is a ZIP rather than a
/// records-only JSON export.
pub fn is_zip(first: &[u8]) -> bool {
    first.starts_with(b"PK\x03\x04") || first.starts_with(b"PK\x05\x06")
}

/// A file an export carries.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CarriedFile {
    /// A file a message refers to.
    Message(StoredFile),
    /// A stored file of a knowledge collection.
    Knowledge(KnowledgePath),
    /// A stored file of a workspace's (its name in `crate::workspace::files::FOLDER`).
    Workspace(String),
}

impl CarriedFile {
    /// The folder of the private file system it lives in.
    pub fn folder(&self) -> String {
        match self {
            Self::Message(file) => file.dir.name().to_string(),
            Self::Knowledge(path) => path.folder(),
            Self::Workspace(_) => workspace_files::FOLDER.to_string(),
        }
    }

    /// Its name in that folder.
    pub fn name(&self) -> &str {
        match self {
            Self::Message(file) => &file.name,
            Self::Knowledge(path) => path.part.name(),
            Self::Workspace(name) => name,
        }
    }

    /// The entry name it is stored under.
    pub fn entry_name(&self) -> String {
        format!("{FILES_FOLDER}/{}/{}", self.folder(), self.name())
    }
}

/// The entry name `file` is stored under.
pub fn entry_name(file: &StoredFile) -> String {
    CarriedFile::Message(file.clone()).entry_name()
}

/// Every file the `messages` refer to, each once, in a stable order.
pub fn referenced_files<'a>(
    messages: impl IntoIterator<Item = &'a MessageRecord>,
) -> Vec<StoredFile> {
    let files: BTreeSet<StoredFile> = messages.into_iter().flat_map(message_files).collect();
    files.into_iter().collect()
}

/// What an export file holds, checked from its directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contents {
    /// The records' entry.
    pub records: Entry,
    /// Each file and the entry that holds it, in the archive's order.
    pub files: Vec<(CarriedFile, Entry)>,
}

impl Contents {
    /// The bytes of all the files together.
    pub fn file_bytes(&self) -> u64 {
        self.files.iter().map(|(_, entry)| entry.size).sum()
    }
}

/// Sorts an export file's entries into the records and the files, refusing the whole
/// archive when any entry is not one of them or is too large.
pub fn contents(entries: Vec<Entry>) -> Result<Contents, ArchiveError> {
    let inconsistent = |why: String| Err(ArchiveError::Inconsistent(why));
    let mut records = None;
    let mut files = Vec::new();
    for entry in entries {
        if entry.name == RECORDS_ENTRY {
            if entry.size > MAX_ARCHIVE_BYTES as u64 {
                return Err(ArchiveError::TooLarge(
                    usize::try_from(entry.size).unwrap_or(usize::MAX),
                ));
            }
            records = Some(entry);
            continue;
        }
        let Some(file) = carried_file(&entry.name) else {
            return inconsistent(format!("{} is not a file Hearth exports", entry.name));
        };
        if entry.size > MAX_FILE_BYTES {
            return inconsistent(format!(
                "{} has {} bytes; a file may have at most {MAX_FILE_BYTES}",
                entry.name, entry.size
            ));
        }
        if files.len() == MAX_FILES {
            return inconsistent(format!("more than {MAX_FILES} files"));
        }
        files.push((file, entry));
    }
    let Some(records) = records else {
        return Err(ArchiveError::NotAnExport);
    };
    Ok(Contents { records, files })
}

/// The file an entry called `name` holds, if it is one Hearth would write.
fn carried_file(name: &str) -> Option<CarriedFile> {
    let path = name.strip_prefix(FILES_FOLDER)?.strip_prefix('/')?;
    if let Some(knowledge) = KnowledgePath::parse(path) {
        return Some(CarriedFile::Knowledge(knowledge));
    }
    let (dir, file) = path.split_once('/')?;
    if file.contains('/') || !is_safe_name(file) {
        return None;
    }
    if dir == workspace_files::FOLDER {
        return workspace_files::is_stored_name(file).then(|| CarriedFile::Workspace(file.into()));
    }
    let dir = FileDir::from_name(dir)?;
    Some(CarriedFile::Message(StoredFile::new(dir, file)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachment::Attachment;
    use crate::filetype::FileKind;
    use crate::zip_store::{DosTime, ZipWriter, crc32, find_directory, read_directory};

    /// The directory entries of an archive holding entries of these names and sizes.
    fn entries(names: &[(&str, u64)]) -> Vec<Entry> {
        let mut writer = ZipWriter::new(DosTime::from_unix_ms(0.0));
        let mut file = Vec::new();
        for (name, size) in names {
            file.extend(writer.entry(name, *size, crc32(b"")).unwrap());
            file.resize(file.len() + *size as usize, 0);
        }
        file.extend(writer.finish().unwrap());
        let at = find_directory(&file, file.len() as u64).unwrap();
        read_directory(&file[at.range.start as usize..at.range.end as usize], &at).unwrap()
    }

    #[test]
    fn records_and_files_are_told_apart() {
        let found = contents(entries(&[
            ("files/images/a1.png", 3),
            (RECORDS_ENTRY, 10),
            ("files/attachments/b2.thumb", 4),
            ("files/knowledge/c1/f1/content", 5),
            ("files/workspace-files/d4.md", 6),
        ]))
        .unwrap();
        assert_eq!(found.records.name, RECORDS_ENTRY);
        assert_eq!(
            found
                .files
                .iter()
                .map(|(f, _)| f.clone())
                .collect::<Vec<_>>(),
            [
                CarriedFile::Message(StoredFile::new(FileDir::Images, "a1.png")),
                CarriedFile::Message(StoredFile::new(FileDir::Attachments, "b2.thumb")),
                CarriedFile::Knowledge(KnowledgePath::new(
                    "c1",
                    "f1",
                    crate::knowledge::transfer::Part::Content
                )),
                CarriedFile::Workspace("d4.md".into()),
            ]
        );
        assert_eq!(found.file_bytes(), 18);
        for (file, entry) in &found.files {
            assert_eq!(file.entry_name(), entry.name);
            assert_eq!(carried_file(&file.entry_name()).as_ref(), Some(file));
        }
        assert_eq!(found.files[2].0.folder(), "knowledge/c1/f1");
    }

    #[test]
    fn an_entry_hearth_would_not_write_refuses_the_archive() {
        for name in [
            "files/images/../../evil.png",
            "files/search/conversations.idx",
            "files/images/sub/a.png",
            "files/images/.hidden",
            "files/images/",
            "other.json",
            "__MACOSX/files/images/a.png",
            "/files/images/a.png",
            "files/knowledge/c1/f1/other",
            "files/knowledge/c1/../../attachments/source",
            "files/knowledge/c1/f1/source/x",
            "files/knowledge/c1/f1",
            "files/knowledge/.c1/f1/source",
            "files/attachments/knowledge/c1",
            "files/workspace-files/a.thumb",
            "files/workspace-files/a.b.md",
            "files/workspace-files/../images/a.png",
            "files/workspace-files/sub/a",
        ] {
            match contents(entries(&[(RECORDS_ENTRY, 2), (name, 1)])) {
                Err(ArchiveError::Inconsistent(why)) => assert!(why.contains(name), "{why}"),
                other => panic!("{name}: {other:?}"),
            }
        }
        assert_eq!(
            contents(entries(&[("files/images/a.png", 1)])),
            Err(ArchiveError::NotAnExport)
        );
    }

    #[test]
    fn sizes_are_bounded_from_the_directory() {
        // The sizes are the directory's claims, checked before any byte is read.
        let mut big = entries(&[(RECORDS_ENTRY, 1), ("files/images/a.png", 1)]);
        big[1].size = MAX_FILE_BYTES + 1;
        assert!(
            matches!(contents(big), Err(ArchiveError::Inconsistent(why)) if why.contains("at most"))
        );
        let mut records = entries(&[(RECORDS_ENTRY, 1)]);
        records[0].size = MAX_ARCHIVE_BYTES as u64 + 1;
        assert_eq!(
            contents(records),
            Err(ArchiveError::TooLarge(MAX_ARCHIVE_BYTES + 1))
        );
    }

    #[test]
    fn zips_and_json_exports_are_told_apart_by_their_bytes() {
        assert!(is_zip(b"PK\x03\x04rest"));
        assert!(is_zip(b"PK\x05\x06"));
        assert!(!is_zip(b"{\"format\""));
        assert!(!is_zip(b"PK"));
        assert_eq!(file_name("2026-12-02"), "hearth-export-2026-12-02.zip");
    }

    #[test]
    fn the_files_of_many_messages_are_listed_once() {
        let with = |id: &str| MessageRecord {
            attachments: vec![Attachment {
                id: id.into(),
                name: "notes.txt".into(),
                kind: FileKind::Text,
                size: 1,
                text_chars: 1,
                notes: Vec::new(),
                pixels: None,
            }],
            ..Default::default()
        };
        let messages = [with("b"), with("a"), with("b")];
        let names: Vec<String> = referenced_files(&messages).iter().map(entry_name).collect();
        assert_eq!(
            names,
            [
                "files/attachments/a",
                "files/attachments/a.md",
                "files/attachments/b",
                "files/attachments/b.md"
            ]
        );
    }
}
