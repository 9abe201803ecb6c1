//! ZIP files of stored (uncompressed) entries, written and read a piece at a time so the
//! bytes of big entries never have to be in memory together.
//!
//! Long because: the writer and the reader share one set of record layouts and bounds
//! (local header, directory entry, ZIP64 fields), and its tests build hostile archives
//! beside them; the seam to cut next is the reader (`find_directory` onwards).
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
//! unique. Split archives, compression and encryption are typed errors, not guesses.
//!
//! ZIP64 (APPNOTE 4.3.14, 4.5.3) is written only where a value does not fit: an entry of
//! 4 GiB or more, or at an offset of 4 GiB or more, carries the ZIP64 extra field; more
//! than 65,534 entries, or a directory at or past 4 GiB, add the ZIP64 end record and its
//! locator in front of the classic end record. A small archive is byte for byte what it
//! was before ZIP64. The reader takes a 64-bit value only where the classic field is
//! `0xFFFF`/`0xFFFFFFFF`, bounds it like any other, and refuses a ZIP64 record or field
//! that is missing, cut short or disagrees with the classic one
//! ([`ZipError::BadZip64`]).
//!
//! Hearth writes and reads its own archives stored. Another app's export (ChatGPT's,
//! Claude's) is deflated: [`read_foreign_directory`] also lists deflated entries, and
//! [`inflate`] expands one, never past the size its directory entry declares.

use std::collections::HashSet;
use std::ops::Range;

/// How much of a file's end can hold the end records: the ZIP64 end record and its
/// locator, then the end-of-directory record with its comment.
pub const TAIL_BYTES: u64 =
    (ZIP64_END_RECORD_BYTES + ZIP64_LOCATOR_BYTES + END_RECORD_BYTES) as u64 + u16::MAX as u64;
/// How many bytes of an entry's local header [`data_range`] needs.
pub const LOCAL_HEADER_BYTES: u64 = 30;
/// The most entries one file may hold.
pub const MAX_ENTRIES: usize = 1_000_000;
/// The longest entry name, in bytes.
pub const MAX_NAME_BYTES: usize = 1024;
/// The largest archive written (1 TiB): far past what a browser holds, and far enough
/// below 2^63 that no offset plus size can overflow.
pub const MAX_ZIP_BYTES: u64 = 1 << 40;
/// The largest central directory written or read (128 MiB: [`MAX_ENTRIES`] entries with
/// names of about 80 bytes), so a directory claiming more is refused before it is read.
pub const MAX_DIRECTORY_BYTES: u64 = 128 * 1024 * 1024;

const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const END_SIGNATURE: u32 = 0x0605_4b50;
const ZIP64_END_SIGNATURE: u32 = 0x0606_4b50;
const ZIP64_LOCATOR_SIGNATURE: u32 = 0x0706_4b50;
const END_RECORD_BYTES: usize = 22;
const CENTRAL_HEADER_BYTES: usize = 46;
/// The ZIP64 end record without an extensible data sector (which is never read).
const ZIP64_END_RECORD_BYTES: usize = 56;
/// What the ZIP64 end record's size field counts without extensible data: all of it but
/// its first 12 bytes.
const ZIP64_END_RECORD_SIZE: u64 = ZIP64_END_RECORD_BYTES as u64 - 12;
const ZIP64_LOCATOR_BYTES: usize = 20;
/// The ZIP64 extended information extra field.
const ZIP64_EXTRA_ID: u16 = 0x0001;
/// A 16-bit field that says "see the ZIP64 end record".
const FULL16: u16 = u16::MAX;
/// A 32-bit field that says "see the ZIP64 extra field or end record".
const FULL32: u32 = u32::MAX;
/// Version 2.0: what readers need for stored entries with UTF-8 names.
const VERSION: u16 = 20;
/// Version 4.5: what readers need for an entry or archive with ZIP64 fields.
const ZIP64_VERSION: u16 = 45;
/// Made on Unix (so the permissions below are read); the version is added.
const MADE_ON_UNIX: u16 = 3 << 8;
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
    /// A ZIP64 record or extra field (for archives over 4 GiB or 65,534 entries) that
    /// is missing, damaged or disagrees with the classic record.
    #[error("the archive's ZIP64 {0} is missing or damaged")]
    BadZip64(&'static str),
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
    /// Writing past [`MAX_ZIP_BYTES`], [`MAX_ENTRIES`] or [`MAX_DIRECTORY_BYTES`], or
    /// reading a directory larger than that.
    #[error(
        "the archive would be larger than {MAX_ZIP_BYTES} bytes, {MAX_ENTRIES} entries \
         or a directory of {MAX_DIRECTORY_BYTES} bytes"
    )]
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
        let (year, month, day) = crate::calendar::civil_from_days(days);
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
            date: (((year - 1980) << 9) | (month << 5) | day) as u16,
        }
    }
}

struct Written {
    name: String,
    crc: u32,
    size: u64,
    offset: u64,
}

/// Writes a ZIP of stored entries: for each entry, [`ZipWriter::entry`] gives the bytes
/// to write before the entry's own; [`ZipWriter::finish`] gives the bytes that end the
/// file.
pub struct ZipWriter {
    modified: DosTime,
    offset: u64,
    entries: Vec<Written>,
    names: HashSet<String>,
    /// The length of the central directory so far.
    directory_len: u64,
}

impl ZipWriter {
    /// A writer whose entries are all dated `modified`.
    pub fn new(modified: DosTime) -> Self {
        Self {
            modified,
            offset: 0,
            entries: Vec::new(),
            names: HashSet::new(),
            directory_len: 0,
        }
    }

