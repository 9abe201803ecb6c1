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
//!
//! Long because: each clause kind reads its terms through one of three sources (a
//! frozen list with its tail, a CJK character pair, a plain tail) and the scoring that
//! consumes them depends on how each counts frequencies; the seam to cut next is the
//! sources (`ListSource`, `CharSource`, `Source`) into a module of their own.

use super::postings::{Counted, Postings};
use super::query::{Clause, Query};
use super::segment::{CONTINUES, DocAt, DocCursor, Segment};
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
    /// Slots in the segment (removed ones included).
    slots: usize,
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

/// One document of a query term, as a source yields it.
#[derive(Debug, Clone, Copy)]
struct DocHit {
    slot: u32,
    in_title: u32,
    in_body: u32,
    title_end: u32,
    len: u32,
}

/// A term's list, read document by document, removed documents skipped (title
/// occurrences only, when searching titles).
struct ListSource<'a> {
    postings: Option<Postings<'a>>,
    cursor: DocCursor<'a>,
    title_only: bool,
    positions: Vec<u32>,
    /// Entries counted ahead (when positions are not wanted), and the next one's index.
    counted: Vec<Counted>,
    at: usize,
    /// An entry whose header is read and positions not yet (see [`ListSource::advance`]).
    pending: Option<(u32, u32, DocAt)>,
}

/// Entries counted at a time.
const BATCH: usize = 128;

impl<'a> ListSource<'a> {
    fn new(segment: &'a Segment, postings: Option<Postings<'a>>, title_only: bool) -> Self {
        Self {
            postings,
            cursor: segment.cursor(),
            title_only,
            positions: Vec::new(),
            counted: Vec::new(),
            at: 0,
            pending: None,
        }
    }

    /// The next document; its positions in `self.positions` when `want` (a source is
    /// read either with positions or without, never both).
    #[inline]
    fn next(&mut self, want: bool) -> Option<DocHit> {
        if want {
            self.seek(0)
        } else {
            self.next_counted()
        }
    }

    /// The next live document at `target` or after, its positions not read yet: its
    /// slot (the positions of the documents passed over are skipped).
    fn advance(&mut self, target: u32) -> Option<u32> {
        if let Some((slot, _, _)) = self.pending {
            if slot >= target {
                return Some(slot);
            }
            self.pending = None;
        }
        let postings = self.postings.as_mut()?;
        loop {
            let (slot, tf) = postings.next()?;
            let doc = self.cursor.at(slot)?;
            if !postings.open(doc.len) || !doc.live || slot < target {
                continue;
            }
            self.pending = Some((slot, tf, doc));
            return Some(slot);
        }
    }

    /// Reads the positions of the document [`ListSource::advance`] stopped at into
    /// `self.positions` (title positions only when searching titles).
    fn read_pending(&mut self) -> Option<DocHit> {
        let (slot, tf, doc) = self.pending.take()?;
        self.positions.clear();
        self.postings.as_mut()?.positions(&mut self.positions);
        if self.title_only {
            self.positions.retain(|&p| p < doc.title_end);
        }
        let in_title = self
            .positions
            .iter()
            .filter(|&&p| p < doc.title_end)
            .count() as u32;
        Some(DocHit {
            slot,
            in_title,
            in_body: if self.title_only { 0 } else { tf - in_title },
            title_end: doc.title_end,
            len: doc.len,
        })
    }

    /// The next document at `target` or after, with its positions in `self.positions`.
    fn seek(&mut self, mut target: u32) -> Option<DocHit> {
        loop {
            let slot = self.advance(target)?;
            let hit = self.read_pending()?;
            if !self.title_only || hit.in_title > 0 {
                return Some(hit);
            }
            target = slot + 1;
        }
    }
}

