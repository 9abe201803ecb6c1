//! The term dictionary: a sorted map from term to term id, with prefix expansion and
//! one-edit (typo) expansion.
//!
//! Two parts: the terms known at the last compaction (or snapshot), frozen and sorted, and
//! a hash map of the terms added since (an insertion and a lookup in O(1): every token
//! indexed looks its term up, and a sorted map's string comparisons were a third of the
//! build's time; an `fst` would need rebuilding on every new term). Lookups try both;
//! ordered walks sort the added terms they need (few after a compaction) and merge them.
//!
//! The frozen terms are front-coded in blocks of [`BLOCK`]: a block's first term is
//! written whole, each next one as the bytes it shares with the previous term and its own
//! suffix, followed by the number of documents in its posting list and the list's byte length
//! list (the lists are in one buffer in term order). A frozen term's id is its rank. A
//! lookup binary-searches the blocks' first terms and walks one block; about half a
//! million terms take a few bytes each besides a block index of 12 bytes a block.
//!
//! Typo matching does not scan the dictionary: an edit at the third character or later
//! keeps the first two, so those candidates are the range of terms starting with them;
//! the edits touching the first two characters (deletions, substitutions and insertions
//! by a letter of the dictionary's alphabet, swaps) are looked up one by one. The
//! alphabet is the set of characters seen in terms of four characters or more.
//!
//! Long because: the front-coded blocks, the two parts' lookups and ordered walks, prefix
//! and typo expansion read the same layout, and their tests sit beside them.

use std::collections::{BTreeSet, HashMap};

use super::postings::{get_u32, get_varint, put_varint};
use super::query::FUZZY_MIN_CHARS;
use super::token::MAX_TERM_BYTES;

/// At most this many terms of a prefix are scanned; the most frequent are kept.
pub const PREFIX_SCAN: usize = 4096;
/// At most this many terms stand for a prefix.
pub const PREFIX_TERMS: usize = 64;
/// At most this many one-edit neighbours stand for a word.
pub const FUZZY_TERMS: usize = 32;
/// Frozen terms per front-coded block.
pub const BLOCK: usize = 16;

/// A frozen term's posting list: how many documents, and where its bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrozenTerm {
    /// The term id.
    pub id: u32,
    /// Entries (documents) in the list.
    pub count: u32,
    /// Where the list starts in the postings buffer.
    pub start: u64,
    /// Its length in bytes.
    pub len: u64,
}

/// Sorted terms and their ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dictionary {
    /// The frozen terms' entries (see the module docs).
    lex: Vec<u8>,
    /// Where each block's first entry starts in `lex`.
    lex_starts: Vec<u32>,
    /// Where each block's first list starts in the postings buffer.
    list_starts: Vec<u64>,
    /// The number of frozen terms.
    frozen: usize,
    /// Terms added since the dictionary was frozen.
    added: HashMap<Box<str>, u32>,
    alphabet: BTreeSet<char>,
}

/// Builds the frozen part, term by term in sorted order.
pub struct Builder {
    dict: Dictionary,
    previous: Vec<u8>,
    list_end: u64,
    ascii: [bool; 128],
}

impl Default for Builder {
    fn default() -> Self {
        Self {
            dict: Dictionary::default(),
            previous: Vec::new(),
            list_end: 0,
            ascii: [false; 128],
        }
    }
}

impl Builder {
    /// Appends `term` (greater than the previous one) with its list's count and length.
    pub fn push(&mut self, term: &str, count: u32, len: u64) {
        let d = &mut self.dict;
        let bytes = term.as_bytes();
        if d.frozen.is_multiple_of(BLOCK) {
            d.lex_starts.push(d.lex.len() as u32);
            d.list_starts.push(self.list_end);
            put_varint(&mut d.lex, bytes.len() as u64);
            d.lex.extend_from_slice(bytes);
        } else {
            let shared = shared_prefix(&self.previous, bytes);
            put_varint(&mut d.lex, shared as u64);
            put_varint(&mut d.lex, (bytes.len() - shared) as u64);
            d.lex.extend_from_slice(&bytes[shared..]);
        }
        put_varint(&mut d.lex, u64::from(count));
        put_varint(&mut d.lex, len);
        self.list_end += len;
        d.frozen += 1;
        self.previous.clear();
        self.previous.extend_from_slice(bytes);
        if term.chars().nth(3).is_some() {
            for c in term.chars() {
                match self.ascii.get_mut(c as usize) {
                    Some(seen) => *seen = true,
                    None => {
                        d.alphabet.insert(c);
                    }
                }
            }
        }
    }

