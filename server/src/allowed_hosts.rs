//! Which `Host` names the edge answers for, and which `Origin`s count as its own (DNS
//! rebinding defence).
//!
//! A page on `http://attacker.example:8080` can rebind its own name to 127.0.0.1 and
//! then call a local edge "same-origin": its requests carry `Host: attacker.example:8080`
//! and a matching `Origin`. So every route (the app, `/api/*`, `sw.js`) answers only for
//! allowed hosts, checked before any handler runs:
//! - the loopback names and addresses with the port the edge is bound to
//!   (`127.0.0.1:<port>`, `localhost:<port>`, `[::1]:<port>`), in both modes, and the
//!   bound address itself when it is a specific one (a rebinding page can never send
//!   these: its requests carry its own name);
//! - the hosts of the public origins the operator configured (`HEARTH_PUBLIC_ORIGIN`,
//!   required when hosted);
//! - the hosts the operator lists (`HEARTH_ALLOWED_HOSTS`: a LAN name, another port in
//!   front of a port mapping, a load balancer's health-check address).
//!
//! Anything else is a 421 `HOST_NOT_ALLOWED` in the error shape (`guard::host_guard`). `Origin` is compared
//! with the allowed origins (each allowed host over `http` or `https`, and the public
//! origins exactly), never with the request's own `Host`.

use std::collections::HashSet;
use std::net::SocketAddr;

use reqwest::Url;

/// Why an operator's host or origin entry is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostEntryError {
    /// Not `scheme://host[:port]` with an http(s) scheme and nothing after the host.
    #[error(
        "`{0}` is not an origin like https://chat.example.com (scheme, host, optional port, nothing else)"
    )]
    BadOrigin(String),
    /// Not `host` or `host:port`.
    #[error("`{0}` is not a host like chat.example.com or 192.168.1.5:8080")]
    BadHost(String),
}

/// The hosts and origins the edge answers for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedHosts {
    /// Acceptable `Host` values, lower case (`name` or `name:port`).
    hosts: HashSet<String>,
    /// Acceptable `Origin` values, lower case, without a trailing slash.
    origins: HashSet<String>,
}

impl AllowedHosts {
    /// The hosts for an edge bound to `bind`, with the operator's public origins and
    /// extra hosts.
    pub fn new(
        bind: SocketAddr,
        public_origins: &[String],
        extra_hosts: &[String],
    ) -> Result<Self, HostEntryError> {
        let mut allowed = Self::default();
        let port = bind.port();
        for name in ["127.0.0.1", "localhost", "[::1]"] {
            allowed.add_host(name, Some(port));
        }
        if !bind.ip().is_unspecified() && !bind.ip().is_loopback() {
            let ip = match bind {
                SocketAddr::V4(v4) => v4.ip().to_string(),
                SocketAddr::V6(v6) => format!("[{}]", v6.ip()),
            };
            allowed.add_host(&ip, Some(port));
        }
        for origin in public_origins.iter().filter(|o| !o.trim().is_empty()) {
            let (scheme, host, port) = parse_origin(origin)?;
            let port = port.unwrap_or(default_port(&scheme));
            allowed.hosts.insert(format!("{host}:{port}"));
            if port == default_port(&scheme) {
                allowed.hosts.insert(host.clone());
            }
            allowed
                .origins
                .insert(origin_text(&scheme, &host, Some(port)));
        }
        for entry in extra_hosts.iter().filter(|h| !h.trim().is_empty()) {
            let (host, port) =
                parse_host(entry.trim()).ok_or_else(|| HostEntryError::BadHost(entry.clone()))?;
            allowed.add_host(&host, port);
        }
        Ok(allowed)
    }

    /// Records `host` (and its origins over http and https) with `port`, or without a
    /// port (any scheme's default).
    fn add_host(&mut self, host: &str, port: Option<u16>) {
        let host = host.to_ascii_lowercase();
        match port {
            Some(port) => {
                self.hosts.insert(format!("{host}:{port}"));
                for scheme in ["http", "https"] {
                    if port == default_port(scheme) {
                        self.hosts.insert(host.clone());
                        self.origins.insert(format!("{scheme}://{host}"));
                    }
                    self.origins.insert(format!("{scheme}://{host}:{port}"));
                }
            }
            None => {
                self.hosts.insert(host.clone());
                for scheme in ["http", "https"] {
                    self.hosts
                        .insert(format!("{host}:{}", default_port(scheme)));
                    self.origins.insert(format!("{scheme}://{host}"));
                }
            }
        }
    }

    /// Whether a request's `Host` (or HTTP/2 `:authority`) is one of ours.
    pub fn allows_host(&self, host: &str) -> bool {
        self.hosts.contains(&host.trim().to_ascii_lowercase())
    }

    /// Whether a request's `Origin` is one of ours.
    pub fn allows_origin(&self, origin: &str) -> bool {
        let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
        self.origins.contains(&origin)
    }
}

fn default_port(scheme: &str) -> u16 {
    if scheme == "https" { 443 } else { 80 }
}

fn origin_text(scheme: &str, host: &str, port: Option<u16>) -> String {
    match port {
        Some(port) if port != default_port(scheme) => format!("{scheme}://{host}:{port}"),
        _ => format!("{scheme}://{host}"),
    }
}

