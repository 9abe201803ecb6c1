//! Posting lists: for each term, the documents that contain it, how often, and where.
//!
//! An entry is a document's slot, the term's frequency in it (tf) and its positions.
//! Entries are in slot order, so a list is appended to without touching what it holds.
//! Two encodings:
//!
//! - **Frozen** lists (written at compaction, read back from snapshots) are bit streams
//!   in one shared buffer: the slot's distance from the previous entry's as a Rice code
//!   (its parameter from the list's length and the number of slots, `rice_k`, so a list
//!   needs no header: its length and byte size are kept in the dictionary), the
//!   frequency as an Elias gamma code (one bit when it is 1, the common case), then the
//!   positions, each in the bits the document's length needs ([`width`]). The positions
//!   have a fixed width so a reader that needs only frequencies (every query but a
//!   phrase) skips them in one step. Reading is checked throughout: a list ends at its
//!   length, its last byte, a slot past the last, or a frequency past the document's
//!   length, so garbage gives a short or wrong list, never a panic.
//! - **Tails**: entries appended since (new documents), as LEB128 varints (slot gap,
//!   frequency, position gaps) in chunks that never grow past a few kilobytes
//!   ([`Chunked`]).
//!
//! Long because: the frozen format's writer and reader (and the appended tails the
//! reader merges with it) must agree bit for bit, and are kept side by side so a change
//! to one is seen with the other; the seam to cut next is the bit coding (varints, Rice
//! codes, `BitWriter`, `Bits`) into a module of its own.

use super::paged::Chunked;

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

/// The Rice parameter of a list of `count` entries among `slots`: the bit length of the
/// mean gap, minus one.
pub fn rice_k(slots: u32, count: u32) -> u32 {
    let mean = (slots / count.max(1)).max(1);
    31 - mean.leading_zeros()
}

/// The bits of a position in a document of `len` tokens (positions are at most `len`:
/// the title's tokens, a gap, the body's).
pub fn width(len: u32) -> u32 {
    32 - len.leading_zeros()
}

/// Writes bits lowest first.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter<'_> {
    /// Writes the low `bits` (at most 32) of `value`.
    fn put(&mut self, value: u64, bits: u32) {
        let value = value & ((1u64 << bits) - 1);
        self.acc |= value << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    fn zeros(&mut self, mut count: u64) {
        while count >= 32 {
            self.put(0, 32);
            count -= 32;
        }
        self.put(0, count as u32);
    }

    fn rice(&mut self, value: u32, k: u32) {
        self.zeros(u64::from(value >> k));
        self.put(1, 1);
        self.put(u64::from(value), k);
    }

    /// Elias gamma of `value` (at least 1).
    fn gamma(&mut self, value: u32) {
        let z = 31 - value.max(1).leading_zeros();
        self.zeros(u64::from(z));
        self.put(1, 1);
        self.put(u64::from(value), z);
    }

    fn finish(self) {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
    }
}

/// Writes one frozen list (see the module docs).
pub struct ListWriter<'a> {
    w: BitWriter<'a>,
    k: u32,
    last: u32,
}

impl<'a> ListWriter<'a> {
    /// A list of `count` entries among `slots`, appended to `out`.
    pub fn new(out: &'a mut Vec<u8>, slots: u32, count: u32) -> Self {
        Self {
            w: BitWriter { out, acc: 0, n: 0 },
            k: rice_k(slots, count),
            last: 0,
        }
    }

    /// Appends the entry of `slot` (above the previous one's), a document of `len`
    /// tokens, with its `positions` (sorted, non-empty, at most `len`).
    pub fn push(&mut self, slot: u32, len: u32, positions: &[u32]) {
        debug_assert!(slot >= self.last && !positions.is_empty());
        self.w.rice(slot.saturating_sub(self.last), self.k);
        self.w.gamma(positions.len() as u32);
        let bits = width(len);
        for &p in positions {
            self.w.put(u64::from(p), bits);
        }
        self.last = slot + 1;
    }

    /// Ends the list on a byte boundary.
    pub fn finish(self) {
        self.w.finish();
    }
}

/// Reads bits lowest first; every read is bounded by the bytes.
#[derive(Clone)]
struct Bits<'a> {
    bytes: &'a [u8],
    next: usize,
    acc: u64,
    n: u32,
}

