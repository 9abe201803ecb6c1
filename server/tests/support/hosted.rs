//! A hosted test deployment's common parts: the origin browsers reach it at, the
//! environment its instances share, signing in as a browser, random ids for what a
//! client names, and waiting for something to happen.

use std::time::{Duration, Instant};

use reqwest::{StatusCode, header};
use serde_json::json;

use super::Server;

/// The origin browsers reach the hosted test deployment at.
pub const PUBLIC_ORIGIN: &str = "https://chat.example.test";
/// Its access password.
pub const PASSWORD: &str = "alpha";

/// The environment every hosted instance on the Redis at `redis_url` shares, with the
/// BYOK key `pem`.
pub fn env(redis_url: &str, pem: &str) -> Vec<(&'static str, String)> {
    vec![
        ("DEPLOYMENT_MODE", "hosted".to_string()),
        ("REDIS_URL", redis_url.to_string()),
        ("BYOK_PRIVATE_KEY_PEM", pem.to_string()),
        (
            "HEARTH_SESSION_SECRET",
            "shared-secret-for-tests".to_string(),
        ),
        ("HEARTH_PUBLIC_ORIGIN", PUBLIC_ORIGIN.to_string()),
        ("ACCESS_PASSWORD", PASSWORD.to_string()),
    ]
}

/// Signs in on `server` as a browser would; its cookies (`name=value; …`).
pub async fn sign_in(server: &Server) -> String {
    let granted = reqwest::Client::new()
        .post(server.url("/api/access/verify"))
        .header(header::ORIGIN, PUBLIC_ORIGIN)
        .json(&json!({"password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(granted.status(), StatusCode::OK);
    granted
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok()?.split(';').next().map(str::to_string))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A fresh id a client would choose: `prefix-` and 16 random hex digits.
pub fn random_id(prefix: &str) -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    format!("{prefix}-{:016x}", u64::from_le_bytes(bytes))
}

/// Waits until `check` holds; fails the test naming `what` after `within`.
pub async fn wait_until(what: &str, within: Duration, check: impl Fn() -> bool) {
    let deadline = Instant::now() + within;
    while !check() {
        assert!(
            Instant::now() < deadline,
            "{what} did not happen in {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
