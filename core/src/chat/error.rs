//! The failure stored on a message (`generationError`): a stable [`ErrorCode`] with the
//! parameters its sentence needs and, at most, the provider's or the edge's own words
//! (`detail`, shown as they are). The sentence itself is the app's translation catalog's
//! (`error.generation.<code>`), so a reply that failed reads in the user's language, not
//! in the language it failed in.
//!
//! Records written before the codes were typed carry an English `message` and no
//! parameters; they still open, and the app shows that message for them.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::context::ContextError;

macro_rules! codes {
    ($($variant:ident => $code:literal,)*) => {
        /// Why a reply failed.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $(
                #[allow(missing_docs)]
                $variant,
            )*
            /// A refusal of the edge's, by its own code (`URL_BLOCKED`, `HOST_NOT_ALLOWED`…).
            Edge(crate::api::ErrorCode),
            /// A code this version does not know (a newer version wrote it).
            Other(String),
        }

        impl ErrorCode {
            /// Every code of this module's own (not `Edge`, not `Other`).
            pub const OWN: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The stored spelling (`RESPONSE_TIMEOUT`).
            pub fn as_str(&self) -> std::borrow::Cow<'_, str> {
                match self {
                    $(ErrorCode::$variant => $code.into(),)*
                    ErrorCode::Edge(code) => edge_code_name(*code).into(),
                    ErrorCode::Other(code) => code.as_str().into(),
                }
            }

            /// The code stored as `code`: one of ours, the edge's, or kept as it is.
            pub fn parse(code: &str) -> Self {
                match code {
                    $($code => ErrorCode::$variant,)*
                    other => serde_json::from_value(serde_json::Value::String(other.into()))
                        .map(ErrorCode::Edge)
                        .unwrap_or_else(|_| ErrorCode::Other(other.to_string())),
                }
            }
        }
    };
}

codes! {
    Internal => "INTERNAL",
    NoMessages => "NO_MESSAGES",
    ProviderMissing => "PROVIDER_MISSING",
    KeyUnreadable => "KEY_UNREADABLE",
    SealFailed => "SEAL_FAILED",
    InvalidRequest => "INVALID_REQUEST",
    ProviderUnreachable => "PROVIDER_UNREACHABLE",
    AuthFailed => "AUTH_FAILED",
    ModelNotFound => "MODEL_NOT_FOUND",
    Timeout => "TIMEOUT",
    RequestTooLarge => "REQUEST_TOO_LARGE",
    RateLimited => "RATE_LIMITED",
    BadRequest => "BAD_REQUEST",
    ProviderUnavailable => "PROVIDER_UNAVAILABLE",
    ProviderError => "PROVIDER_ERROR",
    StreamInterrupted => "STREAM_INTERRUPTED",
    StreamTruncated => "STREAM_TRUNCATED",
    StreamMalformed => "STREAM_MALFORMED",
    ResponseTimeout => "RESPONSE_TIMEOUT",
    ResponseSizeLimit => "RESPONSE_SIZE_LIMIT",
    ContextBudgetExceeded => "CONTEXT_BUDGET_EXCEEDED",
    Offline => "OFFLINE",
    KnowledgeUnavailable => "KNOWLEDGE_UNAVAILABLE",
}

fn edge_code_name(code: crate::api::ErrorCode) -> String {
    serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "EDGE_ERROR".into())
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        Ok(Self::parse(&code))
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.as_str())
    }
}

/// A failure stored on a message, shown as a status block with Retry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationError {
    /// What went wrong.
    pub code: ErrorCode,
    /// The values the code's sentence names (`seconds`, `status`…).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, String>,
    /// The provider's or the edge's own words, shown as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The English sentence of a record written before codes were typed (empty since).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Whether retrying can help.
    pub recoverable: bool,
}

/// The parameter marking a failure met after the browser was blocked.
const BROWSER_BLOCKED: &str = "browserBlocked";

/// The most characters of a provider's or the edge's words kept.
const MAX_DETAIL_CHARS: usize = 500;

impl GenerationError {
    fn of(code: ErrorCode, recoverable: bool) -> Self {
        Self {
            code,
            params: BTreeMap::new(),
            detail: None,
            message: String::new(),
            recoverable,
        }
    }

    fn with(mut self, name: &str, value: impl ToString) -> Self {
        self.params.insert(name.to_string(), value.to_string());
        self
    }

