//! ZIP files of stored (uncompressed) entries, written and read a piece at a time so the
//! bytes of big entries never have to be in memory together.
//!
//! - [`ZipWriter`] makes each entry's local header (the caller writes the entry's bytes
//!   after it) and, at the end, the central directory.
//! - Reading is three steps, each on bytes the caller fetched: [`find_directory`] in the
//!   file's last [`TAIL_BYTES`], [`read_directory`] on the central directory it points
//!   at, and [`data_range`] on an entry's [`LOCAL_HEADER_BYTES`]; [`check_crc`] then
//!   checks the bytes read.
//!
//! Everything read is bounded and checked before it is trusted: entries must lie inside
//! the file, in front of the directory and apart from each other; names are UTF-8 and
//! unique. ZIP64, split archives, compression and encryption are typed errors, not
//! guesses.
//!
//! Hearth writes and reads its own archives stored. Another app's export (ChatGPT's,
//! Claude's) is deflated: [`read_foreign_directory`] also lists deflated entries, and
//! [`inflate`] expands one, never past the size its directory entry declares.

use std::collections::HashSet;
use std::ops::Range;

/// How much of a file's end can hold the end-of-directory record (with its comment).
pub const TAIL_BYTES: u64 = END_RECORD_BYTES as u64 + u16::MAX as u64;
/// How many bytes of an entry's local header [`data_range`] needs.
pub const LOCAL_HEADER_BYTES: u64 = 30;
/// The most entries one file may hold.
pub const MAX_ENTRIES: usize = u16::MAX as usize;
/// The longest entry name, in bytes.
pub const MAX_NAME_BYTES: usize = 1024;
/// The largest file this format can describe (no ZIP64).
pub const MAX_FILE_BYTES: u64 = u32::MAX as u64;
/// The largest central directory read: every entry with a name of [`MAX_NAME_BYTES`] and
/// no extra field or comment, so a directory claiming more is refused before it is read.
pub const MAX_DIRECTORY_BYTES: u64 =
    MAX_ENTRIES as u64 * (CENTRAL_HEADER_BYTES as u64 + MAX_NAME_BYTES as u64);

const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const END_SIGNATURE: u32 = 0x0605_4b50;
const END_RECORD_BYTES: usize = 22;
const CENTRAL_HEADER_BYTES: usize = 46;
/// Version 2.0: what readers need for stored entries with UTF-8 names.
const VERSION: u16 = 20;
/// Made on Unix (so the permissions below are read), version 2.0.
const MADE_BY: u16 = (3 << 8) | VERSION;
/// General purpose flag bit 11: the name is UTF-8.
const UTF8_NAMES: u16 = 1 << 11;
const ENCRYPTED: u16 = 1;
/// `-rw-r--r--`, in the upper half of the external attributes.
const FILE_MODE: u32 = 0o100_644 << 16;

/// Why a ZIP could not be written or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ZipError {
    /// No end-of-directory record: not a ZIP, or cut short.
    #[error("the file is not a ZIP archive, or it is cut short")]
    NotZip,
    /// A record points outside the file or is cut short.
    #[error("the archive is cut short or damaged ({0})")]
    Truncated(&'static str),
    /// A ZIP64 archive or entry (over 4 GiB or 65,535 entries).
    #[error("the archive uses ZIP64, which is not supported")]
    Zip64,
    /// Split over several files.
    #[error("the archive is split over several files")]
    MultiDisk,
    /// An entry compressed with `method` (only stored entries are read).
    #[error("{name} is compressed (method {method}); only stored entries are read")]
    Compressed {
        /// The entry's name.
        name: String,
        /// Its compression method.
        method: u16,
    },
    /// An encrypted entry.
    #[error("{0} is encrypted")]
    Encrypted(String),
    /// A name that is not UTF-8, is empty or too long.
    #[error("an entry has a name that cannot be read")]
    BadName,
    /// Two entries with one name.
    #[error("{0} appears twice")]
    Duplicate(String),
    /// More than [`MAX_ENTRIES`].
    #[error("the archive has more than {MAX_ENTRIES} entries")]
    TooManyEntries,
    /// An entry whose bytes overlap another's, or the directory.
    #[error("{0} overlaps another entry")]
    Overlap(String),
    /// An entry whose bytes do not match its checksum.
    #[error("{0} does not match its checksum")]
    BadChecksum(String),
    /// Writing past [`MAX_FILE_BYTES`] or [`MAX_ENTRIES`].
    #[error("the archive would be larger than {MAX_FILE_BYTES} bytes or {MAX_ENTRIES} entries")]
    TooLarge,
    /// A deflated entry whose bytes do not expand to its declared size.
    #[error("{0} cannot be decompressed")]
    BadDeflate(String),
}

