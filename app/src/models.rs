//! Fetching a provider's model list. The browser asks the provider directly with the
//! user's key; when the provider blocks browser calls (CORS: `fetch` rejects without an
//! answer), it asks the edge instead, with the key sealed for `provider:<protocol>`, and
//! remembers that this provider needs the relay. An `AUTH_ERROR` from the edge (its key
//! rotated) refetches the edge key and retries once ([`envelope::with_sealed`]).

use hearth_core::api::ModelListRequest;
use hearth_core::provider::models::{ModelInfo, ModelListError, list_url, parse_list};
use hearth_core::provider::request::auth_headers;
use leptos::prelude::window;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::edge::{self, EdgeError};
use crate::envelope::{self, EdgeKeyRefusal, SealError};
use crate::http::{BodyError, read_capped_text};
use crate::i18n::{Key, message};
use crate::providers::record::Provider;

/// The largest model list read from a provider.
const MAX_LIST_BYTES: usize = 4 * 1024 * 1024;

/// How the list was fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// From the browser.
    Direct,
    /// Through the edge relay.
    Relay,
}

/// Why fetching failed. Its `Display` is in the user's language.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelsError {
    /// The provider answered with an error status.
    Provider(u16),
    /// The provider's answer could not be read (no body, a broken connection).
    NoAnswer,
    /// The provider's answer is larger than the list cap.
    TooLarge,
    /// The provider's answer is not a model list.
    NotAList(ModelListError),
    /// The edge failed.
    Edge(EdgeError),
    /// Sealing the key failed.
    Seal(SealError),
    /// The provider's base URL is not one a listing can be asked of.
    InvalidUrl,
    /// The browser refused to make the request (its headers).
    Browser,
}

impl std::fmt::Display for ModelsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match self {
            Self::Provider(status) => {
                message(Key::ErrorModelsStatus, &[("status", &status.to_string())])
            }
            Self::NoAnswer => message(Key::ErrorModelsNoAnswer, &[]),
            Self::TooLarge => message(
                Key::ErrorModelsTooLarge,
                &[("max", &format!("{} MiB", MAX_LIST_BYTES / (1024 * 1024)))],
            ),
            Self::NotAList(error) => {
                message(Key::ErrorModelsNotAList, &[("reason", &error.to_string())])
            }
            // The edge's own words: its message says what the provider answered.
            Self::Edge(EdgeError::Api(error)) => {
                let detail = error
                    .details
                    .as_ref()
                    .and_then(|d| d["message"].as_str())
                    .unwrap_or("");
                format!("{} {}", error.error, detail).trim_end().to_string()
            }
            Self::Edge(EdgeError::Offline) => message(Key::ErrorModelsOffline, &[]),
            Self::Edge(error) => message(Key::ErrorModelsEdge, &[("reason", &error.to_string())]),
            Self::Seal(error) => error.to_string(),
            Self::InvalidUrl => message(Key::ProviderErrorUrl, &[]),
            Self::Browser => message(Key::ErrorModelsBrowser, &[]),
        };
        f.write_str(&text)
    }
}

/// `Ok(None)` when the browser may not call the provider (CORS or network).
async fn direct(
    provider: &Provider,
    key: Option<&str>,
) -> Result<Option<Vec<ModelInfo>>, ModelsError> {
    let endpoint = provider.endpoint();
    let url = list_url(&endpoint).map_err(|_| ModelsError::InvalidUrl)?;
    let headers = web_sys::Headers::new().map_err(|_| ModelsError::Browser)?;
    for (name, value) in key
        .map(|k| auth_headers(endpoint.protocol, k))
        .unwrap_or_default()
    {
        let _ = headers.set(&name, &value);
    }
    let init = web_sys::RequestInit::new();
    init.set_method("GET");
    init.set_headers(&headers);
    init.set_referrer_policy(web_sys::ReferrerPolicy::NoReferrer);
    let Ok(response) = JsFuture::from(window().fetch_with_str_and_init(&url, &init)).await else {
        return Ok(None);
    };
    let response: web_sys::Response = response.dyn_into().map_err(|_| ModelsError::NoAnswer)?;
    if !response.ok() {
        return Err(ModelsError::Provider(response.status()));
    }
    // Bounded like the edge's listing (4 MiB): a provider's answer is outside input.
    let text = read_capped_text(&response, MAX_LIST_BYTES)
        .await
        .map_err(|error| match error {
            BodyError::TooLarge { .. } => ModelsError::TooLarge,
            BodyError::Broken => ModelsError::NoAnswer,
        })?;
    parse_list(endpoint.protocol, &text)
        .map(Some)
        .map_err(ModelsError::NotAList)
}

impl EdgeKeyRefusal for ModelsError {
    fn edge_key_refused(&self) -> bool {
        matches!(self, Self::Edge(error) if error.edge_key_refused())
    }
}

async fn relay(provider: &Provider, key: Option<&str>) -> Result<Vec<ModelInfo>, ModelsError> {
    envelope::with_sealed(async |sealer| {
        let request = ModelListRequest {
            provider: sealer
                .relay_provider(provider, key)
                .await
                .map_err(ModelsError::Seal)?,
        };
        edge::list_models(&request)
            .await
            .map(|response| response.models)
            .map_err(ModelsError::Edge)
    })
    .await
}

/// Fetches the models of `provider` (whose key is `key`), directly unless it is known to
/// need the relay.
pub async fn fetch(
    provider: &Provider,
    key: Option<&str>,
) -> Result<(Vec<ModelInfo>, Route), ModelsError> {
    if !provider.via_relay
        && let Some(models) = direct(provider, key).await?
    {
        return Ok((models, Route::Direct));
    }
    relay(provider, key)
        .await
        .map(|models| (models, Route::Relay))
}
