//! Reading the file chosen for an import, in pieces (never whole unless it is a JSON
//! export): a ZIP's directory and records, an entry's bytes checked against its checksum,
//! a JSON export's records, and another app's file read into an attachment of its
//! message.

use hearth_core::attachment::Attachment;
use hearth_core::chat::archive::{ArchiveError, ImportPlan, MAX_ARCHIVE_BYTES};
use hearth_core::chat::export_file::{self, CarriedFile, RECORDS_ENTRY};
use hearth_core::chat::peer_import::{self, LocatedFile, PeerBytes, Records};
use hearth_core::stored_file::{FileDir, StoredFile};
use hearth_core::stored_file::{attachment_text_name, attachment_thumbnail_name};
use hearth_core::zip_store::{self, Entry};

use super::DataError;
use crate::browser;
use crate::files::FileError;

/// The bytes `range` of the chosen file.
pub(super) async fn read_range(
    file: &web_sys::Blob,
    range: std::ops::Range<u64>,
) -> Result<Vec<u8>, DataError> {
    browser::read_range(file, range)
        .await
        .ok_or(DataError::Unreadable)
}

/// The bytes of `entry` of the chosen ZIP (expanded when another app deflated it),
/// checked against its checksum.
pub(super) async fn read_entry(file: &web_sys::Blob, entry: &Entry) -> Result<Vec<u8>, DataError> {
    let start = entry.header_offset;
    let header = read_range(file, start..start + zip_store::LOCAL_HEADER_BYTES).await?;
    let kept = read_range(file, zip_store::data_range(entry, &header)?).await?;
    Ok(zip_store::inflate(entry, &kept)?)
}

/// UTF-8 `bytes` read as the records of an import.
pub(super) fn records(bytes: Vec<u8>) -> Result<Records, DataError> {
    let text = String::from_utf8(bytes).map_err(|_| ArchiveError::NotJson)?;
    Ok(peer_import::read_records(&text, js_sys::Date::now())?)
}

/// What a chosen file holds: its records, a Hearth export's files, and another app's
/// ZIP's whole directory (where its messages' files are found).
pub(super) struct Package {
    pub records: Records,
    pub files: Vec<(CarriedFile, Entry)>,
    pub foreign: Vec<Entry>,
}

/// Reads a chosen ZIP's directory and records (not its files' bytes): a Hearth export,
/// or another app's with its conversations in one entry.
pub(super) async fn read_package(file: &web_sys::Blob, size: u64) -> Result<Package, DataError> {
    let tail = read_range(file, size - size.min(zip_store::TAIL_BYTES)..size).await?;
    let at = zip_store::find_directory(&tail, size)?;
    let directory = read_range(file, at.range.clone()).await?;
    let listed = zip_store::read_foreign_directory(&directory, &at)?;
    if !listed.iter().any(|entry| entry.name == RECORDS_ENTRY) {
        let entry = peer_import::conversations_entry(&listed)?;
        let records = records(read_entry(file, entry).await?)?;
        return Ok(Package {
            records,
            files: Vec::new(),
            foreign: listed,
        });
    }
    // Hearth's own: every entry stored, every name one Hearth makes.
    let contents = export_file::contents(zip_store::read_directory(&directory, &at)?)?;
    let records = records(read_entry(file, &contents.records).await?)?;
    if records.from.is_some() {
        return Err(ArchiveError::NotAnExport.into());
    }
    Ok(Package {
        records,
        files: contents.files,
        foreign: Vec::new(),
    })
}

/// Reads a chosen JSON file: a records-only Hearth export (version 1) or another app's.
pub(super) async fn read_json(file: &web_sys::Blob, size: u64) -> Result<Records, DataError> {
    if size > MAX_ARCHIVE_BYTES as u64 {
        return Err(ArchiveError::TooLarge(usize::try_from(size).unwrap_or(usize::MAX)).into());
    }
    records(read_range(file, 0..size).await?)
}

/// Reads one of another app's files into an attachment of its message, with the files
/// it stored: `None` when it cannot be read (its type, its size, a damaged entry, no
/// parser for it), an error when storing failed (a full disk fails the import).
pub(super) async fn read_peer_file(
    source: &web_sys::Blob,
    located: &LocatedFile,
    plan: &ImportPlan,
) -> Result<Option<(Attachment, Vec<StoredFile>)>, DataError> {
    use crate::attachments::read::{self, ReadFor, Source};
    let bytes = match &located.bytes {
        PeerBytes::Text(text) => text.clone().into_bytes(),
        PeerBytes::Entry(entry) => match read_entry(source, entry).await {
            Ok(bytes) => bytes,
            Err(DataError::Archive(_)) => return Ok(None),
            Err(other) => return Err(other),
        },
    };
    let held: Vec<u64> = plan
        .messages
        .iter()
        .filter(|m| m.id == located.message_id)
        .flat_map(|m| m.attachments.iter().map(|a| a.size))
        .collect();
    let id = located.attachment_id.clone();
    let name = located.name.clone();
    match read::prepare(
        ReadFor::Import,
        Source::Bytes { name, bytes },
        id.clone(),
        held,
    )
    .await
    {
        Ok(attachment) => {
            let companion = if attachment.is_image() {
                attachment_thumbnail_name(&id)
            } else {
                attachment_text_name(&id)
            };
            let stored = [id, companion]
                .map(|name| StoredFile::new(FileDir::Attachments, name))
                .to_vec();
            Ok(Some((attachment, stored)))
        }
        Err(refusal) if refusal.code == "attach_storage_full" => {
            Err(DataError::WriteFile(FileError::QuotaExceeded))
        }
        Err(_) => Ok(None),
    }
}