impl Bits<'_> {
    /// Loads bytes until at least 56 bits are held or the bytes run out. Bits above the
    /// count held are either zero or the stream's next bits (a whole word is loaded),
    /// so loading them again changes nothing.
    #[inline(always)]
    fn refill(&mut self) {
        if self.next + 8 <= self.bytes.len() {
            let mut word = [0u8; 8];
            word.copy_from_slice(&self.bytes[self.next..self.next + 8]);
            let take = (63 - self.n) / 8;
            self.acc |= u64::from_le_bytes(word) << self.n;
            self.next += take as usize;
            self.n += take * 8;
        } else {
            while self.n <= 56 {
                let Some(&b) = self.bytes.get(self.next) else {
                    break;
                };
                self.acc |= u64::from(b) << self.n;
                self.n += 8;
                self.next += 1;
            }
        }
    }

    #[inline(always)]
    fn consume(&mut self, bits: u32) {
        self.acc = self.acc.checked_shr(bits).unwrap_or(0);
        self.n -= bits;
    }

    /// A run of zeros ended by a one: its length, at most `max`.
    #[inline(always)]
    fn unary(&mut self, max: u32) -> Option<u32> {
        self.refill();
        let zeros = self.acc.trailing_zeros();
        if zeros < self.n {
            if zeros > max {
                return None;
            }
            self.consume(zeros + 1);
            return Some(zeros);
        }
        let mut count = 0u32;
        loop {
            if self.n == 0 {
                self.refill();
                if self.n == 0 {
                    return None;
                }
            }
            let zeros = self.acc.trailing_zeros();
            if zeros < self.n {
                count = count.checked_add(zeros).filter(|&c| c <= max)?;
                self.consume(zeros + 1);
                return Some(count);
            }
            count = count.checked_add(self.n).filter(|&c| c <= max)?;
            self.acc = 0;
            self.n = 0;
        }
    }

    /// The next `bits` (at most 32) as a number.
    #[inline(always)]
    fn get(&mut self, bits: u32) -> Option<u32> {
        if self.n < bits {
            self.refill();
            if self.n < bits {
                return None;
            }
        }
        let value = (self.acc & ((1u64 << bits) - 1)) as u32;
        self.consume(bits);
        Some(value)
    }

    /// Skips `bits`; whether they were there.
    #[inline(always)]
    fn skip(&mut self, bits: u64) -> bool {
        if bits <= u64::from(self.n) {
            self.consume(bits as u32);
            return true;
        }
        let rest = bits - u64::from(self.n);
        self.acc = 0;
        self.n = 0;
        let Some(next) = usize::try_from(rest / 8)
            .ok()
            .and_then(|b| self.next.checked_add(b))
            .filter(|&b| b <= self.bytes.len())
        else {
            self.next = self.bytes.len();
            return false;
        };
        self.next = next;
        self.get((rest % 8) as u32).is_some()
    }
}

/// Reads a frozen list (see the module docs for what ends it). After each
/// [`Frozen::next`], exactly one of the position readers must be called.
#[derive(Clone)]
pub struct Frozen<'a> {
    bits: Bits<'a>,
    k: u32,
    left: u32,
    last: u32,
    slots: u32,
}

impl<'a> Frozen<'a> {
    /// The list of `count` entries among `slots` encoded in `bytes`.
    pub fn new(bytes: &'a [u8], count: u32, slots: u32) -> Self {
        Self {
            bits: Bits {
                bytes,
                next: 0,
                acc: 0,
                n: 0,
            },
            k: rice_k(slots, count),
            left: count,
            last: 0,
            slots,
        }
    }

    fn end(&mut self) -> Option<(u32, u32)> {
        self.left = 0;
        None
    }

