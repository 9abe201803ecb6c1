//! Remote document parsers through the real binary, against stand-ins for MinerU and
//! LlamaParse served here on 127.0.0.1 (the operator points `HEARTH_MINERU_BASE_URL` and
//! `HEARTH_LLAMA_PARSE_BASE_URL` at them, as for a self-hosted MinerU). Each stand-in
//! speaks its provider's documented wire: MinerU's `{code, msg, data}` answers, the
//! signed upload URL taking a `PUT`, the batch results polled until `done`, the result ZIP
//! with `full.md` in the batch's folder, the agent mode's Markdown link; LlamaParse's
//! multipart upload, job polling and `expand=markdown` pages. Every request the edge
//! sends is recorded, so the tests check the credential where it belongs (and nowhere
//! else), that refusals reach no upstream, and that a cancelled job stops polling.

mod support;

use std::io::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode as Status};
use axum::response::{IntoResponse, Response};
use hearth_core::byok::context;
use hearth_server::byok::ByokKeys;
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::Server;

const SECRET: &str = "x-doc-parse-job-secret";
const MINERU_TOKEN: &str = "mineru-token-5b7f0c2e9a41d3";
const LLAMA_KEY: &str = "llx-test-key-7c1e44a0b9d2f6";
const MARKDOWN: &str = "# Report\n\nThe parsed text.";
/// A small PDF as far as type detection goes.
const PDF: &[u8] = b"%PDF-1.7\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n";

/// One request the stand-in received.
#[derive(Debug, Clone)]
struct Seen {
    method: Method,
    path: String,
    query: String,
    authorization: Option<String>,
    body: Vec<u8>,
}

/// How the stand-in behaves.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Parses after one "running" poll.
    Ok,
    /// The task fails, and MinerU's message quotes the token.
    FailQuotingTheToken,
    /// The result ZIP lists 250 entries besides `full.md`.
    ManyEntries,
    /// Never finishes.
    NeverDone,
    /// Hands out an upload URL on a host that is not the parser's.
    ForeignUploadUrl,
}

struct Inner {
    mode: Mode,
    base: String,
    seen: Vec<Seen>,
    polls: u32,
}

#[derive(Clone)]
struct StandIn(Arc<Mutex<Inner>>);

impl StandIn {
    /// Starts a stand-in speaking both MinerU's and LlamaParse's APIs.
    async fn start(mode: Mode) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let stand_in = StandIn(Arc::new(Mutex::new(Inner {
            mode,
            base,
            seen: Vec::new(),
            polls: 0,
        })));
        let app = Router::new().fallback(answer).with_state(stand_in.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        stand_in
    }

    fn base(&self) -> String {
        self.0.lock().unwrap().base.clone()
    }

    fn seen(&self) -> Vec<Seen> {
        self.0.lock().unwrap().seen.clone()
    }

    fn polls(&self) -> u32 {
        self.0.lock().unwrap().polls
    }

    fn find(&self, method: Method, prefix: &str) -> Vec<Seen> {
        self.seen()
            .into_iter()
            .filter(|s| s.method == method && s.path.starts_with(prefix))
            .collect()
    }
}

fn json_answer(status: Status, value: Value) -> Response {
    (status, axum::Json(value)).into_response()
}

fn ok(data: Value) -> Response {
    json_answer(
        Status::OK,
        json!({"code": 0, "msg": "ok", "trace_id": "trace-1", "data": data}),
    )
}

