//! The BYOK key over real sockets and real processes: the public key route, the local
//! key file, `hearth byok generate`, and refusals.

mod support;

use std::process::Stdio;

use serde_json::Value;
use support::{Server, fake_dist, hearth_command};

async fn public_key(server: &Server) -> Value {
    reqwest::get(server.url("/api/byok/public-key"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_local_key_is_created_once_privately_and_survives_restarts() {
    let data = tempfile::tempdir().unwrap();
    let data_path = data.path().to_string_lossy().to_string();
    let first = Server::start(&[("HEARTH_DATA_DIR", &data_path)]);
    let key = public_key(&first).await;
    assert_eq!(key["alg"], "RSA-OAEP-256+A256GCM");
    assert_eq!(key["publicKeyJwk"]["kty"], "RSA");
    assert_eq!(key["publicKeyJwk"]["alg"], "RSA-OAEP-256");
    assert_eq!(key["publicKeyJwk"]["e"], "AQAB");
    assert_eq!(key["publicKeyJwk"]["kid"], key["kid"]);
    drop(first);

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data.path().join("byok-key.pem"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let second = Server::start(&[("HEARTH_DATA_DIR", &data_path)]);
    assert_eq!(
        public_key(&second).await,
        key,
        "envelopes made before a restart still open"
    );

    let config: Value = reqwest::get(second.url("/api/config"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(config["capabilities"]["byok"], true);
    let health: Value = reqwest::get(second.url("/api/health"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["services"]["byok"]["status"], "available");
}

#[tokio::test]
async fn generated_keys_configure_a_deployment() {
    let output = hearth_command(&[])
        .args(["byok", "generate"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let kid = text
        .lines()
        .find_map(|l| l.strip_prefix("BYOK_KEY_ID="))
        .unwrap()
        .to_string();
    let pem_start = text.find("BYOK_PRIVATE_KEY_PEM=\"").unwrap() + "BYOK_PRIVATE_KEY_PEM=\"".len();
    let pem = text[pem_start..]
        .trim_end()
        .trim_end_matches('"')
        .to_string();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----"));

    let server = Server::start(&[("BYOK_PRIVATE_KEY_PEM", &pem)]);
    assert_eq!(public_key(&server).await["kid"], kid.as_str());
    assert!(
        std::fs::read_dir(server.data.path())
            .unwrap()
            .next()
            .is_none(),
        "a configured key writes nothing to disk"
    );
    let named = Server::start(&[("BYOK_PRIVATE_KEY_PEM", &pem), ("BYOK_KEY_ID", "prod-7")]);
    assert_eq!(public_key(&named).await["kid"], "prod-7");
}

#[test]
fn bad_keys_and_a_key_directory_inside_dist_are_refused() {
    let dist = tempfile::tempdir().unwrap();
    fake_dist(dist.path());
    let dist_path = dist.path().to_string_lossy().to_string();
    let inside = dist.path().join("secrets").to_string_lossy().to_string();
    let output = hearth_command(&[
        ("HEARTH_DIST_DIR", &dist_path),
        ("HEARTH_DATA_DIR", &inside),
        ("HEARTH_ADDR", "127.0.0.1:0"),
    ])
    .stderr(Stdio::piped())
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("inside the served dist directory"));
    assert!(
        !dist.path().join("secrets").exists(),
        "no key was written where it would be served"
    );

    let output = hearth_command(&[
        ("HEARTH_DIST_DIR", &dist_path),
        (
            "BYOK_PRIVATE_KEY_PEM",
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
        ),
        ("HEARTH_ADDR", "127.0.0.1:0"),
    ])
    .stderr(Stdio::piped())
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("PKCS#8"));
}
