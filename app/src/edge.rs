//! Calls from the app to its own edge server (same origin). Each returns a typed result;
//! an edge that is down is an ordinary, displayable error, because the app works without
//! it for everything that does not need it. Answers are read with a cap
//! ([`MAX_ANSWER_BYTES`]), chunk by chunk.

use hearth_core::api::operations::OPERATION_ID_HEADER;
use hearth_core::api::{
    AccessSession, AccessVerifyRequest, ApiError, ConfigProviders, HealthReport, ModelListRequest,
    ModelListResponse, PluginExecuteRequest, PluginExecuteResponse, PluginInstallRequest,
    PluginInstallResponse, PluginListResponse, PluginUninstallRequest, PublicConfig,
    ServerProvider,
};
use hearth_core::byok::PublicKeyResponse;
use leptos::prelude::{lazy, window};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::http::read_capped_text;

/// The largest edge answer read: above every answer the edge bounds (a model list of
/// 4 MiB, a tool result of 2 MiB, a registry page).
pub const MAX_ANSWER_BYTES: usize = 8 * 1024 * 1024;

/// Why a call to the edge failed.
#[derive(Clone, Debug, PartialEq)]
pub enum EdgeError {
    /// No response at all (the server stopped, a proxy failed).
    Unreachable,
    /// No response, and the browser says the device is offline.
    Offline,
    /// The edge answered with its error shape.
    Api(ApiError),
    /// The edge answered something that is not what this app version expects.
    Unexpected(u16),
}

impl std::fmt::Display for EdgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unreachable => f.write_str("no response"),
            Self::Offline => f.write_str("offline"),
            Self::Api(error) => write!(f, "{} {:?}", error.status_code, error.code),
            Self::Unexpected(status) => write!(f, "HTTP {status}"),
        }
    }
}

impl EdgeError {
    /// A call that got no response: offline when the browser says so.
    pub fn no_response() -> Self {
        if crate::browser::is_online() {
            Self::Unreachable
        } else {
            Self::Offline
        }
    }
}

async fn send<T: DeserializeOwned>(
    path: &str,
    init: Option<&web_sys::RequestInit>,
) -> Result<T, EdgeError> {
    let (status, text) = send_text(path, init).await?;
    serde_json::from_str(&text).map_err(|_| EdgeError::Unexpected(status))
}

/// A request's successful answer as text, with its status; an error answer read as the
/// edge's error shape.
async fn send_text(
    path: &str,
    init: Option<&web_sys::RequestInit>,
) -> Result<(u16, String), EdgeError> {
    let promise = match init {
        Some(init) => window().fetch_with_str_and_init(path, init),
        None => window().fetch_with_str(path),
    };
    let response = JsFuture::from(promise)
        .await
        .map_err(|_| EdgeError::no_response())?
        .dyn_into::<web_sys::Response>()
        .map_err(|_| EdgeError::no_response())?;
    let status = response.status();
    // An answer past the cap is not one this app expects: the read stops there.
    let text = read_capped_text(&response, MAX_ANSWER_BYTES)
        .await
        .map_err(|_| EdgeError::Unexpected(status))?;
    if response.ok() {
        Ok((status, text))
    } else {
        Err(error_answer(status, text).await)
    }
}

/// An error answer read as the edge's error shape (in its own chunk: the first screen's
/// calls succeed, and the error codes' reader is large).
#[lazy]
async fn error_answer(status: u16, text: String) -> EdgeError {
    match serde_json::from_str::<ApiError>(&text) {
        Ok(error) => EdgeError::Api(error),
        Err(_) => EdgeError::Unexpected(status),
    }
}

async fn get_json<T: DeserializeOwned>(path: &str) -> Result<T, EdgeError> {
    send(path, None).await
}

async fn post_json<B: Serialize, T: DeserializeOwned>(
    path: &str,
    body: &B,
) -> Result<T, EdgeError> {
    post_named(path, body, None, None).await
}

/// A `POST` of `body` as JSON; aborting `signal` cancels the request (the edge drops
/// its work); `operation` names it (`hearth-operation-id`).
async fn post_named<B: Serialize, T: DeserializeOwned>(
    path: &str,
    body: &B,
    signal: Option<&web_sys::AbortSignal>,
    operation: Option<&str>,
) -> Result<T, EdgeError> {
    let body = serde_json::to_string(body).map_err(|_| EdgeError::Unexpected(0))?;
    let headers = web_sys::Headers::new().map_err(|_| EdgeError::Unexpected(0))?;
    headers
        .set("content-type", "application/json")
        .map_err(|_| EdgeError::Unexpected(0))?;
    if let Some(operation) = operation {
        headers
            .set(OPERATION_ID_HEADER, operation)
            .map_err(|_| EdgeError::Unexpected(0))?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&body));
    init.set_signal(signal);
    send(path, Some(&init)).await
}

