//! A fake model provider on 127.0.0.1 for end-to-end tests, speaking each protocol's
//! streaming wire format on its real paths, so the real app (and the edge relay) can be
//! driven against it with no model running.
//!
//! It owns: the routes (OpenAI-compatible `POST /v1/chat/completions`, `POST
//! /v1/responses`, `POST /v1/images/generations` (a 1×1 PNG per image) and `GET
//! /v1/models`; Anthropic `POST /v1/messages` and `GET /v1/models`
//! in Anthropic's shape when the request carries Anthropic's headers; Gemini `POST
//! /v1beta/models/{model}:streamGenerateContent?alt=sse` and `GET /v1beta/models`), the
//! frames of each protocol (the shapes the parsers in `hearth_core::provider` decode: OpenAI
//! chat chunks ending in `data: [DONE]`, Responses events ending in `response.completed`,
//! Anthropic events ending in `message_stop`, Gemini chunks ending with a `finishReason`),
//! CORS (on by default, switchable off so that a browser's `fetch` fails), a queue of
//! scripted [`Reply`]s (an echo of the last user message when it is empty), a record of
//! every request, and a count of the streams being sent.
//!
//! The server runs on its own thread and its own Tokio runtime, so it keeps answering
//! whatever the test's runtime flavor is and even while the test thread blocks. It stops
//! when the [`ProviderFixture`] is dropped.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use hearth_core::provider::Protocol;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};

/// The models listed until [`ProviderFixture::set_models`] changes them.
pub const DEFAULT_MODELS: [&str; 2] = ["fixture-small", "fixture-large"];

/// The message of the in-stream error event sent by [`Reply::error_after`].
pub const STREAM_ERROR_MESSAGE: &str = "The fixture provider failed mid-stream";

/// The request headers a preflight allows when CORS is on.
pub const ALLOWED_HEADERS: &str = "authorization, content-type, x-api-key, anthropic-version, \
     anthropic-dangerous-direct-browser-access, x-goog-api-key";

/// The largest request body read.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// A fixed creation time, so frames are reproducible.
const CREATED: u64 = 1_700_000_000;

/// One scripted answer to a chat request (a builder: start from [`Reply::text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    text: String,
    reasoning: String,
    chunk_bytes: usize,
    text_chunk_chars: usize,
    delay_ms: u64,
    usage: Option<(u64, u64)>,
    status: Option<(u16, String)>,
    error_after: Option<usize>,
    truncate_after: Option<usize>,
    stall_after: Option<usize>,
    tool_calls: Vec<(String, String)>,
}

impl Default for Reply {
    fn default() -> Self {
        Self::text("")
    }
}

impl Reply {
    /// A reply streaming `text` as the answer, 8 characters per delta event, one frame
    /// per write, without delay and without usage.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            reasoning: String::new(),
            chunk_bytes: 0,
            text_chunk_chars: 8,
            delay_ms: 0,
            usage: None,
            status: None,
            error_after: None,
            truncate_after: None,
            stall_after: None,
            tool_calls: Vec::new(),
        }
    }

    /// Reasoning sent before the text: OpenAI chat `reasoning_content` deltas, Responses
    /// reasoning summary deltas, an Anthropic thinking block, Gemini `thought: true`
    /// parts. (The Responses parser ends each summary part with a blank line, so that
    /// reasoning decodes as `reasoning` followed by `"\n\n"`.)
    pub fn reasoning(mut self, reasoning: impl Into<String>) -> Self {
        self.reasoning = reasoning.into();
        self
    }

    /// Splits the serialized SSE byte stream into writes of `bytes` bytes, across line,
    /// frame and UTF-8 boundaries; 0 (the default) writes one frame at a time.
    pub fn chunk_bytes(mut self, bytes: usize) -> Self {
        self.chunk_bytes = bytes;
        self
    }

    /// Characters of text or reasoning per delta event (0: all in one event).
    pub fn text_chunk_chars(mut self, chars: usize) -> Self {
        self.text_chunk_chars = chars;
        self
    }

    /// Waits `ms` milliseconds between writes.
    pub fn delay_ms(mut self, ms: u64) -> Self {
        self.delay_ms = ms;
        self
    }

    /// Reports `input` prompt tokens and `output` completion tokens in the protocol's
    /// usage fields (without this, usage is left out entirely).
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = Some((input, output));
        self
    }

    /// Answers with HTTP `status` and a JSON error body in the protocol's error shape
    /// carrying `message`, instead of streaming.
    pub fn status(mut self, status: u16, message: impl Into<String>) -> Self {
        self.status = Some((status, message.into()));
        self
    }

    /// After `deltas` delta events, sends the protocol's in-stream error event (with
    /// [`STREAM_ERROR_MESSAGE`]) and ends the body.
    pub fn error_after(mut self, deltas: usize) -> Self {
        self.error_after = Some(deltas);
        self
    }

    /// After `deltas` delta events, ends the body without the protocol's terminal event.
    pub fn truncate_after(mut self, deltas: usize) -> Self {
        self.truncate_after = Some(deltas);
        self
    }

    /// After `deltas` delta events, waits until [`ProviderFixture::release`] is called
    /// (or the client goes away), then continues.
    pub fn stall_after(mut self, deltas: usize) -> Self {
        self.stall_after = Some(deltas);
        self
    }

    /// Adds a tool call of `name` with JSON `arguments`, sent after the text as the
    /// protocol's tool-call fragments (arguments in several pieces; OpenAI chat
    /// interleaves parallel calls by index). Gemini sends whole calls, as it does.
    pub fn tool_call(mut self, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        self.tool_calls.push((name.into(), arguments.into()));
        self
    }
}

