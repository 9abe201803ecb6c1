//! The one effective-capability resolver for web search (seed 000, "Market And Search
//! Health States"): given what the user set up, what the deployment offers and what the
//! model can do, whether a turn can search and through what, or the one thing missing.
//! The search settings, the composer's switch, a request's preflight and the edge's
//! `/api/health` all ask it, so none of them can disagree with another.
//!
//! The deployment's own search service is offered to the browser only as the
//! capability "Default Search" (its kind, key and URL stay on the edge). Choosing a
//! service of one's own needs that service's key (sealed for the edge), or for SearXNG
//! a valid `http(s)` instance URL.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::SearchProviderKind;
use crate::api::{ServiceHealth, ServiceStatus};
use crate::safe_url::web_host;

/// What the user chose to search with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "provider")]
pub enum SearchChoice {
    /// No web search.
    #[default]
    Off,
    /// The deployment's service ("Default Search").
    Default,
    /// A service of the user's own.
    Provider(SearchProviderKind),
    /// The model provider's own search (OpenAI's web search tool, Gemini's grounding,
    /// Anthropic's web search, xAI's live search), where the model offers it.
    ModelOwn,
}

/// The user's search setup, as the resolver needs it (never a key itself).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchSetup {
    /// The choice.
    pub choice: SearchChoice,
    /// The SearXNG instance's URL.
    pub searxng_url: String,
    /// Google Programmable Search's engine id (`cx`).
    pub google_engine_id: String,
    /// The services whose key the user saved.
    pub saved_keys: BTreeSet<SearchProviderKind>,
}

/// What the deployment and the model offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Offered {
    /// An edge answers `/api/search` (no edge: a static copy of the app).
    pub edge: bool,
    /// The edge has its own search service ready ("Default Search").
    pub default_search: bool,
    /// The edge can open sealed keys (BYOK).
    pub sealed_keys: bool,
    /// The chosen model searches by itself.
    pub model_searches: bool,
}

/// How a turn searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Through the edge, with the deployment's service.
    Default,
    /// Through the edge, with the user's service.
    Provider(SearchProviderKind),
    /// The model provider searches by itself.
    ModelOwn,
}

/// The one thing keeping search from working, each with a stable code the app renders
/// in the user's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// Search is off.
    Off,
    /// No edge: searching needs one.
    NoEdge,
    /// The deployment has no search service of its own.
    NoDefault,
    /// The service's key is not saved.
    Key(SearchProviderKind),
    /// The edge cannot take sealed keys.
    SealedKeys,
    /// No SearXNG URL.
    Url,
    /// The SearXNG URL is not an `http(s)` URL with a host.
    BadUrl,
    /// No Google search engine id.
    EngineId,
    /// The model does not search by itself.
    ModelCannot,
}

impl Missing {
    /// The stable code.
    pub fn code(self) -> &'static str {
        match self {
            Self::Off => "SEARCH_OFF",
            Self::NoEdge => "SEARCH_NO_EDGE",
            Self::NoDefault => "SEARCH_UNCONFIGURED",
            Self::Key(_) => "SEARCH_KEY_MISSING",
            Self::SealedKeys => "SEARCH_BYOK_UNAVAILABLE",
            Self::Url => "SEARCH_URL_MISSING",
            Self::BadUrl => "SEARCH_URL_INVALID",
            Self::EngineId => "SEARCH_ENGINE_ID_MISSING",
            Self::ModelCannot => "SEARCH_MODEL_CANNOT",
        }
    }
}

/// Whether a turn can search, and how.
pub fn resolve(setup: &SearchSetup, offered: Offered) -> Result<Route, Missing> {
    match setup.choice {
        SearchChoice::Off => Err(Missing::Off),
        SearchChoice::ModelOwn if offered.model_searches => Ok(Route::ModelOwn),
        SearchChoice::ModelOwn => Err(Missing::ModelCannot),
        SearchChoice::Default if !offered.edge => Err(Missing::NoEdge),
        SearchChoice::Default if offered.default_search => Ok(Route::Default),
        SearchChoice::Default => Err(Missing::NoDefault),
        SearchChoice::Provider(_) if !offered.edge => Err(Missing::NoEdge),
        SearchChoice::Provider(kind) => {
            let key = setup.saved_keys.contains(&kind);
            service_ready(kind, key, &setup.searxng_url, &setup.google_engine_id)?;
            if kind.needs_key() && !offered.sealed_keys {
                return Err(Missing::SealedKeys);
            }
            Ok(Route::Provider(kind))
        }
    }
}

