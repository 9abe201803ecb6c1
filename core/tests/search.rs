//! The search engine through its public API: ranking, prefix, typo, phrase and CJK
//! matching, removal, update, snapshots and limits, and two properties checked with
//! bolero (an added then removed document leaves no trace; results do not depend on the
//! order documents were added in).

use bolero::check;
use hearth_core::search::{
    Document, MAX_BODY_BYTES, Query, QueryError, SearchIndex, SearchOptions, SnapshotError, Source,
    snippet,
};

fn doc(id: &str, parent: &str, title: &str, body: &str, timestamp: i64) -> Document {
    Document {
        id: id.into(),
        source: Source::Conversations,
        parent: parent.into(),
        position: id.into(),
        title: title.into(),
        body: body.into(),
        timestamp,
    }
}

fn ids(index: &SearchIndex, query: &str) -> Vec<String> {
    let q = Query::parse(query).unwrap();
    index
        .search(&q, &SearchOptions::default())
        .hits
        .into_iter()
        .map(|h| h.id)
        .collect()
}

fn sample() -> SearchIndex {
    let mut index = SearchIndex::new();
    for d in [
        doc(
            "a",
            "c1",
            "Rust lifetimes",
            "How do lifetimes work with the borrow checker?",
            10,
        ),
        doc(
            "b",
            "c1",
            "Rust lifetimes",
            "The borrow checker rejects two mutable borrows.",
            20,
        ),
        doc(
            "c",
            "c2",
            "Cooking",
            "A borrow of sugar from the neighbour, for a crème brûlée.",
            30,
        ),
        doc("d", "c3", "机器学习", "我们用Rust实现机器学习模型。", 40),
        doc(
            "e",
            "c4",
            "日本語",
            "東京で機械学習の勉強会があります。カタカナも。",
            50,
        ),
        doc(
            "f",
            "c5",
            "Release",
            "Bumped serde_json to v1.2.3 and renamed HashMapBuilder.",
            60,
        ),
    ] {
        index.upsert(&d).unwrap();
    }
    index
}

#[test]
fn ranking_prefers_titles_frequency_and_then_recency() {
    let index = sample();
    // Both c1 messages mention the checker once; the newer wins the tie.
    assert_eq!(ids(&index, "checker "), ["b", "a"]);
    // A title match ranks above a body match.
    let mut index = sample();
    index
        .upsert(&doc("g", "c6", "Borrow", "nothing else", 1))
        .unwrap();
    assert_eq!(ids(&index, "borrow ")[0], "g");
    // AND semantics.
    assert_eq!(ids(&index, "borrow sugar "), ["c"]);
    assert!(ids(&index, "borrow zebra ").is_empty());
    // Diacritics and case fold both ways.
    assert_eq!(ids(&index, "CREME brulee "), ["c"]);
}

#[test]
fn prefix_typo_phrase_and_identifiers() {
    let index = sample();
    // `a` has the word in its title and its body.
    assert_eq!(ids(&index, "lifet"), ["a", "b"]);
    assert_eq!(ids(&index, "lifet "), Vec::<String>::new());
    assert_eq!(ids(&index, "chekcer rejects"), ["b"]);
    assert_eq!(ids(&index, "lifetimse "), ["a", "b"]);
    assert_eq!(ids(&index, "\"mutable borrows\""), ["b"]);
    assert!(ids(&index, "\"borrows mutable\"").is_empty());
    assert_eq!(ids(&index, "serde_json v1.2.3"), ["f"]);
    assert_eq!(ids(&index, "hashmapbuilder "), ["f"]);
    assert_eq!(ids(&index, "serde"), ["f"]);
    // A typo ranks below the exact word.
    let mut index = sample();
    index
        .upsert(&doc("h", "c7", "", "the checkers game", 100))
        .unwrap();
    assert_eq!(ids(&index, "checkers ")[0], "h");
}

#[test]
fn chinese_and_japanese_queries() {
    let index = sample();
    assert_eq!(ids(&index, "机器学习"), ["d"]);
    assert_eq!(ids(&index, "学习"), ["d"]);
    let mut both = ids(&index, "学");
    both.sort();
    assert_eq!(both, ["d", "e"]);
    assert_eq!(ids(&index, "東京"), ["e"]);
    assert_eq!(ids(&index, "機械学習"), ["e"]);
    assert_eq!(ids(&index, "カタカナ"), ["e"]);
    assert_eq!(ids(&index, "京"), ["e"]);
    assert_eq!(ids(&index, "Rust 模型"), ["d"]);
    assert!(ids(&index, "学机").is_empty());
}

