//! A knowledge index as the search worker saves it beside the files, so a reload does
//! not read and index every file again: the files' fingerprint (which a question's scope
//! must match for the index to answer it), the engine's own snapshot
//! (`crate::search::SearchIndex::snapshot`, checksummed) and the passages as JSON.
//!
//! Layout: [`MAGIC`], the fingerprint and the snapshot's length as little-endian `u64`,
//! the snapshot, the passages. Anything that does not read (another layout, a torn
//! write, a snapshot of another source) is `None`: the index is built again, as without
//! a save.

use std::collections::HashMap;

use super::retrieve::{KnowledgeIndex, Passage};
use crate::search::{SearchIndex, Source};

/// The files (in the search folder of the private file system) a turn's and the search
/// palette's indexes are saved in.
pub const SAVED_FILES: [&str; 2] = ["knowledge-turn.idx", "knowledge-palette.idx"];

/// What a saved knowledge index starts with (its layout's version included).
pub const MAGIC: &[u8; 8] = b"HKNW0001";
/// The largest saved index read back (the texts it indexes are bounded by
/// `super::ask::MAX_INDEXED_CHARS`; the index and passages are a few times that).
pub const MAX_SAVED_BYTES: usize = 256 * 1024 * 1024;

impl KnowledgeIndex {
    /// The index as bytes to save.
    pub fn saved(&mut self) -> Vec<u8> {
        let (index, passages, fingerprint) = self.parts_mut();
        let snapshot = index.snapshot(Source::Knowledge);
        let mut ordered: Vec<&Passage> = passages.values().collect();
        ordered.sort_by(|a, b| a.id.cmp(&b.id));
        let passages = serde_json::to_vec(&ordered).unwrap_or_default();
        let mut out = Vec::with_capacity(24 + snapshot.len() + passages.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&fingerprint.to_le_bytes());
        out.extend_from_slice(&(snapshot.len() as u64).to_le_bytes());
        out.extend_from_slice(&snapshot);
        out.extend_from_slice(&passages);
        out
    }

    /// The index saved as `bytes` (`None`: it does not read).
    pub fn from_saved(bytes: &[u8]) -> Option<Self> {
        if bytes.len() > MAX_SAVED_BYTES {
            return None;
        }
        let rest = bytes.strip_prefix(MAGIC.as_slice())?;
        let (fingerprint, rest) = rest.split_first_chunk::<8>()?;
        let (length, rest) = rest.split_first_chunk::<8>()?;
        let length = usize::try_from(u64::from_le_bytes(*length)).ok()?;
        if length > rest.len() {
            return None;
        }
        let (snapshot, passages) = rest.split_at(length);
        let mut index = SearchIndex::new();
        if index.restore(snapshot).ok()? != Source::Knowledge {
            return None;
        }
        let passages: Vec<Passage> = serde_json::from_slice(passages).ok()?;
        let passages: HashMap<String, Passage> =
            passages.into_iter().map(|p| (p.id.clone(), p)).collect();
        Some(Self::from_parts(
            index,
            passages,
            u64::from_le_bytes(*fingerprint),
        ))
    }
}
