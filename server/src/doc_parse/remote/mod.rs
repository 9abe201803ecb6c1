//! Remote parsers: MinerU ([`mineru`]) and LlamaParse ([`llama_parse`]) turn a file into
//! Markdown on their own servers. A remote job runs in the edge process (it only waits on
//! the network; the worker process is for parsing bytes here), under the job's lease like
//! every job: a cancel or a lost lease drops the future, which aborts the request in
//! flight and stops the upstream polling.
//!
//! - Every call goes through `safe_fetch` with a client of its own: the provider's base
//!   URL is the operator's (`HEARTH_MINERU_BASE_URL`, `HEARTH_LLAMA_PARSE_BASE_URL`:
//!   private and plain http allowed, cloud metadata never); a link the provider hands out
//!   (an upload URL, a result download) is followed only back to that base's origin, or
//!   over HTTPS to a public host on the `docs` allow-list
//!   ([`hearth_core::api::doc_parse::DOCS_HOSTS`]).
//! - Each exchange has its own deadline and body cap, and the whole run
//!   `HEARTH_DOC_PARSE_REMOTE_TIMEOUT_SECS`.
//! - The credential is opened only here, when the job runs ([`Remote::secret`]); it goes
//!   out only as a secret header (dropped on a redirect to another origin) and is
//!   redacted from every failure message ([`redact`]).

pub mod llama_parse;
pub mod mineru;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hearth_core::api::doc_parse::{
    DocParseProvider, JobFailure, MINERU_AGENT_MAX_BYTES, is_docs_host,
};
use hearth_core::api::{ApiError, ErrorCode};
use hearth_core::byok::Envelope;
use hearth_core::url_policy::{Policies, Target, UrlPolicy};
use reqwest::header::{AUTHORIZATION, HeaderValue};
use reqwest::{Method, Url};
use serde_json::json;

use super::job::{Credential, JobRecord, Outcome, failure};
use crate::byok::ByokKeys;
use crate::config::DocParseSettings;
use crate::safe_fetch::{FetchError, Limits, OutboundRequest, OutboundResponse, SafeFetch};

/// Deadline of one API call (create, poll).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Largest API answer read (not the result downloads, which have their own caps).
pub const CALL_MAX_BYTES: usize = 1024 * 1024;
/// Deadline of one upload or result download.
pub const TRANSFER_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a runner waits between two upstream polls.
pub const POLL_EVERY: Duration = Duration::from_secs(2);

/// One remote parser's endpoint: its base URL and the operator's default credential.
#[derive(Clone)]
struct Endpoint {
    base: Url,
    default_secret: Option<Arc<str>>,
}

/// The remote parsers, as configured.
#[derive(Clone)]
pub struct Remote {
    fetch: SafeFetch,
    mineru: Endpoint,
    llama_parse: Endpoint,
    byok: Option<Arc<ByokKeys>>,
    timeout: Duration,
    poll_every: Duration,
}

/// A remote run that did not produce text: the job's typed failure.
pub type Failed = JobFailure;

impl Remote {
    /// The remote parsers for `settings` (base URLs checked by `Config::validate`).
    pub fn new(
        settings: &DocParseSettings,
        byok: Option<Arc<ByokKeys>>,
    ) -> Result<Self, FetchError> {
        let policies = Policies {
            // Never used here: every target is the operator's base or a link from it.
            user: UrlPolicy::remote_chosen(),
            operator: UrlPolicy::local(),
            remote: UrlPolicy::remote_chosen(),
        };
        let limits = Limits {
            timeout: CALL_TIMEOUT,
            max_body_bytes: CALL_MAX_BYTES,
            ..Limits::default()
        };
        let endpoint = |base: &str, secret: &Option<String>| -> Result<Endpoint, FetchError> {
            let base = Url::parse(base.trim())
                .map_err(|e| FetchError::Unreachable(format!("bad parser base URL: {e}")))?;
            Ok(Endpoint {
                base,
                default_secret: secret
                    .as_deref()
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(Arc::from),
            })
        };
        Ok(Self {
            fetch: SafeFetch::new(policies, limits)?,
            mineru: endpoint(&settings.mineru_base_url, &settings.mineru_api_token)?,
            llama_parse: endpoint(
                &settings.llama_parse_base_url,
                &settings.llama_parse_api_key,
            )?,
            byok,
            timeout: Duration::from_secs(settings.remote_timeout_secs.max(1)),
            poll_every: POLL_EVERY,
        })
    }

