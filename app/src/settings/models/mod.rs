//! Settings › Models: the default model of new chats, the title, compression and
//! related-questions models,
//! and per-model metadata (context and output limits, vision, tools, reasoning) that
//! corrects what a provider's listing says.
//!
//! - this module: the tab and its three model pickers (`ui::model_picker`).
//! - [`details`]: every listed model with the capabilities a run will use, filterable.
//! - [`editor`]: one model's inline form, whose limits are read as people write them
//!   (`128k`) and checked by `hearth_core::preferences` with a specific message under
//!   the field.

mod details;
mod editor;

use hearth_core::preferences::{ModelRef, Preferences};
use hearth_core::provider::models::ModelInfo;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{I18n, Key, tr};
use crate::preferences::{Prefs, use_prefs};
use crate::providers::use_providers;
use crate::shell::use_shell;
use crate::ui::model_picker::{ModelGroup, ModelOption, ModelPicker};
use crate::ui::toast::{ToastKind, Toasts, use_toasts};

/// Which model setting a picker edits.
#[derive(Clone, Copy)]
enum Slot {
    Default,
    Title,
    Compression,
    Related,
}

/// One of the model pickers at the top of the tab.
#[derive(Clone, Copy)]
struct ModelSlot {
    id: &'static str,
    label: Key,
    hint: Key,
    none: Key,
    which: Slot,
}

impl ModelSlot {
    fn slot(self, prefs: &Preferences) -> &Option<ModelRef> {
        match self.which {
            Slot::Default => &prefs.default_model,
            Slot::Title => &prefs.title_model,
            Slot::Compression => &prefs.compression_model,
            Slot::Related => &prefs.related_model,
        }
    }

    fn slot_mut(self, prefs: &mut Preferences) -> &mut Option<ModelRef> {
        match self.which {
            Slot::Default => &mut prefs.default_model,
            Slot::Title => &mut prefs.title_model,
            Slot::Compression => &mut prefs.compression_model,
            Slot::Related => &mut prefs.related_model,
        }
    }
}

const MODEL_SLOTS: [ModelSlot; 4] = [
    ModelSlot {
        id: "settings-default-model",
        label: Key::ModelsDefault,
        hint: Key::ModelsDefaultHint,
        none: Key::ModelsDefaultNone,
        which: Slot::Default,
    },
    ModelSlot {
        id: "settings-title-model",
        label: Key::ModelsTitle,
        hint: Key::ModelsTitleHint,
        none: Key::ModelsTitleNone,
        which: Slot::Title,
    },
    ModelSlot {
        id: "settings-compression-model",
        label: Key::ModelsCompression,
        hint: Key::ModelsCompressionHint,
        none: Key::ModelsCompressionNone,
        which: Slot::Compression,
    },
    ModelSlot {
        id: "settings-related-model",
        label: Key::ModelsRelated,
        hint: Key::ModelsRelatedHint,
        none: Key::ModelsRelatedNone,
        which: Slot::Related,
    },
];

/// One provider's models, as the panel lists them.
#[derive(Clone, PartialEq)]
struct Group {
    provider_id: String,
    provider_name: String,
    models: Vec<ModelInfo>,
}

/// The groups as a picker offers them (a listing's display name shown when it has one).
fn picker_groups(groups: &[Group]) -> Vec<ModelGroup> {
    groups
        .iter()
        .map(|g| ModelGroup {
            provider_id: g.provider_id.clone(),
            provider_name: g.provider_name.clone(),
            models: g
                .models
                .iter()
                .map(|info| ModelOption {
                    id: info.id.clone(),
                    name: info.display_name.clone(),
                })
                .collect(),
        })
        .collect()
}

/// The Models tab.
#[component]
pub fn ModelsPanel() -> impl IntoView {
    let providers = use_providers();
    let prefs = use_prefs();
    let toasts = use_toasts();
    let i18n = crate::i18n::use_i18n();
    let shell = use_shell();
    let groups = Memo::new(move |_| {
        let models = providers.models().get();
        providers.list.with(|list| {
            list.iter()
                .filter(|p| p.enabled)
                .filter_map(|p| {
                    let listed = models.get(&p.id)?;
                    (!listed.is_empty()).then(|| Group {
                        provider_id: p.id.clone(),
                        provider_name: p.name.clone(),
                        models: listed.clone(),
                    })
                })
                .collect::<Vec<_>>()
        })
    });
    let options = Memo::new(move |_| groups.with(|g| picker_groups(g)));
    let has_models = move || groups.with(|g| !g.is_empty());
    view! {
        <div class="settings-section">
            <Show
                when=has_models
                fallback=move || view! {
                    <div class="models-empty">
                        <p class="settings-section__text" id="models-empty">{tr(Key::ModelsEmpty)}</p>
                        <button
                            type="button"
                            class="button button--secondary"
                            on:click=move |_| shell.settings_tab.set("providers".into())
                        >
                            {tr(Key::ModelsGoToProviders)}
                        </button>
                    </div>
                }
            >
                {MODEL_SLOTS
                    .into_iter()
                    .map(|slot| {
                        let pick = move |model: Option<ModelRef>| {
                            save(prefs, toasts, i18n, move |p| *slot.slot_mut(p) = model);
                        };
                        view! {
                        <ModelPicker
                            id=slot.id
                            label=tr(slot.label)
                            hint=tr(slot.hint)
                            none=tr(slot.none)
                            groups=options
                            selected=move || prefs.value.with(|p| slot.slot(p).clone())
                            on_change=pick
                        />
                    }})
                    .collect_view()}
                <details::ModelDetails groups=groups />
            </Show>
        </div>
    }
}

/// Saves a change to the preferences, telling the user whether it was stored.
fn save(prefs: Prefs, toasts: Toasts, i18n: I18n, change: impl FnOnce(&mut Preferences) + 'static) {
    spawn_local(async move {
        match prefs.update(change).await {
            Ok(()) => toasts.show(ToastKind::Info, i18n.t(Key::ModelsSaved)),
            Err(error) => toasts.show(
                ToastKind::Error,
                i18n.t_with(Key::ModelsSaveFailed, &[("reason", &error.to_string())]),
            ),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pickers_show_a_listing_s_display_name_and_keep_the_id() {
        let info = |id: &str, name: Option<&str>| ModelInfo {
            id: id.into(),
            display_name: name.map(str::to_string),
            capabilities: Default::default(),
        };
        let groups = [Group {
            provider_id: "p1".into(),
            provider_name: "Router".into(),
            models: vec![
                info("org/model:free", Some("Model (free)")),
                info("plain", None),
            ],
        }];
        assert_eq!(
            picker_groups(&groups),
            [ModelGroup {
                provider_id: "p1".into(),
                provider_name: "Router".into(),
                models: vec![
                    ModelOption {
                        id: "org/model:free".into(),
                        name: Some("Model (free)".into())
                    },
                    ModelOption::from("plain".to_string()),
                ],
            }]
        );
    }
}
