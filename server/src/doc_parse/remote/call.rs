//! One remote run's HTTP: API calls to the provider's base (JSON, bounded, Bearer when
//! the run has a credential), links the provider hands out (its origin or a `docs` host
//! only, never with the credential), and the typed failures every exchange can end in.

use std::time::Duration;

use bytes::Bytes;
use hearth_core::api::doc_parse::{DocParseProvider, is_docs_host};
use hearth_core::url_policy::Target;
use reqwest::header::{AUTHORIZATION, HeaderValue};
use reqwest::{Method, Url};

use super::{CALL_MAX_BYTES, CALL_TIMEOUT, Failed, Remote, TRANSFER_TIMEOUT};
use crate::doc_parse::job::failure;
use crate::safe_fetch::{FetchError, Limits, OutboundRequest, OutboundResponse};

/// One run's view of its provider: the base URL, the credential, the client.
pub struct Call<'a> {
    pub(super) remote: &'a Remote,
    pub(super) base: Url,
    pub(super) secret: Option<&'a str>,
    pub(super) provider: DocParseProvider,
}

impl Call<'_> {
    /// `path` (absolute, with its query) on the provider's base URL, keeping a path
    /// prefix the base may have (a self-hosted MinerU behind `/mineru`).
    pub fn api_url(&self, path: &str) -> String {
        let base = self.base.as_str().trim_end_matches('/');
        format!("{base}{path}")
    }

    /// The credential, when the run has one.
    pub fn secret(&self) -> Option<&str> {
        self.secret
    }

    /// How long to wait between polls.
    pub fn poll_every(&self) -> Duration {
        self.remote.poll_every
    }

    /// The provider's name for messages.
    pub fn name(&self) -> &'static str {
        provider_name(self.provider)
    }

    /// An API call to the provider's base: JSON answer, [`CALL_TIMEOUT`], capped, with
    /// `Authorization: Bearer` when `authorized` and the run has a credential.
    pub async fn api(
        &self,
        method: Method,
        path: &str,
        body: Option<(HeaderValue, Bytes)>,
        authorized: bool,
        what: &str,
    ) -> Result<serde_json::Value, Failed> {
        self.api_with(method, path, body, authorized, CALL_MAX_BYTES, what)
            .await
    }

    /// An authorized GET of a (larger) result on the provider's base, capped at
    /// `max_bytes`, within [`TRANSFER_TIMEOUT`].
    pub async fn api_capped(
        &self,
        path: &str,
        max_bytes: usize,
        what: &str,
    ) -> Result<serde_json::Value, Failed> {
        self.api_with(Method::GET, path, None, true, max_bytes, what)
            .await
    }

    async fn api_with(
        &self,
        method: Method,
        path: &str,
        body: Option<(HeaderValue, Bytes)>,
        authorized: bool,
        max_bytes: usize,
        what: &str,
    ) -> Result<serde_json::Value, Failed> {
        let mut request = OutboundRequest::get(Target::OperatorConfigured, self.api_url(path));
        request.method = method;
        request.headers.push((
            reqwest::header::ACCEPT,
            HeaderValue::from_static("application/json"),
        ));
        if let Some((content_type, body)) = body {
            request
                .headers
                .push((reqwest::header::CONTENT_TYPE, content_type));
            request.body = Some(body);
        }
        if authorized && let Some(secret) = self.secret {
            let value = HeaderValue::from_str(&format!("Bearer {secret}")).map_err(|_| {
                failure(
                    "parse_credential_invalid",
                    format!("The {} credential is not a valid token", self.name()),
                )
            })?;
            request.secret_headers.push((AUTHORIZATION, value));
        }
        let timeout = if max_bytes > CALL_MAX_BYTES {
            TRANSFER_TIMEOUT
        } else {
            CALL_TIMEOUT
        };
        let response = self.send(request, timeout, max_bytes, what).await?;
        let value: serde_json::Value = serde_json::from_slice(&response.body).map_err(|_| {
            failure(
                "parse_upstream_failed",
                format!("The {} parser's answer to {what} was not JSON", self.name()),
            )
        })?;
        Ok(value)
    }

    /// Sends a request to a link the provider handed out (an upload URL, a download):
    /// back to the base's origin, or HTTPS to a host on the `docs` allow-list. Never
    /// with the credential.
    pub async fn link(
        &self,
        method: Method,
        link: &str,
        body: Option<Bytes>,
        max_bytes: usize,
        what: &str,
    ) -> Result<Bytes, Failed> {
        let target = self.link_target(link)?;
        let mut request = OutboundRequest::get(target, link);
        request.method = method;
        request.body = body;
        Ok(self
            .send(request, TRANSFER_TIMEOUT, max_bytes, what)
            .await?
            .body)
    }

    fn link_target(&self, link: &str) -> Result<Target, Failed> {
        let blocked = || {
            failure(
                "parse_upstream_blocked",
                format!(
                    "The {} parser pointed at a host outside its own; nothing was sent there",
                    self.name()
                ),
            )
        };
        let url = Url::parse(link.trim()).map_err(|_| blocked())?;
        if url.origin() == self.base.origin() {
            return Ok(Target::OperatorConfigured);
        }
        match url.host_str() {
            Some(host) if url.scheme() == "https" && is_docs_host(host) => Ok(Target::RemoteChosen),
            _ => Err(blocked()),
        }
    }

    async fn send(
        &self,
        request: OutboundRequest,
        timeout: Duration,
        max_bytes: usize,
        what: &str,
    ) -> Result<OutboundResponse, Failed> {
        let fetch = self.remote.fetch.with_limits(Limits {
            timeout,
            max_body_bytes: max_bytes,
            ..self.remote.fetch.limits()
        });
        let response = fetch
            .fetch(request)
            .await
            .map_err(|error| fetch_failure(&error, self.name(), what))?;
        if !response.status.is_success() {
            return Err(status_failure(
                self.name(),
                what,
                response.status.as_u16(),
                &response.body,
            ));
        }
        Ok(response)
    }
}

