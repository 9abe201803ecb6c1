//! Providers the operator configures on the edge (`DEFAULT_PROVIDER_TYPE`, `_NAME`,
//! `_BASE_URL`, `_API_KEY`, `_MODELS`, as in Neo Chat), each the checked
//! [`ProviderSettings`] under an id. The app sees their id, name, protocol and models;
//! their URL and key never leave the edge, and every call to them goes through the relay.

use hearth_core::api::ServerProvider;

use crate::config::{Config, ConfigError, ProviderSettings};

/// The id of the provider configured by `DEFAULT_PROVIDER_*`.
pub const DEFAULT_ID: &str = "server-default";

/// A configured provider, with its secret (never shown by `Debug`).
#[derive(Clone, Debug)]
pub struct ConfiguredProvider {
    /// Its id.
    pub id: String,
    /// What the operator configured.
    pub settings: ProviderSettings,
}

impl ConfiguredProvider {
    /// What the app may know.
    pub fn public(&self) -> ServerProvider {
        ServerProvider {
            id: self.id.clone(),
            name: self.settings.name.clone(),
            protocol: self.settings.protocol,
            models: self.settings.models.clone(),
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
            settings,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hearth_core::provider::Protocol;

    #[test]
    fn debug_output_never_shows_the_key() {
        let provider = ConfiguredProvider {
            id: DEFAULT_ID.into(),
            settings: ProviderSettings {
                name: "n".into(),
                protocol: Protocol::OpenAiChat,
                compatible: false,
                base_url: "https://x".into(),
                api_key: Some("sk-very-secret".into()),
                models: vec![],
            },
        };
        assert!(!format!("{provider:?}").contains("sk-very-secret"));
    }
}
