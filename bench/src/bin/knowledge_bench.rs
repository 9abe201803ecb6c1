//! `knowledge_bench [BENCHMARKS.md]`: what knowledge retrieval costs a turn, natively.
//! A library of 1,000 Markdown documents (about 5 KB each, 5 MB in all: headings and
//! paragraphs over a 48-word vocabulary) in 4 collections: times building the index the
//! app keeps while the files do not change (`KnowledgeIndex::build`: every file cut into
//! passages and indexed), and asking it a question (`retrieve` with the scope's files,
//! then the context items), p50 and p95, for questions that find passages and one that
//! finds none. Records the `knowledge` section of the benchmarks file; the budget is
//! issue 13's, 30 ms at p95 for a question.
//!
//! Native figures stand in for the browser's: the app runs the same code as wasm,
//! typically 1.5–3× slower.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use hearth_bench::{knowledge_corpus, record};
use hearth_core::knowledge::retrieve::{FileText, KnowledgeIndex, context_items, in_scope};

const DOCUMENTS: usize = 1_000;
const COLLECTIONS: usize = 4;
const RUNS: usize = 200;

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let out = record::out_file();
    let label = record::label();
    let library = knowledge_corpus::library(DOCUMENTS, COLLECTIONS);
    let texts: Vec<String> = (0..DOCUMENTS).map(knowledge_corpus::document).collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let entries: Vec<FileText> = library
        .collections
        .iter()
        .flat_map(|c| c.files.iter().map(move |f| (c, f)))
        .map(|(collection, file)| {
            let n: usize = file.id[1..].parse().expect("an index");
            FileText {
                collection,
                file,
                text: texts[n].clone(),
            }
        })
        .collect();
    let start = Instant::now();
    let index = KnowledgeIndex::build(&entries);
    let build = start.elapsed();
    let passages = index.len();
    let scope = in_scope(library.collections.iter(), &[]);
    let allowed: HashSet<&str> = scope.iter().map(|(_, f)| f.id.as_str()).collect();
    let one = in_scope(library.collection("c1"), &[]);
    let one: HashSet<&str> = one.iter().map(|(_, f)| f.id.as_str()).collect();
    let ask = |question: &str, allowed: &HashSet<&str>| {
        let mut samples: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                let found = index.retrieve(question, allowed);
                std::hint::black_box(context_items(&found));
                start.elapsed()
            })
            .collect();
        let found = index.retrieve(question, allowed).len();
        (
            percentile(&mut samples, 0.5),
            percentile(&mut samples, 0.95),
            found,
        )
    };
    let two = ask(
        "How do I refinance the mortgage before the audit season?",
        &allowed,
    );
    let other = ask(
        "Which catalyst and molecule does the reaction need in the pagoda?",
        &one,
    );
    let none = ask("What is the capital of Australia?", &allowed);
    assert!(
        two.2 > 0 && other.2 > 0,
        "questions about the vocabulary find passages"
    );
    assert_eq!(none.2, 0, "a question about none of it finds nothing");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let body = format!(
        "### Knowledge retrieval in a turn\n\n\
         {label}. Measured by `bench/src/bin/knowledge_bench.rs` (release, native; the app \
         runs the same `hearth_core::knowledge::retrieve` as wasm, typically 1.5–3× slower). \
         {DOCUMENTS} Markdown documents ({:.1} MB) in {COLLECTIONS} collections, cut into \
         {passages} passages; p50 and p95 of {RUNS} questions. Budget: a question ≤ 30 ms at \
         p95 (issue 13).\n\n\
         | step | p50 | p95 | passages found |\n\
         |---|---:|---:|---:|\n\
         | a question about several topics, every collection | {:.2} ms | {:.2} ms | {} |\n\
         | a question about other topics, one collection (a quarter of the files) | {:.2} ms | {:.2} ms | {} |\n\
         | a question about none of it | {:.2} ms | {:.2} ms | {} |\n\
         | building the index (once per change of the files in scope) | {:.0} ms | | |\n",
        bytes as f64 / 1e6,
        ms(two.0),
        ms(two.1),
        two.2,
        ms(other.0),
        ms(other.1),
        other.2,
        ms(none.0),
        ms(none.1),
        none.2,
        ms(build),
    );
    record::write_section(&out, "knowledge", &body).expect("write the benchmarks file");
    println!("{body}");
}
