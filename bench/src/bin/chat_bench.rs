//! Browser benchmarks of the chat against the budgets in `shared/DESIGN.md`, run by
//! `make bench` and recorded in `docs/BENCHMARKS.md` (section `chat`). Figures come from
//! the page's own clock (`performance.now`, `requestAnimationFrame`, Long Animation
//! Frames) in headless Chromium against the real build; nothing here asserts a time.
//!
//! - (a) streaming a Markdown answer in chunks of ~50 characters (200 KiB in 4,000
//!   chunks, and 50 KiB in 1,000 for the growth check) against opening the same reply
//!   and rendering it once, and at a provider's pace (a chunk every 2 and 10 ms), with
//!   where the main thread's time went (style, layout, script, the rest);
//! - (b) opening a conversation of 10,000 messages and scrolling up forty viewports;
//! - (c) a cold start with 5,000 conversations in the sidebar.

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::key::Key;
use hearth_e2e::AppSession;
use hearth_e2e::chat::ready;
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::{Value, json};

/// Starts the in-page probe: every animation frame's time, Long Animation Frames, and
/// the first frame at which `DONE` (a JS expression, spliced in: the page's CSP forbids
/// `new Function`) holds.
const PROBE: &str = r#"
const bench = { frames: [], loaf: [], doneAt: null, statusAt: null, t0: performance.now(),
  heap0: performance.memory ? performance.memory.usedJSHeapSize : null };
window.__bench = bench;
const check = () => (DONE);
const status = () => {
  const m = [...document.querySelectorAll('.message')].at(-1);
  return m && m.dataset.status === 'done';
};
const loop = (t) => {
  bench.frames.push(t);
  if (bench.statusAt === null && status()) bench.statusAt = performance.now();
  if (bench.doneAt === null && check()) bench.doneAt = performance.now();
  if (bench.doneAt === null) requestAnimationFrame(loop);
};
requestAnimationFrame(loop);
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) bench.loaf.push(e.duration);
  }).observe({ type: 'long-animation-frame' });
} catch (_) {}
"#;

/// Reads the probe once it has finished.
const RESULT: &str = r#"
const b = window.__bench;
if (!b || b.doneAt === null) return null;
const frames = b.frames.filter((t) => t >= b.t0 && t <= b.doneAt);
let gap = 0;
for (let i = 1; i < frames.length; i++) gap = Math.max(gap, frames[i] - frames[i - 1]);
const wall = b.doneAt - b.t0;
return {
  wall,
  frames: frames.length,
  fps: frames.length / (wall / 1000),
  maxGap: gap,
  loafCount: b.loaf.length,
  loafTotal: b.loaf.reduce((a, d) => a + d, 0),
  lag: b.statusAt === null ? null : b.doneAt - b.statusAt,
  heapDelta: performance.memory && b.heap0 !== null
    ? performance.memory.usedJSHeapSize - b.heap0 : null,
  nodes: document.getElementsByTagName('*').length,
};
"#;

/// The last message is done and fully rendered (no block still waiting for the worker).
const REPLY_RENDERED: &str = "(() => { const m = [...document.querySelectorAll('.message')].at(-1); \
    return m && m.dataset.status === 'done' && m.querySelector('.md-block') && \
    !m.querySelector('.md-plain'); })()";

/// The page's main-thread time so far, in ms, from DevTools' performance metrics:
/// `TaskDuration` (every task the renderer's main thread ran; the Markdown worker's own
/// thread is not in it) and, inside it, style recalculation, layout and script.
async fn main_thread(session: &AppSession) -> Value {
    session.cdp("Performance.enable", json!({})).await;
    let metrics = session.cdp("Performance.getMetrics", json!({})).await;
    let value = |name: &str| {
        metrics["metrics"]
            .as_array()
            .and_then(|all| all.iter().find(|m| m["name"] == name))
            .and_then(|m| m["value"].as_f64())
            .unwrap_or(0.0)
    };
    json!({
        "mainThread": value("TaskDuration") * 1000.0,
        "style": value("RecalcStyleDuration") * 1000.0,
        "styleCount": value("RecalcStyleCount"),
        "layout": value("LayoutDuration") * 1000.0,
        "script": value("ScriptDuration") * 1000.0,
    })
}

