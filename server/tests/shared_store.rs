//! Hosted mode with a real Redis (`redis-server` from the distribution, started here on
//! a free loopback port): two edge instances share lockouts, sessions and rate limits,
//! and a store that stops answering makes the edge fail closed.

mod support;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hearth_server::byok::ByokKeys;
use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use support::hosted::PUBLIC_ORIGIN;
use support::redis::Redis;
use support::{Server, TestCa, fake_dist, free_port, get_json, hearth_command};

struct Hosted {
    pem: String,
    redis_url: String,
}

impl Hosted {
    fn new(redis: &Redis) -> Self {
        Self {
            pem: ByokKeys::generate().unwrap().1,
            redis_url: redis.url(),
        }
    }

    fn instance(&self) -> Server {
        Server::start(&self.env())
    }

    /// The environment of an instance.
    fn env(&self) -> Vec<(&str, &str)> {
        vec![
            ("DEPLOYMENT_MODE", "hosted"),
            ("REDIS_URL", &self.redis_url),
            ("BYOK_PRIVATE_KEY_PEM", &self.pem),
            ("HEARTH_SESSION_SECRET", "shared-secret-for-tests"),
            ("HEARTH_PUBLIC_ORIGIN", PUBLIC_ORIGIN),
            ("ACCESS_PASSWORD", "alpha"),
        ]
    }
}

