//! The MCP registry client behind `GET /api/mcp/servers`: the app's window on the
//! official MCP registry (`https://registry.modelcontextprotocol.io`, or the operator's
//! mirror in `HEARTH_MCP_REGISTRY_URL`).
//!
//! This module owns the registry client; the route's handler is `api::mcp`. One request
//! of the app is one registry request (`{base}/v0.1/servers`, query built by
//! `core::api::mcp_registry`, every value form-encoded), sent through `safe_fetch` with
//! its own policy and bounds: HTTPS only on every hop (a fixed registry is never reached
//! over plain HTTP), 15 s for the whole exchange, 4 MiB of body. The registry URL is the
//! operator's choice, so, like `DEFAULT_PROVIDER_BASE_URL`, it may be a private address
//! (a mirror on the LAN) in either mode; cloud metadata addresses stay refused. The answer
//! is mapped to the bounded `McpServersResponse` in `core`; the raw page never reaches the
//! browser. Failures are API errors: the fetch's own (`URL_BLOCKED`, `RESPONSE_TIMEOUT`,
//! `RESPONSE_SIZE_LIMIT`, `TOO_MANY_REDIRECTS`, `UPSTREAM_UNREACHABLE`), an error status
//! or an unreadable page (`UPSTREAM_ERROR`), a bad query (`BAD_REQUEST`).

use std::sync::Arc;
use std::time::Duration;

use hearth_core::api::mcp_registry::{check_registry_url, parse_registry_page, registry_policy};
use hearth_core::api::{ApiError, ErrorCode, McpServersQuery, McpServersResponse};
use hearth_core::url_policy::{Policies, Target};
use reqwest::Url;
use reqwest::header::{ACCEPT, HeaderValue};
use serde_json::json;

use crate::safe_fetch::{FetchError, Limits, OutboundRequest, SafeFetch};

/// Deadline of one registry exchange.
pub const TIMEOUT: Duration = Duration::from_secs(15);
/// Largest registry page read, in bytes.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The registry client: its base URL and an HTTPS-only outbound client.
#[derive(Clone)]
pub struct McpRegistry {
    base: Arc<str>,
    fetch: SafeFetch,
}

impl McpRegistry {
    /// A client for the registry at `base` (checked by `Config::validate` at startup).
    pub fn new(base: &str) -> Result<Self, FetchError> {
        let limits = Limits {
            timeout: TIMEOUT,
            max_body_bytes: MAX_BODY_BYTES,
            ..Limits::default()
        };
        Ok(Self {
            base: Arc::from(base.trim()),
            fetch: SafeFetch::new(Policies::uniform(registry_policy()), limits)?,
        })
    }

    /// One page of the registry for `query`.
    pub async fn list(&self, query: &McpServersQuery) -> Result<McpServersResponse, ApiError> {
        let base: Url = check_registry_url(&self.base)
            .map_err(|error| ApiError::new(ErrorCode::ServiceUnavailable, error.to_string()))?;
        let url = query
            .registry_url(&base)
            .map_err(|error| ApiError::new(ErrorCode::BadRequest, error.to_string()))?;
        let mut request = OutboundRequest::get(Target::OperatorConfigured, url.as_str());
        request
            .headers
            .push((ACCEPT, HeaderValue::from_static("application/json")));
        let response = self
            .fetch
            .fetch(request)
            .await
            .map_err(|error| error.to_api_error())?;
        if !response.status.is_success() {
            let status = response.status.as_u16();
            return Err(ApiError::new(
                ErrorCode::UpstreamError,
                format!("The MCP registry answered HTTP {status}"),
            )
            .with_details(json!({ "upstreamStatus": status })));
        }
        parse_registry_page(&response.body).map_err(|error| {
            ApiError::new(
                ErrorCode::UpstreamError,
                "The MCP registry's answer is unreadable",
            )
            .with_details(json!({ "reason": error.to_string() }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_is_https_only_and_bounded() {
        // Every hop, redirects included, passes this policy.
        assert!(
            registry_policy()
                .check_url("http://registry.example.com/")
                .is_err()
        );
        let registry = McpRegistry::new("https://registry.example.com").unwrap();
        assert_eq!(registry.fetch.limits().timeout, TIMEOUT);
        assert_eq!(registry.fetch.limits().max_body_bytes, MAX_BODY_BYTES);
    }
}
