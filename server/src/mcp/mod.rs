//! Remote MCP servers over streamable HTTP, with the `rmcp` client running on the edge's
//! checked HTTP client: the server URL passes the URL policy, every address it resolves
//! to is checked, there is no proxy and no automatic redirect, and every exchange has a
//! deadline. Install discovers a server (its revision, `tools/list`, whether it offers
//! resources and prompts); every later exchange is self-contained (one request under the
//! stateless revision, a fresh session closed at once under the handshake), so a server
//! that restarted since install keeps working. [`session`] decides the revision. No stdio
//! servers: the edge never spawns a process. Every request carries the plugin's plain
//! headers and its credential where its auth says (bearer, a named header, basic).

pub mod held;
pub mod session;
mod tool_call;

pub use tool_call::{Called, HeldToolCalls, Replies, ToolCall, call};

use std::collections::BTreeMap;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use hearth_core::plugin::{Auth, AuthPlacement};

use rmcp::model::{GetPromptRequestParams, JsonObject, ReadResourceRequestParams};
use rmcp::service::MergedList;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::Value;

use hearth_core::url_policy::Target;

use crate::safe_fetch::SafeFetch;

/// How long discovery may take.
const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one tool call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest JSON answer read from a server.
const MAX_RESPONSE_BYTES: usize = 4 * 1024 * 1024;

/// Why talking to an MCP server failed.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The URL is not allowed.
    #[error("{0}")]
    Blocked(crate::safe_fetch::FetchError),
    /// An address the server's name resolved to is not allowed (found by the resolver,
    /// whose refusal reaches us only as the transport's error text).
    #[error("the target is not allowed: {0}")]
    Refused(String),
    /// The server wants credentials.
    #[error("this MCP server requires authorization")]
    AuthRequired,
    /// The credential is good but does not reach far enough: the server wants `scope`
    /// (a 403 with a Bearer challenge `error="insufficient_scope"`).
    #[error("this MCP server needs more access ({})", .0.as_deref().unwrap_or("a wider scope"))]
    InsufficientScope(Option<String>),
    /// It did not answer in time.
    #[error("the MCP server did not answer within {0:?}")]
    Timeout(Duration),
    /// It could not be reached (connection refused, no such name, TLS failed); the
    /// transport's words are logged, not answered.
    #[error("the MCP server could not be reached")]
    Unreachable(String),
    /// A question held on an edge for the user is no longer there (it expired, this
    /// edge restarted, or another instance took the answer).
    #[error("this question is no longer open on the edge; call the tool again")]
    Expired,
    /// Anything else.
    #[error("the MCP server failed: {0}")]
    Failed(String),
}

impl McpError {
    /// The error in the API's shape.
    pub fn to_api_error(&self) -> hearth_core::api::ApiError {
        use hearth_core::api::{
            ApiError, ErrorCode, REASON_INSUFFICIENT_SCOPE, REASON_SERVER_AUTH,
        };
        match self {
            Self::Blocked(error) => error.to_api_error(),
            // `serverAuth`: the server refused (sign in, or add its token), not the
            // envelope.
            Self::AuthRequired => ApiError::new(
                ErrorCode::AuthError,
                "This MCP server requires authorization (auth required); sign in or add its token",
            )
            .with_details(serde_json::json!({ "reason": REASON_SERVER_AUTH })),
            // `insufficientScope`: signing in again, asking for `scope`, would do.
            Self::InsufficientScope(scope) => ApiError::new(
                ErrorCode::AuthError,
                "This MCP server needs more access than it was given; sign in again to allow it",
            )
            .with_details(
                serde_json::json!({ "reason": REASON_INSUFFICIENT_SCOPE, "scope": scope }),
            ),
            Self::Refused(_) => ApiError::new(ErrorCode::UrlBlocked, self.to_string()),
            Self::Timeout(_) => ApiError::new(ErrorCode::ResponseTimeout, self.to_string()),
            Self::Unreachable(_) => ApiError::new(
                ErrorCode::UpstreamUnreachable,
                "The MCP server could not be reached; check that it is running and its address",
            ),
            Self::Expired => ApiError::new(ErrorCode::NotFound, self.to_string()),
            Self::Failed(_) => ApiError::new(ErrorCode::UpstreamError, self.to_string()),
        }
    }
}