#[tokio::test]
async fn hosted_instances_answer_for_the_public_origin_and_loopback_only() {
    let redis = Redis::start();
    let server = Hosted::new(&redis).instance();
    let raw = |host: &str, origin: Option<&str>| {
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        let body = r#"{"password": "alpha"}"#;
        server.raw(&format!(
            "POST /api/access/verify HTTP/1.1\r\nHost: {host}\r\n{origin}\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ))
    };
    let status = |response: String| response.split_whitespace().nth(1).unwrap_or("").to_string();
    // The public origin's host, from the public origin: the gate answers.
    assert_eq!(status(raw("chat.example.test", Some(PUBLIC_ORIGIN))), "200");
    assert_eq!(
        status(raw("chat.example.test:443", Some(PUBLIC_ORIGIN))),
        "200"
    );
    // Loopback on the bound port (health checks inside the container) is served too.
    let loopback = format!("127.0.0.1:{}", server.port);
    assert_eq!(status(raw(&loopback, None)), "200");
    // Another name, even one whose Origin matches it, is refused before the gate.
    assert_eq!(
        status(raw("attacker.example", Some("https://attacker.example"))),
        "421"
    );
    // The right host with another site's Origin is cross-origin.
    assert_eq!(
        status(raw("chat.example.test", Some("https://attacker.example"))),
        "403"
    );
    assert_eq!(
        status(raw("chat.example.test", Some("http://chat.example.test"))),
        "403",
        "the scheme is part of the origin"
    );
}

async fn verify(server: &Server, password: &str, cookie: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(server.url("/api/access/verify"))
        .json(&json!({ "password": password }));
    if let Some(cookie) = cookie {
        request = request.header(header::COOKIE, cookie);
    }
    request.send().await.unwrap()
}

fn cookie_pair(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .map(|v| v.split(';').next().unwrap_or_default().to_string())
}

#[tokio::test]
async fn two_instances_share_lockouts_and_sessions() {
    let redis = Redis::start();
    let hosted = Hosted::new(&redis);
    let a = hosted.instance();
    let b = hosted.instance();

    let config: Value = get_json(&a, "/api/config").await;
    assert_eq!(config["deployment"]["mode"], "hosted");
    assert_eq!(config["deployment"]["sharedState"], "shared");
    let health: Value = get_json(&b, "/api/health").await;
    assert_eq!(health["services"]["rateLimitStore"]["status"], "available");
    assert_eq!(
        health["services"]["documentParseJobStore"]["status"],
        "available"
    );

    // A right password on A gives a session B accepts (same secret, no shared memory).
    let granted = verify(&a, "alpha", None).await;
    assert_eq!(granted.status(), StatusCode::OK);
    let session = cookie_pair(&granted, "hearth_access").unwrap();
    let cookie = granted
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .find(|v| v.starts_with("hearth_access="))
        .unwrap();
    assert!(
        cookie.contains("Secure"),
        "hosted cookies are Secure: {cookie}"
    );
    let on_b: Value = reqwest::Client::new()
        .get(b.url("/api/access/session"))
        .header(header::COOKIE, &session)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(on_b["authenticated"], true);

    // Wrong passwords count across instances: 2 on A, 1 on B locks both.
    assert_eq!(
        verify(&a, "wrong", None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        verify(&a, "wrong", None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(verify(&b, "wrong", None).await.status(), StatusCode::LOCKED);
    assert_eq!(verify(&a, "alpha", None).await.status(), StatusCode::LOCKED);
}

#[tokio::test]
async fn rate_limits_are_shared_and_clients_get_their_own_bucket() {
    let redis = Redis::start();
    let hosted = Hosted::new(&redis);
    let a = hosted.instance();
    let b = hosted.instance();

    // Without a client cookie, requests count against the address (shared by A and B).
    let mut last = None;
    for i in 0..11 {
        let server = if i % 2 == 0 { &a } else { &b };
        last = Some(verify(server, "alpha", None).await);
    }
    let limited = last.unwrap();
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = limited.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let client = cookie_pair(&limited, "hearth_client").expect("a client id is issued");
    let body: Value = limited.json().await.unwrap();
    assert_eq!(body["code"], "RATE_LIMITED");
    assert_eq!(body["details"]["family"], "access");

    // A browser that keeps its signed client cookie has its own bucket.
    let own = verify(&b, "alpha", Some(&client)).await;
    assert_eq!(own.status(), StatusCode::OK);
    // A forged client id is not a bucket of its own.
    let forged = format!("{}x", client);
    assert_eq!(
        verify(&a, "alpha", Some(&forged)).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn a_store_that_stops_answering_fails_closed() {
    let redis = Redis::start();
    let hosted = Hosted::new(&redis);
    let server = hosted.instance();
    assert_eq!(
        verify(&server, "wrong", None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    drop(redis);
    let response = verify(&server, "alpha", None).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "SERVICE_UNAVAILABLE");
    let health: Value = get_json(&server, "/api/health").await;
    assert_eq!(
        health["services"]["rateLimitStore"]["status"],
        "upstream_failed"
    );
    assert_eq!(
        health["services"]["documentParseJobStore"]["status"],
        "upstream_failed"
    );
}

#[test]
fn hosted_mode_refuses_to_start_when_redis_does_not_answer() {
    let dist = tempfile::tempdir().unwrap();
    fake_dist(dist.path());
    let dist_path = dist.path().to_string_lossy().to_string();
    let pem = ByokKeys::generate().unwrap().1;
    let dead = format!("redis://127.0.0.1:{}/", free_port());
    let output = hearth_command(&[
        ("DEPLOYMENT_MODE", "hosted"),
        ("REDIS_URL", &dead),
        ("BYOK_PRIVATE_KEY_PEM", &pem),
        ("HEARTH_SESSION_SECRET", "s"),
        ("HEARTH_PUBLIC_ORIGIN", PUBLIC_ORIGIN),
        ("HEARTH_DIST_DIR", &dist_path),
        ("HEARTH_ADDR", "127.0.0.1:0"),
    ])
    .stderr(Stdio::piped())
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("Redis does not answer"));
}

#[tokio::test]
async fn hosted_mode_reaches_redis_over_tls() {
    // `rediss://`, as Upstash and most managed Redis offer it: the edge checks the
    // server's certificate against the system's roots (here a CA made for the test,
    // named by SSL_CERT_FILE).
    let ca = TestCa::make();
    let redis = Redis::start_tls(&ca);
    let hosted = Hosted {
        redis_url: format!("rediss://localhost:{}/", redis.port),
        ..Hosted::new(&redis)
    };
    let ca_file = ca.ca_file();
    let mut env = hosted.env();
    env.push(("SSL_CERT_FILE", &ca_file));
    let a = Server::start(&env);
    let b = Server::start(&env);
    let config: Value = get_json(&a, "/api/config").await;
    assert_eq!(config["deployment"]["sharedState"], "shared");
    // The store is really in use: a lockout made through A holds on B.
    for _ in 0..2 {
        assert_eq!(
            verify(&a, "wrong", None).await.status(),
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(verify(&b, "wrong", None).await.status(), StatusCode::LOCKED);

    // A certificate the edge does not trust is refused: hosted mode will not start.
    let untrusted = hosted.env();
    let dist = tempfile::tempdir().unwrap();
    fake_dist(dist.path());
    let data = tempfile::tempdir().unwrap();
    let mut child = hearth_command(&untrusted)
        .env("HEARTH_ADDR", format!("127.0.0.1:{}", free_port()))
        .env("HEARTH_DIST_DIR", dist.path())
        .env("HEARTH_DATA_DIR", data.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the edge started against a Redis whose certificate it cannot trust");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success());
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(
        stderr.to_lowercase().contains("redis"),
        "the refusal names the store: {stderr}"
    );
}

/// The `Cookie` header of a browser that passed the gate on `server`: its access session
/// and its own signed client identity.
#[tokio::test]
async fn hosted_user_configured_targets_are_public_https_at_every_call_site() {
    let redis = Redis::start();
    let server = Hosted::new(&redis).instance();
    let cookies = browser_cookies(&server).await;
    let local = "https://127.0.0.1:9/v1";
    let provider = json!({"protocol": "openai-chat", "baseUrl": local, "compatible": true});
    let spec = json!({"openapi": "3.0.0", "info": {"title": "LAN"},
        "servers": [{"url": "https://10.0.0.5"}],
        "paths": {"/a": {"get": {"operationId": "a"}}}})
    .to_string();
    for (path, body) in [
        (
            "/api/chat/relay",
            json!({"provider": provider, "request": {"model": "m", "tools": [],
                "messages": [{"role": "user", "parts": [{"type": "text", "text": "Hi"}]}]}}),
        ),
        ("/api/providers/models", json!({ "provider": provider })),
        (
            "/api/plugins/install",
            json!({"manifestUrl": "https://192.168.1.1/openapi.json"}),
        ),
        (
            "/api/plugins/install",
            json!({"mcpUrl": "https://[::1]:9/mcp"}),
        ),
        // A pasted description whose server is private: refused at install, not at
        // every call.
        ("/api/plugins/install", json!({ "spec": spec })),
    ] {
        let (status, error) =
            as_browser(reqwest::Method::POST, &server, path, &cookies, Some(body)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {error}");
        assert_eq!(error["code"], json!("URL_BLOCKED"), "{path}: {error}");
    }
    let (_, listed) = as_browser(
        reqwest::Method::GET,
        &server,
        "/api/plugins/list",
        &cookies,
        None,
    )
    .await;
    assert_eq!(listed["plugins"], json!([]), "nothing was installed");
}

async fn browser_cookies(server: &Server) -> String {
    let granted = verify(server, "alpha", None).await;
    assert_eq!(granted.status(), StatusCode::OK);
    let access = cookie_pair(&granted, "hearth_access").unwrap();
    let client = cookie_pair(&granted, "hearth_client").expect("a client identity");
    format!("{access}; {client}")
}

async fn as_browser(
    method: reqwest::Method,
    server: &Server,
    path: &str,
    cookies: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new()
        .request(method, server.url(path))
        .header(header::COOKIE, cookies);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Installs a one-operation OpenAPI plugin named `title` through `server`
/// and returns the install answer, asserting it succeeded.
async fn install_spec(server: &Server, cookies: &str, title: &str) -> Value {
    let spec = json!({
        "openapi": "3.0.0",
        "info": {"title": title},
        "servers": [{"url": "https://weather.example.com"}],
        "paths": {"/now": {"get": {"operationId": "now", "summary": "Now"}}}
    })
    .to_string();
    let (status, installed) = as_browser(
        reqwest::Method::POST,
        server,
        "/api/plugins/install",
        cookies,
        Some(json!({"spec": spec})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    installed
}

#[tokio::test]
async fn hosted_plugins_are_shared_by_instances_and_private_to_each_client() {
    let redis = Redis::start();
    let hosted = Hosted::new(&redis);
    let a = hosted.instance();
    let b = hosted.instance();
    let alice = browser_cookies(&a).await;
    let bob = browser_cookies(&b).await;
    assert_ne!(alice, bob);
    let installed = install_spec(&a, &alice, "Weather").await;
    let id = installed["registered"]["plugin"]["id"].clone();

    // Installed through A, listed by B: the registry lives in Redis.
    let (_, on_b) = as_browser(reqwest::Method::GET, &b, "/api/plugins/list", &alice, None).await;
    assert_eq!(on_b["plugins"][0]["plugin"]["id"], id);
    assert_eq!(
        on_b["plugins"][0]["fingerprints"],
        installed["registered"]["fingerprints"]
    );
    // Another client sees nothing, and can neither call nor remove it.
    let (_, bobs) = as_browser(reqwest::Method::GET, &b, "/api/plugins/list", &bob, None).await;
    assert_eq!(bobs["plugins"], json!([]));
    let (status, _) = as_browser(
        reqwest::Method::POST,
        &b,
        "/api/plugins/uninstall",
        &bob,
        Some(json!({"pluginId": id})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = as_browser(
        reqwest::Method::POST,
        &a,
        "/api/plugins/execute",
        &bob,
        Some(json!({"pluginId": id, "function": "now", "args": {},
            "fingerprint": installed["registered"]["fingerprints"]["now"]})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Without a client identity there is no scope to install into.
    let access_only = alice.split(';').next().unwrap().to_string();
    let (status, _) = as_browser(
        reqwest::Method::POST,
        &a,
        "/api/plugins/install",
        &access_only,
        Some(json!({"spec": "{}"})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // The owner removes it on B; A sees it gone.
    let (status, _) = as_browser(
        reqwest::Method::POST,
        &b,
        "/api/plugins/uninstall",
        &alice,
        Some(json!({"pluginId": id})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, on_a) = as_browser(reqwest::Method::GET, &a, "/api/plugins/list", &alice, None).await;
    assert_eq!(on_a["plugins"], json!([]));
}

/// A test shim that speaks the Upstash REST protocol in front of the real Redis: a JSON
/// array is one command, `/multi-exec` an array of them run as one transaction; a wrong
/// bearer token is 401. It records the tokens it saw.
async fn upstash_shim(redis_url: String, token: &'static str) -> (String, Arc<Mutex<usize>>) {
    use axum::extract::State as AxumState;
    use axum::routing::post as axum_post;

    #[derive(Clone)]
    struct Shim {
        client: redis::Client,
        token: &'static str,
        calls: Arc<Mutex<usize>>,
    }

    fn arg(value: &Value) -> String {
        match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }

    fn to_json(value: redis::Value) -> Value {
        match value {
            redis::Value::Nil => Value::Null,
            redis::Value::Int(n) => json!(n),
            redis::Value::BulkString(bytes) => json!(String::from_utf8_lossy(&bytes)),
            redis::Value::SimpleString(s) => json!(s),
            redis::Value::Okay => json!("OK"),
            redis::Value::Array(items) => Value::Array(items.into_iter().map(to_json).collect()),
            other => json!(format!("{other:?}")),
        }
    }

    fn command(parts: &[Value]) -> redis::Cmd {
        let mut cmd = redis::cmd(&arg(&parts[0]));
        for part in &parts[1..] {
            cmd.arg(arg(part));
        }
        cmd
    }

    fn authorised(shim: &Shim, headers: &axum::http::HeaderMap) -> bool {
        *shim.calls.lock().unwrap() += 1;
        headers.get("authorization").and_then(|v| v.to_str().ok())
            == Some(&format!("Bearer {}", shim.token))
    }

    /// Runs `commands`; one command answers `{result}`, a transaction an array of them.
    async fn run(
        shim: Shim,
        headers: axum::http::HeaderMap,
        commands: Vec<Vec<Value>>,
        single: bool,
    ) -> axum::response::Response {
        use axum::response::IntoResponse;
        if !authorised(&shim, &headers) {
            return (
                StatusCode::UNAUTHORIZED,
                axum::Json(json!({"error": "Unauthorized"})),
            )
                .into_response();
        }
        let mut connection = shim
            .client
            .get_multiplexed_async_connection()
            .await
            .unwrap();
        let mut pipe = redis::pipe();
        pipe.atomic();
        for parts in &commands {
            pipe.add_command(command(parts));
        }
        let answer = match pipe.query_async::<Vec<redis::Value>>(&mut connection).await {
            Ok(values) => {
                let mut results: Vec<Value> = values
                    .into_iter()
                    .map(|v| json!({"result": to_json(v)}))
                    .collect();
                if single {
                    results.remove(0)
                } else {
                    Value::Array(results)
                }
            }
            Err(error) => json!({"error": error.to_string()}),
        };
        axum::Json(answer).into_response()
    }

    async fn one(
        AxumState(shim): AxumState<Shim>,
        headers: axum::http::HeaderMap,
        axum::Json(parts): axum::Json<Vec<Value>>,
    ) -> axum::response::Response {
        run(shim, headers, vec![parts], true).await
    }

    async fn multi(
        AxumState(shim): AxumState<Shim>,
        headers: axum::http::HeaderMap,
        axum::Json(commands): axum::Json<Vec<Vec<Value>>>,
    ) -> axum::response::Response {
        run(shim, headers, commands, false).await
    }

    let calls = Arc::new(Mutex::new(0));
    let shim = Shim {
        client: redis::Client::open(redis_url).unwrap(),
        token,
        calls: calls.clone(),
    };
    let app = axum::Router::new()
        .route("/", axum_post(one))
        .route("/multi-exec", axum_post(multi))
        .with_state(shim);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (url, calls)
}

#[tokio::test]
async fn hosted_mode_works_over_upstash_rest_in_front_of_the_same_redis() {
    let redis = Redis::start();
    let (url, calls) = upstash_shim(redis.url(), "upstash-token-9c1f").await;
    let pem = ByokKeys::generate().unwrap().1;
    let env = |token: &'static str| -> Vec<(&'static str, String)> {
        vec![
            ("DEPLOYMENT_MODE", "hosted".into()),
            ("UPSTASH_REDIS_REST_URL", url.clone()),
            ("UPSTASH_REDIS_REST_TOKEN", token.into()),
            ("BYOK_PRIVATE_KEY_PEM", pem.clone()),
            ("HEARTH_SESSION_SECRET", "shared-secret-for-tests".into()),
            ("HEARTH_PUBLIC_ORIGIN", PUBLIC_ORIGIN.into()),
            ("ACCESS_PASSWORD", "alpha".into()),
        ]
    };
    let owned = env("upstash-token-9c1f");
    let borrowed: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let a = Server::start(&borrowed);
    let b = Server::start(&borrowed);
    let config: Value = get_json(&a, "/api/config").await;
    assert_eq!(config["deployment"]["sharedState"], "shared");
    // The plugin registry lives there too: installed through A, listed by B.
    let cookies = browser_cookies(&a).await;
    let installed = install_spec(&a, &cookies, "Clock").await;
    let (_, listed) = as_browser(
        reqwest::Method::GET,
        &b,
        "/api/plugins/list",
        &cookies,
        None,
    )
    .await;
    assert_eq!(
        listed["plugins"][0]["plugin"]["id"],
        installed["registered"]["plugin"]["id"]
    );
    // Lockouts count across instances through Upstash.
    for _ in 0..2 {
        assert_eq!(
            verify(&a, "wrong", None).await.status(),
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(verify(&b, "wrong", None).await.status(), StatusCode::LOCKED);
    assert!(*calls.lock().unwrap() > 3, "the shim carried the traffic");
    // And the state is really in that Redis.
    let mut connection = redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("hearth:*")
        .query_async(&mut connection)
        .await
        .unwrap();
    assert!(!keys.is_empty(), "{keys:?}");

    // A wrong token refuses start-up: no silent per-instance fallback.
    let wrong = env("not-the-token");
    let dist = tempfile::tempdir().unwrap();
    fake_dist(dist.path());
    let data = tempfile::tempdir().unwrap();
    let mut command = hearth_command(
        &wrong
            .iter()
            .map(|(k, v)| (*k, v.as_str()))
            .collect::<Vec<_>>(),
    );
    let output = command
        .env("HEARTH_ADDR", format!("127.0.0.1:{}", free_port()))
        .env("HEARTH_DIST_DIR", dist.path())
        .env("HEARTH_DATA_DIR", data.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Upstash"), "{stderr}");
}
