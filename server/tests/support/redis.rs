//! A private `redis-server` (the distribution's) on a free loopback port, killed on drop.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::tls::TestCa;
use super::{free_port, listening};

/// A running Redis.
pub struct Redis {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

impl Redis {
    /// Plain TCP.
    pub fn start() -> Self {
        Self::start_on(|port| vec!["--port".into(), port.to_string()])
    }

    /// A server that speaks only TLS, with the certificate in `tls`.
    pub fn start_tls(tls: &TestCa) -> Self {
        let path = |name: &str| tls.dir.path().join(name).to_string_lossy().into_owned();
        Self::start_on(|port| {
            vec![
                "--port".into(),
                "0".into(),
                "--tls-port".into(),
                port.to_string(),
                "--tls-cert-file".into(),
                path("server.pem"),
                "--tls-key-file".into(),
                path("server.key"),
                "--tls-ca-cert-file".into(),
                path("ca.pem"),
                "--tls-auth-clients".into(),
                "no".into(),
            ]
        })
    }

    /// Starts on fresh ports until this very process is the one listening (a port found
    /// free can be taken by another test first; then Redis exits).
    fn start_on(listen: impl Fn(u16) -> Vec<String>) -> Self {
        for _ in 0..5 {
            let port = free_port();
            let mut child = Command::new(
                std::env::var("REDIS_SERVER").unwrap_or_else(|_| "redis-server".into()),
            )
            .args(listen(port))
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "redis-server (Debian package redis-server; scripts/setup.sh test installs it)",
            );
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                if listening::listens_on(child.id(), port) {
                    return Self { child, port };
                }
                if child.try_wait().ok().flatten().is_some() {
                    break;
                }
                assert!(Instant::now() < deadline, "redis-server did not start");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        panic!("redis-server could not start on a free port");
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Stops it at once and starts it again, empty, on the same port (a crash and a
    /// restart; the edge must reconnect by itself).
    pub fn restart(&mut self) {
        self.kill();
        let port = self.port;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mut child = Command::new(
                std::env::var("REDIS_SERVER").unwrap_or_else(|_| "redis-server".into()),
            )
            .args(["--port", &port.to_string()])
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server");
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(3) {
                if listening::listens_on(child.id(), port) {
                    self.child = child;
                    return;
                }
                if child.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
            assert!(
                Instant::now() < deadline,
                "redis-server did not restart on {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops it at once (as a crash would).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}