/// The pauses before each repeat of an operation that got no answer, in ms.
const REPEAT_PAUSES_MS: [u32; 3] = [500, 1_500, 3_000];

/// A state-changing call as a named operation (`core::api::operations`): when no answer
/// comes (the connection dropped, the instance died), the same request is sent again
/// under the same id, a few times; the edge answers what the first one did instead of
/// doing it twice, or runs an install again that an instance's death interrupted.
/// Aborting `signal` stops repeating.
async fn post_operation<B: Serialize, T: DeserializeOwned>(
    path: &str,
    body: &B,
    signal: Option<&web_sys::AbortSignal>,
) -> Result<T, EdgeError> {
    let operation = format!("{}{}", crate::browser::new_id(), crate::browser::new_id());
    let mut answer = post_named(path, body, signal, Some(&operation)).await;
    for pause in REPEAT_PAUSES_MS {
        let lost = matches!(answer, Err(EdgeError::Unreachable | EdgeError::Offline));
        if !lost || signal.is_some_and(web_sys::AbortSignal::aborted) {
            break;
        }
        gloo_timers::future::TimeoutFuture::new(pause).await;
        answer = post_named(path, body, signal, Some(&operation)).await;
    }
    answer
}

/// `GET /api/config`'s answer as text, asked once per page (a failed request is not
/// kept, so a later call retries). Each caller reads the part it needs: the first
/// screen only the operator's providers ([`fetch_server_providers`]), so the code that
/// reads the rest ([`fetch_config`]) loads with the screens that use it.
async fn config_text() -> Result<std::rc::Rc<str>, EdgeError> {
    thread_local! {
        static CONFIG: std::cell::RefCell<Option<std::rc::Rc<str>>> = const { std::cell::RefCell::new(None) };
    }
    if let Some(text) = CONFIG.with(|c| c.borrow().clone()) {
        return Ok(text);
    }
    let (status, text) = send_text("/api/config", None).await?;
    // Only an answer this app can read is kept.
    serde_json::from_str::<ConfigProviders>(&text).map_err(|_| EdgeError::Unexpected(status))?;
    let text: std::rc::Rc<str> = text.into();
    CONFIG.with(|c| *c.borrow_mut() = Some(text.clone()));
    Ok(text)
}

/// The operator's providers (`GET /api/config`, shared with [`fetch_config`]).
pub async fn fetch_server_providers() -> Result<Vec<ServerProvider>, EdgeError> {
    let text = config_text().await?;
    serde_json::from_str::<ConfigProviders>(&text)
        .map(|part| part.server_providers)
        .map_err(|_| EdgeError::Unexpected(200))
}

/// `GET /api/config`, asked once per page: the providers, the stream deadline and the
/// About tab share the answer.
pub async fn fetch_config() -> Result<PublicConfig, EdgeError> {
    let text = config_text().await?;
    serde_json::from_str(&text).map_err(|_| EdgeError::Unexpected(200))
}

/// `GET /api/access/session`.
pub async fn fetch_access_session() -> Result<AccessSession, EdgeError> {
    get_json("/api/access/session").await
}

/// `POST /api/access/verify`.
pub async fn verify_access_password(password: String) -> Result<AccessSession, EdgeError> {
    post_json("/api/access/verify", &AccessVerifyRequest { password }).await
}

/// `GET /api/byok/public-key`.
pub async fn fetch_byok_public_key() -> Result<PublicKeyResponse, EdgeError> {
    get_json("/api/byok/public-key").await
}

/// `POST /api/providers/models`.
pub async fn list_models(request: &ModelListRequest) -> Result<ModelListResponse, EdgeError> {
    post_json("/api/providers/models", request).await
}

/// `GET /api/health`.
pub async fn fetch_health() -> Result<HealthReport, EdgeError> {
    get_json("/api/health").await
}

/// `GET /api/plugins/list`.
pub async fn list_plugins() -> Result<PluginListResponse, EdgeError> {
    get_json("/api/plugins/list").await
}

/// `POST /api/plugins/install`, as a named operation.
pub async fn install_plugin(
    request: &PluginInstallRequest,
) -> Result<PluginInstallResponse, EdgeError> {
    post_operation("/api/plugins/install", request, None).await
}

