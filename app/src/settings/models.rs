//! Settings › Models: the default model of new chats, the title and compression models,
//! and per-model metadata (context and output limits, vision, tools, reasoning) that
//! corrects what a provider's listing says. Each model shows the capabilities a run will use; editing
//! one opens an inline form whose limits are read as people write them (`128k`) and
//! checked by `hearth_core::preferences` with a specific message under the field.

use hearth_core::preferences::{
    LimitError, ModelOverrides, ModelRef, Preferences, parse_token_limit,
};
use hearth_core::provider::models::ModelInfo;
use hearth_core::provider::request::ModelCapabilities;
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::preferences::{Prefs, use_prefs};
use crate::providers::use_providers;
use crate::shell::use_shell;
use crate::ui::toast::{ToastKind, Toasts, use_toasts};

/// The most model rows shown at once; a filter finds the others.
const MAX_ROWS: usize = 200;
/// The separator of provider and model in a `<select>` value.
const SEPARATOR: char = '\u{1f}';

/// Which model setting a `<select>` edits.
#[derive(Clone, Copy)]
enum Slot {
    Default,
    Title,
    Compression,
}

/// One of the model `<select>`s at the top of the tab.
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
        }
    }

    fn slot_mut(self, prefs: &mut Preferences) -> &mut Option<ModelRef> {
        match self.which {
            Slot::Default => &mut prefs.default_model,
            Slot::Title => &mut prefs.title_model,
            Slot::Compression => &mut prefs.compression_model,
        }
    }
}

const MODEL_SLOTS: [ModelSlot; 3] = [
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
];

/// One provider's models, as the panel lists them.
#[derive(Clone, PartialEq)]
struct Group {
    provider_id: String,
    provider_name: String,
    models: Vec<ModelInfo>,
}

fn option_value(model: &ModelRef) -> String {
    format!("{}{SEPARATOR}{}", model.provider_id, model.model)
}

fn parse_option(value: &str) -> Option<ModelRef> {
    value.split_once(SEPARATOR).map(|(p, m)| ModelRef {
        provider_id: p.to_string(),
        model: m.to_string(),
    })
}

/// `128000` and `131072` as `128K`, `1000000` and `1048576` as `1M`, others as they are.
fn short_tokens(tokens: u64) -> String {
    match tokens {
        0 => "0".into(),
        n if n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n % 1_048_576 == 0 => format!("{}M", n / 1_048_576),
        n if n % 1_000 == 0 => format!("{}K", n / 1_000),
        n if n % 1_024 == 0 => format!("{}K", n / 1_024),
        n => n.to_string(),
    }
}

/// A one-line summary of what a run of this model may use.
fn facts(i18n: I18n, caps: ModelCapabilities) -> String {
    let limit = |tokens: Option<u64>| {
        tokens
            .map(short_tokens)
            .unwrap_or_else(|| i18n.t(Key::ModelsUnknown))
    };
    let mut parts = vec![
        i18n.t_with(
            Key::ModelsFactContext,
            &[("tokens", &limit(caps.context_window))],
        ),
        i18n.t_with(
            Key::ModelsFactOutput,
            &[("tokens", &limit(caps.max_output_tokens))],
        ),
    ];
    for (on, key) in [
        (caps.vision, Key::ModelsVision),
        (caps.tools, Key::ModelsTools),
        (caps.reasoning, Key::ModelsReasoning),
    ] {
        if on {
            parts.push(i18n.t(key));
        }
    }
    parts.join(" · ")
}

fn limit_message(i18n: I18n, error: &LimitError) -> String {
    match error {
        LimitError::NotANumber(text) => i18n.t_with(Key::ModelsLimitNotANumber, &[("text", text)]),
        LimitError::Zero => i18n.t(Key::ModelsLimitZero),
        LimitError::TooLarge(_) => i18n.t(Key::ModelsLimitTooLarge),
        LimitError::OutputNotBelowContext { output, window } => i18n.t_with(
            Key::ModelsLimitOutputTooLarge,
            &[
                ("output", &output.to_string()),
                ("window", &window.to_string()),
            ],
        ),
    }
}

/// The Models tab.
#[component]
pub fn ModelsPanel() -> impl IntoView {
    let providers = use_providers();
    let prefs = use_prefs();
    let toasts = use_toasts();
    let i18n = use_i18n();
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
                    .map(|slot| view! {
                        <ModelSelect
                            id=slot.id
                            label=slot.label
                            hint=slot.hint
                            none=slot.none
                            groups=groups
                            current=Signal::derive(move || prefs.value.with(|p| slot.slot(p).clone()))
                            on_pick=Callback::new(move |model: Option<ModelRef>| {
                                save(prefs, toasts, i18n, move |p| *slot.slot_mut(p) = model);
                            })
                        />
                    })
                    .collect_view()}
                <ModelDetails groups=groups />
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

