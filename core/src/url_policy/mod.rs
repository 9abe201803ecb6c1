//! Which outbound targets the edge may reach (SSRF defence). One policy, used by the one
//! outbound client (`safe_fetch` in the server) for every URL that came from outside:
//! relays, plugins, MCP servers, manifests, document parsing.
//!
//! A URL is checked twice: its text ([`UrlPolicy::check_url`]: scheme, credentials,
//! names such as `localhost`, and IP literals in every spelling a browser accepts —
//! `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`, `[::ffff:127.0.0.1]` — which the WHATWG
//! parser normalises), and then every address its name resolves to
//! ([`UrlPolicy::check_address`]). The client connects only to checked addresses.
//!
//! Blocked ranges: unspecified, loopback, private (RFC 1918), link-local (cloud metadata
//! lives there), shared CGNAT space, ULA, multicast, broadcast, documentation,
//! benchmarking and reserved ranges — and the IPv4-mapped, IPv4-compatible, NAT64 and
//! 6to4 forms of all of them. Private targets can be allowed (local mode, where a user's
//! Ollama or LAN MCP server is the point), and an operator may allow specific networks.
//! Cloud metadata endpoints (`169.254.169.254`, `169.254.170.2`, `100.100.100.200`,
//! `fd00:ec2::254`, `metadata.google.internal`) are never allowed, in any mode: a
//! self-hosted Hearth in local mode on a cloud VM must not hand out the VM's credentials
//! to whoever types that URL into a plugin or provider.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};
use url::{Host, Url};

/// What kind of address an IP is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressClass {
    /// Routable on the internet.
    Public,
    /// `0.0.0.0`, `::`.
    Unspecified,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// RFC 1918 and `fc00::/7` (ULA).
    Private,
    /// `169.254.0.0/16`, `fe80::/10`.
    LinkLocal,
    /// A cloud provider's instance metadata service: never a target.
    CloudMetadata,
    /// `100.64.0.0/10`.
    SharedAddressSpace,
    /// Multicast and broadcast.
    Multicast,
    /// Documentation, benchmarking, reserved and other special-purpose ranges.
    Reserved,
}

impl AddressClass {
    /// Whether the class is on a private network (reachable when private targets are
    /// allowed), as opposed to never reachable.
    fn is_private_network(self) -> bool {
        matches!(
            self,
            Self::Loopback | Self::Private | Self::LinkLocal | Self::SharedAddressSpace
        )
    }
}

/// Classifies an IPv4 address.
pub fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, c, d] = ip.octets();
    if matches!(
        (a, b, c, d),
        (169, 254, 169, 254) | (169, 254, 170, 2) | (100, 100, 100, 200)
    ) {
        return AddressClass::CloudMetadata;
    }
    match (a, b, c) {
        (0, _, _) => AddressClass::Unspecified,
        (127, _, _) => AddressClass::Loopback,
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => AddressClass::Private,
        (169, 254, _) => AddressClass::LinkLocal,
        (100, 64..=127, _) => AddressClass::SharedAddressSpace,
        (224..=239, _, _) | (255, 255, 255) => AddressClass::Multicast,
        (192, 0, 0)
        | (192, 0, 2)
        | (198, 51, 100)
        | (203, 0, 113)
        | (198, 18..=19, _)
        | (192, 88, 99)
        | (240..=255, _, _) => AddressClass::Reserved,
        _ => AddressClass::Public,
    }
}

/// The IPv4 address an IPv6 address carries, in the forms that reach it: mapped
/// (`::ffff:a.b.c.d`), compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`)
/// and 6to4 (`2002::/16`).
pub fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..5] == [0; 5] && (s[5] == 0xffff || (s[5] == 0 && (s[6] != 0 || s[7] > 1))) {
        return Some(tail);
    }
    let nat64 = s[0] == 0x64 && s[1] == 0xff9b && (s[2..6] == [0; 4] || s[2] == 1);
    if nat64 {
        return Some(tail);
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    None
}

