//! `POST /api/chat/relay` over real sockets: the real binary, a provider fixture that
//! speaks OpenAI's streaming wire format on 127.0.0.1, and envelopes sealed with the
//! edge's own key.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use bytes::Bytes;
use futures_util::StreamExt;
use hearth_core::byok::context;
use hearth_core::provider::StreamEvent;
use hearth_server::byok::ByokKeys;
use serde_json::{Value, json};
use support::Server;
use support::openai_stream::{DropFlag, chunk, decode};

const KEY: &str = "sk-test-relay-7f3a9c";

#[derive(Clone, Default)]
struct Fixture {
    hits: Arc<AtomicUsize>,
    last_auth: Arc<std::sync::Mutex<Option<String>>>,
    last_body: Arc<std::sync::Mutex<Option<Value>>>,
    dropped: Arc<AtomicBool>,
}

async fn provider(State(fixture): State<Fixture>, request: Request) -> Response {
    fixture.hits.fetch_add(1, Ordering::SeqCst);
    let auth = request
        .headers()
        .get("authorization")
        .map(|v| v.to_str().unwrap_or_default().to_string());
    *fixture.last_auth.lock().unwrap() = auth.clone();
    let path = request.uri().path().to_string();
    let body = axum::body::to_bytes(request.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    *fixture.last_body.lock().unwrap() = serde_json::from_slice(&body).ok();
    let sse = |stream: futures_util::stream::BoxStream<'static, Result<Bytes, std::io::Error>>| {
        (
            [("content-type", "text/event-stream")],
            Body::from_stream(stream),
        )
            .into_response()
    };
    if auth.as_deref() != Some(&format!("Bearer {KEY}")) && !path.starts_with("/open") {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"error": {"message": format!("Incorrect API key provided: {}", auth.unwrap_or_default())}})),
        )
            .into_response();
    }
    match path.as_str() {
        "/v1/models" => axum::Json(json!({"object": "list", "data": [
            {"id": "gpt-4.1", "object": "model"},
            {"id": "llama3.1:8b", "object": "model", "context_length": 131072}
        ]}))
        .into_response(),
        "/v1/chat/completions" | "/open/v1/chat/completions" => {
            let frames = [
                chunk("Hel"),
                chunk("lo "),
                chunk("从 relay"),
                format!(
                    "data: {}\n\n",
                    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                ),
                "data: [DONE]\n\n".to_string(),
            ];
            // Split mid-event on purpose: the relay must forward whole events.
            let all = frames.concat().into_bytes();
            let pieces: Vec<Result<Bytes, std::io::Error>> = all
                .chunks(7)
                .map(|c| Ok(Bytes::copy_from_slice(c)))
                .collect();
            sse(futures_util::stream::iter(pieces).boxed())
        }
        "/huge/v1/chat/completions" => {
            let frame = Bytes::from(chunk(&"x".repeat(64 * 1024)));
            sse(futures_util::stream::iter((0..200).map(move |_| Ok(frame.clone()))).boxed())
        }
        "/stall/v1/chat/completions" | "/endless/v1/chat/completions" => {
            let flag = DropFlag(Arc::clone(&fixture.dropped));
            let stall = path.starts_with("/stall");
            let stream = futures_util::stream::unfold((0u32, flag), move |(n, flag)| async move {
                if n > 0 {
                    let pause = if stall { 10_000 } else { 50 };
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                }
                Some((Ok(Bytes::from(chunk("tick "))), (n + 1, flag)))
            });
            sse(stream.boxed())
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn fixture() -> (String, Fixture) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let fixture = Fixture::default();
    let app = Router::new()
        .fallback(any(provider))
        .with_state(fixture.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (base, fixture)
}

fn body(base_url: &str, envelope: Option<Value>) -> Value {
    let mut provider = json!({"protocol": "openai-chat", "baseUrl": base_url, "compatible": true});
    if let Some(envelope) = envelope {
        provider["apiKey"] = envelope;
    }
    json!({
        "provider": provider,
        "request": {"model": "llama3.1:8b", "messages": [{"role": "user", "parts": [{"type": "text", "text": "Hi"}]}], "tools": []},
        "capabilities": {"vision": false, "tools": false, "reasoning": false}
    })
}

fn sealed(server: &Server, ctx: &str) -> Value {
    let keys = ByokKeys::load_or_create(server.data.path()).unwrap();
    serde_json::to_value(keys.seal(ctx, KEY).unwrap()).unwrap()
}

async fn post(server: &Server, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(server.url("/api/chat/relay"))
        .json(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_sealed_key_streams_a_reply_through_in_whole_events() {
    let (base, fixture) = fixture().await;
    let server = Server::start(&[]);
    let envelope = sealed(&server, &context::provider("openai-chat"));
    let response = post(&server, &body(&format!("{base}/v1"), Some(envelope))).await;
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut stream = response.bytes_stream();
    let mut all = Vec::new();
    while let Some(piece) = stream.next().await {
        let piece = piece.unwrap();
        assert!(
            piece.ends_with(b"\n\n"),
            "forwarded a partial event: {piece:?}"
        );
        all.extend_from_slice(&piece);
    }
    let (text, events) = decode(&all);
    assert_eq!(text, "Hello 从 relay");
    assert!(matches!(events.last(), Some(StreamEvent::Finish { .. })));

    assert_eq!(
        fixture.last_auth.lock().unwrap().as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );
    let sent = fixture.last_body.lock().unwrap().clone().unwrap();
    assert_eq!(sent["model"], "llama3.1:8b");
    assert_eq!(sent["stream"], true);
    assert_eq!(
        sent["messages"][0],
        json!({"role": "user", "content": "Hi"})
    );
}

#[tokio::test]
async fn keyless_local_servers_need_no_envelope() {
    let (base, fixture) = fixture().await;
    let server = Server::start(&[]);
    let response = post(&server, &body(&format!("{base}/open/v1"), None)).await;
    assert_eq!(response.status(), 200);
    let (text, _) = decode(&response.bytes().await.unwrap());
    assert_eq!(text, "Hello 从 relay");
    assert_eq!(fixture.last_auth.lock().unwrap().clone(), None);
}

#[tokio::test]
async fn plaintext_keys_wrong_contexts_and_tampering_are_refused_before_any_call() {
    let (base, fixture) = fixture().await;
    let server = Server::start(&[]);
    let mut plaintext = body(&format!("{base}/v1"), None);
    plaintext["provider"]["apiKey"] = json!(KEY);
    let response = post(&server, &plaintext).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["code"], "PLAINTEXT_SECRET_REFUSED");
    assert_eq!(error["details"]["field"], "provider.apiKey");
    assert!(!error.to_string().contains(KEY));

    let wrong = sealed(&server, &context::provider("anthropic"));
    let response = post(&server, &body(&format!("{base}/v1"), Some(wrong))).await;
    assert_eq!(response.status(), 401);
    assert_eq!(
        response.json::<Value>().await.unwrap()["code"],
        "AUTH_ERROR"
    );

    let mut tampered = sealed(&server, &context::provider("openai-chat"));
    let ciphertext = tampered["ciphertext"].as_str().unwrap().to_string();
    let flipped = if ciphertext.starts_with('A') {
        "B"
    } else {
        "A"
    };
    tampered["ciphertext"] = json!(format!("{flipped}{}", &ciphertext[1..]));
    let response = post(&server, &body(&format!("{base}/v1"), Some(tampered))).await;
    assert_eq!(response.status(), 401);
    assert_eq!(
        fixture.hits.load(Ordering::SeqCst),
        0,
        "the provider was never called"
    );
}

#[tokio::test]
async fn provider_errors_come_back_typed_with_the_key_redacted() {
    let (base, _fixture) = fixture().await;
    let server = Server::start(&[]);
    let keys = ByokKeys::load_or_create(server.data.path()).unwrap();
    let wrong_key = keys
        .seal(&context::provider("openai-chat"), "sk-wrong-key-123")
        .unwrap();
    let response = post(
        &server,
        &body(
            &format!("{base}/v1"),
            Some(serde_json::to_value(wrong_key).unwrap()),
        ),
    )
    .await;
    assert_eq!(response.status(), 502);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["code"], "UPSTREAM_ERROR");
    assert_eq!(error["details"]["upstreamStatus"], 401);
    let message = error["details"]["message"].as_str().unwrap();
    assert!(message.contains("Incorrect API key"), "{message}");
    assert!(!message.contains("sk-wrong-key-123"), "{message}");
}

#[tokio::test]
async fn unknown_fields_and_values_past_their_bounds_are_refused_before_any_call() {
    let (base, fixture) = fixture().await;
    let base = format!("{base}/open/v1");
    let server = Server::start(&[]);
    type Change = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Change, &str)> = vec![
        (Box::new(|b| b["url"] = json!("http://127.0.0.1:6379/")), ""),
        (
            Box::new(|b| b["request"]["model"] = json!("m".repeat(301))),
            "request.model",
        ),
        (
            Box::new(|b| b["request"]["temperature"] = json!(7.5)),
            "request.temperature",
        ),
        (
            Box::new(|b| b["request"]["maxOutputTokens"] = json!(0)),
            "request.maxOutputTokens",
        ),
        (
            Box::new(|b| {
                b["request"]["messages"][0]["parts"][0]["text"] = json!("x".repeat(200_001))
            }),
            "request.messages[0].parts[0].text",
        ),
        (
            Box::new(|b| {
                let one = b["request"]["messages"][0].clone();
                b["request"]["messages"] = Value::Array(vec![one; 5_001]);
            }),
            "request.messages",
        ),
    ];
    for (change, field) in cases {
        let mut request = body(&base, None);
        change(&mut request);
        let response = post(&server, &request).await;
        assert_eq!(response.status(), 400, "{field}");
        let error: Value = response.json().await.unwrap();
        assert_eq!(error["code"], "BAD_REQUEST", "{error}");
        if field.is_empty() {
            assert!(
                error["details"]["error"]
                    .as_str()
                    .unwrap()
                    .contains("unknown field"),
                "{error}"
            );
        } else {
            assert_eq!(error["details"]["field"], json!(field), "{error}");
        }
    }
    assert_eq!(
        fixture.hits.load(Ordering::SeqCst),
        0,
        "nothing reached the provider"
    );
    // The same body within its bounds is relayed.
    let response = post(&server, &body(&base, None)).await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn blocked_targets_are_refused() {
    let server = Server::start(&[]);
    let response = post(&server, &body("http://0.0.0.0:9/v1", None)).await;
    assert_eq!(response.status(), 403);
    assert_eq!(
        response.json::<Value>().await.unwrap()["code"],
        "URL_BLOCKED"
    );
}

#[tokio::test]
async fn an_oversize_reply_ends_with_a_typed_error() {
    let (base, _fixture) = fixture().await;
    let server = Server::start(&[]);
    let envelope = sealed(&server, &context::provider("openai-chat"));
    let response = post(&server, &body(&format!("{base}/huge/v1"), Some(envelope))).await;
    assert_eq!(response.status(), 200);
    let all = response.bytes().await.unwrap();
    assert!(all.len() <= 8 * 1024 * 1024 + 1024, "{} bytes", all.len());
    let (_, events) = decode(&all);
    let error = events.iter().find_map(|e| match e {
        StreamEvent::Error { error } => Some(error.clone()),
        _ => None,
    });
    assert_eq!(error.unwrap().code.as_deref(), Some("RESPONSE_SIZE_LIMIT"));
}

#[tokio::test]
async fn a_stalled_reply_ends_at_the_deadline_with_a_typed_error() {
    let (base, _fixture) = fixture().await;
    let server = Server::start(&[("HEARTH_RELAY_TIMEOUT_SECS", "1")]);
    let envelope = sealed(&server, &context::provider("openai-chat"));
    let started = std::time::Instant::now();
    let response = post(&server, &body(&format!("{base}/stall/v1"), Some(envelope))).await;
    let all = response.bytes().await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "waited {:?}",
        started.elapsed()
    );
    let (text, events) = decode(&all);
    assert_eq!(text, "tick ", "what arrived before the deadline is kept");
    assert!(events.iter().any(|e| matches!(e, StreamEvent::Error { error } if error.code.as_deref() == Some("RESPONSE_TIMEOUT"))));
}

#[tokio::test]
async fn a_client_that_hangs_up_stops_the_upstream_call() {
    let (base, fixture) = fixture().await;
    let server = Server::start(&[]);
    let envelope = sealed(&server, &context::provider("openai-chat"));
    let response = post(
        &server,
        &body(&format!("{base}/endless/v1"), Some(envelope)),
    )
    .await;
    let mut stream = response.bytes_stream();
    let first = stream.next().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("tick"));
    drop(stream);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !fixture.dropped.load(Ordering::SeqCst) {
        assert!(
            std::time::Instant::now() < deadline,
            "the upstream stream was never dropped"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn server_configured_providers_keep_their_key_on_the_edge() {
    let (base, fixture) = fixture().await;
    let base_url = format!("{base}/v1");
    let server = Server::start(&[
        ("DEFAULT_PROVIDER_TYPE", "openai-compatible"),
        ("DEFAULT_PROVIDER_NAME", "Team models"),
        ("DEFAULT_PROVIDER_BASE_URL", &base_url),
        ("DEFAULT_PROVIDER_API_KEY", KEY),
    ]);
    let config = reqwest::get(server.url("/api/config"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        !config.contains(KEY),
        "the key never reaches the browser: {config}"
    );
    assert!(!config.contains(&base), "nor the URL: {config}");
    let config: Value = serde_json::from_str(&config).unwrap();
    assert_eq!(
        config["serverProviders"],
        json!([{"id": "server-default", "name": "Team models", "protocol": "openai-chat", "models": []}])
    );

    let mut request = body("", None);
    request["provider"] = json!({"serverProviderId": "server-default", "protocol": "openai-chat"});
    let response = post(&server, &request).await;
    assert_eq!(response.status(), 200);
    let (text, _) = decode(&response.bytes().await.unwrap());
    assert_eq!(text, "Hello 从 relay");
    assert_eq!(
        fixture.last_auth.lock().unwrap().as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );

    let models: Value = reqwest::Client::new()
        .post(server.url("/api/providers/models"))
        .json(
            &json!({"provider": {"serverProviderId": "server-default", "protocol": "openai-chat"}}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> = models["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["gpt-4.1", "llama3.1:8b"]);
    assert_eq!(models["models"][1]["capabilities"]["contextWindow"], 131072);

    let mut unknown = body("", None);
    unknown["provider"] = json!({"serverProviderId": "nope", "protocol": "openai-chat"});
    assert_eq!(post(&server, &unknown).await.status(), 400);
}

#[tokio::test]
async fn model_lists_come_through_the_edge_with_a_sealed_key() {
    let (base, _fixture) = fixture().await;
    let server = Server::start(&[]);
    let envelope = sealed(&server, &context::provider("openai-chat"));
    let list = |provider: Value| {
        let url = server.url("/api/providers/models");
        async move {
            reqwest::Client::new()
                .post(url)
                .json(&json!({ "provider": provider }))
                .send()
                .await
                .unwrap()
        }
    };
    let ok = list(
        json!({"protocol": "openai-chat", "baseUrl": format!("{base}/v1"), "apiKey": envelope}),
    )
    .await;
    assert_eq!(ok.status(), 200);
    let models: Value = ok.json().await.unwrap();
    assert_eq!(models["models"].as_array().unwrap().len(), 2);

    let refused =
        list(json!({"protocol": "openai-chat", "baseUrl": format!("{base}/v1"), "apiKey": KEY}))
            .await;
    assert_eq!(refused.status(), 400);
    let unauthorised =
        list(json!({"protocol": "openai-chat", "baseUrl": format!("{base}/v1")})).await;
    assert_eq!(unauthorised.status(), 502);
    let error: Value = unauthorised.json().await.unwrap();
    assert_eq!(error["details"]["upstreamStatus"], 401);
}

/// Posts `body` saying the client takes gzip (reqwest here decodes nothing itself).
async fn post_taking_gzip(server: &Server, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(server.url("/api/chat/relay"))
        .header("accept-encoding", "gzip, deflate, br")
        .json(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_client_that_takes_gzip_gets_the_same_reply_gzipped() {
    use std::io::Read;
    let (base, _fixture) = fixture().await;
    let server = Server::start(&[]);
    let envelope = sealed(&server, &context::provider("openai-chat"));
    let response = post_taking_gzip(&server, &body(&format!("{base}/v1"), Some(envelope))).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-encoding"], "gzip");
    assert_eq!(response.headers()["vary"], "accept-encoding");
    let compressed = response.bytes().await.unwrap();
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(&compressed[..])
        .read_to_end(&mut plain)
        .expect("a whole gzip body, trailer included");
    let (text, events) = decode(&plain);
    assert_eq!(text, "Hello 从 relay");
    assert!(matches!(events.last(), Some(StreamEvent::Finish { .. })));

    // A client that refuses gzip, or says nothing, gets the events as they are.
    let envelope = sealed(&server, &context::provider("openai-chat"));
    let response = reqwest::Client::new()
        .post(server.url("/api/chat/relay"))
        .header("accept-encoding", "gzip;q=0, identity")
        .json(&body(&format!("{base}/v1"), Some(envelope)))
        .send()
        .await
        .unwrap();
    assert!(response.headers().get("content-encoding").is_none());
    let (text, _) = decode(&response.bytes().await.unwrap());
    assert_eq!(text, "Hello 从 relay");
}

#[tokio::test]
async fn a_gzipped_reply_keeps_its_pace() {
    // A reply that never ends (a tick every 50 ms): what has arrived decodes before the
    // reply is over, so gzip holds nothing back.
    let (base, _fixture) = fixture().await;
    let server = Server::start(&[]);
    let envelope = sealed(&server, &context::provider("openai-chat"));
    let response = post_taking_gzip(
        &server,
        &body(&format!("{base}/endless/v1"), Some(envelope)),
    )
    .await;
    assert_eq!(response.headers()["content-encoding"], "gzip");
    let mut stream = response.bytes_stream();
    let mut inflater = flate2::Decompress::new(false);
    let mut header_left = 10usize;
    let mut decoded = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while decoded.windows(5).filter(|w| w == b"tick ").count() < 3 {
        let piece = tokio::time::timeout_at(deadline, stream.next())
            .await
            .expect("three ticks decoded while the reply goes on")
            .expect("the reply goes on")
            .unwrap();
        let skip = header_left.min(piece.len());
        header_left -= skip;
        let mut input = &piece[skip..];
        while !input.is_empty() {
            let mut out = vec![0u8; 16 * 1024];
            let (before_in, before_out) = (inflater.total_in(), inflater.total_out());
            inflater
                .decompress(input, &mut out, flate2::FlushDecompress::Sync)
                .expect("valid deflate");
            let used = usize::try_from(inflater.total_in() - before_in).unwrap();
            let made = usize::try_from(inflater.total_out() - before_out).unwrap();
            decoded.extend_from_slice(&out[..made]);
            input = &input[used..];
            if used == 0 && made == 0 {
                break;
            }
        }
    }
    let (text, _) = decode(&decoded);
    assert!(text.starts_with("tick tick tick"), "{text}");
}
