//! The global search in headless Chromium against the release build, recorded in
//! `docs/BENCHMARKS.md` (section `search-browser`): the same 100,000-message corpus as
//! the native benchmark (`bench/src/search_corpus.rs`) seeded into IndexedDB, then
//!
//! - the first build in the worker, from the palette opening to the index being ready,
//!   and the longest gap the page's main thread had between two tasks meanwhile;
//! - the query round trip from the page to the worker and back (the app's own
//!   `hearth:search:query` measure) over the fixed query set;
//! - the snapshot the worker saved in OPFS, and reopening from it after a reload.
//!
//! Figures come from the page's clock; nothing here asserts a time.

use std::path::PathBuf;
use std::time::Duration;

use hearth_bench::page;
use hearth_bench::search_corpus::{self, KINDS};
use hearth_e2e::AppSession;
use serde_json::{Value, json};

const CONVERSATIONS: usize = 2_000;
const PER_CONVERSATION: usize = 50;
/// How many conversations one seeding script writes.
const SEED_BATCH: usize = 100;

/// Writes `[{id, title, messages: [{id, content}]}]` into IndexedDB, each conversation a
/// chain of alternating user and assistant messages.
const SEED: &str = r#"
const [conversations, done] = [arguments[0], arguments[arguments.length - 1]];
const open = indexedDB.open('hearth');
open.onsuccess = () => {
  const tx = open.result.transaction(['conversations', 'messages'], 'readwrite');
  for (const c of conversations) {
    tx.objectStore('conversations').put({ id: c.id, title: c.title, titleByUser: true,
      pinned: false, activeRootId: c.messages[0].id, createdAt: c.at, updatedAt: c.at, rev: 1 });
    c.messages.forEach((m, i) => tx.objectStore('messages').put({ id: m.id,
      conversationId: c.id, parentId: i ? c.messages[i - 1].id : null,
      activeChildId: i + 1 < c.messages.length ? c.messages[i + 1].id : null,
      role: i % 2 ? 'assistant' : 'user', content: m.content, reasoning: '', status: 'done',
      createdAt: m.at, updatedAt: m.at, rev: 1 }));
  }
  tx.oncomplete = () => done(true);
  tx.onerror = () => done(String(tx.error));
};
"#;

/// Whether the worker's snapshot is in OPFS, and its size.
const SNAPSHOT: &str = r#"
const done = arguments[arguments.length - 1];
navigator.storage.getDirectory()
  .then((root) => root.getDirectoryHandle('search'))
  .then((dir) => dir.getFileHandle('conversations.idx'))
  .then((file) => file.getFile())
  .then((file) => done(file.size), () => done(0));
"#;

/// The time of the app's mark `name`, as a JS expression (parenthesised: `a ?? null - b
/// ?? null` would read as `a ?? (null - b) ?? null`, the first mark's absolute time).
fn mark_at(name: &str) -> String {
    format!("(performance.getEntriesByName('{name}')[0]?.startTime ?? null)")
}

/// The duration of the app's measure `name` (times the worker reported), as JS.
fn measured(name: &str) -> String {
    format!("(performance.getEntriesByName('{name}')[0]?.duration ?? null)")
}

/// Reads the measures `names` of the page, in milliseconds (NaN when missing).
async fn durations<const N: usize>(session: &AppSession, names: [&str; N]) -> [f64; N] {
    let list = names.map(measured).join(", ");
    let read = session.js(&format!("return [{list}];"), vec![]).await;
    std::array::from_fn(|i| read[i].as_f64().unwrap_or(f64::NAN))
}

