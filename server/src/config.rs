//! The edge's configuration: flags and environment variables (each flag has an
//! environment twin, named as in Neo Chat where the concept is the same), and the checks
//! that refuse an unsafe configuration with a message that says what to do. Parsing and
//! checking are pure: the services are built afterwards from the checked values
//! ([`Config::default_provider`], the registry URL, the host lists).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use hearth_core::api::DeploymentMode;
use hearth_core::api::mcp_registry::{check_registry_url, registry_policy};
use hearth_core::provider::Protocol;
use hearth_core::url_policy::AllowedNetwork;

use crate::operator_url::check_operator_base_url;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// `hearth`: the Hearth edge server.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "hearth",
    version,
    about = "Hearth's edge server: serves the local-first chat app and its /api routes.",
    long_about = "Hearth's edge server: serves the local-first chat app from a release dist/ \
                  directory and answers its /api routes. Every flag can also be set by the \
                  environment variable shown next to it. Log verbosity follows RUST_LOG \
                  (default: info)."
)]
pub struct Cli {
    /// What to do; without a command, serve.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The server's settings (also read by `healthcheck` for the address).
    #[command(flatten)]
    pub config: Config,
}

/// Commands besides serving.
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Ask a running server on HEARTH_ADDR for `/api/health`; exit 0 if it answers 200.
    /// For container health checks in images without curl.
    Healthcheck,
    /// Parse one document from standard input and write the result as JSON to standard
    /// output, within the limits given. The edge runs this for each parse job; it is not
    /// meant to be run by hand.
    #[command(hide = true)]
    DocParseWorker(crate::doc_parse::worker::WorkerArgs),
    /// Manage the BYOK envelope key.
    Byok {
        /// What to do.
        #[command(subcommand)]
        command: ByokCommand,
    },
}

/// `hearth byok …`.
#[derive(Debug, Clone, Subcommand)]
pub enum ByokCommand {
    /// Print a new key pair as BYOK_KEY_ID and BYOK_PRIVATE_KEY_PEM lines for a hosted
    /// deployment's environment.
    Generate,
}

/// The server's settings.
#[derive(Debug, Clone, Args)]
pub struct Config {
    /// Address to listen on. Binding anything but loopback in local mode requires
    /// ACCESS_PASSWORD or --allow-public-bind.
    #[arg(long, env = "HEARTH_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,

    /// Directory holding the built app (`trunk build --release` output).
    #[arg(long, env = "HEARTH_DIST_DIR", default_value = "dist")]
    pub dist_dir: PathBuf,

    /// `local` (one process, in-memory state) or `hosted` (several instances sharing a
    /// store).
    #[arg(long, env = "DEPLOYMENT_MODE", default_value = "local", value_parser = parse_mode)]
    pub deployment_mode: DeploymentMode,

    /// Password (or comma-separated passwords) that gates the deployment. Prefer the
    /// environment variable: a flag is visible to other users in the process list.
    #[arg(long, env = "ACCESS_PASSWORD", hide_env_values = true)]
    pub access_password: Option<String>,

    /// Secret that signs access-session cookies. Set the same value on every instance of a
    /// deployment; without it a random secret is used and sessions end on restart.
    #[arg(long, env = "HEARTH_SESSION_SECRET", hide_env_values = true)]
    pub session_secret: Option<String>,

    /// Directory for the edge's own files (the local BYOK key). Default:
    /// $XDG_DATA_HOME/hearth or ~/.local/share/hearth.
    #[arg(long, env = "HEARTH_DATA_DIR")]
    pub data_dir: Option<PathBuf>,

    /// PKCS#8 PEM of the BYOK envelope key (required when hosted; `hearth byok generate`
    /// makes one). Without it, local mode keeps a generated key in the data directory.
    #[arg(long, env = "BYOK_PRIVATE_KEY_PEM", hide_env_values = true)]
    pub byok_private_key_pem: Option<String>,

