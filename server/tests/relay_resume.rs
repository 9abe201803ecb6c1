//! Resumable relayed replies over real sockets: the real binary (one instance in local
//! mode; two hosted instances on a real Redis), a provider fixture speaking OpenAI's
//! streaming wire format on 127.0.0.1, connections cut mid-reply, an instance killed
//! mid-reply, and the browser's own reader (`RelayCursor`) on the answers.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use bytes::Bytes;
use futures_util::StreamExt;
use hearth_core::api::relay_resume::RelayCursor;
use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use support::Server;
use support::hosted::{self, PUBLIC_ORIGIN, random_id, wait_until};
use support::openai_stream::{DropFlag, chunk, decode, finish};
use support::redis::Redis;

/// How many ticks the slow reply has.
const TICKS: usize = 30;
/// How many ticks the fast reply has.
const FAST_TICKS: usize = 5_000;

#[derive(Clone, Default)]
struct Provider {
    calls: Arc<AtomicUsize>,
    /// Set when the provider's response stream is dropped (the edge hung up on it).
    dropped: Arc<AtomicBool>,
}

/// `/slow/…`: `TICKS` numbered ticks 40 ms apart, then the end. `/fast/…`:
/// `FAST_TICKS` ticks written as fast as the connection takes them, then the end.
/// `/endless/…`: ticks every 50 ms until the edge hangs up.
async fn provider(State(provider): State<Provider>, request: Request) -> Response {
    provider.calls.fetch_add(1, Ordering::SeqCst);
    let path = request.uri().path().to_string();
    let (ticks, pause) = if path.starts_with("/endless") {
        (usize::MAX, 50)
    } else if path.starts_with("/fast") {
        (FAST_TICKS, 0)
    } else {
        (TICKS, 40)
    };
    let flag = DropFlag(Arc::clone(&provider.dropped));
    let stream = futures_util::stream::unfold((0usize, flag), move |(n, flag)| async move {
        if n > ticks {
            return None;
        }
        if n > 0 && pause > 0 {
            tokio::time::sleep(Duration::from_millis(pause)).await;
        }
        let text = if n == ticks {
            finish()
        } else {
            chunk(&format!("t{n} "))
        };
        Some((Ok::<_, std::io::Error>(Bytes::from(text)), (n + 1, flag)))
    });
    (
        [("content-type", "text/event-stream")],
        Body::from_stream(stream),
    )
        .into_response()
}

async fn provider_fixture() -> (String, Provider) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let provider = Provider::default();
    let app = Router::new()
        .fallback(any(self::provider))
        .with_state(provider.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (base, provider)
}

fn the_whole_slow_reply() -> String {
    (0..TICKS).map(|n| format!("t{n} ")).collect()
}

/// A relayed round to the operator's provider (its URL is the fixture's).
fn round() -> Value {
    json!({
        "provider": {"serverProviderId": "server-default", "protocol": "openai-chat"},
        "request": {"model": "m", "messages": [{"role": "user", "parts": [{"type": "text", "text": "Hi"}]}], "tools": []},
        "capabilities": {"vision": false, "tools": false, "reasoning": false}
    })
}

fn provider_env(base: &str) -> Vec<(&'static str, String)> {
    vec![
        ("DEFAULT_PROVIDER_TYPE", "openai-compatible".into()),
        ("DEFAULT_PROVIDER_NAME", "Fixture".into()),
        ("DEFAULT_PROVIDER_BASE_URL", base.to_string()),
        ("DEFAULT_PROVIDER_API_KEY", "sk-fixture".into()),
    ]
}

fn relay_id() -> String {
    random_id("relay")
}

/// A client: cookies when the deployment is hosted.
#[derive(Clone, Default)]
struct Client {
    cookies: Option<String>,
}

impl Client {
    fn request(&self, method: reqwest::Method, url: String) -> reqwest::RequestBuilder {
        let mut request = reqwest::Client::new().request(method, url);
        if let Some(cookies) = &self.cookies {
            request = request
                .header(header::COOKIE, cookies)
                .header(header::ORIGIN, PUBLIC_ORIGIN);
        }
        request
    }

