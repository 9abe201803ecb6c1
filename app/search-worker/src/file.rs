//! The snapshot file's layout (its 16-byte header, then the snapshot), what a refused file
//! is reported as, and whether a save may replace the file that is there.
//!
//! ```text
//! "HSIX0001"  covers: u64 LE  SearchIndex::snapshot(Source::Conversations)
//! ```
//!
//! `covers` is the page's: how far through its journal of changed conversations the
//! snapshot is. The worker only stores it and compares it.

use hearth_core::search::{MAX_SNAPSHOT_BYTES, SnapshotError};

/// The first 8 bytes of the file.
pub const MAGIC: &[u8; 8] = b"HSIX0001";
/// The magic and `covers`.
pub const HEADER_BYTES: usize = 16;
/// The largest file read (a larger snapshot is refused by core anyway).
pub const MAX_FILE_BYTES: usize = HEADER_BYTES + MAX_SNAPSHOT_BYTES;

/// The header of a file that covers the journal up to `covers`.
pub fn header(covers: u64) -> [u8; HEADER_BYTES] {
    let mut out = [0; HEADER_BYTES];
    out[..8].copy_from_slice(MAGIC);
    out[8..].copy_from_slice(&covers.to_le_bytes());
    out
}

/// The whole file: the header, then `snapshot`.
pub fn encode(covers: u64, snapshot: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + snapshot.len());
    out.extend_from_slice(&header(covers));
    out.extend_from_slice(snapshot);
    out
}

/// The `covers` of a file that starts with `bytes`, or `None` when they are not the
/// header of a snapshot file (too short, another magic).
pub fn covers(bytes: &[u8]) -> Option<u64> {
    let header = bytes.get(..HEADER_BYTES)?;
    if &header[..8] != MAGIC {
        return None;
    }
    let mut word = [0; 8];
    word.copy_from_slice(&header[8..]);
    Some(u64::from_le_bytes(word))
}

/// A file's `covers` and its snapshot bytes, or `"corrupt"` when it has no header.
pub fn decode(bytes: &[u8]) -> Result<(u64, &[u8]), &'static str> {
    let covers = covers(bytes).ok_or("corrupt")?;
    Ok((covers, &bytes[HEADER_BYTES..]))
}

/// Whether a save covering `new` may replace a file covering `current` (0: no file, or
/// one that is not ours): never a newer one, which another tab saved.
pub fn may_replace(current: u64, new: u64) -> bool {
    current <= new
}

/// The code a refused snapshot is reported as.
pub fn snapshot_error(error: &SnapshotError) -> &'static str {
    match error {
        SnapshotError::Version { .. } => "version",
        SnapshotError::TooLarge { .. } => "tooLarge",
        _ => "corrupt",
    }
}

/// A number from the page as `covers`: a count, so anything else reads as 0.
pub fn covers_from(value: Option<f64>) -> u64 {
    value
        .filter(|v| v.is_finite() && *v >= 0.0)
        .map_or(0, |v| v as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_round_trips() {
        for covers_value in [0, 1, 42, u64::from(u32::MAX) + 7, u64::MAX] {
            let file = encode(covers_value, b"snapshot");
            assert_eq!(&file[..8], b"HSIX0001");
            assert_eq!(file.len(), HEADER_BYTES + 8);
            assert_eq!(covers(&file), Some(covers_value));
            assert_eq!(decode(&file), Ok((covers_value, &b"snapshot"[..])));
        }
        assert_eq!(header(0x0102)[8..], [2, 1, 0, 0, 0, 0, 0, 0]);
        // Only the header is needed to read `covers`.
        assert_eq!(covers(&header(9)), Some(9));
        assert_eq!(decode(&header(9)), Ok((9, &[][..])));
    }

    #[test]
    fn other_files_are_refused() {
        assert_eq!(covers(b""), None);
        assert_eq!(covers(&header(5)[..15]), None);
        let mut other = encode(5, b"x");
        other[7] = b'2';
        assert_eq!(covers(&other), None);
        assert_eq!(decode(&other), Err("corrupt"));
        assert_eq!(decode(b"HSIX0001"), Err("corrupt"));
    }

    #[test]
    fn a_newer_file_is_never_replaced() {
        assert!(may_replace(0, 0));
        assert!(may_replace(0, 10));
        assert!(may_replace(10, 10));
        assert!(may_replace(9, 10));
        assert!(!may_replace(11, 10));
        assert!(!may_replace(u64::MAX, 0));
    }

    #[test]
    fn snapshot_errors_have_short_codes() {
        assert_eq!(
            snapshot_error(&SnapshotError::Version { found: 9 }),
            "version"
        );
        assert_eq!(
            snapshot_error(&SnapshotError::TooLarge { len: 1, max: 0 }),
            "tooLarge"
        );
        for error in [
            SnapshotError::NotASnapshot,
            SnapshotError::Checksum,
            SnapshotError::Length,
            SnapshotError::UnknownSource { tag: 9 },
            SnapshotError::Corrupt("x"),
        ] {
            assert_eq!(snapshot_error(&error), "corrupt");
        }
    }

    #[test]
    fn covers_from_the_page() {
        assert_eq!(covers_from(Some(12.0)), 12);
        assert_eq!(covers_from(Some(12.9)), 12);
        assert_eq!(covers_from(None), 0);
        assert_eq!(covers_from(Some(-1.0)), 0);
        assert_eq!(covers_from(Some(f64::NAN)), 0);
        assert_eq!(covers_from(Some(f64::INFINITY)), 0);
    }
}
