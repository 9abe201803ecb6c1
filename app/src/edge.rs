//! Calls from the app to its own edge server (same origin). Each returns a typed result;
//! an edge that is down is an ordinary, displayable error, because the app works without
//! it for everything that does not need it.

use hearth_core::api::{ApiError, PublicConfig};
use leptos::prelude::window;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Why a call to the edge failed.
#[derive(Clone, Debug, PartialEq)]
pub enum EdgeError {
    /// No response at all (offline, server stopped).
    Unreachable,
    /// The edge answered with its error shape.
    Api(ApiError),
    /// The edge answered something that is not what this app version expects.
    Unexpected(u16),
}

impl std::fmt::Display for EdgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unreachable => f.write_str("no response"),
            Self::Api(error) => write!(f, "{} {:?}", error.status_code, error.code),
            Self::Unexpected(status) => write!(f, "HTTP {status}"),
        }
    }
}

async fn get_json<T: DeserializeOwned>(path: &str) -> Result<T, EdgeError> {
    let response = JsFuture::from(window().fetch_with_str(path))
        .await
        .map_err(|_| EdgeError::Unreachable)?
        .dyn_into::<web_sys::Response>()
        .map_err(|_| EdgeError::Unreachable)?;
    let status = response.status();
    let text = JsFuture::from(response.text().map_err(|_| EdgeError::Unexpected(status))?)
        .await
        .ok()
        .and_then(|value| value.as_string())
        .ok_or(EdgeError::Unexpected(status))?;
    if response.ok() {
        serde_json::from_str(&text).map_err(|_| EdgeError::Unexpected(status))
    } else {
        match serde_json::from_str::<ApiError>(&text) {
            Ok(error) => Err(EdgeError::Api(error)),
            Err(_) => Err(EdgeError::Unexpected(status)),
        }
    }
}

/// `GET /api/config`.
pub async fn fetch_config() -> Result<PublicConfig, EdgeError> {
    get_json("/api/config").await
}
