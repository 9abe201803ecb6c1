//! The outbound client against real loopback servers: policy on every hop and address,
//! redirects, credentials, method rules, size caps and deadlines.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use bytes::Bytes;
use hearth_core::url_policy::{
    AddressClass, AllowedNetwork, Policies, PolicyError, Target, UrlPolicy,
};
use hearth_server::safe_fetch::resolver::Lookup;
use hearth_server::safe_fetch::{FetchError, Limits, OutboundRequest, SafeFetch};
use reqwest::Method;

/// A loopback server that answers by path and counts requests.
struct Upstream {
    addr: SocketAddr,
    hits: Arc<AtomicUsize>,
}

#[derive(Clone)]
struct Shared {
    hits: Arc<AtomicUsize>,
    next: Arc<String>,
}

async fn answer(State(shared): State<Shared>, request: Request) -> Response {
    shared.hits.fetch_add(1, Ordering::SeqCst);
    let path = request.uri().path().to_string();
    let method = request.method().clone();
    let headers = request.headers().clone();
    let body = axum::body::to_bytes(request.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    let echo = || {
        format!(
            "{} auth={} cookie={} body={}",
            method,
            headers
                .get("authorization")
                .map_or("-", |v| v.to_str().unwrap_or("?")),
            headers
                .get("cookie")
                .map_or("-", |v| v.to_str().unwrap_or("?")),
            String::from_utf8_lossy(&body)
        )
    };
    let redirect = |status: StatusCode, to: String| {
        (status, [(axum::http::header::LOCATION, to)]).into_response()
    };
    match path.as_str() {
        "/ok" => "hello".into_response(),
        "/echo" => echo().into_response(),
        "/to-next" => redirect(StatusCode::FOUND, shared.next.to_string()),
        "/found" => redirect(StatusCode::FOUND, "/echo".into()),
        "/see-other" => redirect(StatusCode::SEE_OTHER, "/echo".into()),
        "/temporary" => redirect(StatusCode::TEMPORARY_REDIRECT, "/echo".into()),
        "/loop" => redirect(StatusCode::FOUND, "/loop".into()),
        "/no-location" => StatusCode::FOUND.into_response(),
        "/big" => vec![b'x'; 2 * 1024 * 1024].into_response(),
        "/big-chunked" => {
            let chunks =
                (0..64).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![b'y'; 32 * 1024])));
            Body::from_stream(futures_util::stream::iter(chunks)).into_response()
        }
        "/slow-headers" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            "late".into_response()
        }
        "/stalled-body" => {
            let stream = futures_util::stream::unfold(0, |n| async move {
                if n > 0 {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                }
                Some((Ok::<_, std::io::Error>(Bytes::from_static(b"tick")), n + 1))
            });
            Body::from_stream(stream).into_response()
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn upstream(bind: &str, next: String) -> Upstream {
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .expect("bind upstream");
    let addr = listener.local_addr().unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let app = Router::new().fallback(any(answer)).with_state(Shared {
        hits: Arc::clone(&hits),
        next: Arc::new(next),
    });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Upstream { addr, hits }
}

impl Upstream {
    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// Plays DNS: each name answers with fixed addresses.
struct Table(HashMap<String, Vec<IpAddr>>);

impl Lookup for Table {
    fn lookup(
        &self,
        name: String,
    ) -> std::pin::Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send>> {
        let answer = self.0.get(&name).cloned().unwrap_or_default();
        Box::pin(async move { Ok(answer) })
    }
}

/// A client with `policies` whose DNS answers from `names`.
fn with_names(policies: Policies, limits: Limits, names: &[(&str, &[&str])]) -> SafeFetch {
    let table = names
        .iter()
        .map(|(name, ips)| {
            (
                name.to_string(),
                ips.iter().map(|ip| ip.parse().unwrap()).collect(),
            )
        })
        .collect();
    SafeFetch::with_lookup(policies, limits, Arc::new(Table(table))).unwrap()
}

/// A client with one policy for every kind of target.
fn client(policy: UrlPolicy, limits: Limits, names: &[(&str, &[&str])]) -> SafeFetch {
    with_names(Policies::uniform(policy), limits, names)
}

/// Hosted rules over plain HTTP (tests have no TLS peer), with 127.0.0.1 allowed by the
/// operator, so that every *other* private address stays blocked.
fn strict() -> UrlPolicy {
    UrlPolicy {
        allow_private: false,
        require_https: false,
        allowed_networks: vec![AllowedNetwork::parse("127.0.0.1/32").unwrap()],
        refuse_address_names: false,
    }
}

fn blocked_class(error: FetchError) -> AddressClass {
    match error {
        FetchError::UrlBlocked(PolicyError::BlockedAddress { class, .. }) => class,
        other => panic!("expected URL_BLOCKED, got {other:?}"),
    }
}

#[tokio::test]
async fn fetches_an_allowed_target() {
    let server = upstream("127.0.0.1:0", String::new()).await;
    let response = client(UrlPolicy::local(), Limits::default(), &[])
        .fetch(OutboundRequest::get(
            Target::UserConfigured,
            server.url("/ok"),
        ))
        .await
        .unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.body.as_ref(), b"hello");
}

#[tokio::test]
async fn blocked_targets_are_refused_before_any_connection() {
    let server = upstream("127.0.0.2:0", String::new()).await;
    let fetch = client(
        strict(),
        Limits::default(),
        &[
            ("rebind.example", &["93.184.216.34", "127.0.0.2"]),
            ("inside.example", &["127.0.0.2"]),
        ],
    );
    let error = fetch
        .fetch(OutboundRequest::get(
            Target::UserConfigured,
            server.url("/ok"),
        ))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "URL_BLOCKED");
    assert_eq!(blocked_class(error), AddressClass::Loopback);

    let port = server.addr.port();
    for name in ["inside.example", "rebind.example"] {
        let error = fetch
            .fetch(OutboundRequest::get(
                Target::UserConfigured,
                format!("http://{name}:{port}/ok"),
            ))
            .await
            .unwrap_err();
        assert_eq!(blocked_class(error), AddressClass::Loopback, "{name}");
    }
    assert_eq!(
        server.hits.load(Ordering::SeqCst),
        0,
        "nothing reached the server"
    );
}

