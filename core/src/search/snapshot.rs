//! The snapshot of one source's sub-index: what the app persists (IndexedDB) and reloads
//! instead of re-indexing every document.
//!
//! ```text
//! header   "HSIX"  version: u16 LE  source: u8  0: u8  payload length: u64 LE
//!          checksum of the payload: u64 LE
//! payload  parents: n, then n × (len, UTF-8)              keys strictly increasing
//!          documents: n, then n × (id, position, parent index, timestamp (zigzag),
//!                     title end, length, partial: u8)     ids strictly increasing
//!          terms: n, dictionary length, dictionary         front-coded, see `dict`
//!          postings length, postings                       see `postings`
//! ```
//!
//! Numbers are LEB128 varints and strings their length then their bytes. The payload is
//! the compacted sub-index, so it is canonical (the same documents give the same bytes),
//! and its two large parts are the in-memory buffers as they are: reopening copies them
//! instead of rebuilding them. Reading is bounded and checked: the size
//! ([`MAX_SNAPSHOT_BYTES`]), the version, the checksum, every count against the bytes
//! left, every key and term length, UTF-8, the order of keys and terms, every document's
//! parent and lengths, that every parent has a document, and that the dictionary's list
//! lengths add up to the postings. The posting lists themselves are not decoded: their
//! reader is checked on every read (a list ends at its count, its last byte, a slot past
//! the last document or a frequency larger than its document), so a list that passes
//! the checksum but holds garbage yields wrong matches, never a panic, an unbounded
//! allocation or a read outside its bytes. Any failure is a [`SnapshotError`], and a
//! snapshot that reads back is safe to search. Opening is linear in the documents and
//! terms, not in the postings.

use super::dict::Dictionary;
use super::postings::{get_u32, get_varint, put_varint};
use super::segment::{Keys, Record, Segment};
use super::{MAX_BODY_BYTES, MAX_DOCUMENTS, MAX_KEY_BYTES, MAX_TITLE_BYTES, Source};

/// The format version written; other versions are refused (rebuild from documents).
pub const SNAPSHOT_VERSION: u16 = 2;
/// The largest snapshot read.
pub const MAX_SNAPSHOT_BYTES: usize = 512 * 1024 * 1024;
const MAGIC: &[u8; 4] = b"HSIX";
const HEADER: usize = 4 + 2 + 1 + 1 + 8 + 8;

