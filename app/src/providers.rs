//! The user's model providers: their settings in IndexedDB (`settings/providers`), their
//! keys sealed in the vault under `local:provider:<id>:api-key`. This module owns the
//! provider list, its validation and its persistence; the settings tab draws it.

pub use hearth_core::provider::kind::{Field, ProviderKind};
use hearth_core::provider::kind::{Problem, ProviderDraft};
use hearth_core::provider::request::Endpoint;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::i18n::Key;
use crate::storage::{Db, SETTINGS, StorageError};
use crate::vault::{Vault, VaultError, provider_key_context};

/// The settings document holding the list.
const DOCUMENT: &str = "providers";
/// The most providers kept (an import stops adding at this many).
const MAX_PROVIDERS: usize = 100;

/// The label's translation key of a provider kind (the kind itself is core's).
pub trait KindLabel {
    /// The label's translation key.
    fn label(self) -> Key;
}

impl KindLabel for ProviderKind {
    fn label(self) -> Key {
        match self {
            Self::Openai => Key::ProviderKindOpenai,
            Self::OpenaiResponses => Key::ProviderKindOpenaiResponses,
            Self::Anthropic => Key::ProviderKindAnthropic,
            Self::Gemini => Key::ProviderKindGemini,
            Self::Compatible => Key::ProviderKindCompatible,
        }
    }
}

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
fn stored(list: &[Provider]) -> Vec<&Provider> {
    list.iter().filter(|p| p.server.is_none()).collect()
}

/// A form's content.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Draft {
    /// The provider being edited, or `None` for a new one.
    pub id: Option<String>,
    /// Kind slug.
    pub kind: String,
    /// Name.
    pub name: String,
    /// Base URL.
    pub base_url: String,
    /// A new key (empty keeps the saved one when editing).
    pub api_key: String,
}

/// The message key of a problem with a form (the rules are core's
/// [`hearth_core::provider::kind::validate`]).
fn problem_key(problem: Problem) -> Key {
    match problem {
        Problem::NameMissing => Key::ProviderErrorName,
        Problem::NameTooLong => Key::ProviderErrorNameLong,
        Problem::BaseUrlInvalid => Key::ProviderErrorUrl,
        Problem::KeyMissing => Key::ProviderErrorKey,
    }
}

/// The problems with `draft`, each under its field with its message key.
pub fn validate(draft: &Draft, existing: Option<&Provider>) -> Vec<(Field, Key)> {
    let kind = ProviderKind::from_slug(&draft.kind).unwrap_or(ProviderKind::Openai);
    hearth_core::provider::kind::validate(&ProviderDraft {
        kind,
        name: &draft.name,
        base_url: &draft.base_url,
        api_key: &draft.api_key,
        has_saved_key: existing.is_some_and(|p| p.has_key),
    })
    .into_iter()
    .map(|problem| (problem.field(), problem_key(problem)))
    .collect()
}

/// Where the provider list is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadState {
    /// Opening the database and the vault.
    Loading,
    /// Ready.
    Ready,
    /// Storage or vault failed; the message is shown.
    Failed(String),
}

/// The providers, provided as context.
#[derive(Clone, Copy)]
pub struct Providers {
    /// The list.
    pub list: RwSignal<Vec<Provider>>,
    /// Loading state.
    pub state: RwSignal<LoadState>,
    /// Bumped whenever a provider's saved model list changes.
    pub models_version: RwSignal<u64>,
    handles: StoredValue<Option<(Db, Vault)>, LocalStorage>,
}