/// Classifies an IPv6 address (through the IPv4 address it embeds, if any).
pub fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let s = ip.segments();
    if s == [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254] {
        AddressClass::CloudMetadata
    } else if ip.is_unspecified() {
        AddressClass::Unspecified
    } else if ip.is_loopback() {
        AddressClass::Loopback
    } else if s[0] & 0xfe00 == 0xfc00 {
        AddressClass::Private
    } else if s[0] & 0xffc0 == 0xfe80 || s[0] & 0xffc0 == 0xfec0 {
        AddressClass::LinkLocal
    } else if s[0] & 0xff00 == 0xff00 {
        AddressClass::Multicast
    } else if (s[0] == 0x2001 && (s[1] == 0x0db8 || s[1] < 0x0200))
        || s[0] == 0x0100
        || s[0] & 0xe000 != 0x2000
    {
        // Documentation, Teredo and other IETF special ranges, discard, and everything
        // outside global unicast 2000::/3.
        AddressClass::Reserved
    } else {
        AddressClass::Public
    }
}

/// Classifies any address.
pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// A network an operator allows even though the policy would block it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllowedNetwork {
    /// The network address.
    pub addr: IpAddr,
    /// The prefix length.
    pub prefix: u8,
}

impl AllowedNetwork {
    /// Parses `10.0.0.0/8`, `fd00::/8` or a single address.
    pub fn parse(text: &str) -> Option<Self> {
        let (addr, prefix) = match text.trim().split_once('/') {
            Some((addr, prefix)) => (addr.parse::<IpAddr>().ok()?, prefix.parse::<u8>().ok()?),
            None => {
                let addr = text.trim().parse::<IpAddr>().ok()?;
                (addr, if addr.is_ipv4() { 32 } else { 128 })
            }
        };
        let max = if addr.is_ipv4() { 32 } else { 128 };
        (prefix <= max).then_some(Self { addr, prefix })
    }

    /// Whether `ip` is in this network.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// Why a target is refused. Every variant is answered as `URL_BLOCKED`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "reason")]
pub enum PolicyError {
    /// Not a URL.
    #[error("not a valid URL")]
    InvalidUrl,
    /// A scheme other than those allowed.
    #[error("the scheme `{scheme}` is not allowed")]
    SchemeNotAllowed {
        /// The scheme.
        scheme: String,
    },
    /// `user:password@` in the URL.
    #[error("URLs with credentials are not allowed")]
    CredentialsInUrl,
    /// A name that always means this machine or its network.
    #[error("the host `{host}` is not allowed")]
    BlockedHost {
        /// The host.
        host: String,
    },
    /// An address in a blocked range.
    #[error("the address {address} is not allowed ({class:?})")]
    BlockedAddress {
        /// The address.
        address: IpAddr,
        /// Its class.
        class: AddressClass,
    },
}

impl PolicyError {
    /// The error code every refusal is answered with.
    pub const CODE: &'static str = "URL_BLOCKED";
}

/// The outbound URL policy.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlPolicy {
    /// Allow loopback, private, link-local and CGNAT targets (local mode).
    pub allow_private: bool,
    /// Refuse plain `http:`.
    pub require_https: bool,
    /// Networks allowed even when blocked by class (operator configuration).
    pub allowed_networks: Vec<AllowedNetwork>,
}

impl UrlPolicy {
    /// The policy for a hosted deployment: public HTTPS only.
    pub fn hosted() -> Self {
        Self {
            allow_private: false,
            require_https: true,
            allowed_networks: Vec::new(),
        }
    }

    /// The policy for local mode: the user's own machine and network are fair targets.
    pub fn local() -> Self {
        Self {
            allow_private: true,
            require_https: false,
            allowed_networks: Vec::new(),
        }
    }

    /// Checks a URL's text; an IP-literal host is checked as an address too.
    pub fn check_url(&self, raw: &str) -> Result<Url, PolicyError> {
        let url = Url::parse(raw.trim()).map_err(|_| PolicyError::InvalidUrl)?;
        match url.scheme() {
            "https" => {}
            "http" if !self.require_https => {}
            scheme => {
                return Err(PolicyError::SchemeNotAllowed {
                    scheme: scheme.to_string(),
                });
            }
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(PolicyError::CredentialsInUrl);
        }
        match url.host() {
            None => return Err(PolicyError::InvalidUrl),
            Some(Host::Ipv4(ip)) => self.check_address(IpAddr::V4(ip))?,
            Some(Host::Ipv6(ip)) => self.check_address(IpAddr::V6(ip))?,
            Some(Host::Domain(domain)) => self.check_name(domain)?,
        }
        Ok(url)
    }

