//! Which outbound targets the edge may reach (SSRF defence). One policy, used by the one
//! outbound client (`safe_fetch` in the server) for every URL that came from outside:
//! relays, plugins, MCP servers, manifests, document parsing, the web reader.
//!
//! **Who chose the target decides the rules** ([`Target`], stated in the type at every
//! outbound call site, so a new call site cannot forget):
//! - a target the *user* configured (a provider base URL, an MCP server, a plugin's
//!   server, a search or RAG endpoint) may be on the user's own machine or network in
//!   local mode; hosted mode allows public HTTPS plus the networks the operator trusts;
//! - a target the *operator* configured (a server-side provider, a registry mirror) may
//!   be private in either mode;
//! - a target a *model* or remote data chose (the web reader's URL, links followed from
//!   results, URLs found in content, endpoints a remote server advertises) and fixed
//!   registries are public and HTTPS-only in every mode, and names that embed a
//!   non-public address (wildcard DNS services such as `127.0.0.1.nip.io`) are refused.
//!
//! A URL is checked twice: its text ([`UrlPolicy::check_url`]: spellings that parsers
//! read differently, scheme, credentials, names such as `localhost`, and IP literals in
//! every spelling a browser accepts — `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`,
//! `[::ffff:127.0.0.1]` — which the WHATWG parser normalises), and then every address
//! its name resolves to ([`UrlPolicy::check_address`]). The client connects only to
//! checked addresses.
//!
//! Blocked ranges: unspecified, loopback, private (RFC 1918), shared CGNAT space and ULA
//! unless private targets are allowed; link-local (169.254/16, fe80::/10), cloud
//! metadata and platform addresses, multicast, broadcast, documentation, benchmarking and
//! reserved ranges in every mode. IPv6 translation forms (NAT64 `64:ff9b::/96` and
//! `64:ff9b:1::/48`, 6to4 `2002::/16`, IPv4-compatible `::/96`, Teredo `2001::/32`) that
//! carry a non-public IPv4 address are refused in every mode: a user who means a local
//! address writes it plainly. Cloud metadata and platform endpoints (`169.254.169.254`,
//! `169.254.170.2`, `100.100.100.200`, Azure's `168.63.129.16`, `fd00:ec2::254` and
//! AWS's other `fd00:ec2::` services, `metadata.google.internal`) are never allowed, not
//! even in a network the operator lists: a self-hosted Hearth on a cloud VM must not hand
//! out the VM's credentials to whoever types that URL into a plugin or provider.

mod address;
mod spelling;

use std::net::IpAddr;

use serde::{Deserialize, Serialize};
use url::{Host, Url};

pub use self::address::{
    AddressClass, AllowedNetwork, Embedding, classify, classify_v4, classify_v6, embedded_v4,
    embedding, is_translated_non_public,
};
pub use self::spelling::{AmbiguousSpelling, ambiguous_spelling, non_public_address_in_name};

/// Who chose an outbound target. Every call site of the outbound client names one, so
/// the rules that apply are never left to chance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Target {
    /// The user configured it: a provider base URL, an MCP server, a plugin's server or
    /// description, a search or RAG endpoint. Private in local mode is fine.
    UserConfigured,
    /// The operator configured it: a server-side provider, a registry mirror.
    OperatorConfigured,
    /// A model or remote data chose it: the web reader's URL, links followed from
    /// results, URLs found in content, endpoints a remote server advertises. Public and
    /// HTTPS only, in every mode.
    RemoteChosen,
}

/// The policy for each kind of [`Target`] in one deployment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Policies {
    /// For [`Target::UserConfigured`].
    pub user: UrlPolicy,
    /// For [`Target::OperatorConfigured`].
    pub operator: UrlPolicy,
    /// For [`Target::RemoteChosen`].
    pub remote: UrlPolicy,
}

impl Policies {
    /// Local mode: the user's machine and network are fair targets for what the user
    /// configured; `trusted` networks are added for them (link-local subnets, say).
    pub fn local(trusted: Vec<AllowedNetwork>) -> Self {
        Self {
            user: UrlPolicy {
                allowed_networks: trusted,
                ..UrlPolicy::local()
            },
            operator: UrlPolicy::local(),
            remote: UrlPolicy::remote_chosen(),
        }
    }