    /// Id of the BYOK key (default: a fingerprint of the key).
    #[arg(long, env = "BYOK_KEY_ID")]
    pub byok_key_id: Option<String>,

    /// Redis for the shared state of a hosted deployment (`redis://` or `rediss://`).
    #[arg(long, env = "REDIS_URL", hide_env_values = true)]
    pub redis_url: Option<String>,

    /// Upstash's REST URL, the shared store when `REDIS_URL` is not set.
    #[arg(long, env = "UPSTASH_REDIS_REST_URL", hide_env_values = true)]
    pub upstash_redis_rest_url: Option<String>,

    /// Upstash's REST token.
    #[arg(long, env = "UPSTASH_REDIS_REST_TOKEN", hide_env_values = true)]
    pub upstash_redis_rest_token: Option<String>,

    /// Proxies whose `X-Forwarded-For` is believed (comma-separated addresses or CIDRs,
    /// e.g. the load balancer's network).
    #[arg(long, env = "HEARTH_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<String>,

    /// The origin(s) browsers reach this deployment at (comma-separated, e.g.
    /// `https://chat.example.com`). Required when hosted: the edge answers only for
    /// these hosts (and loopback on its own port), and only these count as same-origin.
    #[arg(long, env = "HEARTH_PUBLIC_ORIGIN", value_delimiter = ',')]
    pub public_origin: Vec<String>,

    /// Extra host names (or `host:port`) the edge answers for, comma-separated: a LAN
    /// name, the host port of a container port mapping, a load balancer's health-check
    /// address. Loopback on the bound port is always allowed; anything else is refused
    /// (DNS rebinding defence).
    #[arg(long, env = "HEARTH_ALLOWED_HOSTS", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,

    /// Private networks (comma-separated CIDRs) that targets users configure (provider,
    /// MCP and plugin servers) may reach in hosted mode. Never cloud metadata, and never
    /// for URLs a model or remote data chose.
    #[arg(long, env = "HEARTH_TRUSTED_NETWORKS", value_delimiter = ',')]
    pub trusted_networks: Vec<String>,

    /// Type of the server-configured provider (`openai`, `openai-compatible`,
    /// `openai-responses`, `anthropic`, `gemini`). Its key never reaches browsers.
    #[arg(long, env = "DEFAULT_PROVIDER_TYPE")]
    pub default_provider_type: Option<String>,

    /// Display name of the server-configured provider.
    #[arg(long, env = "DEFAULT_PROVIDER_NAME")]
    pub default_provider_name: Option<String>,

    /// Base URL of the server-configured provider.
    #[arg(long, env = "DEFAULT_PROVIDER_BASE_URL")]
    pub default_provider_base_url: Option<String>,

    /// API key of the server-configured provider (stays on the edge).
    #[arg(long, env = "DEFAULT_PROVIDER_API_KEY", hide_env_values = true)]
    pub default_provider_api_key: Option<String>,

    /// Comma-separated models of the server-configured provider.
    #[arg(long, env = "DEFAULT_PROVIDER_MODELS", value_delimiter = ',')]
    pub default_provider_models: Vec<String>,

    /// Longest time one relayed model reply may take, in seconds.
    #[arg(long, env = "HEARTH_RELAY_TIMEOUT_SECS", default_value_t = 120)]
    pub relay_timeout_secs: u64,

    /// How long a relayed reply whose connection dropped keeps running, in seconds, for
    /// the browser to resume it (from any instance, when hosted); past it, with nobody
    /// reading, the provider call is stopped.
    #[arg(long, env = "HEARTH_RELAY_RESUME_SECS", default_value_t = 30)]
    pub relay_resume_secs: u64,

    /// Allow binding a non-loopback address in local mode without ACCESS_PASSWORD. Anyone
    /// who can reach the port can then use this edge.
    #[arg(long, env = "HEARTH_ALLOW_PUBLIC_BIND", default_value_t = false)]
    pub allow_public_bind: bool,

