//! `POST /api/chat/relay`: one streamed model round through the edge, for providers whose
//! CORS blocks the browser. The edge builds the provider request itself from the neutral
//! [`ChatRequest`] (the same builder the browser uses), so it only ever speaks the four
//! protocols, and the key arrives as a BYOK envelope for `provider:<protocol>`.

use serde::{Deserialize, Serialize};

use crate::byok::Envelope;
use crate::provider::Protocol;
use crate::provider::request::{ChatRequest, ModelCapabilities};

/// Which provider to call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelayProvider {
    /// Its protocol.
    pub protocol: Protocol,
    /// Its base URL (checked against the edge's URL policy).
    pub base_url: String,
    /// Whether it is an OpenAI-compatible server rather than OpenAI itself.
    #[serde(default)]
    pub compatible: bool,
    /// The user's key, sealed for `provider:<protocol>`; absent for keyless local servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<Envelope>,
}

/// The body of `POST /api/chat/relay`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelayRequest {
    /// The provider.
    pub provider: RelayProvider,
    /// The round to stream.
    pub request: ChatRequest,
    /// What the model can do (decides images, tools and effort).
    #[serde(default)]
    pub capabilities: ModelCapabilities,
}