#[test]
fn removal_update_and_grouping() {
    let mut index = sample();
    let q = Query::parse("lifetimes ").unwrap();
    let grouped = index.search_grouped(&q, &SearchOptions::default());
    assert_eq!((grouped.total, grouped.parents), (2, 1));
    assert_eq!(grouped.groups[0].matches, 2);
    assert_eq!(
        grouped.groups[0].best.id, "a",
        "the title and the body beat the title"
    );
    assert!(index.remove(Source::Conversations, "a"));
    assert!(!index.remove(Source::Conversations, "a"));
    assert_eq!(ids(&index, "checker "), ["b"]);
    index
        .upsert(&doc("b", "c1", "Rust lifetimes", "now about traits", 20))
        .unwrap();
    assert!(ids(&index, "checker ").is_empty());
    assert_eq!(ids(&index, "traits "), ["b"]);
    let q = Query::parse("rust ").unwrap();
    let grouped = index.search_grouped(&q, &SearchOptions::default());
    assert_eq!(grouped.total, 2);
    assert_eq!(grouped.parents, 2);
    let parents: Vec<&str> = grouped
        .groups
        .iter()
        .map(|g| g.best.parent.as_str())
        .collect();
    assert_eq!(parents, ["c1", "c3"]);
    // Sources are searched separately when asked.
    let mut memory = doc("m1", "mem", "", "rust notes", 5);
    memory.source = Source::Memory;
    index.upsert(&memory).unwrap();
    let only = SearchOptions {
        sources: vec![Source::Memory],
        ..SearchOptions::default()
    };
    let hits = index.search(&q, &only).hits;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].source, Source::Memory);
    index.clear(Source::Memory);
    assert_eq!(index.len(Source::Memory), 0);
    assert_eq!(index.len(Source::Conversations), 5);
}

#[test]
fn snapshots_round_trip_and_corruption_is_a_typed_error() {
    let mut index = sample();
    index.remove(Source::Conversations, "c");
    let bytes = index.snapshot(Source::Conversations);
    let mut restored = SearchIndex::new();
    assert_eq!(restored.restore(&bytes), Ok(Source::Conversations));
    assert_eq!(restored, index);
    for q in ["checker ", "lifet", "机器学习", "\"mutable borrows\"", "京"] {
        assert_eq!(ids(&restored, q), ids(&index, q), "{q}");
    }
    assert_eq!(restored.snapshot(Source::Conversations), bytes);

    assert_eq!(restored.restore(b"nope"), Err(SnapshotError::NotASnapshot));
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    assert_eq!(restored.restore(&flipped), Err(SnapshotError::Checksum));
    let mut version = bytes.clone();
    version[4] = 9;
    assert_eq!(
        restored.restore(&version),
        Err(SnapshotError::Version { found: 9 })
    );
    assert_eq!(
        restored.restore(&bytes[..bytes.len() - 3]),
        Err(SnapshotError::Length)
    );
    // Every truncation and every single-byte change is refused or reads back safely.
    for cut in 0..bytes.len() {
        assert!(restored.restore(&bytes[..cut]).is_err());
    }
    assert_eq!(
        restored, index,
        "a refused snapshot leaves the index unchanged"
    );
}

#[test]
fn limits_cut_documents_and_refuse_queries() {
    let mut index = SearchIndex::new();
    let body = "word ".repeat(MAX_BODY_BYTES / 5) + "needle";
    let upserted = index.upsert(&doc("big", "p", "", &body, 1)).unwrap();
    assert!(upserted.partial);
    assert!(ids(&index, "needle ").is_empty());
    let hits = index
        .search(&Query::parse("word ").unwrap(), &SearchOptions::default())
        .hits;
    assert!(hits[0].partial);
    let mut long_id = doc("x", "p", "", "a", 1);
    long_id.id = "i".repeat(1000);
    assert!(index.upsert(&long_id).is_err());
    assert!(matches!(
        Query::parse(&"q".repeat(10_000)),
        Err(QueryError::TooLong { .. })
    ));
    // Limits on the result count are clamped.
    for i in 0..300 {
        index
            .upsert(&doc(&format!("n{i}"), "p", "", "same words", i))
            .unwrap();
    }
    let options = SearchOptions {
        limit: 10_000,
        ..SearchOptions::default()
    };
    let found = index.search(&Query::parse("same").unwrap(), &options);
    assert_eq!(found.total, 300);
    assert_eq!(found.hits.len(), 200);
    assert_eq!(found.hits[0].id, "n299", "newest first on equal scores");
}

