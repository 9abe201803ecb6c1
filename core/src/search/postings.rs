//! Posting lists: for each term, every place it occurs, as one increasing sequence of
//! global positions.
//!
//! Each document owns a range of positions in one space shared by the whole sub-index
//! (its span: its tokens' positions plus the gap between title and body), so an
//! occurrence is a single number `base(slot) + position`. A list is then one sorted
//! sequence per term, and the slot and position come back by finding the span a number
//! falls in. This costs less than a slot per entry plus a count plus positions: a term
//! occurring once in a document pays for one number, a term occurring often pays for
//! small gaps.
//!
//! Two encodings:
//!
//! - **Frozen** lists (written at compaction, read back from snapshots) are Rice codes
//!   of the gaps, in one shared buffer. The Rice parameter comes from the list's count
//!   and the space's size (`rice_k`), so a list needs no header: its count and byte
//!   length are kept in the dictionary. Reading is checked throughout: a list ends at
//!   its count, at its last byte, or at the first value outside the space, so garbage
//!   bytes give a short or wrong list but never a panic or a position outside a document.
//! - **Tails**: occurrences appended since (new documents), as LEB128 varint gaps in
//!   chunks that never grow past a few kilobytes ([`Chunked`]).

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

/// The largest Rice parameter used.
const MAX_K: u32 = 48;

/// The Rice parameter of a list of `count` values below `span`: the bit length of the
/// mean gap, minus one.
pub fn rice_k(span: u64, count: u64) -> u32 {
    let mean = (span / count.max(1)).max(1);
    (63 - mean.leading_zeros()).min(MAX_K)
}

/// Writes bits lowest first.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter<'_> {
    /// Writes the low `bits` (at most 56) of `value`.
    fn put(&mut self, value: u64, bits: u32) {
        self.acc |= value << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    fn rice(&mut self, value: u64, k: u32) {
        let mut q = value >> k;
        while q >= 32 {
            self.put(0, 32);
            q -= 32;
        }
        self.put(1 << q, q as u32 + 1);
        if k > 0 {
            self.put(value & ((1 << k) - 1), k);
        }
    }

    fn finish(self) {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
    }
}

/// Appends the frozen list of `values` (strictly increasing, below `span`) to `out`.
pub fn encode_list(out: &mut Vec<u8>, span: u64, values: &[u64]) {
    let k = rice_k(span, values.len() as u64);
    let mut w = BitWriter { out, acc: 0, n: 0 };
    let mut last = 0;
    for &v in values {
        debug_assert!(v >= last && v < span);
        w.rice(v.saturating_sub(last), k);
        last = v + 1;
    }
    w.finish();
}

/// Reads a frozen list (see the module docs for what ends it).
#[derive(Clone)]
pub struct Frozen<'a> {
    bytes: &'a [u8],
    next: usize,
    acc: u64,
    n: u32,
    k: u32,
    mask: u64,
    max_q: u64,
    left: u32,
    last: u64,
    span: u64,
}

impl<'a> Frozen<'a> {
    /// The list of `count` values below `span` encoded in `bytes`.
    pub fn new(bytes: &'a [u8], count: u32, span: u64) -> Self {
        let k = rice_k(span, u64::from(count));
        Self {
            bytes,
            next: 0,
            acc: 0,
            n: 0,
            k,
            mask: (1u64 << k) - 1,
            max_q: span >> k,
            left: count,
            last: 0,
            span,
        }
    }

    /// Loads bytes until at least 56 bits are held or the bytes run out. Bits above the
    /// count held are either zero or the stream's next bits (a whole word is loaded),
    /// so loading them again changes nothing.
    #[inline]
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

    /// The next Rice-coded value, `None` if the bits run out or it cannot be below the
    /// span.
    #[inline]
    fn value(&mut self) -> Option<u64> {
        self.refill();
        let zeros = self.acc.trailing_zeros();
        let used = zeros + 1 + self.k;
        if used <= self.n {
            // The whole code is held (the common case).
            let q = u64::from(zeros);
            if q > self.max_q {
                return None;
            }
            let low = (self.acc >> (zeros + 1)) & self.mask;
            self.acc = self.acc.checked_shr(used).unwrap_or(0);
            self.n -= used;
            return Some(q << self.k | low);
        }
        self.value_slow()
    }

    /// [`Frozen::value`] for a code longer than the bits held.
    fn value_slow(&mut self) -> Option<u64> {
        let k = self.k;
        let mut q = 0u64;
        loop {
            if self.n == 0 {
                self.refill();
                if self.n == 0 {
                    return None;
                }
            }
            let zeros = self.acc.trailing_zeros();
            if zeros < self.n {
                q += u64::from(zeros);
                let used = zeros + 1;
                self.acc = self.acc.checked_shr(used).unwrap_or(0);
                self.n -= used;
                break;
            }
            q += u64::from(self.n);
            self.acc = 0;
            self.n = 0;
            if q > self.max_q {
                return None;
            }
        }
        if q > self.max_q {
            return None;
        }
        let mut low = 0;
        if k > 0 {
            if self.n < k {
                self.refill();
                if self.n < k {
                    return None;
                }
            }
            low = self.acc & self.mask;
            self.acc >>= k;
            self.n -= k;
        }
        Some(q << k | low)
    }

