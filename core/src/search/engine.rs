//! [`SearchIndex`]: the sub-indexes of every source, and ranked results.
//!
//! Results are the top `limit` by score, then by timestamp (newer first), then by id, so
//! the order is total and the same whatever order the documents were added in. Only the
//! best `limit` are kept while scanning the matches (a bounded heap), and only they are
//! turned into [`Hit`]s with their strings. Grouped, each parent counts once, with its best
//! hit and how many of its documents matched.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};

use serde::{Deserialize, Serialize};

use super::query::Query;
use super::rank::matches;
use super::segment::Segment;
use super::snapshot::{self, SnapshotError};
use super::{DocError, Document, Source};

/// The most results one search returns.
pub const MAX_LIMIT: usize = 200;

/// What to search and how many results to return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SearchOptions {
    /// How many results (1 to [`MAX_LIMIT`]; out-of-range values are clamped).
    pub limit: usize,
    /// Only these sources (empty: all).
    pub sources: Vec<Source>,
    /// Match and rank the title field only (a sidebar's title filter): body text never
    /// matches, and a title's length stands for the document's in BM25.
    pub title_only: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            limit: 20,
            sources: Vec::new(),
            title_only: false,
        }
    }
}

/// One matching document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// Its source.
    pub source: Source,
    /// Its id.
    pub id: String,
    /// Its parent key.
    pub parent: String,
    /// Its position key.
    pub position: String,
    /// Its timestamp.
    pub timestamp: i64,
    /// Its BM25 score (higher is better; comparable within one search only).
    pub score: f32,
    /// Its text was cut when indexed: a match past the cut is not found.
    pub partial: bool,
}

/// One parent with matching documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// The parent's best document.
    pub best: Hit,
    /// How many of its documents matched.
    pub matches: usize,
}

/// Ranked documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    /// How many documents matched in all.
    pub total: usize,
    /// The best of them, best first.
    pub hits: Vec<Hit>,
}

/// Ranked parents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupedResults {
    /// How many documents matched in all.
    pub total: usize,
    /// How many parents had a match.
    pub parents: usize,
    /// The best parents, best first.
    pub groups: Vec<Group>,
}

/// What an upsert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Upserted {
    /// The title or body was cut at its limit.
    pub partial: bool,
    /// A document with the same id was replaced.
    pub replaced: bool,
}

/// Sizes of one source's sub-index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexStats {
    /// Live documents.
    pub documents: usize,
    /// Removed documents not yet compacted away.
    pub removed: usize,
    /// Distinct terms.
    pub terms: usize,
    /// Bytes of encoded postings.
    pub postings_bytes: usize,
    /// The estimate of [`SearchIndex::heap_bytes`] for this source.
    pub heap_bytes: usize,
}

/// The search index of every source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchIndex {
    segments: BTreeMap<Source, Segment>,
}

/// A candidate while ranking; `Ord` puts the worst first in a max-heap's view.
struct Candidate<'a> {
    score: f32,
    timestamp: i64,
    id: &'a str,
    source: Source,
    slot: u32,
    /// Documents of the candidate's parent that matched (grouped searches).
    matches: usize,
}

impl Candidate<'_> {
    /// `Less` when `self` ranks before `other`.
    fn rank(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(other.timestamp.cmp(&self.timestamp))
            .then(self.id.cmp(other.id))
            .then(self.source.cmp(&other.source))
    }
}

impl PartialEq for Candidate<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.rank(other) == Ordering::Equal
    }
}
impl Eq for Candidate<'_> {}
impl PartialOrd for Candidate<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank(other)
    }
}

/// Keeps the best `limit` candidates.
struct TopK<'a> {
    limit: usize,
    heap: BinaryHeap<Candidate<'a>>,
}

impl<'a> TopK<'a> {
    fn push(&mut self, candidate: Candidate<'a>) {
        if self.heap.len() < self.limit {
            self.heap.push(candidate);
        } else if let Some(worst) = self.heap.peek()
            && candidate.rank(worst) == Ordering::Less
        {
            self.heap.pop();
            self.heap.push(candidate);
        }
    }