    async fn open(&self, server: &Server, id: &str) -> reqwest::Response {
        self.request(reqwest::Method::POST, server.url("/api/chat/relay"))
            .header("hearth-relay-id", id)
            .json(&round())
            .send()
            .await
            .unwrap()
    }

    async fn resume(&self, server: &Server, id: &str, after: Option<u64>) -> reqwest::Response {
        let mut request = self.request(
            reqwest::Method::GET,
            server.url(&format!("/api/chat/relay/{id}")),
        );
        if let Some(after) = after {
            request = request.header("last-event-id", after.to_string());
        }
        request.send().await.unwrap()
    }

    async fn stop(&self, server: &Server, id: &str) -> StatusCode {
        self.request(
            reqwest::Method::DELETE,
            server.url(&format!("/api/chat/relay/{id}")),
        )
        .send()
        .await
        .unwrap()
        .status()
    }
}

/// Reads `response` through `cursor` until batch `until` is confirmed (or the stream
/// ends); the provider's bytes it released.
async fn read(
    response: reqwest::Response,
    cursor: &mut RelayCursor,
    until: Option<u64>,
) -> Vec<u8> {
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = response.bytes_stream();
    let mut out = Vec::new();
    while let Some(piece) = tokio::time::timeout(Duration::from_secs(20), stream.next())
        .await
        .expect("the relay went silent")
    {
        let Ok(piece) = piece else { break };
        out.extend(cursor.push(&piece));
        if until.is_some_and(|until| cursor.last_id() >= Some(until)) {
            break;
        }
    }
    out
}

fn text_of(bytes: &[u8]) -> String {
    decode(bytes).0
}

#[tokio::test]
async fn a_named_relay_marks_its_batches_and_its_end_and_loses_nothing() {
    let (base, _provider) = provider_fixture().await;
    let server = Server::start_owned(&provider_env(&format!("{base}/slow/v1")));
    let client = Client::default();
    let id = relay_id();
    let mut cursor = RelayCursor::new();
    let bytes = read(client.open(&server, &id).await, &mut cursor, None).await;
    assert_eq!(text_of(&bytes), the_whole_slow_reply());
    assert!(cursor.ended(), "the end block came");
    assert!(
        cursor.last_id().unwrap() >= TICKS as u64 / 2,
        "batches are numbered"
    );
    // The same id cannot start a second reply while it is kept.
    let again = client.open(&server, &id).await;
    assert_eq!(again.status(), StatusCode::BAD_REQUEST);
    // A finished relay resumes to its end at once.
    let mut late = RelayCursor::new();
    let all = read(client.resume(&server, &id, None).await, &mut late, None).await;
    assert_eq!(text_of(&all), the_whole_slow_reply());
    assert!(late.ended());
}

