//! A sign-in that leaves the tab: when the browser will not open a login window, the
//! tab itself goes to the authorization server and comes back to Hearth, which starts
//! afresh. What the tab must remember across that journey is an [`AwaySignIn`] (kept in
//! the vault, since it holds the PKCE verifier and perhaps a client secret): the plan,
//! the client, the verifier and `state`, what the session is for once it exists, and
//! when the tab left; [`AwaySignIn::code`] reads the answer back with the same checks as
//! a login window's.

use serde::{Deserialize, Serialize};

use super::client::Client;
use super::{OauthError, SignInPlan, flow};
use crate::api::PluginInstallRequest;

/// How long the tab may be away before its answer is refused (ms): as long as a login
/// window is waited for.
pub const MAX_AWAY_MS: u64 = 10 * 60 * 1000;

/// What the session is for, once the tab is back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AfterSignIn {
    /// Install the MCP server that asked for the sign-in, with the session.
    Install(Box<PluginInstallRequest>),
    /// Keep the session for this installed plugin.
    Keep {
        /// The plugin's id.
        plugin_id: String,
    },
}

/// A sign-in while the tab is at the authorization server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AwaySignIn {
    /// The MCP server signed in to.
    pub server_url: String,
    /// The plan the authorization request was made with.
    pub plan: SignInPlan,
    /// The client it was made as.
    pub client: Client,
    /// The PKCE verifier.
    pub verifier: String,
    /// The `state` sent.
    pub state: String,
    /// The redirect URI sent.
    pub redirect_uri: String,
    /// When the tab left (ms since the epoch).
    pub left_at: u64,
    /// What the session is for.
    pub then: AfterSignIn,
}

impl AwaySignIn {
    /// As kept in the vault.
    pub fn to_stored(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Read back from the vault; `None` for anything else.
    pub fn from_stored(stored: &str) -> Option<Self> {
        serde_json::from_str(stored).ok()
    }

    /// Whether an answer at `now` comes too late (or from before the tab left: a clock
    /// that moved back is not trusted either).
    pub fn is_too_late(&self, now: u64) -> bool {
        now < self.left_at || now - self.left_at > MAX_AWAY_MS
    }

    /// The authorization code of the redirect's `query`, checked as a login window's
    /// answer is ([`flow::read_redirect`]: this sign-in's `state`, the issuer, no error).
    pub fn code(&self, query: &str) -> Result<String, OauthError> {
        flow::read_redirect(query, &self.state, &self.plan)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::plugin::oauth::client::TokenAuth;

    fn away(then: AfterSignIn) -> AwaySignIn {
        AwaySignIn {
            server_url: "https://mcp.example/mcp".into(),
            plan: SignInPlan {
                resource: "https://mcp.example/mcp".into(),
                issuer: "https://auth.example".into(),
                authorization_endpoint: "https://auth.example/authorize".into(),
                token_endpoint: "https://auth.example/token".into(),
                registration_endpoint: None,
                revocation_endpoint: None,
                metadata_document_client: true,
                issuer_in_redirect: true,
                token_auth_methods: vec!["none".into()],
                scope: Some("mcp".into()),
            },
            client: Client {
                client_id: "https://hearth.example/oauth/client-metadata.json".into(),
                client_secret: Some("s3cret".into()),
                token_auth: TokenAuth::ClientSecretPost,
            },
            verifier: "v".repeat(43),
            state: "st4te".into(),
            redirect_uri: "https://hearth.example/oauth/callback.html".into(),
            left_at: 1_000_000,
            then,
        }
    }

    fn install() -> AfterSignIn {
        AfterSignIn::Install(Box::new(PluginInstallRequest {
            spec: None,
            manifest_url: None,
            mcp_url: Some("https://mcp.example/mcp".into()),
            auth: None,
            auth_header: None,
            mcp_headers: BTreeMap::from([("X-Workspace".into(), "team-a".into())]),
            oauth: false,
        }))
    }

    #[test]
    fn what_the_tab_keeps_reads_back_whole_for_either_purpose() {
        for then in [
            install(),
            AfterSignIn::Keep {
                plugin_id: "mcp:abc".into(),
            },
        ] {
            let kept = away(then);
            assert_eq!(AwaySignIn::from_stored(&kept.to_stored()), Some(kept));
        }
        assert_eq!(AwaySignIn::from_stored("token-pasted-by-hand"), None);
        assert_eq!(AwaySignIn::from_stored("{\"serverUrl\":\"x\"}"), None);
    }

    #[test]
    fn an_answer_is_taken_only_within_the_time_a_login_window_gets() {
        let kept = away(install());
        assert!(!kept.is_too_late(kept.left_at));
        assert!(!kept.is_too_late(kept.left_at + MAX_AWAY_MS));
        assert!(kept.is_too_late(kept.left_at + MAX_AWAY_MS + 1));
        assert!(kept.is_too_late(kept.left_at - 1));
    }

    #[test]
    fn the_answer_is_checked_like_a_login_windows() {
        let kept = away(install());
        assert_eq!(
            kept.code("code=abc&state=st4te&iss=https%3A%2F%2Fauth.example"),
            Ok("abc".into())
        );
        // Another sign-in's answer, a forged one, or one with no state.
        assert_eq!(
            kept.code("code=abc&state=other&iss=https%3A%2F%2Fauth.example"),
            Err(OauthError::StateMismatch)
        );
        assert_eq!(kept.code("code=abc"), Err(OauthError::StateMismatch));
        // A mix-up: another issuer answered, or none said who it is.
        assert!(matches!(
            kept.code("code=abc&state=st4te&iss=https%3A%2F%2Fevil.example"),
            Err(OauthError::IssuerMismatch { .. })
        ));
        assert!(matches!(
            kept.code("code=abc&state=st4te"),
            Err(OauthError::IssuerMismatch { .. })
        ));
        // The user said no.
        assert!(matches!(
            kept.code("error=access_denied&state=st4te&iss=https%3A%2F%2Fauth.example"),
            Err(OauthError::Denied { error, .. }) if error == "access_denied"
        ));
    }
}
