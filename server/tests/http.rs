//! The edge over real sockets: the real binary, a real HTTP client.

mod support;

use std::io::Read;

use base64::Engine as _;
use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap};
use serde_json::Value;
use sha2::{Digest, Sha256};
use support::{INLINE_SCRIPT, Server, WASM};

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

fn assert_security_headers(headers: &HeaderMap, what: &str) {
    let csp = headers
        .get(header::CONTENT_SECURITY_POLICY)
        .unwrap_or_else(|| panic!("{what}: no CSP"))
        .to_str()
        .unwrap();
    assert!(csp.contains("frame-ancestors 'none'"), "{what}: {csp}");
    assert!(!csp.contains("'unsafe-inline'"), "{what}: {csp}");
    assert!(!csp.contains("'unsafe-eval'"), "{what}: {csp}");
    assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "{what}");
    assert_eq!(headers[header::REFERRER_POLICY], "no-referrer", "{what}");
}

#[tokio::test]
async fn health_reports_ok_with_services_and_no_store() {
    let server = Server::start(&[]);
    let response = client()
        .get(server.url("/api/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[header::CACHE_CONTROL], "no-store");
    assert_security_headers(response.headers(), "health");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["deploymentMode"], "local");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(body["services"]["accessPassword"]["status"], "unconfigured");
    assert_eq!(
        body["services"]["documentParseJobStore"]["status"],
        "local_only"
    );
    // Voice relays with keys sealed for this edge, whose key a local edge makes itself.
    assert_eq!(body["services"]["voice"]["status"], "available");
    assert_eq!(body["services"]["voice"]["code"], "VOICE_READY");
    assert!(body["generatedAt"].as_str().unwrap().ends_with('Z'));
}

#[tokio::test]
async fn config_describes_the_deployment_without_secrets() {
    let secret = "correct-horse-battery-staple-7781";
    let server = Server::start(&[("ACCESS_PASSWORD", secret)]);
    let response = client()
        .get(server.url("/api/config"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.unwrap();
    assert!(!text.contains(secret), "config leaks the password: {text}");
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["deployment"]["mode"], "local");
    assert_eq!(body["deployment"]["accessPasswordEnabled"], true);
    assert_eq!(body["capabilities"]["chatRelay"], true);
    assert_eq!(body["capabilities"]["byok"], true);
    assert_eq!(body["deployment"]["sharedState"], "memory");

    let health: Value = client()
        .get(server.url("/api/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["services"]["accessPassword"]["status"], "available");
    assert!(!health.to_string().contains(secret));
}

#[tokio::test]
async fn unknown_api_paths_are_json_404s_never_the_app() {
    let server = Server::start(&[]);
    for path in ["/api/nope", "/api/chat/relay/extra", "/api", "/api/"] {
        let response = client().get(server.url(path)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(
            response.headers()[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("application/json"),
            "{path}"
        );
        assert_security_headers(response.headers(), path);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["code"], "NOT_FOUND", "{path}");
        assert_eq!(body["statusCode"], 404, "{path}");
        assert!(body["error"].is_string(), "{path}");
    }
    let response = client()
        .post(server.url("/api/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn static_files_have_types_cache_policy_and_security_headers() {
    let server = Server::start(&[]);
    let http = client();

    let wasm = http
        .get(server.url("/app-0123456789abcdef_bg.wasm"))
        .send()
        .await
        .unwrap();
    assert_eq!(wasm.status(), StatusCode::OK);
    assert_eq!(wasm.headers()[header::CONTENT_TYPE], "application/wasm");
    assert_eq!(
        wasm.headers()[header::CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    assert_security_headers(wasm.headers(), "wasm");
    assert_eq!(wasm.bytes().await.unwrap().as_ref(), WASM);

    let js = http
        .get(server.url("/app-0123456789abcdef.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        js.headers()[header::CONTENT_TYPE],
        "text/javascript; charset=utf-8"
    );
    assert_eq!(
        js.headers()[header::CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );

    let index = http.get(server.url("/")).send().await.unwrap();
    assert_eq!(
        index.headers()[header::CONTENT_TYPE],
        "text/html; charset=utf-8"
    );
    assert_eq!(index.headers()[header::CACHE_CONTROL], "no-cache");
    assert_security_headers(index.headers(), "index");

    let boot = http.get(server.url("/boot.js")).send().await.unwrap();
    assert_eq!(
        boot.headers()[header::CACHE_CONTROL],
        "no-cache",
        "unhashed files revalidate"
    );

    let svg = http
        .get(server.url("/icons/icon.svg"))
        .send()
        .await
        .unwrap();
    assert_eq!(svg.headers()[header::CONTENT_TYPE], "image/svg+xml");
}

#[tokio::test]
async fn csp_allows_exactly_the_inline_loader_by_hash() {
    let server = Server::start(&[]);
    let response = client().get(server.url("/")).send().await.unwrap();
    let csp = response.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_string();
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(INLINE_SCRIPT));
    assert!(
        csp.contains(&format!(
            "script-src 'self' 'wasm-unsafe-eval' 'sha256-{hash}'"
        )),
        "{csp}"
    );
}

#[tokio::test]
async fn client_routes_get_the_app_and_missing_files_get_404() {
    let server = Server::start(&[]);
    let http = client();
    let index = http
        .get(server.url("/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for route in ["/c/123", "/settings", "/deep/link/here?x=1"] {
        let response = http.get(server.url(route)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{route}");
        assert_eq!(
            response.headers()[header::CACHE_CONTROL],
            "no-cache",
            "{route}"
        );
        assert_eq!(response.text().await.unwrap(), index, "{route}");
    }
    for missing in [
        "/missing.js",
        "/icons/none.png",
        "/app-0123456789abcdee.wasm",
    ] {
        let response = http.get(server.url(missing)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{missing}");
        assert_security_headers(response.headers(), missing);
    }
    let response = http.post(server.url("/")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn the_service_worker_is_revalidated_and_a_share_it_missed_goes_back_unread() {
    let server = Server::start(&[]);
    let http = client();
    // The browser must see a new version as soon as there is one: never cached blindly.
    let worker = http.get(server.url("/sw.js")).send().await.unwrap();
    assert_eq!(worker.status(), StatusCode::OK);
    assert_eq!(
        worker.headers()[header::CONTENT_TYPE],
        "text/javascript; charset=utf-8"
    );
    assert_eq!(worker.headers()[header::CACHE_CONTROL], "no-cache");
    let etag = worker.headers()[header::ETAG].clone();
    let again = http
        .get(server.url("/sw.js"))
        .header(header::IF_NONE_MATCH, etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);

    // A share the worker did not take (none was installed yet) is sent back to the app,
    // which says so; the edge drops what was shared unread. It is sent slowly, in
    // pieces, as a browser uploads a large share: an answer given mid-upload would cut
    // the connection under the client, which then never sees the redirect.
    use futures_util::StreamExt as _;
    let head = b"--b\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\na private note\r\n\
        --b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.bin\"\r\n\r\n"
        .to_vec();
    let mut pieces: Vec<Vec<u8>> = vec![head];
    pieces.extend((0..8).map(|_| vec![7u8; 64 * 1024]));
    pieces.push(b"\r\n--b--\r\n".to_vec());
    let slowly = futures_util::stream::iter(pieces).then(|piece| async move {
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        Ok::<_, std::io::Error>(piece)
    });
    let shared = http
        .post(server.url("/share"))
        .header(header::CONTENT_TYPE, "multipart/form-data; boundary=b")
        .body(reqwest::Body::wrap_stream(slowly))
        .send()
        .await
        .unwrap();
    assert_eq!(shared.status(), StatusCode::SEE_OTHER);
    assert_eq!(shared.headers()[header::LOCATION], "/?share=failed");
    assert_security_headers(shared.headers(), "share");
    // Only POST: a GET is the app's own client route.
    let page = http.get(server.url("/share")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert_eq!(
        page.headers()[header::CONTENT_TYPE],
        "text/html; charset=utf-8"
    );
}

#[tokio::test]
async fn etags_revalidate_and_gzip_is_negotiated() {
    let server = Server::start(&[]);
    let http = client();
    let first = http
        .get(server.url("/app-0123456789abcdef.js"))
        .send()
        .await
        .unwrap();
    let etag = first.headers()[header::ETAG].clone();
    let plain = first.bytes().await.unwrap();

    let again = http
        .get(server.url("/app-0123456789abcdef.js"))
        .header(header::IF_NONE_MATCH, etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.bytes().await.unwrap().is_empty());

    let gzipped = http
        .get(server.url("/app-0123456789abcdef.js"))
        .header(header::ACCEPT_ENCODING, "br, gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(gzipped.headers()[header::CONTENT_ENCODING], "gzip");
    assert_eq!(gzipped.headers()[header::VARY], "Accept-Encoding");
    let compressed = gzipped.bytes().await.unwrap();
    assert!(compressed.len() < plain.len());
    let mut decoded = Vec::new();
    flate2::read::GzDecoder::new(compressed.as_ref())
        .read_to_end(&mut decoded)
        .unwrap();
    assert_eq!(decoded, plain);

    let refused = http
        .get(server.url("/app-0123456789abcdef.js"))
        .header(header::ACCEPT_ENCODING, "gzip;q=0")
        .send()
        .await
        .unwrap();
    assert!(refused.headers().get(header::CONTENT_ENCODING).is_none());

    let head = http
        .head(server.url("/app-0123456789abcdef.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    assert_eq!(
        head.headers()[header::CONTENT_LENGTH].to_str().unwrap(),
        plain.len().to_string()
    );
}

#[tokio::test]
async fn traversal_attempts_never_reach_the_filesystem() {
    let server = Server::start(&[]);
    // A file next to dist/ that a traversal would reach.
    std::fs::write(
        server.dist.path().join("../hearth-secret.txt"),
        "TOP-SECRET",
    )
    .ok();
    for path in [
        "/../hearth-secret.txt",
        "/..%2fhearth-secret.txt",
        "/%2e%2e/hearth-secret.txt",
        "/../../../../etc/passwd",
        "/icons/../../hearth-secret.txt",
    ] {
        let response = server.raw(&format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            server.port
        ));
        // Answered by the static files (a host the edge serves), not refused earlier.
        assert!(!response.starts_with("HTTP/1.1 421"), "{path}: {response}");
        assert!(!response.contains("TOP-SECRET"), "{path}: {response}");
        assert!(!response.contains("root:x:"), "{path}: {response}");
    }
}

#[tokio::test]
async fn every_sandbox_page_is_served_at_its_path_with_its_own_policy() {
    let server = Server::start(&[]);
    for page in hearth_server::sandbox::PAGES {
        let response = client().get(server.url(page.path)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{}", page.path);
        let headers = response.headers().clone();
        assert_eq!(
            headers[header::CONTENT_SECURITY_POLICY],
            page.csp,
            "{}",
            page.path
        );
        // The app frames it: never the app's `X-Frame-Options: DENY`.
        assert!(
            headers.get(header::X_FRAME_OPTIONS).is_none(),
            "{}",
            page.path
        );
        assert_eq!(response.text().await.unwrap(), page.html, "{}", page.path);
    }
}
