//! Matching a query against one sub-index, with BM25 scores.
//!
//! Each clause of the query becomes a list of `(slot, score)` sorted by slot: a word is
//! the union of its terms (itself, the terms its prefix starts, its one-edit neighbours),
//! scoring each document by its best term, weighted (exact 1, prefix [`PREFIX_WEIGHT`],
//! typo [`FUZZY_WEIGHT`]); a phrase is the documents where its terms sit at the right
//! offsets, scored as the sum of its terms. Clauses are intersected (AND) from the
//! shortest list and their scores added.
//!
//! Chinese and Japanese are indexed by character (`segment::index_term`): a character
//! followed by another of its run is one term, a run's last character another. A query's
//! character pair (`東京`) is read as the first character's occurrences whose next
//! position holds the second, which gives exactly the documents, frequencies and scores
//! a list of that pair would; a single character reads both of its lists, so it matches
//! every occurrence of the character, scored as one term.
//!
//! BM25 (k1 = 1.2, b = 0.75) with the title counted [`TITLE_BOOST`] times: a term's
//! frequency is `TITLE_BOOST × tf(title) + tf(body)`. Document frequencies are counted
//! while reading the postings, over live documents only, so a removed document never
//! shifts a score. Searching titles only counts title occurrences alone, with the
//! title's length as the document's.

use std::iter::Peekable;

use super::postings::Occurrences;
use super::query::{Clause, Query};
use super::segment::{CONTINUES, DocAt, Segment};
use super::token::is_cjk;

/// How much more a title occurrence counts than a body one.
pub const TITLE_BOOST: f32 = 3.0;
/// The weight of a term matched through the query's trailing prefix.
pub const PREFIX_WEIGHT: f32 = 0.8;
/// The weight of a term one edit away from the query's word.
pub const FUZZY_WEIGHT: f32 = 0.5;
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// A document's slot and score.
pub type Scored = (u32, f32);

struct Stats {
    live: f32,
    avg_len: f32,
    title_only: bool,
}

/// One document's occurrences of a term: its slot, boosted frequency, BM25 length, and
/// its positions' range in the shared positions buffer (when kept).
struct Entry {
    slot: u32,
    tf: f32,
    len: u32,
    start: usize,
    end: usize,
}

/// Two sorted lists of distinct values merged.
struct Merge<'a> {
    a: Peekable<Occurrences<'a>>,
    b: Peekable<Occurrences<'a>>,
}

impl Iterator for Merge<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        match (self.a.peek(), self.b.peek()) {
            (Some(x), Some(y)) if x <= y => self.a.next(),
            (Some(_), Some(_)) => self.b.next(),
            (Some(_), None) => self.a.next(),
            (None, _) => self.b.next(),
        }
    }
}

/// The occurrences of a query's term.
enum Source<'a> {
    List(Occurrences<'a>),
    /// A CJK character: its occurrences followed in its run, and at a run's end.
    Char(Merge<'a>),
    /// A CJK pair: the first character's followed occurrences whose next position holds
    /// the second character.
    Pair(Occurrences<'a>, Peekable<Merge<'a>>),
}

impl Iterator for Source<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        match self {
            Source::List(list) => list.next(),
            Source::Char(merge) => merge.next(),
            Source::Pair(first, second) => loop {
                let at = first.next()?;
                while second.next_if(|&v| v <= at).is_some() {}
                if second.peek() == Some(&(at + 1)) {
                    return Some(at);
                }
            },
        }
    }
}

impl Source<'_> {
    /// Appends up to `max` next occurrences to `out`; how many (zero at the end).
    fn fill(&mut self, out: &mut Vec<u64>, max: usize) -> usize {
        match self {
            Source::List(list) => list.fill(out, max),
            _ => {
                let before = out.len();
                out.extend(self.take(max));
                out.len() - before
            }
        }
    }
}

/// Occurrences decoded at a time.
const BATCH: usize = 256;

fn empty<'a>() -> Occurrences<'a> {
    Occurrences {
        frozen: None,
        tail: None,
    }
}

fn char_source<'a>(segment: &'a Segment, c: char) -> Merge<'a> {
    let mut buf = [0u8; 8];
    let alone = c.encode_utf8(&mut buf);
    let alone = segment.term_occurrences(alone).unwrap_or_else(empty);
    let mut followed = String::with_capacity(8);
    followed.push(c);
    followed.push(CONTINUES);
    let followed = segment.term_occurrences(&followed).unwrap_or_else(empty);
    Merge {
        a: alone.peekable(),
        b: followed.peekable(),
    }
}

