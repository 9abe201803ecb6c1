//! The provider service behind `POST /api/chat/relay` and `POST /api/providers/models`:
//! calls to model providers made for the browser, for providers that block browser calls
//! (CORS) and for the ones the operator configured.
//!
//! - [`configured`]: the operator's providers (`DEFAULT_PROVIDER_*`); their URL and key
//!   never leave the edge.
//! - [`resolve`](mod@resolve): a request's provider as something to call (URL policy target, key
//!   opened from its envelope for `provider:<protocol>`), and upstream error messages.
//! - [`stream`]: a reply forwarded in whole events within a size cap and a deadline.
//!
//! The relay builds the provider request with the same `core` builder the browser uses
//! and sends it through `safe_fetch` (URL policy on every hop and address); the stream
//! it answers is the provider's SSE, unchanged. If the browser goes away, the stream is
//! dropped, and with it the upstream connection.

pub mod configured;
pub mod resolve;
pub mod stream;

use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use bytes::Bytes;
use futures_util::Stream;
use hearth_core::api::{ApiError, ErrorCode, ModelListRequest, ModelListResponse, RelayRequest};
use hearth_core::provider::models::{ModelInfo, list_url, parse_list};
use hearth_core::provider::request::{ModelCapabilities, auth_headers};
use reqwest::Method;
use serde_json::json;
use tokio::time::Instant;

use self::configured::ConfiguredProvider;
use self::resolve::{resolve, upstream_error};
use crate::byok::ByokKeys;
use crate::safe_fetch::{OutboundRequest, SafeFetch, read_capped};

/// The most bytes of one relayed reply (the same bound the browser applies).
pub use hearth_core::provider::MAX_STREAM_BYTES;
/// The most bytes of an upstream error body read.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// The provider service. Cheap to clone.
#[derive(Clone)]
pub struct Providers {
    configured: Arc<Vec<ConfiguredProvider>>,
    byok: Option<Arc<ByokKeys>>,
    fetch: SafeFetch,
    relay_timeout: Duration,
}

/// Header pairs as typed headers (invalid ones dropped).
fn to_headers(pairs: Vec<(String, String)>) -> Vec<(HeaderName, HeaderValue)> {
    pairs
        .into_iter()
        .filter_map(|(name, value)| {
            Some((
                HeaderName::try_from(name).ok()?,
                HeaderValue::try_from(value).ok()?,
            ))
        })
        .collect()
}

impl Providers {
    /// The service for the operator's `configured` providers, opening keys with `byok`,
    /// calling out through `fetch`, giving a relayed reply `relay_timeout`.
    pub fn new(
        configured: Vec<ConfiguredProvider>,
        byok: Option<Arc<ByokKeys>>,
        fetch: SafeFetch,
        relay_timeout: Duration,
    ) -> Self {
        Self {
            configured: Arc::new(configured),
            byok,
            fetch,
            relay_timeout,
        }
    }

    /// The operator's providers.
    pub fn configured(&self) -> &[ConfiguredProvider] {
        &self.configured
    }

    /// Opens one streamed model round: the provider's reply in whole events, or why it
    /// could not start (a refusal, the fetch's error, or the provider's error status).
    pub async fn relay(
        &self,
        relay: RelayRequest,
    ) -> Result<impl Stream<Item = Result<Bytes, std::io::Error>> + Send + use<>, ApiError> {
        let resolved = resolve(&self.configured, self.byok.as_deref(), &relay.provider)?;
        let protocol = resolved.endpoint.protocol;
        let built = hearth_core::provider::build::build(
            &resolved.endpoint,
            &relay.request,
            &relay.capabilities,
        )
        .map_err(|error| ApiError::new(ErrorCode::BadRequest, error.to_string()))?;
        let secret_headers = resolved
            .key
            .as_deref()
            .map(|key| to_headers(auth_headers(protocol, key)))
            .unwrap_or_default();
        let outbound = OutboundRequest {
            target: resolved.target,
            method: Method::POST,
            url: built.url,
            headers: to_headers(built.headers),
            secret_headers,
            body: Some(Bytes::from(
                serde_json::to_vec(&built.body).unwrap_or_default(),
            )),
        };
        let response = self
            .fetch
            .open(outbound)
            .await
            .map_err(|error| error.to_api_error())?;
        let status = response.status();
        if !status.is_success() {
            let body = read_capped(response, MAX_ERROR_BODY)
                .await
                .unwrap_or_default();
            return Err(upstream_error(
                status.as_u16(),
                &body,
                resolved.key.as_deref(),
            ));
        }
        let deadline = Instant::now() + self.relay_timeout;
        Ok(stream::whole_events(
            response.bytes_stream(),
            deadline,
            MAX_STREAM_BYTES,
        ))
    }

    /// A provider's models: an operator's provider answers with the models listed for
    /// it, without a call; otherwise the provider's own listing.
    pub async fn models(&self, request: ModelListRequest) -> Result<ModelListResponse, ApiError> {
        if let Some(id) = &request.provider.server_provider_id
            && let Some(configured) = self.configured.iter().find(|p| &p.id == id)
            && !configured.settings.models.is_empty()
        {
            let models = configured
                .settings
                .models
                .iter()
                .map(|id| ModelInfo {
                    id: id.clone(),
                    display_name: None,
                    capabilities: ModelCapabilities::default(),
                })
                .collect();
            return Ok(ModelListResponse { models });
        }
        let resolved = resolve(&self.configured, self.byok.as_deref(), &request.provider)?;
        let protocol = resolved.endpoint.protocol;
        let url = list_url(&resolved.endpoint)
            .map_err(|error| ApiError::new(ErrorCode::BadRequest, error.to_string()))?;
        let outbound = OutboundRequest {
            target: resolved.target,
            method: Method::GET,
            url,
            headers: Vec::new(),
            secret_headers: resolved
                .key
                .as_deref()
                .map(|key| to_headers(auth_headers(protocol, key)))
                .unwrap_or_default(),
            body: None,
        };
        let response = self
            .fetch
            .fetch(outbound)
            .await
            .map_err(|error| error.to_api_error())?;
        if !response.status.is_success() {
            return Err(upstream_error(
                response.status.as_u16(),
                &response.body,
                resolved.key.as_deref(),
            ));
        }
        parse_list(protocol, &String::from_utf8_lossy(&response.body))
            .map(|models| ModelListResponse { models })
            .map_err(|error| {
                ApiError::new(
                    ErrorCode::UpstreamError,
                    "The provider's model list is unreadable",
                )
                .with_details(json!({ "reason": error.to_string() }))
            })
    }
}