    /// The frozen dictionary.
    pub fn finish(mut self) -> Dictionary {
        let ascii = self.ascii;
        let d = &mut self.dict;
        d.alphabet
            .extend((0u8..128).filter(|&b| ascii[b as usize]).map(char::from));
        d.lex.shrink_to_fit();
        d.lex_starts.shrink_to_fit();
        d.list_starts.shrink_to_fit();
        self.dict
    }
}

fn shared_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Walks frozen entries from a block's start; every read is checked.
struct Walk<'a> {
    lex: &'a [u8],
    frozen: usize,
    at: usize,
    id: usize,
    list: u64,
    term: Vec<u8>,
}

impl Walk<'_> {
    fn next(&mut self) -> Option<FrozenTerm> {
        if self.id >= self.frozen {
            return None;
        }
        let lex = self.lex;
        let (shared, len) = if self.id.is_multiple_of(BLOCK) {
            (0, get_varint(lex, &mut self.at)? as usize)
        } else {
            let shared = get_varint(lex, &mut self.at)? as usize;
            (shared, get_varint(lex, &mut self.at)? as usize)
        };
        if shared > self.term.len() {
            self.id = self.frozen;
            return None;
        }
        let suffix = lex.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        self.term.truncate(shared);
        self.term.extend_from_slice(suffix);
        let count = get_u32(lex, &mut self.at)?;
        let bytes = get_varint(lex, &mut self.at)?;
        let entry = FrozenTerm {
            id: self.id as u32,
            count,
            start: self.list,
            len: bytes,
        };
        self.list = self.list.saturating_add(bytes);
        self.id += 1;
        Some(entry)
    }

    fn term(&self) -> &str {
        std::str::from_utf8(&self.term).unwrap_or("")
    }
}

/// Why a frozen dictionary read from a snapshot was refused.
pub type LexError = &'static str;

impl Dictionary {
    /// The number of frozen terms (ids below it are frozen).
    pub fn frozen_len(&self) -> usize {
        self.frozen
    }

    /// The number of terms.
    pub fn len(&self) -> usize {
        self.frozen + self.added.len()
    }

    /// Whether terms were added since the dictionary was frozen.
    pub fn has_added(&self) -> bool {
        !self.added.is_empty()
    }

    /// The frozen entries, as a snapshot stores them.
    pub fn lex(&self) -> &[u8] {
        &self.lex
    }

    /// A frozen dictionary from a snapshot's entries: `terms` of them, strictly
    /// increasing, valid UTF-8, each term at most [`MAX_TERM_BYTES`], each list at least
    /// one byte and holding at most one entry per two bits, the lists' lengths adding up
    /// to `postings` bytes. Linear in the entries' bytes; the lists are not read.
    pub fn from_lex(lex: &[u8], terms: usize, postings: u64) -> Result<Self, LexError> {
        let mut builder = Builder::default();
        let mut walk = Walk {
            lex,
            frozen: terms,
            at: 0,
            id: 0,
            list: 0,
            term: Vec::with_capacity(MAX_TERM_BYTES),
        };
        let mut previous: Vec<u8> = Vec::with_capacity(MAX_TERM_BYTES);
        for i in 0..terms {
            let entry = walk.next().ok_or("term")?;
            if walk.term.is_empty() || walk.term.len() > MAX_TERM_BYTES {
                return Err("term length");
            }
            if i > 0 && walk.term <= previous {
                return Err("term order");
            }
            let term = std::str::from_utf8(&walk.term).map_err(|_| "term")?;
            if entry.count == 0
                || entry.len == 0
                || entry.len > postings - builder.list_end.min(postings)
                || u64::from(entry.count) > entry.len * 4
            {
                return Err("postings");
            }
            builder.push(term, entry.count, entry.len);
            previous.clear();
            previous.extend_from_slice(&walk.term);
        }
        if walk.at != lex.len() {
            return Err("trailing bytes");
        }
        if builder.list_end != postings {
            return Err("postings length");
        }
        let dict = builder.finish();
        if dict.lex != lex {
            return Err("term encoding");
        }
        Ok(dict)
    }