    /// The next entry's slot and frequency.
    #[inline(always)]
    pub fn next(&mut self) -> Option<(u32, u32)> {
        if self.left == 0 {
            return None;
        }
        // Both codes are almost always within the bits held: read them from the buffer.
        let b = &mut self.bits;
        b.refill();
        let z1 = b.acc.trailing_zeros();
        let after_gap = z1 + 1 + self.k;
        if after_gap < b.n && z1 <= self.slots >> self.k {
            let low = (b.acc >> (z1 + 1)) & ((1u64 << self.k) - 1);
            let rest = b.acc >> after_gap;
            let z2 = rest.trailing_zeros();
            if z2 <= 17 && after_gap + 2 * z2 < b.n {
                let tf = (1u32 << z2) | ((rest >> (z2 + 1)) as u32 & ((1u32 << z2) - 1));
                b.consume(after_gap + 2 * z2 + 1);
                let slot = u64::from(self.last) + (u64::from(z1) << self.k | low);
                if slot >= u64::from(self.slots) {
                    return self.end();
                }
                self.last = slot as u32 + 1;
                self.left -= 1;
                return Some((slot as u32, tf));
            }
        }
        self.next_slow()
    }

    /// [`Frozen::next`] when a code runs past the bits held.
    #[inline(always)]
    fn next_slow(&mut self) -> Option<(u32, u32)> {
        let Some(q) = self.bits.unary(self.slots >> self.k) else {
            return self.end();
        };
        let Some(low) = self.bits.get(self.k) else {
            return self.end();
        };
        let slot = u64::from(self.last) + (u64::from(q) << self.k | u64::from(low));
        if slot >= u64::from(self.slots) {
            return self.end();
        }
        // A frequency is at most 2^17 (a document's positions); longer codes are garbage.
        let Some(z) = self.bits.unary(17) else {
            return self.end();
        };
        let Some(low) = self.bits.get(z) else {
            return self.end();
        };
        self.last = slot as u32 + 1;
        self.left -= 1;
        Some((slot as u32, 1 << z | low))
    }

    /// Appends the entry's `tf` positions of `bits` each to `out`, as many at a time as
    /// the bit buffer holds.
    pub fn positions(&mut self, tf: u32, bits: u32, out: &mut Vec<u32>) {
        out.reserve(tf as usize);
        let mask = (1u64 << bits) - 1;
        let mut left = tf;
        while left > 0 {
            let b = &mut self.bits;
            b.refill();
            let fit = b.n.checked_div(bits).unwrap_or(left).min(left);
            if fit == 0 {
                self.left = 0;
                return;
            }
            let mut acc = b.acc;
            for _ in 0..fit {
                out.push((acc & mask) as u32);
                acc = acc.checked_shr(bits).unwrap_or(0);
            }
            b.acc = acc;
            b.n -= fit * bits;
            left -= fit;
        }
    }

    /// Skips the entry's positions.
    #[inline(always)]
    pub fn skip(&mut self, tf: u32, bits: u32) {
        if !self.bits.skip(u64::from(tf) * u64::from(bits)) {
            self.left = 0;
        }
    }

    /// How many of the entry's positions are below `bound` (reading only those and the
    /// first one past it, skipping the rest).
    #[inline(always)]
    pub fn count_below(&mut self, tf: u32, bits: u32, bound: u32) -> u32 {
        for i in 0..tf {
            match self.bits.get(bits) {
                Some(p) if p < bound => {}
                Some(_) => {
                    self.skip(tf - i - 1, bits);
                    return i;
                }
                None => {
                    self.left = 0;
                    return i;
                }
            }
        }
        tf
    }
}

/// An entry as counted by [`Postings::fill_counted`]: its slot, frequency, occurrences
/// in the title, and the document's length and title end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counted {
    /// The slot.
    pub slot: u32,
    /// The term's frequency in it.
    pub tf: u32,
    /// How many of those are in the title.
    pub in_title: u32,
    /// The document's length.
    pub len: u32,
    /// Where its title ends.
    pub title_end: u32,
}

impl Frozen<'_> {
    /// Appends the live entries until `out` holds `max` or the list ends, counting
    /// title positions and skipping the rest; one tight loop over a local copy of the
    /// reader, so its state stays in registers.
    fn fill_counted(
        &mut self,
        max: usize,
        doc: &mut impl FnMut(u32) -> Option<(u32, u32, bool)>,
        out: &mut Vec<Counted>,
    ) {
        let mut this = self.clone();
        while out.len() < max {
            let Some((slot, tf)) = this.next() else {
                break;
            };
            let Some((len, title_end, live)) = doc(slot) else {
                this.left = 0;
                break;
            };
            if tf > len.saturating_add(1) {
                this.left = 0;
                break;
            }
            let bits = width(len);
            if !live {
                this.skip(tf, bits);
                continue;
            }
            let in_title = if title_end == 0 {
                this.skip(tf, bits);
                0
            } else {
                this.count_below(tf, bits, title_end)
            };
            out.push(Counted {
                slot,
                tf,
                in_title,
                len,
                title_end,
            });
        }
        *self = this;
    }
}

