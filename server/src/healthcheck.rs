//! `hearth healthcheck`: a tiny HTTP/1.1 client for container health checks, so the
//! runtime image needs no curl or shell. It asks the server on the configured address
//! (an unspecified bind address such as `0.0.0.0` is reached over loopback) for
//! `/api/health` and succeeds only on `200`.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(3);

/// Why the check failed.
#[derive(Debug, thiserror::Error)]
pub enum HealthcheckError {
    /// No connection or no complete answer in time.
    #[error("no answer from {addr}: {source}")]
    Io {
        /// The address tried.
        addr: SocketAddr,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The server answered something other than 200.
    #[error("{addr} answered: {status_line}")]
    Unhealthy {
        /// The address tried.
        addr: SocketAddr,
        /// The first line of the answer.
        status_line: String,
    },
}

/// The address to connect to for a server bound to `bind`.
pub fn target(bind: SocketAddr) -> SocketAddr {
    let ip = match bind.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, bind.port())
}

/// Runs the check against a server bound to `bind`.
pub fn check(bind: SocketAddr) -> Result<(), HealthcheckError> {
    let addr = target(bind);
    let io = |source| HealthcheckError::Io { addr, source };
    let mut stream = TcpStream::connect_timeout(&addr, TIMEOUT).map_err(io)?;
    stream.set_read_timeout(Some(TIMEOUT)).map_err(io)?;
    stream.set_write_timeout(Some(TIMEOUT)).map_err(io)?;
    // The host the edge answers for: the address it is reached at, with its port.
    let request = format!("GET /api/health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).map_err(io)?;
    let mut head = [0u8; 64];
    let read = stream.read(&mut head).map_err(io)?;
    let text = String::from_utf8_lossy(&head[..read]);
    let status_line = text.lines().next().unwrap_or_default().to_string();
    if status_line.split_whitespace().nth(1) == Some("200") {
        Ok(())
    } else {
        Err(HealthcheckError::Unhealthy { addr, status_line })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_binds_are_checked_over_loopback() {
        assert_eq!(
            target("0.0.0.0:8080".parse().unwrap()),
            "127.0.0.1:8080".parse().unwrap()
        );
        assert_eq!(
            target("[::]:1".parse().unwrap()),
            "[::1]:1".parse().unwrap()
        );
        assert_eq!(
            target("10.1.2.3:80".parse().unwrap()),
            "10.1.2.3:80".parse().unwrap()
        );
    }
}
