//! OAuth sign-in to remote MCP servers: the steps a browser cannot do alone, done through
//! `safe_fetch` with the rules of `core::plugin::oauth`. The browser runs the sign-in
//! (login window, PKCE, state, the vault); the edge keeps nothing of it.
//!
//! - [`McpOauth::discover`]: asks the server unauthenticated (with the plugin's plain
//!   headers, checked like an install's, and nothing else) for its challenge, then
//!   reads its protected-resource metadata and its authorization server's metadata (the
//!   checks are core's) into a `SignInPlan`.
//! - [`McpOauth::register`]: dynamic client registration (RFC 7591).
//! - [`McpOauth::token`]: a code exchange or a refresh; the refresh token and a client
//!   secret arrive sealed, the answer's tokens go back to the browser's vault.
//! - [`McpOauth::revoke`]: Sign out at the authorization server (RFC 7009).
//! - [`metadata_document`]: Hearth's Client ID Metadata Document for an origin.
//!
//! Every URL is fetched under the policy of who chose it
//! (`core::plugin::oauth::discovery::fetch_target`): the MCP server's own origin is the
//! user's choice; anything else a server names is remote-chosen, public HTTPS only in
//! every mode. Bodies are capped at `oauth::MAX_DOCUMENT_BYTES`; a POST that carries a
//! secret (registration, tokens) never follows a redirect; no cookie or header of the
//! browser's is forwarded: the requests are built here from the named fields only.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hearth_core::api::mcp_oauth::{
    OauthRegisterRequest, OauthRevokeRequest, OauthSecrets, OauthTokenGrant, OauthTokenRequest,
};
use hearth_core::api::{ApiError, ErrorCode};
use hearth_core::byok::{Envelope, context};
use hearth_core::plugin::oauth::challenge::{Challenge, read_challenge};
use hearth_core::plugin::oauth::client::{self, Client, TokenAuth};
use hearth_core::plugin::oauth::discovery::{self, ResourceMetadata};
use hearth_core::plugin::oauth::flow::{self, Grant, Tokens};
use hearth_core::plugin::oauth::{MAX_DOCUMENT_BYTES, OauthError, SignInPlan};
use hearth_core::url_policy::Target;
use reqwest::header::{
    ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue, WWW_AUTHENTICATE,
};
use reqwest::{Method, StatusCode, Url};
use serde_json::{Value, json};

use crate::byok::ByokKeys;
use crate::safe_fetch::{FetchError, Limits, OutboundRequest, OutboundResponse, SafeFetch};

/// How long one OAuth exchange may take.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(15);

/// The OAuth service.
#[derive(Clone)]
pub struct McpOauth {
    fetch: SafeFetch,
    byok: Option<Arc<ByokKeys>>,
}

/// A failed step as the API's error.
fn failed(error: OauthError) -> ApiError {
    let mut details = json!({ "reason": error.reason() });
    if let OauthError::TokenRefused { error: code, .. } | OauthError::Denied { error: code, .. } =
        &error
    {
        // The server's OAuth error code: `invalid_grant` means sign in again.
        details["error"] = json!(code);
    }
    ApiError::new(ErrorCode::OauthFailed, error.to_string()).with_details(details)
}

fn fetch_failed(error: FetchError) -> ApiError {
    error.to_api_error()
}

fn bad_url(what: &str) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, format!("`{what}` is not a URL"))
}

fn parse_url(text: &str, what: &str) -> Result<Url, ApiError> {
    Url::parse(text)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .ok_or_else(|| bad_url(what))
}

/// The plain headers a discovery probe carries, checked as an install's are
/// (`core::plugin::headers`: no credential-like name, none the transport owns).
fn plain_headers(
    headers: &BTreeMap<String, String>,
) -> Result<Vec<(HeaderName, HeaderValue)>, ApiError> {
    let refused = |error: String| ApiError::new(ErrorCode::BadRequest, format!("Headers: {error}"));
    hearth_core::plugin::mcp::check_headers(headers)
        .map_err(|e| refused(e.to_string()))?
        .into_iter()
        .map(|(name, value)| {
            Ok((
                HeaderName::from_bytes(name.as_bytes()).map_err(|e| refused(e.to_string()))?,
                HeaderValue::from_str(&value).map_err(|e| refused(e.to_string()))?,
            ))
        })
        .collect()
}