    fn walk_from(&self, block: usize) -> Walk<'_> {
        Walk {
            lex: &self.lex,
            frozen: self.frozen,
            at: self
                .lex_starts
                .get(block)
                .map_or(self.lex.len(), |&a| a as usize),
            id: block * BLOCK,
            list: self.list_starts.get(block).copied().unwrap_or(0),
            term: Vec::with_capacity(MAX_TERM_BYTES),
        }
    }

    /// The first term of `block`.
    fn block_first(&self, block: usize) -> &[u8] {
        let mut at = self.lex_starts[block] as usize;
        let len = get_varint(&self.lex, &mut at).unwrap_or(0) as usize;
        self.lex.get(at..at.saturating_add(len)).unwrap_or(&[])
    }

    /// The block where a walk for terms not below `term` starts.
    fn block_of(&self, term: &[u8]) -> usize {
        partition(self.lex_starts.len(), |b| self.block_first(b) <= term).saturating_sub(1)
    }

    /// The frozen entry of `term`.
    pub fn frozen_get(&self, term: &str) -> Option<FrozenTerm> {
        if self.frozen == 0 {
            return None;
        }
        let bytes = term.as_bytes();
        let mut walk = self.walk_from(self.block_of(bytes));
        for _ in 0..BLOCK {
            let entry = walk.next()?;
            match walk.term.as_slice().cmp(bytes) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => return Some(entry),
                std::cmp::Ordering::Greater => return None,
            }
        }
        None
    }

    /// The frozen entry of the term with id `id`.
    pub fn frozen_entry(&self, id: u32) -> Option<FrozenTerm> {
        let id = id as usize;
        if id >= self.frozen {
            return None;
        }
        let mut walk = self.walk_from(id / BLOCK);
        loop {
            let entry = walk.next()?;
            if entry.id as usize == id {
                return Some(entry);
            }
        }
    }

    /// The id of `term`.
    pub fn get(&self, term: &str) -> Option<u32> {
        match self.frozen_get(term) {
            Some(entry) => Some(entry.id),
            None => self.added.get(term).copied(),
        }
    }

    /// Adds a term that is not in the dictionary with the id `id`.
    pub fn insert(&mut self, term: &str, id: u32) {
        if term.chars().nth(3).is_some() {
            self.alphabet.extend(term.chars());
        }
        self.added.insert(term.into(), id);
    }

    /// Calls `each` with every term in sorted order, its id and its frozen entry.
    pub fn for_each(&self, mut each: impl FnMut(&str, u32, Option<FrozenTerm>)) {
        let mut added = self.added_where(|_| true).into_iter().peekable();
        let mut walk = self.walk_from(0);
        while let Some(entry) = walk.next() {
            let term = walk.term();
            while let Some((t, id)) = added.next_if(|(t, _)| *t < term) {
                each(t, id, None);
            }
            each(term, entry.id, Some(entry));
        }
        for (t, id) in added {
            each(t, id, None);
        }
    }

    /// The added terms `keep` keeps, sorted, with their ids.
    fn added_where(&self, keep: impl Fn(&str) -> bool) -> Vec<(&str, u32)> {
        let mut found: Vec<(&str, u32)> = self
            .added
            .iter()
            .filter(|(t, _)| keep(t))
            .map(|(t, &id)| (&**t, id))
            .collect();
        found.sort_unstable();
        found
    }

    /// Terms starting with `prefix` in sorted order (at most `max`), with their ids and
    /// frozen entries.
    fn starting_with(&self, prefix: &str, max: usize) -> Vec<(u32, Option<FrozenTerm>)> {
        let mut frozen: Vec<(Box<str>, FrozenTerm)> = Vec::new();
        if self.frozen > 0 {
            let mut walk = self.walk_from(self.block_of(prefix.as_bytes()));
            while let Some(entry) = walk.next() {
                if walk.term.as_slice() < prefix.as_bytes() {
                    continue;
                }
                if !walk.term.starts_with(prefix.as_bytes()) || frozen.len() >= max {
                    break;
                }
                frozen.push((walk.term().into(), entry));
            }
        }
        let mut added = self.added_where(|t| t.starts_with(prefix));
        added.truncate(max);
        let mut out = Vec::new();
        let mut frozen = frozen.into_iter().peekable();
        for (t, id) in added {
            while let Some((_, entry)) = frozen.next_if(|(f, _)| **f < *t) {
                out.push((entry.id, Some(entry)));
            }
            out.push((id, None));
        }
        out.extend(frozen.map(|(_, entry)| (entry.id, Some(entry))));
        out.truncate(max);
        out
    }

    /// Ids of the terms starting with `prefix` (itself included): at most
    /// [`PREFIX_TERMS`], the most frequent (by `count`, given each term's id and frozen
    /// entry) of the first [`PREFIX_SCAN`].
    pub fn prefixed(
        &self,
        prefix: &str,
        count: impl Fn(u32, Option<FrozenTerm>) -> u32,
    ) -> Vec<u32> {
        let mut found: Vec<(u32, u32)> = self
            .starting_with(prefix, PREFIX_SCAN)
            .into_iter()
            .map(|(id, entry)| (count(id, entry), id))
            .collect();
        if found.len() > PREFIX_TERMS {
            found.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            found.truncate(PREFIX_TERMS);
        }
        found.into_iter().map(|(_, id)| id).collect()
    }

    /// Ids of the terms one edit away from `term` (not `term` itself): at most
    /// [`FUZZY_TERMS`], for terms of [`FUZZY_MIN_CHARS`] characters or more.
    pub fn neighbours(&self, term: &str) -> Vec<u32> {
        let chars: Vec<char> = term.chars().collect();
        if chars.len() < FUZZY_MIN_CHARS {
            return Vec::new();
        }
        let mut found = Vec::new();
        // Edits from the third character on keep the first two.
        let anchor: String = chars[..2].iter().collect();
        let mut other: Vec<char> = Vec::new();
        let mut consider = |candidate: &str, id: u32, found: &mut Vec<u32>| {
            other.clear();
            other.extend(candidate.chars());
            if other.len().abs_diff(chars.len()) <= 1 && one_edit(&chars, &other) {
                found.push(id);
            }
        };
        if self.frozen > 0 {
            let mut walk = self.walk_from(self.block_of(anchor.as_bytes()));
            while let Some(entry) = walk.next() {
                if walk.term.as_slice() < anchor.as_bytes() {
                    continue;
                }
                if !walk.term.starts_with(anchor.as_bytes()) {
                    break;
                }
                consider(walk.term(), entry.id, &mut found);
            }
        }
        // (Any order: what is found is sorted by id below.)
        for (candidate, &id) in &self.added {
            if candidate.starts_with(&anchor) {
                consider(candidate, id, &mut found);
            }
        }
        // Edits touching the first two characters, looked up one by one.
        let mut variant = Vec::with_capacity(chars.len() + 1);
        let mut s = String::with_capacity(term.len() + 4);
        let mut look = |v: &[char], found: &mut Vec<u32>| {
            s.clear();
            s.extend(v.iter());
            if let Some(id) = self.get(&s)
                && s != term
            {
                found.push(id);
            }
        };
        for i in 0..2 {
            variant.clear();
            variant.extend(
                chars
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, c)| c),
            );
            look(&variant, &mut found);
            for &letter in &self.alphabet {
                variant.clear();
                variant.extend_from_slice(&chars);
                variant[i] = letter;
                look(&variant, &mut found);
                variant.clear();
                variant.extend_from_slice(&chars);
                variant.insert(i, letter);
                look(&variant, &mut found);
            }
            variant.clear();
            variant.extend_from_slice(&chars);
            variant.swap(i, i + 1);
            look(&variant, &mut found);
        }
        found.sort_unstable();
        found.dedup();
        found.truncate(FUZZY_TERMS);
        found
    }

    /// An estimate of the heap bytes held (the hash map's slots and control bytes at its
    /// capacity, the alphabet's B-tree nodes counted at two thirds full).
    pub fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<(Box<str>, u32)>() + 1;
        self.lex.capacity()
            + self.lex_starts.capacity() * 4
            + self.list_starts.capacity() * 8
            + self.added.keys().map(|k| k.len()).sum::<usize>()
            + self.added.capacity() * entry * 8 / 7
            + self.alphabet.len() * 8
    }
}

