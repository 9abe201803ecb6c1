//! Opening a model stream: directly from the browser with the user's key, or through the
//! edge relay (`POST /api/chat/relay`, key sealed for `provider:<protocol>`) when the
//! provider blocks browser calls. Both answer with the provider's own SSE bytes, which
//! `hearth_core::provider::StreamDecoder` turns into events. The request is built by
//! `hearth_core::provider::request::build` on either side.

use hearth_core::api::{ApiError, ErrorCode, RelayRequest};
use hearth_core::chat::GenerationError;
use hearth_core::provider::request::{
    BuiltRequest, ChatRequest, ModelCapabilities, auth_headers, build,
};
use js_sys::{Reflect, Uint8Array};
use leptos::prelude::window;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStreamDefaultReader, Response};

use crate::envelope;
use crate::http::read_error_text;
use crate::providers::Provider;

/// Why a stream could not be opened.
#[derive(Debug, Clone, PartialEq)]
pub enum OpenError {
    /// The browser may not call this provider (CORS) or cannot reach it.
    Blocked,
    /// The user stopped the run.
    Aborted,
    /// The provider or the edge answered with an error.
    Failed(GenerationError),
}

/// What [`Stream::next_within`] found.
pub enum Next {
    /// Bytes arrived.
    Bytes(Vec<u8>),
    /// The stream ended.
    End,
    /// Nothing arrived in time; the read stays pending for the next call.
    Quiet,
}

/// A model stream being read.
pub struct Stream {
    reader: ReadableStreamDefaultReader,
    /// A read that has not answered yet (a quiet period left it pending).
    pending: std::cell::RefCell<Option<js_sys::Promise>>,
}

impl Stream {
    /// The next bytes, waiting at most `ms` milliseconds; `Err` when the connection broke
    /// or the run was aborted. A quiet period loses nothing: the read stays pending.
    pub async fn next_within(&self, ms: i32) -> Result<Next, ()> {
        let read = self
            .pending
            .borrow_mut()
            .take()
            .unwrap_or_else(|| self.reader.read());
        let quiet = JsValue::from_str("quiet");
        let timer = {
            let quiet = quiet.clone();
            js_sys::Promise::new(&mut |resolve, _| {
                let _ = window()
                    .set_timeout_with_callback_and_timeout_and_arguments_1(&resolve, ms, &quiet);
            })
        };
        let race = js_sys::Promise::race(&js_sys::Array::of2(&read, &timer));
        let result = JsFuture::from(race).await.map_err(|_| ())?;
        if result == quiet {
            *self.pending.borrow_mut() = Some(read);
            return Ok(Next::Quiet);
        }
        Ok(match Self::bytes(&result)? {
            Some(bytes) => Next::Bytes(bytes),
            None => Next::End,
        })
    }

    fn bytes(result: &JsValue) -> Result<Option<Vec<u8>>, ()> {
        let done = Reflect::get(result, &"done".into())
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(true);
        if done {
            return Ok(None);
        }
        let value = Reflect::get(result, &"value".into()).map_err(|_| ())?;
        Ok(Some(Uint8Array::new(&value).to_vec()))
    }
}

/// The message inside a provider's JSON error body, if any.
pub(super) fn provider_message(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let message = value["error"]["message"]
        .as_str()
        .or_else(|| value["message"].as_str())
        .or_else(|| value[0]["error"]["message"].as_str())?;
    Some(message.chars().take(500).collect())
}

pub(super) async fn start(
    url: &str,
    init: &web_sys::RequestInit,
    signal: &AbortSignal,
) -> Result<Response, OpenError> {
    init.set_signal(Some(signal));
    init.set_referrer_policy(web_sys::ReferrerPolicy::NoReferrer);
    match JsFuture::from(window().fetch_with_str_and_init(url, init)).await {
        Ok(response) => response.dyn_into().map_err(|_| OpenError::Blocked),
        Err(_) if signal.aborted() => Err(OpenError::Aborted),
        Err(_) => Err(OpenError::Blocked),
    }
}