    fn check_name(&self, domain: &str) -> Result<(), PolicyError> {
        let name = domain.trim_end_matches('.').to_ascii_lowercase();
        if matches!(
            name.as_str(),
            "metadata.google.internal" | "metadata" | "instance-data"
        ) || name.ends_with(".metadata.google.internal")
        {
            return Err(PolicyError::BlockedHost {
                host: domain.to_string(),
            });
        }
        if self.allow_private {
            return Ok(());
        }
        let blocked = name == "localhost"
            || name.ends_with(".localhost")
            || name.ends_with(".local")
            || name.ends_with(".internal")
            || name.ends_with(".home.arpa")
            || !name.contains('.');
        if blocked {
            return Err(PolicyError::BlockedHost {
                host: domain.to_string(),
            });
        }
        Ok(())
    }

    /// Checks one address a host resolved to (or an IP literal).
    pub fn check_address(&self, address: IpAddr) -> Result<(), PolicyError> {
        if self
            .allowed_networks
            .iter()
            .any(|net| net.contains(address))
        {
            return Ok(());
        }
        let class = classify(address);
        let allowed = match class {
            AddressClass::Public => true,
            class if class.is_private_network() => self.allow_private,
            _ => false,
        };
        if allowed {
            Ok(())
        } else {
            Err(PolicyError::BlockedAddress { address, class })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked_class(policy: &UrlPolicy, url: &str) -> Option<AddressClass> {
        match policy.check_url(url) {
            Err(PolicyError::BlockedAddress { class, .. }) => Some(class),
            _ => None,
        }
    }

    #[test]
    fn every_spelling_of_loopback_is_blocked_when_hosted() {
        let policy = UrlPolicy {
            require_https: false,
            ..UrlPolicy::hosted()
        };
        for url in [
            "http://127.0.0.1/",
            "http://2130706433/",
            "http://0177.0.0.1/",
            "http://0x7f.0.0.1/",
            "http://0x7f000001/",
            "http://127.1/",
            "http://127.0.1/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[0:0:0:0:0:ffff:127.0.0.1]/",
            "http://[64:ff9b::127.0.0.1]/",
            "http://[2002:7f00:1::]/",
            "http://[::127.0.0.1]/",
            "http://127.0.0.1.:8080/",
        ] {
            assert_eq!(
                blocked_class(&policy, url),
                Some(AddressClass::Loopback),
                "{url}"
            );
        }
    }

    #[test]
    fn private_metadata_cgnat_and_special_ranges_are_blocked_when_hosted() {
        let policy = UrlPolicy::hosted();
        let cases = [
            ("https://10.0.0.1/", AddressClass::Private),
            ("https://172.16.5.4/", AddressClass::Private),
            ("https://192.168.1.1/", AddressClass::Private),
            (
                "https://169.254.169.254/latest/meta-data/",
                AddressClass::CloudMetadata,
            ),
            (
                "https://[::ffff:169.254.169.254]/",
                AddressClass::CloudMetadata,
            ),
            ("https://[fd00:ec2::254]/", AddressClass::CloudMetadata),
            ("https://100.100.100.200/", AddressClass::CloudMetadata),
            ("https://169.254.1.1/", AddressClass::LinkLocal),
            ("https://[fd00:ec2::1]/", AddressClass::Private),
            ("https://100.100.100.201/", AddressClass::SharedAddressSpace),
            ("https://[fe80::1]/", AddressClass::LinkLocal),
            ("https://0.0.0.0/", AddressClass::Unspecified),
            ("https://[::]/", AddressClass::Unspecified),
            ("https://224.0.0.1/", AddressClass::Multicast),
            ("https://255.255.255.255/", AddressClass::Multicast),
            ("https://[ff02::1]/", AddressClass::Multicast),
            ("https://192.0.2.1/", AddressClass::Reserved),
            ("https://198.18.0.1/", AddressClass::Reserved),
            ("https://240.0.0.1/", AddressClass::Reserved),
            ("https://[2001:db8::1]/", AddressClass::Reserved),
            ("https://[64:ff9b::10.0.0.1]/", AddressClass::Private),
        ];
        for (url, class) in cases {
            assert_eq!(blocked_class(&policy, url), Some(class), "{url}");
        }
    }

    #[test]
    fn cloud_metadata_is_blocked_even_where_private_targets_are_allowed() {
        let policy = UrlPolicy::local();
        for url in [
            "http://169.254.169.254/latest/meta-data/iam/",
            "http://[::ffff:a9fe:a9fe]/",
            "http://2852039166/",
            "http://0251.0376.0251.0376/",
            "http://169.254.170.2/v2/credentials",
            "http://100.100.100.200/latest/meta-data/",
            "http://[fd00:ec2::254]/",
            "http://[64:ff9b::169.254.169.254]/",
        ] {
            assert_eq!(
                blocked_class(&policy, url),
                Some(AddressClass::CloudMetadata),
                "{url}"
            );
        }
        for url in [
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://METADATA/",
            "http://instance-data./latest/",
        ] {
            assert!(
                matches!(policy.check_url(url), Err(PolicyError::BlockedHost { .. })),
                "{url}"
            );
        }
        // The rest of link-local and private space stays reachable in local mode.
        assert!(policy.check_url("http://169.254.10.20/").is_ok());
        assert!(policy.check_url("http://192.168.1.20:11434/v1").is_ok());
    }

    #[test]
    fn names_that_mean_this_machine_are_blocked_when_hosted() {
        let policy = UrlPolicy::hosted();
        for url in [
            "https://localhost/",
            "https://LOCALHOST./",
            "https://api.localhost/",
            "https://printer.local/",
            "https://metadata.google.internal/",
            "https://intranet/",
        ] {
            assert!(
                matches!(policy.check_url(url), Err(PolicyError::BlockedHost { .. })),
                "{url}"
            );
        }
    }

    #[test]
    fn scheme_and_credential_tricks_are_refused() {
        let policy = UrlPolicy::hosted();
        assert!(matches!(
            policy.check_url("http://example.com/"),
            Err(PolicyError::SchemeNotAllowed { .. })
        ));
        for url in ["file:///etc/passwd", "gopher://x/", "ftp://example.com/"] {
            assert!(
                matches!(
                    UrlPolicy::local().check_url(url),
                    Err(PolicyError::SchemeNotAllowed { .. } | PolicyError::InvalidUrl)
                ),
                "{url}"
            );
        }
        for url in [
            "https://user:pw@example.com/",
            "https://example.com@127.0.0.1/",
            "https://evil@example.com/",
        ] {
            assert_eq!(
                policy.check_url(url),
                Err(PolicyError::CredentialsInUrl),
                "{url}"
            );
        }
        assert_eq!(policy.check_url("not a url"), Err(PolicyError::InvalidUrl));
    }

    #[test]
    fn public_targets_pass_and_local_mode_allows_the_users_network() {
        let hosted = UrlPolicy::hosted();
        assert!(hosted.check_url("https://api.openai.com/v1/models").is_ok());
        assert!(hosted.check_url("https://8.8.8.8/").is_ok());
        assert!(hosted.check_url("https://[2606:4700::1111]/").is_ok());
        let local = UrlPolicy::local();
        assert!(local.check_url("http://127.0.0.1:11434/v1").is_ok());
        assert!(local.check_url("http://localhost:11434/v1").is_ok());
        assert!(local.check_url("http://192.168.1.20:8000/mcp").is_ok());
        // Never reachable, even locally.
        assert!(local.check_url("http://0.0.0.0/").is_err());
        assert!(local.check_url("http://224.0.0.1/").is_err());
    }

    #[test]
    fn operators_can_allow_specific_networks() {
        let mut policy = UrlPolicy::hosted();
        policy.allowed_networks = vec![
            AllowedNetwork::parse("10.1.0.0/16").unwrap(),
            AllowedNetwork::parse("fd12::1").unwrap(),
        ];
        assert!(policy.check_url("https://10.1.2.3/").is_ok());
        assert!(policy.check_url("https://10.2.0.1/").is_err());
        assert!(policy.check_url("https://[fd12::1]/").is_ok());
        assert!(policy.check_url("https://[fd12::2]/").is_err());
        assert_eq!(AllowedNetwork::parse("10.0.0.0/33"), None);
        assert_eq!(AllowedNetwork::parse("nonsense"), None);
        assert!(
            AllowedNetwork::parse("0.0.0.0/0")
                .unwrap()
                .contains("1.2.3.4".parse().unwrap())
        );
    }
}