#[test]
fn snippets_highlight_the_matches() {
    let q = Query::parse("borrow checker").unwrap();
    let s = snippet(&q, "How do lifetimes work with the borrow checker?", 200);
    let marked: Vec<&str> = s.highlights.iter().map(|&(a, b)| &s.text[a..b]).collect();
    assert_eq!(marked, ["borrow", "checker"]);
}

const WORDS: &[&str] = &[
    "rust",
    "borrow",
    "checker",
    "lifetime",
    "lifetimes",
    "trait",
    "async",
    "tokio",
    "机器",
    "学习",
    "東京",
    "カタカナ",
    "serde_json",
    "v1.2.3",
    "Crème",
    "the",
    "a",
];

fn corpus(seed: &[(u8, u8, u8)]) -> Vec<Document> {
    let mut docs: Vec<Document> = Vec::new();
    for (i, &(a, b, c)) in seed.iter().enumerate().take(24) {
        let body = [a, b, c, a ^ b]
            .iter()
            .map(|&w| WORDS[w as usize % WORDS.len()])
            .collect::<Vec<_>>()
            .join(if c % 3 == 0 { "" } else { " " });
        let title = WORDS[(a as usize + c as usize) % WORDS.len()];
        docs.push(doc(
            &format!("d{}", i % 20),
            &format!("p{}", b % 4),
            if c % 2 == 0 { title } else { "" },
            &body,
            i64::from(c % 5),
        ));
    }
    docs
}

const QUERIES: &[&str] = &[
    "rust",
    "borrow checker",
    "lifet",
    "chekcer ",
    "机器",
    "学",
    "\"borrow checker\"",
    "serde_json",
    "creme ",
    "東京",
    "lifetimes async ",
];

fn all_results(index: &SearchIndex) -> Vec<String> {
    let mut out = Vec::new();
    for q in QUERIES {
        let q = Query::parse(q).unwrap();
        for hit in index.search(&q, &SearchOptions::default()).hits {
            out.push(format!("{} {} {:.6}", hit.id, hit.parent, hit.score));
        }
        for group in index.search_grouped(&q, &SearchOptions::default()).groups {
            out.push(format!("g {} {}", group.best.id, group.matches));
        }
    }
    out
}

#[test]
fn an_added_then_removed_document_leaves_no_trace() {
    check!()
        .with_type::<(Vec<(u8, u8, u8)>, (u8, u8, u8), u8)>()
        .for_each(|(seed, extra, at)| {
            let docs = corpus(seed);
            let mut never = SearchIndex::new();
            for d in &docs {
                never.upsert(d).unwrap();
            }
            let mut given = SearchIndex::new();
            let at = *at as usize % (docs.len() + 1);
            let mut stranger = corpus(&[*extra]).remove(0);
            stranger.id = "stranger".into();
            for (i, d) in docs.iter().enumerate() {
                if i == at {
                    given.upsert(&stranger).unwrap();
                }
                given.upsert(d).unwrap();
            }
            if at == docs.len() {
                given.upsert(&stranger).unwrap();
            }
            assert!(given.remove(Source::Conversations, "stranger"));
            assert_eq!(all_results(&given), all_results(&never));
            given.compact(Source::Conversations);
            never.compact(Source::Conversations);
            assert_eq!(given, never);
        });
}

#[test]
fn results_do_not_depend_on_insertion_order() {
    check!()
        .with_type::<(Vec<(u8, u8, u8)>, u64)>()
        .for_each(|(seed, shuffle)| {
            let docs = corpus(seed);
            let mut forward = SearchIndex::new();
            for d in &docs {
                forward.upsert(d).unwrap();
            }
            // A deterministic permutation from `shuffle`.
            let mut order: Vec<usize> = (0..docs.len()).collect();
            let mut state = *shuffle | 1;
            for i in (1..order.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                order.swap(i, (state % (i as u64 + 1)) as usize);
            }
            // Later duplicates of an id replace earlier ones: keep the last of each id so
            // both indexes hold the same documents.
            let mut last: std::collections::BTreeMap<&str, &Document> = Default::default();
            for d in &docs {
                last.insert(&d.id, d);
            }
            let mut shuffled = SearchIndex::new();
            for &i in &order {
                let d = &docs[i];
                if std::ptr::eq(last[d.id.as_str()], d) {
                    shuffled.upsert(d).unwrap();
                }
            }
            assert_eq!(all_results(&shuffled), all_results(&forward));
            let a = shuffled.snapshot(Source::Conversations);
            let b = forward.snapshot(Source::Conversations);
            assert_eq!(a, b);
        });
}