impl McpOauth {
    /// The service, fetching with `fetch` (its policies) and opening envelopes with `byok`.
    pub fn new(fetch: SafeFetch, byok: Option<Arc<ByokKeys>>) -> Self {
        let fetch = fetch.with_limits(Limits {
            timeout: EXCHANGE_TIMEOUT,
            max_body_bytes: MAX_DOCUMENT_BYTES,
            ..fetch.limits()
        });
        Self { fetch, byok }
    }

    /// A GET of `url` for the sign-in to `server`, under the policy of who chose it.
    async fn get(&self, server: &Url, url: &Url) -> Result<OutboundResponse, ApiError> {
        let mut request = OutboundRequest::get(discovery::fetch_target(server, url), url.as_str());
        request
            .headers
            .push((ACCEPT, HeaderValue::from_static("application/json")));
        self.fetch.fetch(request).await.map_err(fetch_failed)
    }

    /// A POST that carries a secret: no redirect is followed.
    async fn post(
        &self,
        server: &Url,
        url: &Url,
        content_type: &'static str,
        body: String,
        authorization: Option<String>,
    ) -> Result<OutboundResponse, ApiError> {
        let mut request = OutboundRequest::get(discovery::fetch_target(server, url), url.as_str());
        request.method = Method::POST;
        request.headers = vec![
            (CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (ACCEPT, HeaderValue::from_static("application/json")),
        ];
        if let Some(value) = authorization {
            let value = HeaderValue::from_str(&value).map_err(|_| {
                ApiError::new(
                    ErrorCode::BadRequest,
                    "The client credentials cannot be sent as a header",
                )
            })?;
            request.secret_headers.push((AUTHORIZATION, value));
        }
        request.body = Some(Bytes::from(body));
        self.fetch
            .with_limits(Limits {
                max_redirects: 0,
                ..self.fetch.limits()
            })
            .fetch(request)
            .await
            .map_err(fetch_failed)
    }

    /// A token or revocation request (a form, maybe with Basic credentials) sent.
    async fn post_form(
        &self,
        server: &Url,
        url: &Url,
        request: flow::TokenRequest,
    ) -> Result<OutboundResponse, ApiError> {
        let content_type = "application/x-www-form-urlencoded";
        self.post(
            server,
            url,
            content_type,
            request.form,
            request.authorization,
        )
        .await
    }

    /// The server's Bearer challenge to an unauthenticated `initialize`, if it sends one.
    async fn challenge(
        &self,
        server: &Url,
        plain: Vec<(HeaderName, HeaderValue)>,
    ) -> Result<Option<Challenge>, ApiError> {
        let mut request = OutboundRequest::get(Target::UserConfigured, server.as_str());
        request.method = Method::POST;
        request.headers = plain;
        request
            .headers
            .push((CONTENT_TYPE, HeaderValue::from_static("application/json")));
        request.headers.push((
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        ));
        let initialize = json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": { "name": "hearth", "version": env!("CARGO_PKG_VERSION") },
            },
        });
        request.body = Some(Bytes::from(initialize.to_string()));
        let response = match self.fetch.fetch(request).await {
            Ok(response) => response,
            // A server that streams a long answer to an unauthenticated client is not
            // asking for a sign-in.
            Err(FetchError::SizeLimit { .. }) => return Ok(None),
            Err(error) => return Err(fetch_failed(error)),
        };
        if response.status != StatusCode::UNAUTHORIZED {
            return Ok(None);
        }
        Ok(response
            .headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .find_map(read_challenge)
            .or_else(|| Some(Challenge::default())))
    }

    /// The protected-resource metadata, where it is found (a missing document is `None`:
    /// the server predates it).
    async fn resource_metadata(
        &self,
        server: &Url,
        challenge: Option<&Challenge>,
    ) -> Result<Option<ResourceMetadata>, ApiError> {
        for url in discovery::resource_metadata_urls(server, challenge) {
            let response = self.get(server, &url).await?;
            if response.status.is_success() {
                return discovery::read_resource_metadata(&response.body, server)
                    .map(Some)
                    .map_err(failed);
            }
        }
        Ok(None)
    }

    /// How to sign in to the MCP server at `server_url`.
    pub async fn discover(
        &self,
        server_url: &str,
        headers: &BTreeMap<String, String>,
    ) -> Result<SignInPlan, ApiError> {
        let server = parse_url(server_url, "serverUrl")?;
        let headers = plain_headers(headers)?;
        self.fetch
            .check_url(Target::UserConfigured, server.as_str())
            .map_err(fetch_failed)?;
        let challenge = self.challenge(&server, headers).await?;
        let resource = self.resource_metadata(&server, challenge.as_ref()).await?;
        let issuer = discovery::issuer(&server, resource.as_ref()).map_err(failed)?;
        for url in discovery::server_metadata_urls(&issuer) {
            let response = self.get(&server, &url).await?;
            if response.status.is_success() {
                let metadata =
                    discovery::read_server_metadata(&response.body, &issuer).map_err(failed)?;
                return Ok(discovery::plan(
                    &server,
                    challenge.as_ref(),
                    resource.as_ref(),
                    metadata,
                ));
            }
        }
        Err(failed(OauthError::NoMetadata))
    }

    /// Registers Hearth as a public client at the server's authorization server.
    pub async fn register(&self, request: &OauthRegisterRequest) -> Result<Client, ApiError> {
        let server = parse_url(&request.server_url, "serverUrl")?;
        let endpoint = parse_url(&request.registration_endpoint, "registrationEndpoint")?;
        parse_url(&request.redirect_uri, "redirectUri")?;
        let body = client::registration_request(&request.redirect_uri, request.scope.as_deref());
        let response = self
            .post(
                &server,
                &endpoint,
                "application/json",
                body.to_string(),
                None,
            )
            .await?;
        if !response.status.is_success() {
            return Err(failed(endpoint_refused(&response)));
        }
        client::read_registration(&response.body).map_err(failed)
    }

    /// Opens the sealed secrets of a token request.
    fn secrets(&self, envelope: Option<&Envelope>) -> Result<OauthSecrets, ApiError> {
        let (Some(envelope), Some(keys)) = (envelope, &self.byok) else {
            return match envelope {
                None => Ok(OauthSecrets::default()),
                Some(_) => Err(ApiError::new(
                    ErrorCode::AuthError,
                    "This edge has no BYOK key",
                )),
            };
        };
        let text = keys
            .open(envelope, &context::mcp_oauth())
            .map_err(|error| {
                ApiError::new(
                    ErrorCode::AuthError,
                    "The secrets envelope could not be opened",
                )
                .with_details(json!({ "reason": error.to_string() }))
            })?;
        serde_json::from_str(&text).map_err(|_| {
            ApiError::new(
                ErrorCode::BadRequest,
                "The sealed secrets are not the expected JSON",
            )
        })
    }

    /// Exchanges a code, or refreshes, at the token endpoint.
    pub async fn token(&self, request: OauthTokenRequest, now: u64) -> Result<Tokens, ApiError> {
        let server = parse_url(&request.server_url, "serverUrl")?;
        let endpoint = parse_url(&request.token_endpoint, "tokenEndpoint")?;
        let secrets = self.secrets(request.secrets.as_ref())?;
        let grant = match request.grant {
            OauthTokenGrant::Code {
                code,
                verifier,
                redirect_uri,
            } => Grant::Code {
                code,
                verifier,
                redirect_uri,
            },
            OauthTokenGrant::Refresh => Grant::Refresh {
                refresh_token: secrets.refresh_token.clone().ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::BadRequest,
                        "A refresh needs the refresh token in the sealed secrets",
                    )
                })?,
            },
        };
        let client = Client {
            client_id: request.client_id,
            client_secret: secrets.client_secret,
            token_auth: request.token_auth,
        };
        if client.token_auth != TokenAuth::None && client.client_secret.is_none() {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                "This client authenticates with a secret, and none was sealed",
            ));
        }
        let form = flow::token_request(&grant, &client, &request.resource);
        let response = self.post_form(&server, &endpoint, form).await?;
        flow::read_tokens(response.status.is_success(), &response.body, now).map_err(failed)
    }
}

