//! Remote MCP servers over streamable HTTP, with the `rmcp` client running on the edge's
//! checked HTTP client: the server URL passes the URL policy, every address it resolves
//! to is checked, there is no proxy and no automatic redirect, and every exchange has a
//! deadline. Install discovers a server (`initialize`, `tools/list`, whether it offers
//! resources and prompts); a call opens a session, runs `tools/call` and closes it, so a
//! server that restarted since install never leaves a stale session behind. No stdio
//! servers: the edge never spawns a process. Every request carries the plugin's plain
//! headers and its credential where its auth says (bearer, a named header, basic).

use std::collections::BTreeMap;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use hearth_core::plugin::{Auth, AuthPlacement};

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, GetPromptRequestParams, JsonObject, ReadResourceRequestParams,
};
use rmcp::service::{RoleClient, RunningService};
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
    /// It did not answer in time.
    #[error("the MCP server did not answer within {0:?}")]
    Timeout(Duration),
    /// Anything else.
    #[error("the MCP server failed: {0}")]
    Failed(String),
}

impl McpError {
    /// The error in the API's shape.
    pub fn to_api_error(&self) -> hearth_core::api::ApiError {
        use hearth_core::api::{ApiError, ErrorCode};
        match self {
            Self::Blocked(error) => error.to_api_error(),
            // `serverAuth`: the server refused (sign in, or add its token), not the
            // envelope.
            Self::AuthRequired => ApiError::new(
                ErrorCode::AuthError,
                "This MCP server requires authorization (auth required); sign in or add its token",
            )
            .with_details(serde_json::json!({ "reason": "serverAuth" })),
            Self::Refused(_) => ApiError::new(ErrorCode::UrlBlocked, self.to_string()),
            Self::Timeout(_) => ApiError::new(ErrorCode::ResponseTimeout, self.to_string()),
            Self::Failed(_) => ApiError::new(ErrorCode::UpstreamError, self.to_string()),
        }
    }
}

fn classify(text: String) -> McpError {
    let lower = text.to_ascii_lowercase();
    if lower.contains("401") || lower.contains("unauthorized") || lower.contains("auth required") {
        McpError::AuthRequired
    } else if lower.contains("is not allowed") {
        McpError::Refused(text)
    } else {
        McpError::Failed(text)
    }
}

/// How requests to a server are authenticated and what plain headers they carry.
#[derive(Debug, Clone, Copy)]
pub struct Access<'a> {
    /// Where the credential goes.
    pub auth: &'a Auth,
    /// The credential, opened from its envelope for this request only.
    pub secret: Option<&'a str>,
    /// Plain headers (checked by `core::plugin::mcp::check_headers`).
    pub headers: &'a BTreeMap<String, String>,
}

fn header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), McpError> {
    let name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| McpError::Failed(format!("`{name}` is not a header name")))?;
    let value = HeaderValue::from_str(value)
        .map_err(|_| McpError::Failed(format!("the value of `{name}` is not a header value")))?;
    Ok((name, value))
}

async fn connect(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
) -> Result<RunningService<RoleClient, ()>, McpError> {
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
    let transport = StreamableHttpClientTransport::with_client(
        fetch.http_client(Target::UserConfigured),
        config,
    );
    ().serve(transport)
        .await
        .map_err(|e| classify(e.to_string()))
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
    /// Its `tools/list`, as JSON.
    pub tools: Vec<Value>,
    /// Whether it offers resources.
    pub resources: bool,
    /// Whether it offers prompts.
    pub prompts: bool,
}

/// Initializes a session with the server at `url`, lists its tools and closes it.
pub async fn discover(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
) -> Result<Discovered, McpError> {
    within(DISCOVERY_TIMEOUT, async {
        let service = connect(fetch, url, access).await?;
        let info = service.peer_info().map(|i| (*i).clone());
        let capabilities = info.as_ref().map(|i| i.capabilities.clone());
        let tools = if capabilities.as_ref().is_some_and(|c| c.tools.is_some()) {
            service
                .list_all_tools()
                .await
                .map_err(|e| classify(e.to_string()))?
        } else {
            Vec::new()
        };
        let discovered = Discovered {
            server_name: info
                .and_then(|i| i.server_info.as_ref().map(|s| s.name.clone()))
                .unwrap_or_else(|| "mcp".into()),
            tools: tools
                .iter()
                .filter_map(|t| serde_json::to_value(t).ok())
                .collect(),
            resources: capabilities.as_ref().is_some_and(|c| c.resources.is_some()),
            prompts: capabilities.as_ref().is_some_and(|c| c.prompts.is_some()),
        };
        let _ = service.cancel().await;
        Ok(discovered)
    })
    .await
}

/// Calls `tool` with `args` on the server at `url`; the `tools/call` result as JSON.
pub async fn call(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
    tool: &str,
    args: Value,
) -> Result<Value, McpError> {
    within(CALL_TIMEOUT, async {
        let service = connect(fetch, url, access).await?;
        let arguments: JsonObject = match args {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        };
        let result = service
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(arguments))
            .await
            .map_err(|e| classify(e.to_string()));
        let _ = service.cancel().await;
        serde_json::to_value(result?).map_err(|e| McpError::Failed(e.to_string()))
    })
    .await
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

/// Runs one resources or prompts request on the server at `url`; its result as JSON.
pub async fn browse(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
    what: Browse,
) -> Result<Value, McpError> {
    within(DISCOVERY_TIMEOUT, async {
        let service = connect(fetch, url, access).await?;
        let failed = |e: rmcp::ServiceError| classify(e.to_string());
        let to_json =
            |v: Result<Value, serde_json::Error>| v.map_err(|e| McpError::Failed(e.to_string()));
        let result = match what {
            Browse::Resources => {
                service
                    .list_all_resources()
                    .await
                    .map_err(failed)
                    .and_then(|mut all| {
                        all.truncate(MAX_LISTED);
                        to_json(
                            serde_json::to_value(all)
                                .map(|a| serde_json::json!({ "resources": a })),
                        )
                    })
            }
            Browse::ReadResource(uri) => service
                .read_resource(ReadResourceRequestParams::new(uri))
                .await
                .map_err(failed)
                .and_then(|r| to_json(serde_json::to_value(r))),
            Browse::Prompts => {
                service
                    .list_all_prompts()
                    .await
                    .map_err(failed)
                    .and_then(|mut all| {
                        all.truncate(MAX_LISTED);
                        to_json(
                            serde_json::to_value(all).map(|a| serde_json::json!({ "prompts": a })),
                        )
                    })
            }
            Browse::GetPrompt(name, arguments) => {
                let mut params = GetPromptRequestParams::new(name);
                params.arguments = Some(arguments);
                service
                    .get_prompt(params)
                    .await
                    .map_err(failed)
                    .and_then(|r| to_json(serde_json::to_value(r)))
            }
        };
        let _ = service.cancel().await;
        result
    })
    .await
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
    }
}
