//! The password gate, same-origin checks and JSON body rules over real sockets.

mod support;

use reqwest::StatusCode;
use reqwest::header;
use serde_json::{Value, json};
use support::Server;

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

async fn verify(server: &Server, password: &str) -> reqwest::Response {
    client()
        .post(server.url("/api/access/verify"))
        .json(&json!({ "password": password }))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn without_a_password_the_gate_is_open() {
    let server = Server::start(&[]);
    let session: Value = client()
        .get(server.url("/api/access/session"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(session, json!({"required": false, "authenticated": true}));
    let response = client().get(server.url("/api/nope")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_correct_password_earns_a_signed_httponly_session_cookie() {
    let server = Server::start(&[("ACCESS_PASSWORD", "alpha, beta")]);
    let gated = client().get(server.url("/api/nope")).send().await.unwrap();
    assert_eq!(gated.status(), StatusCode::UNAUTHORIZED);
    let body: Value = gated.json().await.unwrap();
    assert_eq!(body["code"], "ACCESS_REQUIRED");
    for open in ["/api/health", "/api/config", "/api/access/session"] {
        let response = client().get(server.url(open)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{open} stays open");
    }

    let response = verify(&server, "beta").await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookie = response.headers()[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .to_string();
    for attribute in [
        "hearth_access=",
        "HttpOnly",
        "SameSite=Lax",
        "Path=/",
        "Max-Age=43200",
    ] {
        assert!(cookie.contains(attribute), "{cookie} lacks {attribute}");
    }
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["authenticated"], true);
    assert!(body["expiresAt"].as_str().unwrap().ends_with('Z'));

    let pair = cookie.split(';').next().unwrap().to_string();
    let session: Value = client()
        .get(server.url("/api/access/session"))
        .header(header::COOKIE, &pair)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(session["authenticated"], true);
    let through = client()
        .get(server.url("/api/nope"))
        .header(header::COOKIE, &pair)
        .send()
        .await
        .unwrap();
    assert_eq!(
        through.status(),
        StatusCode::NOT_FOUND,
        "the session opens the API"
    );

    let (expiry, signature) = pair["hearth_access=".len()..].split_once('.').unwrap();
    let extended: u64 = expiry.parse::<u64>().unwrap() + 86_400;
    for forged in [
        format!("hearth_access={extended}.{signature}"),
        format!("hearth_access={expiry}.{}", "A".repeat(signature.len())),
        "hearth_access=".to_string(),
    ] {
        let session: Value = client()
            .get(server.url("/api/access/session"))
            .header(header::COOKIE, &forged)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(session["authenticated"], false, "{forged}");
    }
}

#[tokio::test]
async fn three_wrong_passwords_lock_the_client_for_hours() {
    let server = Server::start(&[("ACCESS_PASSWORD", "alpha")]);
    for remaining in [2, 1] {
        let response = verify(&server, "wrong").await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["code"], "ACCESS_PASSWORD_INVALID");
        assert_eq!(body["details"]["remainingAttempts"], remaining);
    }
    let locked = verify(&server, "wrong").await;
    assert_eq!(locked.status(), StatusCode::LOCKED);
    let retry: u64 = locked.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry > 3 * 3600 - 60 && retry <= 3 * 3600, "{retry}");
    let body: Value = locked.json().await.unwrap();
    assert_eq!(body["code"], "ACCESS_PASSWORD_LOCKED");
    assert!(body["details"]["lockedUntil"].is_string());

    // The right password does not help, with or without cookies.
    let response = verify(&server, "alpha").await;
    assert_eq!(response.status(), StatusCode::LOCKED);
    assert!(response.headers().get(header::SET_COOKIE).is_none());
}

#[tokio::test]
async fn cross_origin_state_changes_are_refused() {
    let server = Server::start(&[("ACCESS_PASSWORD", "alpha")]);
    let host = format!("127.0.0.1:{}", server.port);
    let cases = [
        vec![("origin", "http://evil.example".to_string())],
        vec![("sec-fetch-site", "cross-site".to_string())],
        vec![("origin", "null".to_string())],
        vec![
            ("origin", format!("http://{host}")),
            ("sec-fetch-site", "same-site".to_string()),
        ],
    ];
    for headers in cases {
        let mut request = client()
            .post(server.url("/api/access/verify"))
            .json(&json!({"password": "alpha"}));
        for (name, value) in &headers {
            request = request.header(*name, value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{headers:?}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["code"], "CSRF_ORIGIN_BLOCKED");
    }
    let response = client()
        .post(server.url("/api/access/verify"))
        .header("origin", format!("http://{host}"))
        .header("sec-fetch-site", "same-origin")
        .json(&json!({"password": "alpha"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "the app's own requests pass"
    );
}

#[tokio::test]
async fn json_bodies_are_typed_bounded_and_validated() {
    let server = Server::start(&[("ACCESS_PASSWORD", "alpha")]);
    let url = server.url("/api/access/verify");
    let response = client()
        .post(&url)
        .body("password=alpha")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);

    let big = json!({"password": "x".repeat(10_000)}).to_string();
    let response = client()
        .post(&url)
        .header(header::CONTENT_TYPE, "application/json")
        .body(big.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "PAYLOAD_TOO_LARGE");

    // Without a Content-Length (chunked), reading still stops at the limit.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        big.as_bytes().chunks(512).map(|c| Ok(c.to_vec())).collect();
    let response = client()
        .post(&url)
        .header(header::CONTENT_TYPE, "application/json")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);

    let response = client()
        .post(&url)
        .header(header::CONTENT_TYPE, "application/json")
        .body("{\"password\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "BAD_REQUEST");
    assert!(body["details"]["error"].is_string());
    // None of these counted as a wrong password.
    let response = verify(&server, "alpha").await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn password_attempts_are_rate_limited_in_local_mode_too() {
    let server = Server::start(&[("ACCESS_PASSWORD", "alpha")]);
    for _ in 0..10 {
        let status = verify(&server, "alpha").await.status();
        assert_ne!(status, StatusCode::TOO_MANY_REQUESTS);
    }
    let limited = verify(&server, "alpha").await;
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.headers().contains_key(header::RETRY_AFTER));
    assert!(
        limited.headers().get(header::SET_COOKIE).is_none(),
        "local mode needs no client cookie"
    );
    let body: Value = limited.json().await.unwrap();
    assert_eq!(body["code"], "RATE_LIMITED");
    assert!(body["retryAfter"].as_u64().unwrap() >= 1);
    // Health stays reachable for monitors.
    let health = client()
        .get(server.url("/api/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
}
