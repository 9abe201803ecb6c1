//! `safe_fetch`: the one outbound HTTP client for URLs that came from outside (relays,
//! plugins, MCP servers, manifests, document parsing). A second hand-rolled client is
//! how one of them loses its check (DESIGN, principle 3).
//!
//! - Every request names its [`Target`] (who chose the URL), and that decides the
//!   policy: the user's and the operator's targets follow the deployment's rules, a URL a
//!   model or remote data chose is public HTTPS only (`core::url_policy`).
//! - Every URL, including every redirect target, passes [`UrlPolicy::check_url`] for that
//!   target.
//! - DNS goes through [`resolver::PolicyResolver`] (one HTTP client per target kind):
//!   every resolved address is checked and the connection is made to a checked address. No proxy is used (a proxy would resolve
//!   names itself, behind the policy's back).
//! - Redirects are followed by hand, at most [`Limits::max_redirects`]; secret headers
//!   are dropped when the origin changes; 301/302 turn POST into GET and 303 turns
//!   anything but HEAD into GET (as browsers do), dropping the body; 307/308 keep both.
//! - One deadline covers DNS, connect, headers and body; bodies are capped in received
//!   bytes (the client asks for no compression, so these are the decoded bytes).

pub mod resolver;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use hearth_core::url_policy::{Policies, PolicyError, Target, UrlPolicy};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, LOCATION};
use reqwest::{Method, StatusCode, Url};

use self::resolver::{Lookup, PolicyResolver, Refused, SystemLookup};

/// Bounds on one outbound exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deadline for the whole exchange: DNS, connect, redirects, headers and body.
    pub timeout: Duration,
    /// Largest body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Most redirects followed.
    pub max_redirects: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(30),
            max_body_bytes: 4 * 1024 * 1024,
            max_redirects: 5,
        }
    }
}

/// Why an outbound exchange failed. Each maps to one API error code.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The URL, a redirect target or a resolved address is not allowed.
    #[error("the target is not allowed: {0}")]
    UrlBlocked(PolicyError),
    /// The deadline passed.
    #[error("the upstream did not answer within {0:?}")]
    Timeout(Duration),
    /// The body exceeded the cap.
    #[error("the upstream response exceeds {limit} bytes")]
    SizeLimit {
        /// The cap.
        limit: usize,
    },
    /// Too many redirects, or a redirect without a usable `Location`.
    #[error("the upstream redirected too often or without a valid location")]
    BadRedirect,
    /// Connection or protocol failure.
    #[error("the upstream could not be reached: {0}")]
    Unreachable(String),
}

impl FetchError {
    /// The stable API error code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UrlBlocked(_) => PolicyError::CODE,
            Self::Timeout(_) => "RESPONSE_TIMEOUT",
            Self::SizeLimit { .. } => "RESPONSE_SIZE_LIMIT",
            Self::BadRedirect => "TOO_MANY_REDIRECTS",
            Self::Unreachable(_) => "UPSTREAM_UNREACHABLE",
        }
    }

    /// The error as the API's error shape.
    pub fn to_api_error(&self) -> hearth_core::api::ApiError {
        use hearth_core::api::{ApiError, ErrorCode};
        let code = match self {
            Self::UrlBlocked(_) => ErrorCode::UrlBlocked,
            Self::Timeout(_) => ErrorCode::ResponseTimeout,
            Self::SizeLimit { .. } => ErrorCode::ResponseSizeLimit,
            Self::BadRedirect => ErrorCode::TooManyRedirects,
            Self::Unreachable(_) => ErrorCode::UpstreamUnreachable,
        };
        ApiError::new(code, self.to_string())
    }

    fn from_reqwest(error: reqwest::Error) -> Self {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
        while let Some(current) = source {
            if let Some(refused) = current.downcast_ref::<Refused>() {
                return Self::UrlBlocked(refused.0.clone());
            }
            source = current.source();
        }
        Self::Unreachable(error.without_url().to_string())
    }
}

/// A request to send.
#[derive(Debug, Clone)]
pub struct OutboundRequest {
    /// Who chose the URL: decides the policy for it and every redirect.
    pub target: Target,
    /// The method.
    pub method: Method,
    /// The URL (checked before sending).
    pub url: String,
    /// Ordinary headers, kept across redirects.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Credentials (keys, tokens, cookies): sent only to the original origin.
    pub secret_headers: Vec<(HeaderName, HeaderValue)>,
    /// The body.
    pub body: Option<Bytes>,
}

impl OutboundRequest {
    /// A GET of `url`, a URL that `target` chose.
    pub fn get(target: Target, url: impl Into<String>) -> Self {
        Self {
            target,
            method: Method::GET,
            url: url.into(),
            headers: Vec::new(),
            secret_headers: Vec::new(),
            body: None,
        }
    }
}

/// A complete response.
#[derive(Debug)]
pub struct OutboundResponse {
    /// The final status.
    pub status: StatusCode,
    /// The final headers.
    pub headers: HeaderMap,
    /// The URL that answered (after redirects).
    pub url: Url,
    /// The body, within the cap.
    pub body: Bytes,
}

/// One HTTP client per target kind, each resolving through its own policy.
struct Clients {
    user: reqwest::Client,
    operator: reqwest::Client,
    remote: reqwest::Client,
}

/// The outbound client.
#[derive(Clone)]
pub struct SafeFetch {
    clients: Arc<Clients>,
    policies: Arc<Policies>,
    limits: Limits,
}

