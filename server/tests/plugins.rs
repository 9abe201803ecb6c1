//! OpenAPI plugins over real sockets: the real binary, and a small HTTP API served by the
//! test on 127.0.0.1 (local mode lets user-configured targets be private). Install from
//! a pasted description, list, execute with a sealed credential, and every refusal:
//! changed fingerprint, bad arguments, plaintext credential, wrong envelope context, an
//! upstream error as a tool result, uninstall.

mod support;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use hearth_core::byok::context;
use hearth_server::byok::ByokKeys;
use serde_json::{Value, json};
use support::{Server, get_json, post_json as post};

const SECRET: &str = "secret-value-4b1d";

/// Requests the API received: (method, path, query, x-api-key).
type Seen = Arc<Mutex<Vec<(String, String, String, Option<String>)>>>;

fn record(seen: &Seen, method: &str, path: String, query: &str, headers: &HeaderMap) {
    seen.lock().unwrap().push((
        method.into(),
        path,
        query.into(),
        headers
            .get("x-api-key")
            .and_then(|v| v.to_str().ok())
            .map(String::from),
    ));
}

/// The API a plugin will describe.
async fn items_api() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route(
            "/v1/items/{id}",
            get(
                |State(seen): State<Seen>,
                 Path(id): Path<String>,
                 Query(query): Query<Vec<(String, String)>>,
                 headers: HeaderMap| async move {
                    let raw: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    record(
                        &seen,
                        "GET",
                        format!("/v1/items/{id}"),
                        &raw.join("&"),
                        &headers,
                    );
                    axum::Json(json!({"id": id, "query": query}))
                },
            )
            .delete(
                |State(seen): State<Seen>, Path(id): Path<String>, headers: HeaderMap| async move {
                    record(&seen, "DELETE", format!("/v1/items/{id}"), "", &headers);
                    StatusCode::NO_CONTENT
                },
            ),
        )
        .route(
            "/v1/items",
            axum::routing::post(
                |State(seen): State<Seen>, headers: HeaderMap, body: String| async move {
                    record(&seen, "POST", "/v1/items".into(), "", &headers);
                    (StatusCode::CREATED, body)
                },
            ),
        )
        .route(
            "/v1/fail",
            get(|State(seen): State<Seen>, headers: HeaderMap| async move {
                record(&seen, "GET", "/v1/fail".into(), "", &headers);
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("boom (got {SECRET})"),
                )
                    .into_response()
            }),
        )
        .route(
            "/page",
            get(|| async {
                (
                    [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
                    format!(
                        "<!doctype html><html><head><title>T</title><style>body{{color:red}}</style>\
                         <script>alert('never')</script></head><body><h1>Release notes</h1>\
                         <p>Hearth reads <b>pages</b>.</p><p>{}</p></body></html>",
                        "Long text. ".repeat(400)
                    ),
                )
            }),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (base, seen)
}

fn description(base: &str) -> String {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Items API", "description": "Items for tests"},
        "servers": [{"url": format!("{base}/v1")}],
        "components": {"securitySchemes": {"key": {"type": "apiKey", "name": "X-Api-Key", "in": "header"}}},
        "paths": {
            "/items/{id}": {
                "get": {"operationId": "getItem", "summary": "Get an item",
                    "parameters": [
                        {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                        {"name": "q", "in": "query", "schema": {"type": "string", "maxLength": 20}}
                    ]},
                "delete": {"operationId": "deleteItem", "summary": "Delete an item",
                    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]}
            },
            "/items": {"post": {"operationId": "addItem", "summary": "Add an item",
                "requestBody": {"required": true, "content": {"application/json": {"schema":
                    {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}}}}},
            "/fail": {"get": {"operationId": "fail", "summary": "Always fails"}},
            "/debug": {"trace": {"operationId": "debug"}}
        }
    })
    .to_string()
}

fn sealed(server: &Server, ctx: &str) -> Value {
    let keys = ByokKeys::load_or_create(server.data.path()).unwrap();
    serde_json::to_value(keys.seal(ctx, SECRET).unwrap()).unwrap()
}

