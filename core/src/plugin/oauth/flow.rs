//! One sign-in, step by step: PKCE (S256) and `state` from the caller's random bytes,
//! the authorization URL (with the `resource` indicator of RFC 8707 and the scope), the
//! redirect read back (its `state` must be ours, its `iss` the issuer's: RFC 9207), the
//! token requests for a code and for a refresh, their answers, and when a token is due
//! for refreshing.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use url::Url;
use url::form_urlencoded::byte_serialize;

use super::client::{Client, TokenAuth};
use super::{OauthError, SignInPlan, bounded, object, string_field};

/// A token is refreshed when it has less than this left (milliseconds).
pub const REFRESH_MARGIN_MS: u64 = 60_000;
/// The most characters kept of an error description from a server.
const MAX_DESCRIPTION_CHARS: usize = 300;

/// A PKCE pair: the verifier stays in the browser until the code is exchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pkce {
    /// 43 characters of base64url (32 random bytes).
    pub verifier: String,
    /// `BASE64URL(SHA256(verifier))`.
    pub challenge: String,
}

/// The PKCE pair made from 32 random bytes.
pub fn pkce(random: &[u8; 32]) -> Pkce {
    let verifier = URL_SAFE_NO_PAD.encode(random);
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    Pkce {
        verifier,
        challenge,
    }
}

/// A `state` made from 16 random bytes.
pub fn state(random: &[u8; 16]) -> String {
    URL_SAFE_NO_PAD.encode(random)
}

/// The URL the login window opens: the authorization endpoint with the code request.
pub fn authorization_url(
    plan: &SignInPlan,
    client_id: &str,
    redirect_uri: &str,
    challenge: &str,
    state: &str,
) -> Result<Url, OauthError> {
    let mut url = Url::parse(&plan.authorization_endpoint)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .ok_or_else(|| OauthError::BadDocument {
            document: "authorization-server metadata",
            detail: "`authorization_endpoint` is not an HTTP(S) URL".into(),
        })?;
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("code_challenge", challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", state)
            .append_pair("resource", &plan.resource);
        if let Some(scope) = &plan.scope {
            query.append_pair("scope", scope);
        }
    }
    Ok(url)
}

/// Whether two issuer identifiers are the same (as URLs; a bare origin with or without
/// its `/`).
fn same_issuer(a: &str, b: &str) -> bool {
    match (Url::parse(a), Url::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The code of the redirect's `query` (without its `?`), after its checks: the state is
/// `expected_state`, the `iss` (required when the server says it sends one) is the
/// plan's issuer, and no error was returned.
pub fn read_redirect(
    query: &str,
    expected_state: &str,
    plan: &SignInPlan,
) -> Result<String, OauthError> {
    let mut code = None;
    let mut state = None;
    let mut iss = None;
    let mut error = None;
    let mut description = String::new();
    for (name, value) in url::form_urlencoded::parse(query.trim_start_matches('?').as_bytes()) {
        match name.as_ref() {
            "code" => code = Some(value.into_owned()),
            "state" => state = Some(value.into_owned()),
            "iss" => iss = Some(value.into_owned()),
            "error" => error = Some(bounded(&value)),
            "error_description" => {
                description = value.chars().take(MAX_DESCRIPTION_CHARS).collect()
            }
            _ => {}
        }
    }
    if state.as_deref() != Some(expected_state) || expected_state.is_empty() {
        return Err(OauthError::StateMismatch);
    }
    match &iss {
        Some(found) if !same_issuer(found, &plan.issuer) => {
            return Err(OauthError::IssuerMismatch {
                expected: plan.issuer.clone(),
                found: bounded(found),
            });
        }
        None if plan.issuer_in_redirect => {
            return Err(OauthError::IssuerMismatch {
                expected: plan.issuer.clone(),
                found: String::new(),
            });
        }
        _ => {}
    }
    if let Some(error) = error {
        return Err(OauthError::Denied { error, description });
    }
    code.filter(|c| !c.is_empty())
        .ok_or_else(|| OauthError::Denied {
            error: "no_code".into(),
            description: "the answer carried no authorization code".into(),
        })
}

/// What a token request exchanges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// An authorization code, with its PKCE verifier and the redirect it came to.
    Code {
        /// The code.
        code: String,
        /// The PKCE verifier.
        verifier: String,
        /// The redirect URI of the authorization request.
        redirect_uri: String,
    },
    /// A refresh token.
    Refresh {
        /// The refresh token.
        refresh_token: String,
    },
}

/// A token request as sent: the form, and the `Authorization` header of a client that
/// authenticates with HTTP Basic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRequest {
    /// The `application/x-www-form-urlencoded` body.
    pub form: String,
    /// `Basic …`, for [`TokenAuth::ClientSecretBasic`].
    pub authorization: Option<String>,
}

