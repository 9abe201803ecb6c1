//! OAuth sign-in to a remote MCP server through the edge's routes, against a real
//! OAuth-protected MCP server started here (`tests/data/mcp_oauth_server.py`: the Python
//! SDK's authorization server and its bearer check, in memory). This file plays the
//! browser's part with core's rules (PKCE, state, the redirect's checks) and a plain
//! HTTP client standing in for the login window; the edge does discovery, registration
//! and the token endpoint. Covered: discovery, dynamic registration, a metadata-document
//! client fetched from the edge itself, a static client with a secret, refresh with
//! rotation, a revoked token, Sign out revoking the grant (RFC 7009), a wrong issuer (in the metadata and in the redirect), a
//! foreign private authorization server, plaintext secrets refused, and that nothing but
//! the issued token ever reaches the server.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use hearth_core::byok::context;
use hearth_core::plugin::oauth::SignInPlan;
use hearth_core::plugin::oauth::client::{self, Client, TokenAuth};
use hearth_core::plugin::oauth::flow::{self, Tokens};
use hearth_server::byok::ByokKeys;
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::peer::{Peer, tool};
use support::{Server, post_json as post};

/// The OAuth-protected MCP server with `args` after its port.
fn protected(args: &[String]) -> Peer {
    let args = args.to_vec();
    Peer::spawn(
        move |port| {
            let mut command = Command::new(tool("MCP_PYTHON", "mcp-py/bin/python"));
            command
                .arg(
                    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                        .join("tests/data/mcp_oauth_server.py"),
                )
                .arg(port.to_string())
                .args(&args);
            command
        },
        "OAuth MCP server",
    )
}

fn origin(peer: &Peer) -> String {
    format!("http://127.0.0.1:{}", peer.port)
}

/// Seals `secrets` (JSON) for the token route.
fn sealed(server: &Server, context: &str, text: &str) -> Value {
    let keys = ByokKeys::load_or_create(server.data.path()).unwrap();
    serde_json::to_value(keys.seal(context, text).unwrap()).unwrap()
}

async fn discover(server: &Server, peer: &Peer) -> (StatusCode, Value) {
    post(
        server,
        "/api/mcp/oauth/discover",
        json!({ "serverUrl": peer.url() }),
    )
    .await
}

/// The login window: follows the authorization URL to its redirect and returns the
/// redirect's query.
async fn authorize(url: &str) -> String {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = client.get(url).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::FOUND, "{url}");
    let location = response.headers()["location"].to_str().unwrap().to_string();
    reqwest::Url::parse(&location)
        .unwrap()
        .query()
        .unwrap_or_default()
        .to_string()
}

/// A token request through the edge: the answer's status and body.
async fn token(
    server: &Server,
    plan: &SignInPlan,
    client: &Client,
    grant: Value,
    refresh_token: Option<&str>,
) -> (StatusCode, Value) {
    let secrets = json!({
        "refreshToken": refresh_token,
        "clientSecret": client.client_secret,
    });
    post(
        server,
        "/api/mcp/oauth/token",
        json!({
            "serverUrl": plan.resource,
            "tokenEndpoint": plan.token_endpoint,
            "resource": plan.resource,
            "clientId": client.client_id,
            "tokenAuth": client.token_auth,
            "grant": grant,
            "secrets": sealed(server, &context::mcp_oauth(), &secrets.to_string()),
        }),
    )
    .await
}

/// A refresh through the edge with `refresh_token`.
async fn refresh(
    server: &Server,
    plan: &SignInPlan,
    client: &Client,
    refresh_token: Option<&str>,
) -> (StatusCode, Value) {
    token(
        server,
        plan,
        client,
        json!({"type": "refresh"}),
        refresh_token,
    )
    .await
}

/// A whole sign-in as the browser runs it, as `client`: the tokens.
async fn sign_in(server: &Server, plan: &SignInPlan, client: &Client) -> Tokens {
    let redirect = server.url(client::REDIRECT_PATH);
    let pkce = flow::pkce(&[7; 32]);
    let state = flow::state(&[9; 16]);
    let url = flow::authorization_url(plan, &client.client_id, &redirect, &pkce.challenge, &state)
        .unwrap();
    let query = authorize(url.as_str()).await;
    let code = flow::read_redirect(&query, &state, plan).unwrap();
    let grant =
        json!({ "type": "code", "code": code, "verifier": pkce.verifier, "redirectUri": redirect });
    let (status, tokens) = token(server, plan, client, grant, None).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    serde_json::from_value(tokens).unwrap()
}