/// Entries appended since the last compaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tail {
    bytes: Chunked,
    /// The last entry's slot, plus one (zero when empty).
    pub last: u32,
    /// Entries written (removed documents' included until compaction).
    pub count: u32,
}

impl Tail {
    /// Appends the entry of `slot` (above every slot written) with its `positions`
    /// (sorted, non-empty). The entry is encoded in `scratch` first (a build reuses one buffer for every
    /// entry instead of allocating one each); what `scratch` held is dropped.
    pub fn push_with(&mut self, scratch: &mut Vec<u8>, slot: u32, positions: &[u32]) {
        debug_assert!(slot >= self.last && !positions.is_empty());
        scratch.clear();
        put_varint(scratch, u64::from(slot.saturating_sub(self.last)));
        put_varint(scratch, positions.len() as u64);
        let mut previous = 0;
        for &p in positions {
            put_varint(scratch, u64::from(p.saturating_sub(previous)));
            previous = p;
        }
        self.bytes.push(scratch);
        self.last = slot + 1;
        self.count += 1;
    }

    /// A reader over the entries.
    pub fn reader(&self) -> TailReader<'_> {
        TailReader {
            chunks: self.bytes.chunks(),
            chunk: 0,
            at: 0,
            last: 0,
        }
    }

    /// Bytes written.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.heap_bytes()
    }
}

/// Reads a [`Tail`]; after each [`TailReader::next`], exactly one of the position
/// readers must be called.
#[derive(Clone)]
pub struct TailReader<'a> {
    chunks: &'a [Vec<u8>],
    chunk: usize,
    at: usize,
    last: u32,
}

impl TailReader<'_> {
    fn varint(&mut self) -> u32 {
        let chunk = self.chunks.get(self.chunk).map_or(&[][..], Vec::as_slice);
        get_u32(chunk, &mut self.at).unwrap_or(0)
    }

    /// The next entry's slot and frequency.
    pub fn next(&mut self) -> Option<(u32, u32)> {
        loop {
            let chunk = self.chunks.get(self.chunk)?;
            if self.at < chunk.len() {
                break;
            }
            self.chunk += 1;
            self.at = 0;
        }
        let slot = self.last.checked_add(self.varint())?;
        let tf = self.varint();
        self.last = slot.checked_add(1)?;
        Some((slot, tf))
    }

    /// Appends the entry's `tf` positions to `out`.
    pub fn positions(&mut self, tf: u32, out: &mut Vec<u32>) {
        let mut p = 0u32;
        for _ in 0..tf {
            p = p.saturating_add(self.varint());
            out.push(p);
        }
    }

    /// How many of the entry's `tf` positions are below `bound`.
    pub fn count_below(&mut self, tf: u32, bound: u32) -> u32 {
        let mut p = 0u32;
        let mut below = 0;
        for _ in 0..tf {
            p = p.saturating_add(self.varint());
            below += u32::from(p < bound);
        }
        below
    }
}

/// What the current entry's positions are waiting for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// Nothing: the positions were read or skipped.
    None,
    /// [`Postings::open`].
    Open,
    /// A position reader.
    Read,
}

/// A term's entries: its frozen list, then its tail. Each entry is read as
/// [`Postings::next`] (slot and frequency), [`Postings::open`] with the document's
/// length (which checks the frequency against it), then at most one of the position
/// readers; whatever is left unread is skipped by the next call to `next`.
#[derive(Clone)]
pub struct Postings<'a> {
    frozen: Option<Frozen<'a>>,
    tail: Option<TailReader<'a>>,
    in_tail: bool,
    tf: u32,
    bits: u32,
    pending: Pending,
}

impl<'a> Postings<'a> {
    /// The entries of `frozen` then `tail`.
    pub fn new(frozen: Option<Frozen<'a>>, tail: Option<TailReader<'a>>) -> Self {
        Self {
            frozen,
            tail,
            in_tail: false,
            tf: 0,
            bits: 0,
            pending: Pending::None,
        }
    }