/// The stand-in: one handler for both providers' routes.
async fn answer(State(stand_in): State<StandIn>, request: Request) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let query = request.uri().query().unwrap_or_default().to_string();
    let authorization = request
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = axum::body::to_bytes(request.into_body(), 64 * 1024 * 1024)
        .await
        .unwrap_or_default()
        .to_vec();
    let (mode, base, polls) = {
        let mut inner = stand_in.0.lock().unwrap();
        inner.seen.push(Seen {
            method: method.clone(),
            path: path.clone(),
            query: query.clone(),
            authorization: authorization.clone(),
            body: body.clone(),
        });
        let is_poll = method == Method::GET
            && (path.starts_with("/api/v4/extract-results/")
                || path.starts_with("/api/v1/agent/parse/")
                || (path.starts_with("/api/v2/parse/") && query.is_empty()));
        if is_poll {
            inner.polls += 1;
        }
        (inner.mode, inner.base.clone(), inner.polls)
    };
    let mineru_authorized = authorization.as_deref() == Some(&format!("Bearer {MINERU_TOKEN}"));
    let llama_authorized = authorization.as_deref() == Some(&format!("Bearer {LLAMA_KEY}"));
    let gateway_refusal = || {
        json_answer(
            Status::UNAUTHORIZED,
            json!({"success": false, "msgCode": "A0202", "msg": "user authenticate failed"}),
        )
    };
    match (method.clone(), path.as_str()) {
        // MinerU, precise mode.
        (Method::POST, "/api/v4/file-urls/batch") => {
            if !mineru_authorized {
                return gateway_refusal();
            }
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            if request["model_version"] != json!("vlm") || !request["files"][0]["name"].is_string()
            {
                return json_answer(
                    Status::OK,
                    json!({"code": -10002, "msg": "invalid params", "data": null}),
                );
            }
            let upload = if mode == Mode::ForeignUploadUrl {
                "https://uploads.example.com/put/b-1".to_string()
            } else {
                format!("{base}/oss/upload/b-1?Expires=1&Signature=abc")
            };
            ok(json!({"batch_id": "b-1", "file_urls": [upload]}))
        }
        (Method::GET, "/api/v4/extract-results/batch/b-1") => {
            if !mineru_authorized {
                return gateway_refusal();
            }
            let state = match mode {
                Mode::NeverDone => "running",
                _ if polls < 2 => "running",
                Mode::FailQuotingTheToken => "failed",
                _ => "done",
            };
            let mut result = json!({
                "file_name": "document.pdf", "data_id": "hearth-upload", "state": state,
                "err_msg": "",
                "extract_progress": {"extracted_pages": 1, "total_pages": 2,
                    "start_time": "2025-01-20 11:43:20"}
            });
            if state == "done" {
                result["full_zip_url"] = json!(format!("{base}/cdn/pdf/b-1.zip"));
            }
            if state == "failed" {
                result["err_msg"] = json!(format!("quota exhausted for token {MINERU_TOKEN}"));
            }
            ok(json!({"batch_id": "b-1", "extract_result": [result]}))
        }
        (Method::GET, "/cdn/pdf/b-1.zip") => {
            let extra = if mode == Mode::ManyEntries { 250 } else { 2 };
            (Status::OK, result_zip(extra)).into_response()
        }
        // MinerU, agent mode.
        (Method::POST, "/api/v1/agent/parse/file") => {
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            if !request["file_name"].is_string() {
                return json_answer(Status::OK, json!({"code": -1, "msg": "file_name required"}));
            }
            ok(json!({"task_id": "t-1", "file_url": format!("{base}/oss/agent/t-1?sig=1")}))
        }
        (Method::GET, "/api/v1/agent/parse/t-1") => {
            if polls < 2 {
                ok(json!({"task_id": "t-1", "state": "pending"}))
            } else {
                ok(json!({"task_id": "t-1", "state": "done",
                    "markdown_url": format!("{base}/cdn/agent/t-1.md")}))
            }
        }
        (Method::GET, "/cdn/agent/t-1.md") => (Status::OK, MARKDOWN).into_response(),
        // The signed storage URLs: anything PUT is accepted.
        (Method::PUT, p) if p.starts_with("/oss/") => Status::OK.into_response(),
        // LlamaParse v2.
        (Method::POST, "/api/v2/parse/upload") => {
            if !llama_authorized {
                return json_answer(
                    Status::UNAUTHORIZED,
                    json!({"detail": format!("Invalid API key {}", authorization.unwrap_or_default())}),
                );
            }
            let text = String::from_utf8_lossy(&body);
            if !text.contains("name=\"file\"") || !text.contains("name=\"configuration\"") {
                return json_answer(
                    Status::UNPROCESSABLE_ENTITY,
                    json!({"detail": "file required"}),
                );
            }
            json_answer(
                Status::OK,
                json!({"id": "pjb-1", "project_id": "prj-1", "status": "PENDING",
                    "tier": "cost_effective"}),
            )
        }
        (Method::GET, "/api/v2/parse/pjb-1") => {
            if !llama_authorized {
                return json_answer(Status::UNAUTHORIZED, json!({"detail": "Invalid API key"}));
            }
            let status = if polls < 2 { "RUNNING" } else { "COMPLETED" };
            let mut answer = json!({"job": {"id": "pjb-1", "project_id": "prj-1",
                "status": status, "error_message": null}});
            if query == "expand=markdown" {
                answer["markdown"] = json!({"pages": [
                    {"page_number": 1, "markdown": "# Page one", "success": true},
                    {"page_number": 2, "markdown": "Page two.", "success": true}
                ]});
            }
            json_answer(Status::OK, answer)
        }
        _ => json_answer(Status::NOT_FOUND, json!({"code": 404, "msg": "not found"})),
    }
}

