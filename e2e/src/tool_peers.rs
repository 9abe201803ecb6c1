//! The real services a tools test calls: a small Petstore-style REST API with its
//! OpenAPI 3 description and two HTML pages (short and long), served on loopback by this
//! harness (every request recorded), and npm `@modelcontextprotocol/server-everything` in
//! `streamableHttp` mode (installed by `scripts/setup.sh test` into
//! `.tools/mcp-everything`).

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;
use tokio::sync::oneshot;

use crate::paths;
use crate::process::{Guard, start_peer};

/// One request the pet API received: method and path.
pub type Seen = (String, String);

#[derive(Clone)]
struct PetState {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// The Petstore-style API; stops when dropped.
pub struct PetApi {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl PetApi {
    /// The id of a pet whose record carries a history of about 30,000 characters.
    pub const LONG_PET: u64 = 99;

    /// Starts it on a free loopback port, on its own thread and runtime.
    pub fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the pet API");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().expect("address").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let state = PetState {
            port,
            seen: seen.clone(),
        };
        let app = Router::new()
            .route("/openapi.json", get(description))
            .route("/about.html", get(about_page))
            .route("/pet/{id}", get(pet).delete(delete_pet))
            .fallback(|| async { StatusCode::NOT_FOUND })
            .layer(axum::middleware::from_fn_with_state(state.clone(), record))
            .with_state(state);
        let (shutdown, stopped) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                tokio::select! {
                    _ = axum::serve(listener, app).into_future() => {}
                    _ = stopped => {}
                }
            });
        });
        Self {
            port,
            seen,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    /// Where its OpenAPI description is.
    pub fn description_url(&self) -> String {
        format!("http://127.0.0.1:{}/openapi.json", self.port)
    }

    /// The URL of its HTML page.
    pub fn page_url(&self) -> String {
        format!("http://127.0.0.1:{}/about.html", self.port)
    }

    /// Every request so far, oldest first.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for PetApi {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn record(
    State(state): State<PetState>,
    method: Method,
    uri: Uri,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    state
        .seen
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push((method.to_string(), uri.path().to_string()));
    next.run(request).await
}

/// An OpenAPI 3.0 description in the Petstore's style (two operations of it).
async fn description(State(state): State<PetState>) -> Response {
    axum::Json(json!({
        "openapi": "3.0.3",
        "info": {"title": "Petstore", "version": "1.0.0", "description": "Pets by id."},
        "servers": [{"url": format!("http://127.0.0.1:{}", state.port)}],
        "paths": {
            "/pet/{petId}": {
                "get": {
                    "operationId": "getPetById",
                    "summary": "Find a pet by id",
                    "parameters": [{"name": "petId", "in": "path", "required": true,
                        "schema": {"type": "integer", "format": "int64"}}],
                    "responses": {"200": {"description": "The pet"}}
                },
                "delete": {
                    "operationId": "deletePet",
                    "summary": "Delete a pet",
                    "parameters": [{"name": "petId", "in": "path", "required": true,
                        "schema": {"type": "integer", "format": "int64"}}],
                    "responses": {"200": {"description": "Deleted"}}
                }
            }
        }
    }))
    .into_response()
}

/// An HTML page on this machine: the web page reader must refuse it (a URL a model
/// chose never reaches the user's own machine), so none of it reaches the model.
async fn about_page() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
        "<!doctype html><html><head><title>About the pet shop</title>\
         <script>document.title = 'script ran';</script><style>p { color: red }</style></head>\
         <body><h1>About the pet shop</h1><p>Open <b>every day</b> from 9 to 5.</p></body></html>",
    )
        .into_response()
}

async fn pet(Path(id): Path<u64>) -> Response {
    let name = if id == 7 { "Rex" } else { "Tom" };
    if id == PetApi::LONG_PET {
        let history = "The pet shop keeps a long diary of every animal it has cared for. ";
        return axum::Json(json!({"id": id, "name": name, "history": history.repeat(440)}))
            .into_response();
    }
    axum::Json(json!({"id": id, "name": name, "status": "available"})).into_response()
}

async fn delete_pet(Path(id): Path<u64>) -> Response {
    axum::Json(json!({"deleted": id})).into_response()
}