    /// Appends up to `max` next values to `out`; how many (zero at the end).
    pub fn fill(&mut self, out: &mut Vec<u64>, max: usize) -> usize {
        let n = max.min(self.left as usize);
        for i in 0..n {
            match self.value().map(|gap| self.last + gap) {
                Some(v) if v < self.span => {
                    self.last = v + 1;
                    out.push(v);
                }
                _ => {
                    self.left = 0;
                    return i;
                }
            }
        }
        self.left -= n as u32;
        n
    }
}

impl Iterator for Frozen<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        let value = self.value().map(|gap| self.last + gap);
        match value {
            Some(v) if v < self.span => {
                self.last = v + 1;
                self.left -= 1;
                Some(v)
            }
            _ => {
                self.left = 0;
                None
            }
        }
    }
}

/// Occurrences appended since the last compaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tail {
    bytes: Chunked,
    /// The last value written, plus one (zero when empty).
    pub last: u64,
    /// Values written (removed documents' included until compaction).
    pub count: u32,
}

impl Tail {
    /// Appends `value`, which must not be below every value already written.
    pub fn push(&mut self, value: u64) {
        debug_assert!(value >= self.last);
        let mut buf = [0u8; 10];
        let mut gap = value - self.last;
        let mut n = 0;
        while gap >= 0x80 {
            buf[n] = (gap as u8) | 0x80;
            gap >>= 7;
            n += 1;
        }
        buf[n] = gap as u8;
        self.bytes.push(&buf[..=n]);
        self.last = value + 1;
        self.count += 1;
    }

    /// The values in order.
    pub fn iter(&self) -> TailIter<'_> {
        TailIter {
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

/// Reads a [`Tail`].
#[derive(Clone)]
pub struct TailIter<'a> {
    chunks: &'a [Vec<u8>],
    chunk: usize,
    at: usize,
    last: u64,
}

impl Iterator for TailIter<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        loop {
            let chunk = self.chunks.get(self.chunk)?;
            if self.at < chunk.len() {
                let gap = get_varint(chunk, &mut self.at)?;
                let value = self.last.checked_add(gap)?;
                self.last = value + 1;
                return Some(value);
            }
            self.chunk += 1;
            self.at = 0;
        }
    }
}

/// A term's occurrences: its frozen list, then its tail.
#[derive(Clone)]
pub struct Occurrences<'a> {
    /// The frozen part.
    pub frozen: Option<Frozen<'a>>,
    /// The part appended since.
    pub tail: Option<TailIter<'a>>,
}

impl Occurrences<'_> {
    /// Appends up to `max` next values to `out`; how many (zero at the end).
    pub fn fill(&mut self, out: &mut Vec<u64>, max: usize) -> usize {
        if let Some(frozen) = &mut self.frozen {
            let n = frozen.fill(out, max);
            if n > 0 {
                return n;
            }
            self.frozen = None;
        }
        let Some(tail) = &mut self.tail else {
            return 0;
        };
        let before = out.len();
        out.extend(tail.take(max));
        out.len() - before
    }
}

impl Iterator for Occurrences<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if let Some(frozen) = &mut self.frozen {
            if let Some(v) = frozen.next() {
                return Some(v);
            }
            self.frozen = None;
        }
        self.tail.as_mut()?.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frozen_lists_round_trip_and_garbage_ends_them() {
        for values in [
            vec![0u64],
            vec![5, 6, 7, 9, 1000, 1001, 99_999],
            (0..5000).map(|i| i * 8 + (i % 7)).collect(),
            vec![0, 1_000_000_000_000],
        ] {
            let span = values.last().unwrap() + 1;
            let mut out = Vec::new();
            encode_list(&mut out, span, &values);
            let back: Vec<u64> = Frozen::new(&out, values.len() as u32, span).collect();
            assert_eq!(back, values);
            // Fewer bytes, a smaller space or a larger count never panic.
            for cut in 0..out.len().min(40) {
                let short: Vec<u64> = Frozen::new(&out[..cut], values.len() as u32, span).collect();
                assert!(short.len() <= values.len());
            }
            let small: Vec<u64> = Frozen::new(&out, u32::MAX, span / 2 + 1).collect();
            assert!(small.iter().all(|&v| v <= span / 2));
        }
        let garbage = [0u8, 0, 0, 0, 0xff, 0x13];
        for count in [1, 5, 1000] {
            let read: Vec<u64> = Frozen::new(&garbage, count, 1000).collect();
            assert!(read.windows(2).all(|w| w[0] < w[1]) && read.iter().all(|&v| v < 1000));
        }
    }

    #[test]
    fn tails_round_trip() {
        let mut t = Tail::default();
        let values = [0u64, 1, 2, 300, 70_000, 70_001, 1 << 40];
        for v in values {
            t.push(v);
        }
        assert_eq!(t.iter().collect::<Vec<_>>(), values);
        assert_eq!(t.count, 7);
        let both = Occurrences {
            frozen: None,
            tail: Some(t.iter()),
        };
        assert_eq!(both.count(), 7);
    }
}