/// A MinerU result ZIP: `b-1/full.md`, its layout JSON and `extra` images.
fn result_zip(extra: usize) -> Bytes {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut out);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("b-1/full.md", options).unwrap();
        zip.write_all(MARKDOWN.as_bytes()).unwrap();
        zip.start_file("b-1/layout.json", options).unwrap();
        zip.write_all(b"{\"pdf_info\": []}").unwrap();
        for i in 0..extra {
            zip.start_file(format!("b-1/images/{i}.jpg"), options)
                .unwrap();
            zip.write_all(b"\xff\xd8\xff not really an image").unwrap();
        }
        zip.finish().unwrap();
    }
    Bytes::from(out.into_inner())
}

/// The edge, pointed at `stand_in` for both providers, with `env` added.
fn edge(stand_in: &StandIn, env: &[(&str, &str)]) -> Server {
    let base = stand_in.base();
    let mut all = vec![
        ("HEARTH_MINERU_BASE_URL", base.as_str()),
        ("HEARTH_LLAMA_PARSE_BASE_URL", base.as_str()),
    ];
    all.extend_from_slice(env);
    Server::start(&all)
}

/// `secret` sealed for `ctx` with the edge's own key (as a browser would).
fn sealed(server: &Server, ctx: &str, secret: &str) -> String {
    let keys = ByokKeys::load_or_create(server.data.path()).unwrap();
    serde_json::to_string(&keys.seal(ctx, secret).unwrap()).unwrap()
}