    fn endpoint(&self, provider: DocParseProvider) -> &Endpoint {
        match provider {
            DocParseProvider::LlamaParse => &self.llama_parse,
            _ => &self.mineru,
        }
    }

    /// Decides an upload's credential, or refuses the upload before a job exists: a
    /// sealed credential must open for the provider's context (401 `AUTH_ERROR`);
    /// LlamaParse needs a key (400); MinerU without a token takes at most
    /// [`MINERU_AGENT_MAX_BYTES`] (413), and no upstream call is made for any refusal.
    pub fn admit(
        &self,
        provider: DocParseProvider,
        envelope: Option<Envelope>,
        use_default: bool,
        size: u64,
    ) -> Result<Credential, ApiError> {
        let context = provider.credential_context().unwrap_or_default();
        let credential = match (envelope, use_default) {
            (Some(_), true) => {
                return Err(ApiError::new(
                    ErrorCode::BadRequest,
                    "Send either a sealed credential or useDefault, not both",
                )
                .with_details(json!({ "field": "credential" })));
            }
            (Some(envelope), false) => {
                let keys = self.byok.as_ref().ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::ServiceUnavailable,
                        "This edge has no BYOK key to open the credential with",
                    )
                })?;
                keys.open(&envelope, &context).map_err(|error| {
                    ApiError::new(
                        ErrorCode::AuthError,
                        format!("BYOK secret refused: {error}"),
                    )
                })?;
                Credential::Envelope(envelope)
            }
            (None, true) => Credential::Default,
            (None, false) => Credential::None,
        };
        let has_token = match &credential {
            Credential::Envelope(_) => true,
            Credential::Default => self.endpoint(provider).default_secret.is_some(),
            Credential::None => false,
        };
        match provider {
            DocParseProvider::LlamaParse if !has_token => Err(ApiError::new(
                ErrorCode::BadRequest,
                if matches!(credential, Credential::Default) {
                    "This edge has no LlamaParse API key of its own; send yours"
                } else {
                    "LlamaParse needs an API key: send it sealed as credential, or useDefault"
                },
            )
            .with_details(json!({ "field": "credential" }))),
            DocParseProvider::Mineru if !has_token && size > MINERU_AGENT_MAX_BYTES => {
                Err(ApiError::new(
                    ErrorCode::PayloadTooLarge,
                    format!(
                        "Without a MinerU token, files up to {MINERU_AGENT_MAX_BYTES} bytes \
                         can be parsed; add a token for larger files"
                    ),
                )
                .with_details(json!({ "limitBytes": MINERU_AGENT_MAX_BYTES })))
            }
            _ => Ok(credential),
        }
    }

    /// The credential in clear for the run, or the job's failure.
    fn secret(&self, record: &JobRecord) -> Result<Option<String>, Failed> {
        let context = record.provider.credential_context().unwrap_or_default();
        match &record.credential {
            Credential::None => Ok(None),
            Credential::Default => Ok(self
                .endpoint(record.provider)
                .default_secret
                .as_deref()
                .map(str::to_string)),
            Credential::Envelope(envelope) => self
                .byok
                .as_ref()
                .and_then(|keys| keys.open(envelope, &context).ok())
                .map(Some)
                .ok_or_else(|| {
                    failure(
                        "parse_credential_invalid",
                        "The parser's credential could not be opened (the edge's key may \
                         have changed); enter it again and upload the file again",
                    )
                }),
        }
    }

    /// Parses `bytes` of job `record` at its remote parser, within the remote deadline.
    pub async fn parse(&self, record: &JobRecord, bytes: Vec<u8>) -> Outcome {
        let secret = match self.secret(record) {
            Ok(secret) => secret,
            Err(error) => return Outcome::Failed { error },
        };
        let call = Call {
            remote: self,
            base: self.endpoint(record.provider).base.clone(),
            secret: secret.as_deref(),
            provider: record.provider,
        };
        let name = file_name(&record.kind);
        let run = async {
            match record.provider {
                DocParseProvider::Mineru => mineru::parse(&call, &name, bytes).await,
                DocParseProvider::LlamaParse => llama_parse::parse(&call, &name, bytes).await,
                DocParseProvider::Local => Err(failure(
                    "parse_unsupported",
                    "The local parser does not run remotely",
                )),
            }
        };
        let result = match tokio::time::timeout(self.timeout, run).await {
            Ok(result) => result,
            Err(_) => Err(failure(
                "parse_upstream_timeout",
                format!(
                    "The {} parser did not finish within {} seconds",
                    provider_name(record.provider),
                    self.timeout.as_secs()
                ),
            )),
        };
        match result {
            Ok(outcome) => outcome,
            Err(mut error) => {
                if let Some(secret) = secret.as_deref() {
                    error.message = redact(&error.message, secret);
                }
                tracing::warn!(code = %error.code, "a remote parse failed");
                Outcome::Failed { error }
            }
        }
    }
}

