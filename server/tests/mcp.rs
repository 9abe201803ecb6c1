//! Remote MCP servers through the plugin routes, against real peers started here: npm
//! `@modelcontextprotocol/server-everything` in `streamableHttp` mode (installed by
//! `scripts/setup.sh test` into `.tools/mcp-everything`). Install discovers its tools,
//! a call runs `tools/call` and comes back as a bounded result, tool errors are results,
//! the arguments are checked first, and a server restarted between calls is reached
//! again without the caller noticing.

mod support;

use std::path::PathBuf;
use std::process::Command;

use hearth_core::byok::context;
use hearth_server::byok::ByokKeys;
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::peer::{Peer, everything, everything_command, tool};
use support::{Server, execute, post_json as post};

/// The Python SDK server in `tests/data/mcp_server.py`; with `token`, every request must
/// carry it as a bearer token.
fn python_server(token: Option<&str>) -> Peer {
    python_server_with(token.into_iter().collect())
}

/// The Python SDK server with its arguments after the port (token, credential header,
/// required plain headers as `name=value`).
fn python_server_with(args: Vec<&str>) -> Peer {
    let command = |port: u16| {
        let mut command = Command::new(tool("MCP_PYTHON", "mcp-py/bin/python"));
        command
            .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp_server.py"))
            .arg(port.to_string())
            .args(&args);
        command
    };
    Peer::spawn(command, "Python MCP server")
}

fn function<'a>(installed: &'a Value, tool: &str) -> &'a Value {
    installed["registered"]["plugin"]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["tool"] == tool)
        .unwrap_or_else(|| panic!("no function for {tool}: {installed}"))
}