fn new_id() -> String {
    let mut bytes = [0u8; 8];
    if let Ok(crypto) = leptos::prelude::window().crypto() {
        let _ = crypto.get_random_values_with_u8_array(&mut bytes);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Providers {
    /// Starts loading from IndexedDB.
    pub fn load() -> Self {
        let providers = Self {
            list: RwSignal::new(Vec::new()),
            state: RwSignal::new(LoadState::Loading),
            models_version: RwSignal::new(0),
            handles: StoredValue::new_local(None),
        };
        leptos::task::spawn_local(async move {
            let opened = async {
                let db = Db::open().await.map_err(|e| e.to_string())?;
                let vault = Vault::open(db.clone()).await.map_err(|e| e.to_string())?;
                let list = db
                    .get_json::<Vec<Provider>>(SETTINGS, DOCUMENT)
                    .await
                    .map_err(|e| e.to_string())?
                    .unwrap_or_default();
                Ok::<_, String>((db, vault, list))
            }
            .await;
            match opened {
                Ok((db, vault, list)) => {
                    providers.handles.set_value(Some((db, vault)));
                    providers.list.set(list);
                    providers.state.set(LoadState::Ready);
                    // The operator's providers, after the user's (an unreachable edge
                    // simply offers none).
                    if let Ok(config) = crate::edge::fetch_config().await {
                        let server: Vec<Provider> = config
                            .server_providers
                            .into_iter()
                            .map(Provider::from_server)
                            .collect();
                        if !server.is_empty() {
                            providers.list.update(|list| {
                                list.retain(|p| p.server.is_none());
                                list.extend(server);
                            });
                        }
                    }
                }
                Err(message) => providers.state.set(LoadState::Failed(message)),
            }
        });
        providers
    }

    fn handles(&self) -> Result<(Db, Vault), String> {
        self.handles
            .get_value()
            .ok_or_else(|| StorageError::Unavailable("not open".into()).to_string())
    }

    /// Saves `draft` (already validated): the key first, then the list, so a list never
    /// claims a key that was not stored.
    pub async fn save(&self, draft: Draft) -> Result<(), String> {
        let (db, vault) = self.handles()?;
        let kind = ProviderKind::from_slug(&draft.kind).unwrap_or(ProviderKind::Openai);
        let id = draft.id.clone().unwrap_or_else(new_id);
        let mut list = self.list.get_untracked();
        let previous = list.iter().find(|p| p.id == id).cloned();
        let key = draft.api_key.trim();
        if !key.is_empty() {
            vault
                .store(&provider_key_context(&id), key)
                .await
                .map_err(|e| e.to_string())?;
        }
        let provider = Provider {
            id: id.clone(),
            name: draft.name.trim().to_string(),
            kind,
            base_url: draft.base_url.trim().trim_end_matches('/').to_string(),
            enabled: previous.as_ref().is_none_or(|p| p.enabled),
            has_key: !key.is_empty() || previous.as_ref().is_some_and(|p| p.has_key),
            via_relay: previous.is_some_and(|p| p.via_relay),
            server: None,
        };
        match list.iter_mut().find(|p| p.id == id) {
            Some(slot) => *slot = provider,
            None => list.push(provider),
        }
        db.put_json(SETTINGS, DOCUMENT, &stored(&list))
            .await
            .map_err(|e| e.to_string())?;
        self.list.set(list);
        Ok(())
    }

    /// Turns a provider on or off.
    pub async fn set_enabled(&self, id: &str, enabled: bool) -> Result<(), String> {
        let (db, _) = self.handles()?;
        let mut list = self.list.get_untracked();
        if let Some(provider) = list.iter_mut().find(|p| p.id == id) {
            provider.enabled = enabled;
        }
        db.put_json(SETTINGS, DOCUMENT, &stored(&list))
            .await
            .map_err(|e| e.to_string())?;
        self.list.set(list);
        Ok(())
    }

    /// Removes a provider and its key.
    pub async fn remove(&self, id: &str) -> Result<(), String> {
        let (db, vault) = self.handles()?;
        let list: Vec<Provider> = self
            .list
            .get_untracked()
            .into_iter()
            .filter(|p| p.id != id)
            .collect();
        db.put_json(SETTINGS, DOCUMENT, &stored(&list))
            .await
            .map_err(|e| e.to_string())?;
        vault
            .remove(&provider_key_context(id))
            .await
            .map_err(|e| e.to_string())?;
        self.list.set(list);
        Ok(())
    }

    /// Fetches a provider's models (directly, or through the relay when the provider
    /// blocks browser calls), remembering the route, and saves the list.
    pub async fn refresh_models(
        &self,
        id: &str,
    ) -> Result<
        (
            Vec<hearth_core::provider::models::ModelInfo>,
            crate::models::Route,
        ),
        String,
    > {
        let (db, vault) = self.handles()?;
        let provider = self
            .list
            .get_untracked()
            .into_iter()
            .find(|p| p.id == id)
            .ok_or_else(|| "unknown provider".to_string())?;
        let key = vault
            .load(&provider_key_context(id))
            .await
            .map_err(|e| e.to_string())?;
        let (models, route) = crate::models::fetch(&provider, key.as_deref())
            .await
            .map_err(|e| e.to_string())?;
        db.put_json(SETTINGS, &format!("models:{id}"), &models)
            .await
            .map_err(|e| e.to_string())?;
        self.models_version.update(|v| *v += 1);
        if route == crate::models::Route::Relay && !provider.via_relay {
            let mut list = self.list.get_untracked();
            if let Some(slot) = list.iter_mut().find(|p| p.id == id) {
                slot.via_relay = true;
            }
            db.put_json(SETTINGS, DOCUMENT, &stored(&list))
                .await
                .map_err(|e| e.to_string())?;
            self.list.set(list);
        }
        Ok((models, route))
    }

    /// The user's own providers (not the edge's), as stored and exported.
    pub fn user_providers(&self) -> Vec<Provider> {
        self.list
            .with_untracked(|list| stored(list).into_iter().cloned().collect())
    }

    /// Adds the providers of an import that are not here yet (matched by id), without
    /// keys: keys never travel in an export. Returns how many were added.
    pub async fn import(&self, incoming: Vec<Provider>) -> Result<usize, String> {
        let (db, _) = self.handles()?;
        let mut list = self.list.get_untracked();
        let before = list.len();
        for mut provider in incoming {
            // An archive is outside input: at most MAX_PROVIDERS, whatever it holds.
            if list.len() >= MAX_PROVIDERS {
                break;
            }
            let web = ["http://", "https://"]
                .iter()
                .any(|scheme| provider.base_url.to_ascii_lowercase().starts_with(scheme));
            if web && !provider.id.is_empty() && list.iter().all(|p| p.id != provider.id) {
                provider.has_key = false;
                list.push(provider);
            }
        }
        let added = list.len() - before;
        if added > 0 {
            db.put_json(SETTINGS, DOCUMENT, &stored(&list))
                .await
                .map_err(|e| e.to_string())?;
            self.list.set(list);
        }
        Ok(added)
    }

    /// A provider's key, for one request.
    pub async fn api_key(&self, id: &str) -> Result<Option<String>, String> {
        let (_, vault) = self.handles()?;
        vault
            .load(&provider_key_context(id))
            .await
            .map_err(|e| e.to_string())
    }

    /// Remembers that a provider blocks browser calls, so chat goes through the relay.
    pub async fn mark_via_relay(&self, id: &str) -> Result<(), String> {
        let (db, _) = self.handles()?;
        let mut list = self.list.get_untracked();
        match list.iter_mut().find(|p| p.id == id) {
            Some(slot) if !slot.via_relay => slot.via_relay = true,
            _ => return Ok(()),
        }
        db.put_json(SETTINGS, DOCUMENT, &stored(&list))
            .await
            .map_err(|e| e.to_string())?;
        self.list.set(list);
        Ok(())
    }

    /// The masked key of a provider, read through the vault.
    pub async fn masked_key(&self, id: &str) -> Result<Option<String>, String> {
        let (_, vault) = self.handles()?;
        match vault.load(&provider_key_context(id)).await {
            Ok(key) => Ok(key.map(|k| crate::vault::mask(&k))),
            Err(VaultError::Unreadable) => Err(VaultError::Unreadable.to_string()),
            Err(error) => Err(error.to_string()),
        }
    }
}

/// The app's providers.
pub fn use_providers() -> Providers {
    expect_context::<Providers>()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(kind: &str, name: &str, url: &str, key: &str) -> Draft {
        Draft {
            id: None,
            kind: kind.into(),
            name: name.into(),
            base_url: url.into(),
            api_key: key.into(),
        }
    }

    #[test]
    fn validation_names_each_problem() {
        assert!(
            validate(
                &draft("openai", "Work", "https://api.openai.com/v1", "sk-1"),
                None
            )
            .is_empty()
        );
        assert!(
            validate(
                &draft("compatible", "Ollama", "http://127.0.0.1:11434/v1", ""),
                None
            )
            .is_empty()
        );
        let problems = validate(&draft("anthropic", " ", "ftp://x", ""), None);
        let fields: Vec<Field> = problems.iter().map(|(f, _)| *f).collect();
        assert_eq!(fields, [Field::Name, Field::BaseUrl, Field::ApiKey]);
        let saved = Provider {
            id: "p".into(),
            name: "x".into(),
            kind: ProviderKind::Anthropic,
            base_url: "https://api.anthropic.com".into(),
            enabled: true,
            has_key: true,
            via_relay: false,
            server: None,
        };
        assert!(
            validate(
                &draft("anthropic", "x", "https://api.anthropic.com", ""),
                Some(&saved)
            )
            .is_empty(),
            "editing keeps the saved key"
        );
        assert_eq!(
            validate(
                &draft("openai", &"n".repeat(61), "https://a.b/v1", "k"),
                None
            ),
            vec![(Field::Name, Key::ProviderErrorNameLong)]
        );
    }

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
