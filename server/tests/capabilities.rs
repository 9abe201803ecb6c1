//! `GET /api/config`'s capabilities against the routes they describe, on the real binary:
//! each flag is checked with a real request to its route, so a flag can neither promise
//! a feature the edge does not serve nor hide one it does. A flag this test does not
//! know fails it until it is checked here too.

mod support;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use support::Server;

/// The status and JSON body of `method path` (with a JSON `body` for POST).
async fn ask(
    server: &Server,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let client = reqwest::Client::new();
    let mut request = client.request(method, server.url(path));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Whether the router serves `method path`: an unknown route is a JSON 404 `NOT_FOUND`
/// (the probes below are chosen so that a served route never answers 404).
async fn served(server: &Server, method: Method, path: &str, body: Option<Value>) -> bool {
    let (status, answer) = ask(server, method.clone(), path, body).await;
    assert_ne!(
        status,
        StatusCode::METHOD_NOT_ALLOWED,
        "{method} {path}: probe with the route's own method"
    );
    if status == StatusCode::NOT_FOUND {
        assert_eq!(answer["code"], "NOT_FOUND", "{path}: {answer}");
        return false;
    }
    true
}

#[tokio::test]
async fn every_capability_is_what_its_routes_answer() {
    let server = Server::start(&[]);
    let (status, config) = ask(&server, Method::GET, "/api/config", None).await;
    assert_eq!(status, StatusCode::OK);
    let capabilities = config["capabilities"].as_object().expect("capabilities");
    let mut checked = Vec::new();
    for (flag, claimed) in capabilities {
        let claimed = claimed
            .as_bool()
            .unwrap_or_else(|| panic!("{flag}: {claimed}"));
        let serves = match flag.as_str() {
            // An empty body is refused by the route itself, before any provider call.
            "chatRelay" => served(&server, Method::POST, "/api/chat/relay", Some(json!({}))).await,
            "plugins" => {
                let (status, list) = ask(&server, Method::GET, "/api/plugins/list", None).await;
                let listed = status == StatusCode::OK && list["builtins"].is_array();
                let install = served(
                    &server,
                    Method::POST,
                    "/api/plugins/install",
                    Some(json!({})),
                );
                let execute = served(
                    &server,
                    Method::POST,
                    "/api/plugins/execute",
                    Some(json!({})),
                );
                let uninstall = served(
                    &server,
                    Method::POST,
                    "/api/plugins/uninstall",
                    Some(json!({})),
                );
                let (install, execute, uninstall) = (install.await, execute.await, uninstall.await);
                assert!(
                    listed == install && install == execute && execute == uninstall,
                    "the plugin routes disagree"
                );
                listed
            }
            "mcp" => {
                // A query that does not parse is answered without asking the registry.
                let registry = served(&server, Method::GET, "/api/mcp/servers?limit=many", None);
                let resources =
                    served(&server, Method::POST, "/api/mcp/resources", Some(json!({})));
                let prompts = served(&server, Method::POST, "/api/mcp/prompts", Some(json!({})));
                let (registry, resources, prompts) =
                    (registry.await, resources.await, prompts.await);
                assert!(
                    registry == resources && resources == prompts,
                    "the MCP routes disagree"
                );
                registry
            }
            "documentParse" => {
                let submit = served(&server, Method::POST, "/api/doc-parse", Some(json!({})));
                // An unknown job is a 404 too, so the job route is probed with a real job
                // and a wrong secret (403).
                let boundary = "capabilities-probe";
                let body = format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; \
                     filename=\"a.txt\"\r\n\r\nprobe\r\n--{boundary}--\r\n"
                );
                let started = reqwest::Client::new()
                    .post(server.url("/api/doc-parse"))
                    .header(
                        "content-type",
                        format!("multipart/form-data; boundary={boundary}"),
                    )
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                let job = if started.status() == StatusCode::ACCEPTED {
                    let id = started.json::<Value>().await.unwrap()["jobId"]
                        .as_str()
                        .unwrap()
                        .to_string();
                    let poll = reqwest::Client::new()
                        .get(server.url(&format!("/api/doc-parse/jobs/{id}")))
                        .header("x-doc-parse-job-secret", "wrong")
                        .send()
                        .await
                        .unwrap();
                    poll.status() == StatusCode::FORBIDDEN
                } else {
                    false
                };
                let submit = submit.await;
                assert_eq!(submit, job, "the document-parse routes disagree");
                submit
            }
            "byok" => {
                let (status, key) = ask(&server, Method::GET, "/api/byok/public-key", None).await;
                status == StatusCode::OK && key["kid"].is_string()
            }
            // An empty body is refused by the route itself, before any search.
            "webSearch" => served(&server, Method::POST, "/api/search", Some(json!({}))).await,
            // Without a service of its own, the edge says it cannot (503), asking no one.
            "defaultSearch" => {
                let body = json!({"service": {"kind": "default"}, "query": "probe"});
                let (status, _) = ask(&server, Method::POST, "/api/search", Some(body)).await;
                served(&server, Method::POST, "/api/search", Some(json!({}))).await
                    && status != StatusCode::SERVICE_UNAVAILABLE
            }
            // An empty body is refused by the routes themselves, before any voice service.
            "voice" => {
                served(&server, Method::POST, "/api/voice/speech", Some(json!({}))).await
                    && served(
                        &server,
                        Method::POST,
                        "/api/voice/transcriptions",
                        Some(json!({})),
                    )
                    .await
            }
            other => panic!("capability {other} is not checked against its route"),
        };
        assert_eq!(claimed, serves, "capabilities.{flag} says {claimed}");
        checked.push(flag.clone());
    }
    checked.sort();
    assert_eq!(
        checked,
        [
            "byok",
            "chatRelay",
            "defaultSearch",
            "documentParse",
            "mcp",
            "plugins",
            "voice",
            "webSearch"
        ],
        "every capability is checked"
    );
}
