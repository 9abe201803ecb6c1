//! `POST /api/search` through the real binary, against a stand-in served here on
//! 127.0.0.1 that speaks each search service's documented API: SearXNG's
//! `/search?format=json`, Brave's `/res/v1/web/search` with `X-Subscription-Token`,
//! Tavily's and Exa's JSON `POST /search` (bearer and `x-api-key`), and Google
//! Programmable Search's `/customsearch/v1` with `x-goog-api-key`. The operator points
//! the hosted services' bases at it (`HEARTH_*_BASE_URL`), as for a proxy. Every request
//! is recorded, so the tests check each key went in its header and nowhere else, and that
//! a refused request reached no service.

mod support;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode as Status;
use axum::response::{IntoResponse, Response};
use hearth_core::byok::context;
use hearth_server::byok::ByokKeys;
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::{Server, post_json};

const BRAVE_KEY: &str = "BSA-brave-key-41c7e2";
const TAVILY_KEY: &str = "tvly-tavily-key-9d03aa";
const EXA_KEY: &str = "exa-key-5f61b8";
const GOOGLE_KEY: &str = "AIza-google-key-7e2c90";

/// One request the stand-in received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    query: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether `secret` appears anywhere but in header `allowed`.
    fn leaks(&self, secret: &str, allowed: &str) -> bool {
        self.path.contains(secret)
            || self.query.contains(secret)
            || self.body.contains(secret)
            || self
                .headers
                .iter()
                .any(|(name, value)| name != allowed && value.contains(secret))
    }
}

#[derive(Clone, Default)]
struct StandIn(Arc<Mutex<Vec<Seen>>>);

impl StandIn {
    async fn start() -> (Self, String) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let stand_in = StandIn::default();
        let app = Router::new().fallback(answer).with_state(stand_in.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (stand_in, base)
    }

    fn seen(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }
}

/// Answers as the service the path names.
async fn answer(State(stand_in): State<StandIn>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let seen = Seen {
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().unwrap_or_default().to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or_default().to_string()))
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    stand_in.0.lock().unwrap().push(seen.clone());
    let query = seen.query.clone();
    let asks = |needle: &str| query.contains(needle) || seen.body.contains(needle);
    let json = |value: Value| (Status::OK, axum::Json(value)).into_response();
    let refuse = |key: Option<&str>| {
        // The service quotes the key it refused, as some do: the edge must not pass it on.
        (
            Status::UNAUTHORIZED,
            axum::Json(json!({"error": {"message": format!("invalid key {}", key.unwrap_or(""))}})),
        )
            .into_response()
    };
    match seen.path.as_str() {
        "/searx/search" if asks("json-off") => {
            (Status::FORBIDDEN, "<html>403 Forbidden</html>").into_response()
        }
        "/searx/search" => json(json!({"query": "q", "number_of_results": 0, "results": [
            {"url": "https://tides.example/noon", "title": "Tides at <b>noon</b>",
             "content": "High tide &amp; low tide", "engine": "duckduckgo"},
            {"url": "javascript:alert(1)", "title": "bad", "content": "x"},
            {"url": "https://tides.example/noon", "title": "again", "content": "dup"},
            {"url": "https://moon.example/", "title": "Moon", "content": "phases",
             "publishedDate": "2026-12-01T00:00:00"}
        ]})),
        "/res/v1/web/search" => {
            let key = seen.header("x-subscription-token");
            if key != Some(BRAVE_KEY) {
                return refuse(key);
            }
            if asks("nothing") {
                return json(json!({"type": "search", "query": {"original": "nothing"}}));
            }
            json(
                json!({"type": "search", "web": {"type": "search", "results": [
                    {"title": "Brave <strong>tides</strong>", "url": "https://brave.example/",
                     "description": "The <strong>tide</strong> table", "age": "1 day ago"}
                ]}}),
            )
        }
        "/tavily/search" => {
            let key = seen.header("authorization");
            if key != Some(format!("Bearer {TAVILY_KEY}").as_str()) {
                return refuse(key);
            }
            if asks("slow down") {
                return (Status::TOO_MANY_REQUESTS, "{}").into_response();
            }
            json(
                json!({"query": "q", "answer": null, "images": [], "response_time": 0.4,
                "results": [{"title": "Tavily", "url": "https://tavily.example/a",
                    "content": "tavily says", "score": 0.8}]}),
            )
        }
        "/exa/search" => {
            let key = seen.header("x-api-key");
            if key != Some(EXA_KEY) {
                return refuse(key);
            }
            json(
                json!({"requestId": "r1", "results": [{"id": "e1", "title": null,
                "url": "https://exa.example/1", "publishedDate": "2026-11-02T00:00:00.000Z",
                "highlights": ["one", "two"]}]}),
            )
        }
        "/customsearch/v1" => {
            let key = seen.header("x-goog-api-key");
            if key != Some(GOOGLE_KEY) {
                return refuse(key);
            }
            json(
                json!({"kind": "customsearch#search", "items": [{"title": "Google",
                "link": "https://google.example/", "snippet": "from\ngoogle"}]}),
            )
        }
        _ => (Status::NOT_FOUND, "unknown").into_response(),
    }
}