/// A `Content-Type` value (a multipart boundary is built at run time).
pub fn content_type(value: &str) -> HeaderValue {
    HeaderValue::from_str(value).unwrap_or_else(|_| HeaderValue::from_static("application/json"))
}

pub(super) fn provider_name(provider: DocParseProvider) -> &'static str {
    match provider {
        DocParseProvider::Mineru => "MinerU",
        DocParseProvider::LlamaParse => "LlamaParse",
        DocParseProvider::Local => "local",
    }
}

fn fetch_failure(error: &FetchError, name: &str, what: &str) -> Failed {
    match error {
        FetchError::Timeout(limit) => failure(
            "parse_upstream_timeout",
            format!(
                "The {name} parser did not answer {what} within {} seconds",
                limit.as_secs()
            ),
        ),
        FetchError::SizeLimit { limit } => failure(
            "parse_upstream_too_large",
            format!("The {name} parser's answer to {what} is larger than {limit} bytes"),
        ),
        FetchError::UrlBlocked(reason) => failure(
            "parse_upstream_blocked",
            format!("The {name} parser's address for {what} is not allowed: {reason}"),
        ),
        FetchError::BadRedirect | FetchError::Unreachable(_) => failure(
            "parse_upstream_failed",
            format!("The {name} parser could not be reached for {what}"),
        ),
    }
}

/// A failure for an error status: the provider's own message (bounded, one line) when
/// it sent one. The caller redacts the credential.
fn status_failure(name: &str, what: &str, status: u16, body: &[u8]) -> Failed {
    let said = upstream_message(body);
    let code = match status {
        401 | 403 => "parse_upstream_auth",
        429 => "parse_upstream_rate_limited",
        _ => "parse_upstream_failed",
    };
    let mut message = format!("The {name} parser answered HTTP {status} to {what}");
    if let Some(said) = said {
        message.push_str(": ");
        message.push_str(&said);
    }
    failure(code, message)
}

/// The message in an upstream error body (`msg`, `message`, `detail`, `error`,
/// `err_msg`), at most 300 characters of one line.
pub fn upstream_message(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let text = [
        "msg",
        "message",
        "detail",
        "error_message",
        "err_msg",
        "error",
    ]
    .iter()
    .find_map(|key| match &value[key] {
        serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        serde_json::Value::Object(inner) => inner
            .get("message")
            .and_then(|m| m.as_str())
            .map(str::to_string),
        _ => None,
    })?;
    Some(one_line(&text))
}

/// `text` on one line, without control characters, at most 300 characters.
pub fn one_line(text: &str) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(300)
        .collect();
    line.trim().to_string()
}

/// `text` with every occurrence of `secret` (and of its halves, when it is long enough
/// to be told apart) replaced.
pub fn redact(text: &str, secret: &str) -> String {
    let secret = secret.trim();
    if secret.len() < 4 {
        return text.to_string();
    }
    let mut out = text.replace(secret, "[redacted]");
    if secret.len() >= 16 && secret.is_ascii() {
        let (a, b) = secret.split_at(secret.len() / 2);
        out = out.replace(a, "[redacted]").replace(b, "[redacted]");
    }
    out
}

/// An id from the upstream as one path segment (never a `/`, `?` or `..`).
pub fn path_segment(id: &str) -> String {
    id.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_never_survives_in_a_message() {
        let secret = "llx-0123456789abcdefghijklmnop";
        let said = format!("invalid key {secret} (prefix llx-0123456789abcd)");
        let clean = redact(&said, secret);
        assert!(!clean.contains(secret), "{clean}");
        assert!(!clean.contains("llx-0123456789abcd"), "{clean}");
        assert_eq!(redact("nothing here", secret), "nothing here");
    }

    #[test]
    fn upstream_messages_are_read_bounded_and_on_one_line() {
        assert_eq!(
            upstream_message(br#"{"code":-60005,"msg":"file\nsize exceeds"}"#).as_deref(),
            Some("file size exceeds")
        );
        assert_eq!(
            upstream_message(br#"{"detail":{"message":"Invalid API key"}}"#).as_deref(),
            Some("Invalid API key")
        );
        let long = format!(r#"{{"message":"{}"}}"#, "x".repeat(1000));
        assert_eq!(upstream_message(long.as_bytes()).unwrap().len(), 300);
        assert_eq!(upstream_message(b"<html>"), None);
    }
}