/// What a transport's error text means. The server's URL is left out of the reading: a
/// port such as 34017 holds "401".
pub(crate) fn classify(text: String) -> McpError {
    let lower = without_urls(&text).to_ascii_lowercase();
    if lower.contains("is not allowed") {
        McpError::Refused(text)
    } else if UNREACHABLE.iter().any(|sign| lower.contains(sign)) {
        // Never reached the server, so never its refusal either.
        tracing::warn!("MCP server unreachable: {text}");
        McpError::Unreachable(text)
    } else if lower.contains("401")
        || lower.contains("unauthorized")
        || lower.contains("auth required")
    {
        McpError::AuthRequired
    } else {
        McpError::Failed(text)
    }
}

/// `text` with every `http://…` and `https://…` word taken out.
fn without_urls(text: &str) -> String {
    text.split_whitespace()
        .filter(|word| {
            let word = word.trim_start_matches(['(', '[', '<', '"', '\'']);
            !(word.starts_with("http://") || word.starts_with("https://"))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// How reqwest and hyper word a request that never reached the server.
const UNREACHABLE: [&str; 5] = [
    "error sending request",
    "connection refused",
    "tcp connect error",
    "dns error",
    "failed to lookup address",
];

/// How requests to a server are authenticated and what plain headers they carry.
#[derive(Debug, Clone, Copy)]
pub struct Access<'a> {
    /// Where the credential goes.
    pub auth: &'a Auth,
    /// The credential, opened from its envelope for this request only.
    pub secret: Option<&'a str>,
    /// Plain headers (checked by `core::plugin::mcp::check_headers`).
    pub headers: &'a BTreeMap<String, String>,
    /// The protocol revision remembered for this server (`None`: negotiate one).
    pub revision: Option<&'a str>,
}

impl Access<'_> {
    /// The same access, owned (for a call that runs in a task of its own).
    pub fn to_owned(&self) -> OwnedAccess {
        OwnedAccess {
            auth: self.auth.clone(),
            secret: self.secret.map(str::to_string),
            headers: self.headers.clone(),
            revision: self.revision.map(str::to_string),
        }
    }
}

/// [`Access`] owned.
#[derive(Debug, Clone)]
pub struct OwnedAccess {
    auth: Auth,
    secret: Option<String>,
    headers: BTreeMap<String, String>,
    revision: Option<String>,
}

impl OwnedAccess {
    /// It as an [`Access`].
    pub fn access(&self) -> Access<'_> {
        Access {
            auth: &self.auth,
            secret: self.secret.as_deref(),
            headers: &self.headers,
            revision: self.revision.as_deref(),
        }
    }
}

fn header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), McpError> {
    let name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| McpError::Failed(format!("`{name}` is not a header name")))?;
    let value = HeaderValue::from_str(value)
        .map_err(|_| McpError::Failed(format!("the value of `{name}` is not a header value")))?;
    Ok((name, value))
}

