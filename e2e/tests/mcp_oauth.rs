//! Signing in to an OAuth-protected MCP server in Chromium, end to end: the real build,
//! the real edge, and the OAuth MCP server of the edge's tests (the Python SDK's
//! authorization server, accepting Client ID Metadata Documents, which it fetches from
//! the edge). The install says the server asks to sign in; the click opens the login
//! window, which comes back to `/oauth/callback.html`; the server is installed with the
//! session. A model's calls use the access token, refreshed through the edge when due; a
//! revoked grant makes the call fail with "sign in again" and Settings offers the sign-in,
//! after which calls work again; Sign out revokes the grant at the server, and says so
//! when the server cannot confirm it. Nothing of the browser's (its cookie) reaches the server.
//! A call that needs more than the grant (403 `insufficient_scope`) says so, and Settings
//! offers a sign-in that asks for the scope the server named. A blocked login window
//! signs in through the tab itself; a server that starts without a token but lists no
//! tools without one still asks to sign in.

use std::path::Path;

use hearth_e2e::chat::{last_status, last_tool_calls, prepare, send};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use hearth_e2e::tool_peers::{fill_mcp_install, mcp_oauth_server, mcp_url, peer_stats as stats};
use hearth_e2e::{AppSession, Browser};
use serde_json::{Value, json};

/// Whether the installed OAuth server's card says it is signed in.
async fn signed_in(session: &Browser) -> Value {
    session
        .js(
            "return document.querySelector('#plugins-installed .plugin-session')?.dataset.signedIn ?? null",
            vec![],
        )
        .await
}

/// Waits until the installed OAuth server's card says it is signed in, or signed out.
async fn wait_signed_in(session: &Browser, signed_in: bool) {
    session
        .wait_until(&format!(
            "document.querySelector('#plugins-installed .plugin-session')?.dataset.signedIn === '{signed_in}'"
        ))
        .await;
}

/// Every request the peer logged, as (path, headers).
fn logged(path: &Path) -> Vec<(String, Value)> {
    std::fs::read_to_string(path)
        .expect("the peer's log")
        .lines()
        .map(|line| {
            let entry: Value = serde_json::from_str(line).expect("a log line");
            (
                entry["path"].as_str().unwrap_or_default().to_string(),
                entry["headers"].clone(),
            )
        })
        .collect()
}

/// A Hearth session with tool-calling models on `fixture`, Settings › Tools open, the MCP
/// server at `url` submitted for install (with the plain `headers` lines, if any) and
/// the "sign in" state shown.
async fn install_asking_to_sign_in(
    fixture: &ProviderFixture,
    url: &str,
    headers: &str,
) -> AppSession {
    fixture.set_tool_models(true);
    let session = AppSession::open(1280, 900).await;
    prepare(&session, fixture, None).await;
    fill_mcp_install(&session, url).await;
    if !headers.is_empty() {
        session.fill("#plugin-install-headers", headers).await;
    }
    session.click_by_script("#plugin-install-submit").await;
    session.wait_for("#plugin-install-sign-in-needed").await;
    session
}

/// Makes the browser refuse every login window, as a pop-up blocker does (until the
/// page is loaded again).
async fn block_windows(session: &Browser) {
    session
        .js("window.open = Window.prototype.open = () => null", vec![])
        .await;
}

/// With windows blocked, the sign-in `start` button says so and offers this tab; the
/// tab goes to the authorization server's consent page, is allowed, and comes back to
/// Settings › Tools, which finishes the sign-in.
async fn sign_in_in_this_tab(session: &Browser, start: &str, shot: Option<&str>) {
    block_windows(session).await;
    session.click(start).await;
    let here = start.replace("-start", "-here");
    session.wait_for(&here).await;
    if let Some(name) = shot {
        session.screenshot(name).await;
    }
    session.click(&here).await;
    session.click("#allow").await;
    session.wait_for("#plugins-installed").await;
}

/// The reply made one call, settled as `status`, whose result contains `text`.
fn the_call_was(rows: &Value, status: &str, text: &str) {
    assert_eq!(rows[0][1], json!(status), "{rows}");
    assert!(
        rows[0][2].as_str().unwrap_or_default().contains(text),
        "{rows}"
    );
}

