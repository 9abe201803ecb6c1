//! Matching a query against one sub-index, with BM25 scores.
//!
//! Each clause of the query becomes a list of `(slot, score)` sorted by slot: a word is
//! the union of its terms (itself, the terms its prefix starts, its one-edit neighbours),
//! scoring each document by its best term, weighted (exact 1, prefix [`PREFIX_WEIGHT`],
//! typo [`FUZZY_WEIGHT`]); a phrase is the documents where its terms sit at the right
//! offsets, scored as the sum of its terms. Clauses are intersected (AND) from the
//! shortest list and their scores added.
//!
//! BM25 (k1 = 1.2, b = 0.75) with the title counted [`TITLE_BOOST`] times: a term's
//! frequency is `TITLE_BOOST × tf(title) + tf(body)`. Document frequencies are counted
//! while reading the postings, over live documents only, so a removed document never
//! shifts a score.

use super::postings::Postings;
use super::query::{Clause, Query};
use super::segment::Segment;

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
}

/// The documents of `segment` matching every clause of `query`, sorted by slot.
pub fn matches(segment: &Segment, query: &Query) -> Vec<Scored> {
    if segment.live == 0 {
        return Vec::new();
    }
    let stats = Stats {
        live: segment.live as f32,
        avg_len: (segment.total_len as f32 / segment.live as f32).max(1.0),
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
    let df = |id: u32| segment.terms[id as usize].df;
    match clause {
        Clause::Term {
            term,
            prefix,
            fuzzy,
        } => {
            let mut expanded: Vec<(u32, f32)> = Vec::new();
            let exact = segment.dict.get(term);
            if let Some(id) = exact {
                expanded.push((id, 1.0));
            }
            if *prefix {
                for id in segment.dict.prefixed(term, df) {
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
            union(segment, stats, &expanded)
        }
        Clause::CharPrefix(c) => {
            let expanded: Vec<(u32, f32)> = segment
                .dict
                .prefixed(c, df)
                .into_iter()
                .map(|id| (id, 1.0))
                .collect();
            union(segment, stats, &expanded)
        }
        Clause::Phrase(parts) => phrase(segment, stats, parts),
    }
}

/// Every live entry of `postings` as `(slot, boosted tf, length)` with its positions'
/// range in `positions` (when asked for), and the live document frequency.
fn read(
    segment: &Segment,
    postings: &Postings,
    mut keep_positions: Option<&mut Vec<u32>>,
) -> Vec<(u32, f32, u32, usize, usize)> {
    let mut out = Vec::with_capacity(postings.df as usize);
    let mut cursor = postings.cursor();
    let mut positions = Vec::new();
    while let Some(slot) = cursor.next_entry(&mut positions) {
        let Some(Some(doc)) = segment.docs.get(slot as usize) else {
            continue;
        };
        let in_title = positions.iter().take_while(|&&p| p < doc.title_end).count();
        let tf = TITLE_BOOST * in_title as f32 + (positions.len() - in_title) as f32;
        let (start, end) = match keep_positions.as_deref_mut() {
            Some(all) => {
                let start = all.len();
                all.extend_from_slice(&positions);
                (start, all.len())
            }
            None => (0, 0),
        };
        out.push((slot, tf, doc.len, start, end));
    }
    out
}

fn bm25(stats: &Stats, df: usize, tf: f32, len: u32) -> f32 {
    let df = df as f32;
    let idf = (1.0 + (stats.live - df + 0.5) / (df + 0.5)).ln();
    let norm = K1 * (1.0 - B + B * len as f32 / stats.avg_len);
    idf * tf * (K1 + 1.0) / (tf + norm)
}

/// Documents containing any of `terms`, each scored by its best weighted term.
fn union(segment: &Segment, stats: &Stats, terms: &[(u32, f32)]) -> Vec<Scored> {
    let mut all: Vec<Scored> = Vec::new();
    for &(id, weight) in terms {
        let entries = read(segment, &segment.terms[id as usize], None);
        let df = entries.len();
        all.extend(
            entries
                .into_iter()
                .map(|(slot, tf, len, _, _)| (slot, weight * bm25(stats, df, tf, len))),
        );
    }
    if terms.len() > 1 {
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
        let Some(id) = segment.dict.get(term) else {
            return Vec::new();
        };
        lists.push(read(
            segment,
            &segment.terms[id as usize],
            Some(&mut positions),
        ));
    }
    let rarest = (0..lists.len())
        .min_by_key(|&i| lists[i].len())
        .unwrap_or(0);
    let mut out = Vec::new();
    'docs: for entry in &lists[rarest] {
        let slot = entry.0;
        let mut at = Vec::with_capacity(lists.len());
        for list in &lists {
            match list.binary_search_by_key(&slot, |e| e.0) {
                Ok(i) => at.push(&list[i]),
                Err(_) => continue 'docs,
            }
        }
        let first = &positions[at[0].3..at[0].4];
        let found = first.iter().any(|&p| {
            at.iter()
                .zip(parts)
                .skip(1)
                .all(|(e, (_, offset))| positions[e.3..e.4].binary_search(&(p + offset)).is_ok())
        });
        if found {
            let score = at
                .iter()
                .zip(&lists)
                .map(|(e, list)| bm25(stats, list.len(), e.1, e.2))
                .sum();
            out.push((slot, score));
        }
    }
    out
}
