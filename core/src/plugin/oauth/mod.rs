//! OAuth 2.1 for remote MCP servers, as the MCP authorization specification (2025-11-25)
//! asks: the rules of each step, with no I/O (the edge fetches, the browser opens the
//! login window and keeps the tokens in its vault).
//!
//! - [`challenge`]: a 401's `WWW-Authenticate: Bearer …` read into its parameters
//!   (`resource_metadata`, `scope`, `error`).
//! - [`discovery`]: where protected-resource metadata (RFC 9728) and authorization-server
//!   metadata (RFC 8414, then OpenID Connect) are looked for, and both documents read
//!   with their checks: the resource is this server, the issuer is the one asked for
//!   (a mix-up defence), S256 PKCE is offered. Which target policy each URL is fetched
//!   under ([`discovery::fetch_target`]): only the MCP server's own origin is the user's
//!   choice; any other endpoint a server advertises is remote-chosen (public HTTPS).
//! - [`client`]: which client identity to use (a static client the user entered, then a
//!   Client ID Metadata Document, then dynamic registration, RFC 7591), the registration
//!   request and answer, and Hearth's own metadata document.
//! - [`flow`]: PKCE (S256) and `state`, the authorization URL with the `resource`
//!   indicator (RFC 8707), the redirect read back (state, RFC 9207 `iss`, errors), the
//!   token requests (code and refresh) and their answers, and when to refresh.
//!
//! - [`away`]: a sign-in that takes the whole tab to the authorization server (when the
//!   browser will not open a login window): what is kept while away, and the answer read
//!   back.
//!
//! Every failure is an [`OauthError`] with a stable reason the app renders in the
//! user's language.

pub mod away;
pub mod challenge;
pub mod client;
pub mod discovery;
pub mod flow;

use serde::{Deserialize, Serialize};

/// The most bytes of any OAuth document or answer read (metadata, registration, tokens).
pub const MAX_DOCUMENT_BYTES: usize = 64 * 1024;
/// The most characters of any URL, token or identifier taken from a document.
pub const MAX_FIELD_CHARS: usize = 4_096;

/// Why a step of the login failed. The reason (`reason()`) is stable: the app renders
/// it, the edge answers it in `details.reason`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OauthError {
    /// A document is not the JSON object it should be, or lacks a field it must have.
    #[error("the {document} is not valid: {detail}")]
    BadDocument {
        /// Which document.
        document: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// No protected-resource or authorization-server metadata was found.
    #[error("the server does not describe how to sign in")]
    NoMetadata,
    /// The protected-resource metadata names another resource than this server.
    #[error("the protected-resource metadata is for `{0}`, not this server")]
    ResourceMismatch(String),
    /// The authorization server's metadata states another issuer than the one asked for
    /// (RFC 8414 §3.3), or the redirect carried another `iss` (RFC 9207).
    #[error("the authorization server says it is `{found}`, not `{expected}`")]
    IssuerMismatch {
        /// The issuer asked for.
        expected: String,
        /// The issuer found.
        found: String,
    },
    /// The authorization server does not offer S256 PKCE.
    #[error("the authorization server does not offer PKCE with S256")]
    PkceUnsupported,
    /// Neither a client the user entered, a metadata document nor registration can
    /// identify Hearth to this authorization server.
    #[error("this authorization server needs a client ID")]
    NeedsClient,
    /// The redirect's `state` is not the one sent (a forged or stale answer).
    #[error("the sign-in answer does not belong to this sign-in")]
    StateMismatch,
    /// The user or the server refused the authorization.
    #[error("the authorization server refused: {error}")]
    Denied {
        /// The OAuth error code (`access_denied`, …).
        error: String,
        /// Its description, bounded (shown as text).
        description: String,
    },
    /// The token endpoint refused (`invalid_grant`: the code or refresh token is no
    /// longer valid, so a new sign-in is needed).
    #[error("the token endpoint refused: {error}")]
    TokenRefused {
        /// The OAuth error code.
        error: String,
        /// Its description, bounded.
        description: String,
    },
}