/// RFC 6749 §2.3.1: Basic credentials are the form-encoded id and secret.
fn form_encoded(text: &str) -> String {
    byte_serialize(text.as_bytes()).collect()
}

/// The token request for `grant` by `client`, for `resource` (RFC 8707).
pub fn token_request(grant: &Grant, client: &Client, resource: &str) -> TokenRequest {
    let mut form = url::form_urlencoded::Serializer::new(String::new());
    match grant {
        Grant::Code {
            code,
            verifier,
            redirect_uri,
        } => {
            form.append_pair("grant_type", "authorization_code")
                .append_pair("code", code)
                .append_pair("code_verifier", verifier)
                .append_pair("redirect_uri", redirect_uri);
        }
        Grant::Refresh { refresh_token } => {
            form.append_pair("grant_type", "refresh_token")
                .append_pair("refresh_token", refresh_token);
        }
    }
    form.append_pair("resource", resource);
    authenticated(form, client)
}

/// The revocation request (RFC 7009) for `token`, a `refresh_token` or an `access_token`
/// (`hint`), by `client`.
pub fn revocation_request(token: &str, hint: &str, client: &Client) -> TokenRequest {
    let mut form = url::form_urlencoded::Serializer::new(String::new());
    form.append_pair("token", token)
        .append_pair("token_type_hint", hint);
    authenticated(form, client)
}

/// `form` with the client's identity: its `client_id` always (servers that take Basic
/// often still read it there, RFC 6749 §2.3.1 allows it, and a public client needs it),
/// its secret in Basic or in the form as it authenticates.
fn authenticated(
    mut form: url::form_urlencoded::Serializer<'_, String>,
    client: &Client,
) -> TokenRequest {
    form.append_pair("client_id", &client.client_id);
    let mut authorization = None;
    match (client.token_auth, client.client_secret.as_deref()) {
        (TokenAuth::ClientSecretBasic, Some(secret)) => {
            let pair = format!(
                "{}:{}",
                form_encoded(&client.client_id),
                form_encoded(secret)
            );
            authorization = Some(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            ));
        }
        (TokenAuth::ClientSecretPost, Some(secret)) => {
            form.append_pair("client_secret", secret);
        }
        _ => {}
    }
    TokenRequest {
        form: form.finish(),
        authorization,
    }
}

/// Tokens from one exchange. Kept in the vault; the access token reaches the edge sealed,
/// per call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tokens {
    /// The access token (sent as a bearer token).
    pub access_token: String,
    /// The refresh token, when the server gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires (milliseconds since the epoch), when stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scope granted, when stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// Reads a token endpoint's answer at `now` (milliseconds): a Bearer token, or the