/// The model calls the function `name` once and then answers: that reply's calls, once
/// it is done.
async fn ask_tool(session: &AppSession, fixture: &ProviderFixture, name: &str) -> Value {
    let before = session
        .js(
            "return document.querySelectorAll('.message--assistant').length",
            vec![],
        )
        .await;
    fixture.enqueue(Reply::text("").tool_call(name, "{}"));
    fixture.enqueue(Reply::text("Answered."));
    send(session, "Who am I on that server?").await;
    // The new reply, not the last one (the user's message is `done` at once too).
    session
        .wait_until(&format!(
            "document.querySelectorAll('.message--assistant').length > {before}"
        ))
        .await;
    last_status(session, "done").await;
    last_tool_calls(session).await
}

#[tokio::test]
async fn an_mcp_server_that_asks_to_sign_in_is_signed_in_refreshed_and_signed_in_again() {
    let log = tempfile::NamedTempFile::new().expect("a log file");
    let peer = mcp_oauth_server(&[
        "--cimd".into(),
        "--no-registration".into(),
        // Shorter than the refresh margin: every call refreshes first.
        "--token-lifetime".into(),
        "5".into(),
        "--log".into(),
        log.path().to_string_lossy().into_owned(),
    ]);
    let fixture = ProviderFixture::start().await;
    fixture.set_tool_models(true);
    let session = AppSession::open(1280, 900).await;
    prepare(&session, &fixture, None).await;
    // A cookie of Hearth's own origin: it must never reach the MCP server.
    session
        .js(
            "document.cookie = 'hearth_probe=never-forwarded; path=/'",
            vec![],
        )
        .await;

    fill_mcp_install(&session, &mcp_url(&peer)).await;
    session.click_by_script("#plugin-install-submit").await;
    session.wait_for("#plugin-install-sign-in-needed").await;
    // The way on is focused (and so in view).
    session
        .wait_until("document.activeElement?.id === 'plugin-install-sign-in-start'")
        .await;
    session.screenshot("mcp-oauth-sign-in-needed").await;
    // A real click: the login window opens from it, or the browser blocks it.
    session.click("#plugin-install-sign-in-start").await;
    session
        .wait_until(
            "[...document.querySelectorAll('#plugins-installed [data-function]')]
               .some((f) => f.dataset.function.endsWith('whoami'))",
        )
        .await;
    assert_eq!(signed_in(&session).await, json!("true"));
    session
        .js(
            "document.querySelector('#plugins-installed .plugin-session').scrollIntoView({block: 'center'})",
            vec![],
        )
        .await;
    session.screenshot("mcp-oauth-signed-in").await;
    let whoami = session
        .js(
            "return [...document.querySelectorAll('#plugins-installed [data-function]')]
               .map((f) => f.dataset.function).find((n) => n.endsWith('whoami'))",
            vec![],
        )
        .await
        .as_str()
        .expect("the whoami function")
        .to_string();
    let counted = stats(peer.port).await;
    assert_eq!(counted["cimd_fetches"], 1, "{counted}");
    assert_eq!(counted["registrations"], 0, "{counted}");
    session.close_settings().await;

    // A call: the token was due, so it was refreshed first; the server knows Hearth by
    // its metadata document.
    let rows = ask_tool(&session, &fixture, &whoami).await;
    the_call_was(&rows, "done", "/oauth/client-metadata.json");
    assert!(stats(peer.port).await["refreshes"].as_u64() >= Some(1));

    // The server revokes the grant: the call fails saying to sign in again, and the
    // session is forgotten.
    reqwest::Client::new()
        .post(format!("http://127.0.0.1:{}/test/revoke-all", peer.port))
        .send()
        .await
        .expect("revoke");
    let rows = ask_tool(&session, &fixture, &whoami).await;
    the_call_was(&rows, "failed", "sign in again");
    session.open_settings_tab("tools").await;
    wait_signed_in(&session, false).await;
    session
        .js(
            "document.querySelector('#plugins-installed .plugin-session').scrollIntoView({block: 'center'})",
            vec![],
        )
        .await;
    session.screenshot("mcp-oauth-signed-out").await;
    session
        .click("#plugins-installed .plugin-sign-in button.button--primary")
        .await;
    wait_signed_in(&session, true).await;
    session.close_settings().await;
    let rows = ask_tool(&session, &fixture, &whoami).await;
    assert_eq!(rows[0][1], json!("done"), "{rows}");

    // Sign out revokes the grant at the server (RFC 7009) and forgets the session.
    let revocations = |log: &Path| logged(log).iter().filter(|(p, _)| p == "/revoke").count();
    assert_eq!(revocations(log.path()), 0);
    session.open_settings_tab("tools").await;
    session.click("#plugins-installed [data-sign-out]").await;
    wait_signed_in(&session, false).await;
    assert_eq!(revocations(log.path()), 1);

    // A server that cannot confirm the sign-out: the session is forgotten here all the
    // same, and the user is told the tokens may still work at the server.
    session
        .click("#plugins-installed .plugin-sign-in button.button--primary")
        .await;
    wait_signed_in(&session, true).await;
    drop(peer);
    session.click("#plugins-installed [data-sign-out]").await;
    session
        .wait_until(
            "document.querySelector('#plugins-installed .plugin-session')?.dataset.signedIn === 'false'
             && [...document.querySelectorAll('.toast')].some((t) => t.textContent.includes('did not confirm'))",
        )
        .await;
    session.close_settings().await;

    // Nothing of the browser's reached the server: no cookie, and no credential but the
    // issued token on the MCP endpoint.
    let requests = logged(log.path());
    assert!(
        requests.iter().any(|(path, _)| path == "/mcp"),
        "{requests:?}"
    );
    for (path, headers) in &requests {
        // The login window's own request is the browser's, not Hearth's; on one loopback
        // host the browser sends its cookies to every port (cookies are scoped by host),
        // which a real deployment's separate hosts do not share.
        if path == "/authorize" {
            continue;
        }
        let map = headers.as_object().expect("headers");
        assert!(!map.contains_key("cookie"), "{path}: {headers}");
        assert!(
            !headers.to_string().contains("never-forwarded"),
            "{path}: {headers}"
        );
        if let Some(authorization) = map.get("authorization").and_then(Value::as_str) {
            assert_eq!(
                path, "/mcp",
                "only the MCP endpoint gets a token: {headers}"
            );
            assert!(authorization.starts_with("Bearer "), "{path}: {headers}");
        }
    }
    // The browser logs the answers this test asked for (the install refused until the
    // sign-in, the refresh of the revoked grant, the sign-out with the server gone);
    // nothing else.
    session
        .assert_no_console_errors_but(|m| {
            (m.contains("/api/plugins/install") && m.contains("401"))
                || (m.contains("/api/mcp/oauth/token") && m.contains("502"))
                || (m.contains("/api/mcp/oauth/revoke") && m.contains("502"))
        })
        .await;
}

