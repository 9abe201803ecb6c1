//! MCP Apps in Chromium, end to end: a real MCP server (`mcp_app_server.py`, the official
//! Python SDK) whose tool's results a `ui://` page shows, installed through Settings ›
//! Tools, called by a scripted model through the real edge. The page runs in the app
//! sandbox: it gets the call's input and result, its tool calls reach only its own
//! server's app tools, a destructive one waits for the user (denied, then allowed once),
//! every way out of the sandbox it tries fails, and after a reload it is shown again
//! only when asked, from what was stored.

use hearth_e2e::chat::{chat_bodies, offered_tools, open_latest, prepare, reload_in_theme, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::tool_peers::{install, mcp_app_server, mcp_url, peer_stats};
use hearth_e2e::{AppSession, Browser};
use serde_json::{Value, json};

/// How many times the server counted `name` (a tool's calls, or `beacon`).
async fn count(port: u16, name: &str) -> u64 {
    peer_stats(port).await[name].as_u64().unwrap_or(0)
}

/// Runs `script` inside the app's page (the view in the proxy in the app's frame), then
/// comes back to the app; `None` while the page is not there yet.
async fn try_in_page(session: &Browser, script: &str) -> Option<Value> {
    let index = session
        .js(
            "return [...document.querySelectorAll('iframe')]
               .indexOf(document.querySelector('.mcp-app__frame'))",
            vec![],
        )
        .await
        .as_i64()
        .filter(|i| *i >= 0)? as u16;
    session.client.enter_frame(index).await.ok()?;
    let value = match session.client.enter_frame(0).await {
        Ok(()) => {
            let value = session.js(script, vec![]).await;
            session
                .client
                .enter_parent_frame()
                .await
                .expect("the proxy");
            Some(value)
        }
        Err(_) => None,
    };
    session.client.enter_parent_frame().await.expect("the app");
    value
}

/// [`try_in_page`] once the page is there.
async fn in_page(session: &Browser, script: &str) -> Value {
    try_in_page(session, script)
        .await
        .expect("the app's page is shown")
}

/// Waits until `expression` holds inside the app's page.
async fn page_until(session: &Browser, expression: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let probe =
            format!("try {{ return Boolean({expression}); }} catch (e) {{ return false; }}");
        let held = try_in_page(session, &probe).await;
        if held == Some(json!(true)) {
            return;
        }
        if std::time::Instant::now() > deadline {
            let now = try_in_page(session, "return document.body.innerText").await;
            let host = session
                .js(
                    "return document.querySelector('.mcp-app')?.outerHTML ?? 'no app'",
                    vec![],
                )
                .await;
            panic!("never held in the page: {expression}; the page shows {now:?}; the app: {host}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    }
}

/// Waits until the page's element `id` says `text`.
async fn page_shows(session: &Browser, id: &str, text: &str) {
    page_until(
        session,
        &format!(
            "document.getElementById('{id}').textContent === {}",
            json!(text)
        ),
    )
    .await;
}

/// Nothing the page tried reached the server's beacon, and the app is still on its
/// conversation.
async fn nothing_left(session: &Browser, port: u16) {
    assert_eq!(count(port, "beacon").await, 0, "a request left the sandbox");
    let path = session.js("return location.pathname", vec![]).await;
    assert!(
        path.as_str().unwrap_or_default().starts_with("/c/"),
        "the page navigated the app: {path}"
    );
}

async fn click_in_page(session: &Browser, id: &str) {
    in_page(session, &format!("document.getElementById('{id}').click()")).await;
}

#[tokio::test]
async fn an_mcp_app_shows_its_result_and_its_calls_are_confirmed_like_a_model_s() {
    let server = mcp_app_server();
    let port = server.port;
    let fixture = ProviderFixture::start().await;
    fixture.set_tool_models(true);
    let session = AppSession::open(1280, 900).await;
    prepare(&session, &fixture, None).await;
    let functions = install(&session, "mcp", &mcp_url(&server), "MCP server").await;
    let show = functions
        .iter()
        .find(|f| f.ends_with("show_counter"))
        .unwrap_or_else(|| panic!("no show_counter among {functions:?}"))
        .clone();
    session
        .wait_for("#tools-confirm")
        .await
        .select_by_value("destructive")
        .await
        .expect("confirm mode");
    session.close_settings().await;

    fixture.enqueue(Reply::text("").tool_call(&show, r#"{"start": 3}"#));
    fixture.enqueue(Reply::text("Here is the counter."));
    send(&session, "Show me a counter at 3").await;
    session.wait_for(".mcp-app__frame").await;

    // The model was offered the tools it may call, never those only the page may.
    let bodies = chat_bodies(&fixture);
    let offered = offered_tools(&bodies[0]);
    assert!(
        offered.iter().any(|n| n.ends_with("show_counter")),
        "{offered:?}"
    );
    assert!(
        offered.iter().any(|n| n.ends_with("model_only")),
        "{offered:?}"
    );
    assert!(
        !offered
            .iter()
            .any(|n| n.ends_with("bump") || n.ends_with("reset")),
        "app-only tools offered to the model: {offered:?}"
    );

    // The handshake, then the call's input and its structured result.
    page_shows(&session, "count", "count 3").await;
    assert_eq!(
        in_page(
            &session,
            "return [document.getElementById('input').textContent, document.body.dataset.host,
                     document.body.dataset.tool, document.getElementById('theme').textContent]"
        )
        .await,
        json!([
            "input {\"start\":3}",
            "Hearth",
            "show_counter",
            "theme light"
        ])
    );
    // The page asked for its height, within the host's bounds.
    session
        .wait_until(
            "document.querySelector('.mcp-app__frame').getBoundingClientRect().height === 320",
        )
        .await;
    let note = session.text_of(".mcp-app__note").await;
    assert!(note.contains("https://api.counter.example"), "{note}");

    // Every way out of the sandbox failed: nothing reached the server's beacon, the app
    // stayed where it was, and the top window ignored the call posted straight to it.
    page_until(
        &session,
        "document.getElementById('escapes').textContent !== ''",
    )
    .await;
    let tried: Value = serde_json::from_str(
        in_page(
            &session,
            "return document.getElementById('escapes').textContent",
        )
        .await
        .as_str()
        .unwrap(),
    )
    .expect("what the page tried");
    for blocked in [
        "parent",
        "top",
        "cookie",
        "localStorage",
        "indexedDB",
        "fetch",
        "image",
        "websocket",
    ] {
        assert_eq!(tried[blocked], "blocked", "{blocked}: {tried}");
    }
    assert_ne!(tried["open"], "[object Window]", "a popup opened: {tried}");
    assert_eq!(tried["openLink"], "refused -32601", "{tried}");
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    nothing_left(&session, port).await;
    assert_eq!(
        count(port, "reset").await,
        0,
        "the call posted past the proxy ran"
    );

    // An app tool runs (external: no question in this mode) and its result comes back.
    click_in_page(&session, "bump").await;
    page_shows(&session, "status", "bump done").await;
    page_shows(&session, "count", "count 5").await;
    assert_eq!(count(port, "bump").await, 1);
    assert_eq!(
        session.text_of(".mcp-app__activity").await,
        "The app ran bump."
    );

    // A message the page offers goes into the composer for the user to send, or not:
    // nothing is sent.
    let requests = chat_bodies(&fixture).len();
    click_in_page(&session, "ask").await;
    page_shows(&session, "status", "message offered").await;
    session
        .wait_until("document.getElementById('composer-input').value === 'Why is the count 5?'")
        .await;
    assert_eq!(
        chat_bodies(&fixture).len(),
        requests,
        "the page's message was sent"
    );
    assert_eq!(
        session.text_of(".mcp-app__activity").await,
        "The app put a message in your draft."
    );
    session
        .js(
            "const input = document.getElementById('composer-input');
             input.value = ''; input.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![],
        )
        .await;

    // A tool only the model may call is refused without reaching the server.
    click_in_page(&session, "sneak").await;
    page_until(
        &session,
        "document.getElementById('status').textContent.startsWith('model_only not run: the tool model_only may not be called by an app')",
    )
    .await;
    assert_eq!(count(port, "model_only").await, 0);

    // A destructive tool waits for the user: denied, nothing runs and the page is told.
    click_in_page(&session, "reset").await;
    session.wait_for("[data-app-confirm=reset]").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        count(port, "reset").await,
        0,
        "nothing runs before the user answers"
    );
    // The question takes the focus (the page asked from inside its frame).
    session
        .wait_until("document.activeElement?.dataset.appAnswer === 'deny'")
        .await;
    session.screenshot("mcp-app-confirm").await;
    session.click_by_script("[data-app-answer=deny]").await;
    session
        .wait_until("document.activeElement?.classList.contains('mcp-app__frame')")
        .await;
    page_until(
        &session,
        "document.getElementById('status').textContent.startsWith('reset not run: The user denied')",
    )
    .await;
    assert_eq!(count(port, "reset").await, 0);
    assert_eq!(
        session.text_of(".mcp-app__activity").await,
        "You denied reset."
    );
    // Allowed once: it runs.
    click_in_page(&session, "reset").await;
    session.wait_for("[data-app-confirm=reset]").await;
    session.click_by_script("[data-app-answer=once]").await;
    page_shows(&session, "status", "reset done").await;
    page_shows(&session, "count", "count 0").await;
    assert_eq!(count(port, "reset").await, 1);
    session.screenshot("mcp-app").await;

    // After a reload (in the dark theme) the page is offered, not run; shown, it has the
    // stored result and the theme, and the model's tool is not called again.
    reload_in_theme(&session, "dark").await;
    open_latest(&session).await;
    session.wait_for("[data-action=mcp-app-show]").await;
    assert_eq!(
        session
            .js(
                "return document.querySelectorAll('.mcp-app__frame').length",
                vec![]
            )
            .await,
        json!(0)
    );
    session.click_by_script("[data-action=mcp-app-show]").await;
    session.wait_for(".mcp-app__frame").await;
    page_shows(&session, "count", "count 3").await;
    page_shows(&session, "theme", "theme dark").await;
    assert_eq!(count(port, "show_counter").await, 1);
    session.screenshot("mcp-app-dark").await;
    // Light chosen from the top bar while the page shows: it is told.
    session
        .click_by_script(".topbar__actions [aria-haspopup=menu]")
        .await;
    session
        .wait_until("[...document.querySelectorAll('[role=menu]')].some((m) => !m.hidden)")
        .await;
    session
        .js(
            "[...document.querySelectorAll('[role=menu]')].find((m) => !m.hidden)
               .querySelectorAll('[role=menuitemradio]')[1].click()",
            vec![],
        )
        .await;
    page_shows(&session, "theme", "theme light").await;
    // On a phone the page and its note fit the width.
    session.resize(390, 844).await;
    session
        .wait_until(
            "document.documentElement.scrollWidth <= window.innerWidth
             && getComputedStyle(document.getElementById('sidebar')).visibility === 'hidden'",
        )
        .await;
    session
        .js(
            "document.querySelector('.mcp-app').scrollIntoView({ block: 'start' })",
            vec![],
        )
        .await;
    session.screenshot("mcp-app-phone").await;
    session.resize(1280, 900).await;
    // The ways out that would leave the page: the app stays, and nothing arrives.
    click_in_page(&session, "leave").await;
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    nothing_left(&session, port).await;
    // Hidden again: the frame goes.
    session.click_by_script("[data-action=mcp-app-hide]").await;
    session
        .wait_until("document.querySelectorAll('.mcp-app__frame').length === 0")
        .await;
    // The app's frame refusing its beacons is the defence at work (a form's or a
    // frame's refusal is logged without its source, so it is known by the beacon's
    // address); nothing else.
    let beacon = format!("'http://127.0.0.1:{port}/");
    session
        .assert_no_console_errors_but(|message| {
            hearth_e2e::browser::sandbox_refusal(message)
                || (message.starts_with("security - ")
                    && message.contains(&beacon)
                    && message.contains("violates the following Content Security Policy"))
        })
        .await;
    session.finish().await;
}