/// How an entry's bytes are kept in the archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// As they are (method 0): all Hearth writes.
    Stored,
    /// Deflated (method 8): what other apps' exports use.
    Deflated,
}

impl Method {
    fn code(self) -> u16 {
        match self {
            Self::Stored => 0,
            Self::Deflated => 8,
        }
    }
}

/// The CRC-32 of `bytes`, as ZIP records it.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// A time as MS-DOS stores it: `(time, date)`, two-second steps, 1980 to 2107.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DosTime {
    time: u16,
    date: u16,
}

impl DosTime {
    /// The UTC time `ms` milliseconds after the Unix epoch, clamped to what DOS can hold.
    pub fn from_unix_ms(ms: f64) -> Self {
        let seconds = if ms.is_finite() {
            (ms / 1000.0) as i64
        } else {
            0
        };
        let days = seconds.div_euclid(86_400);
        let in_day = seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        if year < 1980 {
            return Self {
                time: 0,
                date: (1 << 5) | 1,
            };
        }
        if year > 2107 {
            return Self {
                time: (23 << 11) | (59 << 5) | 29,
                date: (127 << 9) | (12 << 5) | 31,
            };
        }
        let (hour, minute, second) = (in_day / 3600, in_day % 3600 / 60, in_day % 60);
        Self {
            time: ((hour << 11) | (minute << 5) | (second / 2)) as u16,
            date: (((year - 1980) << 9) | ((month as i64) << 5) | day as i64) as u16,
        }
    }
}

/// The proleptic Gregorian date of a day count from 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

struct Written {
    name: String,
    crc: u32,
    size: u32,
    offset: u32,
}

/// Writes a ZIP of stored entries: for each entry, [`ZipWriter::entry`] gives the bytes
/// to write before the entry's own; [`ZipWriter::finish`] gives the bytes that end the
/// file.
pub struct ZipWriter {
    modified: DosTime,
    offset: u64,
    entries: Vec<Written>,
    names: HashSet<String>,
}

impl ZipWriter {
    /// A writer whose entries are all dated `modified`.
    pub fn new(modified: DosTime) -> Self {
        Self {
            modified,
            offset: 0,
            entries: Vec::new(),
            names: HashSet::new(),
        }
    }