    /// Base URL of the MCP registry that `GET /api/mcp/servers` browses: the official
    /// registry, or a mirror of its API. Must be https:// (Hearth refuses to start
    /// otherwise); a private address is allowed, as for DEFAULT_PROVIDER_BASE_URL.
    #[arg(
        long,
        env = "HEARTH_MCP_REGISTRY_URL",
        default_value = hearth_core::api::mcp_registry::DEFAULT_REGISTRY_URL
    )]
    pub mcp_registry_url: String,

    /// Log line format.
    #[arg(long, env = "HEARTH_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,

    /// Document parsing: the settings of `/api/doc-parse`.
    #[command(flatten)]
    pub doc_parse: DocParseSettings,

    /// Web search: the deployment's own service and the services' API bases.
    #[command(flatten)]
    pub web_search: crate::web_search::settings::WebSearchSettings,

    /// Voice: where ElevenLabs' API answers.
    #[command(flatten)]
    pub voice: crate::voice::settings::VoiceSettings,
}

/// How the edge parses documents (`/api/doc-parse`). Each file is parsed by a child
/// process of `hearth` (`hearth doc-parse-worker`) with its own memory, CPU and time
/// limits, so a hostile file can fail its job but not harm the edge.
#[derive(Clone, Args)]
pub struct DocParseSettings {
    /// The largest file accepted for parsing, in bytes; the app is told the same limit.
    #[arg(
        long = "doc-parse-max-bytes",
        env = "HEARTH_DOC_PARSE_MAX_BYTES",
        default_value_t = hearth_core::api::doc_parse::DEFAULT_MAX_FILE_BYTES
    )]
    pub max_bytes: u64,

    /// Longest time one file may take to parse, in seconds (also its CPU time limit).
    #[arg(
        long = "doc-parse-timeout-secs",
        env = "HEARTH_DOC_PARSE_TIMEOUT_SECS",
        default_value_t = 60
    )]
    pub timeout_secs: u64,

    /// How many files this instance parses at once; the rest wait their turn.
    #[arg(
        long = "doc-parse-workers",
        env = "HEARTH_DOC_PARSE_WORKERS",
        default_value_t = 2
    )]
    pub workers: usize,

    /// The address space one parse may use, in MiB.
    #[arg(
        long = "doc-parse-memory-mib",
        env = "HEARTH_DOC_PARSE_MEMORY_MIB",
        default_value_t = 1024
    )]
    pub memory_mib: u64,

    /// A command to run the parse worker through, split on spaces (a sandbox such as
    /// `bwrap --unshare-all --ro-bind / / --`); the worker's command line follows it.
    #[arg(long = "doc-parse-wrapper", env = "HEARTH_DOC_PARSE_WRAPPER")]
    pub wrapper: Option<String>,

    /// Longest time one file may take at a remote parser (MinerU, LlamaParse), upload,
    /// upstream polling and download together, in seconds.
    #[arg(
        long = "doc-parse-remote-timeout-secs",
        env = "HEARTH_DOC_PARSE_REMOTE_TIMEOUT_SECS",
        default_value_t = 240
    )]
    pub remote_timeout_secs: u64,

    /// MinerU's API base (the cloud API, or a self-hosted MinerU speaking the same API).
    /// The operator's choice, so it may be private or plain http.
    #[arg(
        long = "mineru-base-url",
        env = "HEARTH_MINERU_BASE_URL",
        default_value = DEFAULT_MINERU_BASE_URL
    )]
    pub mineru_base_url: String,

    /// The operator's MinerU API token, used for uploads that ask for the default
    /// (`useDefault=true`). Never sent to browsers, never logged.
    #[arg(
        long = "mineru-api-token",
        env = "HEARTH_MINERU_API_TOKEN",
        hide_env_values = true
    )]
    pub mineru_api_token: Option<String>,

    /// LlamaParse's API base (LlamaCloud). The operator's choice, so it may be private or
    /// plain http.
    #[arg(
        long = "llama-parse-base-url",
        env = "HEARTH_LLAMA_PARSE_BASE_URL",
        default_value = DEFAULT_LLAMA_PARSE_BASE_URL
    )]
    pub llama_parse_base_url: String,

    /// The operator's LlamaParse API key, used for uploads that ask for the default
    /// (`useDefault=true`). Never sent to browsers, never logged.
    #[arg(
        long = "llama-parse-api-key",
        env = "HEARTH_LLAMA_PARSE_API_KEY",
        hide_env_values = true
    )]
    pub llama_parse_api_key: Option<String>,
}

