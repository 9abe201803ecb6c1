//! Previewing code from a reply in the artifact sandbox, on the real build in Chromium:
//! an HTML block's Preview shows it in a frame whose every way out fails (the app's
//! window and storage, top navigation, popups, forms, fetch, WebSocket, images to
//! another host: a listener counts that nothing reached it), and a JavaScript block
//! runs in a worker there that is stopped after its time limit, has no network or
//! storage, and whose output is capped. A sandbox page that never arrives is said. The
//! dialog closes with Escape and gives focus back to the button that opened it.

use fantoccini::key::Key;
use hearth_e2e::AppSession;
use hearth_e2e::chat::{last_status, prepare, ready, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::tap::counting_listener;
use serde_json::{Value, json};
use std::sync::atomic::Ordering;

/// An HTML page that tries every way out of the sandbox it knows and posts what
/// happened to the app's window (posting a message is the one thing it may do).
fn escape_room(port: u16) -> String {
    let target = format!("http://127.0.0.1:{port}");
    format!(
        r#"<h1>Escape room</h1>
<script>
const T = "{target}";
const r = {{}};
const tryIt = (name, f) => {{ try {{ const v = f(); r[name] = v === undefined ? "undefined" : String(v); }} catch (e) {{ r[name] = "blocked:" + e.name; }} }};
const attempt = (f) => new Promise((done) => {{ try {{ Promise.resolve(f()).then((v) => done("done:" + v), (e) => done("blocked:" + e.name)); }} catch (e) {{ done("blocked:" + e.name); }} }});
tryIt("parent", () => parent.document.title);
tryIt("top", () => top.document.title);
tryIt("topStorage", () => top.localStorage.getItem("secret"));
tryIt("localStorage", () => localStorage.getItem("secret"));
tryIt("cookie", () => document.cookie);
tryIt("indexedDB", () => indexedDB.open("hearth"));
tryIt("popup", () => window.open(T + "/popup"));
tryIt("form", () => {{ const f = document.createElement("form"); f.action = T + "/form"; f.method = "post"; document.body.append(f); f.submit(); return "submitted"; }});
tryIt("topLocation", () => {{ top.location.href = T + "/navigated"; return "assigned"; }});
const img = new Image(); img.src = T + "/image";
Promise.all([
  attempt(() => fetch(T + "/fetch")),
  attempt(() => fetch("/api/health")),
  attempt(() => caches.open("hearth")),
  new Promise((done) => {{ try {{ const ws = new WebSocket("ws://127.0.0.1:{port}/ws"); ws.onopen = () => done("open"); ws.onerror = () => done("blocked:error"); }} catch (e) {{ done("blocked:" + e.name); }} }}),
]).then(([fetchOut, fetchApp, cacheOpen, webSocket]) => {{
  Object.assign(r, {{ fetchOut, fetchApp, cacheOpen, webSocket }});
  top.postMessage({{ escape: r }}, "*");
}});
</script>"#
    )
}

/// Clicks the Preview button of the last reply's code block number `index`.
async fn open_preview(session: &AppSession, index: usize) {
    session
        .wait_until(&format!(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               ?.querySelectorAll('[data-action=\"preview-code\"]').length > {index}"
        ))
        .await;
    session
        .js(
            "[...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelectorAll('[data-action=\"preview-code\"]')[arguments[0]].focus();
             document.activeElement.click();",
            vec![json!(index)],
        )
        .await;
    session
        .wait_for("dialog.dialog--preview[open] .preview")
        .await;
}

/// Closes the preview with Escape; focus goes back to the button that opened it.
async fn close_preview(session: &AppSession, index: usize) {
    session.press(&[Key::Escape]).await;
    session
        .wait_until(&format!(
            "!document.querySelector('dialog.dialog--preview[open]') &&
             document.activeElement === [...document.querySelectorAll('.message--assistant')].at(-1)
               .querySelectorAll('[data-action=\"preview-code\"]')[{index}]"
        ))
        .await;
}

#[tokio::test]
async fn an_html_preview_runs_in_a_sandbox_that_nothing_escapes() {
    let (port, connections) = counting_listener().await;
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    // The page's own answer names the sandbox's policy.
    let response = reqwest::get(format!("{}/sandbox/artifact", session.stack.hearth.url()))
        .await
        .unwrap();
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    for directive in [
        "sandbox allow-scripts",
        "connect-src 'none'",
        "form-action 'none'",
    ] {
        assert!(policy.contains(directive), "{directive} missing: {policy}");
    }
    assert!(response.headers().get("x-frame-options").is_none());

    session
        .js(
            "localStorage.setItem('secret', 's3cr3t');
             window.escapes = [];
             window.addEventListener('message', (e) => { if (e.data && e.data.escape) window.escapes.push(e.data.escape); });",
            vec![],
        )
        .await;
    fixture.enqueue(Reply::text(format!(
        "Here is the page:\n\n```html\n{}\n```\n",
        escape_room(port)
    )));
    send(&session, "Make me an escape room").await;
    last_status(&session, "done").await;
    let app_url = session.js("return location.href", vec![]).await;
    open_preview(&session, 0).await;
    session.wait_until("window.escapes.length === 1").await;
    let found = session.js("return window.escapes[0]", vec![]).await;
    for name in [
        "parent",
        "top",
        "topStorage",
        "localStorage",
        "cookie",
        "indexedDB",
        "fetchOut",
        "fetchApp",
        "cacheOpen",
        "webSocket",
    ] {
        let outcome = found[name].as_str().unwrap_or_default();
        assert!(
            outcome.starts_with("blocked"),
            "{name}: {outcome} ({found})"
        );
    }
    assert_eq!(found["popup"], json!("null"), "{found}");
    assert!(!found.to_string().contains("s3cr3t"), "{found}");
    session.screenshot("artifact-preview-html").await;
    // Whatever the page tried, nothing reached another host and the app stayed put.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "a request left the sandbox"
    );
    assert_eq!(session.js("return location.href", vec![]).await, app_url);
    assert_eq!(
        session
            .js("return localStorage.getItem('secret')", vec![])
            .await,
        json!("s3cr3t")
    );
    close_preview(&session, 0).await;
    // The refusals are the browser's console errors (policy and sandbox); nothing else.
    session
        .assert_no_console_errors_but(|m| {
            m.contains("Content Security Policy")
                || m.contains("sandbox")
                || m.contains("Blocked")
                || m.contains("cross-origin")
                || m.contains("127.0.0.1:")
        })
        .await;
    session.browser.close().await;
}

