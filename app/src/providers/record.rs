//! A provider as the browser stores it: the user's own, or one the operator configured on
//! the edge (known from `/api/config`, relayed by id, never stored). Below the envelope
//! and the model lists, which read it; the store of the list is the parent module's.

use hearth_core::provider::kind::ProviderKind;
use hearth_core::provider::request::Endpoint;
use serde::{Deserialize, Serialize};

/// A saved provider (its key lives in the vault).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Provider {
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Its kind.
    pub kind: ProviderKind,
    /// Its base URL.
    pub base_url: String,
    /// Whether it is offered in the model picker.
    pub enabled: bool,
    /// Whether a key is saved for it.
    pub has_key: bool,
    /// Whether it blocks browser calls, so calls go through the edge relay.
    #[serde(default)]
    pub via_relay: bool,
    /// Set for a provider the operator configured on the edge (`DEFAULT_PROVIDER_*`): its
    /// URL and key stay there, every call goes through the relay, and it is never stored
    /// or exported by the browser.
    #[serde(skip)]
    pub server: Option<ServerSide>,
}

/// What the browser knows of a server-configured provider.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerSide {
    /// The edge's id for it (`RelayProvider::server_provider_id`).
    pub id: String,
    /// The models the operator listed (empty: fetch them through the edge).
    pub models: Vec<String>,
}

impl Provider {
    /// The provider the edge describes in `/api/config`.
    pub fn from_server(configured: hearth_core::api::ServerProvider) -> Self {
        let kind = ProviderKind::for_protocol(configured.protocol);
        Self {
            id: format!("server:{}", configured.id),
            name: configured.name,
            kind,
            base_url: String::new(),
            enabled: true,
            has_key: false,
            via_relay: true,
            server: Some(ServerSide {
                id: configured.id,
                models: configured.models,
            }),
        }
    }

    /// Where and how to call it.
    pub fn endpoint(&self) -> Endpoint {
        self.kind.endpoint(&self.base_url)
    }
}

/// The providers the browser stores: the user's own, not the edge's.
pub(super) fn stored(list: &[Provider]) -> Vec<&Provider> {
    list.iter().filter(|p| p.server.is_none()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_providers_are_relayed_by_id_and_never_stored() {
        let server = Provider::from_server(hearth_core::api::ServerProvider {
            id: "team".into(),
            name: "Team models".into(),
            protocol: hearth_core::provider::Protocol::OpenAiChat,
            models: vec!["small".into()],
        });
        assert_eq!(server.id, "server:team");
        assert!(server.via_relay && server.enabled && !server.has_key);
        assert!(server.base_url.is_empty());
        let own = Provider {
            id: "mine".into(),
            server: None,
            ..server.clone()
        };
        let list = vec![own.clone(), server.clone()];
        assert_eq!(stored(&list), [&own]);
        // Serialised on its own, the edge's part (its models, its edge id) stays out.
        let json = serde_json::to_string(&server).unwrap();
        assert!(
            !json.contains("\"server\"") && !json.contains("small"),
            "{json}"
        );
    }
}