/// refusal the server stated.
pub fn read_tokens(success: bool, body: &[u8], now: u64) -> Result<Tokens, OauthError> {
    const DOCUMENT: &str = "token answer";
    let map = object(body, DOCUMENT)?;
    if !success || map.contains_key("error") {
        return Err(OauthError::TokenRefused {
            error: string_field(&map, "error").unwrap_or_else(|| "server_error".into()),
            description: string_field(&map, "error_description")
                .map(|d| d.chars().take(MAX_DESCRIPTION_CHARS).collect())
                .unwrap_or_default(),
        });
    }
    let access_token = string_field(&map, "access_token").ok_or(OauthError::BadDocument {
        document: DOCUMENT,
        detail: "it has no `access_token`".into(),
    })?;
    let token_type = string_field(&map, "token_type").unwrap_or_default();
    if !token_type.eq_ignore_ascii_case("bearer") {
        return Err(OauthError::BadDocument {
            document: DOCUMENT,
            detail: format!("the token type is `{token_type}`, not Bearer"),
        });
    }
    let expires_at = map
        .get("expires_in")
        .and_then(serde_json::Value::as_u64)
        .map(|seconds| now.saturating_add(seconds.saturating_mul(1_000)));
    Ok(Tokens {
        access_token,
        refresh_token: string_field(&map, "refresh_token"),
        expires_at,
        scope: string_field(&map, "scope"),
    })
}

impl Tokens {
    /// These (refreshed) tokens, keeping `previous`'s refresh token when the server did
    /// not rotate it (RFC 6749 §6: a new one is optional).
    pub fn after_refresh(mut self, previous: &Tokens) -> Tokens {
        if self.refresh_token.is_none() {
            self.refresh_token = previous.refresh_token.clone();
        }
        self
    }

    /// Whether the access token should be refreshed before it is used at `now`.
    pub fn due_for_refresh(&self, now: u64) -> bool {
        self.refresh_token.is_some()
            && self
                .expires_at
                .is_some_and(|at| now.saturating_add(REFRESH_MARGIN_MS) >= at)
    }
}

