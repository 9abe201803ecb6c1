//! `GET /api/config`: what the app may know about the deployment. Nothing in here is a
//! secret; the edge builds it from its configuration and the app adapts its features to it.

use serde::{Deserialize, Serialize};

/// How the edge is deployed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeploymentMode {
    /// One process on one machine, usually a laptop on `127.0.0.1`; memory stores are fine.
    #[default]
    Local,
    /// Several stateless instances behind a load balancer; shared state must live in a
    /// shared store, and the edge refuses to run without one.
    Hosted,
}

impl DeploymentMode {
    /// The wire and configuration spelling (`local`, `hosted`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Local => "local",
            Self::Hosted => "hosted",
        }
    }
}

impl std::str::FromStr for DeploymentMode {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value.trim().to_ascii_lowercase().as_str() {
            "local" => Ok(Self::Local),
            "hosted" => Ok(Self::Hosted),
            other => Err(format!(
                "unknown deployment mode `{other}`; expected `local` or `hosted`"
            )),
        }
    }
}

/// Where a piece of the edge's shared state lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreState {
    /// In this process only; lost on restart and not shared between instances.
    Memory,
    /// In a shared store (Redis or Upstash).
    Shared,
    /// Required but not configured: the features that need it are off.
    Missing,
}

/// Facts about the deployment that change how the app behaves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentInfo {
    /// Local or hosted.
    pub mode: DeploymentMode,
    /// Whether the edge asks for a deployment password.
    pub access_password_enabled: bool,
    /// Where lockouts and rate-limit counters live.
    pub shared_state: StoreState,
}

/// Which edge features this deployment offers. A feature the edge cannot serve is `false`
/// and the app hides or explains it instead of failing at use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// `POST /api/chat/relay` for providers that block browser calls.
    pub chat_relay: bool,
    /// `POST /api/plugins/*`: OpenAPI plugin tools.
    pub plugins: bool,
    /// Remote MCP servers through the edge.
    pub mcp: bool,
    /// `POST /api/doc-parse` document-parse jobs.
    pub document_parse: bool,
    /// `GET /api/byok/public-key`: secrets sent to the edge as envelopes.
    pub byok: bool,
    /// `POST /api/search`: web searches with the user's own services.
    #[serde(default)]
    pub web_search: bool,
    /// The deployment's own search service ("Default Search"), through `POST /api/search`;
    /// its kind, key and address stay on the edge.
    #[serde(default)]
    pub default_search: bool,
    /// `POST /api/voice/speech` and `POST /api/voice/transcriptions`: reading aloud and
    /// dictation with the user's OpenAI-compatible provider or ElevenLabs.
    #[serde(default)]
    pub voice: bool,
}

/// The part of `GET /api/config`'s body the first screen reads (the operator's
/// providers, for the model picker): read alone, it keeps the code that reads the rest
/// of [`PublicConfig`] off the first load.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigProviders {
    /// As [`PublicConfig::server_providers`].
    #[serde(default)]
    pub server_providers: Vec<super::ServerProvider>,
}

/// The body of `GET /api/config`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicConfig {
    /// The edge's version (`CARGO_PKG_VERSION`).
    pub version: String,
    /// Deployment facts.
    pub deployment: DeploymentInfo,
    /// Features this edge serves.
    pub capabilities: Capabilities,
    /// Providers the operator configured (their keys stay on the edge).
    #[serde(default)]
    pub server_providers: Vec<super::ServerProvider>,
    /// How long a model stream may stay silent before it is given up, in seconds: the
    /// relay's deadline (`HEARTH_RELAY_TIMEOUT_SECS`), which the browser also applies to
    /// the streams it reads directly.
    #[serde(default = "default_stream_silence_secs")]
    pub stream_silence_secs: u64,
    /// The largest file `POST /api/doc-parse` accepts, in bytes, so the app refuses a
    /// bigger one before uploading it.
    #[serde(default = "default_document_parse_max_bytes")]
    pub document_parse_max_bytes: u64,
    /// The remote document parsers the operator has a key for (the user may choose
    /// "the deployment's key"); the keys stay on the edge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deployment_parsers: Vec<super::doc_parse::DocParseProvider>,
}