impl OauthError {
    /// The stable reason, in camelCase.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::BadDocument { .. } => "badDocument",
            Self::NoMetadata => "noMetadata",
            Self::ResourceMismatch(_) => "resourceMismatch",
            Self::IssuerMismatch { .. } => "issuerMismatch",
            Self::PkceUnsupported => "pkceUnsupported",
            Self::NeedsClient => "needsClient",
            Self::StateMismatch => "stateMismatch",
            Self::Denied { .. } => "denied",
            Self::TokenRefused { .. } => "tokenRefused",
        }
    }

    /// The error a `reason` names, as the edge answers it (`details.reason`), with the
    /// server's OAuth `error` code and the answer's text as `detail`; an unknown reason is
    /// a bad document.
    pub fn from_reason(reason: &str, error: String, detail: String) -> Self {
        match reason {
            "noMetadata" => Self::NoMetadata,
            "resourceMismatch" => Self::ResourceMismatch(detail),
            "issuerMismatch" => Self::IssuerMismatch {
                expected: String::new(),
                found: detail,
            },
            "pkceUnsupported" => Self::PkceUnsupported,
            "needsClient" => Self::NeedsClient,
            "stateMismatch" => Self::StateMismatch,
            "denied" => Self::Denied {
                error,
                description: detail,
            },
            "tokenRefused" => Self::TokenRefused {
                error,
                description: detail,
            },
            _ => Self::BadDocument {
                document: "answer",
                detail,
            },
        }
    }

    /// Whether the user must sign in again (nothing else can make this work).
    pub fn needs_sign_in(&self) -> bool {
        matches!(self, Self::TokenRefused { error, .. } if error == "invalid_grant")
    }
}

/// Every reason [`OauthError::reason`] can give, for the app's translations.
pub const REASONS: [&str; 9] = [
    "badDocument",
    "noMetadata",
    "resourceMismatch",
    "issuerMismatch",
    "pkceUnsupported",
    "needsClient",
    "stateMismatch",
    "denied",
    "tokenRefused",
];

/// What the browser needs to sign in to one MCP server, found by the edge
/// ([`discovery`]): the authorization server's endpoints and what it supports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInPlan {
    /// The resource indicator to ask tokens for (RFC 8707): the MCP server.
    pub resource: String,
    /// The authorization server's issuer (checked against the redirect's `iss`).
    pub issuer: String,
    /// Where the login window goes.
    pub authorization_endpoint: String,
    /// Where codes and refresh tokens are exchanged.
    pub token_endpoint: String,
    /// Dynamic client registration, when offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// Token revocation (RFC 7009), when offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<String>,
    /// Whether a Client ID Metadata Document is accepted as `client_id`.
    #[serde(default)]
    pub metadata_document_client: bool,
    /// Whether the redirect carries `iss` (RFC 9207); then it must.
    #[serde(default)]
    pub issuer_in_redirect: bool,
    /// The token endpoint's client authentication methods, as offered.
    #[serde(default)]
    pub token_auth_methods: Vec<String>,
    /// The scope to ask for, when the server named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// A sign-in the browser keeps in its vault (one per MCP plugin): how to refresh and
/// what to send. Stored as JSON in the place of a plain credential.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OauthSession {
    /// The plan it was made with (token endpoint, resource, issuer).
    pub plan: SignInPlan,
    /// The client identity it used.
    pub client: client::Client,
    /// The current tokens.
    pub tokens: flow::Tokens,
}

impl OauthSession {
    /// The session in a stored credential, if it is one (a plain token is not).
    pub fn from_stored(stored: &str) -> Option<Self> {
        stored
            .trim_start()
            .starts_with('{')
            .then(|| serde_json::from_str(stored).ok())
            .flatten()
    }

