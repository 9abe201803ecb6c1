//! The state every handler and layer shares ([`AppState`]), built once from the checked
//! configuration: the public configuration, the store, the outbound client, the keys and
//! the services. It sits below the routes and layers, which take it by `State`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hearth_core::api::{Capabilities, DeploymentInfo, DeploymentMode, PublicConfig};
use hearth_core::url_policy::{AllowedNetwork, Policies};

use crate::access::AccessGate;
use crate::allowed_hosts::AllowedHosts;
use crate::byok::ByokKeys;
use crate::config::Config;
use crate::doc_parse::DocParse;
use crate::kv::KvStore;
use crate::mcp_oauth::McpOauth;
use crate::mcp_registry::McpRegistry;
use crate::operations::Operations;
use crate::plugins::Plugins;
use crate::plugins::registry::PluginRegistry;
use crate::providers::{Providers, configured};
use crate::relays::Relays;
use crate::safe_fetch::{FetchError, Limits, SafeFetch};
use crate::security_headers::SecurityHeaders;
use crate::signing::Signer;
use crate::static_files::StaticAssets;
use crate::voice::Voice;
use crate::web_search::WebSearch;

/// State shared by every handler. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// The public configuration answered by `GET /api/config`.
    pub config: Arc<PublicConfig>,
    /// When the process started, for uptime.
    pub started: Instant,
    /// The app's files.
    pub assets: Arc<StaticAssets>,
    /// The headers added to every response.
    pub security: Arc<SecurityHeaders>,
    /// The password gate, when `ACCESS_PASSWORD` is set.
    pub access: Option<AccessGate>,
    /// The edge's small shared state.
    pub kv: KvStore,
    /// The plugin service: installed plugins per client, and their calls.
    pub plugins: Plugins,
    /// Signs session and client tokens.
    pub signer: Signer,
    /// Proxies whose forwarded addresses are believed.
    pub trusted_proxies: Arc<Vec<AllowedNetwork>>,
    /// The BYOK envelope key.
    pub byok: Option<Arc<ByokKeys>>,
    /// The hosts and origins the edge answers for.
    pub allowed_hosts: Arc<AllowedHosts>,
    /// The provider service: the relay and model listings, and the operator's providers.
    pub providers: Providers,
    /// The MCP registry browsed by `GET /api/mcp/servers`.
    pub mcp_registry: McpRegistry,
    /// Document-parse jobs.
    pub doc_parse: DocParse,
    /// Resumable relayed replies.
    pub relays: Relays,
    /// Named edge operations and their answers.
    pub operations: Operations,
    /// OAuth sign-in to MCP servers.
    pub mcp_oauth: McpOauth,
    /// Web search.
    pub web_search: WebSearch,
    /// Reading aloud and dictation.
    pub voice: Voice,
}

impl AppState {
    /// Builds the state from a validated configuration, the loaded assets and the BYOK
    /// key.
    pub fn new(
        config: &Config,
        assets: StaticAssets,
        byok: Option<ByokKeys>,
        kv: KvStore,
    ) -> Result<Self, FetchError> {
        let byok = byok.map(Arc::new);
        let relay_timeout = Duration::from_secs(config.relay_timeout_secs.max(1));
        let trusted = config.trusted_network_list();
        let policies = match config.deployment_mode {
            DeploymentMode::Local => Policies::local(trusted),
            DeploymentMode::Hosted => Policies::hosted(trusted),
        };
        let limits = Limits {
            timeout: relay_timeout,
            ..Limits::default()
        };
        let fetch = SafeFetch::new(policies, limits)?;
        // Validated before this point; an invalid entry allows only loopback here.
        let allowed_hosts = config
            .allowed_hosts()
            .unwrap_or_else(|_| AllowedHosts::new(config.addr, &[], &[]).unwrap_or_default());
        // Validated before this point; an invalid entry yields no provider here.
        let server_providers = configured::from_config(config).unwrap_or_default();
        let security = SecurityHeaders::new(assets.inline_script_hashes());
        let signer = Signer::new(config.session_secret.as_deref());
        let access = AccessGate::new(
            config.access_password.as_deref(),
            signer.clone(),
            kv.clone(),
        );
        let doc_parse = DocParse::new(
            &config.doc_parse,
            &kv,
            std::env::current_exe().unwrap_or_else(|_| "hearth".into()),
            byok.clone(),
        )?;
        Ok(Self {
            config: Arc::new(PublicConfig {
                version: env!("CARGO_PKG_VERSION").to_string(),
                deployment: DeploymentInfo {
                    mode: config.deployment_mode,
                    access_password_enabled: config.access_password_enabled(),
                    shared_state: kv.state(),
                },
                // What `api::router` serves, every flag named (a new one must be decided
                // here); `server/tests/capabilities.rs` checks each against its route.
                capabilities: Capabilities {
                    chat_relay: true,
                    plugins: true,
                    mcp: true,
                    document_parse: true,
                    byok: byok.is_some(),
                    web_search: true,
                    default_search: config.web_search.deployment().ready(),
                    voice: true,
                },
                server_providers: server_providers.iter().map(|p| p.public()).collect(),
                stream_silence_secs: config.relay_timeout_secs.max(1),
                document_parse_max_bytes: config.doc_parse.max_bytes,
                deployment_parsers: crate::doc_parse::deployment_parsers(&config.doc_parse),
            }),
            started: Instant::now(),
            assets: Arc::new(assets),
            security: Arc::new(security),
            access,
            plugins: Plugins::new(
                PluginRegistry::beside(&kv, registry_file(config)),
                fetch.clone(),
                byok.clone(),
                signer.clone(),
                config.deployment_mode,
            ),
            operations: Operations::new(&kv),
            mcp_oauth: McpOauth::new(fetch.clone(), byok.clone()),
            web_search: WebSearch::new(&config.web_search, fetch.clone(), byok.clone()),
            relays: Relays::new(&kv, Duration::from_secs(config.relay_resume_secs.max(1))),
            kv,
            signer,
            trusted_proxies: Arc::new(config.trusted_proxy_networks()),
            voice: Voice::new(
                &config.voice,
                fetch.clone(),
                byok.clone(),
                Arc::new(server_providers.clone()),
            ),
            providers: Providers::new(server_providers, byok.clone(), fetch, relay_timeout),
            byok,
            allowed_hosts: Arc::new(allowed_hosts),
            mcp_registry: McpRegistry::new(&config.mcp_registry_url)?,
            doc_parse,
        })
    }
}

/// Where a local deployment keeps its plugins: the data directory, as for the BYOK key.
fn registry_file(config: &Config) -> Option<std::path::PathBuf> {
    (config.deployment_mode == DeploymentMode::Local).then(|| {
        config
            .data_dir
            .clone()
            .unwrap_or_else(crate::byok::default_data_dir)
            .join("plugins.json")
    })
}