/// Writes into `run` the main-thread time spent since `before` ([`main_thread`]).
async fn main_thread_since(session: &AppSession, before: &Value, run: &mut Value) {
    let after = main_thread(session).await;
    for key in ["mainThread", "style", "styleCount", "layout", "script"] {
        let spent = after[key].as_f64().unwrap_or(0.0) - before[key].as_f64().unwrap_or(0.0);
        run[key] = json!(spent);
    }
}

async fn probe(session: &AppSession, done: &str) {
    session.js(&PROBE.replace("DONE", done), vec![]).await;
}

async fn result(session: &AppSession) -> Value {
    for _ in 0..1200 {
        let value = session.js(RESULT, vec![]).await;
        if !value.is_null() {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let state = session
        .js(
            "const m = [...document.querySelectorAll('.message')].at(-1);
             return { bench: !!window.__bench, frames: window.__bench?.frames.length,
               status: m?.dataset.status, plain: m?.querySelectorAll('.md-plain').length,
               blocks: m?.querySelectorAll('.md-block').length,
               text: (m?.textContent ?? '').slice(0, 200) };",
            vec![],
        )
        .await;
    let log = session.console_log().await;
    panic!("the benchmark never finished: {state}\n{log:?}");
}

/// A Markdown answer of at least `bytes` bytes: headings, paragraphs, lists, code.
fn answer(bytes: usize) -> String {
    let mut text = String::new();
    let mut section = 0;
    while text.len() < bytes {
        section += 1;
        text.push_str(&format!(
            "## Section {section}\n\nA paragraph with **bold**, *emphasis*, `inline code` and a \
             [link](https://example.com/{section}). It goes on for a while so that the \
             block is of a realistic size, as model answers are.\n\n- first point\n- second \
             point with `code`\n- third point\n\n```rust\nfn section_{section}() -> u32 {{\n    \
             {section}\n}}\n```\n\n"
        ));
    }
    text
}

fn ms(value: &Value, key: &str) -> String {
    value[key]
        .as_f64()
        .map(|v| format!("{v:.0} ms"))
        .unwrap_or_else(|| "n/a".into())
}

fn number(value: &Value, key: &str) -> String {
    value[key]
        .as_f64()
        .map(|v| format!("{v:.0}"))
        .unwrap_or_else(|| "n/a".into())
}

fn mib(value: &Value, key: &str) -> String {
    value[key]
        .as_f64()
        .map(|v| format!("{:.1} MiB", v / 1_048_576.0))
        .unwrap_or_else(|| "n/a".into())
}

/// The flushes of a streamed reply: how many, and the median duration of the last five
/// (the text then is close to its full length).
fn flush_cost(v: &Value, key: &str) -> (usize, String) {
    let all: Vec<f64> = v[key]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default();
    let mut last: Vec<f64> = all.iter().rev().take(5).copied().collect();
    last.sort_by(f64::total_cmp);
    let median = last
        .get(last.len() / 2)
        .map(|m| format!("{m:.2} ms"))
        .unwrap_or_else(|| "n/a".into());
    (all.len(), median)
}

/// (a) One streamed reply of `bytes`, then the same reply opened after a reload.
async fn streaming(
    session: &AppSession,
    fixture: &ProviderFixture,
    bytes: usize,
    chunks: usize,
    delay_ms: u64,
) -> (Value, Value) {
    let text = answer(bytes);
    let per_chunk = text.chars().count().div_ceil(chunks);
    fixture.enqueue(
        Reply::text(text)
            .text_chunk_chars(per_chunk)
            .delay_ms(delay_ms),
    );
    session
        .js("document.querySelector('.sidebar__new')?.click()", vec![])
        .await;
    session.wait_for(".empty-state").await;
    let input = session.wait_for("#composer-input").await;
    input.send_keys("Write a long answer").await.expect("type");
    let before = main_thread(session).await;
    probe(session, REPLY_RENDERED).await;
    session.press(&[Key::Enter]).await;
    let mut streamed = result(session).await;
    main_thread_since(session, &before, &mut streamed).await;
    // The durations of the reply's 500 ms flushes (with the waits for IndexedDB) and of
    // the merges' own work, oldest (shortest text) first.
    streamed["flushes"] = session
        .js(
            "return performance.getEntriesByName('hearth:flush').map((e) => e.duration)",
            vec![],
        )
        .await;
    streamed["merges"] = session
        .js(
            "return performance.getEntriesByName('hearth:merge').map((e) => e.duration)",
            vec![],
        )
        .await;

    reload_at_new_chat(session).await;
    session.wait_for(".conversation-item__open").await;
    let before = main_thread(session).await;
    probe(session, REPLY_RENDERED).await;
    session
        .js(
            "document.querySelector('.conversation-item__open').click()",
            vec![],
        )
        .await;
    let mut once = result(session).await;
    main_thread_since(session, &before, &mut once).await;
    (streamed, once)
}

/// Reloads the page at `/`, a new chat. The address names the open conversation
/// (`/c/<id>`) and a reload reopens it, which would render the last reply again while a
/// run is being measured, or leave nothing to measure when that is the reply to open.
async fn reload_at_new_chat(session: &AppSession) {
    session
        .js("history.replaceState(null, '', '/')", vec![])
        .await;
    session.reload_app().await;
    session.wait_for(".empty-state").await;
}

/// Seeds a conversation of `count` messages straight into IndexedDB.
const SEED_MESSAGES: &str = r#"
const [count, done] = [arguments[0], arguments[arguments.length - 1]];
const open = indexedDB.open('hearth');
open.onsuccess = () => {
  const db = open.result;
  const tx = db.transaction(['conversations', 'messages'], 'readwrite');
  const now = Date.now();
  tx.objectStore('conversations').put({ id: 'bench-long', title: 'Ten thousand messages',
    titleByUser: true, pinned: true, activeRootId: 'm0', createdAt: now, updatedAt: now, rev: 1 });
  const messages = tx.objectStore('messages');
  for (let i = 0; i < count; i++) {
    const user = i % 2 === 0;
    messages.put({ id: 'm' + i, conversationId: 'bench-long',
      parentId: i === 0 ? null : 'm' + (i - 1),
      activeChildId: i === count - 1 ? null : 'm' + (i + 1),
      role: user ? 'user' : 'assistant',
      content: user ? 'Question ' + i + '?' : 'Answer **' + i + '** with `code` and a list:\n\n- a\n- b\n' + 'More text. '.repeat(i % 7),
      reasoning: '', status: 'done', createdAt: now + i, updatedAt: now + i, rev: 1 });
  }
  tx.oncomplete = () => done(true);
  tx.onerror = () => done(String(tx.error));
};
"#;

/// Seeds `count` conversation records (no messages).
const SEED_CONVERSATIONS: &str = r#"
const [count, done] = [arguments[0], arguments[arguments.length - 1]];
const open = indexedDB.open('hearth');
open.onsuccess = () => {
  const tx = open.result.transaction(['conversations'], 'readwrite');
  const store = tx.objectStore('conversations');
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    store.put({ id: 'c' + i, title: 'Conversation ' + i, titleByUser: false, pinned: false,
      activeRootId: null, createdAt: now - i * 1000, updatedAt: now - i * 1000, rev: 1 });
  }
  tx.oncomplete = () => done(true);
  tx.onerror = () => done(String(tx.error));
};
"#;

async fn seed(session: &AppSession, script: &str, count: usize) {
    let seeded = session
        .client
        .execute_async(script, vec![json!(count)])
        .await
        .expect("seed IndexedDB");
    assert_eq!(seeded, json!(true), "{seeded}");
}

/// `CHAT_BENCH_PROFILE=<prefix>`: CPU profiles of (b)'s open and scroll, written to
/// `<prefix>-open.cpuprofile` and `<prefix>-scroll.cpuprofile` (DevTools' format; a build
/// whose wasm keeps its names, `HEARTH_WASM_NAMES=1`, shows them).
async fn start_profile(session: &AppSession) {
    session.cdp("Profiler.enable", json!({})).await;
    session
        .cdp("Profiler.setSamplingInterval", json!({"interval": 200}))
        .await;
    session.cdp("Profiler.start", json!({})).await;
}

async fn stop_profile(session: &AppSession, path: &str) {
    let taken = session.cdp("Profiler.stop", json!({})).await;
    std::fs::write(path, taken["profile"].to_string()).expect("write the profile");
}

/// (b) Opens the 10,000-message conversation, then scrolls it to the top.
async fn long_conversation(session: &AppSession) -> (Value, Value) {
    seed(session, SEED_MESSAGES, 10_000).await;
    reload_at_new_chat(session).await;
    session.wait_for(".conversation-item__open").await;
    // Done when the last message is rendered and inside the list's visible box.
    probe(
        session,
        "(() => { const m = document.querySelector('[data-message-id=m9999]'); \
         const list = document.querySelector('.message-list'); \
         if (!m || !list || !m.querySelector('.md-block') || m.querySelector('.md-plain')) return false; \
         const a = m.getBoundingClientRect(), b = list.getBoundingClientRect(); \
         return a.bottom <= b.bottom + 1 && a.bottom > b.top; })()",
    )
    .await;
    let profile = std::env::var("CHAT_BENCH_PROFILE").ok();
    if profile.is_some() {
        start_profile(session).await;
    }
    let before = main_thread(session).await;
    session
        .js(
            "[...document.querySelectorAll('.conversation-item__open')]
               .find((b) => b.textContent.includes('Ten thousand')).click()",
            vec![],
        )
        .await;
    let mut opened = result(session).await;
    main_thread_since(session, &before, &mut opened).await;
    if let Some(path) = &profile {
        stop_profile(session, &format!("{path}-open.cpuprofile")).await;
    }
    // Scroll up forty viewports, one per frame, as a quick flick up the history would.
    session
        .wait_until("document.querySelector('.message-list').scrollTop > 0")
        .await;
    probe(session, "(window.__steps ?? 0) >= 40").await;
    let before = main_thread(session).await;
    if profile.is_some() {
        start_profile(session).await;
    }
    session
        .js(
            "window.__steps = 0;
             const list = document.querySelector('.message-list');
             const step = () => {
               list.scrollTop = Math.max(0, list.scrollTop - list.clientHeight);
               window.__steps += 1;
               if (window.__steps < 40) requestAnimationFrame(step);
             };
             requestAnimationFrame(step);",
            vec![],
        )
        .await;
    let mut scrolled = result(session).await;
    // Rows made during the flick are light until the list rests: how long until every
    // row is whole, and the longest frame gap meanwhile.
    let settled = session
        .js_async(
            "const done = arguments[arguments.length - 1];
             const start = window.__bench.doneAt;
             let last = performance.now(), gap = 0;
             const check = (t) => {
               gap = Math.max(gap, t - last); last = t;
               if (!document.querySelector('[data-light]')) done({ at: t - start, gap });
               else requestAnimationFrame(check);
             };
             requestAnimationFrame(check);",
            vec![],
        )
        .await;
    scrolled["settled"] = settled["at"].clone();
    scrolled["settleGap"] = settled["gap"].clone();
    main_thread_since(session, &before, &mut scrolled).await;
    if let Some(path) = &profile {
        stop_profile(session, &format!("{path}-scroll.cpuprofile")).await;
    }
    scrolled["nodes"] = session
        .js("return document.getElementsByTagName('*').length", vec![])
        .await;
    (opened, scrolled)
}

/// (c) A cold start with 5,000 conversations: when the shell and the sidebar are ready.
async fn many_conversations(session: &AppSession) -> Value {
    seed(session, SEED_CONVERSATIONS, 5_000).await;
    reload_at_new_chat(session).await;
    session
        .wait_until("performance.getEntriesByName('hearth:conversations').length > 0")
        .await;
    session
        .js(
            "const at = (n) => performance.getEntriesByName(n)[0]?.startTime ?? null;
             return { shell: at('hearth:shell'), sidebar: at('hearth:conversations'),
               items: document.querySelectorAll('.conversation-item').length,
               nodes: document.getElementsByTagName('*').length };",
            vec![],
        )
        .await
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "docs/BENCHMARKS.md".into()),
    );
    let label = std::env::var("BENCH_LABEL").unwrap_or_else(|_| "this machine".into());
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    // `CHAT_BENCH_PART=long`, `start` or `long,start`: only (b), (c) or both in turn, their
    // figures printed and nothing recorded (for comparing builds while working on one).
    if let Ok(parts) = std::env::var("CHAT_BENCH_PART") {
        let mut figures = serde_json::Map::new();
        for part in parts.split(',') {
            if part == "long" {
                let (opened, scrolled) = long_conversation(&session).await;
                figures.insert("opened".into(), opened);
                figures.insert("scrolled".into(), scrolled);
            } else if part == "start" {
                figures.insert("start".into(), many_conversations(&session).await);
            }
        }
        session.browser.close().await;
        println!("{}", Value::Object(figures));
        return;
    }
    let (small, small_once) = streaming(&session, &fixture, 50 * 1024, 1000, 0).await;
    let (large, large_once) = streaming(&session, &fixture, 200 * 1024, 4000, 0).await;
    // At a provider's pace (a chunk every 2 ms: 4,000 chunks over about 8 s).
    let (paced, _) = streaming(&session, &fixture, 200 * 1024, 4000, 2).await;
    // A slower provider: a chunk every 10 ms (about 40 s).
    let (slow, _) = streaming(&session, &fixture, 200 * 1024, 4000, 10).await;
    let (opened, scrolled) = long_conversation(&session).await;
    let start = many_conversations(&session).await;
    session.browser.close().await;

    let ratio_of = |key: &str, a: &Value, b: &Value| match (a[key].as_f64(), b[key].as_f64()) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "n/a".into(),
    };
    let ratio = |a: &Value, b: &Value| ratio_of("wall", a, b);
    let busy_ratio = |a: &Value, b: &Value| ratio_of("mainThread", a, b);
    let row = |name: &str, v: &Value| {
        format!(
            "| {name} | {} | {} | {} | {} fps | {} | {} ({}) | {} | {} |",
            ms(v, "wall"),
            ms(v, "mainThread"),
            number(v, "frames"),
            number(v, "fps"),
            ms(v, "maxGap"),
            number(v, "loafCount"),
            ms(v, "loafTotal"),
            ms(v, "lag"),
            mib(v, "heapDelta"),
        )
    };
    // Where a streamed reply's main-thread time went.
    let split = |name: &str, v: &Value| {
        let at = |key: &str| v[key].as_f64().unwrap_or(0.0);
        let share = if at("wall") > 0.0 {
            format!("{:.0} %", at("mainThread") / at("wall") * 100.0)
        } else {
            "n/a".into()
        };
        let other = at("mainThread") - at("style") - at("layout") - at("script");
        format!(
            "| {name} | {share} | {} ({}) | {} | {} | {other:.0} ms | {} |",
            ms(v, "style"),
            number(v, "styleCount"),
            ms(v, "layout"),
            ms(v, "script"),
            number(v, "nodes"),
        )
    };
    let breakdown = [
        split("(a) stream 50 KiB / 1,000 chunks", &small),
        split("(a) stream 200 KiB / 4,000 chunks", &large),
        split("(a) stream 200 KiB / 4,000 chunks, 2 ms apart", &paced),
        split("(a) stream 200 KiB / 4,000 chunks, 10 ms apart", &slow),
        split("(b) open 10,000 messages", &opened),
        split("(b) scroll up 40 viewports", &scrolled),
    ]
    .join("\n");
    let body = format!(
        "### Chat in the browser\n\n{label}. Measured by `make bench` (`bench/src/bin/chat_bench.rs`) \
         in headless Chromium against the release build; the provider fixture streams \
         without delays, so the wall time is the app's own work.\n\n\
         | run | wall | main thread busy | frames | rate | longest frame gap | long animation frames (total) | done → rendered | JS heap Δ |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n\
         {}\n{}\n{}\n{}\n{}\n{}\n{}\n\n\
         (a) Streaming in a burst against rendering once, main-thread busy time: {} at \
         50 KiB, {} at 200 KiB (wall time: {} and {}; 4× the text, so a ratio that stays \
         flat means the streaming work is O(n)). \
         At a provider's pace: {} frames a second, longest gap {}, final render {} after \
         the reply ended; near the end, at about 200 KiB of text, each of its {} flushes \
         (the partial reply written every 500 ms) took {} until IndexedDB had it, {} of it \
         the merge's own work on the main thread.\n\n\
         Where a streamed reply's (and the long conversation's) main-thread time went (busy share: main-thread busy \
         time over the wall time of the stream; style: recalculation time and count; \
         other: paint, commit, parsing and the rest; a burst's share can pass 100 %, since its \
         busy time is read a little after the frame that ends its wall time):\n\n\
         | run | busy share | style (recalculations) | layout | script | other | DOM nodes after |\n\
         |---|---:|---:|---:|---:|---:|---:|\n\
         {breakdown}\n\n\
         (b) 10,000 messages: last message on screen {} after the click, {} DOM nodes in \
         the page; scrolling up forty viewports, one per frame, took {} with a longest \
         frame gap of {}; the rows made during that flick (light: their text only) were all \
         whole {} after it ended, with a longest frame gap of {} meanwhile (the main-thread \
         split of the scroll includes that settling).\n\n\
         (c) 5,000 conversations: shell mounted at {}, sidebar listed at {} after \
         navigation start; {} items rendered, {} DOM nodes.\n",
        row("(a) stream 50 KiB / 1,000 chunks", &small),
        row("(a) open and render it once", &small_once),
        row("(a) stream 200 KiB / 4,000 chunks", &large),
        row("(a) open and render it once", &large_once),
        row("(a) stream 200 KiB / 4,000 chunks, 2 ms apart", &paced),
        row("(b) open 10,000 messages", &opened),
        row("(b) scroll up 40 viewports", &scrolled),
        busy_ratio(&small, &small_once),
        busy_ratio(&large, &large_once),
        ratio(&small, &small_once),
        ratio(&large, &large_once),
        number(&paced, "fps"),
        ms(&paced, "maxGap"),
        ms(&paced, "lag"),
        flush_cost(&paced, "flushes").0,
        flush_cost(&paced, "flushes").1,
        flush_cost(&paced, "merges").1,
        ms(&opened, "wall"),
        number(&opened, "nodes"),
        ms(&scrolled, "wall"),
        ms(&scrolled, "maxGap"),
        ms(&scrolled, "settled"),
        ms(&scrolled, "settleGap"),
        ms(&start, "shell"),
        ms(&start, "sidebar"),
        number(&start, "items"),
        number(&start, "nodes"),
    );
    hearth_bench::record::write_section(&out, "chat", &body).expect("write the figures");
    println!("{body}");
}