/// The preview's status and output lines once its run has finished.
async fn finished_run(session: &AppSession) -> Value {
    session
        .wait_until("document.querySelector('dialog.dialog--preview[open] .preview')?.dataset.status.startsWith('finished')")
        .await;
    session
        .js(
            "const p = document.querySelector('dialog.dialog--preview[open] .preview');
             return {
               status: p.dataset.status,
               lines: [...p.querySelectorAll('.preview__line')].map((l) => l.textContent.trimEnd()),
               errors: p.querySelectorAll('.preview__line--error').length,
               cut: !!p.querySelector('.preview__cut'),
             };",
            vec![],
        )
        .await
}

#[tokio::test]
async fn a_script_preview_runs_in_a_worker_that_is_stopped_capped_and_offline() {
    let fixture = ProviderFixture::start().await;
    let session = ready(&fixture).await;
    fixture.enqueue(Reply::text(
        "Three scripts.\n\n\
         ```javascript\nconsole.log('sum', 1 + 2);\nconsole.warn({ a: 1 });\n\
         console.log(typeof fetch, typeof WebSocket, typeof indexedDB, typeof importScripts);\n\
         await new Promise((r) => setTimeout(r, 50));\nconsole.log('later');\n```\n\n\
         ```js\nconsole.log('start');\nwhile (true) {}\n```\n\n\
         ```js\nfor (let i = 0; i < 1000; i++) console.log('line ' + i);\n```\n",
    ));
    send(&session, "Run some scripts").await;
    last_status(&session, "done").await;

    open_preview(&session, 0).await;
    let run = finished_run(&session).await;
    assert_eq!(run["status"], json!("finished(done)"), "{run}");
    assert_eq!(
        run["lines"],
        json!([
            "sum 3",
            "{\"a\":1}",
            "undefined undefined undefined undefined",
            "later"
        ]),
        "{run}"
    );
    assert_eq!(run["errors"], json!(1), "the warning is marked: {run}");
    session.screenshot("artifact-preview-script").await;
    // Run again: a new frame and run; the output is the new run's only.
    session
        .js(
            "document.querySelector('dialog.dialog--preview[open] .preview__again').click()",
            vec![],
        )
        .await;
    let again = finished_run(&session).await;
    assert_eq!(again["lines"], run["lines"], "{again}");
    close_preview(&session, 0).await;

    open_preview(&session, 1).await;
    let run = finished_run(&session).await;
    assert_eq!(run["status"], json!("finished(timeout)"), "{run}");
    assert_eq!(run["lines"], json!(["start"]), "{run}");
    // Run again and Stop it: the worker ends by the stop (not the time limit), and the
    // focus goes to Run again.
    session
        .js(
            "document.querySelector('dialog.dialog--preview[open] .preview__again').click()",
            vec![],
        )
        .await;
    session
        .wait_until(
            "[...document.querySelectorAll('dialog.dialog--preview[open] .preview__line')]
               .some((l) => l.textContent.trim() === 'start')",
        )
        .await;
    session
        .click_by_script("dialog.dialog--preview[open] .preview__stop")
        .await;
    let stopped = finished_run(&session).await;
    assert_eq!(stopped["status"], json!("finished(stopped)"), "{stopped}");
    session
        .wait_until("document.activeElement?.classList.contains('preview__again')")
        .await;
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.preview__stop').length",
                vec![]
            )
            .await,
        json!(0)
    );
    close_preview(&session, 1).await;

    open_preview(&session, 2).await;
    let run = finished_run(&session).await;
    let lines = run["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 200, "{run}");
    assert_eq!(lines[199], json!("line 199"));
    assert_eq!(run["cut"], json!(true), "{run}");
    close_preview(&session, 2).await;
    session.finish().await;
}

