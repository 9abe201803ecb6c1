//! A fake model provider on 127.0.0.1 for end-to-end tests, speaking each protocol's
//! streaming wire format on its real paths, so the real app (and the edge relay) can be
//! driven against it with no model running.
//!
//! It owns: the routes (OpenAI-compatible `POST /v1/chat/completions`, `POST
//! /v1/responses`, `POST /v1/images/generations` (a 1×1 PNG per image), `POST
//! /v1/audio/speech` (a third of a second of silence) and `GET
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
//! Each protocol's wire shapes (its stream's frames, its error bodies and error event, its
//! model listing) live in one file ([`openai_chat`], [`openai_responses`], [`anthropic`],
//! [`gemini`]); `stream` plays a reply's frames into a response body, in chunks, paced,
//! with its stall, error and truncation points; `images` is the Images API route.
//!
//! The server runs on its own thread and its own Tokio runtime, so it keeps answering
//! whatever the test's runtime flavor is and even while the test thread blocks. It stops
//! when the [`ProviderFixture`] is dropped.

mod anthropic;
pub mod audio;
mod gemini;
mod images;
mod openai_chat;
mod openai_responses;
mod stream;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use hearth_core::provider::Protocol;
use serde_json::{Value, json};
use tokio::sync::{oneshot, watch};

pub use gemini::image_signature;
pub use images::PIXEL_PNG_BASE64;
use images::images;

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
    images: Vec<ReplyImage>,
    sources: Vec<(String, String)>,
    for_model: Option<String>,
}

/// An image a reply sends, after `after_chars` characters of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyImage {
    /// How many characters of the text come before it.
    pub after_chars: usize,
    /// The MIME type it is labelled with.
    pub mime_type: String,
    /// The bytes, base64.
    pub data: String,
    /// A link sent instead of the bytes (OpenAI chat only; the others send bytes).
    pub link: Option<String>,
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
            images: Vec::new(),
            sources: Vec::new(),
            for_model: None,
        }
    }

    /// Only a request for `model` takes this reply: requests that arrive at once (the
    /// models of a comparison) each get their model's, whatever their order.
    pub fn for_model(mut self, model: impl Into<String>) -> Self {
        self.for_model = Some(model.into());
        self
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

    /// Adds an image (`data`, base64, labelled `mime_type`) after `after_chars` characters
    /// of the text, as the protocol sends images: Gemini an `inlineData` part, OpenAI chat
    /// a `delta.images` entry with a `data:` URL (as OpenRouter sends them), Responses an
    /// `image_generation_call` item (before the message when `after_chars` is 0, after it
    /// otherwise). Anthropic sends no images.
    pub fn image(
        mut self,
        after_chars: usize,
        mime_type: impl Into<String>,
        data: impl Into<String>,
    ) -> Self {
        self.images.push(ReplyImage {
            after_chars,
            mime_type: mime_type.into(),
            data: data.into(),
            link: None,
        });
        self
    }

    /// Adds an image given as a link (`url`) after `after_chars` characters of the text:
    /// an OpenAI chat `delta.images` entry whose URL is not a `data:` URL.
    pub fn image_link(mut self, after_chars: usize, url: impl Into<String>) -> Self {
        self.images.push(ReplyImage {
            after_chars,
            mime_type: String::new(),
            data: String::new(),
            link: Some(url.into()),
        });
        self
    }

    /// Adds a page (`url`, `title`) the reply draws on, as the protocol names its
    /// sources: OpenAI chat as Perplexity does (`search_results` with titles and
    /// `citations`, the URLs its `[n]` count, beside the choices of every chunk), Gemini
    /// as grounding (`groundingMetadata.groundingChunks` on the last chunk). The others
    /// send none.
    pub fn source(mut self, url: impl Into<String>, title: impl Into<String>) -> Self {
        self.sources.push((url.into(), title.into()));
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
    /// OpenRouter-style fields added to a model's OpenAI-shaped listing entry.
    listing_fields: Mutex<HashMap<String, Value>>,
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
            listing_fields: Mutex::new(HashMap::new()),
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

    /// Fields the OpenAI-shaped listing adds to model `id`'s entry, as OpenRouter's
    /// listing carries them: `architecture.input_modalities` (`["text", "image"]` for a
    /// model with vision), `context_length`, `max_tokens`.
    pub fn set_listing_fields(&self, id: &str, fields: Value) {
        lock(&self.shared.listing_fields).insert(id.to_string(), fields);
    }

    /// The model ids listed from now on (default [`DEFAULT_MODELS`]).
    pub fn set_models(&self, ids: Vec<String>) {
        *lock(&self.shared.models) = ids;
    }

    /// Queues `reply` for the next chat request (for its model, see [`Reply::for_model`]).
    /// With no reply queued for it, a chat request gets `Echo: <the text of the last user
    /// message>`.
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
        ("POST", "/v1/audio/speech", _) => audio::speech(body),
        ("POST", "/v1/audio/transcriptions", _) => audio::transcription(
            headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()),
            body,
        ),
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
        Some(Protocol::Anthropic) => anthropic::listing(&ids),
        Some(Protocol::Gemini) => gemini::listing(&ids),
        _ => openai_chat::listing(&ids, tools, &lock(&shared.listing_fields)),
    };
    ([(CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// An HTTP error with `protocol`'s JSON error body.
fn error_response(protocol: Protocol, status: u16, message: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = match protocol {
        Protocol::OpenAiChat | Protocol::OpenAiResponses => {
            openai_chat::error_body(status, message)
        }
        Protocol::Anthropic => anthropic::error_body(status, message),
        Protocol::Gemini => gemini::error_body(status, message),
    };
    (code, [(CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// The protocol's in-stream error event; `sequence` is the Responses sequence number.
fn error_frame(protocol: Protocol, sequence: usize) -> String {
    match protocol {
        Protocol::OpenAiChat => openai_chat::error_frame(),
        Protocol::OpenAiResponses => openai_responses::error_frame(sequence),
        Protocol::Anthropic => anthropic::error_frame(),
        Protocol::Gemini => gemini::error_frame(),
    }
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
    if protocol == Protocol::Gemini
        && let Some(message) = gemini::unsigned_call(&request)
    {
        return error_response(protocol, 400, &message);
    }
    let reply = {
        let mut queue = lock(&shared.queue);
        let at = queue
            .iter()
            .position(|reply| reply.for_model.as_deref().is_none_or(|m| m == model));
        at.and_then(|at| queue.remove(at))
    }
    .unwrap_or_else(|| Reply::text(format!("Echo: {}", last_user_text(protocol, &request))));
    if let Some((status, message)) = &reply.status {
        return error_response(protocol, *status, message);
    }
    let script = match protocol {
        Protocol::OpenAiChat => openai_chat::script(&model, &reply),
        Protocol::OpenAiResponses => openai_responses::script(&model, &reply),
        Protocol::Anthropic => anthropic::script(&model, &reply),
        Protocol::Gemini => gemini::script(&model, &reply),
    };
    stream::respond(shared, protocol, &reply, script)
}
