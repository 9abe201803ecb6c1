//! Assembles the edge: the `/api` router behind its guard, the static app with its SPA
//! fallback, and the layers every request and response passes through (the host check,
//! security headers, request log). The share target's `POST /share` is the app's service
//! worker's; one that reaches the edge (no worker took it) is discarded unread and the
//! page sent back to the app.

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};

use crate::logging;
use crate::state::AppState;

/// The whole edge as one router.
pub fn router(state: AppState) -> Router {
    // The sandbox pages, each with its own policy (`response_headers`): every one listed.
    let sandbox_pages = crate::sandbox::PAGES
        .into_iter()
        .fold(Router::new(), |router, page| {
            router.route(
                page.path,
                axum::routing::get(move || async move { page.respond() }),
            )
        });
    Router::new()
        .merge(sandbox_pages)
        .nest(
            "/api",
            crate::api::router().layer(middleware::from_fn_with_state(
                state.clone(),
                crate::guard::api_guard,
            )),
        )
        // Only the POST: `GET /share` is the app's, like any client route.
        .route(
            "/share",
            axum::routing::post(share_without_worker).fallback(serve_static),
        )
        // Authorization servers fetch it: outside `/api` and its guard.
        .route(
            hearth_core::plugin::oauth::client::METADATA_DOCUMENT_PATH,
            axum::routing::get(crate::api::mcp_oauth::client_metadata),
        )
        .fallback(serve_static)
        // Before any route: a host that is not ours gets a 421 (with the headers below).
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::guard::host_guard,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            response_headers,
        ))
        .layer(middleware::from_fn(logging::log_request))
        .with_state(state)
}

async fn serve_static(State(state): State<AppState>, request: Request) -> Response {
    let path = request.uri().path();
    // Paths the nested API router does not see (`/api/` with its trailing slash, say)
    // still belong to the API: a JSON 404, never the app's HTML.
    if is_api_path(path) {
        return crate::api::unknown_route().await.into_response();
    }
    let assets = &state.assets;
    if assets.is_ready(path, request.headers()) {
        return assets.respond(request.method(), path, request.headers());
    }
    // The first request for a large file's gzip compresses it: off the async workers.
    let assets = std::sync::Arc::clone(assets);
    let (parts, _) = request.into_parts();
    tokio::task::spawn_blocking(move || {
        assets.respond(&parts.method, parts.uri.path(), &parts.headers)
    })
    .await
    .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// The most of a missed share's body the edge drains before it answers.
const SHARE_DRAIN_BYTES: usize = 64 * 1024 * 1024;
/// The longest the edge waits for it (an upload that trickles is cut then).
const SHARE_DRAIN_TIME: std::time::Duration = std::time::Duration::from_secs(30);

/// What another app shared is the browser's to keep: the edge never parses or keeps it.
/// The body is drained and dropped (up to [`SHARE_DRAIN_BYTES`], for at most
/// [`SHARE_DRAIN_TIME`]) before the answer, since
/// answering while the browser still uploads closes the connection under it, which the
/// browser reports as a failed request instead of following the redirect. The page goes
/// to the app, which asks for the share again.
async fn share_without_worker(body: axum::body::Body) -> axum::response::Redirect {
    use futures_util::StreamExt;
    let drain = async {
        let mut chunks = body.into_data_stream();
        let mut drained = 0usize;
        while let Some(Ok(chunk)) = chunks.next().await {
            drained += chunk.len();
            if drained > SHARE_DRAIN_BYTES {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(SHARE_DRAIN_TIME, drain).await;
    axum::response::Redirect::to("/?share=failed")
}

fn is_api_path(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/")
}

/// Security headers on everything (a sandbox page's own in place of the app's);
/// `no-store` on API answers, which are never cacheable.
async fn response_headers(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let is_api = is_api_path(request.uri().path());
    let sandbox = crate::sandbox::page_at(request.uri().path());
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    state.security.apply(headers);
    if let Some(page) = sandbox {
        page.apply_headers(headers);
    }
    if is_api {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}
