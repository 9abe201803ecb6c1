//! Which client identity Hearth signs in as, per authorization server, in the order the
//! MCP specification gives: a client the user entered (pre-registered with that
//! server), then a Client ID Metadata Document (Hearth's own URL as `client_id`, when
//! the server accepts one and can reach it), then dynamic client registration (RFC
//! 7591, as a public client: the browser holds no secret it did not have to), else the
//! user is asked for a client ID. Also the registration request and answer, and the
//! metadata document the edge serves.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use url::{Host, Url};

use super::{OauthError, SignInPlan, object, string_field};

/// Where Hearth's Client ID Metadata Document is served, on its own origin.
pub const METADATA_DOCUMENT_PATH: &str = "/oauth/client-metadata.json";
/// Where the login window comes back to, on Hearth's own origin.
pub const REDIRECT_PATH: &str = "/oauth/callback.html";
/// The name authorization servers show on their consent screens.
pub const CLIENT_NAME: &str = "Hearth";

/// How the token endpoint authenticates the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenAuth {
    /// A public client: its `client_id` in the form, no secret.
    None,
    /// The secret in the form (`client_secret_post`).
    ClientSecretPost,
    /// The secret as HTTP Basic (`client_secret_basic`).
    ClientSecretBasic,
}

/// A client identity at one authorization server. The secret, when there is one, is
/// kept in the vault with the tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Client {
    /// The `client_id`.
    pub client_id: String,
    /// The secret of a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the token endpoint is told who is asking.
    pub token_auth: TokenAuth,
}

/// How the client identity is obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientSource {
    /// The client the user entered.
    Entered(Client),
    /// Hearth's metadata document, at this URL.
    MetadataDocument(String),
    /// Register at the plan's registration endpoint.
    Register,
}

