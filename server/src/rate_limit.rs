//! Rate limits per route family, counted per client in the store (shared when hosted),
//! in fixed one-minute windows; over the limit a request gets 429 with `Retry-After`.
//!
//! Who "the client" is:
//! - the connection's address, or — when that address is a proxy the operator trusts
//!   (`HEARTH_TRUSTED_PROXIES`) — the nearest untrusted address in `X-Forwarded-For`
//!   (entries a client wrote itself sit further left and are ignored);
//! - in hosted mode, a signed client-id cookie on top: behind a load balancer whose
//!   addresses are not configured, every request seems to come from one address, and one
//!   bucket for all users would let one of them lock out everybody. Requests without a
//!   valid cookie count against their address and receive a new cookie, so minting
//!   identities costs a request in the shared address bucket and cannot be used to
//!   escape the limit. The cookie is signed: it cannot be forged into someone else's.

use std::net::IpAddr;
use std::time::Duration;

use axum::http::HeaderMap;
use hearth_core::url_policy::AllowedNetwork;

use crate::kv::{KvError, KvStore};
use crate::signing::{Signer, random_bytes};

/// The window every limit counts in.
pub const WINDOW: Duration = Duration::from_secs(60);
/// The client-id cookie.
pub const CLIENT_COOKIE: &str = "hearth_client";

/// Route families with their own budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `POST /api/access/verify` (on top of the lockout).
    Access,
    /// `POST /api/chat/relay`.
    Relay,
    /// Plugin calls (`/api/plugins/execute`, `/api/plugins/refresh`, `/api/mcp/*`): each
    /// one reaches out.
    PluginCalls,
    /// Plugin installs: each one fetches a description or runs MCP discovery.
    PluginInstalls,
    /// `GET /api/mcp/servers`: each one asks the MCP registry for a page.
    Registry,
    /// `POST /api/doc-parse`: each one stores a file and starts a parser (polls are
    /// [`Family::Api`]).
    DocParse,
    /// `POST /api/search`: each one asks a search service (a turn sends at most four).
    Search,
    /// `POST /api/voice/*`: each one asks a voice service (a reply read aloud, a
    /// recording transcribed).
    Voice,
    /// Everything else under `/api`.
    Api,
}

impl Family {
    /// The family of an `/api` path.
    pub fn of(path: &str) -> Self {
        match path {
            "/api/access/verify" => Self::Access,
            "/api/chat/relay" => Self::Relay,
            "/api/plugins/execute"
            | "/api/plugins/refresh"
            | "/api/mcp/resources"
            | "/api/mcp/prompts" => Self::PluginCalls,
            "/api/plugins/install" => Self::PluginInstalls,
            "/api/mcp/servers" => Self::Registry,
            "/api/doc-parse" => Self::DocParse,
            "/api/search" => Self::Search,
            "/api/voice/speech" | "/api/voice/transcriptions" => Self::Voice,
            _ => Self::Api,
        }
    }

    /// Requests allowed per window.
    pub fn limit(self) -> i64 {
        match self {
            Self::Access => 10,
            Self::Relay => 60,
            Self::PluginCalls => 120,
            Self::PluginInstalls => 20,
            Self::Registry => 60,
            Self::DocParse => 120,
            Self::Search => 60,
            Self::Voice => 20,
            Self::Api => 300,
        }
    }

    /// The name used in keys and errors.
    pub fn name(self) -> &'static str {
        match self {
            Self::Access => "access",
            Self::Relay => "relay",
            Self::PluginCalls => "plugin-calls",
            Self::PluginInstalls => "plugin-installs",
            Self::Registry => "registry",
            Self::DocParse => "doc-parse",
            Self::Search => "search",
            Self::Voice => "voice",
            Self::Api => "api",
        }
    }
}

/// The client's address, seen through trusted proxies only.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[AllowedNetwork]) -> IpAddr {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(peer) {
        return peer;
    }
    let forwarded: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|part| part.trim().parse::<IpAddr>().ok())
        .collect();
    forwarded
        .into_iter()
        .rev()
        .find(|ip| !is_trusted(*ip))
        .unwrap_or(peer)
}

/// A valid client id from the `Cookie` header, if any.
pub fn client_id(headers: &HeaderMap, signer: &Signer) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == CLIENT_COOKIE)
        .find_map(|(_, value)| {
            let (id, signature) = value.split_once('.')?;
            signer
                .verify("client:v1", id, signature)
                .then(|| id.to_string())
        })
}

