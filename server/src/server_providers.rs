//! Providers the operator configures on the edge (`DEFAULT_PROVIDER_TYPE`, `_NAME`,
//! `_BASE_URL`, `_API_KEY`, `_MODELS`, as in Neo Chat). The app sees their id, name,
//! protocol and models; their URL and key never leave the edge, and every call to them
//! goes through the relay.

use hearth_core::api::ServerProvider;
use hearth_core::provider::Protocol;

use crate::config::{Config, ConfigError};

/// The id of the provider configured by `DEFAULT_PROVIDER_*`.
pub const DEFAULT_ID: &str = "server-default";

/// A configured provider, with its secret.
#[derive(Clone)]
pub struct ConfiguredProvider {
    /// Its id.
    pub id: String,
    /// Its display name.
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

impl std::fmt::Debug for ConfiguredProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfiguredProvider")
            .field("id", &self.id)
            .field("protocol", &self.protocol)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .finish_non_exhaustive()
    }
}

impl ConfiguredProvider {
    /// What the app may know.
    pub fn public(&self) -> ServerProvider {
        ServerProvider {
            id: self.id.clone(),
            name: self.name.clone(),
            protocol: self.protocol,
            models: self.models.clone(),
        }
    }
}

/// A provider type as operators write it: (protocol, OpenAI-compatible?).
pub fn parse_type(text: &str) -> Option<(Protocol, bool)> {
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

/// The providers `config` describes.
pub fn from_config(config: &Config) -> Result<Vec<ConfiguredProvider>, ConfigError> {
    let Some(kind) = config
        .default_provider_type
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    else {
        return Ok(Vec::new());
    };
    let (protocol, compatible) =
        parse_type(kind).ok_or_else(|| ConfigError::InvalidProviderType(kind.to_string()))?;
    let base_url = config
        .default_provider_base_url
        .clone()
        .filter(|u| !u.trim().is_empty())
        .ok_or(ConfigError::ProviderWithoutBaseUrl)?;
    Ok(vec![ConfiguredProvider {
        id: DEFAULT_ID.into(),
        name: config
            .default_provider_name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| kind.to_string()),
        protocol,
        compatible,
        base_url,
        api_key: config
            .default_provider_api_key
            .clone()
            .filter(|k| !k.trim().is_empty()),
        models: config
            .default_provider_models
            .iter()
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty())
            .collect(),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_spellings_map_to_protocols() {
        assert_eq!(parse_type("OpenAI"), Some((Protocol::OpenAiChat, false)));
        assert_eq!(parse_type("ollama"), Some((Protocol::OpenAiChat, true)));
        assert_eq!(parse_type("google"), Some((Protocol::Gemini, false)));
        assert_eq!(parse_type("claude"), Some((Protocol::Anthropic, false)));
        assert_eq!(parse_type("carrier-pigeon"), None);
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let provider = ConfiguredProvider {
            id: DEFAULT_ID.into(),
            name: "n".into(),
            protocol: Protocol::OpenAiChat,
            compatible: false,
            base_url: "https://x".into(),
            api_key: Some("sk-very-secret".into()),
            models: vec![],
        };
        assert!(!format!("{provider:?}").contains("sk-very-secret"));
    }
}
