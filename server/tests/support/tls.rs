//! HTTPS for tests: a certificate authority made for one test with the distribution's
//! `openssl`, and an axum app served over TLS with a certificate it signed. Shared by the
//! server's tests and, through `#[path]`, by the e2e tests (a registry over real TLS).

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;

use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// A certificate authority made for one test, and a server certificate it signed for
/// `localhost` and `127.0.0.1` (with the distribution's `openssl`): `ca.pem`,
/// `server.pem`, `server.key` in `dir`. Processes trust it through `SSL_CERT_FILE`.
pub struct TestCa {
    pub dir: tempfile::TempDir,
}

impl TestCa {
    pub fn make() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            let status = Command::new("openssl")
                .args(args)
                .current_dir(dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("openssl (Debian package openssl; scripts/setup.sh test installs it)");
            assert!(status.success(), "openssl {args:?} failed");
        };
        std::fs::write(
            dir.path().join("ext.cnf"),
            "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
        )
        .unwrap();
        run(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=Hearth test CA",
        ]);
        run(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ]);
        run(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ]);
        Self { dir }
    }

    pub fn ca_file(&self) -> String {
        self.dir
            .path()
            .join("ca.pem")
            .to_string_lossy()
            .into_owned()
    }

    /// The server certificate (PEM).
    pub fn cert_file(&self) -> std::path::PathBuf {
        self.dir.path().join("server.pem")
    }

    /// The server certificate's private key (PEM).
    pub fn key_file(&self) -> std::path::PathBuf {
        self.dir.path().join("server.key")
    }
}

/// A TCP listener that completes a TLS handshake before handing a connection to axum.
struct TlsListener {
    tcp: tokio::net::TcpListener,
    acceptor: TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((tcp, addr)) = self.tcp.accept().await else {
                continue;
            };
            // A client that refuses the certificate fails here; wait for the next one.
            if let Ok(tls) = self.acceptor.accept(tcp).await {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

/// Serves `app` over HTTPS on a loopback port with `ca`'s server certificate (for
/// `localhost` and `127.0.0.1`); returns the port. The server runs on the caller's
/// runtime.
pub async fn serve_https(ca: &TestCa, app: axum::Router) -> u16 {
    let certs = CertificateDer::pem_file_iter(ca.cert_file())
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(ca.key_file()).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = tcp.local_addr().unwrap().port();
    let listener = TlsListener {
        tcp,
        acceptor: TlsAcceptor::from(Arc::new(config)),
    };
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}