#[tokio::test]
async fn a_fast_reply_comes_whole_on_its_own_connection_never_cut_short() {
    let (base, _provider) = provider_fixture().await;
    let server = Server::start_owned(&provider_env(&format!("{base}/fast/v1")));
    let client = Client::default();
    let mut cursor = RelayCursor::new();
    // Read slowly: the provider writes far faster than this reader takes it.
    let response = client.open(&server, &relay_id()).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = response.bytes_stream();
    let mut bytes = Vec::new();
    while let Some(Ok(piece)) = stream.next().await {
        bytes.extend(cursor.push(&piece));
        if bytes.len() < 4096 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    assert!(
        cursor.ended(),
        "the connection ran to the end block, not cut short"
    );
    let expected: String = (0..FAST_TICKS).map(|n| format!("t{n} ")).collect();
    assert_eq!(text_of(&bytes), expected);
}

#[tokio::test]
async fn a_connection_cut_mid_reply_resumes_from_its_last_event_id() {
    let (base, provider) = provider_fixture().await;
    let server = Server::start_owned(&provider_env(&format!("{base}/slow/v1")));
    let client = Client::default();
    let id = relay_id();
    let mut cursor = RelayCursor::new();
    // The connection drops after the third batch (the reader hangs up).
    let mut bytes = read(client.open(&server, &id).await, &mut cursor, Some(3)).await;
    assert!(!cursor.ended());
    cursor.resume();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rest = read(
        client.resume(&server, &id, cursor.last_id()).await,
        &mut cursor,
        None,
    )
    .await;
    bytes.extend(rest);
    assert_eq!(text_of(&bytes), the_whole_slow_reply(), "every tick once");
    assert!(cursor.ended());
    assert_eq!(
        provider.calls.load(Ordering::SeqCst),
        1,
        "one provider call"
    );
}

#[tokio::test]
async fn a_stop_ends_the_provider_call_and_unknown_or_bad_ids_are_refused() {
    let (base, provider) = provider_fixture().await;
    let server = Server::start_owned(&provider_env(&format!("{base}/endless/v1")));
    let client = Client::default();
    let id = relay_id();
    let mut cursor = RelayCursor::new();
    let response = client.open(&server, &id).await;
    let mut stream = response.bytes_stream();
    let first = stream.next().await.unwrap().unwrap();
    cursor.push(&first);
    assert_eq!(client.stop(&server, &id).await, StatusCode::NO_CONTENT);
    wait_until("the provider call ending", Duration::from_secs(5), || {
        provider.dropped.load(Ordering::SeqCst)
    })
    .await;
    // The live connection ends with the end block; a second stop finds nothing running.
    let mut rest = Vec::new();
    while let Some(Ok(piece)) = stream.next().await {
        rest.extend(cursor.push(&piece));
    }
    assert!(cursor.ended());
    // Stopping what already ended changes nothing; an unknown id is not found.
    assert_eq!(client.stop(&server, &id).await, StatusCode::NO_CONTENT);
    assert_eq!(
        client.stop(&server, &relay_id()).await,
        StatusCode::NOT_FOUND
    );

    let unknown = client.resume(&server, &relay_id(), Some(3)).await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert_eq!(unknown.json::<Value>().await.unwrap()["code"], "NOT_FOUND");
    // An id no relay can have is not found where a path names it, refused where a
    // request names its own (below).
    let bad = client.resume(&server, "not*a*relay*id*at*all", None).await;
    assert_eq!(bad.status(), StatusCode::NOT_FOUND);
    let garbage = client
        .request(
            reqwest::Method::GET,
            server.url(&format!("/api/chat/relay/{id}")),
        )
        .header("last-event-id", "seven")
        .send()
        .await
        .unwrap();
    assert_eq!(garbage.status(), StatusCode::BAD_REQUEST);
    let short = client.open(&server, "short").await;
    assert_eq!(short.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        provider.calls.load(Ordering::SeqCst),
        1,
        "refusals call nobody"
    );
}

#[tokio::test]
async fn a_reply_nobody_resumes_is_stopped_after_the_resume_window() {
    let (base, provider) = provider_fixture().await;
    let mut env = provider_env(&format!("{base}/endless/v1"));
    env.push(("HEARTH_RELAY_RESUME_SECS", "1".into()));
    let server = Server::start_owned(&env);
    let client = Client::default();
    let id = relay_id();
    let mut cursor = RelayCursor::new();
    read(client.open(&server, &id).await, &mut cursor, Some(2)).await;
    // Hung up: the reply runs on for the window (a resume could come), then stops.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !provider.dropped.load(Ordering::SeqCst),
        "still running for a resume"
    );
    wait_until("the orphaned call ending", Duration::from_secs(8), || {
        provider.dropped.load(Ordering::SeqCst)
    })
    .await;
    // What it relayed is still there to read, and ends.
    let mut late = RelayCursor::new();
    let all = read(client.resume(&server, &id, None).await, &mut late, None).await;
    assert!(text_of(&all).starts_with("t0 t1 "));
    assert!(late.ended());
}

/// A hosted deployment on a real Redis with the operator's provider at the fixture's
/// `path`: two instances (the second is `None` when one is enough) and a signed-in
/// client of the first.
struct Hosted {
    provider: Provider,
    redis: Redis,
    first: Option<Server>,
    second: Option<Server>,
    client: Client,
}

impl Hosted {
    async fn start(path: &str, instances: usize) -> Self {
        let (base, provider) = provider_fixture().await;
        let redis = Redis::start();
        let pem = hearth_server::byok::ByokKeys::generate().unwrap().1;
        let mut env = provider_env(&format!("{base}{path}"));
        env.extend(hosted::env(&redis.url(), &pem));
        let first = Server::start_owned(&env);
        let second = (instances > 1).then(|| Server::start_owned(&env));
        let client = signed_in(&first).await;
        Self {
            provider,
            redis,
            first: Some(first),
            second,
            client,
        }
    }

