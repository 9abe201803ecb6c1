//! `GET /api/mcp/servers` against an MCP registry served here over real HTTPS (axum on
//! tokio-rustls, with a certificate from a CA made for the test by `openssl`; the edge
//! trusts that CA through `SSL_CERT_FILE`, as rustls' platform verifier reads it). The
//! registry answers the pages in `data/mcp_registry/` (shaped like the official
//! registry's `GET /v0.1/servers`) and scripted failures chosen by the search term.

mod support;

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Query, RawQuery, State};
use axum::http::{StatusCode as Status, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::tls::serve_https;
use support::{Server, TestCa, hearth_command};

const PAGE_1: &str = include_str!("data/mcp_registry/page-1.json");
const PAGE_2: &str = include_str!("data/mcp_registry/page-2.json");
/// `metadata.nextCursor` of page 1 (a `/` and a `:` that must travel encoded).
const PAGE_1_CURSOR: &str = "io.github.legacy/events:1.0.0";

/// The raw query strings the registry received, in order.
type Seen = Arc<Mutex<Vec<String>>>;

async fn servers(
    State(seen): State<Seen>,
    RawQuery(raw): RawQuery,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    seen.lock().unwrap().push(raw.unwrap_or_default());
    let json = |body: &'static str| ([(header::CONTENT_TYPE, "application/json")], body);
    match params.get("search").map(String::as_str) {
        Some("fail") => (
            Status::INTERNAL_SERVER_ERROR,
            json(r#"{"error":"database unavailable"}"#),
        )
            .into_response(),
        Some("malformed") => (
            [(header::CONTENT_TYPE, "text/html")],
            "<html><body>Down for maintenance</body></html>",
        )
            .into_response(),
        Some("huge") => {
            // 5 MiB without a Content-Length: the cap must count what arrives.
            let chunks =
                (0..80).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![b' '; 64 * 1024])));
            Body::from_stream(futures_util::stream::iter(chunks)).into_response()
        }
        Some("redirect") => (
            Status::FOUND,
            [(header::LOCATION, "http://127.0.0.1/v0.1/servers")],
        )
            .into_response(),
        Some(_) => json(r#"{"servers":[],"metadata":{"count":0}}"#).into_response(),
        None => match params.get("cursor").map(String::as_str) {
            None => json(PAGE_1).into_response(),
            Some(PAGE_1_CURSOR) => json(PAGE_2).into_response(),
            Some(_) => (Status::BAD_REQUEST, json(r#"{"error":"bad cursor"}"#)).into_response(),
        },
    }
}

/// The registry on a loopback port, with the queries it received.
struct Registry {
    url: String,
    seen: Seen,
}

impl Registry {
    async fn start(ca: &TestCa) -> Self {
        let seen = Seen::default();
        let app = Router::new()
            .route("/v0.1/servers", get(servers))
            .with_state(Arc::clone(&seen));
        let port = serve_https(ca, app).await;
        Self {
            url: format!("https://127.0.0.1:{port}"),
            seen,
        }
    }

    /// The last query received, decoded.
    fn last_query(&self) -> (String, HashMap<String, String>) {
        let raw = self
            .seen
            .lock()
            .unwrap()
            .last()
            .cloned()
            .expect("a request");
        let pairs = url_pairs(&raw);
        (raw, pairs)
    }
}

fn url_pairs(raw: &str) -> HashMap<String, String> {
    reqwest::Url::parse(&format!("https://x/?{raw}"))
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

/// The test CA, the registry, and an edge that trusts the CA and browses the registry.
struct Fixture {
    _ca: TestCa,
    registry: Registry,
    edge: Server,
}

impl Fixture {
    async fn start() -> Self {
        let ca = TestCa::make();
        let registry = Registry::start(&ca).await;
        let ca_file = ca.ca_file();
        let edge = Server::start(&[
            ("HEARTH_MCP_REGISTRY_URL", &registry.url),
            ("SSL_CERT_FILE", &ca_file),
        ]);
        Self {
            _ca: ca,
            registry,
            edge,
        }
    }

    async fn get(&self, path_and_query: &str) -> (StatusCode, Value) {
        let response = reqwest::get(self.edge.url(path_and_query)).await.unwrap();
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

fn names(page: &Value) -> Vec<&str> {
    page["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn browses_the_registry_page_by_page() {
    let fixture = Fixture::start().await;

    let (status, page) = fixture.get("/api/mcp/servers").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let (_, query) = fixture.registry.last_query();
    assert_eq!(query.get("limit").map(String::as_str), Some("30"));
    assert_eq!(query.get("version").map(String::as_str), Some("latest"));
    assert!(!query.contains_key("cursor") && !query.contains_key("search"));
    assert_eq!(
        names(&page),
        [
            "com.example.weather/forecast",
            "io.github.someone/files",
            "io.github.legacy/events"
        ]
    );
    assert_eq!(page["nextCursor"], PAGE_1_CURSOR);

    let weather = &page["servers"][0];
    assert_eq!(weather["title"], "Weather Forecast");
    assert_eq!(weather["version"], "2.4.1");
    assert_eq!(
        weather["websiteUrl"],
        "https://weather.example.com/docs/mcp"
    );
    assert_eq!(weather["installable"], true);
    assert_eq!(
        weather["remotes"],
        json!([
            {
                "transport": "streamable-http",
                "url": "https://mcp.weather.example.com/mcp",
                "headers": [
                    {"name": "X-Api-Key", "description": "Your API key from weather.example.com/account", "required": true, "secret": true},
                    {"name": "X-Units", "description": "metric or imperial", "required": false, "secret": false}
                ]
            },
            {"transport": "sse", "url": "https://mcp.weather.example.com/sse", "headers": []}
        ]),
        "the plain-http remote is dropped"
    );
    assert!(weather.get("_meta").is_none() && weather.get("icons").is_none());

    let files = &page["servers"][1];
    assert_eq!(files["installable"], false, "stdio packages only");
    assert_eq!(files["remotes"], json!([]));
    assert!(files.get("title").is_none());

    let legacy = &page["servers"][2];
    assert_eq!(legacy["installable"], false, "legacy SSE only");
    assert_eq!(
        legacy["remotes"],
        json!([{"transport": "sse", "url": "https://events.legacy.example/sse", "headers": []}])
    );

    // The cursor goes back encoded and brings the last page.
    let next = reqwest::Url::parse_with_params(
        &fixture.edge.url("/api/mcp/servers"),
        &[("cursor", PAGE_1_CURSOR), ("limit", "2")],
    )
    .unwrap();
    let (status, page) = fixture
        .get(&format!("/api/mcp/servers?{}", next.query().unwrap()))
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let (raw, query) = fixture.registry.last_query();
    assert_eq!(query.get("cursor").map(String::as_str), Some(PAGE_1_CURSOR));
    assert_eq!(query.get("limit").map(String::as_str), Some("2"));
    assert!(!raw.contains("events:1.0.0"), "encoded, not pasted: {raw}");
    assert_eq!(names(&page), ["io.github.notes/notes"]);
    assert_eq!(page["servers"][0]["installable"], true);
    assert_eq!(
        page["servers"][0]["remotes"][0]["headers"][0],
        json!({"name": "Authorization", "description": "Bearer token", "required": true, "secret": true})
    );
    assert!(page.get("nextCursor").is_none(), "the last page: {page}");
}

#[tokio::test]
async fn search_and_limit_reach_the_registry_encoded() {
    let fixture = Fixture::start().await;
    let search = "weather & co/é+1=2#x";
    let url = reqwest::Url::parse_with_params(
        &fixture.edge.url("/api/mcp/servers"),
        &[("search", search), ("limit", "500")],
    )
    .unwrap();
    let (status, page) = fixture
        .get(&format!("/api/mcp/servers?{}", url.query().unwrap()))
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page, json!({"servers": []}));
    let (raw, query) = fixture.registry.last_query();
    assert_eq!(query.get("search").map(String::as_str), Some(search));
    assert_eq!(
        query.get("limit").map(String::as_str),
        Some("100"),
        "clamped"
    );
    assert_eq!(query.len(), 3, "limit, version, search: {raw}");
    assert!(!raw.contains("& co") && !raw.contains("#x"), "{raw}");

    let (status, body) = fixture.get("/api/mcp/servers?limit=0").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(fixture.registry.last_query().1["limit"], "1");
}

#[tokio::test]
async fn registry_failures_are_typed_errors() {
    let fixture = Fixture::start().await;
    let expect = async |query: &str, status: StatusCode, code: &str| {
        let (got, body) = fixture.get(&format!("/api/mcp/servers?{query}")).await;
        assert_eq!(got, status, "{query}: {body}");
        assert_eq!(body["code"], code, "{query}: {body}");
        assert_eq!(body["statusCode"], status.as_u16(), "{query}: {body}");
        body
    };

    let body = expect("search=fail", StatusCode::BAD_GATEWAY, "UPSTREAM_ERROR").await;
    assert_eq!(body["details"]["upstreamStatus"], 500);
    assert!(
        !body.to_string().contains("database unavailable"),
        "the registry's body is not passed on: {body}"
    );
    let body = expect(
        "search=malformed",
        StatusCode::BAD_GATEWAY,
        "UPSTREAM_ERROR",
    )
    .await;
    assert!(
        body["details"]["reason"]
            .as_str()
            .unwrap()
            .contains("not JSON"),
        "{body}"
    );
    expect(
        "search=huge",
        StatusCode::BAD_GATEWAY,
        "RESPONSE_SIZE_LIMIT",
    )
    .await;
    expect("search=redirect", StatusCode::FORBIDDEN, "URL_BLOCKED").await;
    let requests = fixture.registry.seen.lock().unwrap().len();

    // Refused before anything is sent.
    expect("limit=many", StatusCode::BAD_REQUEST, "BAD_REQUEST").await;
    let long = "s".repeat(201);
    expect(
        &format!("search={long}"),
        StatusCode::BAD_REQUEST,
        "BAD_REQUEST",
    )
    .await;
    assert_eq!(fixture.registry.seen.lock().unwrap().len(), requests);
}

#[tokio::test]
async fn a_registry_certificate_the_edge_does_not_trust_is_refused() {
    let ca = TestCa::make();
    let registry = Registry::start(&ca).await;
    // No SSL_CERT_FILE: the test CA is not among the system's roots.
    let edge = Server::start(&[("HEARTH_MCP_REGISTRY_URL", &registry.url)]);
    let response = reqwest::get(edge.url("/api/mcp/servers")).await.unwrap();
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "UPSTREAM_UNREACHABLE", "{body}");
    assert!(registry.seen.lock().unwrap().is_empty());
}

#[test]
fn a_plain_http_registry_url_is_refused_at_startup() {
    for url in [
        "http://registry.modelcontextprotocol.io",
        "https://169.254.169.254",
    ] {
        // A dist that does not exist: should the URL pass, start-up still ends (without
        // the message below) instead of serving.
        let output = hearth_command(&[
            ("HEARTH_MCP_REGISTRY_URL", url),
            ("HEARTH_DIST_DIR", "/nonexistent/hearth-dist"),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{url}: {stderr}");
        assert!(stderr.contains("HEARTH_MCP_REGISTRY_URL"), "{stderr}");
    }
}