/// The first index in `0..n` where `below` is false (`below` true then false).
pub fn partition(n: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if below(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Whether `a` and `b` differ by exactly one insertion, deletion, substitution or swap of
/// neighbours (`a != b`).
pub fn one_edit(a: &[char], b: &[char]) -> bool {
    if a == b {
        return false;
    }
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[start..], &b[start..]);
    match ra.len().cmp(&rb.len()) {
        std::cmp::Ordering::Equal => {
            ra[1..] == rb[1..]
                || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
        std::cmp::Ordering::Greater => ra.len() == rb.len() + 1 && ra[1..] == *rb,
        std::cmp::Ordering::Less => rb.len() == ra.len() + 1 && rb[1..] == *ra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn frozen(terms: &[&str]) -> Dictionary {
        let mut b = Builder::default();
        for t in terms {
            b.push(t, 1, 1);
        }
        b.finish()
    }

    #[test]
    fn one_edit_counts_swaps_as_one() {
        for (a, b) in [
            ("checker", "chekcer"),
            ("checker", "checkr"),
            ("checker", "xchecker"),
        ] {
            assert!(one_edit(&chars(a), &chars(b)), "{a} {b}");
            assert!(one_edit(&chars(b), &chars(a)), "{b} {a}");
        }
        for (a, b) in [
            ("checker", "checker"),
            ("checker", "chkecr"),
            ("abc", "cba"),
        ] {
            assert!(!one_edit(&chars(a), &chars(b)), "{a} {b}");
        }
    }

    #[test]
    fn frozen_and_added_terms_merge_in_order() {
        let mut d = frozen(&["alpha", "checker", "delta"]);
        d.insert("beta", 3);
        d.insert("chequer", 4);
        d.insert("zeta", 5);
        let mut all = Vec::new();
        d.for_each(|t, id, _| all.push((t.to_string(), id)));
        let want = [
            ("alpha", 0),
            ("beta", 3),
            ("checker", 1),
            ("chequer", 4),
            ("delta", 2),
            ("zeta", 5),
        ];
        assert!(all.iter().map(|(t, i)| (t.as_str(), *i)).eq(want));
        assert_eq!(
            (d.get("checker"), d.get("chequer"), d.get("chec")),
            (Some(1), Some(4), None)
        );
        assert_eq!(d.prefixed("che", |_, _| 1), [1, 4]);
        assert_eq!(d.neighbours("chekcer"), [1]);
        assert_eq!(d.len(), 6);
        assert_eq!(frozen(&[]), Dictionary::default());
    }

    #[test]
    fn added_terms_walk_sorted_whatever_their_insertion_order() {
        // Kept in a hash map: every ordered walk sorts what it takes.
        let mut d = frozen(&["p00100"]);
        let total = PREFIX_SCAN + 500;
        for i in (0..total).rev() {
            let term = format!("p{i:05}");
            if term != "p00100" {
                d.insert(&term, (total - i) as u32);
            }
        }
        let scanned = d.starting_with("p", PREFIX_SCAN);
        assert_eq!(
            scanned.len(),
            PREFIX_SCAN,
            "the first ones, frozen and added merged"
        );
        assert_eq!(scanned[0], (total as u32, None), "p00000 first");
        assert_eq!(scanned[100].0, 0, "the frozen p00100 in its place");
        let mut all = Vec::new();
        d.for_each(|t, _, _| all.push(t.to_string()));
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(all.len(), total);
    }

    #[test]
    fn blocks_front_code_and_read_back() {
        let terms: Vec<String> = (0..1000).map(|i| format!("term{i:05}")).collect();
        let refs: Vec<&str> = terms.iter().map(String::as_str).collect();
        let d = frozen(&refs);
        for (i, t) in terms.iter().enumerate() {
            assert_eq!(d.get(t), Some(i as u32), "{t}");
            assert_eq!(d.frozen_entry(i as u32).map(|e| e.start), Some(i as u64));
        }
        assert_eq!(d.get("term"), None);
        assert_eq!(d.get("term99999"), None);
        assert_eq!(d.get("a"), None);
        assert_eq!(d.prefixed("term0099", |_, _| 1).len(), 10);
        assert_eq!(Dictionary::from_lex(d.lex(), 1000, 1000), Ok(d.clone()));
        assert!(Dictionary::from_lex(d.lex(), 1000, 999).is_err());
        assert!(Dictionary::from_lex(d.lex(), 999, 999).is_err());
        assert!(Dictionary::from_lex(&d.lex()[1..], 1000, 1000).is_err());
    }

    #[test]
    fn neighbours_include_edits_at_the_start() {
        let mut d = Dictionary::default();
        for (i, t) in [
            "checker", "hecker", "xhecker", "cehcker", "chequer", "other",
        ]
        .iter()
        .enumerate()
        {
            d.insert(t, i as u32);
        }
        assert_eq!(d.neighbours("checker"), [1, 2, 3]);
        assert_eq!(d.neighbours("chcker"), [0, 3]);
        assert_eq!(d.neighbours("chec"), Vec::<u32>::new());
        assert_eq!(d.prefixed("che", |_, _| 1), [0, 4]);
    }
}