#[tokio::test]
async fn the_everything_server_installs_and_its_tools_run() {
    let everything = everything();
    let server = Server::start(&[]);

    let (status, installed) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": everything.url()}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let plugin = &installed["registered"]["plugin"];
    assert_eq!(plugin["source"], json!("mcp"));
    assert_eq!(plugin["mcp"]["serverUrl"], json!(everything.url()));
    let id = plugin["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("mcp-"), "{id}");
    let tools = plugin["functions"].as_array().unwrap();
    assert!(tools.len() >= 5, "{tools:?}");
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        assert!(name.starts_with("mcp_") && name.len() <= 64, "{name}");
        assert!(
            matches!(tool["risk"].as_str(), Some("external" | "destructive")),
            "{tool}"
        );
    }
    let echo = function(&installed, "echo")["name"].as_str().unwrap();
    let (status, echoed) = execute(
        &server,
        &installed,
        echo,
        json!({"message": "hello from Hearth"}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{echoed}");
    assert_eq!(echoed["result"]["isError"], json!(false));
    assert!(
        echoed["result"]["text"]
            .as_str()
            .unwrap()
            .contains("hello from Hearth"),
        "{echoed}"
    );
    // The arguments are checked against the tool's own schema before any call.
    let (status, refused) = execute(&server, &installed, echo, json!({}), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("message"),
        "{refused}"
    );

    // Another tool, with numbers.
    let sum = installed["registered"]["plugin"]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            f["tool"]
                .as_str()
                .is_some_and(|t| t.contains("sum") || t == "add")
        })
        .expect("a sum tool")["name"]
        .as_str()
        .unwrap();
    let (status, summed) = execute(&server, &installed, sum, json!({"a": 2, "b": 3}), None).await;
    assert_eq!(status, StatusCode::OK, "{summed}");
    assert!(
        summed["result"]["text"].as_str().unwrap().contains('5'),
        "{summed}"
    );

    // The server restarts between calls: the next call opens a new session.
    let everything_port = everything.port;
    drop(everything);
    let restarted = Peer::spawn_on(
        everything_command(everything_port),
        everything_port,
        "restarted everything server",
    );
    let (status, again) = execute(
        &server,
        &installed,
        echo,
        json!({"message": "still here"}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert!(
        again["result"]["text"]
            .as_str()
            .unwrap()
            .contains("still here")
    );
    // And gone: a clear upstream error, not a hang.
    drop(restarted);
    let (status, down) = execute(&server, &installed, sum, json!({"a": 1, "b": 1}), None).await;
    assert!(
        status.is_client_error() || status.is_server_error(),
        "{down}"
    );
    assert!(down["code"].is_string(), "{down}");
}

#[tokio::test]
async fn a_url_the_policy_refuses_is_never_contacted() {
    let server = Server::start(&[]);
    let (status, refused) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": "http://169.254.169.254/mcp"}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(refused["code"], json!("URL_BLOCKED"));
    let (status, _) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": "file:///etc/passwd"}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_python_sdk_server_installs_and_its_errors_are_results() {
    let python = python_server(None);
    let server = Server::start(&[]);
    let url = python.url();
    let (status, installed) = post(&server, "/api/plugins/install", json!({"mcpUrl": url})).await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let names: Vec<&str> = installed["registered"]["plugin"]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["mcp_hearth_test_py__add", "mcp_hearth_test_py__refuse"]
    );
    let (status, added) = execute(
        &server,
        &installed,
        "mcp_hearth_test_py__add",
        json!({"a": 2, "b": 3}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{added}");
    assert_eq!(added["result"]["isError"], json!(false));
    assert!(
        added["result"]["text"].as_str().unwrap().contains('5'),
        "{added}"
    );
    // A number where the schema wants an integer is refused before the call.
    let (status, _) = execute(
        &server,
        &installed,
        "mcp_hearth_test_py__add",
        json!({"a": 2.5, "b": 3}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // The tool's own failure is its result, marked as an error (the Python SDK reports
    // which tool failed and keeps the exception's text to itself).
    let (status, refused) = execute(
        &server,
        &installed,
        "mcp_hearth_test_py__refuse",
        json!({"reason": "not today"}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{refused}");
    assert_eq!(refused["result"]["isError"], json!(true));
    assert!(
        refused["result"]["text"]
            .as_str()
            .unwrap()
            .contains("Error executing tool refuse"),
        "{refused}"
    );
}

#[tokio::test]
async fn resources_and_prompts_of_an_installed_server_can_be_listed_read_and_got() {
    let everything = everything();
    let server = Server::start(&[]);
    let (status, installed) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": everything.url()}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let plugin = &installed["registered"]["plugin"];
    assert_eq!(plugin["mcp"]["resources"], json!(true));
    assert_eq!(plugin["mcp"]["prompts"], json!(true));
    let id = plugin["id"].clone();

    let (status, resources) = post(
        &server,
        "/api/mcp/resources",
        json!({"pluginId": id, "action": "list"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{resources}");
    let listed = resources["resources"].as_array().unwrap();
    assert!(!listed.is_empty(), "{resources}");
    let uri = listed[0]["uri"].as_str().unwrap().to_string();
    let (status, read) = post(
        &server,
        "/api/mcp/resources",
        json!({"pluginId": id, "action": "read", "uri": uri}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["contents"][0]["uri"], json!(uri));

    let (status, prompts) = post(
        &server,
        "/api/mcp/prompts",
        json!({"pluginId": id, "action": "list"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{prompts}");
    let simple = prompts["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["arguments"]
                .as_array()
                .is_none_or(|a| a.iter().all(|x| x["required"] != json!(true)))
        })
        .unwrap_or_else(|| panic!("a prompt without required arguments: {prompts}"))["name"]
        .clone();
    let (status, got) = post(
        &server,
        "/api/mcp/prompts",
        json!({"pluginId": id, "action": "get", "name": simple}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{got}");
    assert!(!got["messages"].as_array().unwrap().is_empty(), "{got}");

    // Only an installed MCP plugin of this client can be asked.
    let (status, _) = post(
        &server,
        "/api/mcp/prompts",
        json!({"pluginId": "mcp-someone-else", "action": "list"}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_server_that_needs_a_token_says_so_and_works_with_one() {
    const TOKEN: &str = "mcp-token-51ab";
    let python = python_server(Some(TOKEN));
    let server = Server::start(&[]);
    let url = python.url();
    // Without a token: a clear "auth required", nothing installed.
    let (status, refused) = post(&server, "/api/plugins/install", json!({"mcpUrl": url})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    assert_eq!(refused["code"], json!("AUTH_ERROR"));
    assert!(
        refused["error"].as_str().unwrap().contains("auth required"),
        "{refused}"
    );
    // With the token sealed for the install, then for the plugin's own calls.
    let keys = ByokKeys::load_or_create(server.data.path()).unwrap();
    let sealed = |ctx: &str| serde_json::to_value(keys.seal(ctx, TOKEN).unwrap()).unwrap();
    let (status, installed) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": url, "auth": sealed(&context::mcp_install())}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let plugin = &installed["registered"]["plugin"];
    assert_eq!(plugin["auth"], json!({"type": "bearer"}));
    let id = plugin["id"].as_str().unwrap().to_string();
    let (status, added) = execute(
        &server,
        &installed,
        "mcp_hearth_test_py__add",
        json!({"a": 20, "b": 22}),
        Some(sealed(&context::plugin_auth(&id))),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{added}");
    assert!(
        added["result"]["text"].as_str().unwrap().contains("42"),
        "{added}"
    );
    // A call without the credential is refused before the server is contacted.
    let (status, missing) = execute(
        &server,
        &installed,
        "mcp_hearth_test_py__add",
        json!({"a": 1, "b": 1}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{missing}");
    assert!(
        missing["error"].as_str().unwrap().contains("credential"),
        "{missing}"
    );
    // Listing its tools again takes the same sealed credential; without it the server's
    // refusal is passed on as "sign in", and the plugin stays as it was.
    let (status, refreshed) = post(
        &server,
        "/api/plugins/refresh",
        json!({"pluginId": id, "auth": sealed(&context::plugin_auth(&id))}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    assert_eq!(
        refreshed["registered"]["plugin"]["functions"],
        installed["registered"]["plugin"]["functions"]
    );
    let (status, refused) = post(&server, "/api/plugins/refresh", json!({"pluginId": id})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    assert_eq!(refused["details"]["reason"], "serverAuth", "{refused}");
    // Sealed for another plugin's context: refused by the edge, never sent.
    let (status, misdirected) = post(
        &server,
        "/api/plugins/refresh",
        json!({"pluginId": id, "auth": sealed(&context::mcp_install())}),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{misdirected}");
    assert_ne!(
        misdirected["details"]["reason"], "serverAuth",
        "{misdirected}"
    );
}

#[tokio::test]
async fn a_server_that_wants_an_api_key_header_and_plain_headers_gets_them_on_every_request() {
    const KEY: &str = "key-9f3c";
    let python = python_server_with(vec![KEY, "X-Api-Key", "x-workspace=team-a"]);
    let server = Server::start(&[]);
    let url = python.url();
    let keys = ByokKeys::load_or_create(server.data.path()).unwrap();
    let sealed = |ctx: &str| serde_json::to_value(keys.seal(ctx, KEY).unwrap()).unwrap();

    // A credential-like plain header is refused before anything is sent: it must travel
    // sealed, as the credential.
    let (status, refused) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": url, "mcpHeaders": {"X-Api-Key": KEY}}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("credential"),
        "{refused}"
    );
    for reserved in ["Cookie", "Host", "Mcp-Session-Id"] {
        let (status, refused) = post(
            &server,
            "/api/plugins/install",
            json!({"mcpUrl": url, "mcpHeaders": {reserved: "x"}}),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{reserved}: {refused}");
    }
    // The key as a bearer token is not what this server wants.
    let (status, refused) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": url, "auth": sealed(&context::mcp_install()),
            "mcpHeaders": {"X-Workspace": "team-a"}}),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    // In its own header, with the plain header: installed.
    let (status, installed) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": url, "auth": sealed(&context::mcp_install()), "authHeader": "X-Api-Key",
            "mcpHeaders": {"X-Workspace": "team-a"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let plugin = &installed["registered"]["plugin"];
    assert_eq!(
        plugin["auth"],
        json!({"type": "apiKey", "name": "x-api-key", "in": "header"})
    );
    assert_eq!(plugin["mcp"]["headers"], json!({"x-workspace": "team-a"}));
    assert!(
        !plugin.to_string().contains(KEY),
        "the key is never stored: {plugin}"
    );
    let id = plugin["id"].as_str().unwrap().to_string();
    // Calls, resources and prompts carry both headers.
    let (status, added) = execute(
        &server,
        &installed,
        "mcp_hearth_test_py__add",
        json!({"a": 2, "b": 40}),
        Some(sealed(&context::plugin_auth(&id))),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{added}");
    assert!(
        added["result"]["text"].as_str().unwrap().contains("42"),
        "{added}"
    );
    let (status, prompts) = post(
        &server,
        "/api/mcp/prompts",
        json!({"pluginId": id, "action": "list", "auth": sealed(&context::plugin_auth(&id))}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{prompts}");
    // The SDK speaks the stateless revision, whose lists carry a caching hint (its default:
    // stale at once, for this user only).
    assert_eq!(
        prompts,
        json!({"prompts": [], "ttlMs": 0, "cacheScope": "private"})
    );
    // Without the credential the server refuses the listing (it sees no key).
    let (status, refused) = post(
        &server,
        "/api/mcp/prompts",
        json!({"pluginId": id, "action": "list"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
}
