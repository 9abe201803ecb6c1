//! The worker's index of conversations: each one replaced whole when it changes,
//! forgotten, searched (one result per conversation), saved and restored.

use hearth_core::search::conversation::{ConversationText, MessageText, documents};
use hearth_core::search::{Query, QueryError, SearchIndex, SearchOptions, Source};

use crate::file;

/// What indexing a conversation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Indexed {
    /// Documents it now has in the index.
    pub documents: usize,
    /// One of them was cut at a limit (a match past the cut is not found).
    pub partial: bool,
}

/// One conversation found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The conversation's id.
    pub conversation: String,
    /// Its best document's position: a message id, or the conversation's id for the title.
    pub message: String,
    /// The best document is the title.
    pub title: bool,
    /// The best document was cut when indexed.
    pub partial: bool,
    /// The best document's timestamp (ms since the epoch).
    pub timestamp: i64,
    /// How many of the conversation's documents matched.
    pub matches: usize,
    /// The best document's score (comparable within one search only).
    pub score: f32,
}

/// The conversations found by one search.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    /// Documents that matched in all.
    pub total: usize,
    /// Conversations that had a match.
    pub parents: usize,
    /// The best conversations, best first.
    pub groups: Vec<Found>,
}

/// The code a refused query is answered with.
pub fn query_error(error: &QueryError) -> &'static str {
    match error {
        QueryError::Empty => "empty",
        QueryError::TooLong { .. } => "tooLong",
        QueryError::TooManyParts { .. } => "tooManyParts",
    }
}

/// The index of conversations.
#[derive(Debug, Default)]
pub struct Index {
    index: SearchIndex,
}

impl Index {
    /// Replaces every document of `conversation` with those of its current state.
    pub fn replace(
        &mut self,
        conversation: &ConversationText,
        messages: &[MessageText],
    ) -> Indexed {
        let mut indexed = Indexed {
            documents: 0,
            partial: false,
        };
        if conversation.id.is_empty() {
            return indexed;
        }
        self.index
            .remove_parent(Source::Conversations, &conversation.id);
        for document in documents(conversation, messages) {
            // A key past its limit is refused; the rest of the conversation still counts.
            if let Ok(upserted) = self.index.upsert(&document) {
                indexed.documents += 1;
                indexed.partial |= upserted.partial;
            }
        }
        indexed
    }

    /// Removes every document of conversation `id`; how many there were.
    pub fn forget(&mut self, id: &str) -> usize {
        if id.is_empty() {
            return 0;
        }
        self.index.remove_parent(Source::Conversations, id)
    }

    /// Forgets every conversation.
    pub fn clear(&mut self) {
        self.index.clear(Source::Conversations);
    }

    /// The best `limit` conversations for `query` (only their titles: `title_only`).
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        title_only: bool,
    ) -> Result<Results, QueryError> {
        let query = Query::parse(query)?;
        let options = SearchOptions {
            limit,
            sources: vec![Source::Conversations],
            title_only,
        };
        let results = self.index.search_grouped(&query, &options);
        Ok(Results {
            total: results.total,
            parents: results.parents,
            groups: results
                .groups
                .into_iter()
                .map(|group| Found {
                    title: group.best.position == group.best.parent,
                    conversation: group.best.parent,
                    message: group.best.position,
                    partial: group.best.partial,
                    timestamp: group.best.timestamp,
                    matches: group.matches,
                    score: group.best.score,
                })
                .collect(),
        })
    }

    /// Documents held.
    pub fn documents(&self) -> usize {
        self.index.len(Source::Conversations)
    }

    /// An estimate of the heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.index.heap_bytes()
    }

    /// Compacts the index: the dictionary sorted and frozen, the postings packed, removed
    /// documents dropped (after a build: a quarter of the memory, and a query's prefix and
    /// typo expansion no longer scan every term added since the last compaction).
    pub fn compact(&mut self) {
        self.index.compact(Source::Conversations);
    }

    /// The snapshot to save (compacts first).
    pub fn snapshot(&mut self) -> Vec<u8> {
        self.index.snapshot(Source::Conversations)
    }

    /// The index a saved file holds, and the file's `covers`; a file that is not a
    /// snapshot of conversations is refused with its code.
    pub fn restore(bytes: &[u8]) -> Result<(Self, u64), &'static str> {
        let (covers, snapshot) = file::decode(bytes)?;
        let mut index = SearchIndex::new();
        match index.restore(snapshot) {
            Ok(Source::Conversations) => Ok((Self { index }, covers)),
            Ok(_) => Err("corrupt"),
            Err(error) => Err(file::snapshot_error(&error)),
        }
    }
}

#[cfg(test)]
mod tests {
    use hearth_core::chat::Role;

    use super::*;

    fn conversation(id: &str, title: &str) -> ConversationText {
        ConversationText {
            id: id.into(),
            title: title.into(),
            active_root_id: None,
            updated_at: 1_000.0,
        }
    }

    fn message(id: &str, parent: Option<&str>, content: &str, at: f64) -> MessageText {
        MessageText {
            id: id.into(),
            parent_id: parent.map(str::to_string),
            active_child_id: None,
            role: Some(Role::User),
            content: content.into(),
            created_at: at,
            updated_at: 0.0,
        }
    }

    fn sample() -> Index {
        let mut index = Index::default();
        let first = index.replace(
            &conversation("c1", "Borrow checker"),
            &[
                message("m1", None, "why does the borrow checker complain", 1.0),
                message("m2", Some("m1"), "because of lifetimes", 2.0),
            ],
        );
        assert_eq!(
            first,
            Indexed {
                documents: 3,
                partial: false
            }
        );
        index.replace(
            &conversation("c2", "Cooking"),
            &[message("m3", None, "a recipe for bread", 3.0)],
        );
        index
    }