/// A new signed client-id cookie value.
pub fn new_client_cookie(signer: &Signer) -> String {
    use base64::Engine as _;
    let id = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&random_bytes()[..16]);
    format!("{id}.{}", signer.sign("client:v1", &id))
}

/// Counts one request of `identity` in `family`; `Some(wait)` when over the limit.
pub async fn check(
    store: &KvStore,
    family: Family,
    identity: &str,
) -> Result<Option<Duration>, KvError> {
    let key = format!("rate:{}:{identity}", family.name());
    let (count, left) = store.incr(&key, WINDOW).await?;
    Ok((count > family.limit()).then_some(left.max(Duration::from_secs(1))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn nets(list: &[&str]) -> Vec<AllowedNetwork> {
        list.iter()
            .map(|n| AllowedNetwork::parse(n).unwrap())
            .collect()
    }

    #[test]
    fn forwarded_addresses_count_only_behind_trusted_proxies() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            HeaderValue::from_static("6.6.6.6, 203.0.113.9, 10.0.0.2"),
        );
        let proxy: IpAddr = "10.0.0.1".parse().unwrap();
        assert_eq!(
            client_ip(proxy, &headers, &[]),
            proxy,
            "no trusted proxies: the peer"
        );
        assert_eq!(
            client_ip(proxy, &headers, &nets(&["10.0.0.0/8"])),
            "203.0.113.9".parse::<IpAddr>().unwrap(),
            "the nearest untrusted hop, not the spoofable leftmost"
        );
        let direct: IpAddr = "198.51.100.4".parse().unwrap();
        assert_eq!(client_ip(direct, &headers, &nets(&["10.0.0.0/8"])), direct);
    }

    #[test]
    fn client_cookies_are_signed() {
        let signer = Signer::new(Some("s"));
        let cookie = new_client_cookie(&signer);
        let mut headers = HeaderMap::new();
        headers.insert(
            "cookie",
            HeaderValue::from_str(&format!("a=b; {CLIENT_COOKIE}={cookie}")).unwrap(),
        );
        let id = client_id(&headers, &signer).unwrap();
        assert!(cookie.starts_with(&id));
        headers.insert(
            "cookie",
            HeaderValue::from_str(&format!(
                "{CLIENT_COOKIE}={id}x.{}",
                &cookie[id.len() + 1..]
            ))
            .unwrap(),
        );
        assert_eq!(client_id(&headers, &signer), None, "a forged id");
        assert_eq!(client_id(&HeaderMap::new(), &signer), None);
    }

    #[tokio::test]
    async fn the_limit_counts_per_family_and_identity() {
        let store = KvStore::memory();
        for _ in 0..Family::Access.limit() {
            assert_eq!(check(&store, Family::Access, "ip:1").await.unwrap(), None);
        }
        let wait = check(&store, Family::Access, "ip:1")
            .await
            .unwrap()
            .unwrap();
        assert!(wait <= WINDOW && wait >= Duration::from_secs(1));
        assert_eq!(check(&store, Family::Access, "ip:2").await.unwrap(), None);
        assert_eq!(check(&store, Family::Api, "ip:1").await.unwrap(), None);
        assert_eq!(Family::of("/api/chat/relay"), Family::Relay);
        assert_eq!(Family::of("/api/plugins/execute"), Family::PluginCalls);
        assert_eq!(Family::of("/api/plugins/refresh"), Family::PluginCalls);
        assert_eq!(Family::of("/api/mcp/prompts"), Family::PluginCalls);
        assert_eq!(Family::of("/api/plugins/install"), Family::PluginInstalls);
        assert_eq!(Family::of("/api/plugins/list"), Family::Api);
        assert_eq!(Family::of("/api/mcp/servers"), Family::Registry);
        assert_eq!(Family::of("/api/doc-parse"), Family::DocParse);
        assert_eq!(Family::of("/api/search"), Family::Search);
        assert_eq!(Family::of("/api/voice/speech"), Family::Voice);
        assert_eq!(Family::of("/api/voice/transcriptions"), Family::Voice);
        assert_eq!(Family::of("/api/doc-parse/jobs/x"), Family::Api);
        assert!(Family::PluginInstalls.limit() < Family::PluginCalls.limit());
    }
}
