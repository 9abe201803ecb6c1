//! A deployment with features off, in Chromium: Settings says so where the user looks
//! for the feature (one sentence each) and does not offer what cannot work.
//!
//! The edge has no switch that turns plugins, MCP or the relay off, so the page's view of
//! `GET /api/config` is rewritten instead: a script Chromium runs before every document
//! (DevTools `Page.addScriptToEvaluateOnNewDocument`, which the page's CSP does not
//! govern) wraps `fetch` and sets the capabilities the test names. Everything else is the
//! real edge's answer.

use hearth_e2e::AppSession;
use serde_json::{Value, json};

/// Opens the app seeing `capabilities` merged over the edge's own.
async fn open_with(capabilities: Value) -> AppSession {
    let session = AppSession::open(1280, 900).await;
    let source = format!(
        "(() => {{
           const off = {capabilities};
           const fetch = window.fetch.bind(window);
           window.fetch = async (input, init) => {{
             const response = await fetch(input, init);
             const url = typeof input === 'string' ? input : input.url;
             if (!new URL(url, location.href).pathname.endsWith('/api/config')) return response;
             const body = await response.json();
             body.capabilities = Object.assign({{}}, body.capabilities, off);
             return new Response(JSON.stringify(body), {{
               status: response.status,
               headers: {{ 'content-type': 'application/json' }},
             }});
           }};
         }})();"
    );
    session
        .cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": source }),
        )
        .await;
    session.reload_app().await;
    session
}

async fn note(session: &AppSession, slug: &str) -> String {
    session
        .text_of(&format!("[data-capability-off='{slug}']"))
        .await
}

async fn absent(session: &AppSession, css: &str) -> bool {
    session
        .js(
            "return !document.querySelector(arguments[0])",
            vec![json!(css)],
        )
        .await
        .as_bool()
        .unwrap_or(false)
}

#[tokio::test]
async fn tools_and_the_relay_off_are_explained_and_not_offered() {
    let session = open_with(json!({
        "plugins": false,
        "mcp": false,
        "chatRelay": false,
    }))
    .await;

    session.open_settings_tab("tools").await;
    let text = note(&session, "tools").await;
    assert!(text.contains("off on this deployment"), "{text}");
    // Nothing to install, no registry to browse; the rest of the tab stays.
    session.wait_for("#tools-confirm").await;
    session.wait_for("#plugins-builtin").await;
    assert!(absent(&session, "#plugin-install-kind").await);
    assert!(absent(&session, "#registry-search").await);

    session.open_settings_tab("providers").await;
    session.click_by_script("#provider-add").await;
    let text = note(&session, "relay").await;
    assert!(text.contains("relay is off"), "{text}");
    assert!(absent(&session, "[data-capability-off='byok']").await);
    session.finish().await;
}

#[tokio::test]
async fn with_mcp_off_only_openapi_plugins_are_offered() {
    let session = open_with(json!({ "mcp": false })).await;
    session.open_settings_tab("tools").await;
    let text = note(&session, "mcp").await;
    assert!(text.contains("MCP servers are off"), "{text}");
    session
        .wait_until(
            "[...document.querySelectorAll('#plugin-install-kind option')].map((o) => o.value).join() === 'openapi-url,openapi-text'
             && document.getElementById('plugin-install-kind').value === 'openapi-url'",
        )
        .await;
    assert!(absent(&session, "#registry-search").await);
    assert!(absent(&session, "#plugin-install-token").await);
    // Everything on in the providers form: no note there.
    session.open_settings_tab("providers").await;
    session.click_by_script("#provider-add").await;
    session.wait_for("#provider-name").await;
    assert!(absent(&session, "[data-capability-off]").await);
    session.finish().await;
}