/// npm `server-everything` in `streamableHttp` mode on a free port (`MCP_EVERYTHING`
/// names its `dist/index.js` elsewhere).
pub fn mcp_everything() -> Guard {
    let script = std::env::var_os("MCP_EVERYTHING")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            paths::repo_root().join(
                ".tools/mcp-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
            )
        });
    assert!(
        script.is_file(),
        "{} is missing: run scripts/setup.sh test",
        script.display()
    );
    start_peer("MCP everything server", |port| {
        let mut command = Command::new("node");
        command
            .arg(&script)
            .arg("streamableHttp")
            .env("PORT", port.to_string());
        command
    })
}

/// A Python test server of the edge's (`server/tests/data/<script>`, on PyPI `mcp` in
/// `.tools/mcp-py`, or the Python `MCP_PYTHON` names) on a free port, `args` after its port.
fn python_peer(name: &'static str, script: &str, args: &[String]) -> Guard {
    let python = std::env::var_os("MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| paths::repo_root().join(".tools/mcp-py/bin/python"));
    assert!(
        python.is_file(),
        "{} is missing: run scripts/setup.sh test",
        python.display()
    );
    let script = paths::repo_root().join("server/tests/data").join(script);
    let args = args.to_vec();
    start_peer(name, move |port| {
        let mut command = Command::new(&python);
        command.arg(&script).arg(port.to_string()).args(&args);
        command
    })
}

/// The OAuth-protected MCP server of the edge's tests (`mcp_oauth_server.py`) with `args`
/// after its port (`--cimd`, `--log FILE`, …).
pub fn mcp_oauth_server(args: &[String]) -> Guard {
    python_peer("OAuth MCP server", "mcp_oauth_server.py", args)
}

/// The protocol-revision MCP server of the edge's tests (`mcp_revision_server.py`) with
/// `args` after its port (`--only stateless`, `--list-ttl-ms N`, …).
pub fn mcp_revision_server(args: &[&str]) -> Guard {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    python_peer("revision MCP server", "mcp_revision_server.py", &args)
}

/// What a Python test peer on `port` counted (its `GET /test/stats`).
pub async fn peer_stats(port: u16) -> serde_json::Value {
    let body = reqwest::get(format!("http://127.0.0.1:{port}/test/stats"))
        .await
        .expect("the peer's stats")
        .text()
        .await
        .expect("a body");
    serde_json::from_str(&body).expect("JSON stats")
}

/// The MCP endpoint of a peer started by [`mcp_everything`] or a Python test server.
pub fn mcp_url(peer: &Guard) -> String {
    format!("http://127.0.0.1:{}/mcp", peer.port)
}

/// Opens Settings › Tools and fills the install form for the MCP server at `url` (not
/// submitted: a test adds a token or headers first).
pub async fn fill_mcp_install(session: &crate::Browser, url: &str) {
    session.open_settings_tab("tools").await;
    session
        .wait_for("#plugin-install-kind")
        .await
        .select_by_value("mcp")
        .await
        .expect("kind");
    session.fill("#plugin-install-url", url).await;
}

/// Opens Settings › Tools and installs a plugin of `kind` (`mcp`, `openapi-url`) from
/// `url`; waits for its card and returns its functions' names.
pub async fn install(session: &crate::Browser, kind: &str, url: &str, source: &str) -> Vec<String> {
    session.open_settings_tab("tools").await;
    session
        .wait_for("#plugin-install-kind")
        .await
        .select_by_value(kind)
        .await
        .expect("kind");
    let input = session.wait_for("#plugin-install-url").await;
    input.clear().await.expect("clear");
    input.send_keys(url).await.expect("url");
    // By script: a toast of the previous install may cover the button.
    session.click_by_script("#plugin-install-submit").await;
    session
        .wait_until(&format!(
            "[...document.querySelectorAll('#plugins-installed .plugin-card__meta')]
               .some((t) => t.textContent === '{source}')"
        ))
        .await;
    let names = session
        .js(
            "const card = [...document.querySelectorAll('#plugins-installed .plugin-card')]
               .find((c) => c.querySelector('.plugin-card__meta').textContent === arguments[0]);
             return [...card.querySelectorAll('[data-function]')].map((f) => f.dataset.function);",
            vec![json!(source)],
        )
        .await;
    serde_json::from_value(names).expect("function names")
}

/// The MCP Apps server of the edge's tests (`mcp_app_server.py`): a counter whose results
/// an MCP App's page shows, tools only that page may call, and a page that tries every
/// way out of its sandbox.
pub fn mcp_app_server() -> Guard {
    python_peer("MCP Apps server", "mcp_app_server.py", &[])
}
