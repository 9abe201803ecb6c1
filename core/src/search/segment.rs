//! One source's sub-index: the documents' records, the dictionary and the postings.
//!
//! Documents live in slots that only grow, so adding one appends an entry to each of its
//! terms' postings (no list is rewritten) and costs a few microseconds per term. Removing
//! one empties its slot (a tombstone): the postings still name it until
//! [`Segment::compact`], but every reader skips empty slots and the live counts (document
//! count, total length, and each term's document frequency, counted while reading) are
//! exact at once, so ranking is the same as in an index that never held the document.
//! Compaction drops the dead entries and terms, renumbers the slots in id order and the
//! terms in sorted order, and shrinks every buffer: the result depends only on the live
//! documents, whatever the order they came in (snapshots are written from it).

use super::dict::Dictionary;
use super::postings::Postings;
use super::token::tokenize;
use super::{
    DocError, Document, MAX_BODY_BYTES, MAX_DOCUMENTS, MAX_KEY_BYTES, MAX_TITLE_BYTES, cut,
};

/// A document's record (its text is not kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    /// The document's id.
    pub id: Box<str>,
    /// The position key (empty when it equals the id).
    pub position: Box<str>,
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

impl Doc {
    /// Positions are below this.
    pub fn end(&self) -> u32 {
        self.len + 1
    }
}

/// One source's index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Segment {
    /// Records by slot; `None` once removed (until compaction).
    pub docs: Vec<Option<Doc>>,
    /// The live slots in id order.
    pub by_id: Vec<u32>,
    /// Parent keys, interned.
    pub parents: Vec<Box<str>>,
    /// Parent indices in key order.
    pub parent_order: Vec<u32>,
    /// Term → term id.
    pub dict: Dictionary,
    /// Postings by term id.
    pub terms: Vec<Postings>,
    /// Live documents.
    pub live: u32,
    /// Sum of the live documents' lengths.
    pub total_len: u64,
}

impl Segment {
    /// The slot of the live document `id`.
    pub fn find(&self, id: &str) -> Result<usize, usize> {
        self.by_id
            .binary_search_by(|&slot| self.id_of(slot).cmp(id))
    }

    fn id_of(&self, slot: u32) -> &str {
        self.docs[slot as usize].as_ref().map_or("", |d| &d.id)
    }

    /// The parent key of a record.
    pub fn parent_of(&self, doc: &Doc) -> &str {
        self.parents.get(doc.parent as usize).map_or("", |p| p)
    }