/// `https://chat.example.com[:port][/]` into its scheme, host and explicit port.
fn parse_origin(text: &str) -> Result<(String, String, Option<u16>), HostEntryError> {
    let bad = || HostEntryError::BadOrigin(text.to_string());
    let url = Url::parse(text.trim()).map_err(|_| bad())?;
    let plain = matches!(url.scheme(), "http" | "https")
        && url.username().is_empty()
        && url.password().is_none()
        && url.path() == "/"
        && url.query().is_none()
        && url.fragment().is_none()
        && !text.trim().trim_end_matches('/').ends_with(':');
    let host = url.host_str().filter(|_| plain).ok_or_else(bad)?;
    Ok((
        url.scheme().to_string(),
        host.to_ascii_lowercase(),
        url.port(),
    ))
}

/// `name`, `name:port`, `1.2.3.4:port` or `[v6]:port` into a host and an optional port.
fn parse_host(text: &str) -> Option<(String, Option<u16>)> {
    let url = Url::parse(&format!("http://{text}/")).ok()?;
    let plain = url.username().is_empty()
        && url.password().is_none()
        && url.path() == "/"
        && url.query().is_none()
        && !text.contains(['/', '?', '#', '@', '\\']);
    let host = url.host_str().filter(|_| plain)?.to_ascii_lowercase();
    // `url` drops a port that is the scheme's default; keep what the operator wrote.
    let port = match text.rsplit_once(':') {
        Some((_, port)) if !text.ends_with(']') => Some(port.parse::<u16>().ok()?),
        _ => None,
    };
    Some((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(port: u16) -> AllowedHosts {
        AllowedHosts::new(([127, 0, 0, 1], port).into(), &[], &[]).unwrap()
    }

    #[test]
    fn local_mode_answers_for_loopback_names_on_the_bound_port() {
        let hosts = local(8080);
        for host in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "[::1]:8080",
        ] {
            assert!(hosts.allows_host(host), "{host}");
        }
        for host in [
            "attacker.example:8080",
            "127.0.0.1:9090",
            "localhost",
            "127.0.0.1",
            "localhost.attacker.example:8080",
            "127.0.0.1.nip.io:8080",
            "",
        ] {
            assert!(!hosts.allows_host(host), "{host}");
        }
        assert!(hosts.allows_origin("http://127.0.0.1:8080"));
        assert!(hosts.allows_origin("http://localhost:8080"));
        assert!(!hosts.allows_origin("http://attacker.example:8080"));
        assert!(!hosts.allows_origin("null"));
        assert!(!hosts.allows_origin("http://127.0.0.1:8081"));
    }

    #[test]
    fn a_specific_bind_address_and_listed_hosts_are_allowed() {
        let hosts = AllowedHosts::new(
            ([192, 168, 1, 5], 8080).into(),
            &[],
            &[
                "hearth.lan".into(),
                "127.0.0.1:3000".into(),
                "[fd00::5]:8080".into(),
            ],
        )
        .unwrap();
        for host in [
            "192.168.1.5:8080",
            "hearth.lan",
            "hearth.lan:80",
            "hearth.lan:443",
            "127.0.0.1:3000",
            "[fd00::5]:8080",
        ] {
            assert!(hosts.allows_host(host), "{host}");
        }
        assert!(!hosts.allows_host("hearth.lan:8443"));
        assert!(hosts.allows_origin("https://hearth.lan"));
        assert!(hosts.allows_origin("http://127.0.0.1:3000"));
    }

    #[test]
    fn public_origins_give_their_hosts_and_exact_origins() {
        let hosts = AllowedHosts::new(
            ([0, 0, 0, 0], 8080).into(),
            &[
                "https://chat.example.com".into(),
                "https://alt.example.com:8443/".into(),
            ],
            &[],
        )
        .unwrap();
        for host in [
            "chat.example.com",
            "chat.example.com:443",
            "alt.example.com:8443",
        ] {
            assert!(hosts.allows_host(host), "{host}");
        }
        assert!(!hosts.allows_host("0.0.0.0:8080"));
        assert!(hosts.allows_origin("https://chat.example.com"));
        assert!(hosts.allows_origin("https://chat.example.com/"));
        assert!(hosts.allows_origin("https://alt.example.com:8443"));
        assert!(!hosts.allows_origin("https://evil.example.com"));
    }

    #[test]
    fn malformed_entries_are_refused() {
        for origin in [
            "chat.example.com",
            "ftp://chat.example.com",
            "https://chat.example.com/app",
            "https://user@chat.example.com",
            "https://chat.example.com?x",
        ] {
            assert!(
                matches!(
                    AllowedHosts::new(([127, 0, 0, 1], 1).into(), &[origin.into()], &[]),
                    Err(HostEntryError::BadOrigin(_))
                ),
                "{origin}"
            );
        }
        for host in [
            "https://x.example",
            "x.example/path",
            "a@b",
            "x.example:99999",
            "x y",
        ] {
            assert!(
                matches!(
                    AllowedHosts::new(([127, 0, 0, 1], 1).into(), &[], &[host.into()]),
                    Err(HostEntryError::BadHost(_))
                ),
                "{host}"
            );
        }
    }
}