/// Where a query term's occurrences come from (see the module docs).
fn source<'a>(segment: &'a Segment, term: &str) -> Option<Source<'a>> {
    let mut chars = term.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some(a), None, _) if is_cjk(a) => Some(Source::Char(char_source(segment, a))),
        (Some(a), Some(b), None) if is_cjk(a) && is_cjk(b) => {
            let mut followed = String::with_capacity(8);
            followed.push(a);
            followed.push(CONTINUES);
            let first = segment.term_occurrences(&followed)?;
            Some(Source::Pair(first, char_source(segment, b).peekable()))
        }
        _ => segment.term_occurrences(term).map(Source::List),
    }
}

fn is_cjk_term(term: &str) -> bool {
    term.chars().next().is_some_and(is_cjk)
}

/// The documents of `segment` matching every clause of `query`, sorted by slot.
pub fn matches(segment: &Segment, query: &Query, title_only: bool) -> Vec<Scored> {
    if segment.live == 0 {
        return Vec::new();
    }
    let total = if title_only {
        segment.total_title
    } else {
        segment.total_len
    };
    let stats = Stats {
        live: segment.live as f32,
        avg_len: (total as f32 / segment.live as f32).max(1.0),
        title_only,
    };
    let mut lists = Vec::with_capacity(query.clauses().len());
    for clause in query.clauses() {
        let list = clause_matches(segment, &stats, clause);
        if list.is_empty() {
            return Vec::new();
        }
        lists.push(list);
    }
    // Intersect from the shortest list. The order depends only on the lists' lengths
    // (ties by clause), so the same documents always add their scores in the same order.
    let mut order: Vec<usize> = (0..lists.len()).collect();
    order.sort_by_key(|&i| lists[i].len());
    let mut result = std::mem::take(&mut lists[order[0]]);
    for &i in &order[1..] {
        let other = &lists[i];
        let mut from = 0;
        result.retain_mut(|(slot, score)| {
            // Both lists are sorted by slot: search only past the last match.
            match other[from..].binary_search_by_key(slot, |e| e.0) {
                Ok(at) => {
                    *score += other[from + at].1;
                    from += at + 1;
                    true
                }
                Err(at) => {
                    from += at;
                    false
                }
            }
        });
        if result.is_empty() {
            break;
        }
    }
    result
}

fn clause_matches(segment: &Segment, stats: &Stats, clause: &Clause) -> Vec<Scored> {
    match clause {
        Clause::Term {
            term,
            prefix,
            fuzzy,
        } => {
            if is_cjk_term(term) {
                return union(segment, stats, source(segment, term).into_iter(), 1);
            }
            let mut expanded: Vec<(u32, f32)> = Vec::new();
            let exact = segment.dict.get(term);
            if let Some(id) = exact {
                expanded.push((id, 1.0));
            }
            if *prefix {
                let count = |id, entry| segment.count(id, entry);
                for id in segment.dict.prefixed(term, count) {
                    if Some(id) != exact {
                        expanded.push((id, PREFIX_WEIGHT));
                    }
                }
            }
            if *fuzzy {
                for id in segment.dict.neighbours(term) {
                    expanded.push((id, FUZZY_WEIGHT));
                }
            }
            let sources = expanded
                .iter()
                .map(|&(id, weight)| (Source::List(segment.occurrences(id)), weight));
            union_weighted(segment, stats, sources, expanded.len())
        }
        Clause::CharPrefix(c) => union(segment, stats, source(segment, c).into_iter(), 1),
        Clause::Phrase(parts) => phrase(segment, stats, parts),
    }
}

/// The document being read.
struct Current {
    doc: DocAt,
    in_title: u32,
    in_body: u32,
    start: usize,
}

impl Current {
    fn finish(&self, stats: &Stats, end_at: usize, out: &mut Vec<Entry>) {
        if !self.doc.live || self.in_title + self.in_body == 0 {
            return;
        }
        let (tf, len) = if stats.title_only {
            (self.in_title as f32, self.doc.title_end)
        } else {
            (
                TITLE_BOOST * self.in_title as f32 + self.in_body as f32,
                (self.doc.end - self.doc.base).saturating_sub(1) as u32,
            )
        };
        out.push(Entry {
            slot: self.doc.slot,
            tf,
            len,
            start: self.start,
            end: end_at,
        });
    }
}

