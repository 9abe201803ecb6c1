//! Providers the operator configures on the edge (`DEFAULT_PROVIDER_TYPE`, `_NAME`,
//! `_BASE_URL`, `_API_KEY`, `_MODELS`, as in Neo Chat), built from the checked
//! [`ProviderSettings`](crate::config::ProviderSettings). The app sees their id, name,
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

/// The providers `config` describes.
pub fn from_config(config: &Config) -> Result<Vec<ConfiguredProvider>, ConfigError> {
    Ok(config
        .default_provider()?
        .into_iter()
        .map(|settings| ConfiguredProvider {
            id: DEFAULT_ID.into(),
            name: settings.name,
            protocol: settings.protocol,
            compatible: settings.compatible,
            base_url: settings.base_url,
            api_key: settings.api_key,
            models: settings.models,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

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