#[tokio::test]
async fn a_name_resolving_to_an_allowed_address_connects_to_that_address() {
    let server = upstream("127.0.0.1:0", String::new()).await;
    let fetch = client(
        strict(),
        Limits::default(),
        &[("api.example", &["127.0.0.1"])],
    );
    let port = server.addr.port();
    let response = fetch
        .fetch(OutboundRequest::get(
            Target::UserConfigured,
            format!("http://api.example:{port}/ok"),
        ))
        .await
        .unwrap();
    assert_eq!(response.body.as_ref(), b"hello");
}

#[tokio::test]
async fn every_redirect_hop_is_checked() {
    let inside = upstream("127.0.0.2:0", String::new()).await;
    let front = upstream("127.0.0.1:0", inside.url("/ok")).await;
    let error = client(strict(), Limits::default(), &[])
        .fetch(OutboundRequest::get(
            Target::UserConfigured,
            front.url("/to-next"),
        ))
        .await
        .unwrap_err();
    assert_eq!(blocked_class(error), AddressClass::Loopback);
    assert_eq!(front.hits.load(Ordering::SeqCst), 1);
    assert_eq!(
        inside.hits.load(Ordering::SeqCst),
        0,
        "the redirect target was never contacted"
    );

    let metadata = upstream(
        "127.0.0.1:0",
        "http://169.254.169.254/latest/meta-data/".into(),
    )
    .await;
    let error = client(strict(), Limits::default(), &[])
        .fetch(OutboundRequest::get(
            Target::UserConfigured,
            metadata.url("/to-next"),
        ))
        .await
        .unwrap_err();
    assert_eq!(blocked_class(error), AddressClass::CloudMetadata);
}

#[tokio::test]
async fn redirects_are_limited_and_need_a_location() {
    let server = upstream("127.0.0.1:0", String::new()).await;
    let fetch = client(UrlPolicy::local(), Limits::default(), &[]);
    let error = fetch
        .fetch(OutboundRequest::get(
            Target::UserConfigured,
            server.url("/loop"),
        ))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "TOO_MANY_REDIRECTS");
    assert_eq!(
        server.hits.load(Ordering::SeqCst),
        6,
        "the first request and five redirects"
    );
    let error = fetch
        .fetch(OutboundRequest::get(
            Target::UserConfigured,
            server.url("/no-location"),
        ))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "TOO_MANY_REDIRECTS");
}