    fn stop(&mut self) {
        self.frozen = None;
        self.tail = None;
        self.pending = Pending::None;
    }

    /// The next entry's slot and frequency.
    #[inline]
    pub fn next(&mut self) -> Option<(u32, u32)> {
        match self.pending {
            Pending::None => {}
            Pending::Read => self.skip(),
            Pending::Open => {
                // Positions of an unknown width cannot be skipped: the list ends.
                self.stop();
                return None;
            }
        }
        let entry = match &mut self.frozen {
            Some(frozen) => match frozen.next() {
                Some(entry) => Some(entry),
                None => {
                    self.frozen = None;
                    None
                }
            },
            None => None,
        };
        let entry = match entry {
            Some(entry) => entry,
            None => {
                self.in_tail = true;
                self.tail.as_mut()?.next()?
            }
        };
        self.tf = entry.1;
        self.pending = Pending::Open;
        Some(entry)
    }

    /// Readies the entry's positions for a document of `len` tokens; `false` (and the
    /// list ends) if its frequency cannot fit in it.
    #[inline]
    pub fn open(&mut self, len: u32) -> bool {
        if self.pending != Pending::Open || self.tf == 0 || self.tf > len.saturating_add(1) {
            self.stop();
            return false;
        }
        self.bits = width(len);
        self.pending = Pending::Read;
        true
    }

    fn take(&mut self) -> Option<(u32, u32)> {
        if self.pending != Pending::Read {
            return None;
        }
        self.pending = Pending::None;
        Some((self.tf, self.bits))
    }

    /// Appends live entries, counted (see [`Counted`]), until `out` holds `max` or the
    /// list ends; `doc` describes a slot. Not to be mixed with an entry read by
    /// [`Postings::next`] and not finished.
    pub fn fill_counted(
        &mut self,
        max: usize,
        mut doc: impl FnMut(u32) -> Option<(u32, u32, bool)>,
        out: &mut Vec<Counted>,
    ) {
        if self.pending != Pending::None {
            self.stop();
            return;
        }
        if let Some(frozen) = &mut self.frozen {
            frozen.fill_counted(max, &mut doc, out);
            if frozen.left > 0 || out.len() >= max {
                return;
            }
            self.frozen = None;
        }
        while out.len() < max {
            let Some((slot, tf)) = self.next() else {
                return;
            };
            let Some((len, title_end, live)) = doc(slot) else {
                self.stop();
                return;
            };
            if !self.open(len) {
                return;
            }
            if !live {
                continue;
            }
            let in_title = self.count_below(title_end);
            out.push(Counted {
                slot,
                tf,
                in_title,
                len,
                title_end,
            });
        }
    }

    /// Appends the entry's positions to `out`.
    pub fn positions(&mut self, out: &mut Vec<u32>) {
        let Some((tf, bits)) = self.take() else {
            return;
        };
        match (&mut self.frozen, &mut self.tail) {
            (Some(f), _) if !self.in_tail => f.positions(tf, bits, out),
            (_, Some(t)) => t.positions(tf, out),
            _ => {}
        }
    }

    /// Skips the entry's positions.
    #[inline]
    pub fn skip(&mut self) {
        let Some((tf, bits)) = self.take() else {
            return;
        };
        match (&mut self.frozen, &mut self.tail) {
            (Some(f), _) if !self.in_tail => f.skip(tf, bits),
            (_, Some(t)) => {
                t.count_below(tf, 0);
            }
            _ => {}
        }
    }

