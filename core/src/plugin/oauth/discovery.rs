//! Where an MCP server's sign-in is described, and those descriptions read with their
//! checks.
//!
//! - Protected-resource metadata (RFC 9728): the URL a 401's challenge names, else the
//!   well-known URL with the server's path inserted, else the one at the origin's root
//!   ([`resource_metadata_urls`]). Its `resource` must be this server (same origin, a
//!   path that contains the server's); its first authorization server is the issuer.
//!   A server without it (the 2025-03-26 revision) has its authorization server at its
//!   own origin.
//! - Authorization-server metadata (RFC 8414 with the issuer's path inserted, then
//!   OpenID Connect discovery in both of its placements: [`server_metadata_urls`]). Its
//!   `issuer` must be identical to the issuer asked for (RFC 8414 §3.3, the mix-up
//!   defence), its endpoints HTTP(S) URLs, and it must offer S256 PKCE (the MCP
//!   specification: no PKCE, no sign-in).
//! - Under which policy each of these is fetched ([`fetch_target`]): the MCP server's own
//!   origin was chosen by the user; every other origin was chosen by the server, so it is
//!   remote-chosen (public HTTPS only, in every mode).

use url::Url;

use super::challenge::Challenge;
use super::{OauthError, SignInPlan, bounded, object, string_field, strings_field};
use crate::url_policy::Target;

/// What a protected-resource metadata document says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceMetadata {
    /// The resource it describes (checked to be this server).
    pub resource: String,
    /// Its authorization servers' issuers (the first is used).
    pub authorization_servers: Vec<String>,
    /// The scopes it supports.
    pub scopes_supported: Vec<String>,
}

/// What an authorization server's metadata says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerMetadata {
    /// Its issuer (identical to the one asked for).
    pub issuer: String,
    /// The authorization endpoint.
    pub authorization_endpoint: String,
    /// The token endpoint.
    pub token_endpoint: String,
    /// Dynamic client registration.
    pub registration_endpoint: Option<String>,
    /// Token revocation.
    pub revocation_endpoint: Option<String>,
    /// The scopes it supports.
    pub scopes_supported: Vec<String>,
    /// Whether a Client ID Metadata Document may be the `client_id`.
    pub metadata_document_client: bool,
    /// Whether the redirect carries `iss`.
    pub issuer_in_redirect: bool,
    /// The token endpoint's client authentication methods.
    pub token_auth_methods: Vec<String>,
}

/// The URL policy's target for fetching `url` while signing in to the MCP server at
/// `server`: the user chose the server's origin, the server chose every other one.
pub fn fetch_target(server: &Url, url: &Url) -> Target {
    if url.origin() == server.origin() {
        Target::UserConfigured
    } else {
        Target::RemoteChosen
    }
}

/// `origin` + `/.well-known/<name>` + `path` (a path of `/` adds nothing).
fn well_known(base: &Url, name: &str, path: &str) -> Url {
    let path = path.trim_end_matches('/');
    let mut url = base.clone();
    url.set_query(None);
    url.set_fragment(None);
    url.set_path(&format!("/.well-known/{name}{path}"));
    url
}

/// Where to look for the protected-resource metadata of the MCP server at `server`, in
/// order, without repeats.
pub fn resource_metadata_urls(server: &Url, challenge: Option<&Challenge>) -> Vec<Url> {
    let mut urls = Vec::new();
    if let Some(named) = challenge
        .and_then(|c| c.resource_metadata.as_deref())
        .and_then(|text| Url::parse(text).ok())
        .filter(|url| matches!(url.scheme(), "http" | "https"))
    {
        urls.push(named);
    }
    for path in [server.path(), ""] {
        let url = well_known(server, "oauth-protected-resource", path);
        if !urls.contains(&url) {
            urls.push(url);
        }
    }
    urls
}