/// Why a snapshot was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    /// Larger than [`MAX_SNAPSHOT_BYTES`].
    #[error("the snapshot is {len} bytes, more than {max}")]
    TooLarge {
        /// Its size.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Not a search snapshot.
    #[error("not a search snapshot")]
    NotASnapshot,
    /// Written by another version of the format.
    #[error("snapshot version {found}, expected {SNAPSHOT_VERSION}")]
    Version {
        /// The version found.
        found: u16,
    },
    /// The header names no known source.
    #[error("unknown source {tag}")]
    UnknownSource {
        /// The byte found.
        tag: u8,
    },
    /// Shorter or longer than its header says.
    #[error("the snapshot is truncated or has trailing bytes")]
    Length,
    /// The payload does not match its checksum.
    #[error("the snapshot's checksum does not match")]
    Checksum,
    /// The payload is malformed.
    #[error("the snapshot is corrupt: {0}")]
    Corrupt(&'static str),
}

/// The checksum a snapshot's header carries for its payload: a fast 64-bit hash that
/// detects corruption (it authenticates nothing). Public so fuzzing can reach the checks
/// behind it.
pub fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = bytes.len() as u64 ^ K;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word))
            .wrapping_mul(K)
            .rotate_left(29);
    }
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(K).rotate_left(29);
    }
    h ^ (h >> 32)
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Writes a compacted segment (see the module docs).
pub fn encode(source: Source, segment: &Segment) -> Vec<u8> {
    let lex = segment.dict.lex();
    let postings = segment.postings();
    let mut payload = Vec::with_capacity(lex.len() + postings.len() + segment.slots() * 40);
    put_varint(&mut payload, segment.parent_count() as u64);
    for p in 0..segment.parent_count() as u32 {
        put_str(&mut payload, segment.parent_key(p));
    }
    put_varint(&mut payload, u64::from(segment.live));
    for doc in (0..segment.slots() as u32).filter_map(|s| segment.record(s)) {
        put_str(&mut payload, doc.id);
        put_str(&mut payload, doc.position);
        put_varint(&mut payload, u64::from(doc.parent));
        put_varint(
            &mut payload,
            ((doc.timestamp << 1) ^ (doc.timestamp >> 63)) as u64,
        );
        put_varint(&mut payload, u64::from(doc.title_end));
        put_varint(&mut payload, u64::from(doc.len));
        payload.push(u8::from(doc.partial));
    }
    put_varint(&mut payload, segment.dict.len() as u64);
    put_varint(&mut payload, lex.len() as u64);
    payload.extend_from_slice(lex);
    put_varint(&mut payload, postings.len() as u64);
    payload.extend_from_slice(postings);
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
    out.push(source.tag());
    out.push(0);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&checksum(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, SnapshotError> {
        get_u32(self.bytes, &mut self.at).ok_or(SnapshotError::Corrupt(what))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, SnapshotError> {
        get_varint(self.bytes, &mut self.at).ok_or(SnapshotError::Corrupt(what))
    }

    /// A count of items of at least `min_bytes` each, bounded by the bytes left.
    fn count(&mut self, min_bytes: usize, what: &'static str) -> Result<usize, SnapshotError> {
        let n = self.u64(what)?;
        if n > (self.left() / min_bytes) as u64 {
            return Err(SnapshotError::Corrupt(what));
        }
        Ok(n as usize)
    }

    fn bytes(&mut self, len: usize, what: &'static str) -> Result<&'a [u8], SnapshotError> {
        if len > self.left() {
            return Err(SnapshotError::Corrupt(what));
        }
        let slice = &self.bytes[self.at..self.at + len];
        self.at += len;
        Ok(slice)
    }

    fn key(&mut self, what: &'static str) -> Result<&'a str, SnapshotError> {
        let len = self.u64(what)?;
        if len > MAX_KEY_BYTES as u64 {
            return Err(SnapshotError::Corrupt(what));
        }
        let bytes = self.bytes(len as usize, what)?;
        std::str::from_utf8(bytes).map_err(|_| SnapshotError::Corrupt(what))
    }
}

/// Reads a snapshot written by [`encode`] (see the module docs for what is checked).
pub fn decode(bytes: &[u8]) -> Result<(Source, Segment), SnapshotError> {
    if bytes.len() > MAX_SNAPSHOT_BYTES {
        return Err(SnapshotError::TooLarge {
            len: bytes.len(),
            max: MAX_SNAPSHOT_BYTES,
        });
    }
    if bytes.len() < HEADER || &bytes[..4] != MAGIC {
        return Err(SnapshotError::NotASnapshot);
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != SNAPSHOT_VERSION {
        return Err(SnapshotError::Version { found: version });
    }
    let source =
        Source::from_tag(bytes[6]).ok_or(SnapshotError::UnknownSource { tag: bytes[6] })?;
    if bytes[7] != 0 {
        return Err(SnapshotError::Corrupt("header"));
    }
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[8..16]);
    let len = u64::from_le_bytes(word);
    word.copy_from_slice(&bytes[16..24]);
    let sum = u64::from_le_bytes(word);
    let payload = &bytes[HEADER..];
    if len != payload.len() as u64 {
        return Err(SnapshotError::Length);
    }
    if checksum(payload) != sum {
        return Err(SnapshotError::Checksum);
    }
    let mut r = Reader {
        bytes: payload,
        at: 0,
    };
    let parents = r.count(1, "parent count")?;
    let mut keys: Vec<&str> = Vec::with_capacity(parents);
    for _ in 0..parents {
        let parent = r.key("parent")?;
        if keys.last().is_some_and(|p| *p >= parent) {
            return Err(SnapshotError::Corrupt("parent order"));
        }
        keys.push(parent);
    }
    let docs = r.count(7, "document count")?;
    if docs > MAX_DOCUMENTS {
        return Err(SnapshotError::Corrupt("document count"));
    }
    let mut records: Vec<Record<'_>> = Vec::with_capacity(docs);
    let mut used = vec![false; parents];
    for _ in 0..docs {
        let id = r.key("id")?;
        if id.is_empty() || records.last().is_some_and(|last| last.id >= id) {
            return Err(SnapshotError::Corrupt("id order"));
        }
        let position = r.key("position")?;
        let parent = r.u32("parent index")?;
        if parent as usize >= parents {
            return Err(SnapshotError::Corrupt("parent index"));
        }
        used[parent as usize] = true;
        let zigzag = r.u64("timestamp")?;
        let timestamp = ((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64);
        let title_end = r.u32("title end")?;
        let len = r.u32("length")?;
        if title_end > len
            || title_end as usize > MAX_TITLE_BYTES
            || len as usize > MAX_TITLE_BYTES + MAX_BODY_BYTES
        {
            return Err(SnapshotError::Corrupt("length"));
        }
        let partial = match r.bytes(1, "partial")?[0] {
            0 => false,
            1 => true,
            _ => return Err(SnapshotError::Corrupt("partial")),
        };
        records.push(Record {
            id,
            position,
            parent,
            timestamp,
            title_end,
            len,
            partial,
        });
    }
    if used.contains(&false) {
        return Err(SnapshotError::Corrupt("parent without documents"));
    }
    let terms = r.count(4, "term count")?;
    let lex_len = r.count(1, "dictionary")?;
    let lex = r.bytes(lex_len, "dictionary")?;
    let postings_len = r.count(1, "postings")?;
    let postings = r.bytes(postings_len, "postings")?;
    if r.left() != 0 {
        return Err(SnapshotError::Corrupt("trailing bytes"));
    }
    let dict =
        Dictionary::from_lex(lex, terms, postings.len() as u64).map_err(SnapshotError::Corrupt)?;
    let mut segment = Segment::frozen_docs(Keys::from_sorted(keys), &records);
    segment.set_terms(dict, postings.to_vec());
    Ok((source, segment))
}
