//! The sandboxes in headless Chromium against the release build, recorded in
//! `docs/BENCHMARKS.md` (section `sandbox`):
//!
//! - a Mermaid diagram of 24 nodes: from its reply being done to its picture on screen,
//!   the first of a page (Mermaid fetched with its integrity checked and started in the
//!   diagram sandbox) and the next one on the same page;
//! - a 50 KB HTML artifact: from the Preview click to the page shown in the artifact
//!   sandbox (the first run also loads the preview's chunk);
//! - Save as PNG of a long reply (text, a table, code): from the menu choice to the file
//!   offered (the picture sandbox started, the reply laid out and drawn at 2×).
//!
//! Five pages, medians. Figures come from the page's clock (`performance.now`, checked
//! every animation frame); nothing here asserts a time.

use std::time::Duration;

use hearth_e2e::AppSession;
use hearth_e2e::chat::{last_status, open_reply_menu, ready, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::json;

const RUNS: usize = 5;

/// A flowchart of `nodes` nodes in a chain with cross links, its labels made unique by
/// `salt` (drawings are cached by source).
fn flowchart(nodes: usize, salt: usize) -> String {
    let mut source = String::from("flowchart TD\n");
    for i in 0..nodes {
        source.push_str(&format!(
            "  N{i}[\"Step {i} of run {salt}\"] --> N{}\n",
            i + 1
        ));
        if i % 4 == 0 && i + 3 < nodes {
            source.push_str(&format!("  N{i} -.-> N{}\n", i + 3));
        }
    }
    source
}

/// Milliseconds from the next assistant reply being done to `selector` inside it
/// existing (checked every frame), after sending `text` with `reply` queued.
async fn done_to(
    session: &AppSession,
    fixture: &ProviderFixture,
    reply: Reply,
    selector: &str,
) -> f64 {
    let before = session
        .js(
            "return document.querySelectorAll('.message--assistant').length",
            vec![],
        )
        .await
        .as_u64()
        .unwrap_or(0);
    session
        .js(
            "const [count, selector] = arguments;
             const probe = { done: null, there: null };
             window.__probe = probe;
             const loop = () => {
               const replies = document.querySelectorAll('.message--assistant');
               const reply = replies.length > count ? replies[replies.length - 1] : null;
               if (reply && probe.done === null && reply.dataset.status === 'done') probe.done = performance.now();
               if (reply && probe.done !== null && reply.querySelector(selector)) probe.there = performance.now();
               if (probe.there === null) requestAnimationFrame(loop);
             };
             requestAnimationFrame(loop);",
            vec![json!(before), json!(selector)],
        )
        .await;
    fixture.enqueue(reply);
    send(session, "Show it").await;
    session
        .wait_until_within("window.__probe.there !== null", Duration::from_secs(60))
        .await;
    let probe = session.js("return window.__probe", vec![]).await;
    probe["there"].as_f64().unwrap_or(0.0) - probe["done"].as_f64().unwrap_or(0.0)
}

/// Milliseconds from clicking the last reply's Preview to its page shown.
async fn preview(session: &AppSession) -> f64 {
    session
        .wait_until(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               ?.querySelector('[data-action=\"preview-code\"]')",
        )
        .await;
    let shown = session
        .js_async(
            "const done = arguments[arguments.length - 1];
             let t0 = null;
             const loop = () => {
               if (t0 === null) {
                 // The reply's final render may still replace its streamed one.
                 const button = [...document.querySelectorAll('.message--assistant')].at(-1)
                   ?.querySelector('[data-action=\"preview-code\"]');
                 if (button && button.isConnected) { t0 = performance.now(); button.click(); }
                 requestAnimationFrame(loop);
                 return;
               }
               const p = document.querySelector('dialog.dialog--preview[open] .preview');
               if (p && p.dataset.status === 'shown') done(performance.now() - t0);
               else requestAnimationFrame(loop);
             };
             requestAnimationFrame(loop);",
            vec![],
        )
        .await;
    session
        .js(
            "document.querySelector('dialog.dialog--preview[open]').dispatchEvent(
               new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));",
            vec![],
        )
        .await;
    session
        .wait_until("!document.querySelector('dialog.dialog--preview[open]')")
        .await;
    shown.as_f64().unwrap_or(0.0)
}

/// Milliseconds from choosing Save as PNG in the last reply's menu to the file being
/// offered (the download link's click, held back so no file is written), and the PNG's
/// size in bytes.
async fn save_png(session: &AppSession) -> (f64, f64) {
    open_reply_menu(session).await;
    session
        .wait_until("[...document.querySelectorAll('.menu__item')].some((i) => i.textContent.trim() === 'Save as PNG')")
        .await;
    let got = session
        .js_async(
            "const done = arguments[arguments.length - 1];
             const click = HTMLAnchorElement.prototype.click;
             const size = URL.createObjectURL;
             let bytes = 0;
             URL.createObjectURL = (blob) => { bytes = blob.size; return size.call(URL, blob); };
             let t0 = 0;
             HTMLAnchorElement.prototype.click = function () {
               if (!this.download.endsWith('.png')) return click.call(this);
               const ms = performance.now() - t0;
               HTMLAnchorElement.prototype.click = click;
               URL.createObjectURL = size;
               done([ms, bytes]);
             };
             t0 = performance.now();
             [...document.querySelectorAll('.menu__item')]
               .find((i) => i.textContent.trim() === 'Save as PNG').click();",
            vec![],
        )
        .await;
    (
        got[0].as_f64().unwrap_or(0.0),
        got[1].as_f64().unwrap_or(0.0),
    )
}