    /// The local header of an entry `name` of `size` bytes whose CRC-32 is `crc`; the
    /// entry's bytes follow it in the file.
    pub fn entry(&mut self, name: &str, size: u64, crc: u32) -> Result<Vec<u8>, ZipError> {
        if name.is_empty() || name.len() > MAX_NAME_BYTES {
            return Err(ZipError::BadName);
        }
        if !self.names.insert(name.to_owned()) {
            return Err(ZipError::Duplicate(name.to_owned()));
        }
        let header_len = LOCAL_HEADER_BYTES + name.len() as u64;
        let end = self.offset + header_len + size;
        // The directory follows; keep room for it within the format's limits.
        if self.entries.len() + 1 > MAX_ENTRIES || end > MAX_FILE_BYTES {
            return Err(ZipError::TooLarge);
        }
        let mut header = Vec::with_capacity(header_len as usize);
        put32(&mut header, LOCAL_SIGNATURE);
        put16(&mut header, VERSION);
        put16(&mut header, UTF8_NAMES);
        put16(&mut header, 0); // stored
        put16(&mut header, self.modified.time);
        put16(&mut header, self.modified.date);
        put32(&mut header, crc);
        put32(&mut header, size as u32);
        put32(&mut header, size as u32);
        put16(&mut header, name.len() as u16);
        put16(&mut header, 0); // no extra field
        header.extend_from_slice(name.as_bytes());
        self.entries.push(Written {
            name: name.to_owned(),
            crc,
            size: size as u32,
            offset: self.offset as u32,
        });
        self.offset = end;
        Ok(header)
    }

    /// The central directory and the end record; the file is whole after them.
    pub fn finish(self) -> Result<Vec<u8>, ZipError> {
        let mut directory = Vec::new();
        for entry in &self.entries {
            put32(&mut directory, CENTRAL_SIGNATURE);
            put16(&mut directory, MADE_BY);
            put16(&mut directory, VERSION);
            put16(&mut directory, UTF8_NAMES);
            put16(&mut directory, 0);
            put16(&mut directory, self.modified.time);
            put16(&mut directory, self.modified.date);
            put32(&mut directory, entry.crc);
            put32(&mut directory, entry.size);
            put32(&mut directory, entry.size);
            put16(&mut directory, entry.name.len() as u16);
            put16(&mut directory, 0); // extra
            put16(&mut directory, 0); // comment
            put16(&mut directory, 0); // disk
            put16(&mut directory, 0); // internal attributes
            put32(&mut directory, FILE_MODE);
            put32(&mut directory, entry.offset);
            directory.extend_from_slice(entry.name.as_bytes());
        }
        let size = directory.len() as u64;
        if self.offset + size + END_RECORD_BYTES as u64 > MAX_FILE_BYTES {
            return Err(ZipError::TooLarge);
        }
        let count = self.entries.len() as u16;
        put32(&mut directory, END_SIGNATURE);
        put16(&mut directory, 0); // this disk
        put16(&mut directory, 0); // the directory's disk
        put16(&mut directory, count);
        put16(&mut directory, count);
        put32(&mut directory, size as u32);
        put32(&mut directory, self.offset as u32);
        put16(&mut directory, 0); // no comment
        Ok(directory)
    }
}

fn put16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn get16(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn get32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Where a file's central directory lies, and how many entries it lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryAt {
    /// Its byte range in the file.
    pub range: Range<u64>,
    /// How many entries it says it holds.
    pub entries: usize,
}

/// Finds the central directory of a ZIP of `file_len` bytes from its last bytes `tail`
/// (at most [`TAIL_BYTES`]; all of them when the file is shorter).
pub fn find_directory(tail: &[u8], file_len: u64) -> Result<DirectoryAt, ZipError> {
    if (tail.len() as u64) > file_len || tail.len() < END_RECORD_BYTES {
        return Err(ZipError::NotZip);
    }
    let tail_start = file_len - tail.len() as u64;
    // The record is the last signature whose comment reaches exactly the file's end.
    let end = (0..=tail.len() - END_RECORD_BYTES)
        .rev()
        .find(|&at| {
            get32(tail, at) == END_SIGNATURE
                && at + END_RECORD_BYTES + usize::from(get16(tail, at + 20)) == tail.len()
        })
        .ok_or(ZipError::NotZip)?;
    let record = &tail[end..];
    let (disk, directory_disk) = (get16(record, 4), get16(record, 6));
    let (on_disk, total) = (get16(record, 8), get16(record, 10));
    let (size, offset) = (get32(record, 12), get32(record, 16));
    if total == u16::MAX || size == u32::MAX || offset == u32::MAX {
        return Err(ZipError::Zip64);
    }
    if disk != 0 || directory_disk != 0 || on_disk != total {
        return Err(ZipError::MultiDisk);
    }
    if u64::from(size) > MAX_DIRECTORY_BYTES {
        return Err(ZipError::TooLarge);
    }
    let range = u64::from(offset)..u64::from(offset) + u64::from(size);
    if range.end > tail_start + end as u64 {
        return Err(ZipError::Truncated("the directory"));
    }
    Ok(DirectoryAt {
        range,
        entries: usize::from(total),
    })
}