/// `POST /api/plugins/uninstall`, as a named operation.
pub async fn uninstall_plugin(plugin_id: &str) -> Result<serde_json::Value, EdgeError> {
    post_operation(
        "/api/plugins/uninstall",
        &PluginUninstallRequest {
            plugin_id: plugin_id.to_string(),
        },
        None,
    )
    .await
}

/// `POST /api/plugins/execute`, as a named operation; aborting `signal` cancels the call
/// on the edge too.
pub async fn execute_plugin(
    request: &PluginExecuteRequest,
    signal: Option<&web_sys::AbortSignal>,
) -> Result<PluginExecuteResponse, EdgeError> {
    post_operation("/api/plugins/execute", request, signal).await
}

/// `POST /api/search`: one web search; aborting `signal` cancels it.
pub async fn web_search(
    request: &hearth_core::api::web_search::WebSearchRequest,
    signal: &web_sys::AbortSignal,
) -> Result<hearth_core::api::web_search::WebSearchResponse, EdgeError> {
    post_named("/api/search", request, Some(signal), None).await
}

/// `POST /api/voice/speech`: `request.text` read aloud, as audio; aborting `signal`
/// cancels it.
pub async fn voice_speech(
    request: &hearth_core::voice::SpeechRequest,
    signal: &web_sys::AbortSignal,
) -> Result<web_sys::Blob, EdgeError> {
    let body = serde_json::to_string(request).map_err(|_| EdgeError::Unexpected(0))?;
    let headers = web_sys::Headers::new().map_err(|_| EdgeError::Unexpected(0))?;
    headers
        .set("content-type", "application/json")
        .map_err(|_| EdgeError::Unexpected(0))?;
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&body));
    init.set_signal(Some(signal));
    let response = JsFuture::from(window().fetch_with_str_and_init("/api/voice/speech", &init))
        .await
        .map_err(|_| EdgeError::no_response())?
        .dyn_into::<web_sys::Response>()
        .map_err(|_| EdgeError::no_response())?;
    let status = response.status();
    if !response.ok() {
        let text = read_capped_text(&response, MAX_ANSWER_BYTES)
            .await
            .map_err(|_| EdgeError::Unexpected(status))?;
        return Err(error_answer(status, text).await);
    }
    // Bounded by the edge, which reads at most `MAX_SPEECH_ANSWER_BYTES` from the service.
    let blob = response.blob().map_err(|_| EdgeError::Unexpected(status))?;
    JsFuture::from(blob)
        .await
        .map_err(|_| EdgeError::no_response())?
        .dyn_into::<web_sys::Blob>()
        .map_err(|_| EdgeError::Unexpected(status))
}

/// `POST /api/voice/transcriptions`: the recording `audio` turned into text by
/// `service`, in `language` when known.
pub async fn voice_transcribe(
    audio: &web_sys::Blob,
    service: &hearth_core::voice::VoiceService,
    language: &str,
) -> Result<hearth_core::voice::TranscriptionResponse, EdgeError> {
    let unexpected = |_| EdgeError::Unexpected(0);
    let form = web_sys::FormData::new().map_err(unexpected)?;
    let service = serde_json::to_string(service).map_err(|_| EdgeError::Unexpected(0))?;
    form.append_with_str("service", &service)
        .map_err(unexpected)?;
    if !language.is_empty() {
        form.append_with_str("language", language)
            .map_err(unexpected)?;
    }
    form.append_with_blob_and_filename("audio", audio, "speech.webm")
        .map_err(unexpected)?;
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&form);
    send("/api/voice/transcriptions", Some(&init)).await
}

/// `POST /api/doc-parse`: uploads `file` (named `name`) with the text `fields` (the
/// parser and its credential; none: the edge's own parser).
pub async fn start_doc_parse(
    file: &web_sys::Blob,
    name: &str,
    fields: &[(&str, String)],
) -> Result<hearth_core::api::doc_parse::DocParseStarted, EdgeError> {
    let form = web_sys::FormData::new().map_err(|_| EdgeError::Unexpected(0))?;
    form.append_with_blob_and_filename("file", file, name)
        .map_err(|_| EdgeError::Unexpected(0))?;
    for (field, value) in fields {
        form.append_with_str(field, value)
            .map_err(|_| EdgeError::Unexpected(0))?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&form);
    send("/api/doc-parse", Some(&init)).await
}

