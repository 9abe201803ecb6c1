//! Test support: a fake `dist/` and the real `hearth` binary on a free loopback port.

#![allow(dead_code)]

pub mod hosted;
pub mod listening;
pub mod openai_stream;
pub mod peer;
pub mod redis;
pub mod revision;
pub mod tls;

#[allow(unused_imports)]
pub use tls::TestCa;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The inline loader script placed in the fake index.html.
pub const INLINE_SCRIPT: &str = "import init from '/app-0123456789abcdef.js'; await init();";
/// The fake wasm module's bytes.
pub const WASM: &[u8] =
    b"\0asm\x01\0\0\0 pretend this is a module, repeated repeated repeated repeated";

/// Writes a small `dist/` shaped like a Trunk release build.
pub fn fake_dist(dir: &Path) {
    std::fs::create_dir_all(dir.join("icons")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        format!(
            "<!doctype html><html><head><script src=\"/boot.js\"></script>\
             <script type=\"module\">{INLINE_SCRIPT}</script></head><body></body></html>"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("app-0123456789abcdef.js"),
        "export default function init() {}\n".repeat(40),
    )
    .unwrap();
    std::fs::write(dir.join("app-0123456789abcdef_bg.wasm"), WASM).unwrap();
    std::fs::write(
        dir.join("main-fedcba9876543210.css"),
        "body{margin:0}\n".repeat(40),
    )
    .unwrap();
    std::fs::write(dir.join("boot.js"), "// boot\n").unwrap();
    std::fs::write(dir.join("sw.js"), "// the service worker\n").unwrap();
    std::fs::write(
        dir.join("icons/icon.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
    )
    .unwrap();
}

/// A free loopback port, never one this test process has handed out before: tests run
/// in parallel, and the kernel may offer a port again as soon as its probe is closed,
/// before the first test's peer has bound it.
pub fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// The real binary, with a clean environment plus `env`.
pub fn hearth_command(env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hearth"));
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (key, value) in env {
        command.env(key, value);
    }
    command
}

/// A running server; killed on drop.
pub struct Server {
    pub child: Child,
    pub port: u16,
    pub dist: tempfile::TempDir,
    pub data: tempfile::TempDir,
}

impl Server {
    /// Starts `hearth` on a fake dist with `env` added.
    pub fn start(env: &[(&str, &str)]) -> Self {
        // A caller's own HEARTH_ADDR wins (the later variable overrides the earlier one).
        let fixed = env
            .iter()
            .find(|(key, _)| *key == "HEARTH_ADDR")
            .and_then(|(_, addr)| addr.rsplit(':').next()?.parse().ok());
        // A port found free can be taken by another test's listener before hearth binds
        // it; then hearth exits and the port answers for someone else. Check that our own
        // process is the one listening, and try another port if it is not.
        for _ in 0..5 {
            let port = fixed.unwrap_or_else(free_port);
            match Self::start_on(port, env) {
                Ok(server) => return server,
                Err(stderr) if fixed.is_none() && stderr.contains("in use") => continue,
                Err(stderr) => panic!("hearth exited: {stderr}"),
            }
        }
        panic!("no free port for hearth after 5 tries");
    }

    fn start_on(port: u16, env: &[(&str, &str)]) -> Result<Self, String> {
        let dist = tempfile::tempdir().unwrap();
        fake_dist(dist.path());
        let addr = format!("127.0.0.1:{port}");
        let dist_path = dist.path().to_string_lossy().to_string();
        let data = tempfile::tempdir().unwrap();
        let data_path = data.path().to_string_lossy().to_string();
        let mut all = vec![
            ("HEARTH_ADDR", addr.as_str()),
            ("HEARTH_DIST_DIR", dist_path.as_str()),
            ("HEARTH_DATA_DIR", data_path.as_str()),
        ];
        all.extend_from_slice(env);
        let mut child = hearth_command(&all)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let exited = |child: &mut Child| -> Option<String> {
            child.try_wait().ok().flatten().map(|status| {
                let mut stderr = String::new();
                let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
                format!("{status}: {stderr}")
            })
        };
        // Wait until this very process holds the listening socket: a connect alone can
        // reach another test's listener on a port that was free a moment ago.
        let deadline = Instant::now() + Duration::from_secs(15);
        while !listening::listens_on(child.id(), port) {
            if let Some(why) = exited(&mut child) {
                return Err(why);
            }
            assert!(Instant::now() < deadline, "hearth did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(Self {
            child,
            port,
            dist,
            data,
        })
    }

    /// Starts `hearth` like [`Server::start`], with an environment of owned values.
    pub fn start_owned(env: &[(&str, String)]) -> Self {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        Self::start(&env)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Sends SIGTERM and returns (exit success, stderr).
    pub fn terminate(mut self) -> (bool, String) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(10);
        let exit = loop {
            if let Some(exit) = self.child.try_wait().unwrap() {
                break exit;
            }
            assert!(Instant::now() < deadline, "hearth ignored SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (exit.success(), stderr)
    }

    /// Sends `request` verbatim over a raw socket and returns the raw response.
    pub fn raw(&self, request: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        String::from_utf8_lossy(&response).to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// POSTs `body` as JSON to `path` on `server`; the status and the JSON answer (`null`
/// when the answer is not JSON).
/// `GET path` on `server`, its JSON body (panics on anything else).
pub async fn get_json(server: &Server, path: &str) -> serde_json::Value {
    reqwest::get(server.url(path))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

pub async fn post_json(
    server: &Server,
    path: &str,
    body: serde_json::Value,
) -> (reqwest::StatusCode, serde_json::Value) {
    let response = reqwest::Client::new()
        .post(server.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (
        status,
        response.json().await.unwrap_or(serde_json::Value::Null),
    )
}

/// Calls `function` of the plugin an install answer registered, with the fingerprint it
/// listed and, when given, the credential sealed for the plugin.
pub async fn execute(
    server: &Server,
    installed: &serde_json::Value,
    function: &str,
    args: serde_json::Value,
    auth: Option<serde_json::Value>,
) -> (reqwest::StatusCode, serde_json::Value) {
    let registered = &installed["registered"];
    let mut body = serde_json::json!({
        "pluginId": registered["plugin"]["id"],
        "function": function,
        "args": args,
        "fingerprint": registered["fingerprints"][function],
    });
    if let Some(auth) = auth {
        body["auth"] = auth;
    }
    post_json(server, "/api/plugins/execute", body).await
}
