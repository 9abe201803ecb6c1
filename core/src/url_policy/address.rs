//! What kind of address an IP is: the classes the URL policy decides on, the IPv4 address
//! an IPv6 address carries (and how), and networks an operator lists.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};

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
    /// `169.254.0.0/16`, `fe80::/10`: never a target (cloud platforms serve credentials
    /// and DNS there).
    LinkLocal,
    /// A cloud provider's instance metadata or platform service: never a target.
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
    pub fn is_private_network(self) -> bool {
        matches!(
            self,
            Self::Loopback | Self::Private | Self::SharedAddressSpace
        )
    }
}

/// Classifies an IPv4 address.
pub fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, c, d] = ip.octets();
    if matches!(
        (a, b, c, d),
        // AWS, GCP, Azure, DigitalOcean and others; ECS task credentials; Alibaba Cloud;
        // Azure's WireServer (platform agent, DNS and health probes).
        (169, 254, 169, 254) | (169, 254, 170, 2) | (100, 100, 100, 200) | (168, 63, 129, 16)
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

/// How an IPv6 address carries an IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedding {
    /// `::ffff:a.b.c.d`: how dual-stack sockets write an IPv4 peer; it *is* that address.
    Mapped,
    /// `::a.b.c.d` (deprecated IPv4-compatible).
    Compatible,
    /// `64:ff9b::/96` and `64:ff9b:1::/48`: a NAT64 gateway translates it.
    Nat64,
    /// `2002::/16`: a 6to4 relay tunnels it.
    SixToFour,
}

impl Embedding {
    /// Whether a translator or tunnel, not the address itself, reaches the IPv4 address:
    /// such forms are refused in every mode when the IPv4 address is not public.
    pub fn is_translation(self) -> bool {
        !matches!(self, Self::Mapped)
    }
}

/// The IPv4 address an IPv6 address carries, and how: mapped (`::ffff:a.b.c.d`),
/// compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`) and 6to4
/// (`2002::/16`). Teredo (`2001::/32`) is classified as reserved as a whole.
pub fn embedding(ip: Ipv6Addr) -> Option<(Embedding, Ipv4Addr)> {
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..5] == [0; 5] && s[5] == 0xffff {
        return Some((Embedding::Mapped, tail));
    }
    if s[..6] == [0; 6] && (s[6] != 0 || s[7] > 1) {
        return Some((Embedding::Compatible, tail));
    }
    let nat64 = s[0] == 0x64 && s[1] == 0xff9b && (s[2..6] == [0; 4] || s[2] == 1);
    if nat64 {
        return Some((Embedding::Nat64, tail));
    }
    if s[0] == 0x2002 {
        let v4 = Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8);
        return Some((Embedding::SixToFour, v4));
    }
    None
}

/// The IPv4 address an IPv6 address carries, in any of the forms of [`embedding`].
pub fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    embedding(ip).map(|(_, v4)| v4)
}

/// Classifies an IPv6 address (through the IPv4 address it embeds, if any).
pub fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let s = ip.segments();
    // AWS's instance metadata, DNS resolver and time service.
    let aws_platform =
        s[..7] == [0xfd00, 0x0ec2, 0, 0, 0, 0, 0] && matches!(s[7], 0x0254 | 0x0253 | 0x0123);
    if aws_platform {
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
        // Documentation, Teredo (2001::/32) and other IETF special ranges, discard, and
        // everything outside global unicast 2000::/3.
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

/// Whether `ip` is an IPv6 translation form (NAT64, 6to4, compatible) of an IPv4
/// address that is not public.
pub fn is_translated_non_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V6(v6) => embedding(v6).is_some_and(|(how, v4)| {
            how.is_translation() && classify_v4(v4) != AddressClass::Public
        }),
        IpAddr::V4(_) => false,
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
