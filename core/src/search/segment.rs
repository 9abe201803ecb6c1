//! One source's sub-index: the documents' records, the dictionary and the postings.
//!
//! Documents live in slots that only grow, so adding one appends an entry to each of its
//! terms' tails (no list is rewritten) and costs a few microseconds per term.
//! Removing one empties its slot (a tombstone): the postings still name it until
//! [`Segment::compact`], but every reader skips empty slots and the live counts (document
//! count, total lengths, each parent's documents, and each term's document frequency,
//! counted while reading) are exact at once, so ranking is the same as in an index that
//! never held the document.
//!
//! Records are kept in columns of [`Paged`] vectors and tails in chunks, so no append
//! ever copies more than a page. Compaction drops the dead slots, terms and parents, renumbers the slots in id order
//! and the terms in sorted order, freezes the ids, parents, dictionary and postings into
//! single buffers and shrinks everything: the result depends only on the live documents,
//! whatever the order they came in (snapshots are written from it).
//!
//! A parent's documents are a list through their slots (newest first), so removing a
//! whole parent walks only its own slots.
//!
//! Long because: adding, removing and compacting maintain the same columns, parent
//! chains and live counts, whose invariants are easiest to check in one place; the seam
//! to cut next is the keys and record readers (`Keys`, `DocCursor`, `Record`).

use std::collections::BTreeMap;

use super::dict::{Builder, Dictionary, FrozenTerm, partition};
use super::paged::{PAGE, PAGE_BITS, Paged};
use super::postings::{Frozen, ListWriter, Postings, Tail};
use super::token::{Token, TokenKind, tokenize};
use super::{
    DocError, Document, MAX_BODY_BYTES, MAX_DOCUMENTS, MAX_KEY_BYTES, MAX_TITLE_BYTES, cut,
};

/// No slot (the end of a parent's list), or a removed document's parent.
pub const NONE: u32 = u32::MAX;
/// Appended to a CJK character's term when the character is followed by another of its
/// run: the index keeps characters, and a pair is two of them at consecutive positions
/// (see `rank`). A folded token never contains it.
pub const CONTINUES: char = '\u{1}';
const PARTIAL: u16 = 1 << 15;

/// The term `token` is indexed under: a CJK pair becomes its first character marked
/// [`CONTINUES`]; every other token is its own term.
pub fn index_term<'a>(token: &Token<'a>, buf: &'a mut String) -> &'a str {
    if token.kind == TokenKind::Pair {
        let mut chars = token.term.chars();
        if let (Some(first), Some(_), None) = (chars.next(), chars.next(), chars.next()) {
            buf.clear();
            buf.push(first);
            buf.push(CONTINUES);
            return buf;
        }
    }
    token.term
}

/// Interned keys: those frozen at the last compaction (sorted, in one string), then
/// those added since (with a map back to their index).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keys {
    frozen: String,
    /// Where each frozen key starts, then the end (empty when none).
    starts: Vec<u32>,
    added: Paged<Box<str>>,
    /// Added keys still wanted (documents: the live ones) → index.
    index: BTreeMap<Box<str>, u32>,
}