/// The transport to the server at `url`, with the access's headers and credential.
fn connection(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, McpError> {
    // The user installed this server: a user-configured target.
    fetch
        .check_url(Target::UserConfigured, url)
        .map_err(McpError::Blocked)?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    config.max_json_response_size = MAX_RESPONSE_BYTES;
    config.reinit_on_expired_session = true;
    for (name, value) in access.headers {
        let (name, value) = header(name, value)?;
        config.custom_headers.insert(name, value);
    }
    if let Some(secret) = access.secret {
        match access.auth {
            Auth::ApiKey {
                name,
                placement: AuthPlacement::Header,
            } => {
                let (name, value) = header(name, secret)?;
                config.custom_headers.insert(name, value);
            }
            Auth::Basic => {
                use base64::Engine as _;
                let encoded = base64::engine::general_purpose::STANDARD.encode(secret);
                let (name, value) = header("authorization", &format!("Basic {encoded}"))?;
                config.custom_headers.insert(name, value);
            }
            // Bearer and OAuth 2 tokens (and anything else) as a bearer token.
            _ => config.auth_header = Some(secret.to_string()),
        }
    }
    Ok(StreamableHttpClientTransport::with_client(
        fetch.http_client(Target::UserConfigured),
        config,
    ))
}

async fn within<T>(
    limit: Duration,
    work: impl std::future::Future<Output = Result<T, McpError>>,
) -> Result<T, McpError> {
    tokio::time::timeout(limit, work)
        .await
        .map_err(|_| McpError::Timeout(limit))?
}

/// What an MCP server offers.
#[derive(Debug, Clone)]
pub struct Discovered {
    /// The server's own name.
    pub server_name: String,
    /// The protocol revision it speaks (negotiated: the stateless one when it can), when
    /// it is a known one.
    pub revision: Option<String>,
    /// Its `tools/list`, as JSON.
    pub tools: Vec<Value>,
    /// How long that list keeps, when the server said (2026-07-28's `ttlMs`).
    pub tools_ttl_ms: Option<u64>,
    /// Whether it offers resources.
    pub resources: bool,
    /// Whether it offers prompts.
    pub prompts: bool,
}

/// Finds what the server at `url` offers and lists its tools, in the revision `access`
/// remembers (`None` at install: negotiated).
pub async fn discover(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
) -> Result<Discovered, McpError> {
    within(DISCOVERY_TIMEOUT, async {
        let answered = session::exchange(fetch, url, access, |peer| async move {
            let offers_tools = peer
                .peer_info()
                .is_some_and(|i| i.capabilities.tools.is_some());
            if offers_tools {
                let listed = peer.list_all_tools_with_cache_hint().await?;
                Ok((listed.items, listed.ttl_ms))
            } else {
                Ok((Vec::new(), None))
            }
        })
        .await?;
        let server = answered.server.as_ref();
        let capabilities = server.map(|i| &i.capabilities);
        Ok(Discovered {
            server_name: server
                .and_then(|i| i.server_info.as_ref().map(|s| s.name.clone()))
                .unwrap_or_else(|| "mcp".into()),
            revision: answered.revision.clone(),
            tools: answered
                .value
                .0
                .iter()
                .filter_map(|t| serde_json::to_value(t).ok())
                .collect(),
            tools_ttl_ms: answered.value.1,
            resources: capabilities.is_some_and(|c| c.resources.is_some()),
            prompts: capabilities.is_some_and(|c| c.prompts.is_some()),
        })
    })
    .await
}

/// A server's answer as JSON, and the revision it was given in.
#[derive(Debug)]
pub struct Answer {
    /// The result.
    pub value: Value,
    /// The revision the server spoke, when it is a known one.
    pub revision: Option<String>,
}

fn to_json(value: Result<Value, serde_json::Error>) -> Result<Value, McpError> {
    value.map_err(|e| McpError::Failed(e.to_string()))
}

/// The most resources or prompts listed.
const MAX_LISTED: usize = 200;

/// A resources or prompts request.
#[derive(Debug, Clone)]
pub enum Browse {
    /// `resources/list`.
    Resources,
    /// `resources/read`.
    ReadResource(String),
    /// `prompts/list`.
    Prompts,
    /// `prompts/get` with string arguments.
    GetPrompt(String, JsonObject),
}

/// A merged list as `{<key>: [...], ttlMs?, cacheScope?}`: at most [`MAX_LISTED`] items,
/// with the server's caching hint (2026-07-28) when it gave one.
fn listed<T: serde::Serialize>(key: &str, mut list: MergedList<T>) -> Result<Value, McpError> {
    list.items.truncate(MAX_LISTED);
    let mut value = serde_json::json!({ key: to_json(serde_json::to_value(list.items))? });
    if let Some(ttl_ms) = list.ttl_ms {
        value["ttlMs"] = ttl_ms.into();
    }
    if let Some(scope) = list.cache_scope {
        value["cacheScope"] = to_json(serde_json::to_value(scope))?;
    }
    Ok(value)
}

/// Runs one resources or prompts request on the server at `url`; its result as JSON.
pub async fn browse(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
    what: Browse,
) -> Result<Answer, McpError> {
    within(DISCOVERY_TIMEOUT, async {
        let what = &what;
        let answered = session::exchange(fetch, url, access, |peer| async move {
            let to_value = |v: Result<Value, serde_json::Error>| {
                v.map_err(|e| {
                    rmcp::ServiceError::McpError(rmcp::ErrorData::internal_error(
                        e.to_string(),
                        None,
                    ))
                })
            };
            Ok(match what {
                Browse::Resources => {
                    Listed::Resources(peer.list_all_resources_with_cache_hint().await?)
                }
                Browse::ReadResource(uri) => Listed::Value(to_value(serde_json::to_value(
                    peer.read_resource(ReadResourceRequestParams::new(uri.clone()))
                        .await?,
                ))?),
                Browse::Prompts => Listed::Prompts(peer.list_all_prompts_with_cache_hint().await?),
                Browse::GetPrompt(name, arguments) => {
                    let mut params = GetPromptRequestParams::new(name.clone());
                    params.arguments = Some(arguments.clone());
                    Listed::Value(to_value(serde_json::to_value(
                        peer.get_prompt(params).await?,
                    ))?)
                }
            })
        })
        .await?;
        let value = match answered.value {
            Listed::Resources(list) => listed("resources", list)?,
            Listed::Prompts(list) => listed("prompts", list)?,
            Listed::Value(value) => value,
        };
        Ok(Answer {
            value,
            revision: answered.revision,
        })
    })
    .await
}

/// What one browse request got back, before it is shaped as JSON.
enum Listed {
    Resources(MergedList<rmcp::model::Resource>),
    Prompts(MergedList<rmcp::model::Prompt>),
    Value(Value),
}

#[cfg(test)]
mod tests {
    use super::*;
    use hearth_core::api::ErrorCode;

    #[test]
    fn transport_errors_keep_their_meaning() {
        let refused = classify(
            "Transport send error: error sending request: the address 10.0.0.7 is not allowed (Private)"
                .into(),
        );
        assert_eq!(refused.to_api_error().code, ErrorCode::UrlBlocked);
        let auth = classify("Auth required: HTTP 401 Unauthorized".into());
        assert_eq!(auth.to_api_error().code, ErrorCode::AuthError);
        let other = classify("connection reset by peer".into());
        assert_eq!(other.to_api_error().code, ErrorCode::UpstreamError);
        // A server that is not there: said plainly, without the transport's type names.
        let down = classify(
            "[rmcp::transport::worker::WorkerTransport<rmcp::transport::streamable_http_client::StreamableHttpClientWorker<reqwest::Client>>] error: Client error: error sending request for url (http://127.0.0.1:9/mcp)".into(),
        )
        .to_api_error();
        assert_eq!(down.code, ErrorCode::UpstreamUnreachable);
        assert!(!down.error.contains("rmcp::"), "{}", down.error);
        // The same on a port that holds "401", and a refusal's other words with one.
        for port in ["34015", "40100", "14013"] {
            let text = format!(
                "error: Client error: error sending request for url (http://127.0.0.1:{port}/mcp)"
            );
            assert_eq!(
                classify(text).to_api_error().code,
                ErrorCode::UpstreamUnreachable
            );
            let text = format!(
                "Transport send error: unexpected status at https://mcp.example:{port}/mcp: 500"
            );
            assert_eq!(classify(text).to_api_error().code, ErrorCode::UpstreamError);
        }
        let refused_there =
            classify("error sending request: the address 10.0.0.7 is not allowed (Private)".into());
        assert_eq!(refused_there.to_api_error().code, ErrorCode::UrlBlocked);
    }
}
