//! DNS for the outbound client: resolve, check every address against the URL policy,
//! and hand reqwest only checked addresses, so the connection goes to an address that
//! was checked (no second lookup for a rebinding server to answer differently).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use hearth_core::url_policy::{PolicyError, UrlPolicy};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Answers "which addresses does this name have?". The system resolver in production;
/// tests use a fixed table to play a DNS server that answers what they need.
pub trait Lookup: Send + Sync {
    /// All addresses of `name`.
    fn lookup(
        &self,
        name: String,
    ) -> std::pin::Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send>>;
}

/// The operating system's resolver (through tokio).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(
        &self,
        name: String,
    ) -> std::pin::Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send>> {
        Box::pin(async move {
            let addresses = tokio::net::lookup_host((name.as_str(), 0)).await?;
            Ok(addresses.map(|a| a.ip()).collect())
        })
    }
}

/// The error a refused resolution carries through reqwest (found again by downcasting).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub PolicyError);

/// reqwest's resolver hook, enforcing the policy.
pub struct PolicyResolver {
    policy: Arc<UrlPolicy>,
    lookup: Arc<dyn Lookup>,
}

impl PolicyResolver {
    /// A resolver for `policy` using `lookup`.
    pub fn new(policy: Arc<UrlPolicy>, lookup: Arc<dyn Lookup>) -> Self {
        Self { policy, lookup }
    }
}

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = Arc::clone(&self.policy);
        let lookup = Arc::clone(&self.lookup);
        let name = name.as_str().to_string();
        Box::pin(async move {
            let addresses = lookup.lookup(name.clone()).await?;
            if addresses.is_empty() {
                return Err(format!("{name} has no address").into());
            }
            // One blocked address refuses the name: a host that answers with a public and
            // a private address is exactly what a rebinding attack looks like.
            for address in &addresses {
                policy.check_address(*address).map_err(|error| {
                    Box::new(Refused(error)) as Box<dyn std::error::Error + Send + Sync>
                })?;
            }
            let checked: Addrs = Box::new(
                addresses
                    .into_iter()
                    .map(|ip| SocketAddr::new(ip, 0))
                    .collect::<Vec<_>>()
                    .into_iter(),
            );
            Ok(checked)
        })
    }
}
