//! Hosted mode with a real Redis (`redis-server` from the distribution, started here on
//! a free loopback port): two edge instances share lockouts, sessions and rate limits,
//! and a store that stops answering makes the edge fail closed.

mod support;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hearth_server::byok::ByokKeys;
use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use support::{Server, fake_dist, free_port, hearth_command};

/// A private `redis-server`, killed on drop.
struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
    fn start() -> Self {
        let port = free_port();
        let child =
            Command::new(std::env::var("REDIS_SERVER").unwrap_or_else(|_| "redis-server".into()))
                .args([
                    "--port",
                    &port.to_string(),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect(
                    "redis-server (Debian package redis-server; scripts/setup.sh test installs it)",
                );
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Self { child, port }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

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
        Server::start(&[
            ("DEPLOYMENT_MODE", "hosted"),
            ("REDIS_URL", &self.redis_url),
            ("BYOK_PRIVATE_KEY_PEM", &self.pem),
            ("HEARTH_SESSION_SECRET", "shared-secret-for-tests"),
            ("ACCESS_PASSWORD", "alpha"),
        ])
    }
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

    let config: Value = reqwest::get(a.url("/api/config"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(config["deployment"]["mode"], "hosted");
    assert_eq!(config["deployment"]["sharedState"], "shared");
    let health: Value = reqwest::get(b.url("/api/health"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["services"]["rateLimitStore"]["status"], "available");

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
    let health: Value = reqwest::get(server.url("/api/health"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        health["services"]["rateLimitStore"]["status"],
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
        ("HEARTH_DIST_DIR", &dist_path),
        ("HEARTH_ADDR", "127.0.0.1:0"),
    ])
    .stderr(Stdio::piped())
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("Redis does not answer"));
}