#[tokio::test]
async fn an_openapi_plugin_installs_executes_refuses_and_uninstalls() {
    let (base, seen) = items_api().await;
    let server = Server::start(&[]);

    // Install from the pasted description.
    let (status, installed) = post(
        &server,
        "/api/plugins/install",
        json!({"spec": description(&base)}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let plugin = &installed["registered"]["plugin"];
    let id = plugin["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("openapi-items-api-"), "{id}");
    let names: Vec<&str> = plugin["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fail", "addItem", "deleteItem", "getItem"]);
    let risk = |name: &str| {
        plugin["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()["risk"]
            .clone()
    };
    assert_eq!(risk("getItem"), json!("read"));
    assert_eq!(risk("addItem"), json!("write"));
    assert_eq!(risk("deleteItem"), json!("destructive"));
    assert_eq!(
        installed["skipped"],
        json!([{"operation": "TRACE /debug", "reason": "TRACE is not a method plugins may use"}])
    );
    let fingerprint = |name: &str| installed["registered"]["fingerprints"][name].clone();

    // Listed for this client.
    let listed: Value = get_json(&server, "/api/plugins/list").await;
    assert_eq!(listed["plugins"][0]["plugin"]["id"], json!(id));
    assert_eq!(
        listed["plugins"][0]["fingerprints"],
        installed["registered"]["fingerprints"]
    );

    // A call: the path parameter is one encoded segment, the rest is the query, the key
    // goes in its header.
    let auth = sealed(&server, &context::plugin_auth(&id));
    let (status, called) = post(
        &server,
        "/api/plugins/execute",
        json!({"pluginId": id, "function": "getItem", "args": {"id": "a b/c", "q": "neo"},
               "fingerprint": fingerprint("getItem"), "auth": auth}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{called}");
    assert_eq!(called["result"]["isError"], json!(false));
    let echoed: Value = serde_json::from_str(called["result"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(echoed["id"], json!("a b/c"));
    assert_eq!(echoed["query"], json!([["q", "neo"]]));
    assert_eq!(
        seen.lock().unwrap().last().cloned(),
        Some((
            "GET".into(),
            "/v1/items/a b/c".into(),
            "q=neo".into(),
            Some(SECRET.into())
        ))
    );
    // A JSON body for a POST.
    let (status, added) = post(
        &server,
        "/api/plugins/execute",
        json!({"pluginId": id, "function": "addItem", "args": {"body": {"name": "pen"}},
               "fingerprint": fingerprint("addItem"), "auth": auth}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{added}");
    assert_eq!(added["result"]["text"], json!("{\"name\":\"pen\"}"));

    let calls_before = seen.lock().unwrap().len();
    let refused = |body: Value| {
        let server = &server;
        async move { post(server, "/api/plugins/execute", body).await }
    };
    // A contract the browser did not see is refused before anything is sent.
    let (status, error) = refused(
        json!({"pluginId": id, "function": "getItem", "args": {"id": "x"},
        "fingerprint": "sha256:0000", "auth": auth}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(error["code"], json!("FINGERPRINT_MISMATCH"));
    assert_eq!(error["details"]["fingerprint"], fingerprint("getItem"));
    // Arguments outside the schema.
    let (status, error) = refused(
        json!({"pluginId": id, "function": "getItem", "args": {"q": "x"},
        "fingerprint": fingerprint("getItem"), "auth": auth}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .contains("`id` is required"),
        "{error}"
    );
    let (status, _) = refused(json!({"pluginId": id, "function": "getItem",
        "args": {"id": "x", "q": "much too long for the schema"},
        "fingerprint": fingerprint("getItem"), "auth": auth}))
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // A definition sent by the browser is never what runs: the call is refused.
    let (status, error) = refused(
        json!({"pluginId": id, "function": "getItem", "args": {"id": "x"},
        "fingerprint": fingerprint("getItem"), "auth": auth,
        "plugin": {"serverUrl": "http://169.254.169.254", "functions": []}}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    // A plaintext credential, and an envelope sealed for something else.
    let (status, error) = refused(
        json!({"pluginId": id, "function": "getItem", "args": {"id": "x"},
        "fingerprint": fingerprint("getItem"), "apiKey": SECRET}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error["code"], json!("PLAINTEXT_SECRET_REFUSED"));
    let (status, error) = refused(
        json!({"pluginId": id, "function": "getItem", "args": {"id": "x"},
        "fingerprint": fingerprint("getItem"), "auth": sealed(&server, "provider:openai")}),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(error["code"], json!("AUTH_ERROR"));
    // The plugin needs its key.
    let (status, error) = refused(
        json!({"pluginId": id, "function": "getItem", "args": {"id": "x"},
        "fingerprint": fingerprint("getItem")}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        error["error"].as_str().unwrap().contains("credential"),
        "{error}"
    );
    assert_eq!(
        seen.lock().unwrap().len(),
        calls_before,
        "nothing refused reached the API"
    );

    // An upstream error is the tool's result, with the key redacted.
    let (status, failed) = post(
        &server,
        "/api/plugins/execute",
        json!({"pluginId": id, "function": "fail", "args": {},
               "fingerprint": fingerprint("fail"), "auth": auth}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(failed["result"]["isError"], json!(true));
    assert_eq!(
        failed["result"]["text"],
        json!("HTTP 500: boom (got [redacted])")
    );

    // Uninstalled: gone from the list, and calls find nothing.
    let (status, _) = post(&server, "/api/plugins/uninstall", json!({"pluginId": id})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = post(&server, "/api/plugins/uninstall", json!({"pluginId": id})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = refused(
        json!({"pluginId": id, "function": "getItem", "args": {"id": "x"},
        "fingerprint": fingerprint("getItem"), "auth": auth}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn descriptions_that_cannot_be_plugins_are_refused_with_the_reason() {
    let server = Server::start(&[]);
    let (status, error) = post(
        &server,
        "/api/plugins/install",
        json!({"spec": "{\"openapi\": \"3.0.0\"}"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        error["error"].as_str().unwrap().contains("no paths object"),
        "{error}"
    );
    let (status, _) = post(&server, "/api/plugins/install", json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // A credential in plaintext is refused before anything is parsed or fetched, and a
    // key put where its envelope belongs is not echoed back.
    let (status, error) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": "https://mcp.example/mcp", "apiKey": "sk-plain-install"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert_eq!(error["code"], json!("PLAINTEXT_SECRET_REFUSED"));
    assert_eq!(error["details"]["field"], json!("apiKey"));
    let (status, error) = post(
        &server,
        "/api/plugins/install",
        json!({"mcpUrl": "https://mcp.example/mcp", "auth": "sk-plain-install"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert!(!error.to_string().contains("sk-plain-install"), "{error}");
    // Fetching the description goes through the URL policy: cloud metadata is never a target.
    let (status, error) = post(
        &server,
        "/api/plugins/install",
        json!({"manifestUrl": "http://169.254.169.254/latest/openapi.json"}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{error}");
    assert_eq!(error["code"], json!("URL_BLOCKED"));
}

#[tokio::test]
async fn the_builtin_web_reader_never_reads_the_users_machine_or_network() {
    // A local edge: user-configured targets may be private, but the reader's URL is the
    // model's choice, so every form of "this machine" or "this network" is refused.
    let (base, _) = items_api().await;
    let port = base.rsplit(':').next().unwrap().to_string();
    let server = Server::start(&[]);
    let listed: Value = get_json(&server, "/api/plugins/list").await;
    let reader = &listed["builtins"][0];
    assert_eq!(reader["plugin"]["id"], json!("builtin:web-reader"));
    let fingerprint = reader["fingerprints"]["read_web_page"].clone();
    let read = |args: Value| {
        let server = &server;
        let fingerprint = fingerprint.clone();
        async move {
            post(
                server,
                "/api/plugins/execute",
                json!({"pluginId": "builtin:web-reader", "function": "read_web_page",
                    "args": args, "fingerprint": fingerprint}),
            )
            .await
        }
    };
    let edge = server.url("");
    for url in [
        format!("{base}/page"),
        format!("https://127.0.0.1:{port}/page"),
        format!("https://localhost:{port}/page"),
        format!("https://[::1]:{port}/page"),
        format!("https://127.0.0.1.nip.io:{port}/page"),
        format!("https://[64:ff9b::7f00:1]:{port}/page"),
        format!("{edge}/api/config"),
        "https://192.168.1.1/".to_string(),
        "https://10.0.0.1/admin".to_string(),
        "https://169.254.169.254/latest/meta-data/".to_string(),
        "http:/127.0.0.1/".to_string(),
        "ftp://example.com/file".to_string(),
    ] {
        let (status, blocked) = read(json!({ "url": url })).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{url}: {blocked}");
        assert_eq!(blocked["code"], json!("URL_BLOCKED"), "{url}");
    }
}

#[tokio::test]
async fn the_builtin_web_reader_gives_a_pages_text_within_its_bounds() {
    // The reader's own work (text without markup, the character bound) against a test
    // page; the remote-chosen policy here admits exactly that one upstream, since tests
    // have no public HTTPS peer.
    use hearth_core::url_policy::{AllowedNetwork, Policies, UrlPolicy};
    use hearth_server::safe_fetch::{Limits, SafeFetch};
    let (base, _) = items_api().await;
    let remote = UrlPolicy {
        require_https: false,
        allowed_networks: vec![AllowedNetwork::parse("127.0.0.1/32").unwrap()],
        ..UrlPolicy::remote_chosen()
    };
    let fetch = SafeFetch::new(
        Policies {
            remote,
            ..Policies::local(Vec::new())
        },
        Limits::default(),
    )
    .unwrap();
    let read = |args: Value| {
        let fetch = fetch.clone();
        async move { hearth_server::web_reader::read_web_page(&fetch, &args).await }
    };
    let page = read(json!({"url": format!("{base}/page")})).await.unwrap();
    assert!(
        page.text.contains("Release notes") && page.text.contains("Hearth reads"),
        "{}",
        page.text
    );
    assert!(
        !page.text.contains("alert(")
            && !page.text.contains("color:red")
            && !page.text.contains("<p>"),
        "{}",
        page.text
    );
    let short = read(json!({"url": format!("{base}/page"), "maxChars": 500}))
        .await
        .unwrap();
    assert!(short.truncated);
    assert_eq!(short.text.chars().count(), 500);
    // Even with that upstream let in, the rest of this machine stays out.
    let port = base.rsplit(':').next().unwrap();
    for url in [
        format!("http://127.0.0.2:{port}/page"),
        format!("http://localhost:{port}/page"),
        format!("http://127.0.0.1.nip.io:{port}/page"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
    ] {
        let error = read(json!({ "url": url })).await.unwrap_err();
        assert_eq!(error.code(), "URL_BLOCKED", "{url}: {error:?}");
    }
}
