//! Web search on the edge (`POST /api/search`): one query to the deployment's own
//! service or to one of the user's, through `safe_fetch`, answered as cleaned results.
//!
//! - The user's SearXNG instance is a [`Target::UserConfigured`] URL (private in local
//!   mode is fine, public HTTPS only when hosted); the hosted services' bases and the
//!   deployment's own instance are the operator's ([`Target::OperatorConfigured`]).
//! - A user's key arrives sealed for `search:<kind>` and is opened only here; every key
//!   goes out as a secret header (dropped on a redirect to another origin), never in a
//!   URL, and no failure message quotes it (the messages are fixed texts).
//! - The service's documented wire format lives in `hearth_core::web_search::provider`,
//!   so the request and the reading of its answer are tested without a network.

pub mod settings;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hearth_core::api::web_search::{SearchService, WebSearchRequest, WebSearchResponse};
use hearth_core::api::{ApiError, ErrorCode};
use hearth_core::url_policy::Target;
use hearth_core::web_search::capability::DeploymentSearch;
use hearth_core::web_search::provider::{self, Method, Query};
use hearth_core::web_search::{SearchProviderKind, WebSearchError, checked_query};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use serde_json::json;

use self::settings::WebSearchSettings;
use crate::byok::ByokKeys;
use crate::safe_fetch::{Limits, OutboundRequest, SafeFetch};

/// Deadline of one search.
pub const TIMEOUT: Duration = Duration::from_secs(20);
/// Largest answer read from a service.
pub const MAX_ANSWER_BYTES: usize = 2 * 1024 * 1024;

/// The search service of the edge.
#[derive(Clone)]
pub struct WebSearch {
    fetch: SafeFetch,
    byok: Option<Arc<ByokKeys>>,
    settings: Arc<WebSearchSettings>,
    deployment: Arc<DeploymentSearch>,
}

/// One search ready to send: where, to whom, with which key.
struct Prepared {
    kind: SearchProviderKind,
    base: String,
    target: Target,
    key: Option<String>,
    engine_id: Option<String>,
}

impl WebSearch {
    /// The service, from the checked settings.
    pub fn new(
        settings: &WebSearchSettings,
        fetch: SafeFetch,
        byok: Option<Arc<ByokKeys>>,
    ) -> Self {
        Self {
            fetch: fetch.with_limits(Limits {
                timeout: TIMEOUT,
                max_body_bytes: MAX_ANSWER_BYTES,
                ..fetch.limits()
            }),
            byok,
            deployment: Arc::new(settings.deployment()),
            settings: Arc::new(settings.clone()),
        }
    }

    /// The deployment's own service, as `/api/config` and `/api/health` describe it.
    pub fn deployment(&self) -> &DeploymentSearch {
        &self.deployment
    }

    /// Runs `request` (its bounds already checked).
    pub async fn search(&self, request: WebSearchRequest) -> Result<WebSearchResponse, ApiError> {
        let prepared = self.prepare(&request.service)?;
        let query = checked_query(&request.query)
            .ok_or_else(|| ApiError::new(ErrorCode::BadRequest, "The query has no words"))?;
        let count = request.count();
        let asked = provider::request(
            prepared.kind,
            &prepared.base,
            &Query {
                text: &query,
                count,
                language: request.language.as_deref(),
                engine_id: prepared.engine_id.as_deref(),
            },
        )
        .map_err(|error| ApiError::new(ErrorCode::BadRequest, error.to_string()))?;
        let mut outbound = OutboundRequest::get(prepared.target, asked.url);
        outbound
            .headers
            .push((ACCEPT, HeaderValue::from_static("application/json")));
        if let Method::Post = asked.method {
            outbound.method = reqwest::Method::POST;
            outbound
                .headers
                .push((CONTENT_TYPE, HeaderValue::from_static("application/json")));
            outbound.body = asked.body.map(|body| Bytes::from(body.to_string()));
        }
        if let Some((name, value)) = prepared
            .key
            .as_deref()
            .and_then(|key| provider::key_header(prepared.kind, key))
        {
            let value = HeaderValue::from_str(&value).map_err(|_| {
                ApiError::new(
                    ErrorCode::BadRequest,
                    "The search key has characters a header cannot carry",
                )
            })?;
            outbound
                .secret_headers
                .push((HeaderName::from_static(name), value));
        }
        let answer = self
            .fetch
            .fetch(outbound)
            .await
            .map_err(|error| error.to_api_error())?;
        let results =
            provider::read_answer(prepared.kind, answer.status.as_u16(), &answer.body, count)
                .map_err(|error| failure(prepared.kind, &error))?;
        Ok(WebSearchResponse {
            provider: prepared.kind,
            query,
            results,
        })
    }