impl ListSource<'_> {
    /// The next document, from entries counted a batch at a time.
    #[inline(always)]
    fn next_counted(&mut self) -> Option<DocHit> {
        loop {
            if self.at == self.counted.len() {
                self.counted.clear();
                self.at = 0;
                let cursor = &mut self.cursor;
                self.postings.as_mut()?.fill_counted(
                    BATCH,
                    |slot| cursor.at(slot).map(|d| (d.len, d.title_end, d.live)),
                    &mut self.counted,
                );
                if self.counted.is_empty() {
                    self.postings = None;
                    return None;
                }
            }
            let c = self.counted[self.at];
            self.at += 1;
            if self.title_only && c.in_title == 0 {
                continue;
            }
            return Some(DocHit {
                slot: c.slot,
                in_title: c.in_title,
                in_body: if self.title_only {
                    0
                } else {
                    c.tf - c.in_title
                },
                title_end: c.title_end,
                len: c.len,
            });
        }
    }
}

/// Two sorted lists of positions merged into `out`.
fn merge_positions(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// A CJK character: its occurrences followed in its run, and at a run's end, merged.
struct CharSource<'a> {
    alone: ListSource<'a>,
    followed: ListSource<'a>,
    /// Counted mode: each side's next document, once read.
    next_alone: Option<Option<DocHit>>,
    next_followed: Option<Option<DocHit>>,
    positions: Vec<u32>,
}

impl CharSource<'_> {
    /// The next document; its positions in `self.positions` when `want`.
    fn next(&mut self, want: bool) -> Option<DocHit> {
        if want {
            return self.seek(0);
        }
        let (alone, followed) = (&mut self.alone, &mut self.followed);
        let a = *self.next_alone.get_or_insert_with(|| alone.next(false));
        let b = *self
            .next_followed
            .get_or_insert_with(|| followed.next(false));
        match (a, b) {
            (Some(x), Some(y)) if x.slot == y.slot => {
                self.next_alone = None;
                self.next_followed = None;
                Some(DocHit {
                    in_title: x.in_title + y.in_title,
                    in_body: x.in_body + y.in_body,
                    ..x
                })
            }
            (Some(x), y) => {
                if y.is_some_and(|y| y.slot < x.slot) {
                    self.next_followed = None;
                    return y;
                }
                self.next_alone = None;
                Some(x)
            }
            (None, y) => {
                self.next_followed = None;
                y
            }
        }
    }

    /// The next live document at `target` or after, its positions not read yet.
    fn advance(&mut self, target: u32) -> Option<u32> {
        let a = self.alone.advance(target);
        let b = self.followed.advance(target);
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Reads the positions of the document [`CharSource::advance`] stopped at.
    fn read_pending(&mut self, slot: u32) -> Option<DocHit> {
        let pending = |list: &ListSource<'_>| list.pending.is_some_and(|p| p.0 == slot);
        let a = if pending(&self.alone) {
            self.alone.read_pending()
        } else {
            None
        };
        let b = if pending(&self.followed) {
            self.followed.read_pending()
        } else {
            None
        };
        match (a, b) {
            (Some(x), Some(y)) => {
                merge_positions(
                    &self.alone.positions,
                    &self.followed.positions,
                    &mut self.positions,
                );
                Some(DocHit {
                    in_title: x.in_title + y.in_title,
                    in_body: x.in_body + y.in_body,
                    ..x
                })
            }
            (Some(x), None) => {
                self.positions.clone_from(&self.alone.positions);
                Some(x)
            }
            (None, Some(y)) => {
                self.positions.clone_from(&self.followed.positions);
                Some(y)
            }
            (None, None) => None,
        }
    }

    /// The next document at `target` or after, with its positions in `self.positions`.
    fn seek(&mut self, mut target: u32) -> Option<DocHit> {
        loop {
            let slot = self.advance(target)?;
            let hit = self.read_pending(slot)?;
            if !self.alone.title_only || hit.in_title > 0 {
                return Some(hit);
            }
            target = slot + 1;
        }
    }
}