/// `GET` or `DELETE /api/doc-parse/jobs/:id` with the job's secret in its header.
async fn doc_parse_job<T: DeserializeOwned>(
    method: &str,
    id: &str,
    secret: &str,
) -> Result<T, EdgeError> {
    let headers = web_sys::Headers::new().map_err(|_| EdgeError::Unexpected(0))?;
    headers
        .set(hearth_core::api::doc_parse::JOB_SECRET_HEADER, secret)
        .map_err(|_| EdgeError::Unexpected(0))?;
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    init.set_headers(&headers);
    let path = format!("/api/doc-parse/jobs/{}", js_sys::encode_uri_component(id));
    send(&path, Some(&init)).await
}

/// A parse job's state (a finished job answers once).
pub async fn poll_doc_parse(
    id: &str,
    secret: &str,
) -> Result<hearth_core::api::doc_parse::DocParseJob, EdgeError> {
    doc_parse_job("GET", id, secret).await
}

/// Cancels a parse job.
pub async fn cancel_doc_parse(id: &str, secret: &str) -> Result<(), EdgeError> {
    doc_parse_job::<hearth_core::api::doc_parse::DocParseDeleted>("DELETE", id, secret)
        .await
        .map(drop)
}

/// `POST /api/mcp/prompts`: an installed MCP server's prompts listed, or one got (the
/// server's JSON result, read by `hearth_core::plugin::mcp_prompt`).
pub async fn mcp_prompts(
    request: &hearth_core::api::McpPromptsRequest,
) -> Result<serde_json::Value, EdgeError> {
    post_named("/api/mcp/prompts", request, None, None).await
}

/// `POST /api/plugins/refresh`: an installed MCP server's tools listed again.
pub async fn refresh_plugin(
    request: &hearth_core::api::PluginRefreshRequest,
) -> Result<hearth_core::api::PluginRefreshResponse, EdgeError> {
    post_json("/api/plugins/refresh", request).await
}

/// `POST /api/mcp/oauth/discover`: how to sign in to the MCP server at `server_url`,
/// probed with its plain `headers`.
pub async fn oauth_discover(
    server_url: &str,
    headers: std::collections::BTreeMap<String, String>,
) -> Result<hearth_core::plugin::oauth::SignInPlan, EdgeError> {
    let request = hearth_core::api::mcp_oauth::OauthDiscoverRequest {
        server_url: server_url.to_string(),
        headers,
    };
    post_json("/api/mcp/oauth/discover", &request).await
}

/// `POST /api/mcp/oauth/register`: Hearth registered as a client of the server's
/// authorization server.
pub async fn oauth_register(
    request: &hearth_core::api::mcp_oauth::OauthRegisterRequest,
) -> Result<hearth_core::plugin::oauth::client::Client, EdgeError> {
    post_json("/api/mcp/oauth/register", request).await
}

/// `POST /api/mcp/oauth/token`: a code exchanged, or tokens refreshed.
pub async fn oauth_token(
    request: &hearth_core::api::mcp_oauth::OauthTokenRequest,
) -> Result<hearth_core::plugin::oauth::flow::Tokens, EdgeError> {
    post_json("/api/mcp/oauth/token", request).await
}

/// `POST /api/mcp/oauth/revoke`: a sign-in's grant revoked at its authorization server.
pub async fn oauth_revoke(
    request: &hearth_core::api::mcp_oauth::OauthRevokeRequest,
) -> Result<(), EdgeError> {
    post_json::<_, serde_json::Value>("/api/mcp/oauth/revoke", request)
        .await
        .map(|_| ())
}

/// `POST /api/mcp/resources`: an installed MCP server's resources listed, or one read
/// (the server's JSON result, read by `hearth_core::plugin::mcp_resource`).
pub async fn mcp_resources(
    request: &hearth_core::api::McpResourcesRequest,
) -> Result<serde_json::Value, EdgeError> {
    post_named("/api/mcp/resources", request, None, None).await
}

/// `GET /api/mcp/servers`: one page of the official MCP registry, `search` and `cursor`
/// URL-encoded.
pub async fn browse_mcp_registry(
    search: &str,
    cursor: Option<&str>,
) -> Result<hearth_core::api::McpServersResponse, EdgeError> {
    let mut query = Vec::new();
    if !search.trim().is_empty() {
        query.push(format!(
            "search={}",
            js_sys::encode_uri_component(search.trim())
        ));
    }
    if let Some(cursor) = cursor {
        query.push(format!("cursor={}", js_sys::encode_uri_component(cursor)));
    }
    let path = if query.is_empty() {
        "/api/mcp/servers".to_string()
    } else {
        format!("/api/mcp/servers?{}", query.join("&"))
    };
    get_json(&path).await
}