/// Whether `kind` has what it needs: a key, a valid instance URL, an engine id.
pub fn service_ready(
    kind: SearchProviderKind,
    has_key: bool,
    searxng_url: &str,
    google_engine_id: &str,
) -> Result<(), Missing> {
    match kind {
        SearchProviderKind::Searxng if searxng_url.trim().is_empty() => Err(Missing::Url),
        SearchProviderKind::Searxng if web_host(searxng_url.trim()).is_none() => {
            Err(Missing::BadUrl)
        }
        SearchProviderKind::Searxng => Ok(()),
        _ if !has_key => Err(Missing::Key(kind)),
        SearchProviderKind::Google if google_engine_id.trim().is_empty() => Err(Missing::EngineId),
        _ => Ok(()),
    }
}

/// The deployment's own search service as the operator configured it (the edge's
/// view: the key itself stays with the edge).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeploymentSearch {
    /// The service, if one is configured.
    pub kind: Option<SearchProviderKind>,
    /// Whether its key is set.
    pub has_key: bool,
    /// The SearXNG instance, for `searxng`.
    pub searxng_url: String,
    /// Google's engine id, for `google`.
    pub google_engine_id: String,
}

impl DeploymentSearch {
    /// Whether "Default Search" is offered.
    pub fn ready(&self) -> bool {
        self.check().is_ok()
    }

    fn check(&self) -> Result<SearchProviderKind, Missing> {
        let kind = self.kind.ok_or(Missing::NoDefault)?;
        service_ready(
            kind,
            self.has_key,
            &self.searxng_url,
            &self.google_engine_id,
        )?;
        Ok(kind)
    }