fn post(url: String) -> OutboundRequest {
    OutboundRequest {
        target: Target::UserConfigured,
        method: Method::POST,
        url,
        headers: vec![],
        secret_headers: vec![
            (
                HeaderName::from_static("authorization"),
                HeaderValue::from_static("Bearer sk-secret"),
            ),
            (
                HeaderName::from_static("cookie"),
                HeaderValue::from_static("s=1"),
            ),
        ],
        body: Some(Bytes::from_static(b"payload")),
    }
}

#[tokio::test]
async fn credentials_are_dropped_when_the_origin_changes() {
    let second = upstream("127.0.0.1:0", String::new()).await;
    let first = upstream("127.0.0.1:0", second.url("/echo")).await;
    let fetch = client(UrlPolicy::local(), Limits::default(), &[]);

    let mut same = post(first.url("/temporary"));
    same.method = Method::POST;
    let response = fetch.fetch(same).await.unwrap();
    assert_eq!(
        String::from_utf8_lossy(&response.body),
        "POST auth=Bearer sk-secret cookie=s=1 body=payload",
        "a same-origin 307 keeps method, body and credentials"
    );

    let response = fetch.fetch(post(first.url("/to-next"))).await.unwrap();
    assert_eq!(
        String::from_utf8_lossy(&response.body),
        "GET auth=- cookie=- body=",
        "a cross-origin 302 drops credentials, and POST becomes GET without a body"
    );
}

#[tokio::test]
async fn redirect_method_rules_follow_browsers() {
    let server = upstream("127.0.0.1:0", String::new()).await;
    let fetch = client(UrlPolicy::local(), Limits::default(), &[]);
    let body = |r: hearth_server::safe_fetch::OutboundResponse| {
        String::from_utf8_lossy(&r.body).to_string()
    };
    assert!(body(fetch.fetch(post(server.url("/found"))).await.unwrap()).starts_with("GET "));
    assert!(body(fetch.fetch(post(server.url("/see-other"))).await.unwrap()).starts_with("GET "));
    let mut put = post(server.url("/see-other"));
    put.method = Method::PUT;
    assert!(
        body(fetch.fetch(put).await.unwrap()).starts_with("GET "),
        "303 turns PUT into GET"
    );
    let mut put = post(server.url("/found"));
    put.method = Method::PUT;
    assert!(
        body(fetch.fetch(put).await.unwrap()).starts_with("PUT "),
        "302 changes only POST"
    );
}

#[tokio::test]
async fn bodies_are_capped_with_and_without_a_length() {
    let server = upstream("127.0.0.1:0", String::new()).await;
    let limits = Limits {
        max_body_bytes: 1024 * 1024,
        ..Limits::default()
    };
    let fetch = client(UrlPolicy::local(), limits, &[]);
    for path in ["/big", "/big-chunked"] {
        let error = fetch
            .fetch(OutboundRequest::get(
                Target::UserConfigured,
                server.url(path),
            ))
            .await
            .unwrap_err();
        assert_eq!(error.code(), "RESPONSE_SIZE_LIMIT", "{path}");
    }
}

#[tokio::test]
async fn one_deadline_covers_headers_and_body() {
    let server = upstream("127.0.0.1:0", String::new()).await;
    let limits = Limits {
        timeout: Duration::from_millis(400),
        ..Limits::default()
    };
    let fetch = client(UrlPolicy::local(), limits, &[]);
    for path in ["/slow-headers", "/stalled-body"] {
        let started = std::time::Instant::now();
        let error = fetch
            .fetch(OutboundRequest::get(
                Target::UserConfigured,
                server.url(path),
            ))
            .await
            .unwrap_err();
        assert_eq!(error.code(), "RESPONSE_TIMEOUT", "{path}");
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{path} waited for the upstream"
        );
    }
}

#[tokio::test]
async fn urls_with_credentials_or_odd_schemes_are_refused() {
    let fetch = client(UrlPolicy::local(), Limits::default(), &[]);
    for url in [
        "http://user:pw@127.0.0.1:9/",
        "file:///etc/passwd",
        "ftp://127.0.0.1/",
    ] {
        let error = fetch
            .fetch(OutboundRequest::get(Target::UserConfigured, url))
            .await
            .unwrap_err();
        assert_eq!(error.code(), "URL_BLOCKED", "{url}");
    }
    let error = fetch
        .fetch(OutboundRequest::get(
            Target::UserConfigured,
            "http://unknown.invalid:9/",
        ))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "UPSTREAM_UNREACHABLE");
}

