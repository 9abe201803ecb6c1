//! Browsing the MCP registry from Settings › Tools: the edge fetches the registry over
//! real HTTPS (a registry served here with a certificate from a CA made for the test;
//! the edge trusts it through `SSL_CERT_FILE`), the tab shows a page, pages on, says why
//! a server cannot be installed, fills the install form from a server it can reach (its
//! endpoint, and the header its key goes in), and says a failed registry in the user's
//! language instead of showing it as empty.

#[allow(dead_code)]
#[path = "../../server/tests/support/tls.rs"]
mod tls;

use std::collections::HashMap;

use axum::Router;
use axum::extract::Query;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use hearth_e2e::{AppSession, Browser, Stack};
use serde_json::json;
use tls::{TestCa, serve_https};

const PAGE_1: &str = include_str!("../../server/tests/data/mcp_registry/page-1.json");
const PAGE_2: &str = include_str!("../../server/tests/data/mcp_registry/page-2.json");
const PAGE_1_CURSOR: &str = "io.github.legacy/events:1.0.0";

async fn servers(Query(params): Query<HashMap<String, String>>) -> impl IntoResponse {
    if params.get("search").map(String::as_str) == Some("broken") {
        return (
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"error":"database down"}"#,
        );
    }
    let body = match (
        params.get("search"),
        params.get("cursor").map(String::as_str),
    ) {
        (Some(_), _) => r#"{"servers":[],"metadata":{"count":0}}"#,
        (None, Some(PAGE_1_CURSOR)) => PAGE_2,
        (None, _) => PAGE_1,
    };
    (
        axum::http::StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
}

fn names(rows: &serde_json::Value) -> Vec<String> {
    serde_json::from_value(rows.clone()).unwrap_or_default()
}

#[tokio::test]
async fn the_registry_is_browsed_paged_and_fills_the_install_form() {
    let ca = TestCa::make();
    let port = serve_https(&ca, Router::new().route("/v0.1/servers", get(servers))).await;
    let registry = format!("https://127.0.0.1:{port}");
    let ca_file = ca.ca_file();
    let stack = Stack::start_with_env(&[
        ("HEARTH_MCP_REGISTRY_URL", &registry),
        ("SSL_CERT_FILE", &ca_file),
    ]);
    let browser = Browser::open(&stack, 1280, 900).await;
    browser.open_app("/").await;
    let session = AppSession { browser, stack };

    session.open_settings_tab("tools").await;
    session.click_by_script("#registry-search-submit").await;
    let rows = "return [...document.querySelectorAll('#registry-results .registry-row')]
                  .map((r) => r.dataset.registryName)";
    session
        .wait_until("document.querySelectorAll('#registry-results .registry-row').length === 3")
        .await;
    assert_eq!(
        names(&session.js(rows, vec![]).await),
        [
            "com.example.weather/forecast",
            "io.github.someone/files",
            "io.github.legacy/events"
        ]
    );
    // Only the server with a streamable-HTTP remote offers "Use this server".
    let offers = session
        .js(
            "return [...document.querySelectorAll('#registry-results .registry-row')]
               .map((r) => !!r.querySelector('[data-registry-use]'))",
            vec![],
        )
        .await;
    assert_eq!(offers, json!([true, false, false]));
    session
        .js(
            "const title = document.getElementById('registry-title');
             let box = title.parentElement;
             while (box && !(box.scrollHeight > box.clientHeight && getComputedStyle(box).overflowY !== 'visible')) {
               box = box.parentElement;
             }
             box.scrollTop += title.getBoundingClientRect().top - box.getBoundingClientRect().top;",
            vec![],
        )
        .await;
    session.screenshot("tools-registry").await;

    // The next page is appended.
    session.click_by_script("#registry-more").await;
    session
        .wait_until("document.querySelectorAll('#registry-results .registry-row').length === 4")
        .await;
    assert!(
        session
            .js("return !document.getElementById('registry-more')", vec![])
            .await
            .as_bool()
            .unwrap(),
        "the last page offers no more"
    );

    // Using a server fills the form with its HTTPS endpoint.
    session
        .click_by_script("[data-registry-name='com.example.weather/forecast'] [data-registry-use]")
        .await;
    session
        .wait_until(
            "document.getElementById('plugin-install-url')?.value === 'https://mcp.weather.example.com/mcp'
             && document.getElementById('plugin-install-kind').value === 'mcp'
             && document.getElementById('plugin-install-auth-header').value === 'X-Api-Key'",
        )
        .await;

    // A search with no match says so.
    let search = session.wait_for("#registry-search").await;
    search.send_keys("nothing like this").await.expect("type");
    session.click_by_script("#registry-search-submit").await;
    session.wait_for("#registry-empty").await;

    // A registry that fails is said, in the user's language, and never shown as "no
    // servers match".
    session.fill("#registry-search", "broken").await;
    session.click_by_script("#registry-search-submit").await;
    let failed = "document.getElementById('registry-error')?.textContent";
    let empty = "!document.getElementById('registry-empty')";
    session
        .wait_for_value(
            failed,
            &json!("The registry could not be browsed: The remote service answered with an error."),
        )
        .await;
    assert_eq!(
        session.js(&format!("return {empty}"), vec![]).await,
        json!(true)
    );
    session.close_settings().await;
    session.reload_in("ja").await;
    session.open_settings_tab("tools").await;
    session.fill("#registry-search", "broken").await;
    session.click_by_script("#registry-search-submit").await;
    session
        .wait_for_value(
            failed,
            &json!("レジストリを閲覧できませんでした：リモートサービスがエラーを返しました。"),
        )
        .await;
    assert_eq!(
        session.js(&format!("return {empty}"), vec![]).await,
        json!(true)
    );
    // The browser logs the edge's 502 for the failed page; nothing else.
    session
        .assert_no_console_errors_but(|m| m.contains("search=broken") && m.contains("502"))
        .await;
    session.finish().await;
}