/// A `<select>` of every listed model, with a first option meaning "none".
#[component]
fn ModelSelect(
    id: &'static str,
    label: Key,
    hint: Key,
    none: Key,
    groups: Memo<Vec<Group>>,
    current: Signal<Option<ModelRef>>,
    on_pick: Callback<Option<ModelRef>>,
) -> impl IntoView {
    let hint_id = format!("{id}-hint");
    let selected = move || current.get().map(|m| option_value(&m)).unwrap_or_default();
    view! {
        <div class="field">
            <label class="field__label" for=id>{tr(label)}</label>
            <select
                id=id
                class="select"
                aria-describedby=hint_id.clone()
                prop:value=selected
                on:change=move |event| on_pick.run(parse_option(&event_target_value(&event)))
            >
                <option value="" selected=move || selected().is_empty()>{tr(none)}</option>
                {move || {
                    groups
                        .get()
                        .into_iter()
                        .map(|group| {
                            let options = group
                                .models
                                .iter()
                                .map(|info| {
                                    let value = option_value(&ModelRef {
                                        provider_id: group.provider_id.clone(),
                                        model: info.id.clone(),
                                    });
                                    let is_selected = selected() == value;
                                    let name = info.display_name.clone().unwrap_or_else(|| info.id.clone());
                                    view! { <option value=value selected=is_selected>{name}</option> }
                                })
                                .collect_view();
                            view! { <optgroup label=group.provider_name.clone()>{options}</optgroup> }
                        })
                        .collect_view()
                }}
            </select>
            <p class="field__hint" id=hint_id>{tr(hint)}</p>
        </div>
    }
}

/// Every listed model with the capabilities a run uses, filterable, each editable.
#[component]
fn ModelDetails(groups: Memo<Vec<Group>>) -> impl IntoView {
    let prefs = use_prefs();
    let i18n = use_i18n();
    let filter = RwSignal::new(String::new());
    let editing = RwSignal::new(None::<ModelRef>);
    // (model, listed capabilities) of every model matching the filter.
    let rows = Memo::new(move |_| {
        let needle = filter.get().trim().to_lowercase();
        groups.with(|groups| {
            groups
                .iter()
                .flat_map(|g| {
                    g.models.iter().map(|info| {
                        (
                            ModelRef {
                                provider_id: g.provider_id.clone(),
                                model: info.id.clone(),
                            },
                            g.provider_name.clone(),
                            info.capabilities,
                        )
                    })
                })
                .filter(|(model, provider, _)| {
                    needle.is_empty()
                        || model.model.to_lowercase().contains(&needle)
                        || provider.to_lowercase().contains(&needle)
                })
                .collect::<Vec<_>>()
        })
    });
    let hidden = move || rows.with(|r| r.len().saturating_sub(MAX_ROWS));
    let row = move |(model, provider, listed): (ModelRef, String, ModelCapabilities)| {
        let this = model.clone();
        let is_editing = move || editing.with(|e| e.as_ref() == Some(&this));
        let edit_target = model.clone();
        let summary_model = model.clone();
        let overridden_model = model.clone();
        let label = i18n.t_with(Key::ModelsEditLabel, &[("model", &model.model)]);
        let expanded = {
            let is_editing = is_editing.clone();
            move || is_editing().to_string()
        };
        let name = model.model.clone();
        let data_model = model.model.clone();
        view! {
            <li class="model-row" data-model=data_model>
                <div class="model-row__head">
                    <div class="model-row__main">
                        <span class="model-row__name">{name}</span>
                        <span class="model-row__facts" data-testid="model-facts">
                            {move || {
                                let caps = prefs.value.with(|p| p.capabilities(&summary_model, listed));
                                facts(i18n, caps)
                            }}
                        </span>
                        <span class="model-row__provider">
                            {provider}
                            {move || {
                                let edited = prefs.value.with(|p| !p.overrides(&overridden_model).is_empty());
                                edited.then(|| format!(" · {}", i18n.t(Key::ModelsEdited)))
                            }}
                        </span>
                    </div>
                    <button
                        type="button"
                        class="button button--secondary button--small"
                        aria-label=label
                        aria-expanded=expanded
                        on:click=move |_| {
                            let target = edit_target.clone();
                            editing.update(|e| {
                                *e = if e.as_ref() == Some(&target) { None } else { Some(target) };
                            });
                        }
                    >
                        {tr(Key::ModelsEdit)}
                    </button>
                </div>
                <Show when=is_editing>
                    <ModelForm model=model.clone() listed=listed editing=editing />
                </Show>
            </li>
        }
    };
    view! {
        <section class="model-details" aria-labelledby="models-details-title">
            <h3 class="settings-subheading" id="models-details-title">{tr(Key::ModelsDetails)}</h3>
            <p class="settings-section__text">{tr(Key::ModelsDetailsHint)}</p>
            <label class="visually-hidden" for="models-filter">{tr(Key::ModelsFilter)}</label>
            <input
                id="models-filter"
                class="input"
                type="search"
                autocomplete="off"
                spellcheck="false"
                placeholder=tr(Key::ModelsFilter)
                prop:value=move || filter.get()
                on:input=move |e| filter.set(event_target_value(&e))
            />
            <ul class="model-list">
                {move || rows.get().into_iter().take(MAX_ROWS).map(row).collect_view()}
            </ul>
            {move || {
                let count = hidden();
                (count > 0).then(|| view! {
                    <p class="field__hint">
                        {move || i18n.t_with(Key::ModelsMore, &[("count", &count.to_string())])}
                    </p>
                })
            }}
            {move || rows.with(Vec::is_empty).then(|| view! {
                <p class="field__hint">{tr(Key::ModelsNoMatch)}</p>
            })}
        </section>
    }
}