/// A multipart body with a `file` part and extra text fields.
fn multipart(bytes: &[u8], fields: &[(&str, &str)]) -> (String, Vec<u8>) {
    let boundary = "hearth-remote-test-3e9a";
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
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"q3 report.pdf\"\r\n\
             Content-Type: application/pdf\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

async fn upload(server: &Server, bytes: &[u8], fields: &[(&str, &str)]) -> (StatusCode, Value) {
    let (content_type, body) = multipart(bytes, fields);
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

/// Starts a job; its id and secret.
async fn start(server: &Server, bytes: &[u8], fields: &[(&str, &str)]) -> (String, String) {
    let (status, body) = upload(server, bytes, fields).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    (
        body["jobId"].as_str().unwrap().to_string(),
        body["jobSecret"].as_str().unwrap().to_string(),
    )
}

/// Polls until the job is no longer pending; the final answer.
async fn finished(server: &Server, id: &str, secret: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let response = reqwest::Client::new()
            .get(server.url(&format!("/api/doc-parse/jobs/{id}")))
            .header(SECRET, secret)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.unwrap();
        if body["status"] != json!("pending") {
            return body;
        }
        assert!(Instant::now() < deadline, "still pending: {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_mineru_precise_job_runs_end_to_end_with_a_sealed_token() {
    let stand_in = StandIn::start(Mode::Ok).await;
    let server = edge(&stand_in, &[]);
    let credential = sealed(&server, &context::docs_mineru(), MINERU_TOKEN);
    let (id, secret) = start(
        &server,
        PDF,
        &[("provider", "mineru"), ("credential", &credential)],
    )
    .await;
    let done = finished(&server, &id, &secret).await;
    assert_eq!(done["status"], json!("completed"), "{done}");
    assert_eq!(done["markdown"], json!(MARKDOWN));
    assert_eq!(done["kind"], json!("pdf"));

    let bearer = format!("Bearer {MINERU_TOKEN}");
    let create = stand_in.find(Method::POST, "/api/v4/file-urls/batch");
    assert_eq!(create.len(), 1);
    assert_eq!(create[0].authorization.as_deref(), Some(bearer.as_str()));
    let request: Value = serde_json::from_slice(&create[0].body).unwrap();
    assert_eq!(request["model_version"], json!("vlm"));
    assert_eq!(
        request["files"][0]["name"],
        json!("document.pdf"),
        "sent under a name from its type, not the user's"
    );
    let put = stand_in.find(Method::PUT, "/oss/upload/b-1");
    assert_eq!(put.len(), 1);
    assert_eq!(put[0].body, PDF, "the file's bytes, as they are");
    assert_eq!(
        put[0].query, "Expires=1&Signature=abc",
        "the signed URL kept whole"
    );
    assert_eq!(
        put[0].authorization, None,
        "the token never goes to the storage"
    );
    let polls = stand_in.find(Method::GET, "/api/v4/extract-results/batch/b-1");
    assert!(polls.len() >= 2);
    assert!(
        polls
            .iter()
            .all(|p| p.authorization.as_deref() == Some(bearer.as_str()))
    );
    let download = stand_in.find(Method::GET, "/cdn/pdf/b-1.zip");
    assert_eq!(download.len(), 1);
    assert_eq!(download[0].authorization, None);

    let (_, stderr) = server.terminate();
    assert!(!stderr.contains(MINERU_TOKEN), "the token reached the log");
}

#[tokio::test]
async fn mineru_without_a_token_uses_the_agent_mode_and_sends_no_authorization() {
    let stand_in = StandIn::start(Mode::Ok).await;
    let server = edge(&stand_in, &[]);
    let config: Value = support::get_json(&server, "/api/config").await;
    assert!(
        config.get("deploymentParsers").is_none(),
        "no key, none offered: {config}"
    );
    let (id, secret) = start(&server, PDF, &[("provider", "mineru")]).await;
    let done = finished(&server, &id, &secret).await;
    assert_eq!(done["status"], json!("completed"), "{done}");
    assert_eq!(done["markdown"], json!(MARKDOWN));
    let seen = stand_in.seen();
    assert!(
        seen.iter().all(|s| s.authorization.is_none()),
        "agent mode is token-free: {seen:?}"
    );
    let create = stand_in.find(Method::POST, "/api/v1/agent/parse/file");
    assert_eq!(create.len(), 1);
    let request: Value = serde_json::from_slice(&create[0].body).unwrap();
    assert_eq!(request["file_name"], json!("document.pdf"));
    assert!(stand_in.find(Method::POST, "/api/v4/").is_empty());
    assert_eq!(stand_in.find(Method::PUT, "/oss/agent/t-1")[0].body, PDF);
}

#[tokio::test]
async fn mineru_without_a_token_refuses_a_file_over_10_mib_without_calling_upstream() {
    let stand_in = StandIn::start(Mode::Ok).await;
    let server = edge(&stand_in, &[]);
    let mut big = PDF.to_vec();
    big.resize(10 * 1024 * 1024 + 1, b' ');
    let (status, body) = upload(&server, &big, &[("provider", "mineru")]).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["details"]["limitBytes"], json!(10 * 1024 * 1024));
    // Asking for the operator's token when there is none is the same.
    let (status, _) = upload(
        &server,
        &big,
        &[("provider", "mineru"), ("useDefault", "true")],
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(stand_in.seen().is_empty(), "{:?}", stand_in.seen());
    // With a token the same file is taken.
    let credential = sealed(&server, &context::docs_mineru(), MINERU_TOKEN);
    let (status, body) = upload(
        &server,
        &big,
        &[("provider", "mineru"), ("credential", &credential)],
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
}

#[tokio::test]
async fn llama_parse_without_a_key_is_refused_at_upload() {
    let stand_in = StandIn::start(Mode::Ok).await;
    let server = edge(&stand_in, &[]);
    let (status, body) = upload(&server, PDF, &[("provider", "llamaParse")]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["details"]["field"], json!("credential"));
    let (status, body) = upload(
        &server,
        PDF,
        &[("provider", "llamaParse"), ("useDefault", "true")],
    )
    .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "no default key here: {body}"
    );
    // An envelope sealed for another purpose does not open here.
    let wrong = sealed(&server, &context::docs_mineru(), LLAMA_KEY);
    let (status, body) = upload(
        &server,
        PDF,
        &[("provider", "llamaParse"), ("credential", &wrong)],
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(body["code"], json!("AUTH_ERROR"));
    // A plaintext key is refused before anything else.
    let (status, body) = upload(
        &server,
        PDF,
        &[("provider", "llamaParse"), ("apiKey", LLAMA_KEY)],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], json!("PLAINTEXT_SECRET_REFUSED"));
    assert!(stand_in.seen().is_empty(), "{:?}", stand_in.seen());
}

#[tokio::test]
async fn a_llama_parse_job_runs_end_to_end_with_the_operators_key() {
    let stand_in = StandIn::start(Mode::Ok).await;
    let server = edge(&stand_in, &[("HEARTH_LLAMA_PARSE_API_KEY", LLAMA_KEY)]);
    let config: Value = support::get_json(&server, "/api/config").await;
    assert!(!config.to_string().contains(LLAMA_KEY));
    // The app may offer "the deployment's key" for LlamaParse, and only for it.
    assert_eq!(
        config["deploymentParsers"],
        json!(["llamaParse"]),
        "{config}"
    );
    let (id, secret) = start(
        &server,
        PDF,
        &[("provider", "llamaParse"), ("useDefault", "true")],
    )
    .await;
    let done = finished(&server, &id, &secret).await;
    assert_eq!(done["status"], json!("completed"), "{done}");
    assert_eq!(done["markdown"], json!("# Page one\n\nPage two."));
    assert_eq!(done["pages"][1]["number"], json!(2));
    assert_eq!(done["pages"][1]["offset"], json!(12));

    let bearer = format!("Bearer {LLAMA_KEY}");
    let create = stand_in.find(Method::POST, "/api/v2/parse/upload");
    assert_eq!(create.len(), 1);
    assert_eq!(create[0].authorization.as_deref(), Some(bearer.as_str()));
    let text = String::from_utf8_lossy(&create[0].body);
    assert!(
        text.contains(r#"{"tier":"cost_effective","version":"latest"}"#),
        "{text}"
    );
    assert!(text.contains("filename=\"document.pdf\""));
    let result = stand_in.find(Method::GET, "/api/v2/parse/pjb-1");
    assert!(
        result
            .iter()
            .all(|s| s.authorization.as_deref() == Some(bearer.as_str()))
    );
    assert_eq!(result.last().unwrap().query, "expand=markdown");

    let (_, stderr) = server.terminate();
    assert!(!stderr.contains(LLAMA_KEY), "the key reached the log");
}

#[tokio::test]
async fn an_upstream_failure_is_a_typed_failed_job_that_names_no_secret() {
    let stand_in = StandIn::start(Mode::FailQuotingTheToken).await;
    let server = edge(&stand_in, &[("HEARTH_MINERU_API_TOKEN", MINERU_TOKEN)]);
    let (id, secret) = start(
        &server,
        PDF,
        &[("provider", "mineru"), ("useDefault", "true")],
    )
    .await;
    let done = finished(&server, &id, &secret).await;
    assert_eq!(done["status"], json!("failed"), "{done}");
    assert_eq!(done["error"]["code"], json!("parse_upstream_failed"));
    let message = done["error"]["message"].as_str().unwrap();
    assert!(message.contains("quota exhausted"), "{message}");
    assert!(!message.contains(MINERU_TOKEN), "{message}");
    assert!(!done.to_string().contains(&MINERU_TOKEN[..12]), "{done}");

    // A key the provider refuses, echoed back in its error, is not echoed further.
    let (id, secret) = start(
        &server,
        PDF,
        &[
            ("provider", "llamaParse"),
            (
                "credential",
                &sealed(
                    &server,
                    &context::docs_llama_parse(),
                    "llx-wrong-key-99887766",
                ),
            ),
        ],
    )
    .await;
    let done = finished(&server, &id, &secret).await;
    assert_eq!(
        done["error"]["code"],
        json!("parse_upstream_auth"),
        "{done}"
    );
    assert!(
        !done.to_string().contains("llx-wrong-key-99887766"),
        "{done}"
    );
}

#[tokio::test]
async fn a_result_zip_with_too_many_entries_is_refused_before_inflating() {
    let stand_in = StandIn::start(Mode::ManyEntries).await;
    let server = edge(&stand_in, &[]);
    let credential = sealed(&server, &context::docs_mineru(), MINERU_TOKEN);
    let (id, secret) = start(
        &server,
        PDF,
        &[("provider", "mineru"), ("credential", &credential)],
    )
    .await;
    let done = finished(&server, &id, &secret).await;
    assert_eq!(done["status"], json!("failed"), "{done}");
    assert_eq!(done["error"]["code"], json!("parse_zip_bomb"), "{done}");
    let message = done["error"]["message"].as_str().unwrap().to_lowercase();
    assert!(
        message.contains("too many") || message.contains("entries"),
        "{message}"
    );
}

#[tokio::test]
async fn a_link_to_a_foreign_host_is_refused_and_nothing_is_sent_there() {
    let stand_in = StandIn::start(Mode::ForeignUploadUrl).await;
    let server = edge(&stand_in, &[]);
    let credential = sealed(&server, &context::docs_mineru(), MINERU_TOKEN);
    let (id, secret) = start(
        &server,
        PDF,
        &[("provider", "mineru"), ("credential", &credential)],
    )
    .await;
    let done = finished(&server, &id, &secret).await;
    assert_eq!(
        done["error"]["code"],
        json!("parse_upstream_blocked"),
        "{done}"
    );
    assert!(stand_in.find(Method::PUT, "/").is_empty());
}

#[tokio::test]
async fn cancelling_a_job_stops_its_upstream_polling() {
    let stand_in = StandIn::start(Mode::NeverDone).await;
    let server = edge(&stand_in, &[]);
    let credential = sealed(&server, &context::docs_mineru(), MINERU_TOKEN);
    let (id, secret) = start(
        &server,
        PDF,
        &[("provider", "mineru"), ("credential", &credential)],
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while stand_in.polls() < 2 {
        assert!(Instant::now() < deadline, "the job never polled");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let response = reqwest::Client::new()
        .delete(server.url(&format!("/api/doc-parse/jobs/{id}")))
        .header(SECRET, &secret)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    // The runner notices within one lease renewal (2 s); a poll already on the wire may
    // still land.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let after_cancel = stand_in.polls();
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(
        stand_in.polls(),
        after_cancel,
        "polling went on after the cancel"
    );
}
