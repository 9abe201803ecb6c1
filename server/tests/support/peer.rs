//! MCP test peers: a server process on a loopback port, killed on drop, and where
//! `scripts/setup.sh test` installed each peer.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::free_port;

/// An MCP server process on a loopback port, killed on drop.
pub struct Peer {
    child: Child,
    /// The port it listens on.
    pub port: u16,
}

impl Peer {
    /// Starts `command(port)` on a free port and waits until it listens. A port can be
    /// taken by some other listener between the probe and the peer's bind (the peer then
    /// exits with "address in use" while the port answers for someone else), so the peer
    /// must still be running once the port answers; otherwise another port is tried.
    pub fn spawn(command: impl Fn(u16) -> Command, name: &str) -> Self {
        for _ in 0..5 {
            let port = free_port();
            if let Some(peer) = Self::try_on(command(port), port, name) {
                return peer;
            }
        }
        panic!("the {name} found no free port in 5 tries");
    }

    /// Starts `command` on the fixed `port` (a restart on the address a test already
    /// installed); fails if the peer cannot have it.
    pub fn spawn_on(command: Command, port: u16, name: &str) -> Self {
        Self::try_on(command, port, name)
            .unwrap_or_else(|| panic!("the {name} could not listen on {port} again"))
    }

    /// The peer listening on `port`, or `None` if it exited (the port was taken).
    fn try_on(mut command: Command, port: u16, name: &str) -> Option<Self> {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the {name}: {e}"));
        let deadline = Instant::now() + Duration::from_secs(30);
        // Started only when this process itself holds the listening socket: a connect
        // that succeeds may reach another test's process on a port just freed.
        while !super::listening::listens_on(child.id(), port) {
            if let Ok(Some(_)) = child.try_wait() {
                return None;
            }
            assert!(Instant::now() < deadline, "the {name} did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Self { child, port })
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A test peer installed by `scripts/setup.sh test` under `.tools/` (or named by `env`).
pub fn tool(env: &str, default: &str) -> PathBuf {
    let path = std::env::var_os(env).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../.tools")
            .join(default)
    });
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup.sh test",
        path.display()
    );
    path
}

/// The command that runs npm `server-everything` in `streamableHttp` mode on `port`.
pub fn everything_command(port: u16) -> Command {
    let mut command = Command::new("node");
    command
        .arg(tool(
            "MCP_EVERYTHING",
            "mcp-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        ))
        .arg("streamableHttp")
        .env("PORT", port.to_string());
    command
}

/// npm `server-everything` on a free port.
pub fn everything() -> Peer {
    Peer::spawn(everything_command, "everything server")
}
