//! The protocol-revision MCP server of these tests (`tests/data/mcp_revision_server.py`,
//! the official Python SDK): started on a free port, its counters read, a plugin
//! installed from it and its functions found by tool name.

use std::path::PathBuf;
use std::process::Command;

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::Server;
use super::peer::{Peer, tool};
use super::post_json as post;

/// The revision server's command on `port` with `args`.
pub fn revision_command(port: u16, args: &[&str]) -> Command {
    let mut command = Command::new(tool("MCP_PYTHON", "mcp-py/bin/python"));
    command
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp_revision_server.py"))
        .arg(port.to_string())
        .args(args);
    command
}

/// The revision server on a free port.
pub fn revision_server(args: &[&str]) -> Peer {
    Peer::spawn(|port| revision_command(port, args), "revision server")
}

/// The revision server again on `port` (a restart, perhaps speaking another revision).
pub fn restart(port: u16, args: &[&str]) -> Peer {
    Peer::spawn_on(
        revision_command(port, args),
        port,
        "restarted revision server",
    )
}

/// The JSON-RPC requests the server at `peer` has counted, by method.
pub async fn stats(peer: &Peer) -> Value {
    reqwest::get(format!("http://127.0.0.1:{}/test/stats", peer.port))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

pub fn count(stats: &Value, key: &str) -> u64 {
    stats[key].as_u64().unwrap_or(0)
}

pub async fn install(server: &Server, url: &str) -> Value {
    let (status, installed) = post(server, "/api/plugins/install", json!({"mcpUrl": url})).await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    installed
}

/// The name the model sees for the server's tool `tool` in an install answer.
pub fn function(installed: &Value, tool: &str) -> String {
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
