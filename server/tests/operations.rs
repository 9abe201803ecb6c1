//! Named edge operations (`hearth-operation-id`) on two hosted instances sharing a real
//! Redis: an answer lost in transit is looked up on the other instance, a repeat does
//! nothing twice, and an instance killed mid-install or mid-call leaves an operation
//! that says it was interrupted (an install is then finished by a repeat; a call is not
//! run again). The plugin's description and its API are an HTTPS fixture on 127.0.0.1
//! (a trusted network, its certificate from a test CA).

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use support::hosted::{self, PUBLIC_ORIGIN, random_id, sign_in, wait_until};
use support::redis::Redis;
use support::tls::serve_https;
use support::{Server, TestCa};

#[derive(Clone, Default)]
struct Api {
    base: Arc<std::sync::Mutex<String>>,
    /// The description is answered only once this is set.
    open: Arc<AtomicBool>,
    description_asked: Arc<AtomicUsize>,
    /// The function's calls; it answers at once unless `stall` is set.
    calls: Arc<AtomicUsize>,
    stall: Arc<AtomicBool>,
}

fn description(base: &str) -> String {
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Clock"},
        "servers": [{"url": base}],
        "paths": {"/now": {"get": {"operationId": "now", "summary": "The time"}}}
    })
    .to_string()
}

async fn served_description(State(api): State<Api>) -> String {
    api.description_asked.fetch_add(1, Ordering::SeqCst);
    while !api.open.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    description(&api.base.lock().unwrap())
}

async fn now(State(api): State<Api>) -> &'static str {
    api.calls.fetch_add(1, Ordering::SeqCst);
    if api.stall.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_secs(120)).await;
    }
    "12:00"
}

struct Deployment {
    _ca: TestCa,
    _redis: Redis,
    api: Api,
    first: Option<Server>,
    second: Server,
}

impl Deployment {
    async fn start() -> Self {
        let ca = TestCa::make();
        let api = Api::default();
        let app = Router::new()
            .route("/description.json", get(served_description))
            .route("/now", get(now))
            .with_state(api.clone());
        let port = serve_https(&ca, app).await;
        *api.base.lock().unwrap() = format!("https://127.0.0.1:{port}");
        let redis = Redis::start();
        let pem = hearth_server::byok::ByokKeys::generate().unwrap().1;
        let mut env = hosted::env(&redis.url(), &pem);
        env.extend([
            ("HEARTH_TRUSTED_NETWORKS", "127.0.0.1/32".to_string()),
            ("SSL_CERT_FILE", ca.ca_file()),
        ]);
        let first = Server::start_owned(&env);
        let second = Server::start_owned(&env);
        Self {
            _ca: ca,
            _redis: redis,
            api,
            first: Some(first),
            second,
        }
    }

    fn first(&self) -> &Server {
        self.first.as_ref().unwrap()
    }

    fn description_url(&self) -> String {
        format!("{}/description.json", self.api.base.lock().unwrap())
    }
}

fn request(
    method: reqwest::Method,
    server: &Server,
    path: &str,
    cookies: &str,
) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .request(method, server.url(path))
        .header(header::COOKIE, cookies)
        .header(header::ORIGIN, PUBLIC_ORIGIN)
}