#[tokio::test]
async fn a_call_that_needs_more_access_says_so_and_a_wider_sign_in_gives_it() {
    let peer = mcp_oauth_server(&["--admin-scope".into()]);
    let fixture = ProviderFixture::start().await;
    let session = install_asking_to_sign_in(&fixture, &mcp_url(&peer), "").await;
    // A real click: the login window opens from it (registered for the server's scope).
    session.click("#plugin-install-sign-in-start").await;
    let admin = session
        .wait_for("#plugins-installed [data-function$='admin_report']")
        .await
        .attr("data-function")
        .await
        .expect("an attribute")
        .expect("the admin_report function");
    session.close_settings().await;

    // The grant does not reach this tool: the call fails saying more access is needed.
    let rows = ask_tool(&session, &fixture, &admin).await;
    the_call_was(&rows, "failed", "needs more access");
    // Sent once: the edge's refusal passes on the server's, it is not the edge's key.
    assert_eq!(stats(peer.port).await["insufficient_scope"], 1);

    // Settings says which scope, still signed in, and offers a sign-in that asks for it.
    session.open_settings_tab("tools").await;
    session
        .wait_for("#plugins-installed [data-more-access='mcp:tools mcp:admin']")
        .await;
    assert_eq!(signed_in(&session).await, json!("true"));
    session
        .js(
            "document.querySelector('[data-more-access]').scrollIntoView({block: 'center'})",
            vec![],
        )
        .await;
    session.screenshot("mcp-oauth-more-access").await;
    session
        .click("#plugins-installed [id$='-more-start']")
        .await;
    session
        .wait_until("!document.querySelector('#plugins-installed [data-more-access]')")
        .await;
    session.close_settings().await;

    let rows = ask_tool(&session, &fixture, &admin).await;
    the_call_was(&rows, "done", "admin report");
    // The console has the install's and the refused call's 401s, as expected; nothing else.
    session
        .assert_no_console_errors_but(|m| {
            m.contains("status of 401")
                && (m.contains("/api/plugins/install") || m.contains("/api/plugins/execute"))
        })
        .await;
}