    /// The local header of an entry `name` of `size` bytes whose CRC-32 is `crc`; the
    /// entry's bytes follow it in the file.
    pub fn entry(&mut self, name: &str, size: u64, crc: u32) -> Result<Vec<u8>, ZipError> {
        if name.is_empty() || name.len() > MAX_NAME_BYTES {
            return Err(ZipError::BadName);
        }
        if self.names.contains(name) {
            return Err(ZipError::Duplicate(name.to_owned()));
        }
        let offset = self.offset;
        // The local header's ZIP64 field holds both sizes (APPNOTE 4.5.3).
        let local_extra = extra_len(&zip64_values(size, None));
        let header_len = LOCAL_HEADER_BYTES + name.len() as u64 + local_extra;
        let central_len = CENTRAL_HEADER_BYTES as u64
            + name.len() as u64
            + extra_len(&zip64_values(size, Some(offset)));
        let end = offset.saturating_add(header_len).saturating_add(size);
        // The directory follows; keep room for it within the limits.
        if self.entries.len() + 1 > MAX_ENTRIES
            || end > MAX_ZIP_BYTES
            || self.directory_len + central_len > MAX_DIRECTORY_BYTES
        {
            return Err(ZipError::TooLarge);
        }
        let mut header = Vec::with_capacity(header_len as usize);
        put32(&mut header, LOCAL_SIGNATURE);
        put16(&mut header, version(size, offset));
        put16(&mut header, UTF8_NAMES);
        put16(&mut header, 0); // stored
        put16(&mut header, self.modified.time);
        put16(&mut header, self.modified.date);
        put32(&mut header, crc);
        put32(&mut header, clamp32(size));
        put32(&mut header, clamp32(size));
        put16(&mut header, name.len() as u16);
        put16(&mut header, local_extra as u16);
        header.extend_from_slice(name.as_bytes());
        put_zip64_extra(&mut header, &zip64_values(size, None));
        self.names.insert(name.to_owned());
        self.entries.push(Written {
            name: name.to_owned(),
            crc,
            size,
            offset,
        });
        self.offset = end;
        self.directory_len += central_len;
        Ok(header)
    }

    /// The central directory and the end records; the file is whole after them.
    pub fn finish(self) -> Result<Vec<u8>, ZipError> {
        // Room for the end records too: a directory of megabytes is never copied to grow.
        let ends = ZIP64_END_RECORD_BYTES + ZIP64_LOCATOR_BYTES + END_RECORD_BYTES;
        let mut directory = Vec::with_capacity(self.directory_len as usize + ends);
        for entry in &self.entries {
            let wide = zip64_values(entry.size, Some(entry.offset));
            let version = version(entry.size, entry.offset);
            put32(&mut directory, CENTRAL_SIGNATURE);
            put16(&mut directory, MADE_ON_UNIX | version);
            put16(&mut directory, version);
            put16(&mut directory, UTF8_NAMES);
            put16(&mut directory, 0);
            put16(&mut directory, self.modified.time);
            put16(&mut directory, self.modified.date);
            put32(&mut directory, entry.crc);
            put32(&mut directory, clamp32(entry.size));
            put32(&mut directory, clamp32(entry.size));
            put16(&mut directory, entry.name.len() as u16);
            put16(&mut directory, extra_len(&wide) as u16);
            put16(&mut directory, 0); // comment
            put16(&mut directory, 0); // disk
            put16(&mut directory, 0); // internal attributes
            put32(&mut directory, FILE_MODE);
            put32(&mut directory, clamp32(entry.offset));
            directory.extend_from_slice(entry.name.as_bytes());
            put_zip64_extra(&mut directory, &wide);
        }
        let (size, offset) = (directory.len() as u64, self.offset);
        let count = self.entries.len() as u64;
        let zip64 =
            count >= u64::from(FULL16) || size >= u64::from(FULL32) || offset >= u64::from(FULL32);
        let zip64_len = if zip64 {
            (ZIP64_END_RECORD_BYTES + ZIP64_LOCATOR_BYTES) as u64
        } else {
            0
        };
        if offset + size + zip64_len + END_RECORD_BYTES as u64 > MAX_ZIP_BYTES {
            return Err(ZipError::TooLarge);
        }
        if zip64 {
            let record_at = offset + size;
            put32(&mut directory, ZIP64_END_SIGNATURE);
            put64(&mut directory, ZIP64_END_RECORD_SIZE);
            put16(&mut directory, MADE_ON_UNIX | ZIP64_VERSION);
            put16(&mut directory, ZIP64_VERSION);
            put32(&mut directory, 0); // this disk
            put32(&mut directory, 0); // the directory's disk
            put64(&mut directory, count);
            put64(&mut directory, count);
            put64(&mut directory, size);
            put64(&mut directory, offset);
            put32(&mut directory, ZIP64_LOCATOR_SIGNATURE);
            put32(&mut directory, 0); // the ZIP64 end record's disk
            put64(&mut directory, record_at);
            put32(&mut directory, 1); // disks in all
        }
        put32(&mut directory, END_SIGNATURE);
        put16(&mut directory, 0); // this disk
        put16(&mut directory, 0); // the directory's disk
        put16(&mut directory, count.min(u64::from(FULL16)) as u16);
        put16(&mut directory, count.min(u64::from(FULL16)) as u16);
        put32(&mut directory, clamp32(size));
        put32(&mut directory, clamp32(offset));
        put16(&mut directory, 0); // no comment
        Ok(directory)
    }
}

