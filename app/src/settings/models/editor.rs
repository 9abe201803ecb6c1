//! Settings › Models › one model's editor: context and output limits read as people
//! write them (`128k`, `1M`) by `hearth_core::preferences::parse_token_limit`, vision,
//! tools and reasoning as the listing says or the user's yes or no, checked together
//! (`ModelOverrides::validate`) with the message under the field at fault. Reset goes
//! back to the listing.

use hearth_core::preferences::{LimitError, ModelOverrides, ModelRef, parse_token_limit};
use hearth_core::provider::request::ModelCapabilities;
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::preferences::use_prefs;
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, use_toasts};

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

/// One model's inline form: its limits and its three yes/no capabilities, each either
/// the listing's or the user's.
#[component]
pub(super) fn ModelForm(
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
    let error = RwSignal::new(None::<(LimitField, LimitError)>);
    let saving = RwSignal::new(false);
    let slug: String = model
        .model
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let id = move |part: &str| format!("model-{slug}-{part}");
    let context_id = id("context");
    let output_id = id("output");
    let error_in = move |field: LimitField| {
        Signal::derive(move || {
            error.with(|e| {
                e.as_ref()
                    .filter(|(f, _)| *f == field)
                    .map(|(_, problem)| limit_message(i18n, problem))
            })
        })
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
            let fail = |field: LimitField, problem: LimitError, focus: &str| {
                error.set(Some((field, problem)));
                crate::browser::focus_by_id(focus);
            };
            let context_window = match parse_token_limit(&context.get_untracked()) {
                Ok(n) => n,
                Err(e) => return fail(LimitField::Context, e, &context_id),
            };
            let max_output_tokens = match parse_token_limit(&output.get_untracked()) {
                Ok(n) => n,
                Err(e) => return fail(LimitField::Output, e, &output_id),
            };
            let overrides = ModelOverrides {
                vision: vision.get_untracked(),
                tools: tools.get_untracked(),
                reasoning: reasoning.get_untracked(),
                context_window,
                max_output_tokens,
            };
            if let Err(e) = overrides.validate(listed) {
                return fail(LimitField::Output, e, &output_id);
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
                <Field
                    id=select_id
                    label=tr(key)
                    control=Control::Select
                    value=move || flag_value(field.get()).to_string()
                    on_input=move |v: String| field.set(parse_flag(&v))
                >
                    <option value="listed">{listed_text}</option>
                    <option value="yes">{tr(Key::ModelsYes)}</option>
                    <option value="no">{tr(Key::ModelsNo)}</option>
                </Field>
            }
        };
    view! {
        <form class="model-form" on:submit=submit novalidate>
            <div class="model-form__grid">
                <Field
                    id=context_id
                    label=tr(Key::ModelsContext)
                    value=context
                    on_input=move |v| context.set(v)
                    inputmode="numeric"
                    placeholder=listed_limit(listed.context_window)
                    error=error_in(LimitField::Context)
                />
                <Field
                    id=output_id
                    label=tr(Key::ModelsOutput)
                    value=output
                    on_input=move |v| output.set(v)
                    inputmode="numeric"
                    placeholder=listed_limit(listed.max_output_tokens)
                    error=error_in(LimitField::Output)
                />
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