impl SafeFetch {
    /// A client enforcing `policies` with the system resolver.
    pub fn new(policies: Policies, limits: Limits) -> Result<Self, FetchError> {
        Self::with_lookup(policies, limits, Arc::new(SystemLookup))
    }

    /// A client with its own name lookup (tests play DNS with it).
    pub fn with_lookup(
        policies: Policies,
        limits: Limits,
        lookup: Arc<dyn Lookup>,
    ) -> Result<Self, FetchError> {
        let build = |policy: &UrlPolicy| {
            let resolver = PolicyResolver::new(Arc::new(policy.clone()), Arc::clone(&lookup));
            reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .dns_resolver(Arc::new(resolver))
                .connect_timeout(limits.timeout)
                .user_agent(concat!("Hearth/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| FetchError::Unreachable(e.to_string()))
        };
        let clients = Clients {
            user: build(&policies.user)?,
            operator: build(&policies.operator)?,
            remote: build(&policies.remote)?,
        };
        Ok(Self {
            clients: Arc::new(clients),
            policies: Arc::new(policies),
            limits,
        })
    }

    fn client(&self, target: Target) -> &reqwest::Client {
        match target {
            Target::UserConfigured => &self.clients.user,
            Target::OperatorConfigured => &self.clients.operator,
            Target::RemoteChosen => &self.clients.remote,
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The underlying HTTP client for `target` (its policy's resolver, no proxy, no
    /// automatic redirects) for a protocol client that speaks HTTP itself, such as MCP's.
    /// Check the URL with [`SafeFetch::check_url`] first; the resolver checks every
    /// address.
    pub fn http_client(&self, target: Target) -> reqwest::Client {
        self.client(target).clone()
    }

    /// Checks a URL's text against the policy for `target`.
    pub fn check_url(&self, target: Target, url: &str) -> Result<Url, FetchError> {
        self.policies
            .for_target(target)
            .check_url(url)
            .map_err(FetchError::UrlBlocked)
    }

    /// The same client (and policy) with other limits, for one kind of exchange.
    pub fn with_limits(&self, limits: Limits) -> Self {
        Self {
            limits,
            ..self.clone()
        }
    }

    /// Sends `request`, follows redirects, and reads the whole (capped) body.
    pub async fn fetch(&self, request: OutboundRequest) -> Result<OutboundResponse, FetchError> {
        let limit = self.limits.timeout;
        tokio::time::timeout(limit, self.fetch_inner(request))
            .await
            .map_err(|_| FetchError::Timeout(limit))?
    }

    /// Sends `request` and follows redirects; returns the final response with its body
    /// unread, for streaming. The deadline covers everything up to the headers; the
    /// caller bounds the body (see [`read_capped`] and the relay).
    pub async fn open(&self, request: OutboundRequest) -> Result<reqwest::Response, FetchError> {
        let limit = self.limits.timeout;
        tokio::time::timeout(limit, self.follow(request))
            .await
            .map_err(|_| FetchError::Timeout(limit))?
    }

    async fn fetch_inner(&self, request: OutboundRequest) -> Result<OutboundResponse, FetchError> {
        let response = self.follow(request).await?;
        let status = response.status();
        let headers = response.headers().clone();
        let url = response.url().clone();
        let body = read_capped(response, self.limits.max_body_bytes).await?;
        Ok(OutboundResponse {
            status,
            headers,
            url,
            body,
        })
    }

    async fn follow(&self, request: OutboundRequest) -> Result<reqwest::Response, FetchError> {
        let target = request.target;
        let policy = self.policies.for_target(target);
        let client = self.client(target);
        let mut url = policy
            .check_url(&request.url)
            .map_err(FetchError::UrlBlocked)?;
        let origin = url.origin();
        let mut method = request.method.clone();
        let mut body = request.body.clone();
        let mut redirects = 0;
        loop {
            let mut builder = client.request(method.clone(), url.clone());
            for (name, value) in &request.headers {
                builder = builder.header(name, value);
            }
            if url.origin() == origin {
                for (name, value) in &request.secret_headers {
                    builder = builder.header(name, value);
                }
            }
            if let Some(body) = &body {
                builder = builder.body(body.clone());
            }
            let response = builder.send().await.map_err(FetchError::from_reqwest)?;
            let status = response.status();
            if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
                redirects += 1;
                if redirects > self.limits.max_redirects {
                    return Err(FetchError::BadRedirect);
                }
                let location = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|location| url.join(location).ok())
                    .ok_or(FetchError::BadRedirect)?;
                url = policy
                    .check_url(location.as_str())
                    .map_err(FetchError::UrlBlocked)?;
                let to_get = match status {
                    StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND => method == Method::POST,
                    StatusCode::SEE_OTHER => method != Method::HEAD,
                    _ => false,
                };
                if to_get {
                    method = Method::GET;
                    body = None;
                }
                continue;
            }
            return Ok(response);
        }
    }
}

/// Reads a whole body, failing past `limit` bytes (declared or received).
pub async fn read_capped(response: reqwest::Response, limit: usize) -> Result<Bytes, FetchError> {
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(FetchError::SizeLimit { limit });
    }
    let mut stream = response.bytes_stream();
    let mut collected = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(FetchError::from_reqwest)?;
        if collected.len() + chunk.len() > limit {
            return Err(FetchError::SizeLimit { limit });
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(collected))
}