    fn first(&self) -> &Server {
        self.first.as_ref().unwrap()
    }

    fn second(&self) -> &Server {
        self.second.as_ref().unwrap()
    }
}

/// Signs in on `server` as a browser would; the client with its cookies.
async fn signed_in(server: &Server) -> Client {
    Client {
        cookies: Some(hosted::sign_in(server).await),
    }
}

#[tokio::test]
async fn hosted_a_reply_cut_on_one_instance_resumes_on_another_and_only_for_its_client() {
    let hosted = Hosted::start("/slow/v1", 2).await;
    let (first, second, client) = (hosted.first(), hosted.second(), &hosted.client);
    let id = relay_id();
    let mut cursor = RelayCursor::new();
    let mut bytes = read(client.open(first, &id).await, &mut cursor, Some(4)).await;
    cursor.resume();
    // Another client cannot read it, even knowing the id.
    let stranger = signed_in(second).await;
    assert_eq!(
        stranger
            .resume(second, &id, cursor.last_id())
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    let rest = read(
        client.resume(second, &id, cursor.last_id()).await,
        &mut cursor,
        None,
    )
    .await;
    bytes.extend(rest);
    assert_eq!(text_of(&bytes), the_whole_slow_reply());
    assert!(cursor.ended());
    assert_eq!(hosted.provider.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn hosted_an_instance_killed_mid_reply_leaves_what_it_relayed_and_says_the_rest_is_lost() {
    let mut hosted = Hosted::start("/endless/v1", 2).await;
    let client = hosted.client.clone();
    let id = relay_id();
    let mut cursor = RelayCursor::new();
    let mut bytes = read(client.open(hosted.first(), &id).await, &mut cursor, Some(2)).await;
    cursor.resume();
    // Batches 3 onwards were relayed but not received, then the instance dies.
    tokio::time::sleep(Duration::from_millis(400)).await;
    drop(hosted.first.take());
    let rest = read(
        client.resume(hosted.second(), &id, cursor.last_id()).await,
        &mut cursor,
        None,
    )
    .await;
    bytes.extend(rest);
    assert!(cursor.lost(), "the resume says the rest will never come");
    assert!(!cursor.ended());
    let text = text_of(&bytes);
    let ticks: Vec<&str> = text.split_whitespace().collect();
    assert!(
        ticks.len() >= 4,
        "what the dead instance relayed is kept: {text}"
    );
    for (n, tick) in ticks.iter().enumerate() {
        assert_eq!(*tick, format!("t{n}"), "in order, once each: {text}");
    }
}

#[tokio::test]
async fn hosted_a_redis_restart_answers_503_meanwhile_and_then_everything_works_again() {
    let mut hosted = Hosted::start("/slow/v1", 1).await;
    let client = hosted.client.clone();
    let list = |server: &Server| {
        let request = client.request(reqwest::Method::GET, server.url("/api/plugins/list"));
        async move { request.send().await.unwrap() }
    };
    assert_eq!(list(hosted.first()).await.status(), StatusCode::OK);

    hosted.redis.kill();
    let down = list(hosted.first()).await;
    assert_eq!(down.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        down.json::<Value>().await.unwrap()["code"],
        "SERVICE_UNAVAILABLE"
    );
    let relay = client.open(hosted.first(), &relay_id()).await;
    assert_eq!(relay.status(), StatusCode::SERVICE_UNAVAILABLE);

    // Redis comes back empty (no persistence): sessions are signed cookies, so the same
    // browser carries on without signing in again.
    hosted.redis.restart();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let status = list(hosted.first()).await.status();
        if status == StatusCode::OK {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still {status} after the restart"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let id = relay_id();
    let mut cursor = RelayCursor::new();
    let bytes = read(client.open(hosted.first(), &id).await, &mut cursor, None).await;
    assert_eq!(text_of(&bytes), the_whole_slow_reply());
    assert!(cursor.ended());
}