impl McpOauth {
    /// Revokes the grant at the authorization server (RFC 7009): its refresh token, else
    /// its access token. An answer other than 200 is the server's refusal.
    pub async fn revoke(&self, request: &OauthRevokeRequest) -> Result<(), ApiError> {
        let server = parse_url(&request.server_url, "serverUrl")?;
        let endpoint = parse_url(&request.revocation_endpoint, "revocationEndpoint")?;
        let secrets = self.secrets(Some(&request.secrets))?;
        let (token, hint) = match (&secrets.refresh_token, &secrets.access_token) {
            (Some(refresh), _) => (refresh, "refresh_token"),
            (None, Some(access)) => (access, "access_token"),
            (None, None) => {
                return Err(ApiError::new(
                    ErrorCode::BadRequest,
                    "A revocation needs a token in the sealed secrets",
                ));
            }
        };
        let client = Client {
            client_id: request.client_id.clone(),
            client_secret: secrets.client_secret.clone(),
            token_auth: request.token_auth,
        };
        let form = flow::revocation_request(token, hint, &client);
        let response = self.post_form(&server, &endpoint, form).await?;
        if response.status.is_success() {
            Ok(())
        } else {
            Err(failed(endpoint_refused(&response)))
        }
    }
}

/// A registration or revocation endpoint's refusal (RFC 7591 §3.2.2, RFC 7009 §2.2.1),
/// as a refused token request.
fn endpoint_refused(response: &OutboundResponse) -> OauthError {
    let body: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
    let text = |name: &str| {
        body[name]
            .as_str()
            .map(|s| s.chars().take(300).collect::<String>())
    };
    OauthError::TokenRefused {
        error: text("error").unwrap_or_else(|| format!("http_{}", response.status.as_u16())),
        description: text("error_description").unwrap_or_default(),
    }
}

