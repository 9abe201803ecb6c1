//! Checks on a URL's text before it is parsed: spellings that different parsers read as
//! different hosts, and host names that carry an IP address (wildcard DNS services).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};

use super::address::{AddressClass, classify};

/// A spelling refused because another parser (a proxy, a redirect target's client, a
/// logging tool) could read a different host from it than ours does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AmbiguousSpelling {
    /// A backslash, which WHATWG parsers read as `/` and others keep.
    Backslash,
    /// A tab, line break or other control character, which WHATWG parsers drop.
    ControlCharacter,
    /// Not exactly `//` after `http:` or `https:` (`http:/host`, `http:host`,
    /// `http:///host`).
    SlashesAfterScheme,
    /// An `@` in the path, query or fragment followed by something host-like, which a
    /// parser that splits at the last `@` takes for userinfo and a host.
    AtAfterAuthority,
}

impl AmbiguousSpelling {
    /// What is wrong, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Backslash => "a backslash",
            Self::ControlCharacter => "a control character",
            Self::SlashesAfterScheme => "something other than `//` after the scheme",
            Self::AtAfterAuthority => "an `@` after the host that could be read as userinfo",
        }
    }
}

/// Finds a spelling of `raw` (already trimmed) that parsers disagree on.
pub fn ambiguous_spelling(raw: &str) -> Option<AmbiguousSpelling> {
    if raw.contains('\\') {
        return Some(AmbiguousSpelling::Backslash);
    }
    if raw.chars().any(char::is_control) {
        return Some(AmbiguousSpelling::ControlCharacter);
    }
    let (scheme, rest) = raw.split_once(':')?;
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        // Other schemes are refused by name afterwards.
        return None;
    }
    let Some(after) = rest
        .strip_prefix("//")
        .filter(|after| !after.starts_with('/'))
    else {
        return Some(AmbiguousSpelling::SlashesAfterScheme);
    };
    let authority_end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let tail = &after[authority_end..];
    tail.split('@')
        .skip(1)
        .any(|following| {
            let candidate =
                &following[..following.find(['/', '?', '#']).unwrap_or(following.len())];
            looks_like_host(candidate)
        })
        .then_some(AmbiguousSpelling::AtAfterAuthority)
}

/// Whether text after an `@` would make a plausible host: a dotted name or address, a
/// bracketed IPv6 literal, a port, a number (`2130706433`, `0x7f000001`) or `localhost`.
/// A bare handle such as Medium's or Mastodon's `/@name` is not.
fn looks_like_host(candidate: &str) -> bool {
    !candidate.is_empty()
        && (candidate.contains(['.', ':', '[', ']'])
            || candidate.eq_ignore_ascii_case("localhost")
            || candidate.bytes().all(|b| b.is_ascii_digit())
            || candidate
                .get(..2)
                .is_some_and(|prefix| prefix.eq_ignore_ascii_case("0x")))
}

/// A non-public address written into a host name, as wildcard DNS services resolve
/// (`127.0.0.1.nip.io`, `app-10-0-0-1.sslip.io`, `7f000001.nip.io`, `--1.sslip.io`).
/// Public addresses written into names (`ec2-54-1-2-3.compute…`) pass.
pub fn non_public_address_in_name(name: &str) -> Option<IpAddr> {
    let non_public = |ip: IpAddr| (classify(ip) != AddressClass::Public).then_some(ip);
    let tokens: Vec<&str> = name.split(['.', '-']).collect();
    let found = tokens.windows(4).find_map(|window| {
        let octets: Option<Vec<u8>> = window.iter().map(|token| octet(token)).collect();
        let octets = octets?;
        non_public(IpAddr::V4(Ipv4Addr::new(
            octets[0], octets[1], octets[2], octets[3],
        )))
    });
    if found.is_some() {
        return found;
    }
    name.split('.').find_map(|label| {
        if label.len() == 8 && label.bytes().all(|b| b.is_ascii_hexdigit()) {
            let value = u32::from_str_radix(label, 16).ok()?;
            return non_public(IpAddr::V4(Ipv4Addr::from(value)));
        }
        if label.contains("--") {
            let v6: Ipv6Addr = label.replace('-', ":").parse().ok()?;
            return non_public(IpAddr::V6(v6));
        }
        None
    })
}

