//! Settings › Providers: the user's providers, each with its type, name, base URL, key
//! (shown masked, read back through the vault) and an enabled switch; a form to add or
//! edit one with inline, specific validation errors, and what this deployment's edge
//! does not serve for providers (the relay, sealed keys).

use std::collections::HashMap;

use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::deployment::{CapabilityNotes, Place, use_capabilities};
use crate::i18n::{Key, tr, use_i18n};
use crate::providers::{
    Draft, Field as ProviderField, KindLabel, LoadState, Provider, ProviderKind, use_providers,
    validate,
};
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, use_toasts};

/// Where fetching one provider's models is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ModelStatus {
    Loading,
    Loaded(Vec<String>),
    Failed(String),
}

/// The Providers tab.
#[component]
pub fn ProvidersPanel() -> impl IntoView {
    let providers = use_providers();
    let i18n = use_i18n();
    view! {
        <div class="settings-section">
            {move || match providers.state.get() {
                LoadState::Loading => view! {
                    <p class="field__hint" role="status">{tr(Key::ProvidersLoading)}</p>
                }
                .into_any(),
                LoadState::Failed(reason) => view! {
                    <p class="notice notice--warning" role="alert">
                        {move || i18n.t_with(Key::ProvidersFailed, &[("reason", &reason.to_string())])}
                    </p>
                }
                .into_any(),
                LoadState::Ready => view! { <ProviderList /> }.into_any(),
            }}
        </div>
    }
}