/// Registers through the edge.
async fn register(server: &Server, plan: &SignInPlan) -> Client {
    let (status, client) = post(
        server,
        "/api/mcp/oauth/register",
        json!({
            "serverUrl": plan.resource,
            "registrationEndpoint": plan.registration_endpoint,
            "redirectUri": server.url(client::REDIRECT_PATH),
            "scope": plan.scope,
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{client}");
    serde_json::from_value(client).unwrap()
}

/// Registers through the edge, then signs in as that client.
async fn registered_sign_in(server: &Server, plan: &SignInPlan) -> Tokens {
    let client = register(server, plan).await;
    sign_in(server, plan, &client).await
}

/// The server's own names of the tools an install answer registered.
fn tool_names(installed: &Value) -> Vec<String> {
    installed["registered"]["plugin"]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["tool"].as_str().map(str::to_string))
        .collect()
}

/// Installs the server with `access_token` as its OAuth credential.
async fn install(server: &Server, peer: &Peer, access_token: &str) -> (StatusCode, Value) {
    post(
        server,
        "/api/plugins/install",
        json!({
            "mcpUrl": peer.url(),
            "oauth": true,
            "auth": sealed(server, &context::mcp_install(), access_token),
        }),
    )
    .await
}

/// Calls `tool` of the installed plugin with `access_token`.
async fn call(
    server: &Server,
    installed: &Value,
    tool: &str,
    args: Value,
    access_token: &str,
) -> (StatusCode, Value) {
    let plugin = &installed["registered"]["plugin"];
    let id = plugin["id"].as_str().unwrap();
    let function = plugin["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["tool"] == tool)
        .unwrap_or_else(|| panic!("no {tool}: {installed}"));
    let name = function["name"].as_str().unwrap();
    post(
        server,
        "/api/plugins/execute",
        json!({
            "pluginId": id,
            "function": name,
            "args": args,
            "fingerprint": installed["registered"]["fingerprints"][name],
            "auth": sealed(server, &context::plugin_auth(id), access_token),
        }),
    )
    .await
}

async fn stats(peer: &Peer) -> Value {
    reqwest::get(format!("{}/test/stats", origin(peer)))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn plan_of(value: Value) -> SignInPlan {
    serde_json::from_value(value).unwrap()
}

#[tokio::test]
async fn a_server_that_needs_sign_in_says_so_then_installs_after_a_registered_sign_in() {
    let peer = protected(&[]);
    let server = Server::start(&[]);

    // Without a token the install is refused as the server's own demand.
    let (status, refused) = post(
        &server,
        "/api/plugins/install",
        json!({ "mcpUrl": peer.url() }),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    assert_eq!(refused["code"], "AUTH_ERROR");
    assert_eq!(refused["details"]["reason"], "serverAuth");

    let (status, plan) = discover(&server, &peer).await;
    assert_eq!(status, StatusCode::OK, "{plan}");
    let plan = plan_of(plan);
    let own = origin(&peer);
    assert_eq!(plan.resource, format!("{own}/mcp"));
    assert_eq!(plan.authorization_endpoint, format!("{own}/authorize"));
    assert_eq!(plan.token_endpoint, format!("{own}/token"));
    assert_eq!(
        plan.registration_endpoint.as_deref(),
        Some(format!("{own}/register").as_str())
    );
    assert_eq!(plan.scope.as_deref(), Some("mcp:tools"));
    assert!(plan.issuer_in_redirect);

    let client = register(&server, &plan).await;
    assert_eq!(client.token_auth, TokenAuth::None, "a public client");
    let tokens = sign_in(&server, &plan, &client).await;
    assert!(tokens.refresh_token.is_some());
    assert!(tokens.expires_at.is_some());

    let (status, installed) = install(&server, &peer, &tokens.access_token).await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let plugin = &installed["registered"]["plugin"];
    assert_eq!(plugin["auth"]["type"], "oauth2");
    let tools = tool_names(&installed);
    assert!(
        tools.iter().any(|t| t == "add") && tools.iter().any(|t| t == "whoami"),
        "{tools:?}"
    );
    let (status, answer) = call(
        &server,
        &installed,
        "add",
        json!({"a": 2, "b": 40}),
        &tokens.access_token,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["result"]["text"], "42");
    let (_, who) = call(
        &server,
        &installed,
        "whoami",
        json!({}),
        &tokens.access_token,
    )
    .await;
    assert_eq!(who["result"]["text"], client.client_id.as_str());
    let counted = stats(&peer).await;
    assert_eq!(counted["registrations"], 1);
}

#[tokio::test]
async fn a_refresh_rotates_the_tokens_and_a_revoked_grant_asks_for_a_new_sign_in() {
    let peer = protected(&[]);
    let server = Server::start(&[]);
    let plan = plan_of(discover(&server, &peer).await.1);
    let client = register(&server, &plan).await;
    let first = sign_in(&server, &plan, &client).await;
    let (status, installed) = install(&server, &peer, &first.access_token).await;
    assert_eq!(status, StatusCode::OK, "{installed}");

    let (status, refreshed) =
        refresh(&server, &plan, &client, first.refresh_token.as_deref()).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    let second: Tokens = serde_json::from_value(refreshed).unwrap();
    assert_ne!(second.access_token, first.access_token);
    // The rotated-out tokens are dead: the old access token is refused by the server…
    let (status, old) = call(
        &server,
        &installed,
        "add",
        json!({"a": 1, "b": 1}),
        &first.access_token,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{old}");
    // …and the old refresh token by the token endpoint, as a grant to sign in again.
    let (status, reused) = refresh(&server, &plan, &client, first.refresh_token.as_deref()).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{reused}");
    assert_eq!(reused["code"], "OAUTH_FAILED");
    assert_eq!(reused["details"]["reason"], "tokenRefused");
    assert_eq!(reused["details"]["error"], "invalid_grant");
    assert!(
        reused["error"].as_str().unwrap().contains("invalid_grant"),
        "{reused}"
    );
    let (status, ok) = call(
        &server,
        &installed,
        "add",
        json!({"a": 1, "b": 2}),
        &second.access_token,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{ok}");

    // The server revokes everything: calls are refused, and so is the refresh.
    reqwest::Client::new()
        .post(format!("{}/test/revoke-all", origin(&peer)))
        .send()
        .await
        .unwrap();
    let (status, revoked) = call(
        &server,
        &installed,
        "add",
        json!({"a": 1, "b": 2}),
        &second.access_token,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{revoked}");
    assert_eq!(revoked["details"]["reason"], "serverAuth");
    let (status, refused) = refresh(&server, &plan, &client, second.refresh_token.as_deref()).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("invalid_grant"));
    assert_eq!(stats(&peer).await["refreshes"], 3);
}

#[tokio::test]
async fn sign_out_revokes_the_grant_at_the_authorization_server() {
    let peer = protected(&[]);
    let server = Server::start(&[]);
    let plan = plan_of(discover(&server, &peer).await.1);
    let revocation = plan
        .revocation_endpoint
        .clone()
        .expect("a revocation endpoint");
    let client = register(&server, &plan).await;
    let tokens = sign_in(&server, &plan, &client).await;
    let (status, installed) = install(&server, &peer, &tokens.access_token).await;
    assert_eq!(status, StatusCode::OK, "{installed}");

    let revoke = |secrets: Value| {
        post(
            &server,
            "/api/mcp/oauth/revoke",
            json!({
                "serverUrl": plan.resource,
                "revocationEndpoint": revocation,
                "clientId": client.client_id,
                "tokenAuth": client.token_auth,
                "secrets": sealed(&server, &context::mcp_oauth(), &secrets.to_string()),
            }),
        )
    };
    // Nothing to revoke is the caller's mistake, said before anything is sent.
    let (status, refused) = revoke(json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    let (status, revoked) = revoke(json!({ "refreshToken": tokens.refresh_token })).await;
    assert_eq!(status, StatusCode::OK, "{revoked}");
    assert_eq!(revoked, json!({ "revoked": true }));
    // The whole grant is gone: its access token and its refresh token.
    let (status, call) = call(
        &server,
        &installed,
        "add",
        json!({"a": 1, "b": 1}),
        &tokens.access_token,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{call}");
    let (status, refused) = refresh(&server, &plan, &client, tokens.refresh_token.as_deref()).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{refused}");
    assert_eq!(refused["details"]["error"], "invalid_grant");
    // A token in plaintext never reaches the route.
    let (status, refused) = post(
        &server,
        "/api/mcp/oauth/revoke",
        json!({
            "serverUrl": plan.resource, "revocationEndpoint": revocation,
            "clientId": client.client_id, "tokenAuth": "none",
            "secrets": {}, "refreshToken": "rt-plain",
        }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert_eq!(refused["code"], "PLAINTEXT_SECRET_REFUSED");
}

#[tokio::test]
async fn a_metadata_document_client_is_fetched_from_the_edge_itself() {
    let peer = protected(&["--cimd".into(), "--no-registration".into()]);
    let server = Server::start(&[]);
    let plan = plan_of(discover(&server, &peer).await.1);
    assert!(plan.metadata_document_client);
    assert_eq!(plan.registration_endpoint, None);

    let document = server.url(client::METADATA_DOCUMENT_PATH);
    let source = client::choose_client(&plan, None, &document).unwrap();
    let client::ClientSource::MetadataDocument(client_id) = source else {
        panic!("{source:?}")
    };
    // What the edge serves is the document the authorization server will read.
    let served: Value = reqwest::get(document.as_str())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(served["client_id"], client_id.as_str());
    assert_eq!(
        served["redirect_uris"][0],
        server.url(client::REDIRECT_PATH)
    );

    let client = Client {
        client_id: client_id.clone(),
        client_secret: None,
        token_auth: TokenAuth::None,
    };
    let tokens = sign_in(&server, &plan, &client).await;
    let (status, installed) = install(&server, &peer, &tokens.access_token).await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let (_, who) = call(
        &server,
        &installed,
        "whoami",
        json!({}),
        &tokens.access_token,
    )
    .await;
    assert_eq!(who["result"]["text"], client_id.as_str());
    assert_eq!(stats(&peer).await["cimd_fetches"], 1);
}

#[tokio::test]
async fn a_static_client_signs_in_with_its_secret_and_a_wrong_secret_is_refused() {
    let server = Server::start(&[]);
    let redirect = server.url(client::REDIRECT_PATH);
    let peer = protected(&[
        "--no-registration".into(),
        "--static-client".into(),
        format!("hearth-static:s3cret:{redirect}"),
    ]);
    let plan = plan_of(discover(&server, &peer).await.1);
    let document = server.url(client::METADATA_DOCUMENT_PATH);
    assert_eq!(
        client::choose_client(&plan, None, &document),
        Err(hearth_core::plugin::oauth::OauthError::NeedsClient),
        "no registration and no metadata documents: the user must enter a client"
    );
    let entered = Client {
        client_id: "hearth-static".into(),
        client_secret: Some("s3cret".into()),
        token_auth: client::entered_token_auth(&plan, true),
    };
    let tokens = sign_in(&server, &plan, &entered).await;
    let (status, _) = install(&server, &peer, &tokens.access_token).await;
    assert_eq!(status, StatusCode::OK);

    let wrong = Client {
        client_secret: Some("guess".into()),
        ..entered
    };
    let (status, refused) = refresh(&server, &plan, &wrong, tokens.refresh_token.as_deref()).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("invalid_client"),
        "{refused}"
    );
}

#[tokio::test]
async fn an_authorization_server_that_is_not_who_it_says_is_refused() {
    let server = Server::start(&[]);
    // Its metadata names another issuer than the one it was fetched for.
    let wrong = protected(&["--wrong-issuer".into()]);
    let (status, refused) = discover(&server, &wrong).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{refused}");
    assert_eq!(refused["code"], "OAUTH_FAILED");
    assert_eq!(refused["details"]["reason"], "issuerMismatch");

    // Its redirect carries another issuer (a mix-up): the code is not used.
    let mixed = protected(&["--bad-iss".into()]);
    let plan = plan_of(discover(&server, &mixed).await.1);
    let client = register(&server, &plan).await;
    let state = flow::state(&[1; 16]);
    let url = flow::authorization_url(
        &plan,
        &client.client_id,
        &server.url(client::REDIRECT_PATH),
        &flow::pkce(&[2; 32]).challenge,
        &state,
    )
    .unwrap();
    let query = authorize(url.as_str()).await;
    assert!(query.contains("code="), "{query}");
    assert_eq!(
        flow::read_redirect(&query, &state, &plan)
            .unwrap_err()
            .reason(),
        "issuerMismatch"
    );
}

#[tokio::test]
async fn an_authorization_server_elsewhere_must_be_public_https() {
    let server = Server::start(&[]);
    // The resource names a private authorization server on another origin: the server
    // chose it, so it is remote-chosen, and a loopback HTTP target is refused.
    let elsewhere = support::free_port();
    let peer = protected(&[
        "--advertise-as".into(),
        format!("http://127.0.0.1:{elsewhere}"),
    ]);
    let (status, refused) = discover(&server, &peer).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(refused["code"], "URL_BLOCKED");
}

#[tokio::test]
async fn secrets_reach_the_token_route_only_sealed() {
    let server = Server::start(&[]);
    for (field, value) in [
        ("refreshToken", json!("rt-plain")),
        ("clientSecret", json!("cs-plain")),
    ] {
        let mut body = json!({
            "serverUrl": "http://127.0.0.1:9/mcp",
            "tokenEndpoint": "http://127.0.0.1:9/token",
            "resource": "http://127.0.0.1:9/mcp",
            "clientId": "c",
            "tokenAuth": "none",
            "grant": {"type": "refresh"},
        });
        body[field] = value;
        let (status, refused) = post(&server, "/api/mcp/oauth/token", body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
        assert_eq!(refused["code"], "PLAINTEXT_SECRET_REFUSED");
        assert_eq!(refused["details"]["field"], field);
    }
}

/// Every request the server logged: (path, headers).
fn logged(path: &Path) -> Vec<(String, Value)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let entry: Value = serde_json::from_str(line).unwrap();
            (
                entry["path"].as_str().unwrap().to_string(),
                entry["headers"].clone(),
            )
        })
        .collect()
}

#[tokio::test]
async fn nothing_of_the_browser_but_the_issued_token_reaches_the_server() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let peer = protected(&["--log".into(), log.path().to_string_lossy().into_owned()]);
    let server = Server::start(&[]);
    // The browser's requests carry its cookies and other credentials; none may pass.
    let browser = reqwest::Client::new();
    let send = |path: &str, body: Value| {
        browser
            .post(server.url(path))
            .header("cookie", "hearth_session=browser-cookie; other=1")
            .header("authorization", "Bearer browser-own-token")
            .header("x-api-key", "browser-key")
            .json(&body)
            .send()
    };
    let plan: SignInPlan = send("/api/mcp/oauth/discover", json!({"serverUrl": peer.url()}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let tokens = registered_sign_in(&server, &plan).await;
    let installed: Value = send(
        "/api/plugins/install",
        json!({
            "mcpUrl": peer.url(), "oauth": true,
            "auth": sealed(&server, &context::mcp_install(), &tokens.access_token),
        }),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert!(installed["registered"].is_object(), "{installed}");
    let (status, _) = call(
        &server,
        &installed,
        "add",
        json!({"a": 1, "b": 2}),
        &tokens.access_token,
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    let requests = logged(log.path());
    assert!(requests.iter().any(|(path, _)| path == "/mcp"));
    let bearer = format!("Bearer {}", tokens.access_token);
    for (path, headers) in &requests {
        let map = headers.as_object().unwrap();
        assert!(!map.contains_key("cookie"), "{path}: {headers}");
        assert!(!map.contains_key("x-api-key"), "{path}: {headers}");
        if let Some(authorization) = map.get("authorization") {
            assert_eq!(authorization, &json!(bearer), "{path}");
            assert_eq!(path, "/mcp", "only the MCP endpoint gets the token");
        }
        let text = headers.to_string();
        assert!(!text.contains("browser-"), "{path}: {headers}");
    }
}

#[tokio::test]
async fn the_discovery_probe_carries_the_plugins_plain_headers_and_nothing_else() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let peer = protected(&[
        "--require-header".into(),
        "x-workspace=team-a".into(),
        "--log".into(),
        log.path().to_string_lossy().into_owned(),
    ]);
    let server = Server::start(&[]);
    let probe = |headers: Value| {
        post(
            &server,
            "/api/mcp/oauth/discover",
            json!({"serverUrl": peer.url(), "headers": headers}),
        )
    };

    // With the plugin's header the probe passes the gateway and gets the challenge.
    let (status, plan) = probe(json!({"X-Workspace": "team-a"})).await;
    assert_eq!(status, StatusCode::OK, "{plan}");
    assert_eq!(stats(&peer).await["gateway_refusals"], 0);
    let probes: Vec<Value> = logged(log.path())
        .into_iter()
        .filter(|(path, _)| path == "/mcp")
        .map(|(_, headers)| headers)
        .collect();
    assert_eq!(probes.len(), 1);
    assert_eq!(probes[0]["x-workspace"], "team-a", "{}", probes[0]);
    // Only the MCP endpoint is given it: the metadata documents are not.
    for (path, headers) in logged(log.path()) {
        assert!(
            path == "/mcp" || headers.get("x-workspace").is_none(),
            "{path}: {headers}"
        );
    }

    // Without it the gateway refuses the probe: no challenge is read (the plan comes from
    // the well-known metadata alone).
    let (status, _) = probe(json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stats(&peer).await["gateway_refusals"], 1);

    // A header that must travel sealed, or that the transport owns, is refused before
    // anything is sent.
    let before = logged(log.path()).len();
    for refused in [
        json!({"Authorization": "Bearer x"}),
        json!({"Host": "evil.example"}),
    ] {
        let (status, answer) = probe(refused.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().starts_with("Headers:"),
            "{answer}"
        );
    }
    assert_eq!(logged(log.path()).len(), before);
}

#[tokio::test]
async fn a_call_that_needs_more_scope_says_which_and_works_after_a_wider_sign_in() {
    let peer = protected(&["--admin-scope".into()]);
    let server = Server::start(&[]);
    let plan = plan_of(discover(&server, &peer).await.1);
    assert_eq!(plan.scope.as_deref(), Some("mcp:tools"));
    let tokens = registered_sign_in(&server, &plan).await;
    let (status, installed) = install(&server, &peer, &tokens.access_token).await;
    assert_eq!(status, StatusCode::OK, "{installed}");

    // The token is good for the server's ordinary tools, not for the one that needs more.
    let (status, added) = call(
        &server,
        &installed,
        "add",
        json!({"a": 1, "b": 2}),
        &tokens.access_token,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{added}");
    let (status, refused) = call(
        &server,
        &installed,
        "admin_report",
        json!({}),
        &tokens.access_token,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    assert_eq!(refused["code"], "AUTH_ERROR");
    assert_eq!(
        refused["details"]["reason"], "insufficientScope",
        "{refused}"
    );
    assert_eq!(
        refused["details"]["scope"], "mcp:tools mcp:admin",
        "{refused}"
    );
    assert_eq!(stats(&peer).await["insufficient_scope"], 1);

    // Signing in again for the wider scope (the client registered for it) gives a token
    // that reaches the tool.
    let wider = SignInPlan {
        scope: Some(flow::widened_scope(
            plan.scope.as_deref(),
            refused["details"]["scope"].as_str().unwrap(),
        )),
        ..plan.clone()
    };
    let tokens = registered_sign_in(&server, &wider).await;
    let (status, report) = call(
        &server,
        &installed,
        "admin_report",
        json!({}),
        &tokens.access_token,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert!(
        report["result"]["text"]
            .as_str()
            .unwrap()
            .contains("admin report"),
        "{report}"
    );
}

#[tokio::test]
async fn a_server_that_starts_without_a_token_but_lists_no_tools_without_one_asks_to_sign_in() {
    let peer = protected(&["--lenient-start".into()]);
    let server = Server::start(&[]);
    // The handshake is accepted without a token; the tool listing is refused: the
    // install says "sign in", as a server refusing at once does.
    let (status, refused) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": peer.url()}),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    assert_eq!(refused["details"]["reason"], "serverAuth", "{refused}");
    let counted = stats(&peer).await;
    assert_eq!(counted["lenient_initializes"], 1, "{counted}");
    assert_eq!(counted["listings_without_token"], 1, "{counted}");

    // The discovery probe gets no challenge (its start is accepted), so the well-known
    // metadata says how to sign in; after the sign-in the tools are listed.
    let plan = plan_of(discover(&server, &peer).await.1);
    assert_eq!(plan.scope.as_deref(), Some("mcp:tools"));
    let tokens = registered_sign_in(&server, &plan).await;
    let (status, installed) = install(&server, &peer, &tokens.access_token).await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let tools = tool_names(&installed);
    assert!(
        tools.iter().any(|t| t == "add") && tools.iter().any(|t| t == "whoami"),
        "{installed}"
    );
    let (status, added) = call(
        &server,
        &installed,
        "add",
        json!({"a": 20, "b": 22}),
        &tokens.access_token,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{added}");
}
