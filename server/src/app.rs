//! Assembles the edge: shared state, the `/api` router, the static app with its SPA
//! fallback, and the layers every request and response passes through (the host check,
//! security headers, request log).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use hearth_core::api::{Capabilities, DeploymentInfo, DeploymentMode, PublicConfig};
use hearth_core::url_policy::{AllowedNetwork, Policies};

use crate::access::AccessGate;
use crate::allowed_hosts::AllowedHosts;
use crate::byok::ByokKeys;
use crate::config::Config;
use crate::kv::KvStore;
use crate::logging;
use crate::safe_fetch::{FetchError, Limits, SafeFetch};
use crate::security_headers::SecurityHeaders;
use crate::server_providers::ConfiguredProvider;
use crate::signing::Signer;
use crate::static_files::StaticAssets;

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
    /// Installed plugins, per client.
    pub plugins: crate::plugins::PluginRegistry,
    /// Signs session and client tokens.
    pub signer: Signer,
    /// Proxies whose forwarded addresses are believed.
    pub trusted_proxies: Arc<Vec<AllowedNetwork>>,
    /// The BYOK envelope key.
    pub byok: Option<Arc<ByokKeys>>,
    /// The one outbound client, with the deployment's URL policy for each kind of target.
    pub fetch: SafeFetch,
    /// The hosts and origins the edge answers for.
    pub allowed_hosts: Arc<AllowedHosts>,
    /// Providers the operator configured.
    pub server_providers: Arc<Vec<ConfiguredProvider>>,
    /// Deadline of one relayed model reply.
    pub relay_timeout: Duration,
    /// The MCP registry browsed by `GET /api/mcp/servers`.
    pub mcp_registry: crate::mcp_registry::McpRegistry,
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
        let server_providers = crate::server_providers::from_config(config).unwrap_or_default();
        let security = SecurityHeaders::new(assets.inline_script_hashes());
        let signer = Signer::new(config.session_secret.as_deref());
        let access = AccessGate::new(
            config.access_password.as_deref(),
            signer.clone(),
            kv.clone(),
        );
        Ok(Self {
            config: Arc::new(PublicConfig {
                version: env!("CARGO_PKG_VERSION").to_string(),
                deployment: DeploymentInfo {
                    mode: config.deployment_mode,
                    access_password_enabled: config.access_password_enabled(),
                    shared_state: kv.state(),
                },
                capabilities: Capabilities {
                    byok: byok.is_some(),
                    chat_relay: true,
                    ..Capabilities::default()
                },
                server_providers: server_providers.iter().map(|p| p.public()).collect(),
                stream_silence_secs: config.relay_timeout_secs.max(1),
            }),
            started: Instant::now(),
            assets: Arc::new(assets),
            security: Arc::new(security),
            access,
            plugins: crate::plugins::PluginRegistry::beside(&kv, registry_file(config)),
            kv,
            signer,
            trusted_proxies: Arc::new(config.trusted_proxy_networks()),
            byok: byok.map(Arc::new),
            fetch,
            allowed_hosts: Arc::new(allowed_hosts),
            server_providers: Arc::new(server_providers),
            relay_timeout,
            mcp_registry: crate::mcp_registry::McpRegistry::new(&config.mcp_registry_url)?,
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

/// The whole edge as one router.
pub fn router(state: AppState) -> Router {
    Router::new()
        .nest(
            "/api",
            crate::api::router().layer(middleware::from_fn_with_state(
                state.clone(),
                crate::guard::api_guard,
            )),
        )
        .fallback(serve_static)
        // Before any route: a host that is not ours gets a 421 (with the headers below).
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::allowed_hosts::host_guard,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            response_headers,
        ))
        .layer(middleware::from_fn(logging::log_request))
        .with_state(state)
}

async fn serve_static(State(state): State<AppState>, request: Request) -> Response {
    let path = request.uri().path();
    // Paths the nested API router does not see (`/api/` with its trailing slash, say)
    // still belong to the API: a JSON 404, never the app's HTML.
    if is_api_path(path) {
        return crate::api::unknown_route().await.into_response();
    }
    state
        .assets
        .respond(request.method(), path, request.headers())
}

fn is_api_path(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/")
}

/// Security headers on everything; `no-store` on API answers, which are never cacheable.
async fn response_headers(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let is_api = is_api_path(request.uri().path());
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    state.security.apply(headers);
    if is_api {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}
