//! The two MCP protocol revisions, against servers that speak only one of them: the
//! Python SDK server in `tests/data/mcp_revision_server.py` (both revisions, or one with
//! `--only`) and npm `server-everything` (2025-11-25 only). Install negotiates the
//! stateless 2026-07-28 revision when the server has it and the handshake otherwise, the
//! plugin remembers which, later exchanges start in it (a handshake server is never probed
//! again), a server that changes revision between calls keeps working and the new choice
//! is remembered, and list results carry the server's caching hint.

mod support;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::peer::everything;
use support::revision::{count, function, install, restart, revision_server, stats};
use support::{Server, execute, get_json, post_json as post};

/// The revision the registry keeps for the plugin `id`.
async fn remembered(server: &Server, id: &str) -> Value {
    let listed = get_json(server, "/api/plugins/list").await;
    listed["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["plugin"]["id"] == id)
        .unwrap_or_else(|| panic!("{id} is not listed: {listed}"))["plugin"]["mcp"]["revision"]
        .clone()
}

async fn adds(server: &Server, installed: &Value) {
    let (status, added) = execute(
        server,
        installed,
        &function(installed, "add"),
        json!({"a": 2, "b": 40}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{added}");
    assert!(
        added["result"]["text"].as_str().unwrap().contains("42"),
        "{added}"
    );
}

#[tokio::test]
async fn each_server_is_spoken_to_in_its_own_revision_and_the_choice_is_remembered() {
    let server = Server::start(&[]);

    // Both revisions on offer: the stateless one is chosen, and nothing has a session.
    let both = revision_server(&[]);
    let installed = install(&server, &both.url()).await;
    assert_eq!(
        installed["registered"]["plugin"]["mcp"]["revision"],
        "2026-07-28"
    );
    adds(&server, &installed).await;
    let seen = stats(&both).await;
    assert_eq!(count(&seen, "initialize"), 0, "{seen}");
    assert_eq!(count(&seen, "sessions"), 0, "{seen}");
    assert!(
        count(&seen, "tools/call") == 1 && count(&seen, "stateless") >= 3,
        "{seen}"
    );

    // Only the stateless revision.
    let stateless = revision_server(&["--only", "stateless"]);
    let installed = install(&server, &stateless.url()).await;
    assert_eq!(
        installed["registered"]["plugin"]["mcp"]["revision"],
        "2026-07-28"
    );
    adds(&server, &installed).await;
    assert_eq!(count(&stats(&stateless).await, "initialize"), 0);

    // Only the handshake: found by the probe at install, then never probed again.
    let handshake = revision_server(&["--only", "handshake"]);
    let installed = install(&server, &handshake.url()).await;
    assert_eq!(
        installed["registered"]["plugin"]["mcp"]["revision"],
        "2025-11-25"
    );
    adds(&server, &installed).await;
    adds(&server, &installed).await;
    let seen = stats(&handshake).await;
    assert_eq!(count(&seen, "server/discover"), 1, "{seen}");
    assert_eq!(count(&seen, "initialize"), 3, "{seen}");
    assert_eq!(count(&seen, "tools/call"), 2, "{seen}");

    // npm server-everything speaks only the handshake revisions.
    let everything = everything();
    let installed = install(&server, &everything.url()).await;
    assert_eq!(
        installed["registered"]["plugin"]["mcp"]["revision"],
        "2025-11-25"
    );
    let echo = function(&installed, "echo");
    let (status, echoed) = execute(
        &server,
        &installed,
        &echo,
        json!({"message": "hello"}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{echoed}");
    assert!(echoed["result"]["text"].as_str().unwrap().contains("hello"));
}

#[tokio::test]
async fn a_server_that_changes_revision_between_calls_keeps_working() {
    let server = Server::start(&[]);
    let first = revision_server(&["--only", "stateless"]);
    let port = first.port;
    let installed = install(&server, &first.url()).await;
    let id = installed["registered"]["plugin"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    adds(&server, &installed).await;

    // Restarted in the same revision: nothing to notice.
    drop(first);
    let again = restart(port, &["--only", "stateless"]);
    adds(&server, &installed).await;
    assert_eq!(count(&stats(&again).await, "tools/call"), 1);

    // Replaced by a server that speaks only the handshake: the remembered start is
    // refused, the exchange negotiates again, the tool runs once, and the new revision
    // is remembered, so the next call starts with the handshake at once.
    drop(again);
    let older = restart(port, &["--only", "handshake"]);
    adds(&server, &installed).await;
    assert_eq!(remembered(&server, &id).await, "2025-11-25");
    adds(&server, &installed).await;
    let seen = stats(&older).await;
    assert_eq!(count(&seen, "tools/call"), 2, "{seen}");
    // The refused start and the probe of the negotiation; none after.
    assert_eq!(count(&seen, "server/discover"), 2, "{seen}");
    assert_eq!(count(&seen, "initialize"), 2, "{seen}");

    // Upgraded again: the handshake is refused, the stateless revision found and kept.
    drop(older);
    let newer = restart(port, &["--only", "stateless"]);
    let (status, prompts) = post(
        &server,
        "/api/mcp/prompts",
        json!({"pluginId": id, "action": "list"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{prompts}");
    assert_eq!(prompts["prompts"][0]["name"], "greet", "{prompts}");
    assert_eq!(remembered(&server, &id).await, "2026-07-28");
    adds(&server, &installed).await;
    let seen = stats(&newer).await;
    assert_eq!(count(&seen, "tools/call"), 1, "{seen}");
    assert_eq!(count(&seen, "sessions"), 0, "{seen}");

    // Gone: a clear error, not a hang, and the remembered revision is kept.
    drop(newer);
    let (status, down) = execute(
        &server,
        &installed,
        &function(&installed, "add"),
        json!({"a": 1, "b": 1}),
        None,
    )
    .await;
    assert!(status.is_server_error(), "{down}");
    assert!(down["code"].is_string(), "{down}");
    assert_eq!(remembered(&server, &id).await, "2026-07-28");
}

#[tokio::test]
async fn list_results_carry_the_servers_caching_hint() {
    let server = Server::start(&[]);
    let hinted = revision_server(&["--list-ttl-ms", "60000", "--cache-scope", "public"]);
    let installed = install(&server, &hinted.url()).await;
    let id = installed["registered"]["plugin"]["id"].clone();
    for (route, key) in [
        ("/api/mcp/prompts", "prompts"),
        ("/api/mcp/resources", "resources"),
    ] {
        let (status, listed) =
            post(&server, route, json!({"pluginId": id, "action": "list"})).await;
        assert_eq!(status, StatusCode::OK, "{listed}");
        let expected = if key == "prompts" { 1 } else { 2 };
        assert_eq!(listed[key].as_array().unwrap().len(), expected, "{listed}");
        let ttl = listed["ttlMs"].as_u64().expect("a ttlMs");
        assert!(ttl > 50_000 && ttl <= 60_000, "{listed}");
        assert_eq!(listed["cacheScope"], "public", "{listed}");
    }
    // A read is not a list: its result is the server's, without a list hint added.
    let (status, read) = post(
        &server,
        "/api/mcp/resources",
        json!({"pluginId": id, "action": "read", "uri": "note://today"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["contents"][0]["text"], "The note for today.", "{read}");
    let (status, read) = post(
        &server,
        "/api/mcp/resources",
        json!({"pluginId": id, "action": "read", "uri": "note://logo.png"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["contents"][0]["mimeType"], "image/png", "{read}");
    assert!(
        read["contents"][0]["blob"]
            .as_str()
            .unwrap()
            .starts_with("iVBORw0KGgo"),
        "{read}"
    );

    // A handshake server gives no hint, and none is made up.
    let everything = everything();
    let installed = install(&server, &everything.url()).await;
    let (status, listed) = post(
        &server,
        "/api/mcp/prompts",
        json!({"pluginId": installed["registered"]["plugin"]["id"], "action": "list"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert!(
        !listed["prompts"].as_array().unwrap().is_empty(),
        "{listed}"
    );
    assert!(
        listed.get("ttlMs").is_none() && listed.get("cacheScope").is_none(),
        "{listed}"
    );
}

#[tokio::test]
async fn a_tool_whose_argument_is_mirrored_in_a_header_is_called_with_that_header() {
    let server = Server::start(&[]);
    // 2026-07-28: the server refuses a `tools/call` without `Mcp-Param-Region`.
    let stateless = revision_server(&["--only", "stateless"]);
    let installed = install(&server, &stateless.url()).await;
    let forecast = function(&installed, "forecast");
    let (status, answer) = execute(
        &server,
        &installed,
        &forecast,
        json!({"region": "eu-west", "days": 2}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(
        answer["result"]["text"]
            .as_str()
            .unwrap()
            .contains("Sunny in eu-west for 2 day(s)"),
        "{answer}"
    );
    // A tool with no such parameter is called at once, without a listing first.
    adds(&server, &installed).await;
    let seen = stats(&stateless).await;
    assert_eq!(count(&seen, "region-headers"), 1, "{seen}");
    assert_eq!(count(&seen, "tools/call"), 2, "{seen}");
    // Install's listing, and the one before the mirrored call.
    assert_eq!(count(&seen, "tools/list"), 2, "{seen}");

    // The handshake revision has no such headers, and needs no listing first.
    let handshake = revision_server(&["--only", "handshake"]);
    let installed = install(&server, &handshake.url()).await;
    let (status, answer) = execute(
        &server,
        &installed,
        &function(&installed, "forecast"),
        json!({"region": "ap-south"}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(
        answer["result"]["text"]
            .as_str()
            .unwrap()
            .contains("ap-south"),
        "{answer}"
    );
    let seen = stats(&handshake).await;
    assert_eq!(count(&seen, "tools/list"), 1, "{seen}");
}

/// `POST /api/plugins/refresh` for the plugin `id`.
async fn refresh(server: &Server, id: &Value) -> (StatusCode, Value) {
    post(server, "/api/plugins/refresh", json!({"pluginId": id})).await
}

/// The plugin `id` as `/api/plugins/list` answers it.
async fn listed(server: &Server, id: &Value) -> Value {
    let listed = get_json(server, "/api/plugins/list").await;
    listed["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["plugin"]["id"] == *id)
        .unwrap_or_else(|| panic!("{id} is not listed: {listed}"))
        .clone()
}

#[tokio::test]
async fn a_tool_list_keeps_as_long_as_the_server_says_and_is_listed_again_after() {
    let server = Server::start(&[]);

    // A list that keeps a minute says so in the plugin list.
    let kept = revision_server(&["--list-ttl-ms", "60000"]);
    let installed = install(&server, &kept.url()).await;
    let fresh = listed(&server, &installed["registered"]["plugin"]["id"]).await["toolsFreshForMs"]
        .as_u64()
        .expect("toolsFreshForMs");
    assert!(fresh > 50_000 && fresh <= 60_000, "{fresh}");

    // A list that keeps no time is stale at once; the server then gains a tool and
    // loses one.
    let changing = revision_server(&["--list-ttl-ms", "0"]);
    let installed = install(&server, &changing.url()).await;
    let id = installed["registered"]["plugin"]["id"].clone();
    assert_eq!(listed(&server, &id).await["toolsFreshForMs"], 0);
    let add = function(&installed, "add");
    let echo = function(&installed, "echo");
    let client = reqwest::Client::new();
    for hook in ["add-tool", "remove-tool"] {
        let url = format!("http://127.0.0.1:{}/test/{hook}", changing.port);
        assert!(client.post(url).send().await.unwrap().status().is_success());
    }
    let (status, refreshed) = refresh(&server, &id).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    let multiply = function(&refreshed, "multiply");
    assert_eq!(refreshed["added"], json!([multiply]), "{refreshed}");
    assert_eq!(refreshed["removed"], json!([echo]), "{refreshed}");
    // A tool it had keeps its name and, unchanged, its fingerprint.
    assert_eq!(function(&refreshed, "add"), add);
    assert_eq!(
        refreshed["registered"]["fingerprints"][&add],
        installed["registered"]["fingerprints"][&add]
    );
    assert_eq!(refreshed["registered"]["toolsFreshForMs"], 0);
    let (status, product) = execute(
        &server,
        &refreshed,
        &multiply,
        json!({"a": 6, "b": 7}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{product}");
    assert!(product["result"]["text"].as_str().unwrap().contains("42"));
    // The registry keeps the new list: it is what the next list answers, and a removed
    // tool can no longer be called.
    let now = listed(&server, &id).await;
    assert!(now["fingerprints"].get(&multiply).is_some(), "{now}");
    assert!(now["fingerprints"].get(&echo).is_none(), "{now}");
    let (status, gone) = execute(&server, &installed, &echo, json!({"message": "hi"}), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{gone}");
    let seen = stats(&changing).await;
    assert_eq!(count(&seen, "tools/list"), 2, "{seen}");
    assert_eq!(count(&seen, "initialize"), 0, "{seen}");

    // A handshake server gives no hint: nothing is made up, and it can still be listed
    // again on request.
    let everything = everything();
    let installed = install(&server, &everything.url()).await;
    let id = installed["registered"]["plugin"]["id"].clone();
    assert!(listed(&server, &id).await.get("toolsFreshForMs").is_none());
    let (status, refreshed) = refresh(&server, &id).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    assert_eq!(refreshed["added"], json!([]), "{refreshed}");
    assert_eq!(refreshed["removed"], json!([]), "{refreshed}");
    assert_eq!(
        refreshed["registered"]["plugin"]["functions"],
        installed["registered"]["plugin"]["functions"]
    );

    // Only an MCP plugin of one's own; a credential only sealed; a server gone is an
    // error that leaves the list as it was.
    let (status, missing) = refresh(&server, &json!("mcp-someone-else")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");
    let (status, plain) = post(
        &server,
        "/api/plugins/refresh",
        json!({"pluginId": id, "auth": {"apiKey": "sk-plain-secret"}}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{plain}");
    assert!(
        plain["error"]
            .as_str()
            .unwrap()
            .contains("encrypted BYOK envelope"),
        "{plain}"
    );
    let before = listed(&server, &id).await;
    drop(everything);
    let (status, down) = refresh(&server, &id).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{down}");
    assert_eq!(down["code"], "UPSTREAM_UNREACHABLE", "{down}");
    assert!(!down["error"].as_str().unwrap().contains("rmcp"), "{down}");
    assert_eq!(listed(&server, &id).await["plugin"], before["plugin"]);
}