/// The version needed for an entry of `size` bytes at `offset`: 4.5 when either needs
/// ZIP64, in both its headers.
fn version(size: u64, offset: u64) -> u16 {
    if size >= u64::from(FULL32) || offset >= u64::from(FULL32) {
        ZIP64_VERSION
    } else {
        VERSION
    }
}

/// `value` for a 32-bit field: [`FULL32`] when it does not fit (or is [`FULL32`]).
fn clamp32(value: u64) -> u32 {
    value.min(u64::from(FULL32)) as u32
}

/// The values a ZIP64 extra field carries for an entry of `size` bytes (stored, so the
/// compressed size is the same) and, in a central record, at `offset`: each that does not
/// fit its 32-bit field, in APPNOTE order (size, compressed size, local header offset).
fn zip64_values(size: u64, offset: Option<u64>) -> Vec<u64> {
    let mut values = Vec::new();
    if size >= u64::from(FULL32) {
        values.extend([size, size]);
    }
    values.extend(offset.filter(|&offset| offset >= u64::from(FULL32)));
    values
}

/// The length of the extra field holding `values` (none when there are none).
fn extra_len(values: &[u64]) -> u64 {
    if values.is_empty() {
        0
    } else {
        4 + 8 * values.len() as u64
    }
}

fn put_zip64_extra(out: &mut Vec<u8>, values: &[u64]) {
    if values.is_empty() {
        return;
    }
    put16(out, ZIP64_EXTRA_ID);
    put16(out, 8 * values.len() as u16);
    for &value in values {
        put64(out, value);
    }
}

fn put16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn get16(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn get32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn get64(bytes: &[u8], at: usize) -> u64 {
    u64::from(get32(bytes, at)) | u64::from(get32(bytes, at + 4)) << 32
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
/// (at most [`TAIL_BYTES`]; all of them when the file is shorter). A ZIP64 archive's
/// counts, size and offset are read from its ZIP64 end record, which must lie in `tail`.
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
    let classic = Ends {
        disk: get16(record, 4).into(),
        directory_disk: get16(record, 6).into(),
        on_disk: get16(record, 8).into(),
        total: get16(record, 10).into(),
        size: get32(record, 12).into(),
        offset: get32(record, 16).into(),
        // The directory lies in front of the end record.
        before: tail_start + end as u64,
    };
    let locator = end
        .checked_sub(ZIP64_LOCATOR_BYTES)
        .filter(|&at| get32(tail, at) == ZIP64_LOCATOR_SIGNATURE);
    let ends = match locator {
        Some(at) => zip64_ends(tail, tail_start, at, &classic)?,
        None if classic.wants_zip64() => {
            return Err(if end < ZIP64_LOCATOR_BYTES && tail_start > 0 {
                ZipError::Truncated("the ZIP64 end record locator")
            } else {
                ZipError::BadZip64("end record locator")
            });
        }
        None => classic,
    };
    if ends.disk != 0 || ends.directory_disk != 0 || ends.on_disk != ends.total {
        return Err(ZipError::MultiDisk);
    }
    if ends.total > MAX_ENTRIES as u64 {
        return Err(ZipError::TooManyEntries);
    }
    if ends.size > MAX_DIRECTORY_BYTES {
        return Err(ZipError::TooLarge);
    }
    // Every entry takes a central record's fixed part at least.
    if ends.total > ends.size / CENTRAL_HEADER_BYTES as u64 {
        return Err(ZipError::Truncated("the directory"));
    }
    let range = ends.offset..ends.offset.saturating_add(ends.size);
    if range.end > ends.before {
        return Err(ZipError::Truncated("the directory"));
    }
    Ok(DirectoryAt {
        range,
        entries: ends.total as usize,
    })
}

/// What an end record (classic or ZIP64) says, widened to 64 bits.
struct Ends {
    disk: u64,
    directory_disk: u64,
    on_disk: u64,
    total: u64,
    size: u64,
    offset: u64,
    /// Where the end records start: the directory must end there or before.
    before: u64,
}

impl Ends {
    /// Whether a classic end record marks a field as held by the ZIP64 end record.
    fn wants_zip64(&self) -> bool {
        [self.disk, self.directory_disk, self.on_disk, self.total].contains(&u64::from(FULL16))
            || [self.size, self.offset].contains(&u64::from(FULL32))
    }
}

/// The ZIP64 end record that the locator at `locator` in `tail` (which starts at
/// `tail_start` in the file) points at, checked against the `classic` end record: a field
/// the classic record holds in full must say the same.
fn zip64_ends(
    tail: &[u8],
    tail_start: u64,
    locator: usize,
    classic: &Ends,
) -> Result<Ends, ZipError> {
    let locator_bytes = &tail[locator..locator + ZIP64_LOCATOR_BYTES];
    let (record_disk, record_at) = (get32(locator_bytes, 4), get64(locator_bytes, 8));
    // A single-disk archive says 1 disk in all; some writers say 0.
    if record_disk != 0 || get32(locator_bytes, 16) > 1 {
        return Err(ZipError::MultiDisk);
    }
    // The record (without its extensible data) lies whole in front of the locator.
    let locator_at = tail_start + locator as u64;
    if record_at.saturating_add(ZIP64_END_RECORD_BYTES as u64) > locator_at {
        return Err(ZipError::BadZip64("end record locator"));
    }
    if record_at < tail_start {
        return Err(ZipError::Truncated("the ZIP64 end record"));
    }
    let record = &tail[(record_at - tail_start) as usize..][..ZIP64_END_RECORD_BYTES];
    // Its size may claim more (some writers counted its first 12 bytes too): the
    // extensible data after the fixed fields is never read.
    if get32(record, 0) != ZIP64_END_SIGNATURE || get64(record, 4) < ZIP64_END_RECORD_SIZE {
        return Err(ZipError::BadZip64("end record"));
    }
    let ends = Ends {
        disk: get32(record, 16).into(),
        directory_disk: get32(record, 20).into(),
        on_disk: get64(record, 24),
        total: get64(record, 32),
        size: get64(record, 40),
        offset: get64(record, 48),
        before: record_at,
    };
    let agrees =
        |classic: u64, full: u32, zip64: u64| classic == u64::from(full) || classic == zip64;
    let full16 = u32::from(FULL16);
    if !(agrees(classic.disk, full16, ends.disk)
        && agrees(classic.directory_disk, full16, ends.directory_disk)
        && agrees(classic.on_disk, full16, ends.on_disk)
        && agrees(classic.total, full16, ends.total)
        && agrees(classic.size, FULL32, ends.size)
        && agrees(classic.offset, FULL32, ends.offset))
    {
        return Err(ZipError::BadZip64("end record"));
    }
    Ok(ends)
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
    // Never more than the bytes can hold, whatever the count claims.
    let mut entries = Vec::with_capacity(at.entries.min(bytes.len() / CENTRAL_HEADER_BYTES));
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
        let extra_start = name_start + name_len;
        let name = bytes
            .get(name_start..name_start + name_len)
            .ok_or(ZipError::Truncated("an entry's name"))?;
        let name = std::str::from_utf8(name)
            .ok()
            .filter(|n| !n.is_empty() && n.len() <= MAX_NAME_BYTES)
            .ok_or(ZipError::BadName)?
            .to_owned();
        cursor = extra_start + extra_len + comment_len;
        if cursor > bytes.len() {
            return Err(ZipError::Truncated("an entry of the directory"));
        }
        let extra = &bytes[extra_start..extra_start + extra_len];
        let [size, compressed, offset] = widen(extra, [size, compressed, offset])?;
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
            size,
            method,
            stored_size: compressed,
            crc,
            header_offset: offset,
            limit: 0,
        });
    }
    // Each entry ends before the next one starts, the last one before the directory.
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| entries[i].header_offset);
    let mut limit = at.range.start;
    for &i in order.iter().rev() {
        let entry = &mut entries[i];
        let least = entry
            .header_offset
            .saturating_add(LOCAL_HEADER_BYTES)
            .saturating_add(entry.stored_size);
        if least > limit {
            return Err(ZipError::Overlap(entry.name.clone()));
        }
        entry.limit = limit;
        limit = entry.header_offset;
    }
    Ok(entries)
}