/// Whether the resource `stated` covers the server at `server`: same origin, and the
/// server's path is the stated one or below it (at a segment boundary).
fn covers(stated: &Url, server: &Url) -> bool {
    if stated.origin() != server.origin() {
        return false;
    }
    let stated_path = stated.path().trim_end_matches('/');
    let server_path = server.path().trim_end_matches('/');
    server_path == stated_path
        || server_path
            .strip_prefix(stated_path)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Reads a protected-resource metadata document for the MCP server at `server`.
pub fn read_resource_metadata(body: &[u8], server: &Url) -> Result<ResourceMetadata, OauthError> {
    const DOCUMENT: &str = "protected-resource metadata";
    let map = object(body, DOCUMENT)?;
    let resource = string_field(&map, "resource").ok_or(OauthError::BadDocument {
        document: DOCUMENT,
        detail: "it has no `resource`".into(),
    })?;
    match Url::parse(&resource) {
        Ok(stated) if covers(&stated, server) => {}
        _ => return Err(OauthError::ResourceMismatch(resource)),
    }
    let authorization_servers = strings_field(&map, "authorization_servers");
    if authorization_servers.is_empty() {
        return Err(OauthError::BadDocument {
            document: DOCUMENT,
            detail: "it names no authorization server".into(),
        });
    }
    Ok(ResourceMetadata {
        resource,
        authorization_servers,
        scopes_supported: strings_field(&map, "scopes_supported"),
    })
}

/// The issuer to sign in with: the metadata's first authorization server, else (no
/// metadata: the 2025-03-26 revision) the server's own origin.
pub fn issuer(server: &Url, metadata: Option<&ResourceMetadata>) -> Result<Url, OauthError> {
    match metadata.and_then(|m| m.authorization_servers.first()) {
        Some(text) => match Url::parse(text) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.query().is_none() => Ok(url),
            _ => Err(OauthError::BadDocument {
                document: "protected-resource metadata",
                detail: format!("`{text}` is not an issuer URL"),
            }),
        },
        None => {
            let mut origin = server.clone();
            origin.set_path("/");
            origin.set_query(None);
            origin.set_fragment(None);
            Ok(origin)
        }
    }
}

/// Where to look for the metadata of the authorization server `issuer`, in order:
/// RFC 8414 (path inserted), OpenID Connect with the path inserted, OpenID Connect with
/// the path appended.
pub fn server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let mut urls = vec![
        well_known(issuer, "oauth-authorization-server", path),
        well_known(issuer, "openid-configuration", path),
    ];
    if !path.is_empty() {
        let mut appended = issuer.clone();
        appended.set_query(None);
        appended.set_fragment(None);
        appended.set_path(&format!("{path}/.well-known/openid-configuration"));
        urls.push(appended);
    }
    urls
}

/// An endpoint field: present, an absolute HTTP(S) URL without a fragment.
fn endpoint(
    map: &serde_json::Map<String, serde_json::Value>,
    name: &str,
) -> Result<Option<String>, OauthError> {
    let Some(text) = string_field(map, name) else {
        return Ok(None);
    };
    match Url::parse(&text) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.fragment().is_none() => {
            Ok(Some(text))
        }
        _ => Err(OauthError::BadDocument {
            document: "authorization-server metadata",
            detail: format!("`{name}` is not an HTTP(S) URL"),
        }),
    }
}

/// Reads the metadata of the authorization server `issuer`.
pub fn read_server_metadata(body: &[u8], issuer: &Url) -> Result<ServerMetadata, OauthError> {
    const DOCUMENT: &str = "authorization-server metadata";
    let map = object(body, DOCUMENT)?;
    let stated = string_field(&map, "issuer").unwrap_or_default();
    // Identical, as URLs (a bare origin is the same with or without its `/`).
    if Url::parse(&stated).ok().as_ref() != Some(issuer) {
        return Err(OauthError::IssuerMismatch {
            expected: bounded(issuer.as_str()),
            found: stated,
        });
    }
    let required = |name: &str| {
        endpoint(&map, name)?.ok_or_else(|| OauthError::BadDocument {
            document: DOCUMENT,
            detail: format!("it has no `{name}`"),
        })
    };
    let authorization_endpoint = required("authorization_endpoint")?;
    let token_endpoint = required("token_endpoint")?;
    if !strings_field(&map, "code_challenge_methods_supported")
        .iter()
        .any(|m| m == "S256")
    {
        return Err(OauthError::PkceUnsupported);
    }
    let flag = |name: &str| {
        map.get(name)
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    };
    let mut token_auth_methods = strings_field(&map, "token_endpoint_auth_methods_supported");
    if token_auth_methods.is_empty() {
        // RFC 8414 §2: the default.
        token_auth_methods.push("client_secret_basic".into());
    }
    Ok(ServerMetadata {
        issuer: stated,
        authorization_endpoint,
        token_endpoint,
        registration_endpoint: endpoint(&map, "registration_endpoint")?,
        revocation_endpoint: endpoint(&map, "revocation_endpoint")?,
        scopes_supported: strings_field(&map, "scopes_supported"),
        metadata_document_client: flag("client_id_metadata_document_supported"),
        issuer_in_redirect: flag("authorization_response_iss_parameter_supported"),
        token_auth_methods,
    })
}

