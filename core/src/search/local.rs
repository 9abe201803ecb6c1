//! The small local sources the search palette finds besides conversations: the user's
//! memories, workspaces and knowledge collections (each says what of it is searchable:
//! `Memory::search_document`, `Workspace::search_document`,
//! `Collection::search_document`). They are a few hundred records at most and already in
//! the page, so they are indexed with the same engine for each query ([`search_local`]):
//! the same query language, ranking (title boosted, recency as the tie-breaker), typo
//! matching and highlighted snippets as conversations get, and nothing to keep current.

use super::{Document, Query, QueryError, SearchIndex, SearchOptions, Snippet, Source, snippet};

/// The most bytes of a hit's snippet.
pub const SNIPPET_BYTES: usize = 160;

/// One record to search.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalDocument {
    /// Which source it is from ([`Source::Memory`], [`Source::Workspaces`] or
    /// [`Source::Knowledge`]).
    pub source: Source,
    /// Its id.
    pub id: String,
    /// Its title (a workspace's name, a memory's tags).
    pub title: String,
    /// Its text (a workspace's instructions, a memory's content).
    pub body: String,
    /// Its last change, ms since the epoch.
    pub timestamp: i64,
}

impl LocalDocument {
    /// A record of `source` whose body is `text` then each of `names` on a line of its
    /// own (a workspace's or a collection's files), last changed at `timestamp` (ms).
    pub fn with_names<'a>(
        source: Source,
        (id, title): (&str, &str),
        text: &str,
        names: impl IntoIterator<Item = &'a str>,
        timestamp: f64,
    ) -> Self {
        let mut body = text.to_string();
        for name in names {
            body.push('\n');
            body.push_str(name);
        }
        Self {
            source,
            id: id.to_string(),
            title: title.to_string(),
            body,
            timestamp: timestamp as i64,
        }
    }

    /// As the index takes it: its own parent, at no position.
    pub fn document(&self) -> Document {
        Document {
            id: self.id.clone(),
            source: self.source,
            parent: self.id.clone(),
            position: String::new(),
            title: self.title.clone(),
            body: self.body.clone(),
            timestamp: self.timestamp,
        }
    }
}

/// One record found.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalHit {
    /// Its source.
    pub source: Source,
    /// Its id.
    pub id: String,
    /// The passage of its body around the best match (of its title when the body has
    /// none), with the matches to highlight.
    pub snippet: Snippet,
}

/// The best of `documents` for the query `text`, best first, at most `limit`. A query
/// the language refuses is the same error as for conversations.
pub fn search_local(
    documents: &[LocalDocument],
    text: &str,
    limit: usize,
) -> Result<Vec<LocalHit>, QueryError> {
    let query = Query::parse(text)?;
    let mut index = SearchIndex::new();
    let mut sources = Vec::new();
    for document in documents {
        // A record the index refuses (an id past its bound) is simply not found.
        if index.upsert(&document.document()).is_ok() && !sources.contains(&document.source) {
            sources.push(document.source);
        }
    }
    for source in sources {
        index.compact(source);
    }
    let options = SearchOptions {
        limit,
        ..SearchOptions::default()
    };
    let hits = index
        .search(&query, &options)
        .hits
        .into_iter()
        .filter_map(|hit| {
            let document = documents
                .iter()
                .find(|d| d.source == hit.source && d.id == hit.id)?;
            let in_body = snippet(&query, &document.body, SNIPPET_BYTES);
            let cut = if in_body.highlights.is_empty() {
                snippet(&query, &document.title, SNIPPET_BYTES)
            } else {
                in_body
            };
            Some(LocalHit {
                source: hit.source,
                id: hit.id,
                snippet: cut,
            })
        })
        .collect();
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(source: Source, id: &str, title: &str, body: &str, timestamp: i64) -> LocalDocument {
        LocalDocument {
            source,
            id: id.into(),
            title: title.into(),
            body: body.into(),
            timestamp,
        }
    }

    fn ids(hits: &[LocalHit]) -> Vec<&str> {
        hits.iter().map(|h| h.id.as_str()).collect()
    }

    #[test]
    fn memories_and_workspaces_are_found_by_the_words_of_their_title_or_text() {
        let documents = [
            doc(
                Source::Memory,
                "m1",
                "pets",
                "The cat is called Marmalade.",
                1,
            ),
            doc(
                Source::Workspaces,
                "w1",
                "Garden",
                "Answer about roses and soil.",
                2,
            ),
            doc(
                Source::Memory,
                "m2",
                "garden",
                "The user grows tomatoes.",
                3,
            ),
            doc(
                Source::Workspaces,
                "w2",
                "Taxes",
                "Be precise with numbers.",
                4,
            ),
        ];
        let hits = search_local(&documents, "garden", 10).unwrap();
        // The same score in either source: the newer first.
        assert_eq!(ids(&hits), ["m2", "w1"]);
        // The body has no match: the title is the passage, highlighted.
        let garden = &hits[1].snippet;
        assert_eq!(garden.text, "Garden");
        assert_eq!(garden.highlights, [(0, 6)]);
        let cat = search_local(&documents, "marmalade", 10).unwrap();
        assert_eq!(ids(&cat), ["m1"]);
        let passage = &cat[0].snippet;
        let (start, end) = passage.highlights[0];
        assert_eq!(&passage.text[start..end], "Marmalade");
        assert_eq!(cat[0].source, Source::Memory);
        // One typo in a long enough word still finds it, as for conversations.
        assert_eq!(
            ids(&search_local(&documents, "tomatoe", 10).unwrap()),
            ["m2"]
        );
        assert!(search_local(&documents, "volcano", 10).unwrap().is_empty());
    }

    #[test]
    fn the_limit_holds_and_a_refused_query_is_an_error_not_an_empty_list() {
        let documents: Vec<LocalDocument> = (0..30)
            .map(|n| doc(Source::Memory, &format!("m{n}"), "", "a note on rust", n))
            .collect();
        let hits = search_local(&documents, "rust", 5).unwrap();
        assert_eq!(hits.len(), 5);
        // Equal scores: the newest first.
        assert_eq!(hits[0].id, "m29");
        assert!(search_local(&documents, &"x".repeat(10_000), 5).is_err());
        assert!(search_local(&[], "rust", 5).unwrap().is_empty());
    }
}
