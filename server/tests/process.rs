//! The `hearth` process: configuration refusals, `--help`, graceful shutdown, and logs
//! that never contain secrets.

mod support;

use std::process::Stdio;

use support::{Server, fake_dist, free_port, hearth_command};

fn run_to_exit(env: &[(&str, &str)]) -> (Option<i32>, String) {
    let output = hearth_command(env)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

#[test]
fn refuses_a_public_bind_in_local_mode_without_a_password() {
    let dist = tempfile::tempdir().unwrap();
    fake_dist(dist.path());
    let dist = dist.path().to_string_lossy().to_string();
    let addr = format!("0.0.0.0:{}", free_port());
    let (code, stderr) = run_to_exit(&[("HEARTH_ADDR", &addr), ("HEARTH_DIST_DIR", &dist)]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("refusing to listen on 0.0.0.0"), "{stderr}");
    assert!(stderr.contains("ACCESS_PASSWORD"), "{stderr}");
    assert!(stderr.contains("--allow-public-bind"), "{stderr}");
}

#[tokio::test]
async fn a_public_bind_is_allowed_when_explicitly_overridden() {
    let addr = format!("0.0.0.0:{}", free_port());
    let server = Server::start(&[("HEARTH_ADDR", &addr), ("HEARTH_ALLOW_PUBLIC_BIND", "true")]);
    let response = reqwest::get(server.url("/api/health")).await.unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_public_bind_is_allowed_with_an_access_password() {
    let addr = format!("0.0.0.0:{}", free_port());
    let server = Server::start(&[("HEARTH_ADDR", &addr), ("ACCESS_PASSWORD", "a,b")]);
    let response = reqwest::get(server.url("/api/config")).await.unwrap();
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["deployment"]["accessPasswordEnabled"], true);
}

#[test]
fn hosted_mode_without_a_shared_store_fails_closed() {
    let dist = tempfile::tempdir().unwrap();
    fake_dist(dist.path());
    let dist = dist.path().to_string_lossy().to_string();
    let (code, stderr) = run_to_exit(&[
        ("DEPLOYMENT_MODE", "hosted"),
        ("HEARTH_DIST_DIR", &dist),
        ("HEARTH_ADDR", "127.0.0.1:0"),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("hosted mode"), "{stderr}");
}

#[test]
fn a_missing_build_is_explained() {
    let empty = tempfile::tempdir().unwrap();
    let dir = empty
        .path()
        .join("no-dist-here")
        .to_string_lossy()
        .to_string();
    let (code, stderr) = run_to_exit(&[("HEARTH_DIST_DIR", &dir), ("HEARTH_ADDR", "127.0.0.1:0")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("build the app first"), "{stderr}");
}

#[test]
fn help_documents_every_setting_and_its_environment_variable() {
    let output = hearth_command(&[]).arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for needle in [
        "--addr",
        "HEARTH_ADDR",
        "127.0.0.1:8080",
        "--dist-dir",
        "HEARTH_DIST_DIR",
        "--deployment-mode",
        "DEPLOYMENT_MODE",
        "ACCESS_PASSWORD",
        "--allow-public-bind",
        "HEARTH_ALLOW_PUBLIC_BIND",
        "--log-format",
        "RUST_LOG",
    ] {
        assert!(help.contains(needle), "--help lacks {needle}:\n{help}");
    }
}

#[test]
fn sigterm_shuts_down_gracefully() {
    let server = Server::start(&[("RUST_LOG", "info")]);
    let (success, stderr) = server.terminate();
    assert!(success, "exit was not clean:\n{stderr}");
    assert!(stderr.contains("SIGTERM received"), "{stderr}");
    assert!(stderr.contains("stopped"), "{stderr}");
}

#[tokio::test]
async fn logs_never_contain_secrets_from_queries_headers_or_configuration() {
    let password = "pw-Zm9vYmFyLXNlY3JldA";
    let provider_key = "sk-server-provider-0a1b2c3d4e5f";
    let session_secret = "session-secret-9f8e7d6c";
    let mineru_token = "mineru-operator-token-4c3b2a19";
    let llama_key = "llx-operator-key-8d7e6f50";
    let server = Server::start(&[
        ("RUST_LOG", "debug"),
        ("ACCESS_PASSWORD", password),
        ("HEARTH_SESSION_SECRET", session_secret),
        ("DEFAULT_PROVIDER_TYPE", "openai"),
        ("DEFAULT_PROVIDER_BASE_URL", "https://api.openai.com/v1"),
        ("DEFAULT_PROVIDER_API_KEY", provider_key),
        ("HEARTH_MINERU_API_TOKEN", mineru_token),
        ("HEARTH_LLAMA_PARSE_API_KEY", llama_key),
    ]);
    let http = reqwest::Client::new();
    let query_secret = "sk-query-5f4dcc3b5aa765d61d8327deb882cf99";
    let header_secret = "sk-header-e99a18c428cb38d5f260853678922e03";
    for path in ["/api/health", "/api/config", "/api/nope", "/c/1"] {
        let response = http
            .get(server.url(&format!("{path}?api_key={query_secret}")))
            .header("Authorization", format!("Bearer {header_secret}"))
            .header("Cookie", format!("session={header_secret}"))
            .send()
            .await
            .unwrap();
        assert!(response.status().as_u16() < 500);
    }
    let (_, stderr) = server.terminate();
    assert!(
        stderr.contains("/api/health"),
        "requests are logged:\n{stderr}"
    );
    for secret in [
        password,
        query_secret,
        header_secret,
        provider_key,
        session_secret,
        mineru_token,
        llama_key,
    ] {
        assert!(!stderr.contains(secret), "log contains {secret}:\n{stderr}");
    }
}

#[tokio::test]
async fn json_logs_are_one_object_per_line() {
    let server = Server::start(&[("RUST_LOG", "info"), ("HEARTH_LOG_FORMAT", "json")]);
    reqwest::get(server.url("/api/health")).await.unwrap();
    let (_, stderr) = server.terminate();
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 3, "{stderr}");
    for line in lines {
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(value.get("level").is_some(), "{line}");
    }
}

#[test]
fn healthcheck_passes_against_a_live_server_and_fails_against_none() {
    let server = Server::start(&[]);
    let addr = format!("127.0.0.1:{}", server.port);
    let live = hearth_command(&[("HEARTH_ADDR", &addr)])
        .arg("healthcheck")
        .output()
        .unwrap();
    assert!(
        live.status.success(),
        "{}",
        String::from_utf8_lossy(&live.stderr)
    );
    drop(server);

    let dead = format!("127.0.0.1:{}", free_port());
    let output = hearth_command(&[("HEARTH_ADDR", &dead)])
        .arg("healthcheck")
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("no answer"));
}