/// POSTs `body` to `path` as operation `op`; the status and the JSON answer.
async fn operation(
    server: &Server,
    cookies: &str,
    path: &str,
    op: &str,
    body: &Value,
) -> (StatusCode, Value) {
    let response = request(reqwest::Method::POST, server, path, cookies)
        .header("hearth-operation-id", op)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn look_up(server: &Server, cookies: &str, op: &str) -> (StatusCode, Value) {
    let response = request(
        reqwest::Method::GET,
        server,
        &format!("/api/operations/{op}"),
        cookies,
    )
    .send()
    .await
    .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn plugins(server: &Server, cookies: &str) -> Vec<Value> {
    let listed: Value = request(reqwest::Method::GET, server, "/api/plugins/list", cookies)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    listed["plugins"].as_array().unwrap().clone()
}

fn op_id(name: &str) -> String {
    random_id(name)
}

/// POSTs `body` to `path` on `server` as operation `op` in a task of its own: the
/// request the test kills the instance under.
fn spawn_operation(
    server: &Server,
    cookies: &str,
    path: &str,
    op: &str,
    body: &Value,
) -> tokio::task::JoinHandle<reqwest::Result<reqwest::Response>> {
    let request = request(reqwest::Method::POST, server, path, cookies)
        .header("hearth-operation-id", op)
        .json(body);
    tokio::spawn(request.send())
}

/// Looks `op` up on `server` until it is `state`.
async fn wait_for_state(server: &Server, cookies: &str, op: &str, state: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, found) = look_up(server, cookies, op).await;
        if status == StatusCode::OK && found["state"] == state {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "still {status} {found}, not {state}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_lost_answer_is_looked_up_on_another_instance_and_a_repeat_does_nothing_twice() {
    let deployment = Deployment::start().await;
    deployment.api.open.store(true, Ordering::SeqCst);
    let (first, second) = (deployment.first(), &deployment.second);
    let cookies = sign_in(first).await;

    // Installed on the first; the answer never reached the browser (it is not read).
    let install = op_id("install");
    let spec = json!({"spec": description(&deployment.api.base.lock().unwrap())});
    let (status, installed) =
        operation(first, &cookies, "/api/plugins/install", &install, &spec).await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let (status, found) = look_up(second, &cookies, &install).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(found["state"], "done");
    assert_eq!(found["status"], 200);
    assert_eq!(
        found["body"], installed,
        "the recorded answer is the answer"
    );
    // The browser sends it again, to the other instance: the same answer, one plugin.
    let (status, again) =
        operation(second, &cookies, "/api/plugins/install", &install, &spec).await;
    assert_eq!((status, &again), (StatusCode::OK, &installed));
    assert_eq!(plugins(second, &cookies).await.len(), 1);

    // A call, repeated: the tool ran once.
    let id = installed["registered"]["plugin"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let call = json!({"pluginId": id, "function": "now", "args": {},
        "fingerprint": installed["registered"]["fingerprints"]["now"]});
    let execute = op_id("execute");
    let (status, answered) =
        operation(first, &cookies, "/api/plugins/execute", &execute, &call).await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    assert_eq!(answered["result"]["text"], "12:00");
    let (_, repeated) = operation(second, &cookies, "/api/plugins/execute", &execute, &call).await;
    assert_eq!(repeated, answered);
    assert_eq!(deployment.api.calls.load(Ordering::SeqCst), 1, "run once");

    // A refusal is an answer too, recorded like any other.
    let wrong = json!({"pluginId": id, "function": "now", "args": {}, "fingerprint": "sha256:00"});
    let refused = op_id("refused");
    let (status, error) =
        operation(first, &cookies, "/api/plugins/execute", &refused, &wrong).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (status, again) =
        operation(second, &cookies, "/api/plugins/execute", &refused, &wrong).await;
    assert_eq!((status, again), (StatusCode::CONFLICT, error));

    // Uninstalled on the second, repeated on the first.
    let uninstall = op_id("uninstall");
    let body = json!({"pluginId": id});
    let (status, removed) = operation(
        second,
        &cookies,
        "/api/plugins/uninstall",
        &uninstall,
        &body,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, again) = operation(first, &cookies, "/api/plugins/uninstall", &uninstall, &body).await;
    assert_eq!(again, removed);
    assert!(plugins(first, &cookies).await.is_empty());

    // Another browser cannot see these operations; unknown ids are not found (a path
    // id no operation can have too), and a malformed one is refused where a request
    // names its operation.
    let stranger = sign_in(second).await;
    assert_eq!(
        look_up(second, &stranger, &install).await.0,
        StatusCode::NOT_FOUND
    );
    let (status, unknown) = look_up(second, &cookies, &op_id("never")).await;
    assert_eq!(
        (status, unknown["code"].clone()),
        (StatusCode::NOT_FOUND, json!("NOT_FOUND"))
    );
    assert_eq!(
        look_up(second, &cookies, "short").await.0,
        StatusCode::NOT_FOUND
    );
    let (status, malformed) =
        operation(first, &cookies, "/api/plugins/uninstall", "short", &body).await;
    assert_eq!(
        (status, malformed["code"].clone()),
        (StatusCode::BAD_REQUEST, json!("BAD_REQUEST"))
    );
}

#[tokio::test]
async fn an_instance_killed_mid_install_is_interrupted_and_a_repeat_installs_once() {
    let mut deployment = Deployment::start().await;
    let cookies = sign_in(deployment.first()).await;
    let install = op_id("install");
    let body = json!({"manifestUrl": deployment.description_url()});
    // The install waits on its description; the first instance is killed meanwhile.
    let pending = spawn_operation(
        deployment.first(),
        &cookies,
        "/api/plugins/install",
        &install,
        &body,
    );
    let api = deployment.api.clone();
    wait_until("the description request", Duration::from_secs(10), || {
        api.description_asked.load(Ordering::SeqCst) == 1
    })
    .await;
    let second = &deployment.second;
    assert_eq!(
        wait_for_state(second, &cookies, &install, "running").await,
        json!({"state": "running"})
    );
    drop(deployment.first.take());
    assert!(
        pending.await.unwrap().is_err(),
        "the killed instance never answered"
    );
    wait_for_state(second, &cookies, &install, "interrupted").await;
    assert!(
        plugins(second, &cookies).await.is_empty(),
        "nothing half-installed"
    );

    // The browser sends it again: an install is safe to run again, and runs once more.
    deployment.api.open.store(true, Ordering::SeqCst);
    let (status, installed) =
        operation(second, &cookies, "/api/plugins/install", &install, &body).await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let (_, again) = operation(second, &cookies, "/api/plugins/install", &install, &body).await;
    assert_eq!(again, installed);
    assert_eq!(plugins(second, &cookies).await.len(), 1);
}

#[tokio::test]
async fn an_instance_killed_mid_call_is_interrupted_and_the_call_is_not_run_again() {
    let mut deployment = Deployment::start().await;
    deployment.api.open.store(true, Ordering::SeqCst);
    let cookies = sign_in(&deployment.second).await;
    let spec = json!({"spec": description(&deployment.api.base.lock().unwrap())});
    let (status, installed) = operation(
        &deployment.second,
        &cookies,
        "/api/plugins/install",
        &op_id("install"),
        &spec,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{installed}");
    let id = installed["registered"]["plugin"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let call = json!({"pluginId": id, "function": "now", "args": {},
        "fingerprint": installed["registered"]["fingerprints"]["now"]});

    deployment.api.stall.store(true, Ordering::SeqCst);
    let execute = op_id("execute");
    let pending = spawn_operation(
        deployment.first(),
        &cookies,
        "/api/plugins/execute",
        &execute,
        &call,
    );
    let api = deployment.api.clone();
    wait_until("the tool call", Duration::from_secs(10), || {
        api.calls.load(Ordering::SeqCst) == 1
    })
    .await;
    drop(deployment.first.take());
    assert!(pending.await.unwrap().is_err());
    let second = &deployment.second;
    wait_for_state(second, &cookies, &execute, "interrupted").await;
    deployment.api.stall.store(false, Ordering::SeqCst);
    let (status, refused) =
        operation(second, &cookies, "/api/plugins/execute", &execute, &call).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{refused}");
    assert_eq!(refused["details"]["operation"], "interrupted");
    assert_eq!(
        deployment.api.calls.load(Ordering::SeqCst),
        1,
        "never run twice"
    );
    // A new call (a new id) runs.
    let (status, answered) = operation(
        second,
        &cookies,
        "/api/plugins/execute",
        &op_id("again"),
        &call,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    assert_eq!(answered["result"]["text"], "12:00");
}
