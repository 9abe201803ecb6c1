//! Fetching a provider's model list. The browser asks the provider directly with the
//! user's key; when the provider blocks browser calls (CORS: `fetch` rejects without an
//! answer), it asks the edge instead, with the key sealed for `provider:<protocol>`, and
//! remembers that this provider needs the relay. An `AUTH_ERROR` from the edge (its key
//! rotated) refetches the edge key and retries once.

use hearth_core::api::{ErrorCode, ModelListRequest};
use hearth_core::provider::models::{ModelInfo, list_url, parse_list};
use hearth_core::provider::request::auth_headers;
use leptos::prelude::window;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::edge::{self, EdgeError};
use crate::envelope;
use crate::providers::Provider;

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

/// Why fetching failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelsError {
    /// The provider answered with an error status.
    Provider(u16),
    /// The provider's answer was not a model list.
    Unreadable(String),
    /// The edge failed.
    Edge(EdgeError),
    /// Sealing the key failed.
    Seal(String),
    /// The provider's settings are invalid.
    Invalid(String),
}

impl std::fmt::Display for ModelsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Provider(status) => write!(f, "the provider answered HTTP {status}"),
            Self::Unreadable(why) => write!(f, "the provider's answer is unreadable ({why})"),
            Self::Edge(EdgeError::Api(error)) => {
                let detail = error
                    .details
                    .as_ref()
                    .and_then(|d| d["message"].as_str())
                    .unwrap_or("");
                write!(f, "{} {}", error.error, detail)
            }
            Self::Edge(error) => write!(f, "the edge failed ({error})"),
            Self::Seal(why) | Self::Invalid(why) => f.write_str(why),
        }
    }
}

/// `Ok(None)` when the browser may not call the provider (CORS or network).
async fn direct(
    provider: &Provider,
    key: Option<&str>,
) -> Result<Option<Vec<ModelInfo>>, ModelsError> {
    let endpoint = provider.endpoint();
    let url = list_url(&endpoint).map_err(|e| ModelsError::Invalid(e.to_string()))?;
    let headers = web_sys::Headers::new().map_err(|_| ModelsError::Invalid("headers".into()))?;
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
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| ModelsError::Unreadable("no response".into()))?;
    if !response.ok() {
        return Err(ModelsError::Provider(response.status()));
    }
    let text = JsFuture::from(
        response
            .text()
            .map_err(|_| ModelsError::Unreadable("no body".into()))?,
    )
    .await
    .ok()
    .and_then(|v| v.as_string())
    .unwrap_or_default();
    // Bounded like the edge's listing (4 MiB): a provider's answer is outside input.
    if text.len() > MAX_LIST_BYTES {
        return Err(ModelsError::Unreadable(format!(
            "larger than {MAX_LIST_BYTES} bytes"
        )));
    }
    parse_list(endpoint.protocol, &text)
        .map(Some)
        .map_err(|e| ModelsError::Unreadable(e.to_string()))
}

async fn relay(provider: &Provider, key: Option<&str>) -> Result<Vec<ModelInfo>, ModelsError> {
    let mut retried = false;
    loop {
        let request = ModelListRequest {
            provider: envelope::relay_provider(provider, key)
                .await
                .map_err(|e| ModelsError::Seal(e.to_string()))?,
        };
        match edge::list_models(&request).await {
            Ok(response) => return Ok(response.models),
            Err(EdgeError::Api(error)) if error.code == ErrorCode::AuthError && !retried => {
                envelope::forget_edge_key();
                retried = true;
            }
            Err(error) => return Err(ModelsError::Edge(error)),
        }
    }
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