#[component]
fn ProviderList() -> impl IntoView {
    let providers = use_providers();
    let prefs = crate::preferences::use_prefs();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let editing = RwSignal::new(None::<Draft>);
    let masks = RwSignal::new(HashMap::<String, String>::new());
    let model_status = RwSignal::new(HashMap::<String, ModelStatus>::new());

    // Masked keys are read through the vault whenever the list changes.
    Effect::new(move |_| {
        for provider in providers.list.get().into_iter().filter(|p| p.has_key) {
            spawn_local(async move {
                if let Ok(Some(mask)) = providers.masked_key(&provider.id).await {
                    masks.update(|m| {
                        m.insert(provider.id.clone(), mask);
                    });
                }
            });
        }
    });

    let start_add = move |_| {
        let kind = ProviderKind::Openai;
        editing.set(Some(Draft {
            id: None,
            kind: kind.slug().into(),
            name: String::new(),
            base_url: kind.default_base_url().into(),
            api_key: String::new(),
        }));
    };
    let row = move |provider: Provider| {
        let id = provider.id.clone();
        let edit_id = id.clone();
        let toggle_id = id.clone();
        let delete_id = id.clone();
        let mask_id = id.clone();
        let models_id = id.clone();
        let status_id = id.clone();
        let via_relay = provider.via_relay;
        let fetch_models = move |_| {
            let id = models_id.clone();
            model_status.update(|m| {
                m.insert(id.clone(), ModelStatus::Loading);
            });
            spawn_local(async move {
                let status = match providers.refresh_models(&id).await {
                    Ok((models, _)) => {
                        ModelStatus::Loaded(models.into_iter().map(|m| m.id).collect())
                    }
                    Err(reason) => ModelStatus::Failed(reason.to_string()),
                };
                model_status.update(|m| {
                    m.insert(id, status);
                });
            });
        };
        let edit = {
            let provider = provider.clone();
            move |_| {
                editing.set(Some(Draft {
                    id: Some(provider.id.clone()),
                    kind: provider.kind.slug().into(),
                    name: provider.name.clone(),
                    base_url: provider.base_url.clone(),
                    api_key: String::new(),
                }))
            }
        };
        let toggle = move |event| {
            let enabled = event_target_checked(&event);
            let id = toggle_id.clone();
            spawn_local(async move {
                if let Err(reason) = providers.set_enabled(&id, enabled).await {
                    toasts.show(
                        ToastKind::Error,
                        i18n.t_with(Key::ProviderSaveFailed, &[("reason", &reason.to_string())]),
                    );
                }
            });
        };
        let delete = move |_| {
            let id = delete_id.clone();
            spawn_local(async move {
                match providers.remove(&id).await {
                    Ok(()) => {
                        // Its models' details and any default naming it go with it.
                        match prefs.update(|p| p.forget_provider(&id)).await {
                            Ok(()) => toasts.show(ToastKind::Info, i18n.t(Key::ProviderDeleted)),
                            Err(reason) => toasts.show(
                                ToastKind::Error,
                                i18n.t_with(
                                    Key::ProviderSaveFailed,
                                    &[("reason", &reason.to_string())],
                                ),
                            ),
                        }
                    }
                    Err(reason) => toasts.show(
                        ToastKind::Error,
                        i18n.t_with(Key::ProviderSaveFailed, &[("reason", &reason.to_string())]),
                    ),
                }
            });
        };
        let has_key = provider.has_key;
        // The operator's providers: no URL, key, edit or delete here; the edge holds them.
        let own = provider.server.is_none();
        let enabled = provider.enabled;
        view! {
            <li class="provider-row" data-provider-id=id>
                <div class="provider-row__main">
                    <span class="provider-row__name">{provider.name.clone()}</span>
                    <span class="provider-row__meta">
                        {if own { tr(provider.kind.label())() } else { tr(Key::ProviderFromServer)() }}
                    </span>
                    <span class="provider-row__url">{provider.base_url.clone()}</span>
                </div>
                {own.then(|| view! {
                    <span class="provider-row__key" data-testid="provider-key">
                        {move || {
                            if has_key {
                                masks.with(|m| m.get(&mask_id).cloned()).unwrap_or_default()
                            } else {
                                i18n.t(Key::ProviderNoKey)
                            }
                        }}
                    </span>
                    <label class="switch">
                        <input
                            type="checkbox"
                            prop:checked=enabled
                            on:change=toggle
                        />
                        <span>{tr(Key::ProviderEnabled)}</span>
                    </label>
                    <button type="button" class="button button--secondary button--small" data-edit=edit_id on:click=edit>
                        {tr(Key::ProviderEdit)}
                    </button>
                })}
                <button type="button" class="button button--secondary button--small" data-models="" on:click=fetch_models>
                    {tr(Key::ProviderModels)}
                </button>
                {own.then(|| view! {
                    <button type="button" class="button button--secondary button--small" on:click=delete>
                        {tr(Key::ProviderDelete)}
                    </button>
                })}
                <div class="provider-row__models" role="status" aria-live="polite">
                    {move || match model_status.with(|m| m.get(&status_id).cloned()) {
                        None => None,
                        Some(ModelStatus::Loading) => Some(view! { <p class="field__hint">{tr(Key::ProviderModelsLoading)}</p> }.into_any()),
                        Some(ModelStatus::Failed(reason)) => Some(view! {
                            <p class="field__error">{move || i18n.t_with(Key::ProviderModelsFailed, &[("reason", &reason.to_string())])}</p>
                        }.into_any()),
                        Some(ModelStatus::Loaded(ids)) => {
                            let count = ids.len().to_string();
                            Some(view! {
                                <p class="field__hint" data-testid="model-count">
                                    {move || i18n.t_with(Key::ProviderModelsCount, &[("count", &count)])}
                                </p>
                                <ul class="model-chips">
                                    {ids.into_iter().take(24).map(|id| view! { <li class="model-chip">{id}</li> }).collect_view()}
                                </ul>
                            }.into_any())
                        }
                    }}
                    {(via_relay && own).then(|| view! { <p class="field__hint" data-testid="via-relay">{tr(Key::ProviderModelsViaRelay)}</p> })}
                </div>
            </li>
        }
    };

    view! {
        <div class="providers">
            <div class="providers__head">
                <button type="button" class="button button--primary" id="provider-add" on:click=start_add>
                    {tr(Key::ProvidersAdd)}
                </button>
            </div>
            {move || {
                let list = providers.list.get();
                if list.is_empty() {
                    view! { <p class="field__hint" id="providers-empty">{tr(Key::ProvidersEmpty)}</p> }.into_any()
                } else {
                    view! { <ul class="provider-list">{list.into_iter().map(row).collect_view()}</ul> }.into_any()
                }
            }}
            {move || editing.get().map(|draft| view! { <ProviderForm draft=draft editing=editing /> })}
        </div>
    }
}

