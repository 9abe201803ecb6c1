//! The two MCP protocol revisions, against servers that speak only one of them: the
//! Python SDK server in `tests/data/mcp_revision_server.py` (both revisions, or one with
//! `--only`) and npm `server-everything` (2025-11-25 only). Install negotiates the
//! stateless 2026-07-28 revision when the server has it and the handshake otherwise, the
//! plugin remembers which, later exchanges start in it (a handshake server is never probed
//! again), a server that changes revision between calls keeps working and the new choice
//! is remembered, and list results carry the server's caching hint.

mod support;

use std::path::PathBuf;
use std::process::Command;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::peer::{Peer, everything, tool};
use support::{Server, execute, get_json, post_json as post};

/// The revision server's command on `port` with `args`.
fn revision_command(port: u16, args: &[&str]) -> Command {
    let mut command = Command::new(tool("MCP_PYTHON", "mcp-py/bin/python"));
    command
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp_revision_server.py"))
        .arg(port.to_string())
        .args(args);
    command
}

/// The revision server on a free port.
fn revision_server(args: &[&str]) -> Peer {
    Peer::spawn(|port| revision_command(port, args), "revision server")
}

/// The revision server again on `port` (a restart, perhaps speaking another revision).
fn restart(port: u16, args: &[&str]) -> Peer {
    Peer::spawn_on(
        revision_command(port, args),
        port,
        "restarted revision server",
    )
}

/// The JSON-RPC requests the server at `peer` has counted, by method.
async fn stats(peer: &Peer) -> Value {
    reqwest::get(format!("http://127.0.0.1:{}/test/stats", peer.port))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn count(stats: &Value, key: &str) -> u64 {
    stats[key].as_u64().unwrap_or(0)
}

async fn install(server: &Server, url: &str) -> Value {
    let (status, installed) = post(server, "/api/plugins/install", json!({"mcpUrl": url})).await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    installed
}

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

/// The name the model sees for the server's tool `tool` in an install answer.
fn function(installed: &Value, tool: &str) -> String {
    installed["registered"]["plugin"]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["tool"] == tool)
        .unwrap_or_else(|| panic!("no function for {tool}: {installed}"))["name"]
        .as_str()
        .unwrap()
        .to_string()
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
