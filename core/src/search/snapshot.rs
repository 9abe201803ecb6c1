//! The snapshot of one source's sub-index: what the app persists (IndexedDB) and reloads
//! instead of re-indexing every document.
//!
//! ```text
//! header   "HSIX"  version: u16 LE  source: u8  0: u8  payload length: u64 LE
//!          checksum of the payload: u64 LE
//! payload  parents: n, then n × (len, UTF-8)              keys strictly increasing
//!          documents: n, then n × (id, position, parent index, timestamp (zigzag),
//!                     title end, length, partial: u8)     ids strictly increasing
//!          terms: n, then n × (bytes shared with the previous term, suffix, postings
//!                     bytes, postings)                    terms strictly increasing
//! ```
//!
//! Numbers are LEB128 varints and strings their length then their bytes. The payload is
//! the compacted sub-index, so it is canonical (the same documents give the same bytes).
//! Reading is bounded and checked throughout: the size ([`MAX_SNAPSHOT_BYTES`]), the
//! version, the checksum, every count against the bytes left, every key and term length,
//! UTF-8, the order of keys and terms, and every posting (slots in range and increasing,
//! positions inside their document). Any failure is a [`SnapshotError`], never a panic,
//! and a snapshot that reads back is safe to search.

use super::dict::Dictionary;
use super::postings::{Cursor, Postings, get_u32, get_varint, put_varint};
use super::segment::{Doc, Segment};
use super::token::MAX_TERM_BYTES;
use super::{MAX_DOCUMENTS, MAX_KEY_BYTES, Source};

/// The format version written; other versions are refused (rebuild from documents).
pub const SNAPSHOT_VERSION: u16 = 1;
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
    let mut payload = Vec::with_capacity(segment.heap_bytes() / 2);
    put_varint(&mut payload, segment.parents.len() as u64);
    for parent in &segment.parents {
        put_str(&mut payload, parent);
    }
    let docs: Vec<&Doc> = segment.docs.iter().flatten().collect();
    put_varint(&mut payload, docs.len() as u64);
    for doc in docs {
        put_str(&mut payload, &doc.id);
        put_str(&mut payload, &doc.position);
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
    let mut previous = "";
    for (term, id) in segment.dict.iter() {
        let shared = previous
            .bytes()
            .zip(term.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        put_varint(&mut payload, shared as u64);
        put_varint(&mut payload, (term.len() - shared) as u64);
        payload.extend_from_slice(&term.as_bytes()[shared..]);
        let postings = &segment.terms[id as usize].bytes;
        put_varint(&mut payload, postings.len() as u64);
        payload.extend_from_slice(postings);
        previous = term;
    }
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
    let mut segment = Segment::default();
    let parents = r.count(1, "parent count")?;
    for _ in 0..parents {
        let parent = r.key("parent")?;
        if segment.parents.last().is_some_and(|p| **p >= *parent) {
            return Err(SnapshotError::Corrupt("parent order"));
        }
        segment.parents.push(parent.into());
    }
    let docs = r.count(7, "document count")?;
    if docs > MAX_DOCUMENTS {
        return Err(SnapshotError::Corrupt("document count"));
    }
    segment.docs.reserve_exact(docs);
    let mut last_id: Option<&str> = None;
    for _ in 0..docs {
        let id = r.key("id")?;
        if id.is_empty() || last_id.is_some_and(|last| last >= id) {
            return Err(SnapshotError::Corrupt("id order"));
        }
        last_id = Some(id);
        let position = r.key("position")?;
        let parent = r.u32("parent index")?;
        if parent as usize >= parents {
            return Err(SnapshotError::Corrupt("parent index"));
        }
        let zigzag = r.u64("timestamp")?;
        let timestamp = ((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64);
        let title_end = r.u32("title end")?;
        let len = r.u32("length")?;
        if title_end > len || len == u32::MAX {
            return Err(SnapshotError::Corrupt("length"));
        }
        let partial = match r.bytes(1, "partial")?[0] {
            0 => false,
            1 => true,
            _ => return Err(SnapshotError::Corrupt("partial")),
        };
        segment.total_len += u64::from(len);
        segment.docs.push(Some(Doc {
            id: id.into(),
            position: position.into(),
            parent,
            timestamp,
            title_end,
            len,
            partial,
        }));
    }
    segment.live = docs as u32;
    segment.by_id = (0..docs as u32).collect();
    segment.parent_order = (0..parents as u32).collect();
    let terms = r.count(3, "term count")?;
    // Terms are rebuilt in one reused buffer and kept in one string with their offsets.
    let mut current: Vec<u8> = Vec::with_capacity(MAX_TERM_BYTES);
    let mut text = String::new();
    let mut starts: Vec<u32> = Vec::with_capacity(terms + 1);
    let mut positions = Vec::new();
    segment.terms.reserve_exact(terms);
    for id in 0..terms {
        let shared = r.u64("term")? as usize;
        let suffix_len = r.u64("term")? as usize;
        if shared > current.len() || shared + suffix_len > MAX_TERM_BYTES {
            return Err(SnapshotError::Corrupt("term length"));
        }
        let suffix = r.bytes(suffix_len, "term")?;
        // The new term is the previous one's first `shared` bytes then `suffix`: it sorts
        // after the previous term exactly when `suffix` sorts after the rest of it.
        if suffix.is_empty() || (id > 0 && suffix <= &current[shared..]) {
            return Err(SnapshotError::Corrupt("term order"));
        }
        current.truncate(shared);
        current.extend_from_slice(suffix);
        let term = std::str::from_utf8(&current).map_err(|_| SnapshotError::Corrupt("term"))?;
        let size = r.u64("postings")?;
        if size > r.left() as u64 {
            return Err(SnapshotError::Corrupt("postings"));
        }
        let postings = Postings {
            bytes: r.bytes(size as usize, "postings")?.to_vec(),
            last: 0,
            df: 0,
        };
        let (last, df) = check_postings(&segment, &postings, &mut positions)?;
        segment.terms.push(Postings {
            last,
            df,
            ..postings
        });
        starts.push(text.len() as u32);
        text.push_str(term);
    }
    if r.left() != 0 {
        return Err(SnapshotError::Corrupt("trailing bytes"));
    }
    starts.push(text.len() as u32);
    segment.dict = Dictionary::from_sorted(
        starts
            .windows(2)
            .map(|w| &text[w[0] as usize..w[1] as usize]),
    );
    Ok((source, segment))
}

/// Every entry in range and in order; returns the last slot plus one and the count.
fn check_postings(
    segment: &Segment,
    postings: &Postings,
    positions: &mut Vec<u32>,
) -> Result<(u32, u32), SnapshotError> {
    let mut cursor: Cursor<'_> = postings.cursor();
    let mut df = 0u32;
    let mut last = 0;
    loop {
        match cursor.next_checked(positions, segment.docs.len() as u32) {
            Ok(Some(slot)) => {
                let end = segment.docs[slot as usize].as_ref().map_or(0, |d| d.end());
                if positions.last().is_some_and(|&p| p >= end) {
                    return Err(SnapshotError::Corrupt("position"));
                }
                df += 1;
                last = slot + 1;
            }
            Ok(None) if df > 0 => return Ok((last, df)),
            _ => return Err(SnapshotError::Corrupt("postings")),
        }
    }
}
