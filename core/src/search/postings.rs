//! Posting lists: for each term, the documents that contain it and where, in one byte
//! vector per term.
//!
//! An entry is `varint(gap << 1 | once)`, then `varint(count)` unless `once` (the term
//! occurs once, the common case), then the positions as `varint` gaps (the first from
//! zero). `gap` is the slot's distance from the previous entry's slot plus one (the first
//! entry's from zero), so slots only grow and an entry is appended without touching the
//! others. Most entries take three or four bytes with their positions.

/// Appends `value` as a LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a LEB128 varint of at most ten bytes at `*at`; `None` if truncated or too long.
pub fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Reads a varint that must fit in a `u32`.
pub fn get_u32(bytes: &[u8], at: &mut usize) -> Option<u32> {
    get_varint(bytes, at).and_then(|v| u32::try_from(v).ok())
}

/// One term's postings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Postings {
    /// The encoded entries.
    pub bytes: Vec<u8>,
    /// The slot of the last entry, plus one (zero when empty).
    pub last: u32,
    /// Entries written (removed documents included until compaction).
    pub df: u32,
}

impl Postings {
    /// Appends an entry; `slot` must be greater than every slot already written and
    /// `positions` sorted, non-empty.
    pub fn push(&mut self, slot: u32, positions: &[u32]) {
        debug_assert!(slot + 1 > self.last && !positions.is_empty());
        let gap = u64::from(slot + 1 - self.last);
        let once = positions.len() == 1;
        put_varint(&mut self.bytes, gap << 1 | u64::from(once));
        if !once {
            put_varint(&mut self.bytes, positions.len() as u64);
        }
        let mut prev = 0;
        for &pos in positions {
            put_varint(&mut self.bytes, u64::from(pos - prev));
            prev = pos;
        }
        self.last = slot + 1;
        self.df += 1;
    }

    /// A reader over the entries.
    pub fn cursor(&self) -> Cursor<'_> {
        Cursor {
            bytes: &self.bytes,
            at: 0,
            last: 0,
        }
    }
}

/// Reads entries one by one. Every read is checked, so malformed bytes end the list
/// (`None`) instead of panicking; snapshots are validated with [`Cursor::next_checked`].
pub struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    last: u64,
}

impl Cursor<'_> {
    /// The next entry's slot, with its positions written into `positions`.
    pub fn next_entry(&mut self, positions: &mut Vec<u32>) -> Option<u32> {
        self.next_checked(positions, u32::MAX).ok().flatten()
    }

    /// The next entry (`Ok(None)` at the end), or `Err` if the bytes are malformed, the
    /// slot is `max_slot` or more, or a position overflows.
    pub fn next_checked(
        &mut self,
        positions: &mut Vec<u32>,
        max_slot: u32,
    ) -> Result<Option<u32>, ()> {
        positions.clear();
        if self.at >= self.bytes.len() {
            return Ok(None);
        }
        let head = get_varint(self.bytes, &mut self.at).ok_or(())?;
        let gap = head >> 1;
        if gap == 0 {
            return Err(());
        }
        let slot_plus_one = self.last.checked_add(gap).ok_or(())?;
        if slot_plus_one > u64::from(max_slot) {
            return Err(());
        }
        self.last = slot_plus_one;
        let count = if head & 1 == 1 {
            1
        } else {
            get_varint(self.bytes, &mut self.at).ok_or(())?
        };
        // Each position takes at least one byte: a count past the bytes left is corrupt.
        if count == 0 || count > (self.bytes.len() - self.at) as u64 {
            return Err(());
        }
        let mut pos = 0u32;
        for i in 0..count {
            let step = get_u32(self.bytes, &mut self.at).ok_or(())?;
            if i > 0 && step == 0 {
                return Err(());
            }
            pos = pos.checked_add(step).ok_or(())?;
            positions.push(pos);
        }
        Ok(Some((slot_plus_one - 1) as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_truncation_ends_the_list() {
        let mut p = Postings::default();
        p.push(0, &[3]);
        p.push(7, &[0, 2, 900]);
        p.push(100_000, &[70_000]);
        let mut c = p.cursor();
        let mut pos = Vec::new();
        assert_eq!(c.next_entry(&mut pos), Some(0));
        assert_eq!(pos, [3]);
        assert_eq!(c.next_entry(&mut pos), Some(7));
        assert_eq!(pos, [0, 2, 900]);
        assert_eq!(c.next_entry(&mut pos), Some(100_000));
        assert_eq!(c.next_entry(&mut pos), None);
        let cut = Postings {
            bytes: p.bytes[..p.bytes.len() - 1].to_vec(),
            ..p.clone()
        };
        let mut c = cut.cursor();
        let mut n = 0;
        while c.next_entry(&mut pos).is_some() {
            n += 1;
        }
        assert_eq!(n, 2);
        let mut c = p.cursor();
        assert!(c.next_checked(&mut pos, 5).is_ok());
        assert!(c.next_checked(&mut pos, 5).is_err());
    }
}
