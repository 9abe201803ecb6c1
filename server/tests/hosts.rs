//! DNS rebinding over real sockets: the real binary answers only for its allowed hosts,
//! on every route family (the app, `sw.js`, assets, `/api/*`), before any handler runs,
//! and compares `Origin` with its allowed origins, never with the request's own `Host`.

mod support;

use support::Server;

/// The status code of a raw HTTP/1.1 exchange.
fn status(response: &str) -> u16 {
    response
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

fn get(server: &Server, path: &str, host: &str) -> String {
    server.raw(&format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    ))
}

fn post(server: &Server, path: &str, host: &str, origin: Option<&str>, body: &str) -> String {
    let origin = origin.map_or(String::new(), |o| {
        format!("Origin: {o}\r\nSec-Fetch-Site: same-origin\r\n")
    });
    server.raw(&format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\n{origin}Content-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ))
}

/// One path of each route family.
const FAMILIES: [&str; 9] = [
    "/",
    "/c/some-conversation",
    "/sw.js",
    "/app-0123456789abcdef.js",
    "/api/health",
    "/api/config",
    "/api/byok/public-key",
    "/api/plugins/list",
    "/api/no-such-route",
];

#[test]
fn a_rebound_name_is_refused_on_every_route_before_any_handler() {
    let server = Server::start(&[]);
    let port = server.port;
    for path in FAMILIES {
        for host in [
            format!("attacker.example:{port}"),
            format!("127.0.0.1.attacker.example:{port}"),
            format!("localhost.:{port}"),
            format!("127.0.0.1:{}", port.wrapping_add(1)),
            "localhost".to_string(),
        ] {
            let response = get(&server, path, &host);
            assert_eq!(status(&response), 421, "{path} for {host}: {response}");
            assert!(
                response.contains("\"code\":\"HOST_NOT_ALLOWED\""),
                "{response}"
            );
            assert!(response.contains("\"statusCode\":421"), "{response}");
            // The refusal carries the security headers like every other answer.
            assert!(
                response
                    .to_ascii_lowercase()
                    .contains("content-security-policy"),
                "{response}"
            );
        }
        for host in [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("LocalHost:{port}"),
            format!("[::1]:{port}"),
        ] {
            let response = get(&server, path, &host);
            assert_ne!(status(&response), 421, "{path} for {host}: {response}");
        }
    }
    // No Host at all (HTTP/1.0) is not a host the edge answers for either.
    let response = server.raw("GET /api/health HTTP/1.0\r\n\r\n");
    assert_eq!(status(&response), 421, "{response}");
}

#[test]
fn a_rebinding_page_cannot_install_a_plugin_even_with_a_matching_origin() {
    let server = Server::start(&[]);
    let port = server.port;
    // The attack as reported: an OpenAPI plugin whose server is the user's Redis.
    let spec = r#"{"spec": "{\"openapi\":\"3.0.0\",\"info\":{\"title\":\"x\"},\"servers\":[{\"url\":\"http://127.0.0.1:6379\"}],\"paths\":{\"/a\":{\"get\":{\"operationId\":\"a\"}}}}"}"#;
    let host = format!("attacker.example:{port}");
    let origin = format!("http://attacker.example:{port}");
    let response = post(&server, "/api/plugins/install", &host, Some(&origin), spec);
    assert_eq!(status(&response), 421, "{response}");
    // Even on an allowed host, an Origin that merely equals the Host is not ours.
    let response = post(
        &server,
        "/api/plugins/install",
        &format!("localhost:{port}"),
        Some(&format!("http://attacker.example:{port}")),
        spec,
    );
    assert_eq!(status(&response), 403, "{response}");
    assert!(response.contains("CSRF_ORIGIN_BLOCKED"), "{response}");
    // Nothing was registered.
    let list = get(&server, "/api/plugins/list", &format!("127.0.0.1:{port}"));
    assert_eq!(status(&list), 200, "{list}");
    assert!(list.contains("\"plugins\":[]"), "{list}");
    // The edge's own origin may (the same install from the app itself).
    let response = post(
        &server,
        "/api/plugins/install",
        &format!("127.0.0.1:{port}"),
        Some(&format!("http://127.0.0.1:{port}")),
        spec,
    );
    assert_eq!(status(&response), 200, "{response}");
}

#[test]
fn operators_add_the_hosts_they_reach_the_edge_by() {
    let server = Server::start(&[("HEARTH_ALLOWED_HOSTS", "hearth.lan, 127.0.0.1:3000")]);
    let port = server.port;
    for host in [
        "hearth.lan",
        "hearth.lan:80",
        "127.0.0.1:3000",
        &format!("127.0.0.1:{port}"),
    ] {
        assert_eq!(status(&get(&server, "/api/health", host)), 200, "{host}");
    }
    assert_eq!(status(&get(&server, "/api/health", "hearth.lan:8443")), 421);
    let body = r#"{"password": "x"}"#;
    let response = post(
        &server,
        "/api/access/verify",
        "hearth.lan",
        Some("https://hearth.lan"),
        body,
    );
    assert_ne!(
        status(&response),
        403,
        "a listed host's origin is ours: {response}"
    );
    assert_ne!(status(&response), 421, "{response}");
}

#[test]
fn hosted_mode_refuses_to_start_without_a_public_origin() {
    let output = support::hearth_command(&[
        ("DEPLOYMENT_MODE", "hosted"),
        ("BYOK_PRIVATE_KEY_PEM", "pem"),
        ("REDIS_URL", "redis://127.0.0.1:1"),
        ("HEARTH_SESSION_SECRET", "s"),
        ("HEARTH_ADDR", "127.0.0.1:0"),
    ])
    .output()
    .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("HEARTH_PUBLIC_ORIGIN"), "{stderr}");
}