fn default_document_parse_max_bytes() -> u64 {
    super::doc_parse::DEFAULT_MAX_FILE_BYTES
}

/// The stream silence limit when an edge does not say (120 s).
pub const DEFAULT_STREAM_SILENCE_SECS: u64 = 120;

fn default_stream_silence_secs() -> u64 {
    DEFAULT_STREAM_SILENCE_SECS
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deployment_mode_parses_case_insensitively_and_rejects_others() {
        assert_eq!(
            " Hosted ".parse::<DeploymentMode>().unwrap(),
            DeploymentMode::Hosted
        );
        assert_eq!(
            "local".parse::<DeploymentMode>().unwrap(),
            DeploymentMode::Local
        );
        let err = "cluster".parse::<DeploymentMode>().unwrap_err();
        assert!(err.contains("cluster"), "{err}");
    }

    #[test]
    fn store_states_are_lowercase() {
        assert_eq!(
            serde_json::to_value(StoreState::Shared).unwrap(),
            json!("shared")
        );
        assert_eq!(
            serde_json::to_value(StoreState::Missing).unwrap(),
            json!("missing")
        );
    }

    #[test]
    fn public_config_uses_camel_case_on_the_wire() {
        let config = PublicConfig {
            version: "0.1.0".into(),
            deployment: DeploymentInfo {
                mode: DeploymentMode::Local,
                access_password_enabled: false,
                shared_state: StoreState::Memory,
            },
            capabilities: Capabilities::default(),
            server_providers: Vec::new(),
            stream_silence_secs: 90,
            document_parse_max_bytes: 1234,
            deployment_parsers: Vec::new(),
        };
        let value = serde_json::to_value(&config).unwrap();
        assert_eq!(value["streamSilenceSecs"], json!(90));
        // An edge that predates the field: the default applies.
        let mut older = value.clone();
        assert_eq!(value["documentParseMaxBytes"], json!(1234));
        older.as_object_mut().unwrap().remove("streamSilenceSecs");
        older
            .as_object_mut()
            .unwrap()
            .remove("documentParseMaxBytes");
        let read: PublicConfig = serde_json::from_value(older).unwrap();
        assert_eq!(read.stream_silence_secs, DEFAULT_STREAM_SILENCE_SECS);
        assert_eq!(
            read.document_parse_max_bytes,
            super::super::doc_parse::DEFAULT_MAX_FILE_BYTES
        );
        assert_eq!(value["deployment"]["mode"], json!("local"));
        assert_eq!(value["deployment"]["accessPasswordEnabled"], json!(false));
        assert_eq!(value["deployment"]["sharedState"], json!("memory"));
        assert_eq!(value["capabilities"]["chatRelay"], json!(false));
        assert_eq!(value["capabilities"]["documentParse"], json!(false));
    }

    #[test]
    fn the_first_screens_part_reads_the_providers_of_a_whole_config() {
        let config = PublicConfig {
            version: "0.1.0".into(),
            deployment: DeploymentInfo {
                mode: DeploymentMode::Hosted,
                access_password_enabled: true,
                shared_state: StoreState::Shared,
            },
            capabilities: Capabilities::default(),
            server_providers: vec![super::super::ServerProvider {
                id: "team".into(),
                name: "Team".into(),
                protocol: crate::provider::Protocol::Anthropic,
                models: vec!["m".into()],
            }],
            stream_silence_secs: 90,
            document_parse_max_bytes: 1234,
            deployment_parsers: Vec::new(),
        };
        let text = serde_json::to_string(&config).unwrap();
        let part: ConfigProviders = serde_json::from_str(&text).unwrap();
        assert_eq!(part.server_providers, config.server_providers);
        // An edge without operator providers says nothing of them.
        let none: ConfigProviders = serde_json::from_str(r#"{"version":"0.1.0"}"#).unwrap();
        assert!(none.server_providers.is_empty());
    }
}
