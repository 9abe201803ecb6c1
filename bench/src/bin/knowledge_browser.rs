//! `knowledge_browser [BENCHMARKS.md]`: knowledge retrieval in a turn, in headless
//! Chromium against the release build, recorded in `docs/BENCHMARKS.md` (section
//! `knowledge-browser`). The native benchmark's library (`hearth_bench::knowledge_corpus`:
//! 1,000 Markdown documents, about 5 MB) is seeded as one collection (its record and its
//! files in the private file system); a conversation answers from it with `@`, and
//!
//! - the first question: the search worker starts, reads every file and indexes it;
//! - the next questions: the worker's kept index answers;
//! - the first question after a reload: a new worker takes the index it saved;
//!
//! each timed by the app's own measure of the `rag` phase (`hearth:knowledge:passages`,
//! from asking to the passages back), with the longest gap the page's main thread had
//! between two tasks meanwhile (a long gap is a long task). Nothing here asserts a time.

use std::time::Duration;

use hearth_bench::{knowledge_corpus, page, record};
use hearth_e2e::chat::{chat_bodies, last_status, ready, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

const DOCUMENTS: usize = 1_000;
/// Files seeded by one script.
const SEED_BATCH: usize = 100;
/// Questions answered by the kept index.
const WARM: usize = 10;

/// Keeps the durations of the app's `hearth:knowledge:passages` measures as they are
/// taken (the timeline itself may be cut at a soft navigation), each with the longest
/// main-thread gap from its start mark to it.
const OBSERVE: &str = r#"
window.__rag = [];
const mark = performance.mark.bind(performance);
const measure = performance.measure.bind(performance);
performance.mark = (...args) => {
  if (args[0] === 'hearth:knowledge:passages:start' && window.__gaps) window.__gaps.max = 0;
  return mark(...args);
};
performance.measure = (...args) => {
  const entry = measure(...args);
  if (args[0] === 'hearth:knowledge:passages') {
    window.__rag.push([entry.duration, window.__gaps ? window.__gaps.max : null]);
  }
  return entry;
};
"#;

/// Asks `question` and waits for the answer; the rag phase's time and the longest
/// main-thread gap during it (ms).
async fn ask(
    session: &hearth_e2e::AppSession,
    fixture: &ProviderFixture,
    question: &str,
) -> (f64, f64) {
    session.js(page::GAPS, vec![]).await;
    let before = chat_bodies(fixture).len();
    fixture.enqueue(Reply::text("From the library [1]."));
    send(session, question).await;
    let started = std::time::Instant::now();
    while chat_bodies(fixture).len() == before {
        assert!(started.elapsed() < Duration::from_secs(120), "no request");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    last_status(session, "done").await;
    let figures = session
        .js(
            "window.__gaps.on = false; return window.__rag.splice(0);",
            vec![],
        )
        .await;
    let [took, gap] = figures[0].as_array().map(Vec::as_slice).unwrap_or_default() else {
        panic!("one rag phase per question: {figures}");
    };
    (
        took.as_f64().unwrap_or(f64::NAN),
        gap.as_f64().unwrap_or(f64::NAN),
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let out = record::out_file();
    let label = record::label();
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let mut library = knowledge_corpus::library(DOCUMENTS, 1);
    library.collections[0].name = "Library".into();
    let bytes: usize = (0..DOCUMENTS)
        .map(|n| knowledge_corpus::document(n).len())
        .sum();
    let record_json = serde_json::to_value(&library).expect("the library as JSON");
    let files: Vec<Value> = library.collections[0]
        .files
        .iter()
        .map(|f| json!([f.content_path, knowledge_corpus::document_of(&f.id)]))
        .collect();
    for batch in files.chunks(SEED_BATCH) {
        hearth_e2e::knowledge::seed(&session, record_json.clone(), json!(batch)).await;
    }
    session.reload_app().await;
    session.js(OBSERVE, vec![]).await;
    hearth_e2e::knowledge::use_collection(&session, "@Libr", "library", "Library").await;

    let (cold, cold_gap) = ask(
        &session,
        &fixture,
        "How do I refinance the mortgage before the audit season?",
    )
    .await;
    let mut warm = Vec::new();
    let mut warm_gap: f64 = 0.0;
    for n in 0..WARM {
        let topic = ["catalyst", "sourdough", "kubernetes", "violin", "pagoda"][n % 5];
        let (took, gap) = ask(
            &session,
            &fixture,
            &format!("What do the notes say about the {topic} and its season?"),
        )
        .await;
        warm.push(took);
        warm_gap = warm_gap.max(gap);
    }
    warm.sort_by(f64::total_cmp);
    // A reload: a new worker takes the index saved beside the files.
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The conversation reopens from the address, still answering from the collection.
    session.reload_app().await;
    session.js(OBSERVE, vec![]).await;
    let (reloaded, reloaded_gap) = ask(
        &session,
        &fixture,
        "How do I refinance the mortgage before the audit season?",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    session.browser.close().await;

    let body = format!(
        "### Knowledge retrieval in the browser\n\n\
         {label}. Measured by `bench/src/bin/knowledge_browser.rs` in headless Chromium against \
         the release build: the native benchmark's {DOCUMENTS} Markdown documents ({:.1} MB) \
         seeded as one collection; a conversation answers from it. Each figure is the app's \
         measure of the `rag` phase (`hearth:knowledge:passages`: the question sent to the \
         search worker, the passages back); the gap is the longest the page's main thread \
         went without a turn meanwhile. Budget: a \
         question ≤ 30 ms at p95, no main-thread task over 16 ms (issue 13).\n\n\
         | step | figure | longest main-thread gap |\n|---|---:|---:|\n\
         | first question: the worker reads {DOCUMENTS} files and indexes them | {cold:.0} ms | {cold_gap:.1} ms |\n\
         | first question after a reload: the worker takes the index it saved | {reloaded:.0} ms | {reloaded_gap:.1} ms |\n\
         | next questions, kept index ({WARM}): median | {:.1} ms | {warm_gap:.1} ms (worst) |\n\
         | … worst | {:.1} ms | |\n",
        bytes as f64 / 1e6,
        warm[warm.len() / 2],
        warm.last().copied().unwrap_or(f64::NAN),
    );
    record::write_section(&out, "knowledge-browser", &body).expect("write the figures");
    println!("{body}");
}