async fn wait_for(session: &AppSession, expression: &str, timeout: Duration) {
    let started = std::time::Instant::now();
    while started.elapsed() < timeout {
        if session
            .js(&format!("return !!({expression})"), vec![])
            .await
            == json!(true)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {expression}");
}

async fn open_palette(session: &AppSession) {
    session.press_ctrl('k').await;
    session.wait_for(".search-palette__input").await;
}

/// The query's round trip: types it (as one input event) and reads the app's measure.
async fn query(session: &AppSession, text: &str) -> f64 {
    session
        .js(
            "performance.clearMeasures('hearth:search:query');
             const i = document.querySelector('.search-palette__input');
             i.value = arguments[0];
             i.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![json!(text)],
        )
        .await;
    let started = std::time::Instant::now();
    loop {
        let took = session
            .js(
                "return performance.getEntriesByName('hearth:search:query')[0]?.duration ?? null",
                vec![],
            )
            .await;
        if let Some(took) = took.as_f64() {
            return took;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no answer to {text:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "docs/BENCHMARKS.md".into()),
    );
    let label = std::env::var("BENCH_LABEL").unwrap_or_else(|_| "this machine".into());
    let corpus = search_corpus::generate(CONVERSATIONS, PER_CONVERSATION, 12);
    let queries = search_corpus::queries(&corpus, 34);
    let session = AppSession::open(1280, 900).await;

    // Seed: the corpus's conversations, each message a document of it.
    let mut conversations: Vec<Value> = Vec::new();
    for chunk in corpus.documents.chunk_by(|a, b| a.parent == b.parent) {
        conversations.push(json!({
            "id": chunk[0].parent,
            "title": chunk[0].title,
            "at": chunk.last().map(|d| d.timestamp),
            "messages": chunk.iter().map(|d| json!({
                "id": d.id, "content": d.body, "at": d.timestamp
            })).collect::<Vec<_>>(),
        }));
    }
    for batch in conversations.chunks(SEED_BATCH) {
        let seeded = session
            .client
            .execute_async(SEED, vec![json!(batch)])
            .await
            .expect("seed");
        assert_eq!(seeded, json!(true), "{seeded}");
    }
    session.reload_app().await;
    session.wait_for(".conversation-item__open").await;

    // The first build.
    session.js(page::GAPS, vec![]).await;
    open_palette(&session).await;
    wait_for(
        &session,
        &mark_at("hearth:search:built"),
        Duration::from_secs(600),
    )
    .await;
    let build = session
        .js(
            &format!(
                "window.__gaps.on = false;
                 return {{ start: {}, built: {}, maxGap: window.__gaps.max,
                   over16: window.__gaps.over16 }};",
                mark_at("hearth:search:start"),
                mark_at("hearth:search:built")
            ),
            vec![],
        )
        .await;
    let build_ms =
        build["built"].as_f64().unwrap_or(f64::NAN) - build["start"].as_f64().unwrap_or(0.0);
    let [reads, worker, records, compact] = durations(
        &session,
        [
            "hearth:search:build-reads",
            "hearth:search:build-worker",
            "hearth:search:build-records",
            "hearth:search:build-compact",
        ],
    )
    .await;

    // Queries, each kind apart.
    let mut by_kind: Vec<(&str, Vec<f64>)> = KINDS.iter().map(|k| (*k, Vec::new())).collect();
    let mut all = Vec::new();
    for (kind, text) in &queries {
        let took = query(&session, text).await;
        all.push(took);
        if let Some((_, times)) = by_kind.iter_mut().find(|(k, _)| k == kind) {
            times.push(took);
        }
    }
    all.sort_by(f64::total_cmp);

    // The snapshot the worker saves a few seconds after the build, and a reload.
    let mut snapshot_bytes = 0.0;
    for _ in 0..600 {
        snapshot_bytes = session
            .client
            .execute_async(SNAPSHOT, vec![])
            .await
            .expect("read OPFS")
            .as_f64()
            .unwrap_or(0.0);
        if snapshot_bytes > 0.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    session.reload_app().await;
    session.wait_for(".conversation-item__open").await;
    open_palette(&session).await;
    wait_for(
        &session,
        &mark_at("hearth:search:restored"),
        Duration::from_secs(120),
    )
    .await;
    let reopened = session
        .js(
            &format!(
                "return {} - {};",
                mark_at("hearth:search:restored"),
                mark_at("hearth:search:start")
            ),
            vec![],
        )
        .await
        .as_f64()
        .unwrap_or(f64::NAN);
    let created = session
        .js(
            &format!(
                "return {} - {};",
                mark_at("hearth:search:worker-began"),
                mark_at("hearth:search:worker-created")
            ),
            vec![],
        )
        .await
        .as_f64()
        .unwrap_or(f64::NAN);
    let [worker_start, file_read, restore] = durations(
        &session,
        [
            "hearth:search:worker-start",
            "hearth:search:open-read",
            "hearth:search:open-restore",
        ],
    )
    .await;
    let after_reload = query(&session, &queries[0].1).await;
    session.browser.close().await;

    let text_mib = corpus.text_bytes as f64 / 1_048_576.0;
    let mut rows = String::new();
    for (kind, times) in &mut by_kind {
        times.sort_by(f64::total_cmp);
        rows.push_str(&format!(
            "| {kind} | {:.2} ms | {:.2} ms | {:.2} ms |\n",
            percentile(times, 0.5),
            percentile(times, 0.95),
            times.last().copied().unwrap_or(f64::NAN)
        ));
    }
    let met = |ok: bool| if ok { "met" } else { "**missed**" };
    let p50 = percentile(&all, 0.5);
    let p95 = percentile(&all, 0.95);
    let max_gap = build["maxGap"].as_f64().unwrap_or(f64::NAN);
    let body = format!(
        "### Search in the browser\n\n{label}. Measured by `bench/src/bin/search_browser.rs` \
         in headless Chromium against the release build: {CONVERSATIONS} conversations of \
         {PER_CONVERSATION} messages ({} messages, {text_mib:.1} MiB of text, the native \
         benchmark's corpus) seeded into IndexedDB; the index is built by the search worker \
         (wasm) on the first use.\n\n\
         | measure | figure | budget |\n|---|---:|---|\n\
         | first build, palette opened → index ready | {:.0} ms | ≤ 1,500 ms ({}) |\n\
         | longest main-thread gap during the build | {max_gap:.1} ms ({} gaps over 16 ms) | no task over 16 ms ({}) |\n\
         | query round trip, {} queries: p50 | {p50:.2} ms | ≤ 2 ms ({}) |\n\
         | … p95 | {p95:.2} ms | ≤ 10 ms ({}) |\n\
         | … max | {:.2} ms | |\n\
         | snapshot in OPFS | {:.1} MiB ({:.0} % of the text) | |\n\
         | reopen after a reload (worker start + snapshot read) | {reopened:.0} ms | ≤ 200 ms ({}) |\n\
         | first query after the reload | {after_reload:.2} ms | |\n\n\
         Where the time went (the worker's own clock for its parts):\n\n\
         | part | time |\n|---|---:|\n\
         | build: the page waiting for IndexedDB's reads | {reads:.0} ms |\n\
         | build: the worker busy with the records posted to it | {worker:.0} ms |\n\
         | … of which reading the posted records into texts | {records:.0} ms |\n\
         | … and indexing them | {:.0} ms |\n\
         | build: the compaction at its end | {compact:.0} ms |\n\
         | reopen: the worker's thread made (the page's request → the worker's clock starting) | {created:.0} ms |\n\
         | reopen: the worker starting (its script and wasm loaded and compiled) | {worker_start:.0} ms |\n\
         | reopen: reading the snapshot's file | {file_read:.0} ms |\n\
         | reopen: restoring the index from it | {restore:.0} ms |\n\
         | reopen: the rest (posts between the page and the worker, the journal's check) | {:.0} ms |\n\n\
         | query kind | p50 | p95 | max |\n|---|---:|---:|---:|\n{rows}",
        corpus.documents.len(),
        build_ms,
        met(build_ms <= 1_500.0),
        build["over16"],
        met(max_gap <= 16.0),
        all.len(),
        met(p50 <= 2.0),
        met(p95 <= 10.0),
        all.last().copied().unwrap_or(f64::NAN),
        snapshot_bytes / 1_048_576.0,
        snapshot_bytes / corpus.text_bytes as f64 * 100.0,
        met(reopened <= 200.0),
        worker - records,
        reopened - created - worker_start - file_read - restore,
    );
    hearth_bench::record::write_section(&out, "search-browser", &body).expect("write the figures");
    println!("{body}");
}

#[cfg(test)]
mod tests {
    use super::{mark_at, measured};

    /// Each figure is a whole operand: `a ?? null - b ?? null` would subtract from
    /// `null`, not from the first mark.
    #[test]
    fn marks_and_measures_are_whole_operands() {
        for expression in [mark_at("a"), measured("a")] {
            assert!(
                expression.starts_with('(') && expression.ends_with(')'),
                "{expression}"
            );
            assert_eq!(
                expression.matches('(').count(),
                expression.matches(')').count()
            );
        }
    }
}