/// One entry of a ZIP, as its central directory describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its name (a path with `/`).
    pub name: String,
    /// Its size in bytes (expanded, for a deflated entry).
    pub size: u64,
    /// How its bytes are kept.
    pub method: Method,
    /// How many bytes it takes in the archive (its size, when stored).
    pub stored_size: u64,
    /// Its CRC-32 (of the expanded bytes).
    pub crc: u32,
    /// Where its local header starts.
    pub header_offset: u64,
    /// Where the next entry (or the directory) starts: its bytes must end before.
    limit: u64,
}

/// Reads the central directory `bytes`, found at `at`: every entry, in the directory's
/// order, each checked to be a stored, unencrypted entry with a unique UTF-8 name that
/// lies in front of the directory and apart from the others.
pub fn read_directory(bytes: &[u8], at: &DirectoryAt) -> Result<Vec<Entry>, ZipError> {
    read_entries(bytes, at, &[Method::Stored])
}

/// [`read_directory`] for an archive another app wrote: deflated entries are listed too
/// (read them with [`inflate`]).
pub fn read_foreign_directory(bytes: &[u8], at: &DirectoryAt) -> Result<Vec<Entry>, ZipError> {
    read_entries(bytes, at, &[Method::Stored, Method::Deflated])
}

fn read_entries(
    bytes: &[u8],
    at: &DirectoryAt,
    methods: &[Method],
) -> Result<Vec<Entry>, ZipError> {
    if bytes.len() as u64 != at.range.end - at.range.start {
        return Err(ZipError::Truncated("the directory"));
    }
    if at.entries > MAX_ENTRIES {
        return Err(ZipError::TooManyEntries);
    }
    let mut entries = Vec::with_capacity(at.entries);
    let mut names = HashSet::new();
    let mut cursor = 0usize;
    for _ in 0..at.entries {
        let header = bytes
            .get(cursor..cursor + CENTRAL_HEADER_BYTES)
            .ok_or(ZipError::Truncated("an entry of the directory"))?;
        if get32(header, 0) != CENTRAL_SIGNATURE {
            return Err(ZipError::Truncated("an entry of the directory"));
        }
        let flags = get16(header, 8);
        let method = get16(header, 10);
        let crc = get32(header, 16);
        let (compressed, size) = (get32(header, 20), get32(header, 24));
        let name_len = usize::from(get16(header, 28));
        let extra_len = usize::from(get16(header, 30));
        let comment_len = usize::from(get16(header, 32));
        let offset = get32(header, 42);
        let name_start = cursor + CENTRAL_HEADER_BYTES;
        let name = bytes
            .get(name_start..name_start + name_len)
            .ok_or(ZipError::Truncated("an entry's name"))?;
        let name = std::str::from_utf8(name)
            .ok()
            .filter(|n| !n.is_empty() && n.len() <= MAX_NAME_BYTES)
            .ok_or(ZipError::BadName)?
            .to_owned();
        cursor = name_start + name_len + extra_len + comment_len;
        if cursor > bytes.len() {
            return Err(ZipError::Truncated("an entry of the directory"));
        }
        if compressed == u32::MAX || size == u32::MAX || offset == u32::MAX {
            return Err(ZipError::Zip64);
        }
        if flags & ENCRYPTED != 0 {
            return Err(ZipError::Encrypted(name));
        }
        let method = match methods.iter().find(|m| m.code() == method) {
            Some(Method::Stored) if compressed == size => Method::Stored,
            Some(Method::Deflated) => Method::Deflated,
            _ => return Err(ZipError::Compressed { name, method }),
        };
        if !names.insert(name.clone()) {
            return Err(ZipError::Duplicate(name));
        }
        entries.push(Entry {
            name,
            size: u64::from(size),
            method,
            stored_size: u64::from(compressed),
            crc,
            header_offset: u64::from(offset),
            limit: 0,
        });
    }
    // Each entry ends before the next one starts, the last one before the directory.
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| entries[i].header_offset);
    let mut limit = at.range.start;
    for &i in order.iter().rev() {
        let entry = &mut entries[i];
        let least = entry.header_offset + LOCAL_HEADER_BYTES + entry.stored_size;
        if least > limit {
            return Err(ZipError::Overlap(entry.name.clone()));
        }
        entry.limit = limit;
        limit = entry.header_offset;
    }
    Ok(entries)
}

