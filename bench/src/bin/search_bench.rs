//! `search_bench [BENCHMARKS.md]`: the search engine (`hearth_core::search`) over a
//! generated corpus of 100,000 messages, natively. Records build time, incremental
//! add/update/remove (of a message and of a whole conversation), query latency by kind
//! (and titles only), snapshot size and timings, and the index's memory against the
//! text it holds, in the `search` section of the benchmarks file.
//!
//! Native figures stand in for the browser's: the app runs the same code as wasm in a
//! Web Worker, typically 1.5–3× slower.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hearth_bench::record;
use hearth_bench::search_corpus::{self, KINDS};
use hearth_core::search::{Document, Query, SearchIndex, SearchOptions, Source, snippet};

const CONVERSATIONS: usize = 2_000;
const PER_CONVERSATION: usize = 50;
const REPEATS: usize = 5;
/// Runs of the incremental operations (each operation keeps its fastest).
const RUNS: usize = 3;

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// p50, p95 and max of `samples`.
fn percentiles(samples: &mut [Duration]) -> (Duration, Duration, Duration) {
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95), samples[samples.len() - 1])
}

fn timed(mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn main() {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "docs/BENCHMARKS.md".into()),
    );
    let corpus = search_corpus::generate(CONVERSATIONS, PER_CONVERSATION, 12);
    let queries = search_corpus::queries(&corpus, 34);
    let docs = &corpus.documents;
    let mut index = SearchIndex::new();
    let build = timed(|| {
        for doc in docs {
            index.upsert(doc).expect("a generated document is valid");
        }
    });
    let heap_built = index.heap_bytes();
    let compact = timed(|| index.compact(Source::Conversations));
    // `SEARCH_BENCH_PART=build`: the build and its compaction only, printed, nothing
    // recorded (for comparing the engine's build between two versions).
    if std::env::var("SEARCH_BENCH_PART").as_deref() == Ok("build") {
        println!(
            "{{\"buildMs\": {:.1}, \"compactMs\": {:.1}}}",
            build.as_secs_f64() * 1e3,
            compact.as_secs_f64() * 1e3
        );
        return;
    }
    let heap_compact = index.heap_bytes();
    let stats = index.stats(Source::Conversations);

    // Queries: each run REPEATS times, every run a sample.
    let options = SearchOptions::default();
    let mut all = Vec::new();
    let mut by_kind: Vec<(&str, Vec<Duration>, usize)> =
        KINDS.iter().map(|k| (*k, Vec::new(), 0)).collect();
    let mut grouped = Vec::new();
    let mut titles = Vec::new();
    let title_options = SearchOptions {
        title_only: true,
        ..SearchOptions::default()
    };
    let mut zero_hits = 0;
    for (kind, text) in &queries {
        let slot = by_kind
            .iter_mut()
            .find(|(k, _, _)| k == kind)
            .expect("a kind");
        let mut found = None;
        for _ in 0..REPEATS {
            let start = Instant::now();
            let query = Query::parse(text).expect("a valid query");
            let results = index.search(&query, &options);
            let elapsed = start.elapsed();
            all.push(elapsed);
            slot.1.push(elapsed);
            found = Some((query, results));
        }
        let (query, results) = found.expect("ran");
        slot.2 += results.total;
        if results.total == 0 {
            zero_hits += 1;
        }
        grouped.push(timed(|| {
            index.search_grouped(&query, &options);
        }));
        titles.push(timed(|| {
            index.search(&query, &title_options);
        }));
    }
    // A snippet per message of the first thousand (the app cuts them from the texts of
    // the hits it shows).
    let sample_query = Query::parse(&queries[0].1).expect("valid");
    let snippet_alone = timed(|| {
        for doc in docs.iter().take(1_000) {
            snippet(&sample_query, &doc.body, 160);
        }
    }) / 1_000;
    let (q50, q95, qmax) = percentiles(&mut all);
    let (g50, g95, gmax) = percentiles(&mut grouped);
    let (t50, t95, tmax) = percentiles(&mut titles);

    // Incremental: 1,000 new documents, 1,000 updates, 1,000 removals and 20 whole
    // conversations, one at a time. The sequence runs on RUNS copies of the compacted
    // index and each operation keeps its fastest run: the work an operation does (a
    // buffer's growth included) is the same in every run, a preemption by another
    // process on a busy machine is not.
    let mut extra = search_corpus::generate(20, 50, 99).documents;
    for (i, doc) in extra.iter_mut().enumerate() {
        doc.id = format!("new-{i:06}");
        doc.position = doc.id.clone();
    }
    let updated: Vec<Document> = (0..1_000)
        .map(|i| {
            let mut doc: Document = docs[i * 97 % docs.len()].clone();
            doc.body = extra[i].body.clone();
            doc
        })
        .collect();
    let removed: Vec<String> = (0..1_000)
        .map(|i| docs[(i * 89 + 13) % docs.len()].id.clone())
        .collect();
    // Whole conversations removed (a conversation deleted in the app).
    let conversations: Vec<String> = (0..20)
        .map(|i| {
            docs[(i * 97 + 11) * PER_CONVERSATION % docs.len()]
                .parent
                .clone()
        })
        .collect();
    let compacted = index.clone();
    let mut best: Option<[Vec<Duration>; 4]> = None;
    for _ in 0..RUNS {
        index = compacted.clone();
        let run = [
            extra
                .iter()
                .map(|doc| {
                    timed(|| {
                        let _ = index.upsert(doc);
                    })
                })
                .collect::<Vec<_>>(),
            updated
                .iter()
                .map(|doc| {
                    timed(|| {
                        let _ = index.upsert(doc);
                    })
                })
                .collect(),
            removed
                .iter()
                .map(|id| {
                    timed(|| {
                        index.remove(Source::Conversations, id);
                    })
                })
                .collect(),
            conversations
                .iter()
                .map(|parent| {
                    timed(|| {
                        index.remove_parent(Source::Conversations, parent);
                    })
                })
                .collect(),
        ];
        best = Some(match best {
            None => run,
            Some(mut kept) => {
                for (k, r) in kept.iter_mut().zip(&run) {
                    for (a, b) in k.iter_mut().zip(r) {
                        *a = (*a).min(*b);
                    }
                }
                kept
            }
        });
    }
    drop(compacted);
    let [mut adds, mut updates, mut removes, mut parents] = best.expect("ran");
    let (a50, a95, amax) = percentiles(&mut adds);
    let (c50, c95, cmax) = percentiles(&mut parents);
    let (u50, u95, umax) = percentiles(&mut updates);
    let (r50, r95, rmax) = percentiles(&mut removes);

    // Snapshot: compaction, encoding, decoding.
    let compact_again = timed(|| index.compact(Source::Conversations));
    let mut bytes = Vec::new();
    let encode = timed(|| bytes = index.snapshot(Source::Conversations));
    let mut restored = SearchIndex::new();
    let decode = timed(|| {
        restored.restore(&bytes).expect("the snapshot reads back");
    });
    assert_eq!(restored, index, "the snapshot round-trips");

    let text = corpus.text_bytes;
    let label = std::env::var("BENCH_LABEL").unwrap_or_else(|_| "this machine".into());
    let verdict = |value: Duration, budget_ms: f64| {
        if value.as_secs_f64() * 1e3 <= budget_ms {
            "met"
        } else {
            "**missed**"
        }
    };
    let mut body = format!(
        "### Search engine (native)\n\n{label}. Measured by `bench/src/bin/search_bench.rs` \
         (release, native): the same `hearth_core::search` code the app runs as wasm in a \
         Web Worker, where it is typically 1.5–3× slower, so these figures are a proxy. \
         Corpus: {} messages in {CONVERSATIONS} conversations, {} of title and body text \
         (English with identifiers, versions and numbers, about a fifth Chinese and \
         Japanese), generated deterministically (`bench/src/search_corpus.rs`). The \
         incremental operations run {RUNS} times on copies of the compacted index and each \
         keeps its fastest run (the same work every time; another process's preemption \
         is not).\n\n\
         | measure | p50 | p95 | max | budget |\n|---|---:|---:|---:|---|\n",
        docs.len(),
        mib(text),
    );
    body.push_str(&format!(
        "| query (parse + search, top 20), {} queries × {REPEATS} | {} | {} | {} | p50 ≤ 2 ms \
         ({}), p95 ≤ 10 ms ({}) |\n",
        queries.len(),
        ms(q50),
        ms(q95),
        ms(qmax),
        verdict(q50, 2.0),
        verdict(q95, 10.0)
    ));
    body.push_str(&format!(
        "| query grouped by conversation | {} | {} | {} | |\n",
        ms(g50),
        ms(g95),
        ms(gmax)
    ));
    body.push_str(&format!(
        "| query, titles only | {} | {} | {} | |\n",
        ms(t50),
        ms(t95),
        ms(tmax)
    ));
    body.push_str(&format!(
        "| add a message (1,000 new) | {} | {} | {} | ≤ 1 ms ({}) |\n",
        ms(a50),
        ms(a95),
        ms(amax),
        verdict(amax, 1.0)
    ));
    body.push_str(&format!(
        "| update a message (1,000) | {} | {} | {} | ≤ 1 ms ({}) |\n",
        ms(u50),
        ms(u95),
        ms(umax),
        verdict(umax, 1.0)
    ));
    body.push_str(&format!(
        "| remove a message (1,000) | {} | {} | {} | ≤ 1 ms ({}) |\n",
        ms(r50),
        ms(r95),
        ms(rmax),
        verdict(rmax, 1.0)
    ));
    body.push_str(&format!(
        "| remove a conversation ({PER_CONVERSATION} messages, 20) | {} | {} | {} | ≤ 1 ms ({}) |\n\n",
        ms(c50),
        ms(c95),
        ms(cmax),
        verdict(cmax, 1.0)
    ));
    body.push_str("| query kind | p50 | p95 | max | documents matched (all queries) |\n|---|---:|---:|---:|---:|\n");
    for (kind, samples, matched) in &mut by_kind {
        let (p50, p95, max) = percentiles(samples);
        body.push_str(&format!(
            "| {kind} | {} | {} | {} | {matched} |\n",
            ms(p50),
            ms(p95),
            ms(max)
        ));
    }
    body.push_str(&format!(
        "\n| one-off | time | size |\n|---|---:|---:|\n\
         | build: add all {} messages one by one | {} | |\n\
         | compact after the build | {} | |\n\
         | compact after the changes above | {} | |\n\
         | snapshot encode (compacted) | {} | {} ({:.0} % of the text) |\n\
         | snapshot decode and check (reopen) | {} | budget ≤ 200 ms ({}) |\n\
         | snippet of one message | {} | |\n\n",
        docs.len(),
        ms(build),
        ms(compact),
        ms(compact_again),
        ms(encode),
        mib(bytes.len()),
        bytes.len() as f64 * 100.0 / text as f64,
        ms(decode),
        verdict(decode, 200.0),
        ms(snippet_alone),
    ));
    body.push_str(&format!(
        "Index memory (a counting estimate of heap bytes: every buffer's capacity, B-tree \
         nodes at two thirds full): {} right after the build ({:.0} % of the text), {} \
         compacted ({:.0} % of the text; budget under 50 %: {}), of which {} are the \
         postings with their positions ({:.0} % of the text) and the rest the {} distinct \
         terms' dictionary entries and the documents' records. {zero_hits} of {} queries \
         matched nothing.\n",
        mib(heap_built),
        heap_built as f64 * 100.0 / text as f64,
        mib(heap_compact),
        heap_compact as f64 * 100.0 / text as f64,
        if heap_compact * 2 < text {
            "met"
        } else {
            "**missed**"
        },
        mib(stats.postings_bytes),
        stats.postings_bytes as f64 * 100.0 / text as f64,
        stats.terms,
        queries.len(),
    ));
    record::write_section(&out, "search", &body).expect("write the figures");
    println!("{body}");
}
