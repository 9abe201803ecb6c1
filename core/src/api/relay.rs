//! `POST /api/chat/relay`: one streamed model round through the edge, for providers whose
//! CORS blocks the browser. The edge builds the provider request itself from the neutral
//! [`ChatRequest`] (the same builder the browser uses), so it only ever speaks the four
//! protocols, and the key arrives as a BYOK envelope for `provider:<protocol>`.

use serde::{Deserialize, Serialize};

use crate::byok::Envelope;
use crate::provider::Protocol;
use crate::provider::request::{ChatRequest, ModelCapabilities};

/// Which provider to call: a user's (protocol, URL and sealed key), or one the operator
/// configured on the edge (`serverProviderId`; its URL and key never leave the edge).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelayProvider {
    /// A server-configured provider's id; when set, the other fields are not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_provider_id: Option<String>,
    /// Its protocol.
    pub protocol: Protocol,
    /// Its base URL (checked against the edge's URL policy).
    #[serde(default)]
    pub base_url: String,
    /// Whether it is an OpenAI-compatible server rather than OpenAI itself.
    #[serde(default)]
    pub compatible: bool,
    /// The user's key, sealed for `provider:<protocol>`; absent for keyless local servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<Envelope>,
}

/// The body of `POST /api/chat/relay`. Unknown fields are refused, and every field is
/// bounded ([`RelayRequest::check_bounds`] in `relay_bounds`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RelayRequest {
    /// The provider.
    pub provider: RelayProvider,
    /// The round to stream.
    pub request: ChatRequest,
    /// What the model can do (decides images, tools and effort).
    #[serde(default)]
    pub capabilities: ModelCapabilities,
}

/// The body of `POST /api/providers/models`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelListRequest {
    /// The provider to list.
    pub provider: RelayProvider,
}

/// The answer of `POST /api/providers/models`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelListResponse {
    /// The models, sorted by id.
    pub models: Vec<crate::provider::models::ModelInfo>,
}

/// A provider the operator configured on the edge, as the app sees it: no URL, no key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerProvider {
    /// Its id, for `RelayProvider::server_provider_id`.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Its protocol.
    pub protocol: Protocol,
    /// The models the operator listed (empty: ask `POST /api/providers/models`).
    pub models: Vec<String>,
}