fn reader(response: &Response) -> Result<Stream, OpenError> {
    let body = response.body().ok_or_else(|| {
        OpenError::Failed(GenerationError::new(
            "PROVIDER_ERROR",
            "The provider answered without a body",
            true,
        ))
    })?;
    let reader = body
        .get_reader()
        .dyn_into::<ReadableStreamDefaultReader>()
        .map_err(|_| OpenError::Blocked)?;
    Ok(Stream {
        reader,
        pending: std::cell::RefCell::new(None),
    })
}

/// The `POST` of a request built by `core`, with the provider's key in the headers its
/// protocol uses; `None` if the browser refuses to make the headers.
pub(super) fn post_init(
    built: &BuiltRequest,
    protocol: hearth_core::provider::Protocol,
    key: Option<&str>,
) -> Option<web_sys::RequestInit> {
    let headers = web_sys::Headers::new().ok()?;
    let mut all = built.headers.clone();
    if let Some(key) = key {
        all.extend(auth_headers(protocol, key));
    }
    for (name, value) in all {
        let _ = headers.set(&name, &value);
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&built.body.to_string()));
    Some(init)
}

/// Opens the stream directly from the browser.
pub async fn open_direct(
    provider: &Provider,
    key: Option<&str>,
    request: &ChatRequest,
    capabilities: &ModelCapabilities,
    signal: &AbortSignal,
) -> Result<Stream, OpenError> {
    let endpoint = provider.endpoint();
    let built = build(&endpoint, request, capabilities).map_err(|error| {
        OpenError::Failed(GenerationError::new(
            "INVALID_REQUEST",
            error.to_string(),
            false,
        ))
    })?;
    let init = post_init(&built, endpoint.protocol, key).ok_or(OpenError::Blocked)?;
    let response = start(&built.url, &init, signal).await?;
    if !response.ok() {
        let body = read_error_text(&response).await;
        return Err(OpenError::Failed(GenerationError::from_http_status(
            response.status(),
            provider_message(&body).as_deref(),
        )));
    }
    reader(&response)
}

/// Opens the stream through the edge relay.
pub async fn open_relay(
    provider: &Provider,
    key: Option<&str>,
    request: &ChatRequest,
    capabilities: &ModelCapabilities,
    signal: &AbortSignal,
) -> Result<Stream, OpenError> {
    let mut retried = false;
    loop {
        let body = RelayRequest {
            provider: envelope::relay_provider(provider, key).await.map_err(|e| {
                OpenError::Failed(GenerationError::new("SEAL_FAILED", e.to_string(), true))
            })?,
            request: request.clone(),
            capabilities: *capabilities,
        };
        let json = serde_json::to_string(&body).map_err(|_| OpenError::Blocked)?;
        let headers = web_sys::Headers::new().map_err(|_| OpenError::Blocked)?;
        let _ = headers.set("content-type", "application/json");
        let init = web_sys::RequestInit::new();
        init.set_method("POST");
        init.set_headers(&headers);
        init.set_body(&JsValue::from_str(&json));
        let response = start("/api/chat/relay", &init, signal).await?;
        if response.ok() {
            return reader(&response);
        }
        let text = read_error_text(&response).await;
        match serde_json::from_str::<ApiError>(&text) {
            // The edge's key rotated: fetch the new one and seal again, once.
            Ok(error) if error.code == ErrorCode::AuthError && !retried => {
                envelope::forget_edge_key();
                retried = true;
            }
            Ok(error) => return Err(OpenError::Failed(relay_failure(&error))),
            Err(_) => {
                return Err(OpenError::Failed(GenerationError::from_http_status(
                    response.status(),
                    None,
                )));
            }
        }
    }
}

/// The stored error for a failed relay call: a provider's own status is classified like a
/// direct call's; the edge's refusals keep their code.
fn relay_failure(error: &ApiError) -> GenerationError {
    let details = error.details.as_ref();
    let message = details
        .and_then(|d| d["message"].as_str())
        .unwrap_or(&error.error);
    match details.and_then(|d| d["upstreamStatus"].as_u64()) {
        Some(status) if error.code == ErrorCode::UpstreamError => {
            GenerationError::from_http_status(status as u16, Some(message))
        }
        _ => {
            let code = serde_json::to_value(error.code)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_else(|| "EDGE_ERROR".into());
            let recoverable = error.status_code >= 500 || error.status_code == 429;
            GenerationError::new(&code, error.error.clone(), recoverable)
        }
    }
}