/// MinerU's cloud API.
pub const DEFAULT_MINERU_BASE_URL: &str = "https://mineru.net";
/// LlamaCloud's API.
pub const DEFAULT_LLAMA_PARSE_BASE_URL: &str = "https://api.cloud.llamaindex.ai";

impl std::fmt::Debug for DocParseSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redacted = |secret: &Option<String>| secret.as_ref().map(|_| "[redacted]");
        f.debug_struct("DocParseSettings")
            .field("max_bytes", &self.max_bytes)
            .field("timeout_secs", &self.timeout_secs)
            .field("workers", &self.workers)
            .field("memory_mib", &self.memory_mib)
            .field("wrapper", &self.wrapper)
            .field("remote_timeout_secs", &self.remote_timeout_secs)
            .field("mineru_base_url", &self.mineru_base_url)
            .field("mineru_api_token", &redacted(&self.mineru_api_token))
            .field("llama_parse_base_url", &self.llama_parse_base_url)
            .field("llama_parse_api_key", &redacted(&self.llama_parse_api_key))
            .finish()
    }
}

fn parse_mode(value: &str) -> Result<DeploymentMode, String> {
    value.parse()
}

/// A provider type as operators write it: (protocol, OpenAI-compatible?).
pub fn parse_provider_type(text: &str) -> Option<(Protocol, bool)> {
    match text.trim().to_ascii_lowercase().as_str() {
        "openai" => Some((Protocol::OpenAiChat, false)),
        "openai-compatible" | "compatible" | "ollama" | "llamacpp" | "vllm" | "localai"
        | "openrouter" => Some((Protocol::OpenAiChat, true)),
        "openai-responses" | "responses" => Some((Protocol::OpenAiResponses, false)),
        "anthropic" | "claude" => Some((Protocol::Anthropic, false)),
        "gemini" | "google" => Some((Protocol::Gemini, false)),
        _ => None,
    }
}

/// Checks `HEARTH_MCP_REGISTRY_URL`: an `https://` base without credentials, query or
/// fragment, that the registry's URL policy accepts. A message for the operator otherwise.
fn check_mcp_registry_url(base: &str) -> Result<(), String> {
    check_registry_url(base).map_err(|error| error.to_string())?;
    registry_policy()
        .check_url(base)
        .map(|_| ())
        .map_err(|error| format!("`{base}` is not allowed: {error}"))
}

/// The provider the operator configured with `DEFAULT_PROVIDER_*`, checked: a known
/// type, a base URL, blank values dropped.
#[derive(Clone)]
pub struct ProviderSettings {
    /// Its display name (the type as written when no name is set).
    pub name: String,
    /// Its protocol.
    pub protocol: Protocol,
    /// Whether it is an OpenAI-compatible server.
    pub compatible: bool,
    /// Its base URL.
    pub base_url: String,
    /// Its key, if it needs one.
    pub api_key: Option<String>,
    /// The models the operator listed.
    pub models: Vec<String>,
}

impl std::fmt::Debug for ProviderSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderSettings")
            .field("protocol", &self.protocol)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .finish_non_exhaustive()
    }
}