    /// Dead slots not yet compacted away.
    pub fn dead(&self) -> usize {
        self.docs.len() - self.live as usize
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
        let exists = self.find(&document.id).is_ok();
        if (!exists && self.live as usize >= MAX_DOCUMENTS)
            || self.docs.len() >= u32::MAX as usize - 1
        {
            return Err(DocError::Full { max: MAX_DOCUMENTS });
        }
        let replaced = self.remove(&document.id);
        let (title, title_cut) = cut(&document.title, MAX_TITLE_BYTES);
        let (body, body_cut) = cut(&document.body, MAX_BODY_BYTES);
        let slot = self.docs.len() as u32;
        let mut tokens: Vec<(u32, u32)> = Vec::with_capacity(body.len() / 5 + 8);
        let mut each = |term: &str, pos: u32, this: &mut Self| {
            let id = match this.dict.get(term) {
                Some(id) => id,
                None => {
                    let id = this.terms.len() as u32;
                    this.dict.insert(term, id);
                    this.terms.push(Postings::default());
                    id
                }
            };
            tokens.push((id, pos));
        };
        let title_end = tokenize(title, 0, |t| each(t.term, t.pos, self));
        let mut body_tokens = 0;
        tokenize(body, title_end + 1, |t| {
            body_tokens += 1;
            each(t.term, t.pos, self);
        });
        tokens.sort_unstable();
        let mut positions = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let term = tokens[i].0;
            positions.clear();
            while i < tokens.len() && tokens[i].0 == term {
                positions.push(tokens[i].1);
                i += 1;
            }
            self.terms[term as usize].push(slot, &positions);
        }
        let parent = self.intern(&document.parent);
        let len = title_end + body_tokens;
        let position = if document.position == document.id {
            Box::default()
        } else {
            document.position.as_str().into()
        };
        self.docs.push(Some(Doc {
            id: document.id.as_str().into(),
            position,
            parent,
            timestamp: document.timestamp,
            title_end,
            len,
            partial: title_cut || body_cut,
        }));
        let at = self.find(&document.id).unwrap_or_else(|at| at);
        self.by_id.insert(at, slot);
        self.live += 1;
        self.total_len += u64::from(len);
        Ok((title_cut || body_cut, replaced))
    }

    fn intern(&mut self, parent: &str) -> u32 {
        let found = self
            .parent_order
            .binary_search_by(|&p| (*self.parents[p as usize]).cmp(parent));
        match found {
            Ok(at) => self.parent_order[at],
            Err(at) => {
                let index = self.parents.len() as u32;
                self.parents.push(parent.into());
                self.parent_order.insert(at, index);
                index
            }
        }
    }

    /// Removes the live document `id`; whether there was one.
    pub fn remove(&mut self, id: &str) -> bool {
        let Ok(at) = self.find(id) else {
            return false;
        };
        let slot = self.by_id.remove(at);
        if let Some(doc) = self.docs[slot as usize].take() {
            self.live -= 1;
            self.total_len -= u64::from(doc.len);
        }
        true
    }

    /// Whether the segment is already what [`Segment::compact`] would make of it (no
    /// removed documents, slots in id order, terms numbered in sorted order, buffers
    /// shrunk): a snapshot taken right after another then skips the work.
    pub fn is_compact(&self) -> bool {
        let identity = |ids: &[u32]| ids.iter().enumerate().all(|(i, &id)| i as u32 == id);
        self.dead() == 0
            && identity(&self.by_id)
            && identity(&self.parent_order)
            && self
                .dict
                .iter()
                .enumerate()
                .all(|(i, (_, id))| i as u32 == id)
            && self
                .terms
                .iter()
                .all(|p| p.bytes.len() == p.bytes.capacity())
    }

    /// Drops removed documents and unused terms and parents, renumbers slots in id order
    /// and terms in sorted order, and shrinks every buffer (see the module docs).
    pub fn compact(&mut self) {
        if self.is_compact() {
            return;
        }
        let mut new_slot = vec![u32::MAX; self.docs.len()];
        for (new, &old) in self.by_id.iter().enumerate() {
            new_slot[old as usize] = new as u32;
        }
        // Parents still used, in key order.
        let mut used = vec![false; self.parents.len()];
        for doc in self.docs.iter().flatten() {
            used[doc.parent as usize] = true;
        }
        let mut new_parent = vec![u32::MAX; self.parents.len()];
        let mut parents = Vec::new();
        for &p in &self.parent_order {
            if used[p as usize] {
                new_parent[p as usize] = parents.len() as u32;
                parents.push(self.parents[p as usize].clone());
            }
        }
        let mut docs = Vec::with_capacity(self.by_id.len());
        for &old in &self.by_id {
            if let Some(mut doc) = self.docs[old as usize].take() {
                doc.parent = new_parent[doc.parent as usize];
                docs.push(Some(doc));
            }
        }
        let mut kept: Vec<&str> = Vec::new();
        let mut terms = Vec::new();
        let mut entries: Vec<(u32, usize, usize)> = Vec::new();
        let mut all_positions: Vec<u32> = Vec::new();
        let mut positions = Vec::new();
        for (term, id) in self.dict.iter() {
            entries.clear();
            all_positions.clear();
            let mut cursor = self.terms[id as usize].cursor();
            while let Some(slot) = cursor.next_entry(&mut positions) {
                let new = new_slot[slot as usize];
                if new != u32::MAX {
                    let start = all_positions.len();
                    all_positions.extend_from_slice(&positions);
                    entries.push((new, start, all_positions.len()));
                }
            }
            if entries.is_empty() {
                continue;
            }
            entries.sort_unstable();
            let mut postings = Postings::default();
            for &(slot, start, end) in &entries {
                postings.push(slot, &all_positions[start..end]);
            }
            postings.bytes.shrink_to_fit();
            kept.push(term);
            terms.push(postings);
        }
        terms.shrink_to_fit();
        let dict = Dictionary::from_sorted(kept);
        self.by_id = (0..docs.len() as u32).collect();
        self.parent_order = (0..parents.len() as u32).collect();
        self.docs = docs;
        self.parents = parents;
        self.dict = dict;
        self.terms = terms;
    }

    /// An estimate of the heap bytes held, counting every buffer's capacity.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let docs = self.docs.capacity() * size_of::<Option<Doc>>()
            + self
                .docs
                .iter()
                .flatten()
                .map(|d| d.id.len() + d.position.len())
                .sum::<usize>();
        let parents = self.parents.capacity() * size_of::<Box<str>>()
            + self.parents.iter().map(|p| p.len()).sum::<usize>()
            + self.parent_order.capacity() * 4;
        let postings = self.terms.capacity() * size_of::<Postings>()
            + self.terms.iter().map(|p| p.bytes.capacity()).sum::<usize>();
        docs + parents + postings + self.by_id.capacity() * 4 + self.dict.heap_bytes()
    }
}