/// Whether an authorization server can fetch Hearth's metadata document at `document`:
/// it is on HTTPS, or both are on this machine's loopback (a local setup).
pub fn metadata_document_reachable(document: &str, plan: &SignInPlan) -> bool {
    let Ok(document) = Url::parse(document) else {
        return false;
    };
    let loopback = |url: &Url| match url.host() {
        Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    document.scheme() == "https"
        || (loopback(&document)
            && Url::parse(&plan.authorization_endpoint)
                .as_ref()
                .is_ok_and(loopback))
}

/// The token authentication for a client the user entered: none without a secret, else
/// Basic unless the server offers only the form.
pub fn entered_token_auth(plan: &SignInPlan, has_secret: bool) -> TokenAuth {
    let offers = |method: &str| plan.token_auth_methods.iter().any(|m| m == method);
    if !has_secret {
        TokenAuth::None
    } else if offers("client_secret_post") && !offers("client_secret_basic") {
        TokenAuth::ClientSecretPost
    } else {
        TokenAuth::ClientSecretBasic
    }
}

/// Which identity to sign in as: the entered client, else the metadata document (when
/// the server accepts one and can reach `document`), else registration, else
/// [`OauthError::NeedsClient`].
pub fn choose_client(
    plan: &SignInPlan,
    entered: Option<Client>,
    document: &str,
) -> Result<ClientSource, OauthError> {
    if let Some(client) = entered.filter(|c| !c.client_id.trim().is_empty()) {
        return Ok(ClientSource::Entered(client));
    }
    if plan.metadata_document_client && metadata_document_reachable(document, plan) {
        return Ok(ClientSource::MetadataDocument(document.to_string()));
    }
    if plan.registration_endpoint.is_some() {
        return Ok(ClientSource::Register);
    }
    Err(OauthError::NeedsClient)
}

/// Hearth's Client ID Metadata Document, served at `client_id` (its own URL).
pub fn metadata_document(client_id: &str, redirect_uri: &str) -> Value {
    json!({
        "client_id": client_id,
        "client_name": CLIENT_NAME,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

/// The dynamic registration request (RFC 7591 §2): a public client with one redirect.
pub fn registration_request(redirect_uri: &str, scope: Option<&str>) -> Value {
    let mut request = json!({
        "client_name": CLIENT_NAME,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    if let Some(scope) = scope {
        request["scope"] = Value::from(scope);
    }
    request
}

/// Reads a registration answer (RFC 7591 §3.2.1): the `client_id`, and a secret with
/// the method the server chose, if it gave one.
pub fn read_registration(body: &[u8]) -> Result<Client, OauthError> {
    const DOCUMENT: &str = "registration answer";
    let map = object(body, DOCUMENT)?;
    let client_id = string_field(&map, "client_id").ok_or(OauthError::BadDocument {
        document: DOCUMENT,
        detail: "it has no `client_id`".into(),
    })?;
    let client_secret = string_field(&map, "client_secret");
    let token_auth = match (
        client_secret.is_some(),
        string_field(&map, "token_endpoint_auth_method").as_deref(),
    ) {
        (false, _) | (true, Some("none")) => TokenAuth::None,
        (true, Some("client_secret_post")) => TokenAuth::ClientSecretPost,
        (true, _) => TokenAuth::ClientSecretBasic,
    };
    Ok(Client {
        client_id,
        client_secret: client_secret.filter(|_| token_auth != TokenAuth::None),
        token_auth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(authorization: &str) -> SignInPlan {
        SignInPlan {
            resource: "https://mcp.example/mcp".into(),
            issuer: "https://auth.example/".into(),
            authorization_endpoint: authorization.into(),
            token_endpoint: "https://auth.example/token".into(),
            registration_endpoint: Some("https://auth.example/register".into()),
            revocation_endpoint: None,
            metadata_document_client: true,
            issuer_in_redirect: true,
            token_auth_methods: vec!["none".into()],
            scope: None,
        }
    }

    #[test]
    fn the_entered_client_comes_first_then_the_document_then_registration() {
        let document = "https://hearth.example/oauth/client-metadata.json";
        let plan = plan("https://auth.example/authorize");
        let entered = Client {
            client_id: "mine".into(),
            client_secret: None,
            token_auth: TokenAuth::None,
        };
        assert_eq!(
            choose_client(&plan, Some(entered.clone()), document),
            Ok(ClientSource::Entered(entered))
        );
        let blank = Client {
            client_id: "  ".into(),
            client_secret: None,
            token_auth: TokenAuth::None,
        };
        assert_eq!(
            choose_client(&plan, Some(blank), document),
            Ok(ClientSource::MetadataDocument(document.to_string()))
        );
        let no_document = SignInPlan {
            metadata_document_client: false,
            ..plan.clone()
        };
        assert_eq!(
            choose_client(&no_document, None, document),
            Ok(ClientSource::Register)
        );
        let nothing = SignInPlan {
            registration_endpoint: None,
            ..no_document
        };
        assert_eq!(
            choose_client(&nothing, None, document),
            Err(OauthError::NeedsClient)
        );
    }

    #[test]
    fn a_document_on_plain_http_is_used_only_when_both_sides_are_this_machine() {
        let local = "http://127.0.0.1:8080/oauth/client-metadata.json";
        assert!(metadata_document_reachable(
            local,
            &plan("http://127.0.0.1:9000/authorize")
        ));
        assert!(metadata_document_reachable(
            local,
            &plan("http://localhost:9000/authorize")
        ));
        assert!(!metadata_document_reachable(
            local,
            &plan("https://auth.example/authorize")
        ));
        let lan = "http://192.168.1.5:8080/oauth/client-metadata.json";
        assert!(!metadata_document_reachable(
            lan,
            &plan("http://192.168.1.6/authorize")
        ));
        // A server that cannot reach the document gets a registration instead.
        let remote = plan("https://auth.example/authorize");
        assert_eq!(
            choose_client(&remote, None, local),
            Ok(ClientSource::Register)
        );
    }

    #[test]
    fn an_entered_secret_goes_where_the_server_takes_it() {
        let mut plan = plan("https://auth.example/authorize");
        assert_eq!(entered_token_auth(&plan, false), TokenAuth::None);
        plan.token_auth_methods = vec!["client_secret_post".into()];
        assert_eq!(entered_token_auth(&plan, true), TokenAuth::ClientSecretPost);
        plan.token_auth_methods = vec!["client_secret_post".into(), "client_secret_basic".into()];
        assert_eq!(
            entered_token_auth(&plan, true),
            TokenAuth::ClientSecretBasic
        );
    }

    #[test]
    fn registration_asks_for_a_public_client_and_reads_what_was_given() {
        let request = registration_request("https://h.example/oauth/callback.html", Some("a b"));
        assert_eq!(request["token_endpoint_auth_method"], "none");
        assert_eq!(
            request["redirect_uris"][0],
            "https://h.example/oauth/callback.html"
        );
        assert_eq!(request["scope"], "a b");
        assert!(registration_request("x", None).get("scope").is_none());

        let public = read_registration(br#"{"client_id":"abc"}"#).unwrap();
        assert_eq!(public.token_auth, TokenAuth::None);
        assert_eq!(public.client_secret, None);
        let confidential = read_registration(
            br#"{"client_id":"abc","client_secret":"s","token_endpoint_auth_method":"client_secret_post"}"#,
        )
        .unwrap();
        assert_eq!(confidential.token_auth, TokenAuth::ClientSecretPost);
        assert_eq!(confidential.client_secret.as_deref(), Some("s"));
        let basic = read_registration(br#"{"client_id":"abc","client_secret":"s"}"#).unwrap();
        assert_eq!(basic.token_auth, TokenAuth::ClientSecretBasic);
        assert_eq!(
            read_registration(br#"{"client_secret":"s"}"#)
                .unwrap_err()
                .reason(),
            "badDocument"
        );
    }

    #[test]
    fn the_metadata_document_names_itself_and_its_one_redirect() {
        let document = metadata_document(
            "https://h.example/oauth/client-metadata.json",
            "https://h.example/oauth/callback.html",
        );
        assert_eq!(
            document["client_id"],
            "https://h.example/oauth/client-metadata.json"
        );
        assert_eq!(
            document["redirect_uris"],
            json!(["https://h.example/oauth/callback.html"])
        );
        assert_eq!(document["token_endpoint_auth_method"], "none");
    }
}