/// A configuration the edge refuses to run with.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    /// A non-loopback bind in local mode without a password or an explicit override.
    #[error(
        "refusing to listen on {addr}: in local mode Hearth only binds loopback addresses \
         unless it is protected. Set ACCESS_PASSWORD to require a password, or pass \
         --allow-public-bind (HEARTH_ALLOW_PUBLIC_BIND=true) if something else protects \
         this port. To keep it private, use HEARTH_ADDR=127.0.0.1:{port}."
    )]
    PublicBindWithoutPassword {
        /// The address that was asked for.
        addr: SocketAddr,
        /// Its port, for the suggestion.
        port: u16,
    },
    /// Hosted mode needs a BYOK key shared by every instance.
    #[error(
        "refusing to start in hosted mode without BYOK_PRIVATE_KEY_PEM: every instance must \
         open the same envelopes. Run `hearth byok generate` and set BYOK_KEY_ID and \
         BYOK_PRIVATE_KEY_PEM on every instance."
    )]
    HostedWithoutByokKey,
    /// Hosted mode needs a shared store.
    #[error(
        "refusing to start in hosted mode without a shared store: set REDIS_URL (redis:// or \
         rediss://) or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN. Instances share \
         lockouts, rate limits and plugins through it, and per-instance memory would let \
         every instance be tried separately."
    )]
    HostedWithoutSharedStore,
    /// Hosted mode needs one session secret for every instance.
    #[error(
        "refusing to start in hosted mode without HEARTH_SESSION_SECRET: every instance must \
         accept the sessions and client ids the others signed."
    )]
    HostedWithoutSessionSecret,
    /// `DEFAULT_PROVIDER_TYPE` names no known protocol.
    #[error(
        "DEFAULT_PROVIDER_TYPE `{0}` is not one of openai, openai-compatible, \
         openai-responses, anthropic, gemini"
    )]
    InvalidProviderType(String),
    /// A server provider needs its URL.
    #[error("DEFAULT_PROVIDER_TYPE is set but DEFAULT_PROVIDER_BASE_URL is not")]
    ProviderWithoutBaseUrl,
    /// A trusted proxy entry is not an address or network.
    #[error("HEARTH_TRUSTED_PROXIES has `{0}`, which is not an address or a CIDR network")]
    InvalidTrustedProxy(String),
    /// A remote parser's base URL is not usable.
    #[error("HEARTH_MINERU_BASE_URL / HEARTH_LLAMA_PARSE_BASE_URL: {0}")]
    InvalidParserBaseUrl(String),
    /// The web search settings are not usable.
    #[error("HEARTH_SEARCH_* / the search services' base URLs: {0}")]
    InvalidSearch(String),
    /// `HEARTH_ELEVENLABS_BASE_URL` is not usable.
    #[error("HEARTH_ELEVENLABS_BASE_URL: {0}")]
    InvalidVoice(String),
    /// `HEARTH_MCP_REGISTRY_URL` is not a usable https:// URL.
    #[error("HEARTH_MCP_REGISTRY_URL: {0}")]
    InvalidMcpRegistryUrl(String),
    /// Hosted mode needs the origin browsers use.
    #[error(
        "refusing to start in hosted mode without HEARTH_PUBLIC_ORIGIN: set the origin \
         browsers reach this deployment at (e.g. https://chat.example.com). The edge answers \
         only for its own host names, so a page that rebinds its DNS name cannot use it."
    )]
    HostedWithoutPublicOrigin,
    /// A `HEARTH_PUBLIC_ORIGIN` or `HEARTH_ALLOWED_HOSTS` entry is malformed.
    #[error("HEARTH_PUBLIC_ORIGIN / HEARTH_ALLOWED_HOSTS: {0}")]
    InvalidHostEntry(#[from] crate::allowed_hosts::HostEntryError),
    /// A trusted network entry is not an address or network.
    #[error("HEARTH_TRUSTED_NETWORKS has `{0}`, which is not an address or a CIDR network")]
    InvalidTrustedNetwork(String),
    /// An empty password would gate nothing.
    #[error("ACCESS_PASSWORD is set but contains no password; unset it or give a value")]
    EmptyAccessPassword,
}