/// The edge with the hosted services' bases on `base`, and `env` added.
fn edge(base: &str, env: &[(&str, &str)]) -> Server {
    let brave = base.to_string();
    let tavily = format!("{base}/tavily");
    let exa = format!("{base}/exa/");
    let google = base.to_string();
    let mut all: Vec<(&str, &str)> = vec![
        ("HEARTH_BRAVE_SEARCH_BASE_URL", &brave),
        ("HEARTH_TAVILY_BASE_URL", &tavily),
        ("HEARTH_EXA_BASE_URL", &exa),
        ("HEARTH_GOOGLE_SEARCH_BASE_URL", &google),
    ];
    all.extend_from_slice(env);
    Server::start(&all)
}

/// `secret` sealed for `ctx` with the edge's own key (as a browser would).
fn sealed(server: &Server, ctx: &str, secret: &str) -> Value {
    let keys = ByokKeys::load_or_create(server.data.path()).unwrap();
    serde_json::to_value(keys.seal(ctx, secret).unwrap()).unwrap()
}

async fn search(server: &Server, service: Value, query: &str) -> (StatusCode, Value) {
    post_json(
        server,
        "/api/search",
        json!({"service": service, "query": query}),
    )
    .await
}

#[tokio::test]
async fn each_keyed_service_is_asked_as_documented_with_its_key_in_its_header_only() {
    let (stand_in, base) = StandIn::start().await;
    let server = edge(&base, &[]);
    let cases = [
        (
            "brave",
            BRAVE_KEY,
            "x-subscription-token",
            "https://brave.example/",
            "The tide table",
        ),
        (
            "tavily",
            TAVILY_KEY,
            "authorization",
            "https://tavily.example/a",
            "tavily says",
        ),
        (
            "exa",
            EXA_KEY,
            "x-api-key",
            "https://exa.example/1",
            "one … two",
        ),
    ];
    for (kind, key, header, url, snippet) in cases {
        let service = json!({"kind": "keyed", "provider": kind,
            "apiKey": sealed(&server, &context::search(kind), key)});
        let (status, answer) = search(&server, service, "  tide   tables ").await;
        assert_eq!(status, StatusCode::OK, "{kind}: {answer}");
        assert_eq!(answer["provider"], kind);
        assert_eq!(answer["query"], "tide tables");
        assert_eq!(answer["results"][0]["url"], url, "{kind}: {answer}");
        assert_eq!(answer["results"][0]["snippet"], snippet, "{kind}: {answer}");
        let seen = stand_in.seen().pop().unwrap();
        assert!(!seen.leaks(key, header), "{kind}: {seen:?}");
        assert!(seen.header(header).unwrap().contains(key), "{kind}");
    }
    let brave = &stand_in.seen()[0];
    assert_eq!(
        (brave.method.as_str(), brave.path.as_str()),
        ("GET", "/res/v1/web/search")
    );
    assert_eq!(brave.query, "q=tide+tables&count=5");
    assert_eq!(brave.header("accept"), Some("application/json"));
    let tavily = &stand_in.seen()[1];
    assert_eq!(tavily.method, "POST");
    let body: Value = serde_json::from_str(&tavily.body).unwrap();
    assert_eq!(
        body,
        json!({"query": "tide tables", "max_results": 5, "search_depth": "basic"})
    );
    let exa: Value = serde_json::from_str(&stand_in.seen()[2].body).unwrap();
    assert_eq!(exa["numResults"], 5);
    assert_eq!(stand_in.seen()[2].path, "/exa/search");

    // Google needs its engine id, and keeps the key out of the URL.
    let service = json!({"kind": "google", "engineId": "0123:abc",
        "apiKey": sealed(&server, &context::search("google"), GOOGLE_KEY)});
    let (status, answer) = post_json(
        &server,
        "/api/search",
        json!({"service": service, "query": "tides", "count": 3, "language": "ja"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["results"][0]["snippet"], "from google");
    let google = stand_in.seen().pop().unwrap();
    assert_eq!(google.query, "cx=0123%3Aabc&q=tides&num=3&hl=ja");
    assert!(!google.leaks(GOOGLE_KEY, "x-goog-api-key"), "{google:?}");

    // Nothing found is an empty list.
    let service = json!({"kind": "keyed", "provider": "brave",
        "apiKey": sealed(&server, &context::search("brave"), BRAVE_KEY)});
    let (status, answer) = search(&server, service, "nothing").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["results"], json!([]));
}

#[tokio::test]
async fn a_users_searxng_answers_clean_results_or_says_its_json_is_off() {
    let (stand_in, base) = StandIn::start().await;
    let server = edge(&base, &[]);
    let searx = json!({"kind": "searxng", "baseUrl": format!("{base}/searx/")});
    let (status, answer) = search(&server, searx.clone(), "tides").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        answer["results"],
        json!([
            {"title": "Tides at noon", "url": "https://tides.example/noon",
             "snippet": "High tide & low tide"},
            {"title": "Moon", "url": "https://moon.example/", "snippet": "phases",
             "published": "2026-12-01T00:00:00"}
        ])
    );
    assert_eq!(stand_in.seen()[0].query, "q=tides&format=json");

    let (status, answer) = search(&server, searx, "json-off").await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert_eq!(answer["code"], "UPSTREAM_ERROR");
    assert_eq!(answer["details"]["reason"], "SEARCH_JSON_DISABLED");
    assert_eq!(answer["details"]["upstreamStatus"], 403);
}