impl Keys {
    /// Keys sorted and distinct, frozen.
    pub fn from_sorted<'a>(keys: impl IntoIterator<Item = &'a str>) -> Self {
        let mut frozen = String::new();
        let mut starts = Vec::new();
        for key in keys {
            starts.push(frozen.len() as u32);
            frozen.push_str(key);
        }
        if !starts.is_empty() {
            starts.push(frozen.len() as u32);
        }
        frozen.shrink_to_fit();
        starts.shrink_to_fit();
        Self {
            frozen,
            starts,
            ..Self::default()
        }
    }

    /// How many keys are frozen.
    pub fn frozen_len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// How many keys in all.
    pub fn len(&self) -> usize {
        self.frozen_len() + self.added.len()
    }

    /// Whether keys were added since the freeze.
    pub fn has_added(&self) -> bool {
        !self.added.is_empty()
    }

    /// The key at `i`.
    pub fn get(&self, i: u32) -> &str {
        let i = i as usize;
        let n = self.frozen_len();
        if i < n {
            let (a, b) = (self.starts[i] as usize, self.starts[i + 1] as usize);
            self.frozen.get(a..b).unwrap_or("")
        } else {
            self.added.get(i - n).map_or("", |k| k)
        }
    }

    /// The frozen index of `key`.
    pub fn find_frozen(&self, key: &str) -> Option<u32> {
        let n = self.frozen_len();
        let at = partition(n, |i| self.get(i as u32) < key);
        (at < n && self.get(at as u32) == key).then_some(at as u32)
    }

    /// The added index of `key`, if still wanted.
    pub fn find_added(&self, key: &str) -> Option<u32> {
        self.index.get(key).copied()
    }

    /// Adds `key`; its index.
    pub fn push(&mut self, key: &str) -> u32 {
        let i = self.len() as u32;
        self.added.push(key.into());
        self.index.insert(key.into(), i);
        i
    }

    /// Forgets that the added key at `i` is wanted.
    pub fn unindex(&mut self, i: u32) {
        let n = self.frozen_len();
        if let Some(key) = (i as usize).checked_sub(n).and_then(|j| self.added.get(j))
            && self.index.get(&**key) == Some(&i)
        {
            self.index.remove(&**key);
        }
    }

    /// The wanted added keys in key order, with their indexes.
    pub fn indexed(&self) -> impl Iterator<Item = (&str, u32)> {
        self.index.iter().map(|(k, &i)| (&**k, i))
    }

    /// The heap bytes held (B-tree nodes counted at two thirds full).
    pub fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<(Box<str>, u32)>();
        self.frozen.capacity()
            + self.starts.capacity() * 4
            + self.added.heap_bytes()
            + self.added.iter().map(|k| k.len()).sum::<usize>()
            + self.index.keys().map(|k| k.len()).sum::<usize>()
            + self.index.len() * (entry * 3 / 2 + 8)
    }
}

/// A slot's record as a reader of postings needs it, from [`DocCursor::at`].
#[derive(Debug, Clone, Copy)]
pub struct DocAt {
    /// Whether it holds a live document.
    pub live: bool,
    /// Where its title ends.
    pub title_end: u32,
    /// Its length (title and body tokens).
    pub len: u32,
}

/// Reads slots' records in increasing slot order, a page at a time (no paged lookup per
/// slot).
pub struct DocCursor<'a> {
    segment: &'a Segment,
    page: usize,
    lens: &'a [u32],
    parents: &'a [u32],
    meta: &'a [u16],
}

impl DocCursor<'_> {
    /// The record of `slot` (`None` past the last).
    #[inline]
    pub fn at(&mut self, slot: u32) -> Option<DocAt> {
        let page = (slot >> PAGE_BITS) as usize;
        if page != self.page {
            let s = self.segment;
            self.page = page;
            self.lens = s.lens.page(page);
            self.parents = s.doc_parent.page(page);
            self.meta = s.meta.page(page);
        }
        let i = slot as usize & (PAGE - 1);
        Some(DocAt {
            live: *self.parents.get(i)? != NONE,
            title_end: u32::from(self.meta.get(i)? & !PARTIAL),
            len: *self.lens.get(i)?,
        })
    }
}

/// A live document's record, as snapshots carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its position key (empty when it equals the id).
    pub position: &'a str,
    /// Index into the parents.
    pub parent: u32,
    /// Milliseconds since the epoch.
    pub timestamp: i64,
    /// Title tokens occupy positions `0..title_end`; the body starts at `title_end + 1`.
    pub title_end: u32,
    /// Title and body tokens together (the BM25 length).
    pub len: u32,
    /// The title or body was cut.
    pub partial: bool,
}

