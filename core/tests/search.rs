//! The search engine through its public API: ranking, prefix, typo, phrase and CJK
//! matching, removal (of a document or a whole parent), update, title-only searches,
//! snapshots and limits, and two properties checked with bolero (added then removed
//! documents leave no trace, in results or snapshot bytes; results do not depend on the
//! order documents were added in).

use bolero::check;
use hearth_core::search::{
    Document, MAX_BODY_BYTES, Query, QueryError, SearchIndex, SearchOptions, SnapshotError, Source,
    checksum, snippet,
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
    // Characters are indexed one by one: a pair joins two of them only inside one run,
    // never across punctuation or a Latin word.
    let mut index = sample();
    index
        .upsert(&doc("g", "c9", "", "我们学习。机器很好 东京Rust大学", 70))
        .unwrap();
    assert!(ids(&index, "习机").is_empty());
    assert!(ids(&index, "京大").is_empty());
    for q in ["习", "机器"] {
        let mut found = ids(&index, q);
        found.sort();
        assert_eq!(found, ["d", "g"], "{q}");
    }
    assert_eq!(ids(&index, "\"东京Rust大学\""), ["g"]);
    assert!(ids(&index, "\"东京大学\"").is_empty());
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
fn removing_a_parent_removes_all_its_documents() {
    let mut index = sample();
    assert_eq!(index.parent_len(Source::Conversations, "c1"), 2);
    assert_eq!(index.parent_len(Source::Memory, "c1"), 0);
    assert_eq!(index.remove_parent(Source::Conversations, "c1"), 2);
    assert_eq!(index.parent_len(Source::Conversations, "c1"), 0);
    assert_eq!(index.remove_parent(Source::Conversations, "c1"), 0);
    assert_eq!(index.remove_parent(Source::Conversations, "nobody"), 0);
    assert_eq!(index.remove_parent(Source::Knowledge, "c1"), 0);
    assert_eq!(index.len(Source::Conversations), 4);
    assert!(!index.contains(Source::Conversations, "a"));
    for q in ["lifetimes ", "checker ", "rust ", "borrow "] {
        let found = ids(&index, q);
        assert!(
            !found.contains(&"a".to_string()) && !found.contains(&"b".to_string()),
            "{q}: {found:?}"
        );
    }
    assert_eq!(ids(&index, "borrow "), ["c"]);
    let grouped = index.search_grouped(&Query::parse("rust ").unwrap(), &SearchOptions::default());
    assert!(grouped.groups.iter().all(|g| g.best.parent != "c1"));
    // Once compacted, the same as removing them one by one.
    let mut one_by_one = sample();
    one_by_one.remove(Source::Conversations, "a");
    one_by_one.remove(Source::Conversations, "b");
    one_by_one.compact(Source::Conversations);
    index.compact(Source::Conversations);
    assert_eq!(index, one_by_one);
    // A parent emptied and filled again counts only its new documents.
    index
        .upsert(&doc("a2", "c1", "Rust lifetimes", "back", 70))
        .unwrap();
    assert_eq!(index.parent_len(Source::Conversations, "c1"), 1);
    assert_eq!(ids(&index, "lifetimes "), ["a2"]);
    // An update keeps the count; moving a document to another parent moves it.
    index
        .upsert(&doc("a2", "c1", "Rust lifetimes", "edited", 71))
        .unwrap();
    assert_eq!(index.parent_len(Source::Conversations, "c1"), 1);
    index.upsert(&doc("a2", "c2", "", "moved", 72)).unwrap();
    assert_eq!(index.parent_len(Source::Conversations, "c1"), 0);
    assert_eq!(index.parent_len(Source::Conversations, "c2"), 2);
    assert_eq!(index.remove_parent(Source::Conversations, "c2"), 2);
    assert_eq!(ids(&index, "moved "), Vec::<String>::new());
}

#[test]
fn parents_survive_a_snapshot() {
    let mut index = sample();
    index
        .upsert(&doc("g", "c1", "Rust lifetimes", "a third one", 70))
        .unwrap();
    index.remove(Source::Conversations, "e");
    let bytes = index.snapshot(Source::Conversations);
    let mut restored = SearchIndex::new();
    restored.restore(&bytes).unwrap();
    assert_eq!(restored.parent_len(Source::Conversations, "c1"), 3);
    assert_eq!(restored.parent_len(Source::Conversations, "c4"), 0);
    // Documents added after the snapshot join their parent's list.
    restored
        .upsert(&doc("h", "c1", "", "after the snapshot", 80))
        .unwrap();
    assert_eq!(restored.parent_len(Source::Conversations, "c1"), 4);
    assert_eq!(restored.remove_parent(Source::Conversations, "c1"), 4);
    assert!(ids(&restored, "lifetimes ").is_empty());
    assert!(ids(&restored, "snapshot ").is_empty());
    assert_eq!(ids(&restored, "sugar "), ["c"]);
    assert_eq!(restored.len(Source::Conversations), 3);
    let again = restored.snapshot(Source::Conversations);
    let mut twice = SearchIndex::new();
    twice.restore(&again).unwrap();
    assert_eq!(twice, restored);
    assert_eq!(twice.parent_len(Source::Conversations, "c1"), 0);
}

#[test]
fn title_only_matches_titles_and_never_bodies() {
    let mut index = sample();
    index
        .upsert(&doc("g", "c6", "Borrow", "nothing else", 1))
        .unwrap();
    let titles = SearchOptions {
        title_only: true,
        ..SearchOptions::default()
    };
    let search = |q: &str, options: &SearchOptions| -> Vec<String> {
        let q = Query::parse(q).unwrap();
        index
            .search(&q, options)
            .hits
            .into_iter()
            .map(|h| h.id)
            .collect()
    };
    // `borrow` is in four bodies but one title.
    assert_eq!(search("borrow ", &titles), ["g"]);
    assert_eq!(search("borrow ", &SearchOptions::default()).len(), 4);
    assert!(search("sugar ", &titles).is_empty());
    assert!(search("\"borrow checker\"", &titles).is_empty());
    let mut both = search("lifet", &titles);
    both.sort();
    assert_eq!(both, ["a", "b"]);
    assert_eq!(search("\"rust lifetimes\"", &titles).len(), 2);
    assert_eq!(search("机器学习", &titles), ["d"]);
    assert!(search("模型", &titles).is_empty());
    assert_eq!(search("本", &titles), ["e"]);
    let grouped = index.search_grouped(&Query::parse("lifetimes ").unwrap(), &titles);
    assert_eq!((grouped.total, grouped.parents), (2, 1));
    // `titleOnly` in JSON, false when left out.
    let parsed: SearchOptions = serde_json::from_str(r#"{"titleOnly": true}"#).unwrap();
    assert!(parsed.title_only && parsed.limit == 20);
    let parsed: SearchOptions = serde_json::from_str("{}").unwrap();
    assert_eq!(parsed, SearchOptions::default());
    assert!(!parsed.title_only);
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
    // Every truncation is refused.
    for cut in 0..bytes.len() {
        assert!(restored.restore(&bytes[..cut]).is_err());
    }
    // Every byte changed behind a fixed-up checksum is refused, or reads back into an
    // index that searches, takes changes and compacts (posting lists are read lazily, so
    // a change inside one reads back as a wrong list, never a panic).
    let mut accepted = 0;
    for at in 24..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut changed = bytes.clone();
            changed[at] ^= flip;
            let sum = checksum(&changed[24..]);
            changed[16..24].copy_from_slice(&sum.to_le_bytes());
            let mut other = SearchIndex::new();
            if other.restore(&changed).is_err() {
                continue;
            }
            accepted += 1;
            for q in [
                "checker ",
                "lifet",
                "机器学习",
                "\"mutable borrows\"",
                "京",
                "rust",
            ] {
                let found = other.search(&Query::parse(q).unwrap(), &SearchOptions::default());
                assert!(found.hits.len() <= found.total);
            }
            other
                .upsert(&doc("new", "c9", "机器 checker", "mutable borrows", 99))
                .unwrap();
            other.remove_parent(Source::Conversations, "c1");
            other.compact(Source::Conversations);
            assert!(ids(&other, "\"mutable borrows\"").contains(&"new".to_string()));
        }
    }
    assert!(accepted > 0, "some changes fall inside the posting lists");
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
    let titles = SearchOptions {
        title_only: true,
        ..SearchOptions::default()
    };
    for q in QUERIES {
        let q = Query::parse(q).unwrap();
        for hit in index.search(&q, &SearchOptions::default()).hits {
            out.push(format!("{} {} {:.6}", hit.id, hit.parent, hit.score));
        }
        for group in index.search_grouped(&q, &SearchOptions::default()).groups {
            out.push(format!("g {} {}", group.best.id, group.matches));
        }
        for hit in index.search(&q, &titles).hits {
            out.push(format!("t {} {:.6}", hit.id, hit.score));
        }
    }
    for p in 0..4 {
        let parent = format!("p{p}");
        out.push(format!(
            "{parent} {}",
            index.parent_len(Source::Conversations, &parent)
        ));
    }
    out
}

