//! The wire types of the edge's OAuth routes for MCP servers (`/api/mcp/oauth/*`): the
//! browser runs the sign-in (login window, PKCE, state, the vault), the edge fetches what
//! a browser cannot (cross-origin metadata, registration, the token endpoint) through
//! the URL policy. Secrets reach the edge only sealed: the refresh token, a client secret
//! and a token to revoke travel in one envelope ([`OauthSecrets`], context `mcp:oauth`).

use serde::{Deserialize, Serialize};

use crate::byok::Envelope;
use crate::plugin::oauth::client::TokenAuth;

/// `POST /api/mcp/oauth/discover`: how to sign in to the MCP server at `server_url`.
/// Answered with a `SignInPlan`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OauthDiscoverRequest {
    /// The MCP server's endpoint.
    pub server_url: String,
    /// The plain headers the server is given with every request (checked like an
    /// install's, `core::plugin::headers`): a server behind a gateway may not answer the
    /// probe without them.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub headers: std::collections::BTreeMap<String, String>,
}

/// `POST /api/mcp/oauth/register`: dynamic client registration at the server's
/// authorization server. Answered with a `Client`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OauthRegisterRequest {
    /// The MCP server's endpoint (decides the policy the endpoint is fetched under).
    pub server_url: String,
    /// The registration endpoint, from the plan.
    pub registration_endpoint: String,
    /// Hearth's redirect URI.
    pub redirect_uri: String,
    /// The scope to register for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// What a token request exchanges (the refresh token itself travels sealed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "type"
)]
pub enum OauthTokenGrant {
    /// An authorization code and its PKCE verifier (single use, bound to the verifier).
    Code {
        /// The code.
        code: String,
        /// The PKCE verifier.
        verifier: String,
        /// The redirect URI of the authorization request.
        redirect_uri: String,
    },
    /// The refresh token in the sealed secrets.
    Refresh,
}

/// The secrets of a token request, sealed as one JSON envelope for `mcp:oauth`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OauthSecrets {
    /// The refresh token, for a refresh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// The client's secret, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The access token, for a revocation of a grant without a refresh token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
}

/// `POST /api/mcp/oauth/revoke`: Sign out at the authorization server (RFC 7009): the
/// refresh token in the sealed secrets, else the access token. Answered with
/// `{"revoked": true}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OauthRevokeRequest {
    /// The MCP server's endpoint (decides the policy the endpoint is fetched under).
    pub server_url: String,
    /// The revocation endpoint, from the plan.
    pub revocation_endpoint: String,
    /// The client.
    pub client_id: String,
    /// How the client authenticates.
    pub token_auth: TokenAuth,
    /// [`OauthSecrets`], sealed for `mcp:oauth`.
    pub secrets: Envelope,
}

/// `POST /api/mcp/oauth/token`: a code exchange or a refresh. Answered with `Tokens`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OauthTokenRequest {
    /// The MCP server's endpoint (decides the policy the endpoint is fetched under).
    pub server_url: String,
    /// The token endpoint, from the plan.
    pub token_endpoint: String,
    /// The resource indicator (RFC 8707).
    pub resource: String,
    /// The client.
    pub client_id: String,
    /// How the client authenticates.
    pub token_auth: TokenAuth,
    /// What is exchanged.
    pub grant: OauthTokenGrant,
    /// [`OauthSecrets`], sealed for `mcp:oauth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secrets: Option<Envelope>,
}