/// Every live document of `source` (see [`Entry`]), positions kept in `positions` when
/// asked for.
fn read(
    segment: &Segment,
    stats: &Stats,
    mut source: Source<'_>,
    mut keep_positions: Option<&mut Vec<u32>>,
) -> Vec<Entry> {
    let mut cursor = segment.cursor();
    let mut out: Vec<Entry> = Vec::new();
    let mut current: Option<Current> = None;
    let mut batch = Vec::with_capacity(BATCH);
    'batches: loop {
        batch.clear();
        if source.fill(&mut batch, BATCH) == 0 {
            break;
        }
        for &at in &batch {
            let current = match &mut current {
                Some(c) if at < c.doc.end => c,
                _ => {
                    let kept = keep_positions.as_deref().map_or(0, Vec::len);
                    if let Some(done) = &current {
                        done.finish(stats, kept, &mut out);
                    }
                    let Some(doc) = cursor.seek(at, segment) else {
                        current = None;
                        break 'batches;
                    };
                    current.insert(Current {
                        doc,
                        in_title: 0,
                        in_body: 0,
                        start: kept,
                    })
                }
            };
            if !current.doc.live {
                continue;
            }
            let pos = at.saturating_sub(current.doc.base) as u32;
            if pos < current.doc.title_end {
                current.in_title += 1;
            } else if stats.title_only {
                continue;
            } else {
                current.in_body += 1;
            }
            if let Some(all) = keep_positions.as_deref_mut() {
                all.push(pos);
            }
        }
    }
    if let Some(done) = &current {
        done.finish(
            stats,
            keep_positions.as_deref().map_or(0, Vec::len),
            &mut out,
        );
    }
    out
}

fn bm25(stats: &Stats, df: usize, tf: f32, len: u32) -> f32 {
    let df = df as f32;
    let idf = (1.0 + (stats.live - df + 0.5) / (df + 0.5)).ln();
    let norm = K1 * (1.0 - B + B * len as f32 / stats.avg_len);
    idf * tf * (K1 + 1.0) / (tf + norm)
}

fn union<'a>(
    segment: &'a Segment,
    stats: &Stats,
    sources: impl Iterator<Item = Source<'a>>,
    n: usize,
) -> Vec<Scored> {
    union_weighted(segment, stats, sources.map(|s| (s, 1.0)), n)
}

/// Documents containing any of `sources` (`n` of them), each scored by its best
/// weighted term.
fn union_weighted<'a>(
    segment: &'a Segment,
    stats: &Stats,
    sources: impl Iterator<Item = (Source<'a>, f32)>,
    n: usize,
) -> Vec<Scored> {
    let mut all: Vec<Scored> = Vec::new();
    for (source, weight) in sources {
        let entries = read(segment, stats, source, None);
        let df = entries.len();
        all.extend(
            entries
                .into_iter()
                .map(|e| (e.slot, weight * bm25(stats, df, e.tf, e.len))),
        );
    }
    if n > 1 {
        all.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        all.dedup_by_key(|e| e.0);
    }
    all
}

/// Documents where every part sits at its offset from the first.
fn phrase(segment: &Segment, stats: &Stats, parts: &[(String, u32)]) -> Vec<Scored> {
    let mut positions = Vec::new();
    let mut lists = Vec::with_capacity(parts.len());
    for (term, _) in parts {
        let Some(source) = source(segment, term) else {
            return Vec::new();
        };
        lists.push(read(segment, stats, source, Some(&mut positions)));
    }
    let rarest = (0..lists.len())
        .min_by_key(|&i| lists[i].len())
        .unwrap_or(0);
    let mut out = Vec::new();
    'docs: for entry in &lists[rarest] {
        let slot = entry.slot;
        let mut at = Vec::with_capacity(lists.len());
        for list in &lists {
            match list.binary_search_by_key(&slot, |e| e.slot) {
                Ok(i) => at.push(&list[i]),
                Err(_) => continue 'docs,
            }
        }
        let first = &positions[at[0].start..at[0].end];
        let found = first.iter().any(|&p| {
            at.iter().zip(parts).skip(1).all(|(e, (_, offset))| {
                positions[e.start..e.end]
                    .binary_search(&(p + offset))
                    .is_ok()
            })
        });
        if found {
            let score = at
                .iter()
                .zip(&lists)
                .map(|(e, list)| bm25(stats, list.len(), e.tf, e.len))
                .sum();
            out.push((slot, score));
        }
    }
    out
}
