//! Which provider, key and capabilities a call to a model uses: the provider from the
//! user's list, its key from the vault, and the capabilities the provider lists for the
//! model with what the user corrected in Settings › Models laid over them.

use std::collections::HashMap;

use hearth_core::chat::GenerationError;
use hearth_core::preferences::ModelRef;
use hearth_core::provider::models::ModelInfo;
use hearth_core::provider::request::ModelCapabilities;
use leptos::prelude::*;

use crate::preferences::Prefs;
use crate::providers::{Provider, Providers};

/// The provider, key and capabilities a call to a model uses.
pub struct Target {
    /// The provider.
    pub provider: Provider,
    /// Its key, if it has one.
    pub key: Option<String>,
    /// What the model can do.
    pub capabilities: ModelCapabilities,
}

/// What finding a target reads: the providers, the preferences and the model catalogue.
#[derive(Clone, Copy)]
pub struct Targets {
    /// Providers and their keys.
    pub providers: Providers,
    /// The user's corrections of capabilities.
    pub prefs: Prefs,
    /// Known models, by provider.
    pub catalogue: ReadSignal<HashMap<String, Vec<ModelInfo>>>,
}

impl Targets {
    /// What `model` can do: its listing with the user's corrections (untracked; a view
    /// that must follow them calls [`Self::track`] first).
    pub fn capabilities(&self, model: &ModelRef) -> ModelCapabilities {
        let listed = self
            .catalogue
            .with_untracked(|m| {
                m.get(&model.provider_id)
                    .and_then(|list| list.iter().find(|info| info.id == model.model))
                    .map(|info| info.capabilities)
            })
            .unwrap_or_default();
        self.prefs
            .value
            .with_untracked(|prefs| prefs.capabilities(model, listed))
    }

    /// Subscribes the running effect to what [`Self::capabilities`] reads.
    pub fn track(&self) {
        self.catalogue.track();
        self.prefs.value.track();
    }

    /// Finds `model`'s provider, key and capabilities.
    pub async fn resolve(&self, model: &ModelRef) -> Result<Target, GenerationError> {
        let provider = self
            .providers
            .list
            .with_untracked(|list| list.iter().find(|p| p.id == model.provider_id).cloned())
            .ok_or_else(GenerationError::provider_missing)?;
        let key = self
            .providers
            .api_key(&model.provider_id)
            .await
            .map_err(|e| GenerationError::key_unreadable(&e.to_string()))?;
        let capabilities = self.capabilities(model);
        Ok(Target {
            provider,
            key,
            capabilities,
        })
    }
}