/// A decimal octet as names write it: 1 to 3 digits, at most 255.
fn octet(token: &str) -> Option<u8> {
    (1..=3)
        .contains(&token.len())
        .then(|| token.parse::<u8>().ok())
        .flatten()
        .filter(|_| token.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_parsers_disagree_on_are_found() {
        let cases = [
            (
                "http://127.0.0.1\\@example.com/",
                AmbiguousSpelling::Backslash,
            ),
            (
                "https://example.com\\.evil.test/",
                AmbiguousSpelling::Backslash,
            ),
            ("https://example.com/a\\b", AmbiguousSpelling::Backslash),
            (
                "http://127.0.0.1\n.example.com/",
                AmbiguousSpelling::ControlCharacter,
            ),
            ("http://exam\tple.com/", AmbiguousSpelling::ControlCharacter),
            ("http:/127.0.0.1/", AmbiguousSpelling::SlashesAfterScheme),
            ("http:127.0.0.1/", AmbiguousSpelling::SlashesAfterScheme),
            ("HTTPS:/example.com/", AmbiguousSpelling::SlashesAfterScheme),
            ("http:///127.0.0.1/", AmbiguousSpelling::SlashesAfterScheme),
            (
                "http://example.com/@127.0.0.1/",
                AmbiguousSpelling::AtAfterAuthority,
            ),
            (
                "http://example.com/path@evil.test",
                AmbiguousSpelling::AtAfterAuthority,
            ),
            (
                "http://example.com?x=@127.0.0.1",
                AmbiguousSpelling::AtAfterAuthority,
            ),
            (
                "http://example.com#@[::1]/",
                AmbiguousSpelling::AtAfterAuthority,
            ),
            (
                "http://example.com/@localhost:8080/",
                AmbiguousSpelling::AtAfterAuthority,
            ),
            (
                "http://example.com/@2130706433",
                AmbiguousSpelling::AtAfterAuthority,
            ),
            (
                "http://example.com/@0x7f000001",
                AmbiguousSpelling::AtAfterAuthority,
            ),
        ];
        for (url, expected) in cases {
            assert_eq!(ambiguous_spelling(url), Some(expected), "{url}");
        }
    }

    #[test]
    fn ordinary_urls_are_not_ambiguous() {
        for url in [
            "https://example.com/",
            "HTTPS://EXAMPLE.COM/Path?Q=1#Frag",
            "https://example.com.:8443/x",
            "https://bücher.example/straße",
            "https://medium.com/@author/a-post-1234",
            "https://mastodon.social/@someone",
            "http://192.168.1.20:11434/v1",
            "https://example.com/search?q=rust+lang&page=2",
            "mailto:someone@example.com",
        ] {
            assert_eq!(ambiguous_spelling(url), None, "{url}");
        }
    }

    #[test]
    fn names_carrying_non_public_addresses_are_found() {
        for (name, address) in [
            ("127.0.0.1.nip.io", "127.0.0.1"),
            ("app.10.0.0.1.nip.io", "10.0.0.1"),
            ("app-192-168-1-1.sslip.io", "192.168.1.1"),
            ("magic-169-254-169-254.example", "169.254.169.254"),
            ("7f000001.nip.io", "127.0.0.1"),
            ("a9fea9fe.nip.io", "169.254.169.254"),
            ("--1.sslip.io", "::1"),
            ("fe80--1.sslip.io", "fe80::1"),
            ("ip-10-0-0-5.ec2.internal", "10.0.0.5"),
            ("0.0.0.0.example.com", "0.0.0.0"),
        ] {
            assert_eq!(
                non_public_address_in_name(name),
                Some(address.parse().unwrap()),
                "{name}"
            );
        }
    }

    #[test]
    fn names_with_public_or_no_addresses_pass() {
        for name in [
            "example.com",
            "ec2-54-12-3-4.compute-1.amazonaws.com",
            "8.8.8.8.nip.io",
            "api.openai.com",
            "cafebabe-cdn.example",
            "deadbeef.example",
            "web-1-2.example.com",
            "2024-11-30.blog.example",
            "xn--bcher-kva.example",
        ] {
            assert_eq!(non_public_address_in_name(name), None, "{name}");
        }
    }
}