/// A central record's size, compressed size and local header offset, each read from its
/// ZIP64 extra field when the record holds [`FULL32`] for it: the field starts with
/// exactly those values, in that order (APPNOTE 4.5.3); what some writers add after them
/// is not read.
fn widen(extra: &[u8], fields: [u32; 3]) -> Result<[u64; 3], ZipError> {
    let mut wide = fields.map(u64::from);
    if !fields.contains(&FULL32) {
        return Ok(wide);
    }
    let mut values = zip64_extra(extra).ok_or(ZipError::BadZip64("extra field"))?;
    for (value, field) in wide.iter_mut().zip(fields) {
        if field == FULL32 {
            let (bytes, rest) = values
                .split_first_chunk::<8>()
                .ok_or(ZipError::BadZip64("extra field"))?;
            *value = u64::from_le_bytes(*bytes);
            values = rest;
        }
    }
    Ok(wide)
}

/// The data of the ZIP64 extra field among the fields of `extra`; none when it is not
/// there, or a field before it runs past the end.
fn zip64_extra(mut extra: &[u8]) -> Option<&[u8]> {
    while extra.len() >= 4 {
        let (id, len) = (get16(extra, 0), usize::from(get16(extra, 2)));
        let data = extra.get(4..4 + len)?;
        if id == ZIP64_EXTRA_ID {
            return Some(data);
        }
        extra = &extra[4 + len..];
    }
    None
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
    // The name and extra field (a ZIP64 one too) lie between the header and the bytes;
    // the sizes are the directory's, never the local header's.
    let skip = u64::from(get16(header, 26)) + u64::from(get16(header, 28));
    let start = entry
        .header_offset
        .saturating_add(LOCAL_HEADER_BYTES + skip);
    let end = start.saturating_add(entry.stored_size);
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
        let start = usize::try_from(entry.header_offset).unwrap_or(usize::MAX);
        let header = file
            .get(
                start
                    ..start
                        .saturating_add(LOCAL_HEADER_BYTES as usize)
                        .min(file.len()),
            )
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
        assert_eq!(
            read_all(&patched(end + 10, u16::MAX)),
            Err(ZipError::BadZip64("end record locator"))
        );
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
            writer.entry("big", MAX_ZIP_BYTES, 0),
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

    /// The hex of `bytes`.
    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// An archive of `count` one-byte entries `f/<i>`.
    fn many(count: usize) -> Vec<u8> {
        let names: Vec<String> = (0..count).map(|i| format!("f/{i}")).collect();
        let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"ab"[..])).collect();
        write(&entries)
    }

    #[test]
    fn small_archives_are_written_as_before_zip64() {
        // Bytes written before ZIP64 support: what needs no ZIP64 has not changed.
        assert_eq!(
            hex(&write(&[("a", b"x")])),
            "504b03041400000800000000815b8316dc8c0100000001000000010000006178\
             504b010214031400000800000000815b8316dc8c0100000001000000010000000000\
             000000000000a4810000000061\
             504b050600000000010001002f000000200000000000"
        );
        let big: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let file = write(&[
            ("hearth-export.json", b"{\"format\":\"hearth-export\"}"),
            ("files/images/a.png", &big),
            ("files/attachments/empty", b""),
            ("名前/ファイル.txt", "テキスト".as_bytes()),
        ]);
        assert_eq!((file.len(), crc32(&file)), (200_528, 0x05b0_14e9));
        // 65,534 entries, the most a classic end record counts: still no ZIP64.
        let file = many(65_534);
        assert_eq!((file.len(), crc32(&file)), (6_006_930, 0xc869_bb1e));
        // One more, and the count (0xFFFF) is in the ZIP64 end record.
        let file = many(65_535);
        let end = file.len() - END_RECORD_BYTES;
        assert_eq!(get16(&file, end + 8), u16::MAX);
        assert_eq!(get16(&file, end + 10), u16::MAX);
        assert_eq!(
            get32(&file, end - ZIP64_LOCATOR_BYTES),
            ZIP64_LOCATOR_SIGNATURE
        );
        let record = end - ZIP64_LOCATOR_BYTES - ZIP64_END_RECORD_BYTES;
        assert_eq!(get32(&file, record), ZIP64_END_SIGNATURE);
        assert_eq!(get64(&file, record + 32), 65_535);
        assert_eq!(read_all(&file).unwrap().len(), 65_535);
    }

    #[test]
    fn seventy_thousand_entries_read_back_with_both_readers() {
        let names: Vec<String> = (0..70_000).map(|i| format!("files/{i:05}.txt")).collect();
        let texts: Vec<String> = (0..70_000).map(|i| format!("entry {i}")).collect();
        let entries: Vec<(&str, &[u8])> = names
            .iter()
            .zip(&texts)
            .map(|(n, t)| (n.as_str(), t.as_bytes()))
            .collect();
        let file = write(&entries);
        let read = read_all(&file).unwrap();
        assert_eq!(read.len(), 70_000);
        for ((name, bytes), (read_name, read_bytes)) in entries.iter().zip(&read) {
            assert_eq!((name, bytes), (&read_name.as_str(), read_bytes));
        }
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(file)).unwrap();
        assert_eq!(archive.len(), 70_000);
        for (i, (name, bytes)) in entries.iter().enumerate() {
            let mut entry = archive.by_index(i).unwrap();
            assert_eq!(entry.name().unwrap(), *name);
            assert_eq!(entry.size(), bytes.len() as u64);
            let mut read = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut read).unwrap();
            assert_eq!(read, *bytes);
        }
    }

    /// A file of `len` bytes holding `pieces` (where each starts, its bytes) and zeros
    /// elsewhere: an archive of gigabytes that is never in memory.
    struct Sparse {
        pieces: Vec<(u64, Vec<u8>)>,
        len: u64,
        at: u64,
    }

    impl Sparse {
        /// The bytes `range` of the file.
        fn slice(&mut self, range: Range<u64>) -> Vec<u8> {
            use std::io::{Read, Seek, SeekFrom};
            let mut bytes = vec![0; (range.end - range.start) as usize];
            self.seek(SeekFrom::Start(range.start)).unwrap();
            self.read_exact(&mut bytes).unwrap();
            bytes
        }
    }

    impl std::io::Read for Sparse {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let mut n = buf.len().min(self.len.saturating_sub(self.at) as usize);
            let at = self.at;
            match self
                .pieces
                .iter()
                .find(|(start, b)| start + b.len() as u64 > at)
            {
                Some((start, bytes)) if *start <= at => {
                    let from = (at - start) as usize;
                    n = n.min(bytes.len() - from);
                    buf[..n].copy_from_slice(&bytes[from..from + n]);
                }
                next => {
                    if let Some((start, _)) = next {
                        n = n.min((start - at) as usize);
                    }
                    buf[..n].fill(0);
                }
            }
            self.at += n as u64;
            Ok(n)
        }
    }

    impl std::io::Seek for Sparse {
        fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
            let at = match to {
                std::io::SeekFrom::Start(at) => Some(at),
                std::io::SeekFrom::End(by) => self.len.checked_add_signed(by),
                std::io::SeekFrom::Current(by) => self.at.checked_add_signed(by),
            };
            self.at = at.ok_or(std::io::ErrorKind::InvalidInput)?;
            Ok(self.at)
        }
    }

    /// An entry's bytes: held, or that many zeros never held.
    enum Data<'a> {
        Bytes(&'a [u8]),
        Zeros(u64),
    }

    /// The CRC-32 of `len` zeros, without them: hashes of 1, 2, 4... zeros, combined.
    fn crc_of_zeros(len: u64) -> u32 {
        let mut whole = crc32fast::Hasher::new();
        let mut power = crc32fast::Hasher::new();
        power.update(&[0]);
        for bit in 0..u64::BITS - len.leading_zeros() {
            if len >> bit & 1 == 1 {
                whole.combine(&power);
            }
            let twice = power.clone();
            power.combine(&twice);
        }
        whole.finalize()
    }

    /// `entries` written by [`ZipWriter`] into a [`Sparse`] file, and each entry's name,
    /// size and local header offset.
    fn sparse(entries: &[(&str, Data)]) -> (Sparse, Vec<(String, u64, u64)>) {
        let mut writer = ZipWriter::new(DosTime::from_unix_ms(1_764_547_200_000.0));
        let (mut pieces, mut at, mut listed) = (Vec::new(), 0u64, Vec::new());
        for (name, data) in entries {
            let (size, crc) = match data {
                Data::Bytes(bytes) => (bytes.len() as u64, crc32(bytes)),
                Data::Zeros(len) => (*len, crc_of_zeros(*len)),
            };
            let header = writer.entry(name, size, crc).unwrap();
            listed.push((name.to_string(), size, at));
            let data_at = at + header.len() as u64;
            pieces.push((at, header));
            if let Data::Bytes(bytes) = data {
                pieces.push((data_at, bytes.to_vec()));
            }
            at = data_at + size;
        }
        let end = writer.finish().unwrap();
        let len = at + end.len() as u64;
        pieces.push((at, end));
        (Sparse { pieces, len, at: 0 }, listed)
    }

    /// Checks that our reader and the zip crate both find `listed` in `file`, and the
    /// `held` entries' bytes; the entries' data ranges, by our reader.
    fn read_both(
        file: Sparse,
        listed: &[(String, u64, u64)],
        held: &[(&str, &[u8])],
    ) -> Vec<Range<u64>> {
        let mut file = file;
        let len = file.len;
        let tail = file.slice(len - TAIL_BYTES.min(len)..len);
        let at = find_directory(&tail, len).unwrap();
        let directory = file.slice(at.range.clone());
        let entries = read_directory(&directory, &at).unwrap();
        let mut ranges = Vec::new();
        for (entry, (name, size, offset)) in entries.iter().zip(listed) {
            assert_eq!(
                (&entry.name, entry.size, entry.header_offset),
                (name, *size, *offset)
            );
            let header = file.slice(*offset..offset + LOCAL_HEADER_BYTES);
            let range = data_range(entry, &header).unwrap();
            if let Some((_, bytes)) = held.iter().find(|(held, _)| held == name) {
                let read = file.slice(range.clone());
                check_crc(entry, &read).unwrap();
                assert_eq!(read, *bytes);
            }
            ranges.push(range);
        }
        assert_eq!(entries.len(), listed.len());
        let mut archive = zip::ZipArchive::new(file).unwrap();
        assert_eq!(archive.len(), listed.len());
        for (i, ((name, size, offset), range)) in listed.iter().zip(&ranges).enumerate() {
            let mut entry = archive.by_index(i).unwrap();
            assert_eq!(entry.name().unwrap(), name.as_str());
            assert_eq!((entry.size(), entry.compressed_size()), (*size, *size));
            assert_eq!(entry.header_start(), *offset);
            assert_eq!(entry.data_start(), Some(range.start));
            if let Some((_, bytes)) = held.iter().find(|(held, _)| held == name) {
                let mut read = Vec::new();
                std::io::Read::read_to_end(&mut entry, &mut read).unwrap();
                assert_eq!(read, *bytes);
            }
        }
        ranges
    }

    const GIB: u64 = 1 << 30;

    #[test]
    fn offsets_past_4_gib_read_back_without_the_bytes_in_memory() {
        assert_eq!(crc_of_zeros(12_345), crc32(&[0; 12_345]));
        let last: &[u8] = b"the last entry, past 4 GiB";
        let (file, listed) = sparse(&[
            ("a.bin", Data::Zeros(3 * GIB)),
            ("b.bin", Data::Zeros(2 * GIB)),
            ("last.txt", Data::Bytes(last)),
        ]);
        assert!(listed[2].2 > 4 * GIB);
        let ranges = read_both(file, &listed, &[("last.txt", last)]);
        assert!(ranges[2].start > 4 * GIB);
    }

    #[test]
    fn an_entry_of_4_gib_or_more_carries_zip64_in_both_headers() {
        let (first, past, last): (&[u8], &[u8], &[u8]) = (b"first", b"past 4 GiB", b"the end");
        let (mut file, listed) = sparse(&[
            ("first.txt", Data::Bytes(first)),
            // 0xFFFFFFFF itself says "in the ZIP64 field": the first size written there.
            ("exact.bin", Data::Zeros(u64::from(u32::MAX))),
            ("past.txt", Data::Bytes(past)),
            ("huge.bin", Data::Zeros(5 * GIB)),
            ("last.txt", Data::Bytes(last)),
        ]);
        // The local headers: ZIP64 sizes only where the size does not fit.
        let local = |file: &mut Sparse, i: usize| {
            let (name, _, offset): &(String, u64, u64) = &listed[i];
            let end = offset + LOCAL_HEADER_BYTES + name.len() as u64;
            let header = file.slice(*offset..end);
            let extra = file.slice(end..end + u64::from(get16(&header, 28)));
            (
                get16(&header, 4),
                get32(&header, 18),
                get32(&header, 22),
                extra,
            )
        };
        assert_eq!(local(&mut file, 0), (20, 5, 5, vec![]));
        let mut sizes = vec![1, 0, 16, 0];
        sizes.extend(u64::from(u32::MAX).to_le_bytes().repeat(2));
        assert_eq!(local(&mut file, 1), (45, u32::MAX, u32::MAX, sizes));
        assert_eq!(
            local(&mut file, 2),
            (45, 10, 10, vec![]),
            "offset past 4 GiB"
        );
        assert_eq!(local(&mut file, 3).0, 45);
        assert_eq!(local(&mut file, 3).1, u32::MAX);
        assert_eq!(local(&mut file, 3).3.len(), 20);
        // The central records: exactly the fields that overflowed, in APPNOTE order.
        let len = file.len;
        let tail = file.slice(len - TAIL_BYTES.min(len)..len);
        let at = find_directory(&tail, len).unwrap();
        let directory = file.slice(at.range.clone());
        let mut cursor = 0;
        let mut records = Vec::new();
        for _ in 0..5 {
            let record = &directory[cursor..];
            let (name_len, extra_len) = (
                usize::from(get16(record, 28)),
                usize::from(get16(record, 30)),
            );
            let extra = &record[CENTRAL_HEADER_BYTES + name_len..][..extra_len];
            let values: Vec<u64> = extra
                .get(4..)
                .unwrap_or_default()
                .chunks(8)
                .map(|c| get64(c, 0))
                .collect();
            records.push((
                get16(record, 6),
                get32(record, 24),
                get32(record, 42),
                values,
            ));
            cursor += CENTRAL_HEADER_BYTES + name_len + extra_len;
        }
        let full = u64::from(u32::MAX);
        let (past_at, huge_at, last_at) = (listed[2].2, listed[3].2, listed[4].2);
        assert_eq!(
            records,
            [
                (20, 5, 0, vec![]),
                (45, u32::MAX, listed[1].2 as u32, vec![full, full]),
                (45, 10, u32::MAX, vec![past_at]),
                (45, u32::MAX, u32::MAX, vec![5 * GIB, 5 * GIB, huge_at]),
                (45, 7, u32::MAX, vec![last_at]),
            ]
        );
        // The end records: the directory lies past 4 GiB.
        let end = tail.len() - END_RECORD_BYTES;
        assert_eq!(get32(&tail, end + 16), u32::MAX);
        assert_eq!(get16(&tail, end + 10), 5, "the count fits");
        let ranges = read_both(
            file,
            &listed,
            &[("first.txt", first), ("past.txt", past), ("last.txt", last)],
        );
        assert!(ranges[3].end - ranges[3].start == 5 * GIB && ranges[4].start > 9 * GIB);
    }

    #[test]
    fn the_tail_covers_the_zip64_records_behind_the_longest_comment() {
        let mut file = many(65_535);
        let at = file.len() - 2;
        file[at..].copy_from_slice(&u16::MAX.to_le_bytes());
        file.extend(vec![b'c'; usize::from(u16::MAX)]);
        assert_eq!(read_all(&file).unwrap().len(), 65_535);
        // A tail one byte short of the ZIP64 end record is a typed error, not a guess.
        let len = file.len() as u64;
        let short = &file[file.len() - TAIL_BYTES as usize + 1..];
        assert_eq!(
            find_directory(short, len),
            Err(ZipError::Truncated("the ZIP64 end record"))
        );
        let shorter = &file[file.len() - END_RECORD_BYTES - usize::from(u16::MAX) - 10..];
        assert_eq!(
            find_directory(shorter, len),
            Err(ZipError::Truncated("the ZIP64 end record locator"))
        );
    }

    #[test]
    fn a_damaged_zip64_end_is_a_typed_error() {
        let file = many(65_535);
        let end = file.len() - END_RECORD_BYTES;
        let locator = end - ZIP64_LOCATOR_BYTES;
        let record = locator - ZIP64_END_RECORD_BYTES;
        let patched = |at: usize, value: &[u8]| {
            let mut f = file.clone();
            f[at..at + value.len()].copy_from_slice(value);
            read_all(&f).map(|read| read.len())
        };
        let bad = |what| Err(ZipError::BadZip64(what));
        // The locator points nowhere, into itself, at bytes that are not the record, or
        // in front of the tail read.
        assert_eq!(
            patched(locator + 8, &u64::MAX.to_le_bytes()),
            bad("end record locator")
        );
        assert_eq!(
            patched(locator + 8, &(record as u64 + 1).to_le_bytes()),
            bad("end record locator")
        );
        assert_eq!(
            patched(locator + 8, &(record as u64 - 8).to_le_bytes()),
            bad("end record")
        );
        assert_eq!(
            patched(locator + 8, &0u64.to_le_bytes()),
            Err(ZipError::Truncated("the ZIP64 end record"))
        );
        assert_eq!(patched(record, b"PK\x06\x07"), bad("end record"));
        assert_eq!(patched(record + 4, &43u64.to_le_bytes()), bad("end record"));
        // Old writers counted the record's first 12 bytes in its size: still read.
        assert_eq!(patched(record + 4, &56u64.to_le_bytes()), Ok(65_535));
        // Split archives, whichever record says so.
        assert_eq!(
            patched(locator + 4, &1u32.to_le_bytes()),
            Err(ZipError::MultiDisk)
        );
        assert_eq!(
            patched(locator + 16, &2u32.to_le_bytes()),
            Err(ZipError::MultiDisk)
        );
        let mut split = file.clone();
        split[end + 4..end + 6].copy_from_slice(&1u16.to_le_bytes());
        split[record + 16..record + 20].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(read_all(&split), Err(ZipError::MultiDisk));
        assert_eq!(
            patched(record + 24, &1u64.to_le_bytes()),
            Err(ZipError::MultiDisk)
        );
        // Where the classic record says disk 0, the ZIP64 one may not say another.
        assert_eq!(patched(record + 16, &1u32.to_le_bytes()), bad("end record"));
        // Counts past the limit are refused before the directory is read.
        let over = (MAX_ENTRIES as u64 + 1).to_le_bytes();
        let mut counts = over.to_vec();
        counts.extend(over);
        assert_eq!(patched(record + 24, &counts), Err(ZipError::TooManyEntries));
        let mut counts = u64::MAX.to_le_bytes().to_vec();
        counts.extend(u64::MAX.to_le_bytes());
        assert_eq!(patched(record + 24, &counts), Err(ZipError::TooManyEntries));
        // A classic field held in full must say what the ZIP64 record says.
        assert_eq!(patched(record + 40, &1u64.to_le_bytes()), bad("end record"));
        // Directory sizes and offsets past the bounds, with the classic ones saying
        // "in the ZIP64 record".
        let mut saturated = file.clone();
        saturated[end + 12..end + 20].copy_from_slice(&[0xff; 8]);
        let sat = |at: usize, value: u64| {
            let mut f = saturated.clone();
            f[at..at + 8].copy_from_slice(&value.to_le_bytes());
            read_all(&f).map(|read| read.len())
        };
        assert_eq!(read_all(&saturated).map(|r| r.len()), Ok(65_535));
        assert_eq!(
            sat(record + 40, MAX_DIRECTORY_BYTES + 1),
            Err(ZipError::TooLarge)
        );
        assert_eq!(sat(record + 40, u64::MAX), Err(ZipError::TooLarge));
        assert_eq!(
            sat(record + 48, u64::MAX),
            Err(ZipError::Truncated("the directory"))
        );
        assert_eq!(
            sat(record + 48, record as u64),
            Err(ZipError::Truncated("the directory"))
        );
        // A count the directory's bytes cannot hold.
        assert_eq!(
            sat(record + 40, 46 * 65_534),
            Err(ZipError::Truncated("the directory"))
        );
        // No locator where the classic record says ZIP64.
        assert_eq!(patched(locator, b"PK\x00\x00"), bad("end record locator"));
    }

    #[test]
    fn a_missing_or_short_zip64_extra_field_is_a_typed_error() {
        let full = FULL32;
        let field = |id: u16, values: &[u8]| {
            let mut out = id.to_le_bytes().to_vec();
            out.extend((values.len() as u16).to_le_bytes());
            out.extend(values);
            out
        };
        let values: Vec<u8> = [7u64, 8, 9].iter().flat_map(|v| v.to_le_bytes()).collect();
        // Other fields in front are walked; only the fields held in full are read, in
        // APPNOTE order; values past those needed are left.
        let mut extra = field(0x5455, &[1, 2, 3, 4, 5]);
        extra.extend(field(ZIP64_EXTRA_ID, &values));
        assert_eq!(widen(&extra, [full, full, full]), Ok([7, 8, 9]));
        assert_eq!(widen(&extra, [full, 5, full]), Ok([7, 5, 8]));
        assert_eq!(widen(&extra, [1, 2, full]), Ok([1, 2, 7]));
        assert_eq!(widen(&[], [1, 2, 3]), Ok([1, 2, 3]), "nothing held in full");
        let missing = Err(ZipError::BadZip64("extra field"));
        assert_eq!(widen(&[], [full, 2, 3]), missing);
        assert_eq!(widen(&field(0x5455, &values), [full, 2, 3]), missing);
        // Too few values, a field cut short, a length running past the end.
        assert_eq!(
            widen(&field(ZIP64_EXTRA_ID, &values[..16]), [full, full, full]),
            missing
        );
        assert_eq!(
            widen(&field(ZIP64_EXTRA_ID, &values[..4]), [full, 2, 3]),
            missing
        );
        let mut past = field(ZIP64_EXTRA_ID, &values);
        past[2] = 30;
        assert_eq!(widen(&past, [full, 2, 3]), missing);
        assert_eq!(widen(&[1, 0, 8], [full, 2, 3]), missing);
        // Through the directory: a record that says "in the extra field" without one.
        let file = write(&[("a", b"hello")]);
        let central = directory_start(&file);
        for at in [20, 24, 42] {
            let mut f = file.clone();
            f[central + at..central + at + 4].copy_from_slice(&[0xff; 4]);
            assert_eq!(
                read_all(&f),
                Err(ZipError::BadZip64("extra field")),
                "field at {at}"
            );
        }
        // A wide offset or size that runs past the directory overlaps it.
        let mut f = file.clone();
        let name_end = central + CENTRAL_HEADER_BYTES + 1;
        f[central + 30..central + 32].copy_from_slice(&12u16.to_le_bytes());
        f[central + 42..central + 46].copy_from_slice(&[0xff; 4]);
        let mut wide = field(ZIP64_EXTRA_ID, &u64::MAX.to_le_bytes());
        wide.extend(&f[name_end..]);
        f.truncate(name_end);
        f.extend(wide);
        let end = f.len() - END_RECORD_BYTES;
        let size = get32(&f, end + 12) + 12;
        f[end + 12..end + 16].copy_from_slice(&size.to_le_bytes());
        assert_eq!(read_all(&f), Err(ZipError::Overlap("a".into())));
    }

    #[test]
    fn the_writer_keeps_to_the_new_limits() {
        let mut writer = ZipWriter::new(DosTime::from_unix_ms(0.0));
        writer.offset = MAX_ZIP_BYTES - 40;
        assert_eq!(writer.entry("a", 10, 0), Err(ZipError::TooLarge));
        assert_eq!(writer.entry("a", u64::MAX, 0), Err(ZipError::TooLarge));
        assert!(
            writer.entry("a", 1, 0).is_ok(),
            "a refused entry keeps no name"
        );
        assert_eq!(
            writer.finish(),
            Err(ZipError::TooLarge),
            "no room for the end"
        );
        let mut writer = ZipWriter::new(DosTime::from_unix_ms(0.0));
        writer.directory_len = MAX_DIRECTORY_BYTES - CENTRAL_HEADER_BYTES as u64;
        assert_eq!(writer.entry("a", 1, 0), Err(ZipError::TooLarge));
        writer.directory_len -= 1;
        assert!(writer.entry("a", 1, 0).is_ok());
    }
}
