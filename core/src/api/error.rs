//! The one error shape of every edge route.
//!
//! Every failure a route reports is an [`ApiError`]: a human-readable `error`, a stable
//! machine-readable [`ErrorCode`], the HTTP `statusCode` repeated in the body (clients that
//! only see the body, such as a stream consumer, still know it), optional structured
//! `details`, and `retryAfter` in seconds where waiting helps.

use serde::{Deserialize, Serialize};

/// Stable, machine-readable error codes. The wire form is SCREAMING_SNAKE_CASE and never
/// changes once shipped: clients branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The request was malformed or failed validation.
    BadRequest,
    /// No route matches the path.
    NotFound,
    /// The route exists but not for this method.
    MethodNotAllowed,
    /// The body is larger than the route accepts.
    PayloadTooLarge,
    /// The body is not JSON (`Content-Type`).
    UnsupportedMediaType,
    /// The request names a host this edge does not answer for (DNS rebinding defence).
    HostNotAllowed,
    /// The deployment is password-protected and the request has no valid session.
    AccessRequired,
    /// The deployment password was wrong.
    AccessPasswordInvalid,
    /// Too many wrong passwords from this client; it must wait.
    AccessPasswordLocked,
    /// A state-changing request came from another origin.
    CsrfOriginBlocked,
    /// A BYOK envelope could not be opened (wrong key id, wrong context, tampered).
    AuthError,
    /// The request carried a secret in plaintext instead of an envelope.
    PlaintextSecretRefused,
    /// The target URL or one of its addresses is not allowed.
    UrlBlocked,
    /// The upstream did not answer in time.
    ResponseTimeout,
    /// The upstream's answer exceeded the size limit.
    ResponseSizeLimit,
    /// The upstream redirected too often.
    TooManyRedirects,
    /// The upstream could not be reached.
    UpstreamUnreachable,
    /// The upstream answered with an error status.
    UpstreamError,
    /// A plugin function's contract changed since the browser saw it: list the plugins
    /// again, and confirm again if the call needs it.
    FingerprintMismatch,
    /// The client must slow down.
    RateLimited,
    /// A document-parse job's secret is missing or wrong.
    DocumentJobForbidden,
    /// The uploaded file's bytes are not a type this route handles (the name is not
    /// believed).
    FileTypeUnsupported,
    /// The edge is parsing as many documents as it holds; try again shortly.
    DocumentJobsFull,
    /// A step of an OAuth sign-in to an MCP server failed; `details.reason` says which
    /// (`core::plugin::oauth::OauthError::reason`).
    OauthFailed,
    /// A dependency of the edge is unreachable or unconfigured.
    ServiceUnavailable,
    /// Something went wrong inside the edge; details are in its log, not in the response.
    Internal,
}

impl ErrorCode {
    /// Every code, for what must cover them all (the app words each in every locale). A
    /// new code goes here too: `status` and the app's sentences match on every code, and
    /// the tests that walk this list check what they give.
    pub const ALL: [Self; 26] = [
        Self::BadRequest,
        Self::NotFound,
        Self::MethodNotAllowed,
        Self::PayloadTooLarge,
        Self::UnsupportedMediaType,
        Self::HostNotAllowed,
        Self::AccessRequired,
        Self::AccessPasswordInvalid,
        Self::AccessPasswordLocked,
        Self::CsrfOriginBlocked,
        Self::AuthError,
        Self::PlaintextSecretRefused,
        Self::UrlBlocked,
        Self::ResponseTimeout,
        Self::ResponseSizeLimit,
        Self::TooManyRedirects,
        Self::UpstreamUnreachable,
        Self::UpstreamError,
        Self::FingerprintMismatch,
        Self::RateLimited,
        Self::DocumentJobForbidden,
        Self::FileTypeUnsupported,
        Self::DocumentJobsFull,
        Self::OauthFailed,
        Self::ServiceUnavailable,
        Self::Internal,
    ];

    /// The HTTP status that this code is answered with.
    pub fn status(self) -> u16 {
        match self {
            Self::BadRequest => 400,
            Self::NotFound => 404,
            Self::MethodNotAllowed => 405,
            Self::PayloadTooLarge => 413,
            Self::UnsupportedMediaType => 415,
            Self::HostNotAllowed => 421,
            Self::AccessRequired | Self::AccessPasswordInvalid => 401,
            Self::AccessPasswordLocked => 423,
            Self::CsrfOriginBlocked | Self::UrlBlocked => 403,
            Self::AuthError => 401,
            Self::PlaintextSecretRefused => 400,
            Self::ResponseTimeout => 504,
            Self::ResponseSizeLimit
            | Self::TooManyRedirects
            | Self::UpstreamUnreachable
            | Self::UpstreamError => 502,
            Self::FingerprintMismatch => 409,
            Self::RateLimited => 429,
            Self::DocumentJobForbidden => 403,
            Self::FileTypeUnsupported => 415,
            Self::DocumentJobsFull => 503,
            Self::OauthFailed => 502,
            Self::ServiceUnavailable => 503,
            Self::Internal => 500,
        }
    }
}

/// The JSON body of every error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiError {
    /// A sentence for people. Never contains a secret.
    pub error: String,
    /// A stable code for programs.
    pub code: ErrorCode,
    /// The HTTP status of the response that carried this body.
    pub status_code: u16,
    /// Structured context, such as the fields that failed validation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
    /// Seconds after which a retry may succeed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with the status that belongs to `code`.
    pub fn new(code: ErrorCode, error: impl Into<String>) -> Self {
        Self {
            error: error.into(),
            code,
            status_code: code.status(),
            details: None,
            retry_after: None,
        }
    }

    /// Attaches structured details.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Attaches a retry hint in seconds.
    pub fn with_retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} ({}): {}", self.code, self.status_code, self.error)
    }
}

impl std::error::Error for ApiError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serialises_to_the_documented_shape() {
        let err = ApiError::new(ErrorCode::RateLimited, "Too many requests")
            .with_retry_after(30)
            .with_details(json!({"family": "chat"}));
        let value = serde_json::to_value(&err).unwrap();
        assert_eq!(
            value,
            json!({
                "error": "Too many requests",
                "code": "RATE_LIMITED",
                "statusCode": 429,
                "details": {"family": "chat"},
                "retryAfter": 30
            })
        );
    }

    #[test]
    fn optional_fields_are_omitted_not_null() {
        let value = serde_json::to_value(ApiError::new(ErrorCode::NotFound, "nope")).unwrap();
        let object = value.as_object().unwrap();
        assert!(!object.contains_key("details"));
        assert!(!object.contains_key("retryAfter"));
        assert_eq!(object["statusCode"], 404);
    }

    #[test]
    fn round_trips_through_json() {
        let err = ApiError::new(ErrorCode::PayloadTooLarge, "too big");
        let back: ApiError = serde_json::from_str(&serde_json::to_string(&err).unwrap()).unwrap();
        assert_eq!(back, err);
    }

    #[test]
    fn every_code_maps_to_an_error_status() {
        for code in ErrorCode::ALL {
            let status = code.status();
            assert!((400..600).contains(&status), "{code:?} -> {status}");
        }
    }
}