/// One source's index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Segment {
    /// Document ids by slot (frozen ones in id order; the live added ones indexed).
    ids: Keys,
    timestamps: Paged<i64>,
    /// Parent index by slot; [`NONE`] once removed.
    doc_parent: Paged<u32>,
    /// Title end, and [`PARTIAL`].
    meta: Paged<u16>,
    /// The next (older) slot of the same parent, or [`NONE`].
    next: Paged<u32>,
    /// Title and body tokens by slot (the BM25 length).
    lens: Paged<u32>,
    /// Position keys that differ from the id, by slot.
    positions: BTreeMap<u32, Box<str>>,
    /// Parent keys, interned.
    parents: Keys,
    /// Each parent's newest slot, or [`NONE`].
    heads: Paged<u32>,
    /// Each parent's live documents.
    counts: Paged<u32>,
    /// Term → term id, with the frozen lists' places.
    pub dict: Dictionary,
    /// The frozen lists, in term order.
    postings: Vec<u8>,
    /// The slots the frozen lists were written for.
    frozen_slots: u32,
    /// Entries appended to frozen terms since the freeze.
    tails: BTreeMap<u32, Tail>,
    /// Entries of the terms added since the freeze (by id minus the frozen count).
    new_tails: Paged<Tail>,
    /// Live documents.
    pub live: u32,
    /// Sum of the live documents' lengths.
    pub total_len: u64,
    /// Sum of the live documents' title lengths.
    pub total_title: u64,
}

impl Segment {
    /// Slots, removed ones included.
    pub fn slots(&self) -> usize {
        self.doc_parent.len()
    }

    /// Dead slots not yet compacted away.
    pub fn dead(&self) -> usize {
        self.slots() - self.live as usize
    }

    /// The live slot of the document `id`.
    pub fn find(&self, id: &str) -> Option<u32> {
        if let Some(slot) = self.ids.find_added(id) {
            return Some(slot);
        }
        let slot = self.ids.find_frozen(id)?;
        self.is_live(slot).then_some(slot)
    }

    /// Whether `slot` holds a live document.
    pub fn is_live(&self, slot: u32) -> bool {
        self.doc_parent
            .get(slot as usize)
            .is_some_and(|&p| p != NONE)
    }

    /// The parent index of a live slot.
    pub fn parent_index(&self, slot: u32) -> Option<u32> {
        self.doc_parent
            .get(slot as usize)
            .copied()
            .filter(|&p| p != NONE)
    }

    /// The number of parents (live or not).
    pub fn parent_count(&self) -> usize {
        self.parents.len()
    }

    /// The id of `slot`.
    pub fn id(&self, slot: u32) -> &str {
        self.ids.get(slot)
    }

    /// The timestamp of `slot`.
    pub fn timestamp(&self, slot: u32) -> i64 {
        self.timestamps.get(slot as usize).copied().unwrap_or(0)
    }

