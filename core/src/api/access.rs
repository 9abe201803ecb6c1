//! The deployment password gate's wire types (`POST /api/access/verify`,
//! `GET /api/access/session`).

use serde::{Deserialize, Serialize};

/// The body of `POST /api/access/verify`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessVerifyRequest {
    /// The password the user typed.
    pub password: String,
}

/// The answer of `GET /api/access/session` (and of a successful verify).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessSession {
    /// Whether the deployment asks for a password at all.
    pub required: bool,
    /// Whether this browser holds a valid session.
    pub authenticated: bool,
    /// When the session ends (RFC 3339), if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

/// `details` of `ACCESS_PASSWORD_INVALID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvalidPasswordDetails {
    /// Wrong attempts left before this client is locked out.
    pub remaining_attempts: u32,
}

/// `details` of `ACCESS_PASSWORD_LOCKED`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockedDetails {
    /// When the lock ends (RFC 3339).
    pub locked_until: String,
}
