//! Document-parse jobs through the real binary: the job secret's rules, bounded uploads,
//! typed refusals, the worker's limits (time, memory), and jobs shared by two instances on
//! a real Redis (poll and cancel on the other, take over after the first dies).

mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::Server;
use support::redis::Redis;

const SECRET: &str = "x-doc-parse-job-secret";

/// A multipart body with a `file` part (named `name`) and extra text fields.
fn multipart(name: &str, bytes: &[u8], fields: &[(&str, &str)]) -> (String, Vec<u8>) {
    let boundary = "hearth-test-boundary-7d1f";
    let mut body = Vec::new();
    for (field, value) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

async fn upload(
    server: &Server,
    name: &str,
    bytes: &[u8],
    fields: &[(&str, &str)],
) -> (StatusCode, Value) {
    let (content_type, body) = multipart(name, bytes, fields);
    let response = reqwest::Client::new()
        .post(server.url("/api/doc-parse"))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Starts a job for `bytes`; its id and secret.
async fn start(server: &Server, name: &str, bytes: &[u8]) -> (String, String) {
    let (status, body) = upload(server, name, bytes, &[]).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(body["status"], json!("queued"));
    (
        body["jobId"].as_str().unwrap().to_string(),
        body["jobSecret"].as_str().unwrap().to_string(),
    )
}

async fn poll_once(server: &Server, id: &str, secret: Option<&str>) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new().get(server.url(&format!("/api/doc-parse/jobs/{id}")));
    if let Some(secret) = secret {
        request = request.header(SECRET, secret);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Polls until the job is no longer pending (or `within` passes); the final answer.
async fn finished(server: &Server, id: &str, secret: &str, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let (status, body) = poll_once(server, id, Some(secret)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if body["status"] != json!("pending") {
            return body;
        }
        assert!(Instant::now() < deadline, "still pending: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A wrapper for the parse worker that records its pid and waits `seconds` before
/// running it (a parse that takes long, or an instance that dies mid-job).
struct SlowWrapper {
    dir: tempfile::TempDir,
}

impl SlowWrapper {
    fn new(seconds: u32) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("slow.sh");
        let pids = dir.path().join("pids");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\necho $$ >> '{}'\n/usr/bin/env > '{}'\n/bin/sleep {seconds}\nexec \"$@\"\n",
                pids.display(),
                dir.path().join("env").display()
            ),
        )
        .unwrap();
        std::process::Command::new("chmod")
            .args(["+x", &script.to_string_lossy()])
            .status()
            .unwrap();
        Self { dir }
    }

    fn path(&self) -> String {
        self.dir
            .path()
            .join("slow.sh")
            .to_string_lossy()
            .into_owned()
    }

    /// The environment the last worker started with.
    fn env(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("env")).unwrap_or_default()
    }

    /// The pids of the workers it started.
    fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(self.dir.path().join("pids"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect()
    }

    async fn wait_started(&self, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while self.pids().len() < count {
            assert!(Instant::now() < deadline, "the worker did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for SlowWrapper {
    fn drop(&mut self) {
        for pid in self.pids() {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
}

fn alive(pid: u32) -> bool {
    PathBuf::from(format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
}

#[tokio::test]
async fn a_job_answers_its_owner_once_then_is_gone() {
    let server = Server::start(&[]);
    let (id, secret) = start(&server, "notes.md", b"hello\n\nworld").await;
    let done = finished(&server, &id, &secret, Duration::from_secs(20)).await;
    assert_eq!(done["status"], json!("completed"), "{done}");
    assert_eq!(done["markdown"], json!("hello\n\nworld"));
    let (status, body) = poll_once(&server, &id, Some(&secret)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "answered once: {body}");
    assert_eq!(body["code"], json!("NOT_FOUND"));
}

#[tokio::test]
async fn the_secret_is_required_in_its_header_and_compared() {
    let slow = SlowWrapper::new(30);
    let server = Server::start(&[("HEARTH_DOC_PARSE_WRAPPER", &slow.path())]);
    let (id, secret) = start(&server, "a.txt", b"text").await;
    let (status, body) = poll_once(&server, &id, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["code"], json!("DOCUMENT_JOB_FORBIDDEN"));
    let (status, _) = poll_once(&server, &id, Some("wrong")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = poll_once(&server, &id, Some(&secret[..secret.len() - 1])).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // A query parameter is never read.
    let response = reqwest::get(server.url(&format!(
        "/api/doc-parse/jobs/{id}?{SECRET}={secret}&jobSecret={secret}"
    )))
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // Delete needs it too.
    let delete = |secret: Option<String>| {
        let mut request =
            reqwest::Client::new().delete(server.url(&format!("/api/doc-parse/jobs/{id}")));
        if let Some(secret) = secret {
            request = request.header(SECRET, secret);
        }
        request.send()
    };
    assert_eq!(delete(None).await.unwrap().status(), StatusCode::FORBIDDEN);
    let (status, body) = poll_once(&server, &id, Some(&secret)).await;
    assert_eq!(
        (status, body["status"].clone()),
        (StatusCode::OK, json!("pending"))
    );
    let deleted = delete(Some(secret.clone())).await.unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    assert_eq!(
        deleted.json::<Value>().await.unwrap(),
        json!({"ok": true, "deleted": true})
    );
    let (status, _) = poll_once(&server, &id, Some(&secret)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        delete(Some(secret)).await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    // Unknown and malformed ids are simply not found.
    let (status, _) = poll_once(&server, "..%2F..%2Fetc", Some("x")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn bad_uploads_get_typed_refusals_and_start_nothing() {
    let server = Server::start(&[("HEARTH_DOC_PARSE_MAX_BYTES", "1000")]);
    // Over the limit by the declared length: refused before the body is read (none is
    // sent at all here, so an answer proves nothing waited for it).
    let answer = server.raw(&format!(
        "POST /api/doc-parse HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\
         Content-Type: multipart/form-data; boundary=x\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        server.port,
        2 * 1024 * 1024
    ));
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("PAYLOAD_TOO_LARGE"), "{answer}");
    // Over the limit inside an acceptable body: refused while reading.
    let (status, body) = upload(&server, "big.txt", &[b'a'; 1001], &[]).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["code"], json!("PAYLOAD_TOO_LARGE"));
    assert_eq!(body["details"]["limitBytes"], json!(1000));
    // Exactly the limit is fine.
    let (status, _) = upload(&server, "ok.txt", &[b'a'; 1000], &[]).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    // Bytes that are no type Hearth parses, whatever the name says.
    let (status, body) = upload(&server, "report.pdf", &[0xff, 0xfe, 0x00, 0x9c, 0x81], &[]).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
    assert_eq!(body["code"], json!("FILE_TYPE_UNSUPPORTED"));
    // Credentials in plaintext are refused.
    let (status, body) = upload(&server, "a.txt", b"x", &[("apiKey", "sk-live")]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], json!("PLAINTEXT_SECRET_REFUSED"));
    // Unknown fields and parsers, empty files, no file, not multipart.
    let (status, body) = upload(&server, "a.txt", b"x", &[("colour", "red")]).await;
    assert_eq!(
        (status, body["details"]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("colour"))
    );
    let (status, _) = upload(&server, "a.txt", b"x", &[("provider", "magic")]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, body) = upload(&server, "a.txt", b"", &[]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let response = reqwest::Client::new()
        .post(server.url("/api/doc-parse"))
        .json(&json!({"file": "hello"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    // MinerU reads PDFs, images and Office files, never plain text (refused before any
    // upstream call; the remote parsers' own tests are in doc_parse_remote.rs).
    let (status, body) = upload(&server, "a.txt", b"x", &[("provider", "mineru")]).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
    assert_eq!(body["code"], json!("FILE_TYPE_UNSUPPORTED"));
    // The local parser takes no credential.
    let (status, body) = upload(&server, "a.txt", b"x", &[("useDefault", "true")]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

#[tokio::test]
async fn a_parse_that_takes_too_long_fails_as_a_timeout_and_its_worker_is_killed() {
    let slow = SlowWrapper::new(60);
    let server = Server::start(&[
        ("HEARTH_DOC_PARSE_WRAPPER", &slow.path()),
        ("HEARTH_DOC_PARSE_TIMEOUT_SECS", "1"),
    ]);
    let (id, secret) = start(&server, "a.txt", b"text").await;
    let done = finished(&server, &id, &secret, Duration::from_secs(20)).await;
    assert_eq!(done["status"], json!("failed"), "{done}");
    assert_eq!(done["error"]["code"], json!("parse_timeout"));
    let pid = slow.pids()[0];
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) {
        assert!(Instant::now() < deadline, "the worker outlived its job");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_parse_over_its_memory_limit_fails_as_such_and_the_edge_carries_on() {
    let text = vec![b'a'; 48 * 1024 * 1024];
    let tight = Server::start(&[
        ("HEARTH_DOC_PARSE_MAX_BYTES", "67108864"),
        ("HEARTH_DOC_PARSE_MEMORY_MIB", "80"),
    ]);
    let (id, secret) = start(&tight, "big.txt", &text).await;
    let done = finished(&tight, &id, &secret, Duration::from_secs(60)).await;
    assert_eq!(
        done["error"]["code"],
        json!("parse_resource_limit"),
        "{}",
        done["status"]
    );
    // The edge is unharmed and parses the next file.
    let (id, secret) = start(&tight, "small.txt", b"small").await;
    let done = finished(&tight, &id, &secret, Duration::from_secs(20)).await;
    assert_eq!(done["markdown"], json!("small"));
    // The same file within the default limit parses (cut to the output limit, and said).
    let roomy = Server::start(&[("HEARTH_DOC_PARSE_MAX_BYTES", "67108864")]);
    let (id, secret) = start(&roomy, "big.txt", &text).await;
    let done = finished(&roomy, &id, &secret, Duration::from_secs(60)).await;
    assert_eq!(done["status"], json!("completed"));
    assert_eq!(done["notes"][0]["kind"], json!("truncated"));
    assert_eq!(
        done["markdown"].as_str().unwrap().len() as u64,
        done["notes"][0]["bytes"].as_u64().unwrap()
    );
}

#[tokio::test]
async fn two_instances_on_redis_share_jobs_and_the_survivor_finishes_a_dead_ones_job() {
    let redis = Redis::start();
    let url = redis.url();
    let slow = SlowWrapper::new(60);
    let first = Server::start(&[
        ("REDIS_URL", &url),
        ("HEARTH_DOC_PARSE_WRAPPER", &slow.path()),
    ]);
    let second = Server::start(&[("REDIS_URL", &url)]);

    // A job started on the first is seen on the second, which waits while the first works.
    let (id, secret) = start(&first, "a.txt", b"survived").await;
    slow.wait_started(1).await;
    // The worker starts with nothing of the edge's environment: no store URL, no key.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !slow.env().contains("PWD=") && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let env = slow.env();
    assert!(
        env.contains("PWD="),
        "the wrapper recorded its environment: {env}"
    );
    assert!(!env.contains("REDIS") && !env.contains("redis://"), "{env}");
    assert!(!env.contains("HEARTH_"), "{env}");
    let (status, body) = poll_once(&second, &id, Some(&secret)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"status": "pending", "stage": "parsing"}));
    let (status, _) = poll_once(&second, &id, Some("wrong")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // The first dies mid-job; once its lease lapses, a poll on the second takes it over.
    drop(first);
    let done = finished(&second, &id, &secret, Duration::from_secs(40)).await;
    assert_eq!(done["status"], json!("completed"), "{done}");
    assert_eq!(done["markdown"], json!("survived"));
}

#[tokio::test]
async fn a_job_cancelled_on_another_instance_stops_its_worker() {
    let redis = Redis::start();
    let url = redis.url();
    let slow = SlowWrapper::new(60);
    let first = Server::start(&[
        ("REDIS_URL", &url),
        ("HEARTH_DOC_PARSE_WRAPPER", &slow.path()),
    ]);
    let second = Server::start(&[("REDIS_URL", &url)]);
    let (id, secret) = start(&first, "a.txt", b"never").await;
    slow.wait_started(1).await;
    let pid = slow.pids()[0];
    let response = reqwest::Client::new()
        .delete(second.url(&format!("/api/doc-parse/jobs/{id}")))
        .header(SECRET, &secret)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        assert!(
            Instant::now() < deadline,
            "the first instance's worker kept running"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, _) = poll_once(&first, &id, Some(&secret)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_job_whose_runners_all_died_fails_as_interrupted() {
    let redis = Redis::start();
    let url = redis.url();
    let slow = SlowWrapper::new(60);
    let env = [
        ("REDIS_URL", url.as_str()),
        ("HEARTH_DOC_PARSE_WRAPPER", &slow.path()),
    ];
    let first = Server::start(&env);
    let (id, secret) = start(&first, "a.txt", b"doomed").await;
    slow.wait_started(1).await;
    drop(first);
    // The second takes it over (its second attempt), then dies too.
    let second = Server::start(&env);
    let deadline = Instant::now() + Duration::from_secs(30);
    while slow.pids().len() < 2 {
        assert!(
            Instant::now() < deadline,
            "the second instance never took the job over"
        );
        let (status, body) = poll_once(&second, &id, Some(&secret)).await;
        assert_eq!(
            (status, body["status"].clone()),
            (StatusCode::OK, json!("pending"))
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    drop(second);
    let third = Server::start(&[("REDIS_URL", url.as_str())]);
    let done = finished(&third, &id, &secret, Duration::from_secs(30)).await;
    assert_eq!(done["status"], json!("failed"), "{done}");
    assert_eq!(done["error"]["code"], json!("parse_interrupted"));
    let (status, _) = poll_once(&third, &id, Some(&secret)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[path = "../../parse/tests/support/pdf.rs"]
#[allow(dead_code)]
mod pdf;

#[tokio::test]
async fn a_real_pdf_is_parsed_by_the_worker_page_by_page() {
    let server = Server::start(&[]);
    let bytes = pdf::text_pdf(&["First page words", "Second page words", "Third page words"]);
    // The name does not decide the type: the bytes do.
    let (id, secret) = start(&server, "report.txt", &bytes).await;
    let done = finished(&server, &id, &secret, Duration::from_secs(30)).await;
    assert_eq!(done["status"], json!("completed"), "{done}");
    assert_eq!(done["kind"], json!("pdf"));
    let markdown = done["markdown"].as_str().unwrap();
    let pages = done["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 3);
    for (index, page) in pages.iter().enumerate() {
        let offset = page["offset"].as_u64().unwrap() as usize;
        let expected = ["First", "Second", "Third"][index];
        assert!(
            markdown[offset..].starts_with(expected),
            "page {index} at {offset}: {markdown:?}"
        );
        assert_eq!(page["hasText"], json!(true));
    }
    // A scan has nothing to read, and says so.
    let (id, secret) = start(&server, "scan.pdf", &pdf::scanned_pdf(2)).await;
    let done = finished(&server, &id, &secret, Duration::from_secs(30)).await;
    assert_eq!(done["status"], json!("failed"), "{done}");
    assert_eq!(done["error"]["code"], json!("parse_no_text_layer"));
    // An image is refused at upload.
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
    let (status, body) = upload(&server, "pixel.png", png, &[]).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
}