/// A long reply: sections of prose with a table and a code block each.
fn long_reply(sections: usize) -> String {
    let mut text = String::new();
    for s in 0..sections {
        text.push_str(&format!(
            "## Section {s}\n\nThis section explains step {s} of the plan in a few plain \
             sentences, with **bold** and `code` inside, so that the picture has real text \
             to lay out and draw across several lines of the reply.\n\n\
             | item | count | note |\n|---|---:|---|\n| apples | {} | fresh |\n| pears | {} | ripe |\n\n\
             ```rust\nfn step_{s}(input: u32) -> u32 {{\n    input * {s} + 1\n}}\n```\n\n",
            s * 3,
            s * 5
        ));
    }
    text
}

/// An HTML page of about `bytes` (a styled table).
fn page(bytes: usize) -> String {
    let mut html = String::from(
        "<!doctype html><html><head><style>td{padding:2px 6px;border:1px solid #ccc}</style></head><body><table>\n",
    );
    let mut row = 0;
    while html.len() < bytes {
        html.push_str(&format!(
            "<tr><td>{row}</td><td>Item number {row}</td><td>{}</td></tr>\n",
            row * 7
        ));
        row += 1;
    }
    html.push_str("</table></body></html>");
    html
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let out = hearth_bench::record::out_file();
    let label = hearth_bench::record::label();
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    let diagram = ".diagram__image";
    let (mut first, mut next) = (Vec::new(), Vec::new());
    for run in 0..RUNS {
        // A new page on a new chat: Mermaid is not running until the first diagram.
        session.open_app("/").await;
        let reply = |salt| {
            Reply::text(format!(
                "A flow.\n\n```mermaid\n{}```\n",
                flowchart(24, salt)
            ))
        };
        first.push(done_to(&session, &fixture, reply(run * 2), diagram).await);
        next.push(done_to(&session, &fixture, reply(run * 2 + 1), diagram).await);
    }
    let html = page(50 * 1024);
    session.open_app("/").await;
    let mut previews = Vec::new();
    for _ in 0..RUNS {
        fixture.enqueue(Reply::text(format!("A page.\n\n```html\n{html}\n```\n")));
        send(&session, "A page").await;
        last_status(&session, "done").await;
        previews.push(preview(&session).await);
    }
    let reply = long_reply(12);
    fixture.enqueue(Reply::text(reply.clone()));
    send(&session, "A long answer").await;
    last_status(&session, "done").await;
    let mut pictures = Vec::new();
    let mut picture_bytes = 0.0;
    for _ in 0..RUNS {
        let (ms, bytes) = save_png(&session).await;
        pictures.push(ms);
        picture_bytes = bytes;
    }
    session.finish().await;
    let first_preview = previews[0];
    let mut later_previews = previews[1..].to_vec();
    let row = |name: &str, values: &mut Vec<f64>| {
        let all: Vec<String> = values.iter().map(|v| format!("{v:.0}")).collect();
        format!("| {name} | {:.0} ms | {} |", median(values), all.join(", "))
    };
    let body = format!(
        "### The sandboxes\n\n{label}. Measured by `make bench` \
         (`bench/src/bin/sandbox_bench.rs`) in headless Chromium against the release build; \
         {RUNS} pages, medians (each run's figure after it).\n\n\
         | measure | median | runs (ms) |\n|---|---:|---|\n{}\n{}\n{}\n| 50 KB HTML artifact: Preview click → shown, the page's first (its chunk loaded) | {first_preview:.0} ms | |\n{}\n\n\
         A diagram's time runs from its reply being done to its picture on screen: the \
         first of a page includes fetching Mermaid (5.5 MB, 1.58 MB gzip; from the service \
         worker's cache once installed), checking its integrity and starting it in the \
         diagram sandbox; the next is the drawing alone.\n",
        row("Mermaid diagram, 24 nodes: the first of a page", &mut first),
        row("Mermaid diagram, 24 nodes: the next one", &mut next),
        row(
            "50 KB HTML artifact: Preview click → shown",
            &mut later_previews
        ),
        row(
            &format!(
                "Save as PNG, a reply of 12 sections ({} KB of Markdown; the PNG {:.0} KB): menu → file",
                reply.len() / 1024,
                picture_bytes / 1024.0
            ),
            &mut pictures
        ),
    );
    hearth_bench::record::write_section(&out, "sandbox", &body).expect("write the figures");
    println!("{body}");
}