#[tokio::test]
async fn a_refused_key_or_a_limit_is_a_typed_failure_that_never_quotes_the_key() {
    let (_stand_in, base) = StandIn::start().await;
    let server = edge(&base, &[]);
    let wrong = "BSA-wrong-key-0000";
    let service = json!({"kind": "keyed", "provider": "brave",
        "apiKey": sealed(&server, &context::search("brave"), wrong)});
    let (status, answer) = search(&server, service, "tides").await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert_eq!(answer["details"]["reason"], "SEARCH_KEY_REFUSED");
    assert_eq!(answer["details"]["upstreamStatus"], 401);
    assert!(!answer.to_string().contains(wrong), "{answer}");

    let service = json!({"kind": "keyed", "provider": "tavily",
        "apiKey": sealed(&server, &context::search("tavily"), TAVILY_KEY)});
    let (status, answer) = search(&server, service, "slow down").await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert_eq!(answer["details"]["reason"], "SEARCH_RATE_LIMITED");
}

#[tokio::test]
async fn plain_keys_foreign_envelopes_and_bad_bodies_reach_no_service() {
    let (stand_in, base) = StandIn::start().await;
    let server = edge(&base, &[]);
    // A key in plaintext.
    let (status, answer) = post_json(
        &server,
        "/api/search",
        json!({"service": {"kind": "keyed", "provider": "brave", "apiKey": BRAVE_KEY},
            "query": "tides"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["code"], "PLAINTEXT_SECRET_REFUSED");
    // A key sealed for another service (or for a model provider) is not opened.
    for ctx in [context::search("tavily"), context::provider("openai")] {
        let service = json!({"kind": "keyed", "provider": "brave",
            "apiKey": sealed(&server, &ctx, BRAVE_KEY)});
        let (status, answer) = search(&server, service, "tides").await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{ctx}: {answer}");
        assert_eq!(answer["code"], "AUTH_ERROR");
    }
    // Bounds.
    for body in [
        json!({"service": {"kind": "default"}, "query": "x".repeat(401)}),
        json!({"service": {"kind": "default"}, "query": "tides", "count": 50}),
        json!({"service": {"kind": "searxng", "baseUrl": ""}, "query": "tides"}),
        json!({"service": {"kind": "google", "engineId": "a b",
            "apiKey": sealed(&server, &context::search("google"), GOOGLE_KEY)}, "query": "t"}),
        json!({"service": {"kind": "default"}, "query": "tides", "extra": true}),
    ] {
        let (status, answer) = post_json(&server, "/api/search", body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
    }
    // A SearXNG URL that is not the web.
    let (status, answer) = search(
        &server,
        json!({"kind": "searxng", "baseUrl": "http://169.254.169.254/latest"}),
        "tides",
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert_eq!(answer["code"], "URL_BLOCKED");
    assert!(stand_in.seen().is_empty(), "{:?}", stand_in.seen());
}

#[tokio::test]
async fn default_search_is_the_operators_service_offered_only_as_a_capability() {
    let (stand_in, base) = StandIn::start().await;
    // None configured: the capability is off, health says so, and the route says why.
    let bare = edge(&base, &[]);
    let config = support::get_json(&bare, "/api/config").await;
    assert_eq!(config["capabilities"]["defaultSearch"], false);
    assert_eq!(config["capabilities"]["webSearch"], true);
    let health = support::get_json(&bare, "/api/health").await;
    assert_eq!(
        health["services"]["search"],
        json!({"status": "unconfigured", "code": "SEARCH_UNCONFIGURED"})
    );
    let (status, answer) = search(&bare, json!({"kind": "default"}), "tides").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer["details"]["reason"], "SEARCH_UNCONFIGURED");

    // A service without its key is reported missing its key.
    let keyless = edge(&base, &[("HEARTH_SEARCH_PROVIDER", "tavily")]);
    let health = support::get_json(&keyless, "/api/health").await;
    assert_eq!(health["services"]["search"]["status"], "missing_key");
    assert!(stand_in.seen().is_empty());

    // Configured: the operator's key is used, and the browser learns nothing of it.
    let server = edge(
        &base,
        &[
            ("HEARTH_SEARCH_PROVIDER", "tavily"),
            ("HEARTH_SEARCH_API_KEY", TAVILY_KEY),
        ],
    );
    let config = support::get_json(&server, "/api/config").await;
    assert_eq!(config["capabilities"]["defaultSearch"], true);
    assert!(!config.to_string().contains(TAVILY_KEY));
    assert!(
        !config.to_string().to_lowercase().contains("tavily"),
        "{config}"
    );
    let health = support::get_json(&server, "/api/health").await;
    assert_eq!(health["services"]["search"]["status"], "available");
    let (status, answer) = search(&server, json!({"kind": "default"}), "tides").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["results"][0]["url"], "https://tavily.example/a");
    let seen = stand_in.seen().pop().unwrap();
    assert_eq!(
        seen.header("authorization"),
        Some(format!("Bearer {TAVILY_KEY}").as_str())
    );
}

#[tokio::test]
async fn an_unknown_default_service_stops_the_edge_with_what_is_wrong() {
    let mut command = support::hearth_command(&[("HEARTH_SEARCH_PROVIDER", "bing")]);
    let output = command.output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bing") && stderr.contains("searxng"),
        "{stderr}"
    );
}

#[tokio::test]
async fn hosted_a_users_searxng_must_be_public_https() {
    let redis = support::redis::Redis::start();
    let pem = ByokKeys::generate().unwrap().1;
    let (stand_in, base) = StandIn::start().await;
    let server = Server::start_owned(&support::hosted::env(&redis.url(), &pem));
    let cookies = support::hosted::sign_in(&server).await;
    let answer = reqwest::Client::new()
        .post(server.url("/api/search"))
        .header(reqwest::header::COOKIE, cookies)
        .header(reqwest::header::ORIGIN, support::hosted::PUBLIC_ORIGIN)
        .json(
            &json!({"service": {"kind": "searxng", "baseUrl": format!("{base}/searx")},
            "query": "tides"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["code"], "URL_BLOCKED", "{body}");
    assert!(stand_in.seen().is_empty());
}