    /// `/api/health`'s `search` service.
    pub fn health(&self) -> ServiceHealth {
        let (status, code) = match self.check() {
            Ok(_) => (ServiceStatus::Available, "SEARCH_DEFAULT_READY"),
            Err(Missing::NoDefault) => (ServiceStatus::Unconfigured, Missing::NoDefault.code()),
            Err(missing @ Missing::Key(_)) => (ServiceStatus::MissingKey, missing.code()),
            Err(missing) => (ServiceStatus::Unconfigured, missing.code()),
        };
        ServiceHealth {
            status,
            code: code.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERYTHING: Offered = Offered {
        edge: true,
        default_search: true,
        sealed_keys: true,
        model_searches: true,
    };

    fn setup(choice: SearchChoice) -> SearchSetup {
        SearchSetup {
            choice,
            ..SearchSetup::default()
        }
    }

    #[test]
    fn off_is_off_whatever_is_offered() {
        assert_eq!(
            resolve(&setup(SearchChoice::Off), EVERYTHING),
            Err(Missing::Off)
        );
    }

    #[test]
    fn default_search_needs_an_edge_that_has_it() {
        let default = setup(SearchChoice::Default);
        assert_eq!(resolve(&default, EVERYTHING), Ok(Route::Default));
        let no_default = Offered {
            default_search: false,
            ..EVERYTHING
        };
        assert_eq!(resolve(&default, no_default), Err(Missing::NoDefault));
        assert_eq!(resolve(&default, Offered::default()), Err(Missing::NoEdge));
    }

    #[test]
    fn a_keyed_service_needs_its_saved_key_and_sealing() {
        let mut brave = setup(SearchChoice::Provider(SearchProviderKind::Brave));
        assert_eq!(
            resolve(&brave, EVERYTHING),
            Err(Missing::Key(SearchProviderKind::Brave))
        );
        brave.saved_keys.insert(SearchProviderKind::Tavily);
        assert_eq!(
            resolve(&brave, EVERYTHING),
            Err(Missing::Key(SearchProviderKind::Brave)),
            "another service's key is not this one's"
        );
        brave.saved_keys.insert(SearchProviderKind::Brave);
        assert_eq!(
            resolve(&brave, EVERYTHING),
            Ok(Route::Provider(SearchProviderKind::Brave))
        );
        let no_sealing = Offered {
            sealed_keys: false,
            ..EVERYTHING
        };
        assert_eq!(resolve(&brave, no_sealing), Err(Missing::SealedKeys));
        let no_edge = Offered {
            edge: false,
            ..EVERYTHING
        };
        assert_eq!(resolve(&brave, no_edge), Err(Missing::NoEdge));
    }

    #[test]
    fn searxng_needs_a_web_url_and_no_key() {
        let mut searx = setup(SearchChoice::Provider(SearchProviderKind::Searxng));
        assert_eq!(resolve(&searx, EVERYTHING), Err(Missing::Url));
        for bad in ["searx.local", "javascript:alert(1)", "ftp://searx.example"] {
            searx.searxng_url = bad.into();
            assert_eq!(resolve(&searx, EVERYTHING), Err(Missing::BadUrl), "{bad}");
        }
        searx.searxng_url = " http://192.168.1.5:8888 ".into();
        let no_sealing = Offered {
            sealed_keys: false,
            ..EVERYTHING
        };
        assert_eq!(
            resolve(&searx, no_sealing),
            Ok(Route::Provider(SearchProviderKind::Searxng))
        );
    }

    #[test]
    fn google_needs_an_engine_id_besides_its_key() {
        let mut google = setup(SearchChoice::Provider(SearchProviderKind::Google));
        google.saved_keys.insert(SearchProviderKind::Google);
        assert_eq!(resolve(&google, EVERYTHING), Err(Missing::EngineId));
        google.google_engine_id = "0123:abc".into();
        assert_eq!(
            resolve(&google, EVERYTHING),
            Ok(Route::Provider(SearchProviderKind::Google))
        );
    }

    #[test]
    fn the_models_own_search_needs_a_model_that_has_one() {
        let own = setup(SearchChoice::ModelOwn);
        assert_eq!(resolve(&own, EVERYTHING), Ok(Route::ModelOwn));
        assert_eq!(
            resolve(
                &own,
                Offered {
                    model_searches: false,
                    ..EVERYTHING
                }
            ),
            Err(Missing::ModelCannot)
        );
    }

    #[test]
    fn the_deployments_health_is_the_same_resolution() {
        let unset = DeploymentSearch::default();
        assert!(!unset.ready());
        assert_eq!(unset.health().status, ServiceStatus::Unconfigured);
        assert_eq!(unset.health().code, "SEARCH_UNCONFIGURED");

        let keyless = DeploymentSearch {
            kind: Some(SearchProviderKind::Tavily),
            ..DeploymentSearch::default()
        };
        assert_eq!(keyless.health().status, ServiceStatus::MissingKey);
        assert_eq!(keyless.health().code, "SEARCH_KEY_MISSING");

        let google = DeploymentSearch {
            kind: Some(SearchProviderKind::Google),
            has_key: true,
            ..DeploymentSearch::default()
        };
        assert_eq!(google.health().code, "SEARCH_ENGINE_ID_MISSING");

        let searx = DeploymentSearch {
            kind: Some(SearchProviderKind::Searxng),
            searxng_url: "http://127.0.0.1:8888".into(),
            ..DeploymentSearch::default()
        };
        assert!(searx.ready());
        assert_eq!(searx.health().status, ServiceStatus::Available);
    }

    #[test]
    fn every_missing_piece_has_a_stable_code() {
        let all = [
            Missing::Off,
            Missing::NoEdge,
            Missing::NoDefault,
            Missing::Key(SearchProviderKind::Exa),
            Missing::SealedKeys,
            Missing::Url,
            Missing::BadUrl,
            Missing::EngineId,
            Missing::ModelCannot,
        ];
        let codes: BTreeSet<_> = all.iter().map(|m| m.code()).collect();
        assert_eq!(codes.len(), all.len());
        assert!(codes.iter().all(|c| c.starts_with("SEARCH_")));
    }
}