    /// A cursor over the slots' records.
    pub fn cursor(&self) -> DocCursor<'_> {
        DocCursor {
            segment: self,
            page: usize::MAX,
            lens: &[],
            parents: &[],
            meta: &[],
        }
    }

    /// The record of a live slot.
    pub fn record(&self, slot: u32) -> Option<Record<'_>> {
        let parent = self.parent_index(slot)?;
        let meta = self.meta[slot as usize];
        Some(Record {
            id: self.id(slot),
            position: self.positions.get(&slot).map_or("", |p| p),
            parent,
            timestamp: self.timestamp(slot),
            title_end: u32::from(meta & !PARTIAL),
            len: self.lens[slot as usize],
            partial: meta & PARTIAL != 0,
        })
    }

    /// The parent key at `index`.
    pub fn parent_key(&self, index: u32) -> &str {
        self.parents.get(index)
    }

    fn find_parent(&self, key: &str) -> Option<u32> {
        self.parents
            .find_frozen(key)
            .or_else(|| self.parents.find_added(key))
    }

    /// How many live documents `parent` has.
    pub fn parent_len(&self, parent: &str) -> usize {
        self.find_parent(parent)
            .and_then(|p| self.counts.get(p as usize))
            .map_or(0, |&n| n as usize)
    }

    /// The frozen list of a frozen term.
    fn frozen_list(&self, entry: FrozenTerm) -> Frozen<'_> {
        let bytes = usize::try_from(entry.start)
            .ok()
            .zip(usize::try_from(entry.len).ok())
            .and_then(|(s, n)| self.postings.get(s..s.checked_add(n)?))
            .unwrap_or(&[]);
        Frozen::new(bytes, entry.count, self.frozen_slots)
    }

    fn tail(&self, id: u32) -> Option<&Tail> {
        match (id as usize).checked_sub(self.dict.frozen_len()) {
            Some(i) => self.new_tails.get(i),
            None => self.tails.get(&id),
        }
    }

    /// The entries of the term `id`, with `entry` its frozen entry.
    pub fn postings_with(&self, id: u32, entry: Option<FrozenTerm>) -> Postings<'_> {
        Postings::new(
            entry.map(|e| self.frozen_list(e)),
            self.tail(id).map(Tail::reader),
        )
    }

    /// The entries of the term `id`.
    pub fn postings_of(&self, id: u32) -> Postings<'_> {
        self.postings_with(id, self.dict.frozen_entry(id))
    }

    /// The entries of `term`.
    pub fn term_postings(&self, term: &str) -> Option<Postings<'_>> {
        match self.dict.frozen_get(term) {
            Some(entry) => Some(self.postings_with(entry.id, Some(entry))),
            None => {
                let id = self.dict.get(term)?;
                Some(self.postings_with(id, None))
            }
        }
    }

    /// Entries written for the term `id` (removed documents' included until compaction),
    /// given its frozen entry.
    pub fn count(&self, id: u32, entry: Option<FrozenTerm>) -> u32 {
        entry
            .map_or(0, |e| e.count)
            .saturating_add(self.tail(id).map_or(0, |t| t.count))
    }

    fn tail_mut(&mut self, id: u32) -> &mut Tail {
        let frozen = self.dict.frozen_len() as u32;
        if id >= frozen {
            &mut self.new_tails[(id - frozen) as usize]
        } else {
            self.tails.entry(id).or_default()
        }
    }

    fn term_id(&mut self, term: &str) -> u32 {
        match self.dict.get(term) {
            Some(id) => id,
            None => {
                let id = self.dict.len() as u32;
                self.dict.insert(term, id);
                self.new_tails.push(Tail::default());
                id
            }
        }
    }

    /// Adds `document`, replacing a live one with the same id; returns whether it was
    /// cut (partial) and whether it replaced one.
    pub fn upsert(&mut self, document: &Document) -> Result<(bool, bool), DocError> {
        for (field, key) in [
            ("id", &document.id),
            ("parent", &document.parent),
            ("position", &document.position),
        ] {
            if key.len() > MAX_KEY_BYTES {
                return Err(DocError::KeyTooLong {
                    field,
                    max: MAX_KEY_BYTES,
                });
            }
        }
        if document.id.is_empty() {
            return Err(DocError::EmptyId);
        }
        let exists = self.find(&document.id).is_some();
        if (!exists && self.live as usize >= MAX_DOCUMENTS) || self.slots() >= NONE as usize - 1 {
            return Err(DocError::Full { max: MAX_DOCUMENTS });
        }
        let replaced = self.remove(&document.id);
        let (title, title_cut) = cut(&document.title, MAX_TITLE_BYTES);
        let (body, body_cut) = cut(&document.body, MAX_BODY_BYTES);
        let slot = self.slots() as u32;
        let mut tokens: Vec<(u32, u32)> = Vec::with_capacity(body.len() / 5 + 8);
        let mut buf = String::new();
        let mut each = |t: Token<'_>, this: &mut Self| {
            let id = this.term_id(index_term(&t, &mut buf));
            tokens.push((id, t.pos));
        };
        let title_end = tokenize(title, 0, |t| each(t, self)).min(u32::from(!PARTIAL));
        let mut body_tokens = 0;
        tokenize(body, title_end + 1, |t| {
            body_tokens += 1;
            each(t, self);
        });
        tokens.sort_unstable();
        let mut positions = Vec::new();
        let mut scratch = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let term = tokens[i].0;
            positions.clear();
            while i < tokens.len() && tokens[i].0 == term {
                positions.push(tokens[i].1);
                i += 1;
            }
            self.tail_mut(term)
                .push_with(&mut scratch, slot, &positions);
        }
        let parent = self.intern(&document.parent);
        let len = title_end + body_tokens;
        self.ids.push(&document.id);
        self.timestamps.push(document.timestamp);
        self.doc_parent.push(parent);
        let partial = title_cut || body_cut;
        self.meta
            .push(title_end as u16 | if partial { PARTIAL } else { 0 });
        self.next.push(self.heads[parent as usize]);
        self.heads[parent as usize] = slot;
        self.counts[parent as usize] += 1;
        self.lens.push(len);
        if document.position != document.id {
            self.positions
                .insert(slot, document.position.as_str().into());
        }
        self.live += 1;
        self.total_len += u64::from(len);
        self.total_title += u64::from(title_end);
        Ok((partial, replaced))
    }

    fn intern(&mut self, parent: &str) -> u32 {
        if let Some(p) = self.find_parent(parent) {
            return p;
        }
        self.heads.push(NONE);
        self.counts.push(0);
        self.parents.push(parent)
    }

    /// Removes the live document `id`; whether there was one.
    pub fn remove(&mut self, id: &str) -> bool {
        match self.find(id) {
            Some(slot) => self.remove_slot(slot),
            None => false,
        }
    }

    fn remove_slot(&mut self, slot: u32) -> bool {
        let Some(parent) = self.parent_index(slot) else {
            return false;
        };
        let (title_end, len) = match self.record(slot) {
            Some(r) => (r.title_end, r.len),
            None => (0, 0),
        };
        self.ids.unindex(slot);
        self.doc_parent[slot as usize] = NONE;
        self.counts[parent as usize] -= 1;
        self.positions.remove(&slot);
        self.live -= 1;
        self.total_len -= u64::from(len);
        self.total_title -= u64::from(title_end);
        true
    }

    /// Removes every live document of `parent`; how many.
    pub fn remove_parent(&mut self, parent: &str) -> usize {
        let Some(p) = self.find_parent(parent) else {
            return 0;
        };
        let mut removed = 0;
        let mut slot = self.heads[p as usize];
        while slot != NONE {
            let next = self.next[slot as usize];
            if self.parent_index(slot) == Some(p) && self.remove_slot(slot) {
                removed += 1;
            }
            slot = next;
        }
        self.heads[p as usize] = NONE;
        removed
    }

    /// Whether the segment is already what [`Segment::compact`] would make of it (no
    /// removed documents or unused parents, nothing added since the freeze): a snapshot
    /// taken right after another then skips the work.
    pub fn is_compact(&self) -> bool {
        self.dead() == 0
            && !self.ids.has_added()
            && !self.parents.has_added()
            && !self.dict.has_added()
            && self.tails.is_empty()
            && self.counts.iter().all(|&n| n > 0)
    }

    /// A frozen segment of `records` (live, in id order, parents below `parents.len()`)
    /// with no terms yet.
    pub fn frozen_docs<'a>(parents: Keys, records: &[Record<'a>]) -> Self {
        let n_parents = parents.len();
        let mut segment = Segment {
            ids: Keys::from_sorted(records.iter().map(|r| r.id)),
            parents,
            ..Segment::default()
        };
        let mut heads = vec![NONE; n_parents];
        let mut counts = vec![0u32; n_parents];
        let mut next = Vec::with_capacity(records.len());
        for (slot, r) in records.iter().enumerate() {
            let p = r.parent as usize;
            next.push(heads[p]);
            heads[p] = slot as u32;
            counts[p] += 1;
            segment.timestamps.push(r.timestamp);
            segment.doc_parent.push(r.parent);
            segment
                .meta
                .push(r.title_end as u16 | if r.partial { PARTIAL } else { 0 });
            segment.lens.push(r.len);
            if !r.position.is_empty() {
                segment.positions.insert(slot as u32, r.position.into());
            }
            segment.total_len += u64::from(r.len);
            segment.total_title += u64::from(r.title_end);
        }
        segment.live = records.len() as u32;
        segment.heads = heads.into_iter().collect();
        segment.counts = counts.into_iter().collect();
        segment.next = next.into_iter().collect();
        segment.timestamps.shrink_to_fit();
        segment.doc_parent.shrink_to_fit();
        segment.meta.shrink_to_fit();
        segment.lens.shrink_to_fit();
        segment.frozen_slots = records.len() as u32;
        segment
    }

    /// Sets the frozen dictionary and postings of a segment made by
    /// [`Segment::frozen_docs`].
    pub fn set_terms(&mut self, dict: Dictionary, postings: Vec<u8>) {
        self.dict = dict;
        self.postings = postings;
    }

    /// The frozen postings buffer.
    pub fn postings(&self) -> &[u8] {
        &self.postings
    }

    /// Drops removed documents and unused terms and parents, renumbers slots in id order
    /// and terms in sorted order, and freezes and shrinks every buffer (see the module
    /// docs).
    pub fn compact(&mut self) {
        if self.is_compact() {
            return;
        }
        // Live slots in id order: the frozen ones (already sorted) merged with the added.
        let frozen_ids = self.ids.frozen_len() as u32;
        let mut order: Vec<u32> = Vec::with_capacity(self.live as usize);
        let mut added = self.ids.indexed().peekable();
        for slot in (0..frozen_ids).filter(|&s| self.is_live(s)) {
            let id = self.ids.get(slot);
            while let Some((_, s)) = added.next_if(|(a, _)| *a < id) {
                order.push(s);
            }
            order.push(slot);
        }
        order.extend(added.map(|(_, s)| s));
        // Parents still used, in key order.
        let frozen_parents = self.parents.frozen_len() as u32;
        let mut parent_order: Vec<u32> = Vec::new();
        let mut added = self.parents.indexed().peekable();
        for p in 0..frozen_parents {
            let key = self.parents.get(p);
            while let Some((_, a)) = added.next_if(|(a, _)| *a < key) {
                parent_order.push(a);
            }
            parent_order.push(p);
        }
        parent_order.extend(added.map(|(_, a)| a));
        let mut new_parent = vec![NONE; self.parents.len()];
        let mut kept: Vec<&str> = Vec::new();
        for p in parent_order {
            if self.counts[p as usize] > 0 {
                new_parent[p as usize] = kept.len() as u32;
                kept.push(self.parents.get(p));
            }
        }
        let records: Vec<Record<'_>> = order
            .iter()
            .filter_map(|&s| self.record(s))
            .map(|r| Record {
                parent: new_parent[r.parent as usize],
                ..r
            })
            .collect();
        let mut fresh = Segment::frozen_docs(Keys::from_sorted(kept), &records);
        let mut new_slot = vec![NONE; self.slots()];
        for (new, &old) in order.iter().enumerate() {
            new_slot[old as usize] = new as u32;
        }
        // Terms: each list's live entries moved to their new slots, sorted again.
        let slots = fresh.slots() as u32;
        let mut builder = Builder::default();
        let mut postings = Vec::new();
        let mut entries: Vec<(u32, u32, usize, usize)> = Vec::new();
        let mut all_positions: Vec<u32> = Vec::new();
        let mut cursor = self.cursor();
        self.dict.for_each(|term, id, entry| {
            entries.clear();
            all_positions.clear();
            let mut list = self.postings_with(id, entry);
            while let Some((old, _)) = list.next() {
                let Some(doc) = cursor.at(old) else {
                    break;
                };
                if !list.open(doc.len) {
                    break;
                }
                let new = new_slot[old as usize];
                if new != NONE {
                    let start = all_positions.len();
                    list.positions(&mut all_positions);
                    // A list read from a damaged snapshot may end inside an entry.
                    if all_positions.len() > start {
                        entries.push((new, doc.len, start, all_positions.len()));
                    }
                }
            }
            if entries.is_empty() {
                return;
            }
            entries.sort_unstable();
            let start = postings.len();
            let count = entries.len().min(u32::MAX as usize) as u32;
            let mut writer = ListWriter::new(&mut postings, slots, count);
            for &(slot, len, a, b) in &entries[..count as usize] {
                writer.push(slot, len, &all_positions[a..b]);
            }
            writer.finish();
            builder.push(term, count, (postings.len() - start) as u64);
        });
        postings.shrink_to_fit();
        fresh.set_terms(builder.finish(), postings);
        *self = fresh;
    }

    /// An estimate of the heap bytes held, counting every buffer's capacity (B-tree nodes
    /// at two thirds full).
    pub fn heap_bytes(&self) -> usize {
        let node = |entry: usize| entry * 3 / 2 + 8;
        let positions = self.positions.len() * node(std::mem::size_of::<(u32, Box<str>)>())
            + self.positions.values().map(|p| p.len()).sum::<usize>();
        let tails = self.tails.len() * node(std::mem::size_of::<(u32, Tail)>())
            + self.tails.values().map(Tail::heap_bytes).sum::<usize>()
            + self.new_tails.heap_bytes()
            + self.new_tails.iter().map(Tail::heap_bytes).sum::<usize>();
        self.ids.heap_bytes()
            + self.timestamps.heap_bytes()
            + self.doc_parent.heap_bytes()
            + self.meta.heap_bytes()
            + self.next.heap_bytes()
            + self.lens.heap_bytes()
            + positions
            + self.parents.heap_bytes()
            + self.heads.heap_bytes()
            + self.counts.heap_bytes()
            + self.dict.heap_bytes()
            + self.postings.capacity()
            + tails
    }

    /// Bytes of encoded postings (frozen and appended).
    pub fn postings_bytes(&self) -> usize {
        self.postings.len()
            + self.tails.values().map(Tail::len).sum::<usize>()
            + self.new_tails.iter().map(Tail::len).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_finds_every_slot_and_its_record() {
        let mut segment = Segment::default();
        for i in 0..(PAGE + 300) {
            let words = "word ".repeat(i % 7);
            segment
                .upsert(&Document {
                    id: format!("d{i:05}"),
                    source: super::super::Source::Memory,
                    parent: format!("p{}", i % 3),
                    position: String::new(),
                    title: if i % 2 == 0 {
                        "t".into()
                    } else {
                        String::new()
                    },
                    body: words,
                    timestamp: 0,
                })
                .unwrap();
        }
        segment.remove("d00010");
        let mut cursor = segment.cursor();
        for slot in (0..segment.slots() as u32).chain(PAGE as u32 - 2..PAGE as u32 + 2) {
            let doc = cursor.at(slot).unwrap();
            assert_eq!(doc.live, segment.is_live(slot));
            let record = segment.record(slot);
            assert!(record.is_none_or(|r| (r.title_end, r.len) == (doc.title_end, doc.len)));
        }
        assert!(cursor.at(segment.slots() as u32).is_none());
    }
}