impl Config {
    /// The trusted proxy networks.
    pub fn trusted_proxy_networks(&self) -> Vec<AllowedNetwork> {
        self.trusted_proxies
            .iter()
            .filter_map(|p| AllowedNetwork::parse(p))
            .collect()
    }

    /// The private networks user-configured targets may reach.
    pub fn trusted_network_list(&self) -> Vec<AllowedNetwork> {
        self.trusted_networks
            .iter()
            .filter_map(|p| AllowedNetwork::parse(p))
            .collect()
    }

    /// The hosts and origins the edge answers for.
    pub fn allowed_hosts(
        &self,
    ) -> Result<crate::allowed_hosts::AllowedHosts, crate::allowed_hosts::HostEntryError> {
        crate::allowed_hosts::AllowedHosts::new(self.addr, &self.public_origin, &self.allowed_hosts)
    }

    /// The provider `DEFAULT_PROVIDER_*` describes, if `DEFAULT_PROVIDER_TYPE` is set.
    pub fn default_provider(&self) -> Result<Option<ProviderSettings>, ConfigError> {
        let Some(kind) = self
            .default_provider_type
            .as_deref()
            .filter(|t| !t.trim().is_empty())
        else {
            return Ok(None);
        };
        let (protocol, compatible) = parse_provider_type(kind)
            .ok_or_else(|| ConfigError::InvalidProviderType(kind.to_string()))?;
        let base_url = self
            .default_provider_base_url
            .clone()
            .filter(|u| !u.trim().is_empty())
            .ok_or(ConfigError::ProviderWithoutBaseUrl)?;
        Ok(Some(ProviderSettings {
            name: self
                .default_provider_name
                .clone()
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| kind.to_string()),
            protocol,
            compatible,
            base_url,
            api_key: self
                .default_provider_api_key
                .clone()
                .filter(|k| !k.trim().is_empty()),
            models: self
                .default_provider_models
                .iter()
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty())
                .collect(),
        }))
    }

    /// Whether a non-empty access password is configured.
    pub fn access_password_enabled(&self) -> bool {
        self.access_password
            .as_deref()
            .is_some_and(|value| value.split(',').any(|p| !p.trim().is_empty()))
    }

    /// Checks the configuration before anything binds. Fails closed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.access_password.is_some() && !self.access_password_enabled() {
            return Err(ConfigError::EmptyAccessPassword);
        }
        if self.deployment_mode == DeploymentMode::Hosted {
            let has_key = self
                .byok_private_key_pem
                .as_deref()
                .is_some_and(|pem| !pem.trim().is_empty());
            if !has_key {
                return Err(ConfigError::HostedWithoutByokKey);
            }
            let set = |v: &Option<String>| v.as_deref().is_some_and(|u| !u.trim().is_empty());
            let upstash = set(&self.upstash_redis_rest_url) && set(&self.upstash_redis_rest_token);
            if !(set(&self.redis_url) || upstash) {
                return Err(ConfigError::HostedWithoutSharedStore);
            }
            if self
                .session_secret
                .as_deref()
                .is_none_or(|s| s.trim().is_empty())
            {
                return Err(ConfigError::HostedWithoutSessionSecret);
            }
            if self.public_origin.iter().all(|o| o.trim().is_empty()) {
                return Err(ConfigError::HostedWithoutPublicOrigin);
            }
        }
        self.allowed_hosts()?;
        if let Some(bad) = self
            .trusted_networks
            .iter()
            .find(|p| !p.trim().is_empty() && AllowedNetwork::parse(p).is_none())
        {
            return Err(ConfigError::InvalidTrustedNetwork(bad.clone()));
        }
        self.default_provider()?;
        if let Some(bad) = self
            .trusted_proxies
            .iter()
            .find(|p| !p.trim().is_empty() && AllowedNetwork::parse(p).is_none())
        {
            return Err(ConfigError::InvalidTrustedProxy(bad.clone()));
        }
        check_mcp_registry_url(&self.mcp_registry_url)
            .map_err(ConfigError::InvalidMcpRegistryUrl)?;
        for base in [
            &self.doc_parse.mineru_base_url,
            &self.doc_parse.llama_parse_base_url,
        ] {
            check_operator_base_url(base).map_err(ConfigError::InvalidParserBaseUrl)?;
        }
        self.web_search
            .check()
            .map_err(ConfigError::InvalidSearch)?;
        self.voice.check().map_err(ConfigError::InvalidVoice)?;
        let loopback = self.addr.ip().is_loopback();
        if !loopback && !self.access_password_enabled() && !self.allow_public_bind {
            return Err(ConfigError::PublicBindWithoutPassword {
                addr: self.addr,
                port: self.addr.port(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Config {
        let mut argv = vec!["hearth"];
        argv.extend_from_slice(args);
        Cli::try_parse_from(argv).expect("valid arguments").config
    }

    #[test]
    fn defaults_are_local_and_loopback() {
        let config = parse(&[]);
        assert_eq!(config.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(config.deployment_mode, DeploymentMode::Local);
        assert!(config.validate().is_ok());
    }

    #[test]
    fn public_bind_needs_a_password_or_an_override() {
        let open = parse(&["--addr", "0.0.0.0:9000"]);
        assert_eq!(
            open.validate(),
            Err(ConfigError::PublicBindWithoutPassword {
                addr: "0.0.0.0:9000".parse().unwrap(),
                port: 9000
            })
        );
        assert!(
            parse(&["--addr", "0.0.0.0:9000", "--access-password", "pw"])
                .validate()
                .is_ok()
        );
        assert!(
            parse(&["--addr", "[::]:9000", "--allow-public-bind"])
                .validate()
                .is_ok()
        );
        assert!(parse(&["--addr", "[::1]:9000"]).validate().is_ok());
    }

    #[test]
    fn blank_passwords_are_refused() {
        let config = parse(&["--access-password", " , "]);
        assert_eq!(config.validate(), Err(ConfigError::EmptyAccessPassword));
    }

    #[test]
    fn healthcheck_is_a_subcommand_that_keeps_the_address() {
        let cli = Cli::try_parse_from(["hearth", "--addr", "127.0.0.1:9", "healthcheck"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Healthcheck)));
        assert_eq!(cli.config.addr.port(), 9);
    }

    #[test]
    fn hosted_mode_fails_closed() {
        let config = parse(&["--deployment-mode", "hosted"]);
        assert_eq!(config.validate(), Err(ConfigError::HostedWithoutByokKey));
        let config = parse(&[
            "--deployment-mode",
            "hosted",
            "--byok-private-key-pem",
            "pem",
        ]);
        assert_eq!(
            config.validate(),
            Err(ConfigError::HostedWithoutSharedStore)
        );
    }

    #[test]
    fn parser_base_urls_are_the_operators_and_checked_at_start() {
        let defaults = parse(&[]);
        assert_eq!(defaults.doc_parse.mineru_base_url, "https://mineru.net");
        assert_eq!(
            defaults.doc_parse.llama_parse_base_url,
            "https://api.cloud.llamaindex.ai"
        );
        let local = parse(&[
            "--mineru-base-url",
            "http://127.0.0.1:9000/mineru",
            "--llama-parse-base-url",
            "http://10.0.0.7:8080",
        ]);
        assert!(
            local.validate().is_ok(),
            "self-hosted parsers may be private"
        );
        for bad in [
            "ftp://mineru.example",
            "https://user:pw@mineru.example",
            "https://mineru.example/?token=1",
            "http://169.254.169.254/",
            "not a url",
        ] {
            let config = parse(&["--mineru-base-url", bad]);
            assert!(
                matches!(config.validate(), Err(ConfigError::InvalidParserBaseUrl(_))),
                "{bad}"
            );
        }
        let with_secrets = parse(&[
            "--mineru-api-token",
            "mineru-secret-token",
            "--llama-parse-api-key",
            "llx-secret-key",
        ]);
        let printed = format!("{:?}", with_secrets.doc_parse);
        assert!(!printed.contains("mineru-secret-token"), "{printed}");
        assert!(!printed.contains("llx-secret-key"), "{printed}");
    }

    #[test]
    fn the_mcp_registry_url_must_be_https() {
        assert_eq!(
            parse(&[]).mcp_registry_url,
            "https://registry.modelcontextprotocol.io"
        );
        let mirror = parse(&["--mcp-registry-url", "https://10.1.2.3:8443/registry"]);
        assert!(mirror.validate().is_ok());
        let plain = parse(&["--mcp-registry-url", "http://registry.example.com"]);
        assert!(matches!(
            plain.validate(),
            Err(ConfigError::InvalidMcpRegistryUrl(_))
        ));
    }

    #[test]
    fn hosted_mode_needs_a_public_origin_and_entries_must_parse() {
        let hosted = [
            "--deployment-mode",
            "hosted",
            "--byok-private-key-pem",
            "pem",
            "--redis-url",
            "redis://127.0.0.1:6379",
            "--session-secret",
            "s",
        ];
        assert_eq!(
            parse(&hosted).validate(),
            Err(ConfigError::HostedWithoutPublicOrigin)
        );
        let mut with_origin = hosted.to_vec();
        with_origin.extend(["--public-origin", "https://chat.example.com"]);
        assert_eq!(parse(&with_origin).validate(), Ok(()));
        assert!(matches!(
            parse(&["--public-origin", "chat.example.com"]).validate(),
            Err(ConfigError::InvalidHostEntry(_))
        ));
        assert!(matches!(
            parse(&["--allowed-hosts", "hearth.lan,https://x"]).validate(),
            Err(ConfigError::InvalidHostEntry(_))
        ));
        assert_eq!(
            parse(&["--trusted-networks", "10.0.0.0/8,nonsense"]).validate(),
            Err(ConfigError::InvalidTrustedNetwork("nonsense".into()))
        );
        let trusted = parse(&["--trusted-networks", "10.0.0.0/8, fd12::/16"]);
        assert_eq!(trusted.validate(), Ok(()));
        assert_eq!(trusted.trusted_network_list().len(), 2);
    }

    #[test]
    fn the_base_url_must_be_https_and_not_metadata() {
        assert!(check_mcp_registry_url("https://registry.modelcontextprotocol.io").is_ok());
        assert!(check_mcp_registry_url("https://127.0.0.1:8443/registry/").is_ok());
        assert!(
            check_mcp_registry_url("https://10.0.0.5").is_ok(),
            "a LAN mirror"
        );
        for bad in [
            "http://registry.modelcontextprotocol.io",
            "https://169.254.169.254/",
            "https://metadata.google.internal/",
            "https://registry.example.com/?x=1",
            "not a url",
        ] {
            assert!(check_mcp_registry_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn operator_spellings_map_to_protocols() {
        for (spelling, expected) in [
            ("OpenAI", Some((Protocol::OpenAiChat, false))),
            ("ollama", Some((Protocol::OpenAiChat, true))),
            ("google", Some((Protocol::Gemini, false))),
            ("claude", Some((Protocol::Anthropic, false))),
            ("carrier-pigeon", None),
        ] {
            assert_eq!(parse_provider_type(spelling), expected, "{spelling}");
        }
    }

    #[test]
    fn unknown_mode_is_a_parse_error() {
        let err = Cli::try_parse_from(["hearth", "--deployment-mode", "cluster"]).unwrap_err();
        assert!(err.to_string().contains("cluster"), "{err}");
    }
}