/// Hearth's Client ID Metadata Document as served at `origin` (`https://host[:port]`).
pub fn metadata_document(origin: &str) -> Value {
    client::metadata_document(
        &format!("{origin}{}", client::METADATA_DOCUMENT_PATH),
        &format!("{origin}{}", client::REDIRECT_PATH),
    )
}

/// The origin a browser uses for `host` (a checked `Host` header): HTTPS, except this
/// machine's loopback, which a local Hearth serves over plain HTTP.
pub fn origin_of_host(host: &str) -> String {
    let name = host
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(host, |(name, _)| name);
    let loopback = name.eq_ignore_ascii_case("localhost")
        || name
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    let scheme = if loopback { "http" } else { "https" };
    format!("{scheme}://{host}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_host_is_served_over_http_and_any_other_over_https() {
        assert_eq!(origin_of_host("127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(origin_of_host("localhost"), "http://localhost");
        assert_eq!(origin_of_host("[::1]:3000"), "http://[::1]:3000");
        assert_eq!(origin_of_host("hearth.example"), "https://hearth.example");
        assert_eq!(
            origin_of_host("192.168.1.4:8080"),
            "https://192.168.1.4:8080"
        );
    }

    #[test]
    fn the_metadata_document_is_the_url_it_is_served_at() {
        let document = metadata_document("https://hearth.example");
        assert_eq!(
            document["client_id"],
            "https://hearth.example/oauth/client-metadata.json"
        );
        assert_eq!(
            document["redirect_uris"][0],
            "https://hearth.example/oauth/callback.html"
        );
    }
}