#[tokio::test]
async fn a_preview_whose_sandbox_cannot_load_says_so() {
    let fixture = ProviderFixture::start().await;
    let (session, tap) = AppSession::open_through_tap(1280, 900).await;
    prepare(&session, &fixture, None).await;
    fixture.enqueue(Reply::text("A page:\n\n```html\n<p>hello</p>\n```\n"));
    send(&session, "Make me a page").await;
    last_status(&session, "done").await;
    // As a connection lost on the way, and nothing kept: the sandbox page never arrives
    // (the service worker keeps it for offline use; it is bypassed here).
    session.cdp("Network.enable", json!({})).await;
    session
        .cdp("Network.setBypassServiceWorker", json!({"bypass": true}))
        .await;
    tap.lose_every_answer_to("GET /sandbox/artifact ");
    open_preview(&session, 0).await;
    session
        .wait_until(
            "document.querySelector('dialog.dialog--preview[open] .preview')?.dataset.status === 'finished(unavailable)'",
        )
        .await;
    let status = session
        .js(
            "return document.querySelector('dialog.dialog--preview[open] .preview__status').textContent",
            vec![],
        )
        .await;
    assert_eq!(
        status,
        json!("The preview could not start. It needs a connection to Hearth."),
        "the failure is said, not left running"
    );
    close_preview(&session, 0).await;
    session
        .assert_no_console_errors_but(|m| {
            m.contains("/sandbox/artifact") || m.contains("ERR_BLOCKED")
        })
        .await;
    session.browser.close().await;
}