    /// How many of the entry's positions are below `bound`.
    #[inline]
    pub fn count_below(&mut self, bound: u32) -> u32 {
        let Some((tf, bits)) = self.take() else {
            return 0;
        };
        match (&mut self.frozen, &mut self.tail) {
            (Some(f), _) if !self.in_tail => f.count_below(tf, bits, bound),
            (_, Some(t)) => t.count_below(tf, bound),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Entry = (u32, u32, Vec<u32>);

    fn sample() -> Vec<Entry> {
        vec![
            (0, 5, vec![3]),
            (7, 1000, vec![0, 2, 900]),
            (8, 0, vec![0]),
            (100_000, 70_000, vec![1, 69_999, 70_000]),
        ]
    }

    fn write(entries: &[Entry], slots: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut w = ListWriter::new(&mut out, slots, entries.len() as u32);
        for (slot, len, positions) in entries {
            w.push(*slot, *len, positions);
        }
        w.finish();
        out
    }

    fn read(mut p: Postings<'_>, lens: impl Fn(u32) -> u32) -> Vec<Entry> {
        let mut out = Vec::new();
        while let Some((slot, _)) = p.next() {
            let mut positions = Vec::new();
            assert!(p.open(lens(slot)));
            p.positions(&mut positions);
            out.push((slot, lens(slot), positions));
        }
        out
    }

    #[test]
    fn frozen_lists_round_trip_skip_and_end_on_garbage() {
        let entries = sample();
        let lens = |slot: u32| entries.iter().find(|e| e.0 == slot).map_or(0, |e| e.1);
        let bytes = write(&entries, 100_001);
        let back = read(
            Postings::new(Some(Frozen::new(&bytes, 4, 100_001)), None),
            lens,
        );
        assert_eq!(back, entries);
        // Counting title positions skips the rest and stays in step.
        let mut p = Postings::new(Some(Frozen::new(&bytes, 4, 100_001)), None);
        let mut seen = Vec::new();
        while let Some((slot, _)) = p.next() {
            assert!(p.open(lens(slot)));
            seen.push((slot, p.count_below(3)));
        }
        assert_eq!(seen, [(0, 0), (7, 2), (8, 1), (100_000, 1)]);
        // Positions left unread are skipped; a frequency past the length ends the list.
        let mut p = Postings::new(Some(Frozen::new(&bytes, 4, 100_001)), None);
        let mut slots = Vec::new();
        while let Some((slot, _)) = p.next() {
            assert!(p.open(lens(slot)));
            slots.push(slot);
        }
        assert_eq!(slots, [0, 7, 8, 100_000]);
        let mut p = Postings::new(Some(Frozen::new(&bytes, 4, 100_001)), None);
        assert_eq!(p.next(), Some((0, 1)));
        assert!(p.open(5));
        assert_eq!(p.next(), Some((7, 3)));
        assert!(!p.open(1));
        assert_eq!(p.next(), None);
        // Fewer bytes, fewer slots or a larger count never panic.
        for cut in 0..bytes.len() {
            let mut f = Frozen::new(&bytes[..cut], 4, 100_001);
            while let Some((slot, tf)) = f.next() {
                f.skip(tf, width(lens(slot)));
            }
        }
        let mut f = Frozen::new(&bytes, u32::MAX, 50);
        while let Some((slot, tf)) = f.next() {
            assert!(slot < 50);
            f.skip(tf, 3);
        }
        let garbage = [0u8, 0, 0, 0, 0xff, 0x13, 0x80];
        for count in [1, 5, 1000] {
            let mut f = Frozen::new(&garbage, count, 1000);
            let mut last = None;
            while let Some((slot, tf)) = f.next() {
                assert!(slot < 1000 && last < Some(slot) && tf <= 1 << 18);
                last = Some(slot);
                let mut p = Vec::new();
                f.positions(tf, 5, &mut p);
            }
        }
    }

    #[test]
    fn tails_round_trip_after_a_frozen_part() {
        let mut t = Tail::default();
        // A scratch buffer holding anything: each entry starts it afresh.
        let mut scratch = vec![0xff; 7];
        for (slot, _, positions) in sample() {
            t.push_with(&mut scratch, slot + 200_000, &positions);
        }
        assert_eq!(t.count, 4);
        let entries = sample();
        let bytes = write(&entries[..2], 10);
        let lens = |slot: u32| {
            entries
                .iter()
                .find(|e| e.0 == slot || e.0 + 200_000 == slot)
                .map_or(0, |e| e.1)
        };
        let back = read(
            Postings::new(Some(Frozen::new(&bytes, 2, 10)), Some(t.reader())),
            lens,
        );
        assert_eq!(back.len(), 6);
        assert_eq!(back[..2], entries[..2]);
        assert_eq!(back[5].0, 300_000);
        assert_eq!(back[5].2, [1, 69_999, 70_000]);
    }
}