#[tokio::test]
async fn a_blocked_login_window_signs_in_in_this_tab_and_comes_back_to_finish() {
    // Behind a gateway that wants a plain header, on the discovery probe too; a consent
    // page the user must allow.
    let peer = mcp_oauth_server(&[
        "--consent".into(),
        "--require-header".into(),
        "X-Gateway=team-a".into(),
    ]);
    let fixture = ProviderFixture::start().await;
    let session = install_asking_to_sign_in(&fixture, &mcp_url(&peer), "X-Gateway: team-a").await;

    // The window is blocked: the sign-in says so and continues in this tab, which comes
    // back to install the server with the session.
    sign_in_in_this_tab(
        &session,
        "#plugin-install-sign-in-start",
        Some("mcp-oauth-window-blocked"),
    )
    .await;
    session
        .wait_for("#plugins-installed [data-function$='whoami']")
        .await;
    assert_eq!(signed_in(&session).await, json!("true"));
    // The code left no trace: not in the address, not in the history's entries this tab
    // can read, not in its session storage.
    let trace = session
        .js(
            "return [location.search, location.hash,
                     sessionStorage.getItem('hearth-oauth-away'),
                     sessionStorage.getItem('hearth-oauth-return')]",
            vec![],
        )
        .await;
    assert_eq!(trace, json!(["", "#settings/tools", null, null]));
    let counted = stats(peer.port).await;
    assert_eq!(counted["authorizations"], 1, "{counted}");
    assert_eq!(counted["gateway_refusals"], 0, "{counted}");

    // Signed out, and in again from the server's card: the session is kept for it.
    session.click("#plugins-installed [data-sign-out]").await;
    wait_signed_in(&session, false).await;
    sign_in_in_this_tab(&session, "#plugins-installed [id$='-sign-in-start']", None).await;
    wait_signed_in(&session, true).await;
    assert_eq!(stats(peer.port).await["authorizations"], 2);
    let whoami = session
        .wait_for("#plugins-installed [data-function$='whoami']")
        .await
        .attr("data-function")
        .await
        .expect("an attribute")
        .expect("the whoami function");
    session.close_settings().await;
    // A call goes out with that session's token.
    let rows = ask_tool(&session, &fixture, &whoami).await;
    assert_eq!(rows[0][1], json!("done"), "{rows}");

    // An answer this tab did not leave for (forged, or replayed after it was used) is
    // refused and changes nothing.
    session
        .js(
            "sessionStorage.setItem('hearth-oauth-return', 'code=stolen&state=forged')",
            vec![],
        )
        .await;
    session.goto("/#settings/tools").await;
    let refused = session
        .wait_for("#plugin-sign-in-return[data-failed]")
        .await
        .text()
        .await
        .expect("the refusal");
    assert!(
        refused.contains("did not belong to this sign-in"),
        "{refused}"
    );
    assert_eq!(signed_in(&session).await, json!("true"));
    assert_eq!(
        session
            .js(
                "return sessionStorage.getItem('hearth-oauth-return')",
                vec![]
            )
            .await,
        Value::Null
    );
    session.screenshot("mcp-oauth-forged-answer").await;

    // The console has the install's 401 (the server asked to sign in) and what the
    // authorization server's own pages logged (its missing favicon); nothing else.
    let peer_page = format!("http://127.0.0.1:{}/", peer.port);
    session
        .assert_no_console_errors_but(|m| {
            (m.contains("/api/plugins/install") && m.contains("401")) || m.starts_with(&peer_page)
        })
        .await;
}

#[tokio::test]
async fn a_server_that_starts_without_a_token_still_asks_to_sign_in_and_lists_its_tools_after() {
    // LibreChat #13249's server: the handshake needs no token, the tool listing does.
    let peer = mcp_oauth_server(&["--lenient-start".into()]);
    let fixture = ProviderFixture::start().await;
    let session = install_asking_to_sign_in(&fixture, &mcp_url(&peer), "").await;
    let counted = stats(peer.port).await;
    assert!(
        counted["lenient_initializes"].as_u64() >= Some(1),
        "{counted}"
    );
    session.click("#plugin-install-sign-in-start").await;
    session
        .wait_for("#plugins-installed [data-function$='whoami']")
        .await;
    assert_eq!(signed_in(&session).await, json!("true"));
    session
        .assert_no_console_errors_but(|m| m.contains("/api/plugins/install") && m.contains("401"))
        .await;
}