    fn into_sorted(self) -> Vec<Candidate<'a>> {
        self.heap.into_sorted_vec()
    }
}

impl SearchIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `document` to its source, replacing the one with the same id.
    pub fn upsert(&mut self, document: &Document) -> Result<Upserted, DocError> {
        let (partial, replaced) = self
            .segments
            .entry(document.source)
            .or_default()
            .upsert(document)?;
        Ok(Upserted { partial, replaced })
    }

    /// Removes the document `id` of `source`; whether there was one.
    pub fn remove(&mut self, source: Source, id: &str) -> bool {
        self.segments
            .get_mut(&source)
            .is_some_and(|segment| segment.remove(id))
    }

    /// Removes every document of `parent` (a conversation) in `source`; how many there
    /// were. Walks only that parent's documents.
    pub fn remove_parent(&mut self, source: Source, parent: &str) -> usize {
        self.segments
            .get_mut(&source)
            .map_or(0, |segment| segment.remove_parent(parent))
    }

    /// How many documents of `source` belong to `parent`.
    pub fn parent_len(&self, source: Source, parent: &str) -> usize {
        self.segments
            .get(&source)
            .map_or(0, |segment| segment.parent_len(parent))
    }

    /// Forgets every document of `source` (before rebuilding it).
    pub fn clear(&mut self, source: Source) {
        self.segments.remove(&source);
    }

    /// Whether the document `id` of `source` is indexed.
    pub fn contains(&self, source: Source, id: &str) -> bool {
        self.segments
            .get(&source)
            .is_some_and(|segment| segment.find(id).is_some())
    }

    /// How many documents `source` holds.
    pub fn len(&self, source: Source) -> usize {
        self.segments.get(&source).map_or(0, |s| s.live as usize)
    }

    /// Whether no source holds a document.
    pub fn is_empty(&self) -> bool {
        self.segments.values().all(|s| s.live == 0)
    }

    /// Whether `source` holds enough removed documents (a quarter of its slots, and at
    /// least 256) that [`SearchIndex::compact`] is worth running when idle.
    pub fn needs_compaction(&self, source: Source) -> bool {
        self.segments
            .get(&source)
            .is_some_and(|s| s.dead() >= 256 && s.dead() * 4 >= s.slots())
    }

    /// Drops `source`'s removed documents for good and shrinks its buffers. Results do
    /// not change; memory does. Linear in the source's size: run it when idle.
    pub fn compact(&mut self, source: Source) {
        if let Some(segment) = self.segments.get_mut(&source) {
            segment.compact();
            if segment.live == 0 {
                self.segments.remove(&source);
            }
        }
    }

    /// An estimate of the heap bytes the index holds (every buffer's capacity; B-tree
    /// nodes counted at two thirds full).
    pub fn heap_bytes(&self) -> usize {
        self.segments.values().map(Segment::heap_bytes).sum()
    }

    /// Sizes of `source`'s sub-index.
    pub fn stats(&self, source: Source) -> IndexStats {
        self.segments
            .get(&source)
            .map_or_else(IndexStats::default, |s| IndexStats {
                documents: s.live as usize,
                removed: s.dead(),
                terms: s.dict.len(),
                postings_bytes: s.postings_bytes(),
                heap_bytes: s.heap_bytes(),
            })
    }

    /// `source`'s snapshot, to persist and [`SearchIndex::restore`] later. Compacts the
    /// source first, so the bytes depend only on its documents.
    pub fn snapshot(&mut self, source: Source) -> Vec<u8> {
        self.compact(source);
        match self.segments.get(&source) {
            Some(segment) => snapshot::encode(source, segment),
            None => snapshot::encode(source, &Segment::default()),
        }
    }

    /// Replaces a source's sub-index with the one in `bytes`; returns which source. On
    /// an error the index is unchanged (rebuild that source from its documents).
    pub fn restore(&mut self, bytes: &[u8]) -> Result<Source, SnapshotError> {
        let (source, segment) = snapshot::decode(bytes)?;
        if segment.live == 0 {
            self.segments.remove(&source);
        } else {
            self.segments.insert(source, segment);
        }
        Ok(source)
    }

    fn searched<'a>(
        &'a self,
        options: &'a SearchOptions,
    ) -> impl Iterator<Item = (Source, &'a Segment)> + 'a {
        self.segments
            .iter()
            .filter(|(source, _)| options.sources.is_empty() || options.sources.contains(source))
            .map(|(source, segment)| (*source, segment))
    }

    /// The best documents for `query`.
    pub fn search(&self, query: &Query, options: &SearchOptions) -> SearchResults {
        let mut top = TopK {
            limit: options.limit.clamp(1, MAX_LIMIT),
            heap: BinaryHeap::new(),
        };
        let mut total = 0;
        let mut segments = BTreeMap::new();
        for (source, segment) in self.searched(options) {
            segments.insert(source, segment);
            for (slot, score) in matches(segment, query, options.title_only) {
                if !segment.is_live(slot) {
                    continue;
                }
                total += 1;
                top.push(Candidate {
                    score,
                    timestamp: segment.timestamp(slot),
                    id: segment.id(slot),
                    source,
                    slot,
                    matches: 1,
                });
            }
        }
        let hits = top
            .into_sorted()
            .into_iter()
            .filter_map(|c| hit(segments.get(&c.source)?, c.source, c.slot, c.score))
            .collect();
        SearchResults { total, hits }
    }

    /// The best parents for `query`: each parent once, ranked by its best document.
    pub fn search_grouped(&self, query: &Query, options: &SearchOptions) -> GroupedResults {
        let mut top = TopK {
            limit: options.limit.clamp(1, MAX_LIMIT),
            heap: BinaryHeap::new(),
        };
        let mut total = 0;
        let mut parents = 0;
        let mut segments = BTreeMap::new();
        for (source, segment) in self.searched(options) {
            segments.insert(source, segment);
            // Each parent's group, found by the parent's index (no hashing per match).
            let mut group_of = vec![u32::MAX; segment.parent_count()];
            let mut groups: Vec<Candidate<'_>> = Vec::new();
            for (slot, score) in matches(segment, query, options.title_only) {
                let Some(parent) = segment.parent_index(slot) else {
                    continue;
                };
                let Some(index) = group_of.get_mut(parent as usize) else {
                    continue;
                };
                total += 1;
                let candidate = Candidate {
                    score,
                    timestamp: segment.timestamp(slot),
                    id: segment.id(slot),
                    source,
                    slot,
                    matches: 1,
                };
                if *index == u32::MAX {
                    *index = groups.len() as u32;
                    groups.push(candidate);
                    continue;
                }
                let held = &mut groups[*index as usize];
                let matches = held.matches + 1;
                if candidate.rank(held) == Ordering::Less {
                    *held = candidate;
                }
                held.matches = matches;
            }
            parents += groups.len();
            for candidate in groups {
                top.push(candidate);
            }
        }
        let groups = top
            .into_sorted()
            .into_iter()
            .filter_map(|c| {
                Some(Group {
                    best: hit(segments.get(&c.source)?, c.source, c.slot, c.score)?,
                    matches: c.matches,
                })
            })
            .collect();
        GroupedResults {
            total,
            parents,
            groups,
        }
    }
}

fn hit(segment: &Segment, source: Source, slot: u32, score: f32) -> Option<Hit> {
    let doc = segment.record(slot)?;
    Some(Hit {
        source,
        id: doc.id.to_string(),
        parent: segment.parent_key(doc.parent).to_string(),
        position: if doc.position.is_empty() {
            doc.id.to_string()
        } else {
            doc.position.to_string()
        },
        timestamp: doc.timestamp,
        score,
        partial: doc.partial,
    })
}