/// Where `entry`'s bytes lie (as kept: deflated ones still deflated), read from the
/// first [`LOCAL_HEADER_BYTES`] of its local header.
pub fn data_range(entry: &Entry, local_header: &[u8]) -> Result<Range<u64>, ZipError> {
    let header = local_header
        .get(..LOCAL_HEADER_BYTES as usize)
        .ok_or(ZipError::Truncated("an entry's header"))?;
    if get32(header, 0) != LOCAL_SIGNATURE {
        return Err(ZipError::Truncated("an entry's header"));
    }
    if get16(header, 6) & ENCRYPTED != 0 {
        return Err(ZipError::Encrypted(entry.name.clone()));
    }
    let method = get16(header, 8);
    if method != entry.method.code() {
        return Err(ZipError::Compressed {
            name: entry.name.clone(),
            method,
        });
    }
    let skip = u64::from(get16(header, 26)) + u64::from(get16(header, 28));
    let start = entry.header_offset + LOCAL_HEADER_BYTES + skip;
    let end = start + entry.stored_size;
    if end > entry.limit {
        return Err(ZipError::Overlap(entry.name.clone()));
    }
    Ok(start..end)
}

/// Checks that `bytes`, read from `entry`'s data range, are what the archive says.
pub fn check_crc(entry: &Entry, bytes: &[u8]) -> Result<(), ZipError> {
    if bytes.len() as u64 != entry.size || crc32(bytes) != entry.crc {
        return Err(ZipError::BadChecksum(entry.name.clone()));
    }
    Ok(())
}

/// The bytes of `entry`, from the `kept` bytes of its [`data_range`]: expanded when it is
/// deflated (never past its declared size, so a small entry cannot expand into a huge
/// one), then checked against its checksum.
pub fn inflate(entry: &Entry, kept: &[u8]) -> Result<Vec<u8>, ZipError> {
    let bytes = match entry.method {
        Method::Stored => kept.to_vec(),
        Method::Deflated => {
            let limit = usize::try_from(entry.size).map_err(|_| ZipError::TooLarge)?;
            miniz_oxide::inflate::decompress_to_vec_with_limit(kept, limit)
                .map_err(|_| ZipError::BadDeflate(entry.name.clone()))?
        }
    };
    check_crc(entry, &bytes)?;
    Ok(bytes)
}

/// Every entry of a ZIP held whole in memory, read through the same steps as a file
/// read in pieces (tail, directory, local headers), each checked against its CRC.
pub fn read_all(file: &[u8]) -> Result<Vec<(String, &[u8])>, ZipError> {
    let len = file.len() as u64;
    let at = find_directory(&file[file.len() - TAIL_BYTES.min(len) as usize..], len)?;
    let directory = &file[at.range.start as usize..at.range.end as usize];
    let mut out = Vec::new();
    for entry in read_directory(directory, &at)? {
        let start = entry.header_offset as usize;
        let header = file
            .get(start..(start + LOCAL_HEADER_BYTES as usize).min(file.len()))
            .unwrap_or_default();
        let range = data_range(&entry, header)?;
        let bytes = &file[range.start as usize..range.end as usize];
        check_crc(&entry, bytes)?;
        out.push((entry.name, bytes));
    }
    Ok(out)
}