    fn found(index: &Index, query: &str) -> Vec<(String, String, bool)> {
        index
            .search(query, 20, false)
            .unwrap()
            .groups
            .into_iter()
            .map(|f| (f.conversation, f.message, f.title))
            .collect()
    }

    fn pair(conversation: &str, message: &str, title: bool) -> (String, String, bool) {
        (conversation.into(), message.into(), title)
    }

    #[test]
    fn results_are_one_per_conversation() {
        let index = sample();
        assert_eq!(index.documents(), 5);
        let results = index.search("borrow", 20, false).unwrap();
        assert_eq!((results.total, results.parents), (2, 1));
        assert_eq!(results.groups.len(), 1);
        let best = &results.groups[0];
        // The title ranks first and is reported as the title.
        assert_eq!(
            (
                best.conversation.as_str(),
                best.message.as_str(),
                best.title
            ),
            ("c1", "c1", true)
        );
        assert_eq!(best.matches, 2);
        assert_eq!(best.timestamp, 1_000);
        assert!(best.score > 0.0);
        assert_eq!(found(&index, "lifetimes"), [pair("c1", "m2", false)]);
        assert_eq!(found(&index, "bread"), [pair("c2", "m3", false)]);
    }

    #[test]
    fn title_only_searches_skip_messages() {
        let index = sample();
        let titles = index.search("borrow", 20, true).unwrap();
        assert_eq!(titles.groups.len(), 1);
        assert!(titles.groups[0].title);
        assert!(
            index
                .search("lifetimes", 20, true)
                .unwrap()
                .groups
                .is_empty()
        );
    }

    #[test]
    fn a_conversation_is_replaced_whole() {
        let mut index = sample();
        // The reply was regenerated: the old one is on an inactive branch now.
        let mut q = message("m1", None, "why does the borrow checker complain", 1.0);
        q.active_child_id = Some("m4".into());
        let indexed = index.replace(
            &conversation("c1", "Renamed"),
            &[
                q,
                message("m2", Some("m1"), "because of lifetimes", 2.0),
                message("m4", Some("m1"), "ownership rules", 4.0),
            ],
        );
        assert_eq!(indexed.documents, 3);
        // c2's title and message, and c1's three.
        assert_eq!(index.documents(), 5);
        assert!(found(&index, "lifetimes").is_empty());
        assert_eq!(found(&index, "ownership"), [pair("c1", "m4", false)]);
        assert_eq!(found(&index, "renamed"), [pair("c1", "c1", true)]);
        assert!(index.search("borrow", 20, true).unwrap().groups.is_empty());
    }

    #[test]
    fn forget_and_clear() {
        let mut index = sample();
        assert_eq!(index.forget("c1"), 3);
        assert_eq!(index.forget("c1"), 0);
        assert_eq!(index.forget(""), 0);
        // c2's title and message.
        assert_eq!(index.documents(), 2);
        assert!(found(&index, "borrow").is_empty());
        index.clear();
        assert_eq!(index.documents(), 0);
        assert!(found(&index, "bread").is_empty());
        // A conversation without an id is not indexed.
        assert_eq!(
            index.replace(&conversation("", "Title"), &[]),
            Indexed {
                documents: 0,
                partial: false
            }
        );
    }

    #[test]
    fn long_texts_are_partial() {
        let mut index = Index::default();
        let long = "word ".repeat(20_000);
        let indexed = index.replace(&conversation("c", ""), &[message("m", None, &long, 1.0)]);
        assert_eq!(
            indexed,
            Indexed {
                documents: 1,
                partial: true
            }
        );
        assert!(index.search("word", 5, false).unwrap().groups[0].partial);
    }

    #[test]
    fn refused_queries_have_codes() {
        let index = sample();
        let error = index.search("  ", 20, false).unwrap_err();
        assert_eq!(query_error(&error), "empty");
        let error = index.search(&"a".repeat(1_000), 20, false).unwrap_err();
        assert_eq!(query_error(&error), "tooLong");
        let parts: Vec<String> = (0..20).map(|i| format!("w{i}")).collect();
        let error = index.search(&parts.join(" "), 20, false).unwrap_err();
        assert_eq!(query_error(&error), "tooManyParts");
    }

    #[test]
    fn saved_files_restore_and_others_are_refused() {
        let mut index = sample();
        let bytes = file::encode(7, &index.snapshot());
        let (restored, covers) = Index::restore(&bytes).unwrap();
        assert_eq!(covers, 7);
        assert_eq!(restored.documents(), 5);
        assert_eq!(found(&restored, "bread"), [pair("c2", "m3", false)]);
        let mut torn = bytes.clone();
        torn.truncate(bytes.len() - 3);
        assert_eq!(Index::restore(&torn).err(), Some("corrupt"));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert_eq!(Index::restore(&flipped).err(), Some("corrupt"));
        assert_eq!(Index::restore(b"not a file at all").err(), Some("corrupt"));
        // A snapshot of another source is not ours.
        let mut other = SearchIndex::new();
        let snapshot = other.snapshot(Source::Memory);
        assert_eq!(
            Index::restore(&file::encode(1, &snapshot)).err(),
            Some("corrupt")
        );
        // A snapshot of a newer format.
        let mut newer = bytes.clone();
        newer[file::HEADER_BYTES + 4] = 0xff;
        assert_eq!(Index::restore(&newer).err(), Some("version"));
        // An empty index saves and restores too.
        let (empty, _) = Index::restore(&file::encode(0, &Index::default().snapshot())).unwrap();
        assert_eq!(empty.documents(), 0);
    }
}