/// The occurrences of a query's term. A query holds a few of these for the time it
/// runs, so their sizes do not matter; the pair's parts are boxed to keep moves small.
#[allow(clippy::large_enum_variant)]
enum Source<'a> {
    List(ListSource<'a>),
    Char(CharSource<'a>),
    /// A CJK pair: the first character's followed occurrences whose next position holds
    /// the second character.
    Pair(Box<(ListSource<'a>, CharSource<'a>, Vec<u32>)>),
}

impl Source<'_> {
    /// The next document; its positions in [`Source::positions`] when `want`.
    #[inline]
    fn next(&mut self, want: bool) -> Option<DocHit> {
        match self {
            Source::List(list) => list.next(want),
            Source::Char(c) => c.next(want),
            Source::Pair(pair) => {
                let (first, second, matched) = &mut **pair;
                // Both sides are aligned on a document before any position is read.
                let mut target = 0;
                loop {
                    let mut x = first.advance(target)?;
                    let mut y = second.advance(x)?;
                    while x != y {
                        if x < y {
                            x = first.advance(y)?;
                        } else {
                            y = second.advance(x)?;
                        }
                    }
                    target = x + 1;
                    let (Some(hit), Some(_)) = (first.read_pending(), second.read_pending(x))
                    else {
                        continue;
                    };
                    matched.clear();
                    let next = &second.positions;
                    let mut j = 0;
                    for &p in &first.positions {
                        while j < next.len() && next[j] <= p {
                            j += 1;
                        }
                        if next.get(j) == Some(&(p + 1)) {
                            matched.push(p);
                        }
                    }
                    if !matched.is_empty() {
                        let in_title =
                            matched.iter().filter(|&&p| p < hit.title_end).count() as u32;
                        return Some(DocHit {
                            in_title,
                            in_body: matched.len() as u32 - in_title,
                            ..hit
                        });
                    }
                }
            }
        }
    }

    /// The positions of the last document returned (when asked for).
    fn positions(&self) -> &[u32] {
        match self {
            Source::List(list) => &list.positions,
            Source::Char(c) => &c.positions,
            Source::Pair(pair) => &pair.2,
        }
    }
}

fn char_source(segment: &Segment, c: char, title_only: bool) -> CharSource<'_> {
    let mut buf = [0u8; 8];
    let alone = segment.term_postings(c.encode_utf8(&mut buf));
    let mut followed = String::with_capacity(8);
    followed.push(c);
    followed.push(CONTINUES);
    let followed = segment.term_postings(&followed);
    CharSource {
        alone: ListSource::new(segment, alone, title_only),
        followed: ListSource::new(segment, followed, title_only),
        next_alone: None,
        next_followed: None,
        positions: Vec::new(),
    }
}

/// Where a query term's occurrences come from (see the module docs).
fn source<'a>(segment: &'a Segment, term: &str, title_only: bool) -> Option<Source<'a>> {
    let mut chars = term.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some(a), None, _) if is_cjk(a) => Some(Source::Char(char_source(segment, a, title_only))),
        (Some(a), Some(b), None) if is_cjk(a) && is_cjk(b) => {
            let mut followed = String::with_capacity(8);
            followed.push(a);
            followed.push(CONTINUES);
            let first = segment.term_postings(&followed)?;
            Some(Source::Pair(Box::new((
                ListSource::new(segment, Some(first), title_only),
                char_source(segment, b, title_only),
                Vec::new(),
            ))))
        }
        _ => segment
            .term_postings(term)
            .map(|p| Source::List(ListSource::new(segment, Some(p), title_only))),
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
        slots: segment.slots(),
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
            // Both lists are sorted by slot: search forward from the last match.
            from = gallop(other, from, *slot, |e| e.0);
            match other.get(from) {
                Some(&(s, add)) if s == *slot => {
                    *score += add;
                    from += 1;
                    true
                }
                _ => false,
            }
        });
        if result.is_empty() {
            break;
        }
    }
    result
}