#[test]
fn an_added_then_removed_document_leaves_no_trace() {
    check!()
        .with_type::<(Vec<(u8, u8, u8)>, (u8, u8, u8), u8, bool)>()
        .for_each(|(seed, extra, at, whole_parent)| {
            let docs = corpus(seed);
            let mut never = SearchIndex::new();
            for d in &docs {
                never.upsert(d).unwrap();
            }
            let mut given = SearchIndex::new();
            let at = *at as usize % (docs.len() + 1);
            // A stranger, or (removed as a parent) two strangers of their own parent.
            let mut strangers = corpus(&[*extra, (extra.1, extra.2, extra.0)]);
            strangers.truncate(if *whole_parent { 2 } else { 1 });
            for (i, s) in strangers.iter_mut().enumerate() {
                s.id = format!("stranger{i}");
                s.parent = "strangers".into();
            }
            for (i, d) in docs.iter().enumerate() {
                if i == at {
                    for s in &strangers {
                        given.upsert(s).unwrap();
                    }
                }
                given.upsert(d).unwrap();
            }
            if at == docs.len() {
                for s in &strangers {
                    given.upsert(s).unwrap();
                }
            }
            if *whole_parent {
                assert_eq!(given.parent_len(Source::Conversations, "strangers"), 2);
                assert_eq!(given.remove_parent(Source::Conversations, "strangers"), 2);
            } else {
                assert!(given.remove(Source::Conversations, "stranger0"));
            }
            assert_eq!(given.parent_len(Source::Conversations, "strangers"), 0);
            assert_eq!(all_results(&given), all_results(&never));
            given.compact(Source::Conversations);
            never.compact(Source::Conversations);
            assert_eq!(given, never);
            assert_eq!(
                given.snapshot(Source::Conversations),
                never.snapshot(Source::Conversations)
            );
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