    /// The session as stored.
    pub fn to_stored(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// `text` cut to [`MAX_FIELD_CHARS`] characters.
fn bounded(text: &str) -> String {
    text.chars().take(MAX_FIELD_CHARS).collect()
}

/// A JSON object from `body`, or why not.
fn object(
    body: &[u8],
    document: &'static str,
) -> Result<serde_json::Map<String, serde_json::Value>, OauthError> {
    if body.len() > MAX_DOCUMENT_BYTES {
        return Err(OauthError::BadDocument {
            document,
            detail: format!("it is larger than {MAX_DOCUMENT_BYTES} bytes"),
        });
    }
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(_) => Err(OauthError::BadDocument {
            document,
            detail: "it is not a JSON object".into(),
        }),
        Err(error) => Err(OauthError::BadDocument {
            document,
            detail: error.to_string(),
        }),
    }
}

/// The string field `name` of `map`, bounded, when present and a non-empty string.
fn string_field(map: &serde_json::Map<String, serde_json::Value>, name: &str) -> Option<String> {
    map.get(name)
        .and_then(serde_json::Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(bounded)
}

/// The array-of-strings field `name` of `map` (strings only, at most 100).
fn strings_field(map: &serde_json::Map<String, serde_json::Value>, name: &str) -> Vec<String> {
    map.get(name)
        .and_then(serde_json::Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(serde_json::Value::as_str)
                .take(100)
                .map(bounded)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_names_its_error_and_back() {
        for reason in REASONS {
            let error = OauthError::from_reason(reason, "e".into(), "d".into());
            assert_eq!(error.reason(), reason);
        }
        let unknown = OauthError::from_reason("somethingNew", String::new(), "d".into());
        assert_eq!(unknown.reason(), "badDocument");
        let refused = OauthError::from_reason("tokenRefused", "invalid_grant".into(), "d".into());
        assert!(refused.needs_sign_in());
    }

    #[test]
    fn only_an_invalid_grant_asks_for_a_new_sign_in() {
        let refused = |error: &str| OauthError::TokenRefused {
            error: error.into(),
            description: String::new(),
        };
        assert!(refused("invalid_grant").needs_sign_in());
        assert!(!refused("invalid_client").needs_sign_in());
        assert!(!OauthError::StateMismatch.needs_sign_in());
    }

    #[test]
    fn a_session_is_told_apart_from_a_plain_token() {
        let session = OauthSession {
            plan: SignInPlan {
                resource: "https://mcp.example/mcp".into(),
                issuer: "https://auth.example/".into(),
                authorization_endpoint: "https://auth.example/authorize".into(),
                token_endpoint: "https://auth.example/token".into(),
                registration_endpoint: None,
                revocation_endpoint: None,
                metadata_document_client: false,
                issuer_in_redirect: true,
                token_auth_methods: Vec::new(),
                scope: None,
            },
            client: client::Client {
                client_id: "c".into(),
                client_secret: None,
                token_auth: client::TokenAuth::None,
            },
            tokens: flow::Tokens {
                access_token: "at".into(),
                refresh_token: Some("rt".into()),
                expires_at: Some(5),
                scope: None,
            },
        };
        assert_eq!(
            OauthSession::from_stored(&session.to_stored()),
            Some(session)
        );
        assert_eq!(OauthSession::from_stored("sk-plain-token"), None);
        assert_eq!(OauthSession::from_stored("{not json"), None);
    }

    #[test]
    fn a_document_must_be_a_bounded_json_object() {
        assert!(object(b"{}", "x").is_ok());
        assert_eq!(object(b"[]", "x").unwrap_err().reason(), "badDocument");
        assert_eq!(object(b"{", "x").unwrap_err().reason(), "badDocument");
        let big = format!("{{\"a\":\"{}\"}}", "x".repeat(MAX_DOCUMENT_BYTES));
        assert_eq!(
            object(big.as_bytes(), "x").unwrap_err().reason(),
            "badDocument"
        );
    }
}
