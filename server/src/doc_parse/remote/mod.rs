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

pub mod call;
pub mod llama_parse;
pub mod mineru;

use std::sync::Arc;
use std::time::Duration;

use hearth_core::api::doc_parse::{DocParseProvider, JobFailure, MINERU_AGENT_MAX_BYTES};
use hearth_core::api::{ApiError, ErrorCode};
use hearth_core::byok::Envelope;
use hearth_core::url_policy::{Policies, UrlPolicy};
use reqwest::Url;
use serde_json::json;

use self::call::provider_name;
pub use self::call::{Call, content_type, one_line, path_segment, redact};
use super::job::{Credential, JobRecord, Outcome, failure};
use crate::byok::ByokKeys;
use crate::config::DocParseSettings;
use crate::safe_fetch::{FetchError, Limits, SafeFetch};

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

/// The name a file is sent under: `document.<ext>` from the type its bytes were found
/// to be (parsers pick their reader by the extension; the user's own name stays here).
pub fn file_name(kind: &str) -> String {
    format!("document.{}", extension(kind))
}

fn extension(kind: &str) -> &'static str {
    match kind {
        "pdf" => "pdf",
        "docx" => "docx",
        "xlsx" => "xlsx",
        "pptx" => "pptx",
        "odt" => "odt",
        "epub" => "epub",
        "html" => "html",
        "markdown" => "md",
        "csv" => "csv",
        "json" => "json",
        "png" => "png",
        "jpeg" => "jpg",
        "gif" => "gif",
        "webp" => "webp",
        _ => "txt",
    }
}

/// The type of an upload for a remote parser, decided from its bytes
/// (`core::filetype`; the name only tells text kinds apart), or why it is refused.
/// MinerU reads PDFs, Office files and images; LlamaParse every kind Hearth knows.
pub fn kind_of(
    bytes: &[u8],
    name: Option<&str>,
    provider: DocParseProvider,
) -> Result<String, String> {
    use hearth_core::filetype::{FileKind, sniff};
    let kind = sniff(bytes, name).map_err(|error| error.to_string())?;
    let mineru_reads = matches!(
        kind,
        FileKind::Pdf | FileKind::Docx | FileKind::Xlsx | FileKind::Pptx
    ) || kind.is_image();
    if provider == DocParseProvider::Mineru && !mineru_reads {
        return Err(format!(
            "MinerU reads PDFs, Word, Excel and PowerPoint files and images, not {kind}"
        ));
    }
    Ok(kind.as_str().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_uploads_are_typed_by_their_bytes() {
        let kind = |bytes: &[u8], p| kind_of(bytes, None, p);
        assert_eq!(
            kind(b"%PDF-1.7\n...", DocParseProvider::Mineru).unwrap(),
            "pdf"
        );
        assert_eq!(
            kind(b"plain text", DocParseProvider::LlamaParse).unwrap(),
            "text"
        );
        assert!(kind(b"plain text", DocParseProvider::Mineru).is_err());
        assert!(kind(b"\x00\x01\x02\xff", DocParseProvider::LlamaParse).is_err());
        assert_eq!(file_name("jpeg"), "document.jpg");
        assert_eq!(file_name("text"), "document.txt");
        assert_eq!(file_name("markdown"), "document.md");
    }
}
