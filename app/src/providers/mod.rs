//! The user's model providers: their settings in IndexedDB (`settings/providers`), their
//! keys sealed in the vault under `local:provider:<id>:api-key`, and the models each one
//! lists (`settings/models:<id>`). This module owns the provider list, its validation,
//! its persistence and the model catalogue; the settings tab draws it. The record type
//! is [`record`], below the envelope and the model lists that read it.

mod reading;
pub mod record;

use std::collections::HashMap;

pub use hearth_core::provider::kind::{Field, ProviderKind};
use hearth_core::provider::kind::{Problem, ProviderDraft};
use hearth_core::provider::models::ModelInfo;
use leptos::prelude::*;

use self::record::stored;
pub use self::record::{Provider, ServerSide};
use crate::i18n::{Key, message};
use crate::models::{ModelsError, Route};
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

/// Why a provider action failed. Its `Display` is in the user's language.
#[derive(Debug, Clone, PartialEq)]
pub enum ProvidersError {
    /// The database and the vault are not open (still opening, or they failed to).
    NotOpen,
    /// The browser storage failed.
    Storage(StorageError),
    /// The vault failed.
    Vault(VaultError),
    /// No provider has this id (any more).
    Unknown,
    /// Fetching the models failed.
    Models(ModelsError),
}

impl std::fmt::Display for ProvidersError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotOpen => f.write_str(&message(Key::ErrorProvidersNotOpen, &[])),
            Self::Storage(error) => error.fmt(f),
            Self::Vault(error) => error.fmt(f),
            Self::Unknown => f.write_str(&message(Key::ErrorProvidersUnknown, &[])),
            Self::Models(error) => error.fmt(f),
        }
    }
}

impl From<StorageError> for ProvidersError {
    fn from(error: StorageError) -> Self {
        Self::Storage(error)
    }
}

impl From<VaultError> for ProvidersError {
    fn from(error: VaultError) -> Self {
        Self::Vault(error)
    }
}

impl From<ModelsError> for ProvidersError {
    fn from(error: ModelsError) -> Self {
        Self::Models(error)
    }
}

/// Where the provider list is.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadState {
    /// Opening the database and the vault.
    Loading,
    /// Ready.
    Ready,
    /// Storage or vault failed; the error is shown.
    Failed(ProvidersError),
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
    /// The models of each enabled provider, by provider id (see [`Providers::models`]).
    models: RwSignal<HashMap<String, Vec<ModelInfo>>>,
    /// The operator's providers have been asked for (answered or not).
    operators_read: RwSignal<bool>,
    /// Everything the page reads at start is read: the list, the operator's providers
    /// and the model lists (see [`Providers::settled`]).
    settled: RwSignal<bool>,
    handles: StoredValue<Option<(Db, Vault)>, LocalStorage>,
}

impl Providers {
    /// Starts loading from IndexedDB.
    pub fn load() -> Self {
        let providers = Self {
            list: RwSignal::new(Vec::new()),
            state: RwSignal::new(LoadState::Loading),
            models_version: RwSignal::new(0),
            models: RwSignal::new(HashMap::new()),
            handles: StoredValue::new_local(None),
            operators_read: RwSignal::new(false),
            settled: RwSignal::new(false),
        };
        leptos::task::spawn_local(async move {
            let opened = match futures::join!(Db::open(), reading::stored(None)) {
                (Ok(db), _) => reading::stored(Some(db.clone()))
                    .await
                    .map(|read| read.map(|(vault, list)| (db, vault, list))),
                (Err(error), _) => Some(Err(error.into())),
            };
            match opened {
                Some(Ok((db, vault, list))) => {
                    providers.handles.set_value(Some((db, vault)));
                    providers.list.set(list);
                    providers.state.set(LoadState::Ready);
                    // The operator's providers, after the user's (an unreachable edge
                    // simply offers none).
                    let server = reading::operators().await;
                    if !server.is_empty() {
                        providers.list.update(|list| {
                            list.retain(|p| p.server.is_none());
                            list.extend(server);
                        });
                    }
                    providers.operators_read.set(true);
                }
                Some(Err(error)) => {
                    providers.state.set(LoadState::Failed(error));
                    providers.settled.set(true);
                }
                None => {} // Never: a database was given.
            }
        });
        providers.load_models();
        providers
    }

    /// Keeps [`Providers::models`] in step: the lists the Providers tab saved, reloaded
    /// whenever the providers or a saved list change (a server-configured provider without
    /// a saved list offers the models its operator listed).
    fn load_models(self) {
        Effect::new(move |_| {
            self.models_version.track();
            let operators_read = self.operators_read.get();
            // Runs again once the database is open, whichever finishes first.
            if self.state.with(|state| *state != LoadState::Ready) {
                return;
            }
            // (id, the models a server-configured provider's operator listed).
            let ids: Vec<(String, Vec<String>)> = self.list.with(|list| {
                list.iter()
                    .filter(|p| p.enabled)
                    .map(|p| {
                        let listed = p.server.as_ref().map(|s| s.models.clone());
                        (p.id.clone(), listed.unwrap_or_default())
                    })
                    .collect()
            });
            let Some((db, _)) = self.handles.get_value() else {
                return;
            };
            leptos::task::spawn_local(async move {
                let models = reading::models(db, ids).await;
                self.models.set(models);
                if operators_read {
                    self.settled.set(true);
                }
            });
        });
    }

    /// Whether what the page reads at start is read (the list, the operator's providers,
    /// the model lists), tracked: until then, "no model on offer" may only mean "not read
    /// yet".
    pub fn settled(&self) -> bool {
        self.settled.get()
    }

