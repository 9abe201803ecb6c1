//! A stand-in for LlamaParse's API (v2) on loopback, for the document-parsing tests: the
//! operator points `HEARTH_LLAMA_PARSE_BASE_URL` at it. `POST /api/v2/parse/upload`
//! (multipart: `file` and `configuration`) answers `{id, status: "PENDING"}` when the
//! `Authorization` header is `Bearer` and a key, 401 otherwise; `GET /api/v2/parse/{id}`
//! answers the job (`RUNNING` on the first poll, then `COMPLETED`) and, with
//! `expand=markdown`, its pages' Markdown ([`PAGES`]). Every key and file name it was
//! sent is recorded. Runs on its own thread; stops when dropped.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::stand_in::Served;

/// The pages every parsed document reads as.
pub const PAGES: [&str; 2] = [
    "# Parsed by the stand-in",
    "Its second page mentions quinces.",
];

#[derive(Default)]
struct Shared {
    keys: Mutex<Vec<String>>,
    files: Mutex<Vec<String>>,
    polls: AtomicU32,
}

/// The stand-in.
pub struct ParseStandIn {
    served: Served,
    shared: Arc<Shared>,
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    headers
        .get("authorization")?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::to_string)
}

fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        axum::Json(json!({"detail": "Invalid API key"})),
    )
        .into_response()
}

async fn upload(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let key = bearer(&headers).unwrap_or_default();
    shared
        .keys
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(key.clone());
    if key.is_empty() {
        return unauthorized();
    }
    let text = String::from_utf8_lossy(&body);
    let file = text
        .split("filename=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_string();
    if file.is_empty() || !text.contains("name=\"configuration\"") {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(json!({"detail": "file required"})),
        )
            .into_response();
    }
    shared
        .files
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(file);
    axum::Json(
        json!({"id": "pjb-e2e", "project_id": "prj-e2e", "status": "PENDING",
        "tier": "cost_effective"}),
    )
    .into_response()
}

async fn job(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    if bearer(&headers).is_none() {
        return unauthorized();
    }
    if id != "pjb-e2e" {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"detail": "no such job"})),
        )
            .into_response();
    }
    let polls = shared.polls.fetch_add(1, Ordering::SeqCst);
    let status = if polls == 0 { "RUNNING" } else { "COMPLETED" };
    let mut answer = json!({"job": {"id": id, "project_id": "prj-e2e", "status": status,
        "error_message": null}});
    if uri.query() == Some("expand=markdown") {
        answer["markdown"] = json!({"pages": [
            {"page_number": 1, "markdown": PAGES[0], "success": true},
            {"page_number": 2, "markdown": PAGES[1], "success": true}
        ]});
    }
    axum::Json(answer).into_response()
}

impl ParseStandIn {
    /// Starts the stand-in on a free loopback port.
    pub fn start() -> Self {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/api/v2/parse/upload", axum::routing::post(upload))
            .route("/api/v2/parse/{id}", axum::routing::get(job))
            .with_state(shared.clone());
        Self {
            served: Served::start("parse-stand-in", app),
            shared,
        }
    }

    /// Its address, as the operator points LlamaParse's base at it.
    pub fn url(&self) -> String {
        self.served.url()
    }

    /// Every key an upload carried, in order.
    pub fn keys(&self) -> Vec<String> {
        self.shared
            .keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The name of every file uploaded, in order.
    pub fn files(&self) -> Vec<String> {
        self.shared
            .files
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