    fn detailed(mut self, detail: Option<&str>) -> Self {
        self.detail = detail
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| d.chars().take(MAX_DETAIL_CHARS).collect());
        self
    }

    /// Whether this record predates typed codes (its sentence is its stored `message`).
    pub fn is_legacy(&self) -> bool {
        !self.message.is_empty()
    }

    /// The code, its parameters and detail on one line, for logs.
    pub fn log_line(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let mut line = format!("{} {}", self.code, params.join(" "));
        if let Some(detail) = self
            .detail
            .as_ref()
            .or(Some(&self.message).filter(|m| !m.is_empty()))
        {
            line.push_str(": ");
            line.push_str(detail);
        }
        line.trim().to_string()
    }

    /// Something that should not happen in a working browser (`what` is for the logs).
    pub fn internal(what: &str) -> Self {
        Self::of(ErrorCode::Internal, true).detailed(Some(what))
    }

    /// There is no question to answer.
    pub fn no_messages() -> Self {
        Self::of(ErrorCode::NoMessages, false)
    }

    /// The model's provider was removed.
    pub fn provider_missing() -> Self {
        Self::of(ErrorCode::ProviderMissing, false)
    }

    /// The provider's key could not be read from the vault.
    pub fn key_unreadable(why: &str) -> Self {
        Self::of(ErrorCode::KeyUnreadable, false).detailed(Some(why))
    }

    /// The key could not be sealed for the edge.
    pub fn seal_failed(why: &str) -> Self {
        Self::of(ErrorCode::SealFailed, true).detailed(Some(why))
    }

    /// The request could not be built for the provider's protocol.
    pub fn invalid_request(why: &str) -> Self {
        Self::of(ErrorCode::InvalidRequest, false).detailed(Some(why))
    }

    /// Neither the browser nor the relay reached the provider (`detail`: what the relay
    /// said, if it answered).
    pub fn provider_unreachable(detail: Option<&str>) -> Self {
        Self::of(ErrorCode::ProviderUnreachable, true).detailed(detail)
    }

    /// The device is offline: nothing reached the provider or the relay. Retry sends the
    /// turn again once the network is back.
    pub fn offline() -> Self {
        Self::of(ErrorCode::Offline, true)
    }

    /// The conversation's knowledge collections could not be searched (their library
    /// unreadable, or the search worker failed): nothing was sent without them.
    pub fn knowledge_unavailable(why: &str) -> Self {
        Self::of(ErrorCode::KnowledgeUnavailable, true).detailed(Some(why))
    }

    /// The provider's stream carried an error.
    pub fn provider_error(message: &str) -> Self {
        Self::of(ErrorCode::ProviderError, true).detailed(Some(message))
    }

    /// The connection broke mid-reply.
    pub fn stream_interrupted() -> Self {
        Self::of(ErrorCode::StreamInterrupted, true)
    }

    /// The stream ended before the provider finished it.
    pub fn stream_truncated() -> Self {
        Self::of(ErrorCode::StreamTruncated, true)
    }

    /// The stream could not be read.
    pub fn stream_malformed(why: &str) -> Self {
        Self::of(ErrorCode::StreamMalformed, true).detailed(Some(why))
    }

    /// The provider sent nothing for `seconds`.
    pub fn response_timeout(seconds: u64) -> Self {
        Self::of(ErrorCode::ResponseTimeout, true).with("seconds", seconds)
    }

    /// The reply grew past `mib` MiB.
    pub fn response_size_limit(mib: usize) -> Self {
        Self::of(ErrorCode::ResponseSizeLimit, false).with("mib", mib)
    }

    /// The question (with what must go with it) does not fit the model's context.
    pub fn context(error: &ContextError) -> Self {
        match error {
            ContextError::BudgetExceeded { needed, available } => {
                Self::of(ErrorCode::ContextBudgetExceeded, error.recoverable())
                    .with("needed", needed)
                    .with("available", available)
            }
        }
    }

    /// A refusal of the edge's own (`code`), with what it said.
    pub fn edge(code: crate::api::ErrorCode, status: u16, message: &str) -> Self {
        Self::of(ErrorCode::Edge(code), status >= 500 || status == 429).detailed(Some(message))
    }

    /// The same failure, met by the relay after the browser was not allowed to call the
    /// provider directly (its sentence says both).
    pub fn after_browser_blocked(self) -> Self {
        self.with(BROWSER_BLOCKED, true)
    }

    /// Whether the browser was blocked before this failure (see
    /// [`after_browser_blocked`](Self::after_browser_blocked)).
    pub fn browser_blocked(&self) -> bool {
        self.params.contains_key(BROWSER_BLOCKED)
    }

    /// Classifies a provider's HTTP failure status.
    pub fn from_http_status(status: u16, provider_message: Option<&str>) -> Self {
        let (code, recoverable) = match status {
            401 | 403 => (ErrorCode::AuthFailed, false),
            404 => (ErrorCode::ModelNotFound, false),
            408 | 504 => (ErrorCode::Timeout, true),
            413 => (ErrorCode::RequestTooLarge, false),
            429 => (ErrorCode::RateLimited, true),
            400..=499 => (ErrorCode::BadRequest, false),
            _ => (ErrorCode::ProviderUnavailable, true),
        };
        Self::of(code, recoverable)
            .with("status", status)
            .detailed(provider_message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_their_stored_spelling() {
        for code in ErrorCode::OWN {
            assert_eq!(ErrorCode::parse(&code.as_str()), *code);
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(serde_json::from_value::<ErrorCode>(json).unwrap(), *code);
        }
        let edge = ErrorCode::parse("URL_BLOCKED");
        assert_eq!(edge, ErrorCode::Edge(crate::api::ErrorCode::UrlBlocked));
        assert_eq!(edge.as_str(), "URL_BLOCKED");
        let future = ErrorCode::parse("SOMETHING_NEW");
        assert_eq!(future, ErrorCode::Other("SOMETHING_NEW".into()));
        assert_eq!(future.as_str(), "SOMETHING_NEW");
    }

    #[test]
    fn http_failures_are_classified_with_recoverability() {
        let cases = [
            (401, ErrorCode::AuthFailed, false),
            (403, ErrorCode::AuthFailed, false),
            (404, ErrorCode::ModelNotFound, false),
            (408, ErrorCode::Timeout, true),
            (413, ErrorCode::RequestTooLarge, false),
            (429, ErrorCode::RateLimited, true),
            (400, ErrorCode::BadRequest, false),
            (503, ErrorCode::ProviderUnavailable, true),
            (504, ErrorCode::Timeout, true),
        ];
        for (status, code, recoverable) in cases {
            let error = GenerationError::from_http_status(status, None);
            assert_eq!(
                (&error.code, error.recoverable),
                (&code, recoverable),
                "{status}"
            );
            assert_eq!(error.params["status"], status.to_string());
            assert_eq!(error.detail, None);
        }
        let error = GenerationError::from_http_status(401, Some("  invalid x-api-key "));
        assert_eq!(error.detail.as_deref(), Some("invalid x-api-key"));
        let long = "x".repeat(2000);
        let error = GenerationError::from_http_status(500, Some(&long));
        assert_eq!(error.detail.unwrap().chars().count(), MAX_DETAIL_CHARS);
    }

    #[test]
    fn a_new_error_is_stored_as_code_and_parameters_without_english() {
        let error = GenerationError::response_timeout(30);
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "code": "RESPONSE_TIMEOUT",
                "params": { "seconds": "30" },
                "recoverable": true,
            })
        );
        assert!(!error.is_legacy());
        let back: GenerationError = serde_json::from_value(json).unwrap();
        assert_eq!(back, error);
    }

    #[test]
    fn a_record_written_with_string_codes_still_opens() {
        let stored = serde_json::json!({
            "code": "RESPONSE_TIMEOUT",
            "message": "The provider sent nothing for 30 s, so the reply was given up",
            "recoverable": true,
        });
        let error: GenerationError = serde_json::from_value(stored).unwrap();
        assert_eq!(error.code, ErrorCode::ResponseTimeout);
        assert!(error.is_legacy());
        assert!(error.params.is_empty());
        let unknown: GenerationError = serde_json::from_value(serde_json::json!({
            "code": "SEAL_FAILED", "message": "no key", "recoverable": true
        }))
        .unwrap();
        assert_eq!(unknown.code, ErrorCode::SealFailed);
    }

    #[test]
    fn edge_refusals_keep_the_edge_code_and_its_words() {
        let error =
            GenerationError::edge(crate::api::ErrorCode::UrlBlocked, 403, "private address");
        assert_eq!(error.code.as_str(), "URL_BLOCKED");
        assert_eq!(error.detail.as_deref(), Some("private address"));
        assert!(!error.recoverable);
        assert!(GenerationError::edge(crate::api::ErrorCode::RateLimited, 429, "").recoverable);
    }

    #[test]
    fn a_context_error_carries_its_figures() {
        let error = GenerationError::context(&ContextError::BudgetExceeded {
            needed: 900,
            available: 500,
        });
        assert_eq!(error.code, ErrorCode::ContextBudgetExceeded);
        assert_eq!(error.params["needed"], "900");
        assert_eq!(error.params["available"], "500");
        assert_eq!(
            error.log_line(),
            "CONTEXT_BUDGET_EXCEEDED available=500 needed=900"
        );
    }
}