/// One run's view of its provider: the base URL, the credential, the client.
pub struct Call<'a> {
    remote: &'a Remote,
    base: Url,
    secret: Option<&'a str>,
    provider: DocParseProvider,
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

fn provider_name(provider: DocParseProvider) -> &'static str {
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

/// The name a file is sent under: `document.<ext>` from the type its bytes were found
/// to be (parsers pick their reader by the extension; the user's own name stays here).
pub fn file_name(kind: &str) -> String {
    format!("document.{}", extension(kind))
}

fn extension(kind: &str) -> &'static str {
    match kind {
        "pdf" => "pdf",
        "png" => "png",
        "jpeg" => "jpg",
        "gif" => "gif",
        "webp" => "webp",
        "bmp" => "bmp",
        "docx" => "docx",
        "xlsx" => "xlsx",
        "pptx" => "pptx",
        "doc" => "doc",
        "xls" => "xls",
        "ppt" => "ppt",
        "html" => "html",
        _ => "txt",
    }
}

/// The type of an upload for a remote parser, decided from its bytes, or why it is
/// refused. MinerU reads PDFs, images and Office files; LlamaParse those and text.
pub fn kind_of(bytes: &[u8], provider: DocParseProvider) -> Result<String, String> {
    let kind = sniff(bytes)
        .ok_or_else(|| "The file's bytes are not a type the remote parsers read".to_string())?;
    if provider == DocParseProvider::Mineru && matches!(kind, "text" | "html") {
        return Err("MinerU reads PDFs, images and Office files, not plain text".to_string());
    }
    Ok(kind.to_string())
}

fn sniff(bytes: &[u8]) -> Option<&'static str> {
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    let contains = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    if starts(b"%PDF-") {
        Some("pdf")
    } else if starts(b"\x89PNG\r\n\x1a\n") {
        Some("png")
    } else if starts(b"\xff\xd8\xff") {
        Some("jpeg")
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        Some("gif")
    } else if starts(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Some("webp")
    } else if starts(b"BM") && bytes.len() > 26 {
        Some("bmp")
    } else if starts(b"PK\x03\x04") {
        // OOXML: the part names are stored uncompressed in the local headers.
        if contains(b"word/") {
            Some("docx")
        } else if contains(b"xl/") {
            Some("xlsx")
        } else if contains(b"ppt/") {
            Some("pptx")
        } else {
            None
        }
    } else if starts(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1") {
        // Legacy Office: the stream names in the directory, UTF-16LE.
        let utf16 =
            |name: &str| -> Vec<u8> { name.encode_utf16().flat_map(u16::to_le_bytes).collect() };
        if contains(&utf16("WordDocument")) {
            Some("doc")
        } else if contains(&utf16("Workbook")) || contains(&utf16("Book")) {
            Some("xls")
        } else if contains(&utf16("PowerPoint Document")) {
            Some("ppt")
        } else {
            None
        }
    } else if std::str::from_utf8(bytes).is_ok() {
        Some("text")
    } else {
        None
    }
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

    #[test]
    fn remote_uploads_are_typed_by_their_bytes() {
        let kind = |bytes: &[u8], p| kind_of(bytes, p);
        assert_eq!(
            kind(b"%PDF-1.7\n...", DocParseProvider::Mineru).unwrap(),
            "pdf"
        );
        assert_eq!(
            kind(b"PK\x03\x04....word/document.xml", DocParseProvider::Mineru).unwrap(),
            "docx"
        );
        assert_eq!(
            kind(b"plain text", DocParseProvider::LlamaParse).unwrap(),
            "text"
        );
        assert!(kind(b"plain text", DocParseProvider::Mineru).is_err());
        assert!(kind(b"\x00\x01\x02\xff", DocParseProvider::LlamaParse).is_err());
        assert_eq!(file_name("jpeg"), "document.jpg");
        assert_eq!(file_name("text"), "document.txt");
    }
}