/// A deployment's client (one policy per kind of target), DNS from `names`.
fn deployment(policies: Policies, names: &[(&str, &[&str])]) -> SafeFetch {
    with_names(policies, Limits::default(), names)
}

#[tokio::test]
async fn each_target_kind_follows_its_own_policy_in_local_mode() {
    let server = upstream("127.0.0.1:0", String::new()).await;
    let port = server.addr.port();
    let fetch = deployment(
        Policies::local(Vec::new()),
        &[("page.example", &["127.0.0.1"])],
    );
    // What the user configured may be this machine in local mode.
    let ok = fetch
        .fetch(OutboundRequest::get(
            Target::UserConfigured,
            server.url("/ok"),
        ))
        .await
        .unwrap();
    assert_eq!(ok.body.as_ref(), b"hello");
    let hits = server.hits.load(Ordering::SeqCst);
    // What a model chose may not: not over plain HTTP, not by address, not by a name
    // that resolves here, not by a name that spells the address.
    let error = fetch
        .fetch(OutboundRequest::get(
            Target::RemoteChosen,
            server.url("/ok"),
        ))
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            FetchError::UrlBlocked(PolicyError::SchemeNotAllowed { .. })
        ),
        "{error:?}"
    );
    let error = fetch
        .fetch(OutboundRequest::get(
            Target::RemoteChosen,
            format!("https://127.0.0.1:{port}/ok"),
        ))
        .await
        .unwrap_err();
    assert_eq!(blocked_class(error), AddressClass::Loopback);
    let error = fetch
        .fetch(OutboundRequest::get(
            Target::RemoteChosen,
            format!("https://page.example:{port}/ok"),
        ))
        .await
        .unwrap_err();
    assert_eq!(
        blocked_class(error),
        AddressClass::Loopback,
        "refused at DNS"
    );
    let error = fetch
        .fetch(OutboundRequest::get(
            Target::RemoteChosen,
            format!("https://127.0.0.1.nip.io:{port}/ok"),
        ))
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            FetchError::UrlBlocked(PolicyError::AddressInName { .. })
        ),
        "{error:?}"
    );
    assert_eq!(
        server.hits.load(Ordering::SeqCst),
        hits,
        "nothing reached the server"
    );
}

#[tokio::test]
async fn a_remote_chosen_request_keeps_its_policy_on_every_redirect() {
    // A remote policy that admits exactly one test upstream (tests have no public peer),
    // so what it redirects to is judged by the remote rules.
    let remote = UrlPolicy {
        require_https: false,
        ..strict_remote()
    };
    let policies = Policies {
        remote,
        ..Policies::local(Vec::new())
    };
    let inside = upstream("127.0.0.2:0", String::new()).await;
    for next in [
        inside.url("/ok"),
        format!("http://127.0.0.2.nip.io:{}/ok", inside.addr.port()),
        format!("http://localhost:{}/ok", inside.addr.port()),
    ] {
        let front = upstream("127.0.0.1:0", next.clone()).await;
        let error = deployment(policies.clone(), &[])
            .fetch(OutboundRequest::get(
                Target::RemoteChosen,
                front.url("/to-next"),
            ))
            .await
            .unwrap_err();
        assert_eq!(error.code(), "URL_BLOCKED", "{next}: {error:?}");
        assert_eq!(front.hits.load(Ordering::SeqCst), 1);
    }
    // The same redirect for a user-configured target in local mode is followed.
    let front = upstream("127.0.0.1:0", inside.url("/ok")).await;
    let response = deployment(policies, &[])
        .fetch(OutboundRequest::get(
            Target::UserConfigured,
            front.url("/to-next"),
        ))
        .await
        .unwrap();
    assert_eq!(response.body.as_ref(), b"hello");
    assert_eq!(
        inside.hits.load(Ordering::SeqCst),
        1,
        "only the user's request arrived"
    );
}

/// The remote-chosen rules with 127.0.0.1 (one test upstream) let in.
fn strict_remote() -> UrlPolicy {
    UrlPolicy {
        allowed_networks: vec![AllowedNetwork::parse("127.0.0.1/32").unwrap()],
        ..UrlPolicy::remote_chosen()
    }
}
