//! A stand-in for the search services on loopback, for the web search tests. As a
//! SearXNG instance it answers `GET /search?q=…&format=json` with SearXNG's documented
//! JSON (`results` of `url`, `title`, `content`, `engine`); switched to "JSON off", it
//! answers 403 as an instance without `json` in its `search.formats` does. As Brave's
//! API it answers `GET /res/v1/web/search?q=…&count=…` with `{web: {results}}` when the
//! `X-Subscription-Token` header holds [`BRAVE_KEY`], 401 otherwise. Either way three
//! pages per query, made from the query's words; every query and every key it was sent
//! is recorded. Runs on its own thread; stops when dropped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::stand_in::Served;

/// The Brave key the stand-in accepts.
pub const BRAVE_KEY: &str = "BSA-e2e-brave-key-6c1d";

#[derive(Default)]
struct Shared {
    queries: Mutex<Vec<String>>,
    keys: Mutex<Vec<String>>,
    json_off: AtomicBool,
}

/// The stand-in.
pub struct SearchStandIn {
    served: Served,
    shared: Arc<Shared>,
}

/// The pages the stand-in gives for `query`: the same query always finds the same pages.
pub fn pages_for(query: &str) -> Vec<(String, String)> {
    let slug: String = query
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    (1..=3)
        .map(|n| {
            (
                format!("https://{n}.{}.example/", slug.trim_matches('-')),
                format!("Page {n} about {query}"),
            )
        })
        .collect()
}

/// `text` of a query string decoded (`+` is a space, `%XX` a byte).
fn decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'+' => out.push(b' '),
            b'%' if at + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[at + 1..at + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(byte) => {
                        out.push(byte);
                        at += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            other => out.push(other),
        }
        at += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The query parameters of `uri`, decoded.
fn params(uri: &Uri) -> Vec<(String, String)> {
    uri.query()
        .unwrap_or_default()
        .split('&')
        .filter_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            Some((decoded(key), decoded(value)))
        })
        .collect()
}

/// Brave's web search.
async fn brave(State(shared): State<Arc<Shared>>, headers: HeaderMap, uri: Uri) -> Response {
    let params = params(&uri);
    let query = params
        .iter()
        .find(|(k, _)| k == "q")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let key = headers
        .get("x-subscription-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    shared
        .keys
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(key.clone());
    shared
        .queries
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(query.clone());
    if key != BRAVE_KEY {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"type": "ErrorResponse",
            "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "status": 401}})),
        )
            .into_response();
    }
    let results: Vec<_> = pages_for(&query)
        .into_iter()
        .map(|(url, title)| {
            json!({"title": title, "url": url, "age": "1 day ago",
            "description": format!("Brave on <strong>{query}</strong>.")})
        })
        .collect();
    axum::Json(json!({"type": "search", "query": {"original": query},
        "web": {"type": "search", "results": results}}))
    .into_response()
}

async fn search(State(shared): State<Arc<Shared>>, uri: Uri) -> Response {
    let params = params(&uri);
    let find = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let query = find("q");
    shared
        .queries
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(query.clone());
    if shared.json_off.load(Ordering::SeqCst) || find("format") != "json" {
        return (
            StatusCode::FORBIDDEN,
            "<html><body>403 Forbidden</body></html>",
        )
            .into_response();
    }
    let results: Vec<_> = pages_for(&query)
        .into_iter()
        .map(|(url, title)| {
            json!({"url": url, "title": title, "engine": "duckduckgo",
                   "content": format!("What the <b>page</b> says about {query}.")})
        })
        .collect();
    axum::Json(
        json!({"query": query, "number_of_results": results.len(), "results": results,
        "answers": [], "suggestions": [], "unresponsive_engines": []}),
    )
    .into_response()
}

impl SearchStandIn {
    /// Starts the stand-in on a free loopback port.
    pub fn start() -> Self {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/search", axum::routing::get(search))
            .route("/res/v1/web/search", axum::routing::get(brave))
            .with_state(shared.clone());
        Self {
            served: Served::start("search-stand-in", app),
            shared,
        }
    }

    /// Its address, as a user enters a SearXNG instance's, and as the operator points
    /// Brave's API base at it.
    pub fn url(&self) -> String {
        self.served.url()
    }

    /// Every key Brave's API was sent, in order.
    pub fn keys(&self) -> Vec<String> {
        self.shared
            .keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Every query it was asked, in order.
    pub fn queries(&self) -> Vec<String> {
        self.shared
            .queries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Answers 403 from now on (or JSON again).
    pub fn set_json_off(&self, off: bool) {
        self.shared.json_off.store(off, Ordering::SeqCst);
    }
}