/// The scope a sign-in asks for when a server said it needs `wanted` (a 403's
/// `insufficient_scope` challenge): the plan's own scope with every scope of `wanted` not
/// in it yet, in order (RFC 6749 §3.3: space-separated, each once).
pub fn widened_scope(planned: Option<&str>, wanted: &str) -> String {
    let mut scopes: Vec<&str> = Vec::new();
    for scope in planned
        .unwrap_or_default()
        .split_whitespace()
        .chain(wanted.split_whitespace())
    {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    scopes.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> SignInPlan {
        SignInPlan {
            resource: "https://mcp.example/mcp".into(),
            issuer: "https://auth.example/".into(),
            authorization_endpoint: "https://auth.example/authorize?tenant=7".into(),
            token_endpoint: "https://auth.example/token".into(),
            registration_endpoint: None,
            revocation_endpoint: None,
            metadata_document_client: false,
            issuer_in_redirect: true,
            token_auth_methods: Vec::new(),
            scope: Some("mcp:tools files".into()),
        }
    }

    #[test]
    fn pkce_follows_rfc_7636_appendix_b() {
        // RFC 7636 Appendix B's example octets and its expected values.
        let octets: [u8; 32] = [
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212,
            37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
        ];
        let pair = pkce(&octets);
        assert_eq!(pair.verifier, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
        assert_eq!(
            pair.challenge,
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert_eq!(state(&[0; 16]).len(), 22);
    }

    #[test]
    fn the_authorization_url_asks_for_a_code_with_pkce_state_and_resource() {
        let url = authorization_url(
            &plan(),
            "https://h.example/oauth/client-metadata.json",
            "https://h.example/oauth/callback.html",
            "CHALLENGE",
            "STATE",
        )
        .unwrap();
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let get = |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("tenant"), Some("7"), "the endpoint's own query is kept");
        assert_eq!(get("response_type"), Some("code"));
        assert_eq!(get("code_challenge_method"), Some("S256"));
        assert_eq!(get("code_challenge"), Some("CHALLENGE"));
        assert_eq!(get("state"), Some("STATE"));
        assert_eq!(get("resource"), Some("https://mcp.example/mcp"));
        assert_eq!(get("scope"), Some("mcp:tools files"));
        assert_eq!(
            get("client_id"),
            Some("https://h.example/oauth/client-metadata.json")
        );
        let script = SignInPlan {
            authorization_endpoint: "javascript:alert(1)".into(),
            ..plan()
        };
        assert!(authorization_url(&script, "c", "r", "x", "s").is_err());
    }

    #[test]
    fn the_redirect_gives_its_code_only_with_our_state_and_the_issuers_iss() {
        let plan = plan();
        assert_eq!(
            read_redirect(
                "code=abc&state=S&iss=https%3A%2F%2Fauth.example",
                "S",
                &plan
            ),
            Ok("abc".into())
        );
        assert_eq!(
            read_redirect(
                "?code=abc&state=S&iss=https%3A%2F%2Fauth.example%2F",
                "S",
                &plan
            ),
            Ok("abc".into())
        );
        assert_eq!(
            read_redirect(
                "code=abc&state=T&iss=https%3A%2F%2Fauth.example",
                "S",
                &plan
            ),
            Err(OauthError::StateMismatch)
        );
        assert_eq!(
            read_redirect("code=abc&iss=https%3A%2F%2Fauth.example", "S", &plan),
            Err(OauthError::StateMismatch)
        );
        assert_eq!(
            read_redirect("code=abc&state=", "", &plan),
            Err(OauthError::StateMismatch)
        );
        assert_eq!(
            read_redirect(
                "code=abc&state=S&iss=https%3A%2F%2Fevil.example",
                "S",
                &plan
            )
            .unwrap_err()
            .reason(),
            "issuerMismatch"
        );
        assert_eq!(
            read_redirect("code=abc&state=S", "S", &plan)
                .unwrap_err()
                .reason(),
            "issuerMismatch",
            "a server that says it sends iss must send it"
        );
        let silent = SignInPlan {
            issuer_in_redirect: false,
            ..plan.clone()
        };
        assert_eq!(
            read_redirect("code=abc&state=S", "S", &silent),
            Ok("abc".into())
        );
    }

    #[test]
    fn a_refusal_in_the_redirect_is_said_with_its_description() {
        let error = read_redirect(
            "error=access_denied&error_description=The+user+said+no&state=S&iss=https://auth.example/",
            "S",
            &plan(),
        )
        .unwrap_err();
        assert_eq!(
            error,
            OauthError::Denied {
                error: "access_denied".into(),
                description: "The user said no".into()
            }
        );
        // A forged refusal (wrong state) is a state mismatch, not a refusal.
        assert_eq!(
            read_redirect("error=access_denied&state=X", "S", &plan()),
            Err(OauthError::StateMismatch)
        );
    }

    fn form(request: &TokenRequest) -> Vec<(String, String)> {
        url::form_urlencoded::parse(request.form.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }

    #[test]
    fn a_code_exchange_carries_the_verifier_the_redirect_and_the_resource() {
        let public = Client {
            client_id: "id 1".into(),
            client_secret: None,
            token_auth: TokenAuth::None,
        };
        let grant = Grant::Code {
            code: "c&=".into(),
            verifier: "v".into(),
            redirect_uri: "https://h.example/oauth/callback.html".into(),
        };
        let request = token_request(&grant, &public, "https://mcp.example/mcp");
        assert_eq!(request.authorization, None);
        let pairs = form(&request);
        for (name, value) in [
            ("grant_type", "authorization_code"),
            ("code", "c&="),
            ("code_verifier", "v"),
            ("redirect_uri", "https://h.example/oauth/callback.html"),
            ("resource", "https://mcp.example/mcp"),
            ("client_id", "id 1"),
        ] {
            assert!(pairs.contains(&(name.into(), value.into())), "{name}");
        }
    }

    #[test]
    fn a_secret_goes_in_basic_or_in_the_form_never_both() {
        let grant = Grant::Refresh {
            refresh_token: "r".into(),
        };
        let basic = Client {
            client_id: "a:b".into(),
            client_secret: Some("s p".into()),
            token_auth: TokenAuth::ClientSecretBasic,
        };
        let request = token_request(&grant, &basic, "https://mcp.example/mcp");
        // RFC 6749 §2.3.1: each part form-encoded first.
        let expected = base64::engine::general_purpose::STANDARD.encode("a%3Ab:s+p");
        assert_eq!(request.authorization, Some(format!("Basic {expected}")));
        assert!(!form(&request).iter().any(|(k, _)| k == "client_secret"));
        assert!(form(&request).contains(&("client_id".into(), "a:b".into())));
        assert!(form(&request).contains(&("grant_type".into(), "refresh_token".into())));
        let post = Client {
            token_auth: TokenAuth::ClientSecretPost,
            ..basic
        };
        let request = token_request(&grant, &post, "https://mcp.example/mcp");
        assert_eq!(request.authorization, None);
        assert!(form(&request).contains(&("client_secret".into(), "s p".into())));
    }

    #[test]
    fn a_revocation_names_the_token_its_kind_and_the_client() {
        let post = Client {
            client_id: "c".into(),
            client_secret: Some("s".into()),
            token_auth: TokenAuth::ClientSecretPost,
        };
        let request = revocation_request("rt&1", "refresh_token", &post);
        let pairs = form(&request);
        for (name, value) in [
            ("token", "rt&1"),
            ("token_type_hint", "refresh_token"),
            ("client_id", "c"),
            ("client_secret", "s"),
        ] {
            assert!(pairs.contains(&(name.into(), value.into())), "{name}");
        }
        assert!(
            !pairs
                .iter()
                .any(|(k, _)| k == "resource" || k == "grant_type")
        );
    }

    #[test]
    fn a_token_answer_is_read_with_its_expiry() {
        let tokens = read_tokens(
            true,
            br#"{"access_token":"at","token_type":"bearer","expires_in":3600,"refresh_token":"rt","scope":"a"}"#,
            1_000,
        )
        .unwrap();
        assert_eq!(tokens.access_token, "at");
        assert_eq!(tokens.expires_at, Some(3_601_000));
        assert_eq!(tokens.refresh_token.as_deref(), Some("rt"));
        assert!(!tokens.due_for_refresh(1_000));
        assert!(tokens.due_for_refresh(3_601_000 - REFRESH_MARGIN_MS));
        let no_refresh = Tokens {
            refresh_token: None,
            ..tokens.clone()
        };
        assert!(
            !no_refresh.due_for_refresh(u64::MAX),
            "nothing to refresh with"
        );
        let rotated = no_refresh.after_refresh(&tokens);
        assert_eq!(rotated.refresh_token.as_deref(), Some("rt"));
    }

    #[test]
    fn a_refused_or_strange_token_answer_is_an_error() {
        let refused = read_tokens(
            false,
            br#"{"error":"invalid_grant","error_description":"revoked"}"#,
            0,
        )
        .unwrap_err();
        assert!(refused.needs_sign_in());
        assert_eq!(
            refused,
            OauthError::TokenRefused {
                error: "invalid_grant".into(),
                description: "revoked".into()
            }
        );
        assert_eq!(
            read_tokens(false, b"{}", 0).unwrap_err().reason(),
            "tokenRefused"
        );
        assert_eq!(
            read_tokens(true, br#"{"access_token":"a","token_type":"mac"}"#, 0)
                .unwrap_err()
                .reason(),
            "badDocument"
        );
        assert_eq!(
            read_tokens(true, br#"{"token_type":"Bearer"}"#, 0)
                .unwrap_err()
                .reason(),
            "badDocument"
        );
        assert_eq!(
            read_tokens(true, b"<html>", 0).unwrap_err().reason(),
            "badDocument"
        );
    }

    #[test]
    fn a_wider_scope_keeps_the_planned_one_and_adds_each_wanted_scope_once() {
        assert_eq!(
            widened_scope(Some("mcp:tools"), "mcp:tools mcp:admin"),
            "mcp:tools mcp:admin"
        );
        assert_eq!(widened_scope(None, " mcp:admin  mcp:admin "), "mcp:admin");
        assert_eq!(widened_scope(Some("a b"), ""), "a b");
        assert_eq!(widened_scope(Some("b  a"), "c a"), "b a c");
    }
}