/// A request the fixture received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The method (`GET`, `POST`, `OPTIONS`).
    pub method: String,
    /// The path with its query, e.g. `/v1beta/models/m:streamGenerateContent?alt=sse`.
    pub path: String,
    /// The headers, names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body, as (lossy) UTF-8.
    pub body: String,
}

impl Recorded {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The body as JSON (`Value::Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// State shared between the test and the server thread.
struct Shared {
    cors: AtomicBool,
    tool_models: AtomicBool,
    models: Mutex<Vec<String>>,
    queue: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Recorded>>,
    open_streams: AtomicUsize,
    /// Counts [`ProviderFixture::release`] calls; a stalled stream waits for a count
    /// above the one it started with.
    release: watch::Sender<u64>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running fake provider; dropping it stops the server.
#[derive(Debug)]
pub struct ProviderFixture {
    shared: Arc<Shared>,
    port: u16,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("cors", &self.cors)
            .field("open_streams", &self.open_streams)
            .finish_non_exhaustive()
    }
}

impl ProviderFixture {
    /// Starts the server on a free loopback port, on its own thread and runtime.
    pub async fn start() -> Self {
        let listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("bind the provider fixture");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let port = listener.local_addr().expect("the fixture's address").port();
        let shared = Arc::new(Shared {
            cors: AtomicBool::new(true),
            tool_models: AtomicBool::new(false),
            models: Mutex::new(DEFAULT_MODELS.iter().map(|m| m.to_string()).collect()),
            queue: Mutex::new(VecDeque::new()),
            requests: Mutex::new(Vec::new()),
            open_streams: AtomicUsize::new(0),
            release: watch::Sender::new(0),
        });
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let (shutdown, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("provider-fixture".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("the fixture's runtime");
                runtime.block_on(async move {
                    let listener = tokio::net::TcpListener::from_std(listener)
                        .expect("a Tokio listener")
                        .tap_io(|tcp| {
                            let _ = tcp.set_nodelay(true);
                        });
                    tokio::select! {
                        _ = axum::serve(listener, app).into_future() => {}
                        _ = stopped => {}
                    }
                });
                // Dropping the runtime here ends every connection and stream task.
            })
            .expect("spawn the fixture thread");
        Self {
            shared,
            port,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    /// The server's origin, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The base URL a user would enter for `protocol`: `…/v1` for OpenAI (both APIs) and
    /// Anthropic, `…/v1beta` for Gemini.
    pub fn base_url(&self, protocol: Protocol) -> String {
        match protocol {
            Protocol::Gemini => format!("{}/v1beta", self.url()),
            _ => format!("{}/v1", self.url()),
        }
    }

    /// Turns CORS on (the default) or off. Off, no response carries any
    /// `access-control-*` header, so a browser's cross-origin `fetch` rejects.
    pub fn set_cors(&self, enabled: bool) {
        self.shared.cors.store(enabled, Ordering::SeqCst);
    }

    /// Whether the OpenAI-shaped listing says its models take tools, as OpenRouter's
    /// does (`supported_parameters`); off by default.
    pub fn set_tool_models(&self, enabled: bool) {
        self.shared.tool_models.store(enabled, Ordering::SeqCst);
    }

    /// The model ids listed from now on (default [`DEFAULT_MODELS`]).
    pub fn set_models(&self, ids: Vec<String>) {
        *lock(&self.shared.models) = ids;
    }

    /// Queues `reply` for the next chat request. With an empty queue, a chat request gets
    /// `Echo: <the text of the last user message>`.
    pub fn enqueue(&self, reply: Reply) {
        lock(&self.shared.queue).push_back(reply);
    }

    /// Every request received so far (preflights and listings included), oldest first.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.shared.requests).clone()
    }

    /// Lets every stalled reply continue (see [`Reply::stall_after`]), including replies
    /// that started before this call but have not reached their stall yet.
    pub fn release(&self) {
        self.shared.release.send_modify(|count| *count += 1);
    }

    /// Streamed replies whose body is still being sent. A client that disconnects
    /// mid-stream is counted out as soon as the server sees its connection close, even
    /// while the reply is stalled.
    pub fn open_streams(&self) -> usize {
        self.shared.open_streams.load(Ordering::SeqCst)
    }
}

impl Drop for ProviderFixture {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Every request: recorded, answered, then given CORS headers when CORS is on.
async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .unwrap_or_default();
    lock(&shared.requests).push(Recorded {
        method: parts.method.to_string(),
        path: parts
            .uri
            .path_and_query()
            .map_or_else(|| parts.uri.path().to_string(), |p| p.as_str().to_string()),
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let mut response = route(&shared, &parts.method, &parts.uri, &parts.headers, &body);
    if shared.cors.load(Ordering::SeqCst) {
        let headers = response.headers_mut();
        headers.insert("access-control-allow-origin", HeaderValue::from_static("*"));
        if parts.method == Method::OPTIONS {
            headers.insert(
                "access-control-allow-methods",
                HeaderValue::from_static("GET, POST, OPTIONS"),
            );
            headers.insert(
                "access-control-allow-headers",
                HeaderValue::from_static(ALLOWED_HEADERS),
            );
            if parts
                .headers
                .get("access-control-request-private-network")
                .is_some()
            {
                headers.insert(
                    "access-control-allow-private-network",
                    HeaderValue::from_static("true"),
                );
            }
        }
    }
    response
}

fn route(
    shared: &Arc<Shared>,
    method: &Method,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    let path = uri.path();
    if *method == Method::OPTIONS {
        return StatusCode::NO_CONTENT.into_response();
    }
    let gemini_call = path
        .strip_prefix("/v1beta/models/")
        .and_then(|rest| rest.rsplit_once(':'));
    match (method.as_str(), path, gemini_call) {
        ("GET", "/v1/models", _) => {
            let anthropic =
                headers.contains_key("x-api-key") || headers.contains_key("anthropic-version");
            models(
                shared,
                if anthropic {
                    Some(Protocol::Anthropic)
                } else {
                    None
                },
            )
        }
        ("GET", "/v1beta/models", _) => models(shared, Some(Protocol::Gemini)),
        ("POST", "/v1/chat/completions", _) => chat(shared, Protocol::OpenAiChat, None, body),
        ("POST", "/v1/responses", _) => chat(shared, Protocol::OpenAiResponses, None, body),
        ("POST", "/v1/messages", _) => chat(shared, Protocol::Anthropic, None, body),
        ("POST", "/v1/images/generations", _) => images(body),
        ("POST", _, Some((model, "streamGenerateContent"))) => {
            let sse = uri
                .query()
                .is_some_and(|query| query.split('&').any(|pair| pair == "alt=sse"));
            if sse {
                chat(shared, Protocol::Gemini, Some(model), body)
            } else {
                error_response(
                    Protocol::Gemini,
                    400,
                    "the fixture streams only with ?alt=sse",
                )
            }
        }
        _ => (
            StatusCode::NOT_FOUND,
            [(CONTENT_TYPE, "application/json")],
            json!({"error": {"message": format!("no route for {method} {path}"), "code": 404}})
                .to_string(),
        )
            .into_response(),
    }
}

/// A 1×1 PNG, base64: what the Images API route draws.
pub const PIXEL_PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// OpenAI's `POST /v1/images/generations`: `n` images (default 1) in `b64_json`, with a
/// `revised_prompt` as DALL·E 3 gives; a request without a model or a prompt is a 400 in
/// OpenAI's error shape.
fn images(body: &[u8]) -> Response {
    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let prompt = request["prompt"].as_str().unwrap_or_default();
    if request["model"].as_str().is_none_or(str::is_empty) || prompt.is_empty() {
        return error_response(Protocol::OpenAiChat, 400, "model and prompt are required");
    }
    let n = request["n"].as_u64().unwrap_or(1).clamp(1, 10);
    let data: Vec<Value> = (0..n)
        .map(|_| json!({"b64_json": PIXEL_PNG_BASE64, "revised_prompt": format!("{prompt}, as a single pixel")}))
        .collect();
    (
        [(CONTENT_TYPE, "application/json")],
        json!({"created": CREATED, "data": data}).to_string(),
    )
        .into_response()
}

/// `"fixture-small"` → `"Fixture Small"`.
fn display_name(id: &str) -> String {
    id.split(['-', '_'])
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect::<String>()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A model listing: OpenAI's shape for `None`, else that protocol's.
fn models(shared: &Shared, shape: Option<Protocol>) -> Response {
    let ids = lock(&shared.models).clone();
    let tools = shared.tool_models.load(Ordering::SeqCst);
    let body = match shape {
        Some(Protocol::Anthropic) => json!({
            "data": ids.iter().map(|id| json!({
                "type": "model",
                "id": id,
                "display_name": display_name(id),
                "created_at": "2025-01-01T00:00:00Z",
            })).collect::<Vec<_>>(),
            "has_more": false,
            "first_id": ids.first(),
            "last_id": ids.last(),
        }),
        Some(Protocol::Gemini) => json!({
            "models": ids.iter().map(|id| json!({
                "name": format!("models/{id}"),
                "version": "001",
                "displayName": display_name(id),
                "description": "A model of the Hearth provider fixture.",
                "inputTokenLimit": 32768,
                "outputTokenLimit": 8192,
                "supportedGenerationMethods": ["generateContent", "countTokens"],
            })).collect::<Vec<_>>(),
        }),
        _ => json!({
            "object": "list",
            "data": ids.iter().map(|id| {
                let mut model = json!({
                    "id": id,
                    "object": "model",
                    "created": CREATED,
                    "owned_by": "hearth-fixture",
                });
                if tools {
                    model["supported_parameters"] = json!(["tools", "tool_choice", "temperature"]);
                }
                model
            }).collect::<Vec<_>>(),
        }),
    };
    ([(CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// An HTTP error with `protocol`'s JSON error body.
fn error_response(protocol: Protocol, status: u16, message: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = match protocol {
        Protocol::OpenAiChat | Protocol::OpenAiResponses => {
            let (kind, code) = match status {
                401 => ("invalid_request_error", Some("invalid_api_key")),
                403 => ("permission_error", None),
                404 => ("invalid_request_error", Some("model_not_found")),
                429 => ("requests", Some("rate_limit_exceeded")),
                _ if status < 500 => ("invalid_request_error", None),
                _ => ("server_error", None),
            };
            json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
        }
        Protocol::Anthropic => {
            let kind = match status {
                401 => "authentication_error",
                403 => "permission_error",
                404 => "not_found_error",
                413 => "request_too_large",
                429 => "rate_limit_error",
                529 => "overloaded_error",
                _ if status < 500 => "invalid_request_error",
                _ => "api_error",
            };
            json!({
                "type": "error",
                "error": {"type": kind, "message": message},
                "request_id": "req_fixture",
            })
        }
        Protocol::Gemini => {
            let kind = match status {
                400 => "INVALID_ARGUMENT",
                401 => "UNAUTHENTICATED",
                403 => "PERMISSION_DENIED",
                404 => "NOT_FOUND",
                429 => "RESOURCE_EXHAUSTED",
                503 => "UNAVAILABLE",
                504 => "DEADLINE_EXCEEDED",
                _ if status < 500 => "FAILED_PRECONDITION",
                _ => "INTERNAL",
            };
            json!({"error": {"code": status, "message": message, "status": kind}})
        }
    };
    (code, [(CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// The text of the last user message that has any, in `protocol`'s request body.
fn last_user_text(protocol: Protocol, body: &Value) -> String {
    let (list, content, text_types): (&str, &str, &[&str]) = match protocol {
        Protocol::OpenAiChat => ("messages", "content", &["text"]),
        Protocol::OpenAiResponses => ("input", "content", &["input_text"]),
        Protocol::Anthropic => ("messages", "content", &["text"]),
        Protocol::Gemini => ("contents", "parts", &[]),
    };
    body[list]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .filter(|message| match protocol {
            Protocol::Gemini => message["role"].as_str().is_none_or(|r| r == "user"),
            _ => message["role"] == "user",
        })
        .map(|message| match &message[content] {
            Value::String(text) => text.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter(|part| {
                    text_types.is_empty()
                        || part["type"]
                            .as_str()
                            .is_some_and(|kind| text_types.contains(&kind))
                })
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        })
        .find(|text| !text.is_empty())
        .unwrap_or_default()
}

/// Answers a chat request: the next queued reply (or an echo), streamed.
fn chat(shared: &Arc<Shared>, protocol: Protocol, model: Option<&str>, body: &[u8]) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(body) else {
        return error_response(protocol, 400, "the request body is not JSON");
    };
    let model = model
        .map(str::to_string)
        .or_else(|| request["model"].as_str().map(str::to_string))
        .unwrap_or_else(|| DEFAULT_MODELS[0].to_string());
    let reply = lock(&shared.queue)
        .pop_front()
        .unwrap_or_else(|| Reply::text(format!("Echo: {}", last_user_text(protocol, &request))));
    if let Some((status, message)) = &reply.status {
        return error_response(protocol, *status, message);
    }
    let script = match protocol {
        Protocol::OpenAiChat => openai_chat(&model, &reply),
        Protocol::OpenAiResponses => openai_responses(&model, &reply),
        Protocol::Anthropic => anthropic(&model, &reply),
        Protocol::Gemini => gemini(&model, &reply),
    };
    let mut actions: Vec<(usize, Action)> = [
        (reply.stall_after, Action::Stall),
        (reply.error_after, Action::Error),
        (reply.truncate_after, Action::Truncate),
    ]
    .into_iter()
    .filter_map(|(after, action)| after.map(|after| (after, action)))
    .collect();
    actions.sort();
    let (tx, rx) = mpsc::channel(64);
    let producer = Producer {
        protocol,
        writer: Writer {
            tx,
            chunk_bytes: reply.chunk_bytes,
            delay: Duration::from_millis(reply.delay_ms),
            buffer: Vec::new(),
            wrote: false,
            frames: 0,
        },
        // The baseline is taken now, before the response leaves: a task spawned below may
        // first run after the test has already called `release` for this reply.
        released: *shared.release.borrow(),
        release: shared.release.subscribe(),
        actions: actions.into(),
    };
    tokio::spawn(producer.run(script));
    let body = SseBody {
        rx,
        _open: OpenStream::new(shared.clone()),
    };
    (
        [
            (CONTENT_TYPE, "text/event-stream"),
            (CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// Counts a stream as open from its creation until hyper drops its body (sent or the
/// client gone).
struct OpenStream(Arc<Shared>);

impl OpenStream {
    fn new(shared: Arc<Shared>) -> Self {
        shared.open_streams.fetch_add(1, Ordering::SeqCst);
        Self(shared)
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.open_streams.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The response body: what the producer task writes.
struct SseBody {
    rx: mpsc::Receiver<Bytes>,
    _open: OpenStream,
}

impl futures_util::Stream for SseBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx).map(|chunk| chunk.map(Ok))
    }
}

/// Whether a frame is a delta event (text, reasoning or a tool-call fragment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Other,
    Delta,
}

/// A reply's frames, in order.
#[derive(Debug, Default)]
struct Script {
    frames: Vec<(String, Kind)>,
    /// The next Responses `sequence_number`.
    sequence: u64,
}

impl Script {
    fn push(&mut self, frame: String, kind: Kind) {
        self.frames.push((frame, kind));
    }

    /// An `event:` + `data:` frame (Responses, Anthropic).
    fn event(&mut self, kind: Kind, name: &str, data: &Value) {
        self.push(format!("event: {name}\ndata: {data}\n\n"), kind);
    }

    /// A Responses event, typed and numbered.
    fn responses(&mut self, kind: Kind, name: &str, mut data: Value) {
        data["type"] = json!(name);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        self.event(kind, name, &data);
    }
}

/// What a reply does at a point of its stream, in this order when several coincide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Action {
    Stall,
    Error,
    Truncate,
}

/// Writes frames to the body channel, in chunks, paced.
struct Writer {
    tx: mpsc::Sender<Bytes>,
    chunk_bytes: usize,
    delay: Duration,
    buffer: Vec<u8>,
    wrote: bool,
    /// Frames written so far.
    frames: usize,
}

impl Writer {
    /// Writes a frame (or buffers it into fixed-size chunks); false if the client left.
    async fn frame(&mut self, frame: &str) -> bool {
        self.frames += 1;
        if self.chunk_bytes == 0 {
            return self.send(frame.as_bytes().to_vec()).await;
        }
        self.buffer.extend_from_slice(frame.as_bytes());
        while self.buffer.len() >= self.chunk_bytes {
            let rest = self.buffer.split_off(self.chunk_bytes);
            let chunk = std::mem::replace(&mut self.buffer, rest);
            if !self.send(chunk).await {
                return false;
            }
        }
        true
    }

    /// Writes what is buffered.
    async fn flush(&mut self) -> bool {
        if self.buffer.is_empty() {
            return true;
        }
        let chunk = std::mem::take(&mut self.buffer);
        self.send(chunk).await
    }

    async fn send(&mut self, chunk: Vec<u8>) -> bool {
        if self.wrote {
            if self.delay.is_zero() {
                // Lets the connection write this chunk on its own.
                tokio::task::yield_now().await;
            } else {
                tokio::time::sleep(self.delay).await;
            }
        }
        self.wrote = true;
        self.tx.send(Bytes::from(chunk)).await.is_ok()
    }
}

/// The task that plays a [`Script`] into a response body.
struct Producer {
    protocol: Protocol,
    writer: Writer,
    released: u64,
    release: watch::Receiver<u64>,
    actions: VecDeque<(usize, Action)>,
}

impl Producer {
    async fn run(mut self, script: Script) {
        let released = self.released;
        // Actions due after more deltas than the reply has happen before its closing
        // frames (everything after the last delta).
        let closing_from = script
            .frames
            .iter()
            .rposition(|(_, kind)| *kind == Kind::Delta)
            .map_or(0, |last| last + 1);
        let mut deltas = 0;
        for (index, (frame, kind)) in script.frames.iter().enumerate() {
            let closing = index >= closing_from;
            let before_delta = *kind == Kind::Delta;
            if !self
                .act_while(released, |after| {
                    closing || (before_delta && after <= deltas)
                })
                .await
            {
                return;
            }
            if !self.writer.frame(frame).await {
                return;
            }
            if *kind == Kind::Delta {
                deltas += 1;
                if !self.act_while(released, |after| after <= deltas).await {
                    return;
                }
            }
        }
        self.writer.flush().await;
    }

    /// Performs the due actions; false when the stream must end.
    async fn act_while(&mut self, released: u64, due: impl Fn(usize) -> bool) -> bool {
        while let Some(&(after, action)) = self.actions.front() {
            if !due(after) {
                break;
            }
            self.actions.pop_front();
            match action {
                Action::Stall => {
                    if !self.writer.flush().await {
                        return false;
                    }
                    tokio::select! {
                        _ = self.release.wait_for(|count| *count > released) => {}
                        _ = self.writer.tx.closed() => return false,
                    }
                }
                Action::Error => {
                    let frame = error_frame(self.protocol, self.writer.frames);
                    self.writer.frame(&frame).await;
                    self.writer.flush().await;
                    return false;
                }
                Action::Truncate => {
                    self.writer.flush().await;
                    return false;
                }
            }
        }
        true
    }
}

/// The protocol's in-stream error event; `sequence` is the Responses sequence number.
fn error_frame(protocol: Protocol, sequence: usize) -> String {
    match protocol {
        Protocol::OpenAiChat => format!(
            "data: {}\n\n",
            json!({"error": {"message": STREAM_ERROR_MESSAGE, "type": "server_error",
                "param": null, "code": "server_error"}})
        ),
        Protocol::OpenAiResponses => format!(
            "event: error\ndata: {}\n\n",
            json!({"type": "error", "sequence_number": sequence, "code": "server_error",
                "message": STREAM_ERROR_MESSAGE, "param": null})
        ),
        Protocol::Anthropic => format!(
            "event: error\ndata: {}\n\n",
            json!({"type": "error", "error": {"type": "overloaded_error",
                "message": STREAM_ERROR_MESSAGE}})
        ),
        Protocol::Gemini => format!(
            "data: {}\r\n\r\n",
            json!({"error": {"code": 500, "message": STREAM_ERROR_MESSAGE, "status": "INTERNAL"}})
        ),
    }
}

/// `text` in pieces of `chars` characters (one piece for 0, none for empty text).
fn pieces(text: &str, chars: usize) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    if chars == 0 {
        return vec![text.to_string()];
    }
    let all: Vec<char> = text.chars().collect();
    all.chunks(chars)
        .map(|piece| piece.iter().collect())
        .collect()
}

/// Tool-call arguments in three pieces (fewer when shorter).
fn argument_pieces(arguments: &str) -> Vec<String> {
    pieces(arguments, arguments.chars().count().div_ceil(3))
}

fn call_id(index: usize) -> String {
    format!("call_fixture_{index}")
}

/// OpenAI Chat Completions chunks.
fn openai_chat(model: &str, reply: &Reply) -> Script {
    let mut script = Script::default();
    let chunk = |choices: Value| {
        let mut chunk = json!({
            "id": "chatcmpl-fixture",
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": model,
            "system_fingerprint": "fp_fixture",
            "choices": choices,
        });
        if reply.usage.is_some() {
            // With `stream_options.include_usage`, OpenAI sends `usage: null` until the end.
            chunk["usage"] = Value::Null;
        }
        format!("data: {chunk}\n\n")
    };
    let delta = |delta: Value| {
        chunk(json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": null}]))
    };
    script.push(
        delta(json!({"role": "assistant", "content": "", "refusal": null})),
        Kind::Other,
    );
    for piece in pieces(&reply.reasoning, reply.text_chunk_chars) {
        script.push(delta(json!({"reasoning_content": piece})), Kind::Delta);
    }
    for piece in pieces(&reply.text, reply.text_chunk_chars) {
        script.push(delta(json!({"content": piece})), Kind::Delta);
    }
    let arguments: Vec<Vec<String>> = reply
        .tool_calls
        .iter()
        .map(|(_, arguments)| argument_pieces(arguments))
        .collect();
    for (index, (name, _)) in reply.tool_calls.iter().enumerate() {
        script.push(
            delta(
                json!({"tool_calls": [{"index": index, "id": call_id(index), "type": "function",
                "function": {"name": name, "arguments": ""}}]}),
            ),
            Kind::Delta,
        );
    }
    // Parallel calls interleave: a piece of each in turn.
    let rounds = arguments.iter().map(Vec::len).max().unwrap_or(0);
    for round in 0..rounds {
        for (index, pieces) in arguments.iter().enumerate() {
            if let Some(piece) = pieces.get(round) {
                script.push(
                    delta(json!({"tool_calls": [{"index": index,
                        "function": {"arguments": piece}}]})),
                    Kind::Delta,
                );
            }
        }
    }
    let finish = if reply.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    script.push(
        chunk(json!([{"index": 0, "delta": {}, "logprobs": null, "finish_reason": finish}])),
        Kind::Other,
    );
    if let Some((input, output)) = reply.usage {
        let mut last = json!({
            "id": "chatcmpl-fixture",
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": model,
            "system_fingerprint": "fp_fixture",
            "choices": [],
        });
        last["usage"] = json!({"prompt_tokens": input, "completion_tokens": output,
            "total_tokens": input + output});
        script.push(format!("data: {last}\n\n"), Kind::Other);
    }
    script.push("data: [DONE]\n\n".to_string(), Kind::Other);
    script
}

/// OpenAI Responses events.
fn openai_responses(model: &str, reply: &Reply) -> Script {
    let mut script = Script::default();
    let response = |status: &str, output: Value, usage: Value| {
        json!({
            "id": "resp_fixture",
            "object": "response",
            "created_at": CREATED,
            "status": status,
            "model": model,
            "output": output,
            "usage": usage,
        })
    };
    let start = response("in_progress", json!([]), Value::Null);
    script.responses(
        Kind::Other,
        "response.created",
        json!({"response": start.clone()}),
    );
    script.responses(
        Kind::Other,
        "response.in_progress",
        json!({"response": start}),
    );
    let mut output = Vec::new();
    if !reply.reasoning.is_empty() {
        let (id, index, text) = ("rs_fixture", output.len(), &reply.reasoning);
        script.responses(
            Kind::Other,
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": id, "type": "reasoning", "summary": []}}),
        );
        let at = json!({"item_id": id, "output_index": index, "summary_index": 0});
        let with = |extra: Value| {
            let mut value = at.clone();
            if let (Some(value), Value::Object(extra)) = (value.as_object_mut(), extra) {
                value.extend(extra);
            }
            value
        };
        script.responses(
            Kind::Other,
            "response.reasoning_summary_part.added",
            with(json!({"part": {"type": "summary_text", "text": ""}})),
        );
        for piece in pieces(text, reply.text_chunk_chars) {
            script.responses(
                Kind::Delta,
                "response.reasoning_summary_text.delta",
                with(json!({"delta": piece})),
            );
        }
        script.responses(
            Kind::Other,
            "response.reasoning_summary_text.done",
            with(json!({"text": text})),
        );
        script.responses(
            Kind::Other,
            "response.reasoning_summary_part.done",
            with(json!({"part": {"type": "summary_text", "text": text}})),
        );
        let item = json!({"id": id, "type": "reasoning",
            "summary": [{"type": "summary_text", "text": text}]});
        script.responses(
            Kind::Other,
            "response.output_item.done",
            json!({"output_index": index, "item": item.clone()}),
        );
        output.push(item);
    }
    if !reply.text.is_empty() || reply.tool_calls.is_empty() {
        let (id, index, text) = ("msg_fixture", output.len(), &reply.text);
        script.responses(
            Kind::Other,
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": id, "type": "message",
                "status": "in_progress", "role": "assistant", "content": []}}),
        );
        script.responses(
            Kind::Other,
            "response.content_part.added",
            json!({"item_id": id, "output_index": index, "content_index": 0,
                "part": {"type": "output_text", "text": "", "annotations": []}}),
        );
        for piece in pieces(text, reply.text_chunk_chars) {
            script.responses(
                Kind::Delta,
                "response.output_text.delta",
                json!({"item_id": id, "output_index": index, "content_index": 0,
                    "delta": piece, "logprobs": []}),
            );
        }
        script.responses(
            Kind::Other,
            "response.output_text.done",
            json!({"item_id": id, "output_index": index, "content_index": 0,
                "text": text, "logprobs": []}),
        );
        let part = json!({"type": "output_text", "text": text, "annotations": []});
        script.responses(
            Kind::Other,
            "response.content_part.done",
            json!({"item_id": id, "output_index": index, "content_index": 0,
                "part": part.clone()}),
        );
        let item = json!({"id": id, "type": "message", "status": "completed",
            "role": "assistant", "content": [part]});
        script.responses(
            Kind::Other,
            "response.output_item.done",
            json!({"output_index": index, "item": item.clone()}),
        );
        output.push(item);
    }
    for (call, (name, arguments)) in reply.tool_calls.iter().enumerate() {
        let (id, index) = (format!("fc_fixture_{call}"), output.len());
        script.responses(
            Kind::Delta,
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": id, "type": "function_call",
                "status": "in_progress", "call_id": call_id(call), "name": name,
                "arguments": ""}}),
        );
        for piece in argument_pieces(arguments) {
            script.responses(
                Kind::Delta,
                "response.function_call_arguments.delta",
                json!({"item_id": id, "output_index": index, "delta": piece}),
            );
        }
        script.responses(
            Kind::Other,
            "response.function_call_arguments.done",
            json!({"item_id": id, "output_index": index, "arguments": arguments}),
        );
        let item = json!({"id": id, "type": "function_call", "status": "completed",
            "call_id": call_id(call), "name": name, "arguments": arguments});
        script.responses(
            Kind::Other,
            "response.output_item.done",
            json!({"output_index": index, "item": item.clone()}),
        );
        output.push(item);
    }
    let usage = reply.usage.map_or(Value::Null, |(input, output)| {
        json!({
            "input_tokens": input,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input + output,
        })
    });
    script.responses(
        Kind::Other,
        "response.completed",
        json!({"response": response("completed", Value::Array(output), usage)}),
    );
    script
}

/// Anthropic Messages events.
fn anthropic(model: &str, reply: &Reply) -> Script {
    let mut script = Script::default();
    let mut message = json!({
        "id": "msg_fixture",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": null,
        "stop_sequence": null,
    });
    if let Some((input, _)) = reply.usage {
        message["usage"] = json!({"input_tokens": input, "output_tokens": 1});
    }
    script.event(
        Kind::Other,
        "message_start",
        &json!({"type": "message_start", "message": message}),
    );
    script.event(Kind::Other, "ping", &json!({"type": "ping"}));
    let mut block = 0;
    let mut start = |script: &mut Script, kind: Kind, content: Value| {
        script.event(
            kind,
            "content_block_start",
            &json!({"type": "content_block_start", "index": block, "content_block": content}),
        );
        block += 1;
        block - 1
    };
    let delta = |script: &mut Script, kind: Kind, index: usize, delta: Value| {
        script.event(
            kind,
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        );
    };
    let stop = |script: &mut Script, index: usize| {
        script.event(
            Kind::Other,
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        );
    };
    if !reply.reasoning.is_empty() {
        let index = start(
            &mut script,
            Kind::Other,
            json!({"type": "thinking", "thinking": "", "signature": ""}),
        );
        for piece in pieces(&reply.reasoning, reply.text_chunk_chars) {
            delta(
                &mut script,
                Kind::Delta,
                index,
                json!({"type": "thinking_delta", "thinking": piece}),
            );
        }
        delta(
            &mut script,
            Kind::Other,
            index,
            json!({"type": "signature_delta", "signature": "Zml4dHVyZQ=="}),
        );
        stop(&mut script, index);
    }
    if !reply.text.is_empty() || reply.tool_calls.is_empty() {
        let index = start(
            &mut script,
            Kind::Other,
            json!({"type": "text", "text": ""}),
        );
        for piece in pieces(&reply.text, reply.text_chunk_chars) {
            delta(
                &mut script,
                Kind::Delta,
                index,
                json!({"type": "text_delta", "text": piece}),
            );
        }
        stop(&mut script, index);
    }
    for (call, (name, arguments)) in reply.tool_calls.iter().enumerate() {
        let index = start(
            &mut script,
            Kind::Delta,
            json!({"type": "tool_use", "id": format!("toolu_fixture_{call}"), "name": name,
                "input": {}}),
        );
        // Anthropic opens every tool input with an empty fragment.
        let fragments = std::iter::once(String::new()).chain(argument_pieces(arguments));
        for piece in fragments {
            delta(
                &mut script,
                Kind::Delta,
                index,
                json!({"type": "input_json_delta", "partial_json": piece}),
            );
        }
        stop(&mut script, index);
    }
    let stop_reason = if reply.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    let mut end = json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": null},
    });
    if let Some((_, output)) = reply.usage {
        end["usage"] = json!({"output_tokens": output});
    }
    script.event(Kind::Other, "message_delta", &end);
    script.event(
        Kind::Other,
        "message_stop",
        &json!({"type": "message_stop"}),
    );
    script
}

/// Gemini `GenerateContentResponse` chunks (CRLF-framed, as Google sends them).
fn gemini(model: &str, reply: &Reply) -> Script {
    let mut script = Script::default();
    let chunk = |parts: Value| {
        json!({
            "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}],
            "modelVersion": model,
            "responseId": "fixture-response",
        })
    };
    let frame = |value: &Value| format!("data: {value}\r\n\r\n");
    for piece in pieces(&reply.reasoning, reply.text_chunk_chars) {
        script.push(
            frame(&chunk(json!([{"text": piece, "thought": true}]))),
            Kind::Delta,
        );
    }
    for piece in pieces(&reply.text, reply.text_chunk_chars) {
        script.push(frame(&chunk(json!([{"text": piece}]))), Kind::Delta);
    }
    if !reply.tool_calls.is_empty() {
        let calls: Vec<Value> = reply
            .tool_calls
            .iter()
            .map(|(name, arguments)| {
                let args = serde_json::from_str::<Value>(arguments)
                    .unwrap_or_else(|_| Value::String(arguments.clone()));
                json!({"functionCall": {"name": name, "args": args}})
            })
            .collect();
        script.push(frame(&chunk(Value::Array(calls))), Kind::Delta);
    }
    let mut last = chunk(json!([{"text": ""}]));
    last["candidates"][0]["finishReason"] = json!("STOP");
    if let Some((input, output)) = reply.usage {
        last["usageMetadata"] = json!({
            "promptTokenCount": input,
            "candidatesTokenCount": output,
            "totalTokenCount": input + output,
        });
    }
    script.push(frame(&last), Kind::Other);
    script
}
