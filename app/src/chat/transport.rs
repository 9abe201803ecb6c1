//! Opening a model stream: directly from the browser with the user's key, or through the
//! edge relay (`POST /api/chat/relay`, key sealed for `provider:<protocol>`) when the
//! provider blocks browser calls (named, so it resumes when its connection drops:
//! `model_stream`). Both answer with the provider's own SSE bytes, which
//! `hearth_core::provider::StreamDecoder` turns into events. The request is built by
//! `hearth_core::provider::build::build` on either side.

use hearth_core::api::relay_resume::RELAY_ID_HEADER;
use hearth_core::api::{ApiError, ErrorCode, RelayRequest};
use hearth_core::chat::GenerationError;
use hearth_core::provider::build::build;
use hearth_core::provider::request::{BuiltRequest, ChatRequest, ModelCapabilities, auth_headers};
use wasm_bindgen::JsValue;
use web_sys::{AbortSignal, Response};

use super::model_stream::Relayed;
use crate::envelope::{EdgeKeyRefusal, Sealer, with_sealed};
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

/// A model stream being read.
pub use super::model_stream::ModelStream as Stream;

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
    crate::http::open(url, init, signal)
        .await
        .map_err(|unanswered| match unanswered {
            crate::http::Unanswered::Aborted => OpenError::Aborted,
            crate::http::Unanswered::Failed => OpenError::Blocked,
        })
}

/// The body of `response` as a stream.
pub(super) fn reader(response: &Response) -> Result<Stream, OpenError> {
    body_of(response).map(Stream::Body)
}

fn body_of(response: &Response) -> Result<crate::http::BodyStream, OpenError> {
    crate::http::BodyStream::of(response).ok_or(OpenError::Failed(
        GenerationError::stream_malformed("no body"),
    ))
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
async fn open_direct(
    provider: &Provider,
    key: Option<&str>,
    request: &ChatRequest,
    capabilities: &ModelCapabilities,
    signal: &AbortSignal,
) -> Result<Stream, OpenError> {
    let endpoint = provider.endpoint();
    let built = build(&endpoint, request, capabilities)
        .map_err(|error| OpenError::Failed(GenerationError::invalid_request(&error.to_string())))?;
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

/// Why one attempt through the relay failed.
enum RelayAttempt {
    /// Not opened, for this reason.
    Open(OpenError),
    /// The edge refused with its own error.
    Refused(ApiError),
}

impl EdgeKeyRefusal for RelayAttempt {
    fn edge_key_refused(&self) -> bool {
        matches!(self, Self::Refused(error) if error.edge_key_refused())
    }
}

/// Opens the stream through the edge relay (the key sealed for the edge; sealed again
/// once if the edge's key rotated).
async fn open_relay(
    provider: &Provider,
    key: Option<&str>,
    request: &ChatRequest,
    capabilities: &ModelCapabilities,
    signal: &AbortSignal,
) -> Result<Stream, OpenError> {
    let attempt = async |sealer: Sealer| {
        let body = RelayRequest {
            provider: sealer.relay_provider(provider, key).await.map_err(|e| {
                RelayAttempt::Open(OpenError::Failed(GenerationError::seal_failed(
                    &e.to_string(),
                )))
            })?,
            request: request.clone(),
            capabilities: *capabilities,
        };
        let blocked = || RelayAttempt::Open(OpenError::Blocked);
        let json = serde_json::to_string(&body).map_err(|_| blocked())?;
        let headers = web_sys::Headers::new().map_err(|_| blocked())?;
        let _ = headers.set("content-type", "application/json");
        // Named, so a connection that drops mid-reply is resumed instead of lost.
        let id = format!("{}{}", crate::browser::new_id(), crate::browser::new_id());
        let _ = headers.set(RELAY_ID_HEADER, &id);
        let init = web_sys::RequestInit::new();
        init.set_method("POST");
        init.set_headers(&headers);
        init.set_body(&JsValue::from_str(&json));
        let response = start("/api/chat/relay", &init, signal)
            .await
            .map_err(RelayAttempt::Open)?;
        if response.ok() {
            let body = body_of(&response).map_err(RelayAttempt::Open)?;
            return Ok(Stream::Relayed(Box::new(Relayed::new(
                id,
                body,
                signal.clone(),
            ))));
        }
        let text = read_error_text(&response).await;
        Err(match serde_json::from_str::<ApiError>(&text) {
            Ok(error) => RelayAttempt::Refused(error),
            Err(_) => RelayAttempt::Open(OpenError::Failed(GenerationError::from_http_status(
                response.status(),
                None,
            ))),
        })
    };
    with_sealed(attempt).await.map_err(|failure| match failure {
        RelayAttempt::Open(error) => error,
        RelayAttempt::Refused(error) => OpenError::Failed(relay_failure(&error)),
    })
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
        _ => GenerationError::edge(error.code, error.status_code, &error.error),
    }
}

/// What the browser says when it may not call a provider and the relay could not either:
/// offline when the browser says the device is (nothing reached anyone), else that the
/// provider is out of reach.
pub fn unreachable() -> GenerationError {
    if crate::browser::is_online() {
        GenerationError::provider_unreachable(None)
    } else {
        GenerationError::offline()
    }
}

/// Opens a model stream: directly first (unless the provider is known to need the
/// relay), through the relay when the browser is blocked. The only way the app opens a
/// provider's stream.
pub async fn open_model_stream(
    providers: crate::providers::Providers,
    provider: &Provider,
    key: Option<&str>,
    request: &ChatRequest,
    capabilities: &ModelCapabilities,
    signal: &AbortSignal,
) -> Result<Stream, OpenError> {
    if !provider.via_relay {
        match open_direct(provider, key, request, capabilities, signal).await {
            Err(OpenError::Blocked) => {}
            other => return other,
        }
    }
    match open_relay(provider, key, request, capabilities, signal).await {
        Ok(stream) => {
            let _ = providers.mark_via_relay(&provider.id).await;
            Ok(stream)
        }
        Err(OpenError::Blocked) => Err(OpenError::Failed(unreachable())),
        // The direct call was blocked and the relay refused too: both are the story.
        Err(OpenError::Failed(error)) if !provider.via_relay => {
            Err(OpenError::Failed(error.after_browser_blocked()))
        }
        other => other,
    }
}
