//! The operator's web search settings: the deployment's own service ("Default Search",
//! offered to browsers only as that capability) and where each hosted service's API
//! answers (the defaults are the services' own; a test or a proxy may point elsewhere).

use clap::Args;
use hearth_core::web_search::SearchProviderKind;
use hearth_core::web_search::capability::DeploymentSearch;
use hearth_core::web_search::provider::default_base;

use crate::operator_url::check_operator_base_url;

/// `HEARTH_SEARCH_*` and the services' API bases.
#[derive(Clone, Args)]
pub struct WebSearchSettings {
    /// The deployment's own search service, offered to every user as "Default Search":
    /// searxng, brave, tavily, exa or google. Unset: none.
    #[arg(long = "search-provider", env = "HEARTH_SEARCH_PROVIDER")]
    pub provider: Option<String>,

    /// That service's API key (Brave, Tavily, Exa, Google). Never sent to browsers,
    /// never logged.
    #[arg(
        long = "search-api-key",
        env = "HEARTH_SEARCH_API_KEY",
        hide_env_values = true
    )]
    pub api_key: Option<String>,

    /// The SearXNG instance of the deployment's service (its JSON output enabled).
    #[arg(long = "searxng-url", env = "HEARTH_SEARXNG_URL")]
    pub searxng_url: Option<String>,

    /// The Google Programmable Search engine id (`cx`) of the deployment's service.
    #[arg(
        long = "google-search-engine-id",
        env = "HEARTH_GOOGLE_SEARCH_ENGINE_ID"
    )]
    pub google_engine_id: Option<String>,

    /// Brave Search's API base.
    #[arg(long = "brave-search-base-url", env = "HEARTH_BRAVE_SEARCH_BASE_URL")]
    pub brave_base_url: Option<String>,

    /// Tavily's API base.
    #[arg(long = "tavily-base-url", env = "HEARTH_TAVILY_BASE_URL")]
    pub tavily_base_url: Option<String>,

    /// Exa's API base.
    #[arg(long = "exa-base-url", env = "HEARTH_EXA_BASE_URL")]
    pub exa_base_url: Option<String>,

    /// Google Programmable Search's API base.
    #[arg(long = "google-search-base-url", env = "HEARTH_GOOGLE_SEARCH_BASE_URL")]
    pub google_base_url: Option<String>,
}

impl std::fmt::Debug for WebSearchSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebSearchSettings")
            .field("provider", &self.provider)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("searxng_url", &self.searxng_url)
            .field("google_engine_id", &self.google_engine_id)
            .finish_non_exhaustive()
    }
}

fn set(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

impl WebSearchSettings {
    /// The deployment's service kind, checked.
    pub fn kind(&self) -> Result<Option<SearchProviderKind>, String> {
        set(&self.provider)
            .map(|name| name.parse::<SearchProviderKind>())
            .transpose()
    }

    /// The operator's key, if set.
    pub fn key(&self) -> Option<&str> {
        set(&self.api_key)
    }

    /// What the resolver needs to know of the deployment's service.
    pub fn deployment(&self) -> DeploymentSearch {
        DeploymentSearch {
            kind: self.kind().ok().flatten(),
            has_key: self.key().is_some(),
            searxng_url: set(&self.searxng_url).unwrap_or_default().to_string(),
            google_engine_id: set(&self.google_engine_id).unwrap_or_default().to_string(),
        }
    }

    /// Where `kind`'s API answers (for SearXNG: the operator's instance, if any).
    pub fn base(&self, kind: SearchProviderKind) -> Option<String> {
        let configured = match kind {
            SearchProviderKind::Searxng => &self.searxng_url,
            SearchProviderKind::Brave => &self.brave_base_url,
            SearchProviderKind::Tavily => &self.tavily_base_url,
            SearchProviderKind::Exa => &self.exa_base_url,
            SearchProviderKind::Google => &self.google_base_url,
        };
        set(configured)
            .map(str::to_string)
            .or_else(|| default_base(kind).map(str::to_string))
    }

    /// Checks the settings: a known service, and every base an http(s) URL the
    /// operator's URL policy allows.
    pub fn check(&self) -> Result<(), String> {
        self.kind()?;
        for kind in SearchProviderKind::ALL {
            if let Some(base) = self.base(kind) {
                check_operator_base_url(&base)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> WebSearchSettings {
        WebSearchSettings {
            provider: None,
            api_key: None,
            searxng_url: None,
            google_engine_id: None,
            brave_base_url: None,
            tavily_base_url: None,
            exa_base_url: None,
            google_base_url: None,
        }
    }

    #[test]
    fn unset_means_no_default_and_the_services_own_bases() {
        let unset = settings();
        assert_eq!(unset.kind(), Ok(None));
        assert!(!unset.deployment().ready());
        assert_eq!(
            unset.base(SearchProviderKind::Brave).as_deref(),
            Some("https://api.search.brave.com")
        );
        assert_eq!(unset.base(SearchProviderKind::Searxng), None);
        assert!(unset.check().is_ok());
    }

    #[test]
    fn a_configured_default_is_ready_once_complete() {
        let mut tavily = settings();
        tavily.provider = Some(" Tavily ".into());
        assert!(!tavily.deployment().ready());
        tavily.api_key = Some("tvly-1".into());
        assert!(tavily.deployment().ready());
        assert!(!format!("{tavily:?}").contains("tvly-1"));
    }

    #[test]
    fn bad_settings_are_refused_with_what_is_wrong() {
        let mut unknown = settings();
        unknown.provider = Some("bing".into());
        assert!(unknown.check().unwrap_err().contains("bing"));
        let mut bad_base = settings();
        bad_base.exa_base_url = Some("ftp://exa.example".into());
        assert!(bad_base.check().unwrap_err().contains("ftp://exa.example"));
        let mut metadata = settings();
        metadata.searxng_url = Some("http://169.254.169.254/".into());
        assert!(metadata.check().is_err());
    }
}