/// A yes/no capability: from the listing, or the user's yes or no.
fn flag_value(flag: Option<bool>) -> &'static str {
    match flag {
        None => "listed",
        Some(true) => "yes",
        Some(false) => "no",
    }
}

fn parse_flag(value: &str) -> Option<bool> {
    match value {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// Which limit an error belongs under.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LimitField {
    Context,
    Output,
}

#[component]
fn ModelForm(
    model: ModelRef,
    listed: ModelCapabilities,
    editing: RwSignal<Option<ModelRef>>,
) -> impl IntoView {
    let prefs = use_prefs();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let current = prefs.value.with_untracked(|p| p.overrides(&model));
    let context = RwSignal::new(
        current
            .context_window
            .map(|n| n.to_string())
            .unwrap_or_default(),
    );
    let output = RwSignal::new(
        current
            .max_output_tokens
            .map(|n| n.to_string())
            .unwrap_or_default(),
    );
    let vision = RwSignal::new(current.vision);
    let tools = RwSignal::new(current.tools);
    let reasoning = RwSignal::new(current.reasoning);
    let error = RwSignal::new(None::<(LimitField, String)>);
    let saving = RwSignal::new(false);
    let slug: String = model
        .model
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let id = move |part: &str| format!("model-{slug}-{part}");
    let context_id = id("context");
    let output_id = id("output");
    let context_error_id = id("context-error");
    let output_error_id = id("output-error");
    let error_in = move |field: LimitField| {
        move || {
            error.with(|e| {
                e.as_ref()
                    .filter(|(f, _)| *f == field)
                    .map(|(_, m)| m.clone())
            })
        }
    };
    let invalid = move |field: LimitField| {
        move || {
            error
                .with(|e| e.as_ref().is_some_and(|(f, _)| *f == field))
                .to_string()
        }
    };

    let store = {
        let model = model.clone();
        move |overrides: ModelOverrides| {
            let model = model.clone();
            saving.set(true);
            spawn_local(async move {
                let outcome = prefs.update(|p| p.set_overrides(&model, overrides)).await;
                saving.set(false);
                match outcome {
                    Ok(()) => {
                        toasts.show(ToastKind::Info, i18n.t(Key::ModelsSaved));
                        editing.set(None);
                    }
                    Err(reason) => toasts.show(
                        ToastKind::Error,
                        i18n.t_with(Key::ModelsSaveFailed, &[("reason", &reason.to_string())]),
                    ),
                }
            });
        }
    };
    let submit = {
        let store = store.clone();
        let context_id = context_id.clone();
        let output_id = output_id.clone();
        move |event: SubmitEvent| {
            event.prevent_default();
            if saving.get_untracked() {
                return;
            }
            let fail = |field: LimitField, message: String, focus: &str| {
                error.set(Some((field, message)));
                crate::browser::focus_by_id(focus);
            };
            let context_window = match parse_token_limit(&context.get_untracked()) {
                Ok(n) => n,
                Err(e) => return fail(LimitField::Context, limit_message(i18n, &e), &context_id),
            };
            let max_output_tokens = match parse_token_limit(&output.get_untracked()) {
                Ok(n) => n,
                Err(e) => return fail(LimitField::Output, limit_message(i18n, &e), &output_id),
            };
            let overrides = ModelOverrides {
                vision: vision.get_untracked(),
                tools: tools.get_untracked(),
                reasoning: reasoning.get_untracked(),
                context_window,
                max_output_tokens,
            };
            if let Err(e) = overrides.validate(listed) {
                return fail(LimitField::Output, limit_message(i18n, &e), &output_id);
            }
            error.set(None);
            store(overrides);
        }
    };
    let listed_limit = move |tokens: Option<u64>| match tokens {
        Some(n) => i18n.t_with(Key::ModelsFromProvider, &[("value", &n.to_string())]),
        None => i18n.t(Key::ModelsUnknown),
    };
    let flag =
        move |field: RwSignal<Option<bool>>, key: Key, listed_on: bool, name: &'static str| {
            let select_id = format!("{}-{name}", id("flag"));
            let listed_text = move || {
                let value = i18n.t(if listed_on {
                    Key::ModelsYes
                } else {
                    Key::ModelsNo
                });
                i18n.t_with(Key::ModelsFromProvider, &[("value", &value)])
            };
            view! {
                <div class="field">
                    <label class="field__label" for=select_id.clone()>{tr(key)}</label>
                    <select
                        id=select_id
                        class="select"
                        prop:value=move || flag_value(field.get())
                        on:change=move |e| field.set(parse_flag(&event_target_value(&e)))
                    >
                        <option value="listed">{listed_text}</option>
                        <option value="yes">{tr(Key::ModelsYes)}</option>
                        <option value="no">{tr(Key::ModelsNo)}</option>
                    </select>
                </div>
            }
        };
    view! {
        <form class="model-form" on:submit=submit novalidate>
            <div class="model-form__grid">
                <div class="field">
                    <label class="field__label" for=context_id.clone()>{tr(Key::ModelsContext)}</label>
                    <input
                        id=context_id
                        class="input"
                        type="text"
                        inputmode="numeric"
                        autocomplete="off"
                        placeholder=listed_limit(listed.context_window)
                        aria-invalid=invalid(LimitField::Context)
                        aria-describedby=context_error_id.clone()
                        prop:value=move || context.get()
                        on:input=move |e| context.set(event_target_value(&e))
                    />
                    <p class="field__error" id=context_error_id>{error_in(LimitField::Context)}</p>
                </div>
                <div class="field">
                    <label class="field__label" for=output_id.clone()>{tr(Key::ModelsOutput)}</label>
                    <input
                        id=output_id
                        class="input"
                        type="text"
                        inputmode="numeric"
                        autocomplete="off"
                        placeholder=listed_limit(listed.max_output_tokens)
                        aria-invalid=invalid(LimitField::Output)
                        aria-describedby=output_error_id.clone()
                        prop:value=move || output.get()
                        on:input=move |e| output.set(event_target_value(&e))
                    />
                    <p class="field__error" id=output_error_id>{error_in(LimitField::Output)}</p>
                </div>
                {flag(vision, Key::ModelsVision, listed.vision, "vision")}
                {flag(tools, Key::ModelsTools, listed.tools, "tools")}
                {flag(reasoning, Key::ModelsReasoning, listed.reasoning, "reasoning")}
            </div>
            <p class="field__hint">{tr(Key::ModelsLimitHint)}</p>
            <div class="provider-form__actions">
                <button
                    type="button"
                    class="button button--secondary"
                    on:click=move |_| store(ModelOverrides::default())
                >
                    {tr(Key::ModelsReset)}
                </button>
                <button type="button" class="button button--secondary" on:click=move |_| editing.set(None)>
                    {tr(Key::ProviderCancel)}
                </button>
                <button
                    type="submit"
                    class="button button--primary"
                    aria-busy=move || saving.get().to_string()
                    disabled=move || saving.get()
                >
                    {tr(Key::ProviderSave)}
                </button>
            </div>
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_read_short() {
        assert_eq!(short_tokens(128_000), "128K");
        assert_eq!(short_tokens(131_072), "128K");
        assert_eq!(short_tokens(1_048_576), "1M");
        assert_eq!(short_tokens(2_000_000), "2M");
        assert_eq!(short_tokens(1_500_000), "1500K");
        assert_eq!(short_tokens(4_096), "4K");
        assert_eq!(short_tokens(4_097), "4097");
        assert_eq!(short_tokens(500), "500");
    }

    #[test]
    fn select_values_round_trip() {
        let model = ModelRef {
            provider_id: "p1".into(),
            model: "org/model:free".into(),
        };
        assert_eq!(parse_option(&option_value(&model)), Some(model));
        assert_eq!(parse_option(""), None);
    }
}