/// The sign-in plan for the MCP server at `server`, from what discovery read: the
/// resource is the metadata's (else the server's URL), the scope the challenge's, else
/// every scope the resource supports, else none.
pub fn plan(
    server: &Url,
    challenge: Option<&Challenge>,
    resource: Option<&ResourceMetadata>,
    metadata: ServerMetadata,
) -> SignInPlan {
    let mut canonical = server.clone();
    canonical.set_fragment(None);
    let scope = challenge.and_then(|c| c.scope.clone()).or_else(|| {
        resource
            .map(|r| r.scopes_supported.join(" "))
            .filter(|s| !s.is_empty())
    });
    SignInPlan {
        resource: resource
            .map(|r| r.resource.clone())
            .unwrap_or_else(|| canonical.to_string()),
        issuer: metadata.issuer,
        authorization_endpoint: metadata.authorization_endpoint,
        token_endpoint: metadata.token_endpoint,
        registration_endpoint: metadata.registration_endpoint,
        revocation_endpoint: metadata.revocation_endpoint,
        metadata_document_client: metadata.metadata_document_client,
        issuer_in_redirect: metadata.issuer_in_redirect,
        token_auth_methods: metadata.token_auth_methods,
        scope,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn strings(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn resource_metadata_is_looked_for_where_the_challenge_says_then_at_well_known_urls() {
        let server = url("https://mcp.example/v1/mcp?x=1");
        let challenge = Challenge {
            resource_metadata: Some("https://mcp.example/meta".into()),
            ..Challenge::default()
        };
        assert_eq!(
            strings(resource_metadata_urls(&server, Some(&challenge))),
            [
                "https://mcp.example/meta",
                "https://mcp.example/.well-known/oauth-protected-resource/v1/mcp",
                "https://mcp.example/.well-known/oauth-protected-resource",
            ]
        );
        // A server at the root has one well-known URL; an unusable named URL is skipped.
        let challenge = Challenge {
            resource_metadata: Some("javascript:alert(1)".into()),
            ..Challenge::default()
        };
        assert_eq!(
            strings(resource_metadata_urls(
                &url("https://mcp.example/"),
                Some(&challenge)
            )),
            ["https://mcp.example/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn resource_metadata_must_describe_this_server() {
        let server = url("https://mcp.example/v1/mcp");
        let read = |resource: &str| {
            read_resource_metadata(
                format!(r#"{{"resource":"{resource}","authorization_servers":["https://auth.example"],"scopes_supported":["a","b"]}}"#).as_bytes(),
                &server,
            )
        };
        let metadata = read("https://mcp.example/v1/mcp").unwrap();
        assert_eq!(metadata.authorization_servers, ["https://auth.example"]);
        assert_eq!(metadata.scopes_supported, ["a", "b"]);
        assert!(
            read("https://mcp.example/v1").is_ok(),
            "a parent path covers it"
        );
        assert!(read("https://mcp.example/").is_ok());
        assert!(read("https://mcp.example/v1/mcp/").is_ok());
        for other in [
            "https://evil.example/v1/mcp",
            "http://mcp.example/v1/mcp",
            "https://mcp.example:8443/v1/mcp",
            "https://mcp.example/v1/mc",
            "https://mcp.example/v2",
            "not a url",
        ] {
            assert_eq!(
                read(other).unwrap_err().reason(),
                "resourceMismatch",
                "{other}"
            );
        }
    }

    #[test]
    fn resource_metadata_without_a_resource_or_servers_is_refused() {
        let server = url("https://mcp.example/mcp");
        for body in [
            r#"{"authorization_servers":["https://a.example"]}"#,
            r#"{"resource":"https://mcp.example/mcp"}"#,
            r#"{"resource":"https://mcp.example/mcp","authorization_servers":[]}"#,
            r#"{"resource":"https://mcp.example/mcp","authorization_servers":[7]}"#,
        ] {
            assert_eq!(
                read_resource_metadata(body.as_bytes(), &server)
                    .unwrap_err()
                    .reason(),
                "badDocument",
                "{body}"
            );
        }
    }

    #[test]
    fn the_issuer_is_the_first_authorization_server_else_the_servers_origin() {
        let server = url("https://mcp.example/v1/mcp?q=1");
        assert_eq!(
            issuer(&server, None).unwrap().as_str(),
            "https://mcp.example/"
        );
        let metadata = ResourceMetadata {
            resource: server.to_string(),
            authorization_servers: vec![
                "https://auth.example/tenant".into(),
                "https://b.example".into(),
            ],
            scopes_supported: Vec::new(),
        };
        assert_eq!(
            issuer(&server, Some(&metadata)).unwrap().as_str(),
            "https://auth.example/tenant"
        );
        let metadata = ResourceMetadata {
            authorization_servers: vec!["ftp://auth.example".into()],
            ..metadata
        };
        assert!(issuer(&server, Some(&metadata)).is_err());
    }

    #[test]
    fn server_metadata_urls_insert_the_issuers_path_then_try_openid() {
        assert_eq!(
            strings(server_metadata_urls(&url("https://auth.example/tenant1/"))),
            [
                "https://auth.example/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example/.well-known/openid-configuration/tenant1",
                "https://auth.example/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            strings(server_metadata_urls(&url("https://auth.example"))),
            [
                "https://auth.example/.well-known/oauth-authorization-server",
                "https://auth.example/.well-known/openid-configuration",
            ]
        );
    }

    const METADATA: &str = r#"{
        "issuer": "https://auth.example",
        "authorization_endpoint": "https://auth.example/authorize",
        "token_endpoint": "https://auth.example/token",
        "registration_endpoint": "https://auth.example/register",
        "code_challenge_methods_supported": ["plain", "S256"],
        "client_id_metadata_document_supported": true,
        "authorization_response_iss_parameter_supported": true,
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post"]
    }"#;

    #[test]
    fn server_metadata_is_read_with_what_it_supports() {
        let metadata =
            read_server_metadata(METADATA.as_bytes(), &url("https://auth.example/")).unwrap();
        assert_eq!(metadata.token_endpoint, "https://auth.example/token");
        assert_eq!(
            metadata.registration_endpoint.as_deref(),
            Some("https://auth.example/register")
        );
        assert!(metadata.metadata_document_client);
        assert!(metadata.issuer_in_redirect);
        assert_eq!(metadata.token_auth_methods, ["none", "client_secret_post"]);
        assert_eq!(metadata.revocation_endpoint, None);
    }

    #[test]
    fn server_metadata_for_another_issuer_is_refused() {
        for asked in [
            "https://auth.example/other",
            "https://evil.example",
            "http://auth.example",
        ] {
            let error = read_server_metadata(METADATA.as_bytes(), &url(asked)).unwrap_err();
            assert_eq!(error.reason(), "issuerMismatch", "{asked}");
        }
        let without = METADATA.replace(r#""issuer": "https://auth.example","#, "");
        assert_eq!(
            read_server_metadata(without.as_bytes(), &url("https://auth.example"))
                .unwrap_err()
                .reason(),
            "issuerMismatch"
        );
    }

    #[test]
    fn server_metadata_without_s256_or_endpoints_is_refused() {
        let issuer = url("https://auth.example");
        let plain_only = METADATA.replace(r#"["plain", "S256"]"#, r#"["plain"]"#);
        assert_eq!(
            read_server_metadata(plain_only.as_bytes(), &issuer).unwrap_err(),
            OauthError::PkceUnsupported
        );
        let unstated = METADATA.replace(r#""code_challenge_methods_supported""#, r#""x""#);
        assert_eq!(
            read_server_metadata(unstated.as_bytes(), &issuer).unwrap_err(),
            OauthError::PkceUnsupported
        );
        let no_token = METADATA.replace(r#""token_endpoint""#, r#""y""#);
        assert_eq!(
            read_server_metadata(no_token.as_bytes(), &issuer)
                .unwrap_err()
                .reason(),
            "badDocument"
        );
        let script = METADATA.replace(
            "https://auth.example/authorize",
            "javascript:alert(document.cookie)",
        );
        assert_eq!(
            read_server_metadata(script.as_bytes(), &issuer)
                .unwrap_err()
                .reason(),
            "badDocument"
        );
    }

    #[test]
    fn only_the_servers_own_origin_is_the_users_choice() {
        let server = url("http://127.0.0.1:3000/mcp");
        assert_eq!(
            fetch_target(&server, &url("http://127.0.0.1:3000/token")),
            Target::UserConfigured
        );
        for other in [
            "http://127.0.0.1:3001/token",
            "https://127.0.0.1:3000/token",
            "http://localhost:3000/token",
            "https://auth.example/token",
        ] {
            assert_eq!(
                fetch_target(&server, &url(other)),
                Target::RemoteChosen,
                "{other}"
            );
        }
    }

    #[test]
    fn the_plan_takes_the_challenges_scope_else_the_resources() {
        let server = url("https://mcp.example/mcp#frag");
        let metadata =
            read_server_metadata(METADATA.as_bytes(), &url("https://auth.example")).unwrap();
        let resource = ResourceMetadata {
            resource: "https://mcp.example/".into(),
            authorization_servers: vec!["https://auth.example".into()],
            scopes_supported: vec!["a".into(), "b".into()],
        };
        let challenge = Challenge {
            scope: Some("c".into()),
            ..Challenge::default()
        };
        let with_challenge = plan(&server, Some(&challenge), Some(&resource), metadata.clone());
        assert_eq!(with_challenge.scope.as_deref(), Some("c"));
        assert_eq!(with_challenge.resource, "https://mcp.example/");
        let from_resource = plan(&server, None, Some(&resource), metadata.clone());
        assert_eq!(from_resource.scope.as_deref(), Some("a b"));
        let bare = plan(&server, None, None, metadata);
        assert_eq!(bare.scope, None);
        assert_eq!(bare.resource, "https://mcp.example/mcp");
    }
}