/// A whole ZIP of `entries` in memory, dated `modified`: [`read_all`]'s counterpart, for
/// archives small enough to hold at once.
pub fn write_all(entries: &[(&str, &[u8])], modified: DosTime) -> Result<Vec<u8>, ZipError> {
    let mut writer = ZipWriter::new(modified);
    let mut file = Vec::new();
    for (name, bytes) in entries {
        file.extend(writer.entry(name, bytes.len() as u64, crc32(bytes))?);
        file.extend_from_slice(bytes);
    }
    file.extend(writer.finish()?);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a whole archive of `entries` into memory.
    fn write(entries: &[(&str, &[u8])]) -> Vec<u8> {
        write_all(entries, DosTime::from_unix_ms(1_764_547_200_000.0)).unwrap()
    }

    #[test]
    fn what_is_written_reads_back_byte_for_byte() {
        let big: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let entries: [(&str, &[u8]); 4] = [
            ("hearth-export.json", b"{\"format\":\"hearth-export\"}"),
            ("files/images/a.png", &big),
            ("files/attachments/empty", b""),
            ("名前/ファイル.txt", "テキスト".as_bytes()),
        ];
        let file = write(&entries);
        let read = read_all(&file).unwrap();
        assert_eq!(read.len(), 4);
        for ((name, bytes), (read_name, read_bytes)) in entries.iter().zip(&read) {
            assert_eq!(name, read_name);
            assert_eq!(bytes, read_bytes);
        }
        // An empty archive is a valid one.
        assert_eq!(read_all(&write(&[])).unwrap(), Vec::new());
    }

    #[test]
    fn the_zip_crate_reads_what_is_written() {
        // Another implementation agrees on the format: what users open with their tools.
        let file = write(&[("a/b.txt", b"hello"), ("c.bin", &[0, 1, 2, 255])]);
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(file)).unwrap();
        assert_eq!(archive.len(), 2);
        let mut text = String::new();
        std::io::Read::read_to_string(&mut archive.by_name("a/b.txt").unwrap(), &mut text).unwrap();
        assert_eq!(text, "hello");
        let entry = archive.by_name("c.bin").unwrap();
        assert_eq!(entry.size(), 4);
        assert_eq!(entry.unix_mode(), Some(0o100_644));
        let modified = entry.last_modified().unwrap();
        assert_eq!(
            (modified.year(), modified.month(), modified.day()),
            (2025, 12, 1)
        );
    }

    #[test]
    fn an_archive_with_a_comment_is_found() {
        let mut file = write(&[("a", b"x")]);
        let comment = b"written by another tool";
        let at = file.len() - 2;
        file[at..].copy_from_slice(&(comment.len() as u16).to_le_bytes());
        file.extend_from_slice(comment);
        assert_eq!(read_all(&file).unwrap(), vec![("a".into(), &b"x"[..])]);
    }

    #[test]
    fn a_file_that_is_not_a_whole_zip_is_a_typed_error() {
        assert_eq!(read_all(b""), Err(ZipError::NotZip));
        assert_eq!(
            read_all(b"{\"format\":\"hearth-export\"}"),
            Err(ZipError::NotZip)
        );
        let file = write(&[("a", b"hello"), ("b", b"world")]);
        // Cut anywhere, it never reads as something else.
        for cut in 0..file.len() {
            assert!(read_all(&file[..cut]).is_err(), "cut at {cut}");
        }
        // A flipped byte in an entry's data fails its checksum.
        let mut flipped = file.clone();
        flipped[LOCAL_HEADER_BYTES as usize + 1] ^= 0x20;
        assert_eq!(read_all(&flipped), Err(ZipError::BadChecksum("a".into())));
    }

    /// The offset of the central directory's first entry in `file`.
    fn directory_start(file: &[u8]) -> usize {
        get32(file, file.len() - 6) as usize
    }

    #[test]
    fn what_the_reader_does_not_support_is_named() {
        let file = write(&[("a", b"hello")]);
        let central = directory_start(&file);
        let patched = |at: usize, value: u16| {
            let mut f = file.clone();
            f[at..at + 2].copy_from_slice(&value.to_le_bytes());
            f
        };
        assert_eq!(
            read_all(&patched(central + 10, 8)),
            Err(ZipError::Compressed {
                name: "a".into(),
                method: 8
            })
        );
        assert_eq!(
            read_all(&patched(central + 8, UTF8_NAMES | ENCRYPTED)),
            Err(ZipError::Encrypted("a".into()))
        );
        assert_eq!(
            read_all(&patched(8, 8)),
            Err(ZipError::Compressed {
                name: "a".into(),
                method: 8
            }),
            "the local header is checked too"
        );
        let end = file.len() - END_RECORD_BYTES;
        assert_eq!(read_all(&patched(end + 4, 1)), Err(ZipError::MultiDisk));
        assert_eq!(read_all(&patched(end + 10, u16::MAX)), Err(ZipError::Zip64));
        // A directory claiming more than any real one: refused before it is read.
        let mut huge = file.clone();
        huge[end + 12..end + 16].copy_from_slice(&((MAX_DIRECTORY_BYTES + 1) as u32).to_le_bytes());
        assert_eq!(read_all(&huge), Err(ZipError::TooLarge));
        let mut bad_name = file.clone();
        bad_name[central + CENTRAL_HEADER_BYTES] = 0xff;
        assert_eq!(read_all(&bad_name), Err(ZipError::BadName));
    }

    #[test]
    fn entries_that_overlap_or_repeat_are_refused() {
        // Two directory entries pointing at the same bytes (a classic bomb shape).
        let file = write(&[("a", b"hello"), ("b", b"world")]);
        let central = directory_start(&file);
        let second = central + CENTRAL_HEADER_BYTES + 1;
        let mut overlapping = file.clone();
        overlapping[second + 42..second + 46].copy_from_slice(&0u32.to_le_bytes());
        assert!(matches!(read_all(&overlapping), Err(ZipError::Overlap(_))));
        // A size that reaches into the next entry.
        let mut long = file.clone();
        long[central + 20..central + 28].copy_from_slice(&[9, 0, 0, 0, 9, 0, 0, 0]);
        assert_eq!(read_all(&long), Err(ZipError::Overlap("a".into())));
        // A local header whose extra field pushes the data into the next entry.
        let mut extra = file.clone();
        extra[28..30].copy_from_slice(&40u16.to_le_bytes());
        assert_eq!(read_all(&extra), Err(ZipError::Overlap("a".into())));
        // The same name twice.
        let mut renamed = file.clone();
        renamed[second + CENTRAL_HEADER_BYTES] = b'a';
        assert_eq!(read_all(&renamed), Err(ZipError::Duplicate("a".into())));
    }

    #[test]
    fn the_writer_keeps_to_the_format() {
        let mut writer = ZipWriter::new(DosTime::from_unix_ms(0.0));
        writer.entry("a", 1, 0).unwrap();
        assert_eq!(
            writer.entry("a", 1, 0),
            Err(ZipError::Duplicate("a".into()))
        );
        assert_eq!(writer.entry("", 1, 0), Err(ZipError::BadName));
        assert_eq!(
            writer.entry("big", MAX_FILE_BYTES, 0),
            Err(ZipError::TooLarge)
        );
    }

    #[test]
    fn dos_times_are_utc_and_clamped() {
        // 2026-12-02 04:05:06 UTC.
        let t = DosTime::from_unix_ms(1_796_184_306_000.0);
        assert_eq!(t.date, ((2026 - 1980) << 9) | (12 << 5) | 2);
        assert_eq!(t.time, (4 << 11) | (5 << 5) | 3);
        assert_eq!(DosTime::from_unix_ms(0.0).date, (1 << 5) | 1);
        assert_eq!(DosTime::from_unix_ms(f64::NAN).date, (1 << 5) | 1);
        assert_eq!(DosTime::from_unix_ms(1e15).date >> 9, 127);
        // Leap days.
        let leap = DosTime::from_unix_ms(1_709_164_800_000.0); // 2024-02-29
        assert_eq!(leap.date, ((2024 - 1980) << 9) | (2 << 5) | 29);
    }

    /// A ZIP as other apps write them: deflated entries, by the zip crate.
    fn deflated(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in entries {
            writer.start_file(*name, options).unwrap();
            std::io::Write::write_all(&mut writer, bytes).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    /// Every entry of `file`, read through the foreign directory and inflated.
    fn read_foreign(file: &[u8]) -> Result<Vec<(String, Vec<u8>)>, ZipError> {
        let len = file.len() as u64;
        let at = find_directory(&file[file.len() - TAIL_BYTES.min(len) as usize..], len)?;
        let directory = &file[at.range.start as usize..at.range.end as usize];
        let mut out = Vec::new();
        for entry in read_foreign_directory(directory, &at)? {
            let start = entry.header_offset as usize;
            let header = &file[start..start + LOCAL_HEADER_BYTES as usize];
            let range = data_range(&entry, header)?;
            let bytes = inflate(&entry, &file[range.start as usize..range.end as usize])?;
            out.push((entry.name, bytes));
        }
        Ok(out)
    }

    #[test]
    fn another_apps_deflated_export_is_read_only_when_asked_for() {
        let json: Vec<u8> = "[{\"title\": \"a chat\"}]".repeat(5_000).into_bytes();
        let file = deflated(&[("conversations.json", &json), ("chat.html", b"<html>")]);
        assert!(file.len() < json.len() / 10, "the entry is really deflated");
        // Hearth's own reader still takes stored entries only.
        assert!(matches!(
            read_all(&file),
            Err(ZipError::Compressed { method: 8, .. })
        ));
        let read = read_foreign(&file).unwrap();
        assert_eq!(read[0], ("conversations.json".to_string(), json.clone()));
        assert_eq!(read[1], ("chat.html".to_string(), b"<html>".to_vec()));
        // A stored entry reads the same way.
        assert_eq!(
            read_foreign(&write(&[("a", b"x")])).unwrap(),
            vec![("a".to_string(), b"x".to_vec())]
        );
    }

    #[test]
    fn a_deflated_entry_never_expands_past_its_declared_size() {
        let json = vec![b'7'; 100_000];
        let file = deflated(&[("conversations.json", &json)]);
        let central = directory_start(&file);
        // The directory says 1,000 bytes: the bytes that expand to 100,000 are refused.
        let mut lying = file.clone();
        lying[central + 24..central + 28].copy_from_slice(&1_000u32.to_le_bytes());
        assert_eq!(
            read_foreign(&lying),
            Err(ZipError::BadDeflate("conversations.json".into()))
        );
        // Damaged deflate data is a typed error, never a panic or a wrong file.
        let data_at = LOCAL_HEADER_BYTES as usize + "conversations.json".len();
        for offset in 0..20 {
            let mut damaged = file.clone();
            damaged[data_at + offset] ^= 0x5a;
            match read_foreign(&damaged) {
                Err(ZipError::BadDeflate(_) | ZipError::BadChecksum(_)) => {}
                other => panic!("offset {offset}: {other:?}"),
            }
        }
    }
}