    fn prepare(&self, service: &SearchService) -> Result<Prepared, ApiError> {
        let operator = |kind: SearchProviderKind| {
            self.settings.base(kind).ok_or_else(|| {
                ApiError::new(
                    ErrorCode::ServiceUnavailable,
                    "This search service has no address",
                )
            })
        };
        Ok(match service {
            SearchService::Default => {
                let kind = self
                    .deployment
                    .kind
                    .filter(|_| self.deployment.ready())
                    .ok_or_else(|| {
                        ApiError::new(
                            ErrorCode::ServiceUnavailable,
                            "This deployment has no search service of its own",
                        )
                        .with_details(json!({ "reason": self.deployment.health().code }))
                    })?;
                Prepared {
                    kind,
                    base: operator(kind)?,
                    target: Target::OperatorConfigured,
                    key: self.settings.key().map(str::to_string),
                    engine_id: Some(self.deployment.google_engine_id.clone()),
                }
            }
            SearchService::Searxng { base_url } => Prepared {
                kind: SearchProviderKind::Searxng,
                base: base_url.trim().to_string(),
                target: Target::UserConfigured,
                key: None,
                engine_id: None,
            },
            SearchService::Keyed { provider, api_key } => Prepared {
                kind: *provider,
                base: operator(*provider)?,
                target: Target::OperatorConfigured,
                key: Some(self.open(api_key, *provider)?),
                engine_id: None,
            },
            SearchService::Google { api_key, engine_id } => Prepared {
                kind: SearchProviderKind::Google,
                base: operator(SearchProviderKind::Google)?,
                target: Target::OperatorConfigured,
                key: Some(self.open(api_key, SearchProviderKind::Google)?),
                engine_id: Some(engine_id.trim().to_string()),
            },
        })
    }

    fn open(
        &self,
        envelope: &hearth_core::byok::Envelope,
        kind: SearchProviderKind,
    ) -> Result<String, ApiError> {
        let keys = self
            .byok
            .as_ref()
            .ok_or_else(|| ApiError::new(ErrorCode::AuthError, "This edge has no BYOK key"))?;
        keys.open(envelope, &kind.key_context()).map_err(|error| {
            ApiError::new(ErrorCode::AuthError, "The key envelope could not be opened")
                .with_details(json!({ "reason": error.to_string() }))
        })
    }
}

/// The 502 for a service's failure: its stable reason, the status it answered, and a
/// fixed message (never the service's own text, which may quote the key).
fn failure(kind: SearchProviderKind, error: &WebSearchError) -> ApiError {
    let status = match error {
        WebSearchError::KeyRefused(status) | WebSearchError::Upstream(status) => Some(*status),
        WebSearchError::RateLimited => Some(429),
        WebSearchError::JsonDisabled => Some(403),
        WebSearchError::Malformed(_) => None,
    };
    ApiError::new(ErrorCode::UpstreamError, error.to_string()).with_details(json!({
        "reason": error.code(),
        "provider": kind.as_str(),
        "upstreamStatus": status,
    }))
}