/// The first index from `from` on whose key is not below `target` (`list` sorted by
/// key): an exponential search forward, then a binary search of the last step, so a
/// walk through two sorted lists costs the shorter one's length times a logarithm of
/// the gaps.
fn gallop<T>(list: &[T], from: usize, target: u32, key: impl Fn(&T) -> u32) -> usize {
    let below = |i: usize| list.get(i).is_some_and(|e| key(e) < target);
    if !below(from) {
        return from;
    }
    let (mut lo, mut step) = (from, 1);
    while below(lo + step) {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(list.len());
    lo + 1 + list[lo + 1..hi].partition_point(|e| key(e) < target)
}

fn clause_matches(segment: &Segment, stats: &Stats, clause: &Clause) -> Vec<Scored> {
    match clause {
        Clause::Term {
            term,
            prefix,
            fuzzy,
        } => {
            if is_cjk_term(term) {
                let found = source(segment, term, stats.title_only);
                return union(stats, found.into_iter(), 1);
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
            let sources = expanded.iter().map(|&(id, weight)| {
                let postings = segment.postings_of(id);
                let list = ListSource::new(segment, Some(postings), stats.title_only);
                (Source::List(list), weight)
            });
            union_weighted(stats, sources, expanded.len())
        }
        Clause::CharPrefix(c) => {
            let found = source(segment, c, stats.title_only);
            union(stats, found.into_iter(), 1)
        }
        Clause::Phrase(parts) => phrase(segment, stats, parts),
    }
}

/// Every live document of `source` (see [`Entry`]), positions kept in `positions` when
/// asked for.
fn read(stats: &Stats, mut source: Source<'_>, mut keep: Option<&mut Vec<u32>>) -> Vec<Entry> {
    let mut out = Vec::new();
    while let Some(hit) = source.next(keep.is_some()) {
        let (start, end) = match keep.as_deref_mut() {
            Some(all) => {
                let start = all.len();
                all.extend_from_slice(source.positions());
                (start, all.len())
            }
            None => (0, 0),
        };
        let (tf, len) = if stats.title_only {
            (hit.in_title as f32, hit.title_end)
        } else {
            (
                TITLE_BOOST * hit.in_title as f32 + hit.in_body as f32,
                hit.len,
            )
        };
        out.push(Entry {
            slot: hit.slot,
            tf,
            len,
            start,
            end,
        });
    }
    out
}

fn bm25(stats: &Stats, df: usize, tf: f32, len: u32) -> f32 {
    let df = df as f32;
    let idf = (1.0 + (stats.live - df + 0.5) / (df + 0.5)).ln();
    let norm = K1 * (1.0 - B + B * len as f32 / stats.avg_len);
    idf * tf * (K1 + 1.0) / (tf + norm)
}

fn union<'a>(stats: &Stats, sources: impl Iterator<Item = Source<'a>>, n: usize) -> Vec<Scored> {
    union_weighted(stats, sources.map(|s| (s, 1.0)), n)
}

/// Documents containing any of `sources` (`n` of them), each scored by its best
/// weighted term.
fn union_weighted<'a>(
    stats: &Stats,
    sources: impl Iterator<Item = (Source<'a>, f32)>,
    n: usize,
) -> Vec<Scored> {
    let mut all: Vec<Scored> = Vec::new();
    let mut lists = 0;
    for (source, weight) in sources {
        let entries = read(stats, source, None);
        let df = entries.len();
        lists += usize::from(df > 0);
        all.extend(
            entries
                .into_iter()
                .map(|e| (e.slot, weight * bm25(stats, df, e.tf, e.len))),
        );
    }
    if n <= 1 || lists <= 1 {
        return all;
    }
    // Each document's best score. Scores are positive, so zero marks an absent slot; a
    // dense array costs a pass over the slots, a sort a logarithm per entry.
    if stats.slots <= all.len() * 4 {
        let mut best = vec![0f32; stats.slots];
        for &(slot, score) in &all {
            if let Some(b) = best.get_mut(slot as usize)
                && score > *b
            {
                *b = score;
            }
        }
        all.clear();
        all.extend(
            best.iter()
                .enumerate()
                .filter(|(_, s)| **s > 0.0)
                .map(|(slot, &s)| (slot as u32, s)),
        );
        return all;
    }
    all.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    all.dedup_by_key(|e| e.0);
    all
}

/// Documents where every part sits at its offset from the first.
///
/// With no removed document in the segment, a word's stored entry count is its exact
/// document frequency, so only the rarest part is read whole and the others only at its
/// documents (their positions elsewhere skipped). Otherwise, and for CJK parts or a
/// title-only search, every part is read whole and frequencies counted.
fn phrase(segment: &Segment, stats: &Stats, parts: &[(String, u32)]) -> Vec<Scored> {
    let exact = segment.dead() == 0 && !stats.title_only;
    let mut known: Vec<Option<usize>> = Vec::with_capacity(parts.len());
    for (term, _) in parts {
        if !exact || is_cjk_term(term) {
            known.push(None);
            continue;
        }
        let count = match segment.dict.frozen_get(term) {
            Some(entry) => segment.count(entry.id, Some(entry)),
            None => match segment.dict.get(term) {
                Some(id) => segment.count(id, None),
                None => return Vec::new(),
            },
        };
        known.push(Some(count as usize));
    }
    let whole: Vec<bool> = if known.iter().all(Option::is_some) {
        let rarest = (0..known.len()).min_by_key(|&i| known[i]).unwrap_or(0);
        (0..known.len()).map(|i| i == rarest).collect()
    } else {
        known.iter().map(Option::is_none).collect()
    };
    let mut positions = Vec::new();
    let mut lists: Vec<Vec<Entry>> = (0..parts.len()).map(|_| Vec::new()).collect();
    for (i, (term, _)) in parts.iter().enumerate() {
        if !whole[i] {
            continue;
        }
        let Some(source) = source(segment, term, stats.title_only) else {
            return Vec::new();
        };
        lists[i] = read(stats, source, Some(&mut positions));
        if lists[i].is_empty() {
            return Vec::new();
        }
    }
    // The documents every whole list holds, then the other parts read at those only.
    let shortest = (0..parts.len())
        .filter(|&i| whole[i])
        .min_by_key(|&i| lists[i].len())
        .unwrap_or(0);
    let mut candidates: Vec<u32> = lists[shortest].iter().map(|e| e.slot).collect();
    for (i, list) in lists.iter().enumerate() {
        if whole[i] && i != shortest {
            let mut from = 0;
            candidates.retain(|&slot| {
                from = gallop(list, from, slot, |e| e.slot);
                list.get(from).is_some_and(|e| e.slot == slot)
            });
        }
    }
    for (i, (term, _)) in parts.iter().enumerate() {
        if whole[i] {
            continue;
        }
        let Some(Source::List(mut list)) = source(segment, term, stats.title_only) else {
            return Vec::new();
        };
        let mut kept = Vec::with_capacity(candidates.len());
        for &slot in &candidates {
            let Some(at) = list.advance(slot) else {
                break;
            };
            if at != slot {
                continue;
            }
            let Some(hit) = list.read_pending() else {
                break;
            };
            let start = positions.len();
            positions.extend_from_slice(&list.positions);
            kept.push(Entry {
                slot,
                tf: TITLE_BOOST * hit.in_title as f32 + hit.in_body as f32,
                len: hit.len,
                start,
                end: positions.len(),
            });
        }
        let mut from = 0;
        candidates.retain(|&slot| {
            from = gallop(&kept, from, slot, |e| e.slot);
            kept.get(from).is_some_and(|e| e.slot == slot)
        });
        lists[i] = kept;
    }
    let mut out = Vec::new();
    let mut cursors = vec![0usize; lists.len()];
    let mut at = Vec::with_capacity(lists.len());
    'docs: for &slot in &candidates {
        at.clear();
        for (list, from) in lists.iter().zip(&mut cursors) {
            *from = gallop(list, *from, slot, |e| e.slot);
            match list.get(*from) {
                Some(e) if e.slot == slot => at.push(e),
                _ => continue 'docs,
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
                .zip(&known)
                .map(|((e, list), df)| bm25(stats, df.unwrap_or(list.len()), e.tf, e.len))
                .sum();
            out.push((slot, score));
        }
    }
    out
}
