//! Storage that grows without ever copying a large buffer: a vector in fixed pages, and
//! a byte list in chunks.
//!
//! A `Vec` doubles when full and copies everything it holds, so with a hundred thousand
//! records one append in a few thousand copies megabytes (a millisecond or more). A
//! [`Paged`] vector keeps its elements in pages of [`PAGE`] elements: the first page
//! grows like a `Vec` up to that size, then each new page is allocated once at full size.
//! The most an append copies is one page, plus the list of pages (a pointer per page).

use std::fmt;

/// Elements per page (a power of two).
pub const PAGE: usize = 1 << PAGE_BITS;
/// `log2(PAGE)`.
pub const PAGE_BITS: u32 = 12;

/// A vector in pages of [`PAGE`] elements.
#[derive(Clone, PartialEq, Eq)]
pub struct Paged<T> {
    pages: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Paged<T> {
    fn default() -> Self {
        Self {
            pages: Vec::new(),
            len: 0,
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Paged<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T> Paged<T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element at `i`.
    pub fn get(&self, i: usize) -> Option<&T> {
        self.pages.get(i >> PAGE_BITS)?.get(i & (PAGE - 1))
    }

    /// The elements of page `p` (empty past the last).
    pub fn page(&self, p: usize) -> &[T] {
        self.pages.get(p).map_or(&[], Vec::as_slice)
    }

    /// Appends `value`; copies at most one page.
    pub fn push(&mut self, value: T) {
        match self.pages.last_mut() {
            Some(page) if page.len() < PAGE => {
                if page.len() == page.capacity() {
                    let wanted = (page.len() * 2).clamp(4, PAGE);
                    page.reserve_exact(wanted - page.len());
                }
                page.push(value);
            }
            _ => {
                let mut page = Vec::with_capacity(if self.pages.is_empty() { 4 } else { PAGE });
                page.push(value);
                self.pages.push(page);
            }
        }
        self.len += 1;
    }

    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.pages.iter().flatten()
    }

    /// Frees the unused capacity.
    pub fn shrink_to_fit(&mut self) {
        if let Some(page) = self.pages.last_mut() {
            page.shrink_to_fit();
        }
        self.pages.shrink_to_fit();
    }

    /// The heap bytes held (capacities).
    pub fn heap_bytes(&self) -> usize {
        self.pages.capacity() * std::mem::size_of::<Vec<T>>()
            + self
                .pages
                .iter()
                .map(|p| p.capacity() * std::mem::size_of::<T>())
                .sum::<usize>()
    }
}

impl<T> FromIterator<T> for Paged<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut out = Self::default();
        let mut iter = iter.into_iter();
        loop {
            let page: Vec<T> = iter.by_ref().take(PAGE).collect();
            if page.is_empty() {
                break;
            }
            out.len += page.len();
            out.pages.push(page);
        }
        out.shrink_to_fit();
        out
    }
}

impl<T> std::ops::Index<usize> for Paged<T> {
    type Output = T;

    fn index(&self, i: usize) -> &T {
        &self.pages[i >> PAGE_BITS][i & (PAGE - 1)]
    }
}

impl<T> std::ops::IndexMut<usize> for Paged<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.pages[i >> PAGE_BITS][i & (PAGE - 1)]
    }
}

/// Bytes per chunk of a [`Chunked`] list.
pub const CHUNK: usize = 4096;

/// A byte list in chunks of at most [`CHUNK`] bytes, each a whole number of the writer's
/// records (a record never spans two chunks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunked {
    chunks: Vec<Vec<u8>>,
}

impl Chunked {
    /// Appends `record` (at most [`CHUNK`] bytes) whole to one chunk.
    pub fn push(&mut self, record: &[u8]) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() + record.len() <= CHUNK => {
                if chunk.len() + record.len() > chunk.capacity() {
                    let wanted = (chunk.capacity() * 2).clamp(chunk.len() + record.len(), CHUNK);
                    chunk.reserve_exact(wanted - chunk.len());
                }
                chunk.extend_from_slice(record);
            }
            _ => {
                let capacity = if self.chunks.is_empty() {
                    record.len().max(8)
                } else {
                    CHUNK
                };
                let mut chunk = Vec::with_capacity(capacity);
                chunk.extend_from_slice(record);
                self.chunks.push(chunk);
            }
        }
    }

    /// The chunks in order.
    pub fn chunks(&self) -> &[Vec<u8>] {
        &self.chunks
    }

    /// Bytes written.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// The heap bytes held (capacities).
    pub fn heap_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<Vec<u8>>()
            + self.chunks.iter().map(Vec::capacity).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_fill_in_order_and_never_exceed_a_page() {
        let mut p = Paged::default();
        for i in 0..(PAGE * 2 + 5) {
            p.push(i);
        }
        assert_eq!(p.len(), PAGE * 2 + 5);
        assert_eq!(p[PAGE + 3], PAGE + 3);
        assert_eq!(p.get(PAGE * 3), None);
        assert!(p.iter().copied().eq(0..PAGE * 2 + 5));
        assert!(p.pages.iter().all(|page| page.capacity() <= PAGE));
        let q: Paged<usize> = (0..PAGE * 2 + 5).collect();
        assert_eq!(p, q);
        let mut c = Chunked::default();
        for i in 0..3000u32 {
            c.push(&i.to_le_bytes()[..3]);
        }
        assert_eq!(c.len(), 9000);
        assert!(
            c.chunks()
                .iter()
                .all(|k| k.len() <= CHUNK && k.len() % 3 == 0)
        );
    }
}
