//! The term dictionary: a sorted map from term to term id, with prefix expansion and
//! one-edit (typo) expansion.
//!
//! Two sorted parts: the terms known at the last compaction (or snapshot), frozen in one
//! string with their start offsets (four bytes a term besides its text; their ids are
//! their ranks), and a `BTreeMap` of the terms added since (an insertion in O(log n); an
//! `fst` would need rebuilding on every new term). Lookups try both; ordered walks merge
//! them. Typo matching does not scan the dictionary: an edit at the third character or
//! later keeps the first two, so those candidates are the range of terms starting with
//! them; the edits touching the first two characters (deletions, substitutions and
//! insertions by a letter of the dictionary's alphabet, swaps) are looked up one by one.
//! The alphabet is the set of characters seen in terms of four characters or more.

use std::collections::{BTreeMap, BTreeSet};
use std::iter::Peekable;
use std::ops::Bound;

use super::query::FUZZY_MIN_CHARS;

/// At most this many terms of a prefix are scanned; the most frequent are kept.
pub const PREFIX_SCAN: usize = 4096;
/// At most this many terms stand for a prefix (or a single CJK character).
pub const PREFIX_TERMS: usize = 64;
/// At most this many one-edit neighbours stand for a word.
pub const FUZZY_TERMS: usize = 32;

/// Sorted terms and their ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dictionary {
    /// The frozen terms, concatenated in order.
    text: String,
    /// Where each frozen term starts in `text`, then `text.len()` (empty when none).
    starts: Vec<u32>,
    /// Terms added since the dictionary was frozen.
    added: BTreeMap<Box<str>, u32>,
    alphabet: BTreeSet<char>,
}

/// Two sorted walks of distinct terms, merged.
fn merge<'a>(
    a: impl Iterator<Item = (&'a str, u32)>,
    b: impl Iterator<Item = (&'a str, u32)>,
) -> impl Iterator<Item = (&'a str, u32)> {
    let (mut a, mut b): (Peekable<_>, Peekable<_>) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x.0 <= y.0 => a.next(),
        (Some(_), Some(_)) => b.next(),
        (Some(_), None) => a.next(),
        (None, _) => b.next(),
    })
}

impl Dictionary {
    fn frozen_len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    fn frozen(&self, i: usize) -> &str {
        &self.text[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// The id of `term`.
    pub fn get(&self, term: &str) -> Option<u32> {
        let n = self.frozen_len();
        let at = partition(n, |i| self.frozen(i) < term);
        if at < n && self.frozen(at) == term {
            return Some(at as u32);
        }
        self.added.get(term).copied()
    }

    /// Adds a term that is not in the dictionary with the id `id`.
    pub fn insert(&mut self, term: &str, id: u32) {
        if term.chars().nth(3).is_some() {
            self.alphabet.extend(term.chars());
        }
        self.added.insert(term.into(), id);
    }

    /// A frozen dictionary of `terms`, sorted and distinct, with ids in that order.
    pub fn from_sorted<S: AsRef<str>>(terms: impl IntoIterator<Item = S>) -> Self {
        let mut ascii = [false; 128];
        let mut alphabet = BTreeSet::new();
        let mut text = String::new();
        let mut starts = Vec::new();
        for term in terms {
            let term = term.as_ref();
            starts.push(text.len() as u32);
            text.push_str(term);
            if term.chars().nth(3).is_some() {
                for c in term.chars() {
                    match ascii.get_mut(c as usize) {
                        Some(seen) => *seen = true,
                        None => {
                            alphabet.insert(c);
                        }
                    }
                }
            }
        }
        if !starts.is_empty() {
            starts.push(text.len() as u32);
        }
        alphabet.extend((0u8..128).filter(|&b| ascii[b as usize]).map(char::from));
        text.shrink_to_fit();
        starts.shrink_to_fit();
        Self {
            text,
            starts,
            added: BTreeMap::new(),
            alphabet,
        }
    }

    /// The number of terms.
    pub fn len(&self) -> usize {
        self.frozen_len() + self.added.len()
    }

    /// Terms in sorted order with their ids.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u32)> {
        self.from(0)
    }

    /// Terms from the first not below `at` (a frozen index), merged with every added term.
    fn from(&self, at: usize) -> impl Iterator<Item = (&str, u32)> {
        let frozen = (at..self.frozen_len()).map(|i| (self.frozen(i), i as u32));
        merge(frozen, self.added.iter().map(|(t, id)| (&**t, *id)))
    }

    /// Terms not below `start`, in sorted order.
    fn range(&self, start: &str) -> impl Iterator<Item = (&str, u32)> {
        let at = partition(self.frozen_len(), |i| self.frozen(i) < start);
        let frozen = (at..self.frozen_len()).map(|i| (self.frozen(i), i as u32));
        let added = self
            .added
            .range::<str, _>((Bound::Included(start), Bound::Unbounded))
            .map(|(t, id)| (&**t, *id));
        merge(frozen, added)
    }

    /// Ids of the terms starting with `prefix` (itself included): at most
    /// [`PREFIX_TERMS`], the most frequent (by `df`) of the first [`PREFIX_SCAN`].
    pub fn prefixed(&self, prefix: &str, df: impl Fn(u32) -> u32) -> Vec<u32> {
        let mut found: Vec<(u32, u32)> = self
            .range(prefix)
            .take_while(|(t, _)| t.starts_with(prefix))
            .take(PREFIX_SCAN)
            .map(|(_, id)| (df(id), id))
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
        for (candidate, id) in self
            .range(&anchor)
            .take_while(|(t, _)| t.starts_with(&anchor))
        {
            let other: Vec<char> = candidate.chars().collect();
            if other.len().abs_diff(chars.len()) <= 1 && one_edit(&chars, &other) {
                found.push(id);
            }
        }
        // Edits touching the first two characters, looked up one by one.
        let mut variant = Vec::with_capacity(chars.len() + 1);
        let look = |v: &[char], found: &mut Vec<u32>| {
            let s: String = v.iter().collect();
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

    /// An estimate of the heap bytes held (B-tree nodes counted at two thirds full).
    pub fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<(Box<str>, u32)>();
        self.text.capacity()
            + self.starts.capacity() * 4
            + self.added.keys().map(|k| k.len()).sum::<usize>()
            + self.added.len() * (entry * 3 / 2 + 8)
            + self.alphabet.len() * 8
    }
}

/// The first index in `0..n` where `below` is false (`below` true then false).
fn partition(n: usize, below: impl Fn(usize) -> bool) -> usize {
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
        let mut d = Dictionary::from_sorted(["alpha", "checker", "delta"]);
        d.insert("beta", 3);
        d.insert("chequer", 4);
        d.insert("zeta", 5);
        let all: Vec<(&str, u32)> = d.iter().collect();
        assert_eq!(
            all,
            [
                ("alpha", 0),
                ("beta", 3),
                ("checker", 1),
                ("chequer", 4),
                ("delta", 2),
                ("zeta", 5)
            ]
        );
        assert_eq!(
            (d.get("checker"), d.get("chequer"), d.get("chec")),
            (Some(1), Some(4), None)
        );
        assert_eq!(d.prefixed("che", |_| 1), [1, 4]);
        assert_eq!(d.neighbours("chekcer"), [1]);
        assert_eq!(d.len(), 6);
        assert_eq!(
            Dictionary::from_sorted(Vec::<&str>::new()),
            Dictionary::default()
        );
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
        assert_eq!(d.prefixed("che", |_| 1), [0, 4]);
    }
}