    /// Hosted mode: public HTTPS, plus the private networks the operator trusts
    /// (`trusted`), for what users configured.
    pub fn hosted(trusted: Vec<AllowedNetwork>) -> Self {
        Self {
            user: UrlPolicy {
                allowed_networks: trusted,
                ..UrlPolicy::hosted()
            },
            operator: UrlPolicy::local(),
            remote: UrlPolicy::remote_chosen(),
        }
    }

    /// The same policy for every kind of target (a client that only ever reaches one
    /// kind, such as the registry's).
    pub fn uniform(policy: UrlPolicy) -> Self {
        Self {
            user: policy.clone(),
            operator: policy.clone(),
            remote: policy,
        }
    }

    /// The policy that applies to `target`.
    pub fn for_target(&self, target: Target) -> &UrlPolicy {
        match target {
            Target::UserConfigured => &self.user,
            Target::OperatorConfigured => &self.operator,
            Target::RemoteChosen => &self.remote,
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
    /// A spelling that different parsers read as different targets.
    #[error("the URL is ambiguous: it contains {}", spelling.describe())]
    AmbiguousUrl {
        /// What is ambiguous.
        spelling: AmbiguousSpelling,
    },
    /// A name that carries a non-public address (wildcard DNS), for a target a model or
    /// remote data chose.
    #[error("the host `{host}` names the non-public address {address}")]
    AddressInName {
        /// The host.
        host: String,
        /// The address written into it.
        address: IpAddr,
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
    /// Networks allowed even when blocked by class (operator configuration). Never
    /// cloud metadata, nor a translated non-public address.
    pub allowed_networks: Vec<AllowedNetwork>,
    /// Refuse host names that carry a non-public address (`127.0.0.1.nip.io`).
    #[serde(default)]
    pub refuse_address_names: bool,
}

impl UrlPolicy {
    /// The policy for a hosted deployment: public HTTPS only.
    pub fn hosted() -> Self {
        Self {
            allow_private: false,
            require_https: true,
            allowed_networks: Vec::new(),
            refuse_address_names: false,
        }
    }

    /// The policy for local mode: the user's own machine and network are fair targets.
    pub fn local() -> Self {
        Self {
            allow_private: true,
            require_https: false,
            allowed_networks: Vec::new(),
            refuse_address_names: false,
        }
    }

    /// The policy for a target a model or remote data chose: public HTTPS only, names
    /// carrying private addresses refused, in every mode.
    pub fn remote_chosen() -> Self {
        Self {
            refuse_address_names: true,
            ..Self::hosted()
        }
    }

    /// Checks a URL's text; an IP-literal host is checked as an address too.
    pub fn check_url(&self, raw: &str) -> Result<Url, PolicyError> {
        let raw = raw.trim();
        if let Some(spelling) = ambiguous_spelling(raw) {
            return Err(PolicyError::AmbiguousUrl { spelling });
        }
        let url = Url::parse(raw).map_err(|_| PolicyError::InvalidUrl)?;
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
        if self.refuse_address_names
            && let Some(address) = non_public_address_in_name(&name)
        {
            return Err(PolicyError::AddressInName {
                host: domain.to_string(),
                address,
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
        let class = classify(address);
        let never = class == AddressClass::CloudMetadata || is_translated_non_public(address);
        let listed = self
            .allowed_networks
            .iter()
            .any(|net| net.contains(address));
        let allowed = !never
            && (listed
                || match class {
                    AddressClass::Public => true,
                    class if class.is_private_network() => self.allow_private,
                    _ => false,
                });
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
        // Private space stays reachable in local mode; link-local never is.
        assert!(policy.check_url("http://192.168.1.20:11434/v1").is_ok());
        assert_eq!(
            blocked_class(&policy, "http://169.254.10.20/"),
            Some(AddressClass::LinkLocal)
        );
    }

    #[test]
    fn link_local_and_platform_addresses_are_blocked_in_every_mode() {
        for policy in [UrlPolicy::local(), UrlPolicy::hosted()] {
            for (url, class) in [
                ("https://169.254.10.20/", AddressClass::LinkLocal),
                ("https://169.254.0.23/", AddressClass::LinkLocal),
                ("https://169.254.169.253/", AddressClass::LinkLocal),
                ("https://[fe80::1]/", AddressClass::LinkLocal),
                ("https://[fe80::1%25eth0]/", AddressClass::LinkLocal),
                (
                    "https://168.63.129.16/machine?comp=goalstate",
                    AddressClass::CloudMetadata,
                ),
                (
                    "https://[::ffff:168.63.129.16]/",
                    AddressClass::CloudMetadata,
                ),
                ("https://[fd00:ec2::253]/", AddressClass::CloudMetadata),
                ("https://[fd00:ec2::123]/", AddressClass::CloudMetadata),
            ] {
                // A zone id is no URL syntax at all; it is refused as such.
                if url.contains("%25") {
                    assert!(policy.check_url(url).is_err(), "{url}");
                    continue;
                }
                assert_eq!(blocked_class(&policy, url), Some(class), "{url}");
            }
        }
    }

    #[test]
    fn translated_non_public_ipv4_is_blocked_in_every_mode() {
        let local = UrlPolicy::local();
        for url in [
            "http://[64:ff9b::127.0.0.1]/",
            "http://[64:ff9b::10.0.0.1]/",
            "http://[64:ff9b:1::7f00:1]/",
            "http://[2002:7f00:1::]/",
            "http://[2002:c0a8:101::1]/",
            "http://[::127.0.0.1]/",
            "http://[::10.1.2.3]/",
        ] {
            assert!(
                matches!(
                    local.check_url(url),
                    Err(PolicyError::BlockedAddress { .. })
                ),
                "{url}"
            );
        }
        // Teredo is a reserved range as a whole, whatever it carries.
        for url in [
            "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
            "http://[2001::7f00:1]/",
        ] {
            assert_eq!(
                blocked_class(&local, url),
                Some(AddressClass::Reserved),
                "{url}"
            );
        }
        // Written plainly (or as the mapped address a socket reports), a local address
        // stays a local target.
        assert!(local.check_url("http://127.0.0.1:11434/").is_ok());
        assert!(local.check_url("http://[::ffff:127.0.0.1]:11434/").is_ok());
        // A translation of a public address is that public address.
        assert!(
            UrlPolicy::hosted()
                .check_url("https://[64:ff9b::8.8.8.8]/")
                .is_ok()
        );
        assert!(
            UrlPolicy::hosted()
                .check_url("https://[2002:808:808::1]/")
                .is_ok()
        );
        // An operator's list opens neither translations nor metadata.
        let listed = UrlPolicy {
            allowed_networks: vec![
                AllowedNetwork::parse("64:ff9b::/96").unwrap(),
                AllowedNetwork::parse("169.254.0.0/16").unwrap(),
            ],
            ..UrlPolicy::hosted()
        };
        assert!(listed.check_url("https://[64:ff9b::127.0.0.1]/").is_err());
        assert!(listed.check_url("https://169.254.169.254/").is_err());
        assert!(listed.check_url("https://169.254.10.20/").is_ok());
    }

    #[test]
    fn ambiguous_spellings_are_refused_with_a_reason_in_every_policy() {
        for policy in [
            UrlPolicy::local(),
            UrlPolicy::hosted(),
            UrlPolicy::remote_chosen(),
        ] {
            for (url, spelling) in [
                (
                    "https://example.com\\@127.0.0.1/",
                    AmbiguousSpelling::Backslash,
                ),
                ("http:/127.0.0.1/", AmbiguousSpelling::SlashesAfterScheme),
                ("https:example.com/", AmbiguousSpelling::SlashesAfterScheme),
                (
                    "https://example.com/@127.0.0.1/",
                    AmbiguousSpelling::AtAfterAuthority,
                ),
                (
                    "https://example.com/?next=@evil.test",
                    AmbiguousSpelling::AtAfterAuthority,
                ),
                (
                    "https://example.com/#@127.0.0.1",
                    AmbiguousSpelling::AtAfterAuthority,
                ),
                (
                    "https://exa\nmple.com/",
                    AmbiguousSpelling::ControlCharacter,
                ),
            ] {
                let error = policy.check_url(url).unwrap_err();
                assert_eq!(error, PolicyError::AmbiguousUrl { spelling }, "{url}");
                assert!(error.to_string().contains(spelling.describe()), "{error}");
            }
        }
    }

    #[test]
    fn ordinary_public_urls_stay_accepted_for_remote_chosen_targets() {
        let policy = UrlPolicy::remote_chosen();
        for url in [
            "https://EXAMPLE.com/Docs",
            "https://example.com./trailing-dot",
            "https://bücher.example/",
            "https://xn--bcher-kva.example/",
            "https://example.com:8443/a?b=c#d",
            "https://medium.com/@author/post",
            "https://ec2-54-12-3-4.compute-1.amazonaws.com/",
            "https://8.8.8.8/",
        ] {
            assert!(
                policy.check_url(url).is_ok(),
                "{url}: {:?}",
                policy.check_url(url)
            );
        }
    }

    #[test]
    fn remote_chosen_targets_are_public_https_in_every_mode() {
        for policies in [Policies::local(Vec::new()), Policies::hosted(Vec::new())] {
            let remote = policies.for_target(Target::RemoteChosen);
            assert!(matches!(
                remote.check_url("http://example.com/"),
                Err(PolicyError::SchemeNotAllowed { .. })
            ));
            for url in [
                "https://127.0.0.1/",
                "https://192.168.1.1/",
                "https://[::1]/",
                "https://100.64.0.1/",
            ] {
                assert!(
                    matches!(
                        remote.check_url(url),
                        Err(PolicyError::BlockedAddress { .. })
                    ),
                    "{url}"
                );
            }
            for url in [
                "https://localhost/",
                "https://router.local/",
                "https://intranet/",
            ] {
                assert!(
                    matches!(remote.check_url(url), Err(PolicyError::BlockedHost { .. })),
                    "{url}"
                );
            }
            for (url, address) in [
                ("https://127.0.0.1.nip.io/", "127.0.0.1"),
                ("https://app-192-168-0-1.sslip.io/", "192.168.0.1"),
                ("https://7f000001.nip.io/", "127.0.0.1"),
                ("https://--1.sslip.io/", "::1"),
            ] {
                assert_eq!(
                    remote.check_url(url),
                    Err(PolicyError::AddressInName {
                        host: url[8..url.len() - 1].to_string(),
                        address: address.parse().unwrap()
                    }),
                    "{url}"
                );
            }
            // Trusted networks are for user-configured targets only.
            let trusted = Policies::hosted(vec![AllowedNetwork::parse("10.0.0.0/8").unwrap()]);
            assert!(
                trusted
                    .for_target(Target::UserConfigured)
                    .check_url("https://10.1.2.3/")
                    .is_ok()
            );
            assert!(
                trusted
                    .for_target(Target::RemoteChosen)
                    .check_url("https://10.1.2.3/")
                    .is_err()
            );
        }
    }

    #[test]
    fn each_target_kind_gets_its_policy() {
        let local = Policies::local(Vec::new());
        assert!(
            local
                .for_target(Target::UserConfigured)
                .check_url("http://127.0.0.1:11434/")
                .is_ok()
        );
        assert!(
            local
                .for_target(Target::RemoteChosen)
                .check_url("http://127.0.0.1:11434/")
                .is_err()
        );
        let hosted = Policies::hosted(Vec::new());
        assert!(
            hosted
                .for_target(Target::UserConfigured)
                .check_url("https://10.0.0.1/")
                .is_err()
        );
        assert!(
            hosted
                .for_target(Target::UserConfigured)
                .check_url("http://example.com/")
                .is_err()
        );
        // The operator's own targets may be private in either mode, never metadata.
        let operator = hosted.for_target(Target::OperatorConfigured);
        assert!(operator.check_url("http://10.0.0.1:8000/v1").is_ok());
        assert!(operator.check_url("http://169.254.169.254/").is_err());
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