#[component]
fn ProviderForm(draft: Draft, editing: RwSignal<Option<Draft>>) -> impl IntoView {
    let providers = use_providers();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let is_edit = draft.id.is_some();
    let id = draft.id.clone();
    let kind = RwSignal::new(draft.kind.clone());
    let name = RwSignal::new(draft.name.clone());
    let base_url = RwSignal::new(draft.base_url.clone());
    let api_key = RwSignal::new(String::new());
    let errors = RwSignal::new(Vec::<(ProviderField, Key)>::new());
    let saving = RwSignal::new(false);

    let error_for = move |field: ProviderField| {
        Signal::derive(move || {
            errors.with(|errors| {
                errors
                    .iter()
                    .find(|(f, _)| *f == field)
                    .map(|(_, key)| i18n.t(*key))
            })
        })
    };
    let capabilities = use_capabilities();

    let on_kind = move |value: String| {
        // Follow the type with its usual URL unless the user typed their own.
        let previous = ProviderKind::from_slug(&kind.get_untracked());
        if previous.is_some_and(|p| p.default_base_url() == base_url.get_untracked())
            && let Some(next) = ProviderKind::from_slug(&value)
        {
            base_url.set(next.default_base_url().into());
        }
        kind.set(value);
    };
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        let draft = Draft {
            id: id.clone(),
            kind: kind.get_untracked(),
            name: name.get_untracked(),
            base_url: base_url.get_untracked(),
            api_key: api_key.get_untracked(),
        };
        let existing = providers
            .list
            .get_untracked()
            .into_iter()
            .find(|p| Some(&p.id) == draft.id.as_ref());
        let problems = validate(&draft, existing.as_ref());
        errors.set(problems.clone());
        if let Some((field, _)) = problems.first() {
            let target = match field {
                ProviderField::Name => "provider-name",
                ProviderField::BaseUrl => "provider-base-url",
                ProviderField::ApiKey => "provider-api-key",
            };
            crate::browser::focus_by_id(target);
            return;
        }
        saving.set(true);
        spawn_local(async move {
            let outcome = providers.save(draft).await;
            saving.set(false);
            match outcome {
                Ok(()) => {
                    toasts.show(ToastKind::Info, i18n.t(Key::ProviderSaved));
                    editing.set(None);
                }
                Err(reason) => toasts.show(
                    ToastKind::Error,
                    i18n.t_with(Key::ProviderSaveFailed, &[("reason", &reason.to_string())]),
                ),
            }
        });
    };
    view! {
        <form class="provider-form" on:submit=submit novalidate aria-labelledby="provider-form-title">
            <h3 class="provider-form__title" id="provider-form-title">
                {if is_edit { tr(Key::ProviderEditTitle)() } else { tr(Key::ProvidersAdd)() }}
            </h3>
            <Field
                id="provider-kind"
                label=tr(Key::ProviderType)
                control=Control::Select
                value=kind
                on_input=on_kind
            >
                {ProviderKind::ALL
                    .into_iter()
                    .map(|k| view! {
                        <option value=k.slug() selected=move || kind.get() == k.slug()>{tr(k.label())}</option>
                    })
                    .collect_view()}
            </Field>
            <Field
                id="provider-name"
                label=tr(Key::ProviderName)
                value=name
                on_input=move |v| name.set(v)
                error=error_for(ProviderField::Name)
            />
            <Field
                id="provider-base-url"
                label=tr(Key::ProviderBaseUrl)
                control=Control::Url
                value=base_url
                on_input=move |v| base_url.set(v)
                error=error_for(ProviderField::BaseUrl)
            />
            <Field
                id="provider-api-key"
                label=tr(Key::ProviderApiKey)
                control=Control::Password
                value=api_key
                on_input=move |v| api_key.set(v)
                placeholder=move || if is_edit { i18n.t(Key::ProviderApiKeyKeep) } else { String::new() }
                hint=tr(Key::ProviderApiKeyHint)
                error=error_for(ProviderField::ApiKey)
            />
            <CapabilityNotes place=Place::Providers capabilities=capabilities />
            <div class="provider-form__actions">
                <button type="button" class="button button--secondary" on:click=move |_| editing.set(None)>
                    {tr(Key::ProviderCancel)}
                </button>
                <button type="submit" class="button button--primary" id="provider-save"
                    aria-busy=move || saving.get().to_string() disabled=move || saving.get()>
                    {tr(Key::ProviderSave)}
                </button>
            </div>
        </form>
    }
}