    /// The models of each enabled provider, by provider id: read it like a signal
    /// (`providers.models().get()`, `.with_untracked(…)`); only this store changes it.
    pub fn models(&self) -> ReadSignal<HashMap<String, Vec<ModelInfo>>> {
        self.models.read_only()
    }

    fn handles(&self) -> Result<(Db, Vault), ProvidersError> {
        self.handles.get_value().ok_or(ProvidersError::NotOpen)
    }

    /// Writes the user's providers of `list` and shows `list`.
    async fn put(&self, db: &Db, list: Vec<Provider>) -> Result<(), ProvidersError> {
        db.put_json(SETTINGS, DOCUMENT, &stored(&list)).await?;
        self.list.set(list);
        Ok(())
    }

    /// Saves `draft` (already validated): the key first, then the list, so a list never
    /// claims a key that was not stored.
    pub async fn save(&self, draft: Draft) -> Result<(), ProvidersError> {
        let (db, vault) = self.handles()?;
        let kind = ProviderKind::from_slug(&draft.kind).unwrap_or(ProviderKind::Openai);
        let id = draft.id.clone().unwrap_or_else(crate::browser::new_id);
        let mut list = self.list.get_untracked();
        let previous = list.iter().find(|p| p.id == id).cloned();
        let key = draft.api_key.trim();
        if !key.is_empty() {
            vault.store(&provider_key_context(&id), key).await?;
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
        self.put(&db, list).await
    }

    /// Turns a provider on or off.
    pub async fn set_enabled(&self, id: &str, enabled: bool) -> Result<(), ProvidersError> {
        let (db, _) = self.handles()?;
        let mut list = self.list.get_untracked();
        if let Some(provider) = list.iter_mut().find(|p| p.id == id) {
            provider.enabled = enabled;
        }
        self.put(&db, list).await
    }

    /// Removes a provider and its key.
    pub async fn remove(&self, id: &str) -> Result<(), ProvidersError> {
        let (db, vault) = self.handles()?;
        let list: Vec<Provider> = self
            .list
            .get_untracked()
            .into_iter()
            .filter(|p| p.id != id)
            .collect();
        db.put_json(SETTINGS, DOCUMENT, &stored(&list)).await?;
        vault.remove(&provider_key_context(id)).await?;
        self.list.set(list);
        Ok(())
    }

    /// Fetches a provider's models (directly, or through the relay when the provider
    /// blocks browser calls), remembering the route, and saves the list.
    pub async fn refresh_models(
        &self,
        id: &str,
    ) -> Result<(Vec<ModelInfo>, Route), ProvidersError> {
        let (db, vault) = self.handles()?;
        let provider = self
            .list
            .get_untracked()
            .into_iter()
            .find(|p| p.id == id)
            .ok_or(ProvidersError::Unknown)?;
        let key = vault.load(&provider_key_context(id)).await?;
        let (models, route) = crate::models::fetch(&provider, key.as_deref()).await?;
        db.put_json(SETTINGS, &models_document(id), &models).await?;
        self.models_version.update(|v| *v += 1);
        if route == Route::Relay && !provider.via_relay {
            let mut list = self.list.get_untracked();
            if let Some(slot) = list.iter_mut().find(|p| p.id == id) {
                slot.via_relay = true;
            }
            self.put(&db, list).await?;
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
    pub async fn import(&self, incoming: Vec<Provider>) -> Result<usize, ProvidersError> {
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
            self.put(&db, list).await?;
        }
        Ok(added)
    }

    /// A provider's key, for one request.
    pub async fn api_key(&self, id: &str) -> Result<Option<String>, ProvidersError> {
        let (_, vault) = self.handles()?;
        Ok(vault.load(&provider_key_context(id)).await?)
    }

    /// Remembers that a provider blocks browser calls, so chat goes through the relay.
    pub async fn mark_via_relay(&self, id: &str) -> Result<(), ProvidersError> {
        let (db, _) = self.handles()?;
        let mut list = self.list.get_untracked();
        match list.iter_mut().find(|p| p.id == id) {
            Some(slot) if !slot.via_relay => slot.via_relay = true,
            _ => return Ok(()),
        }
        self.put(&db, list).await
    }

    /// The masked key of a provider, read through the vault.
    pub async fn masked_key(&self, id: &str) -> Result<Option<String>, ProvidersError> {
        let (_, vault) = self.handles()?;
        let key = vault.load(&provider_key_context(id)).await?;
        Ok(key.map(|k| crate::vault::mask(&k)))
    }
}

/// The settings document holding a provider's model list.
fn models_document(id: &str) -> String {
    format!("models:{id}")
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
    fn errors_read_in_the_users_language() {
        use hearth_core::locale::Locale;

        use crate::i18n::translate;

        // Before the app's I18n exists (and in native tests) that is English.
        assert_eq!(
            ProvidersError::NotOpen.to_string(),
            translate(Locale::En, Key::ErrorProvidersNotOpen)
        );
        assert_eq!(
            ProvidersError::Models(ModelsError::Provider(401)).to_string(),
            "the provider answered HTTP 401"
        );
        assert_eq!(
            ProvidersError::Models(ModelsError::TooLarge).to_string(),
            "the provider's model list is larger than 4 MiB"
        );
        assert_eq!(
            ProvidersError::Vault(VaultError::KeyLost).to_string(),
            "the key that protects saved secrets is missing"
        );
        assert_eq!(
            LoadState::Failed(ProvidersError::Unknown),
            LoadState::Failed(ProvidersError::Unknown)
        );
    }
}
