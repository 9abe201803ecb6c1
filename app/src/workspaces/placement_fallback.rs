//! The "Model fallback" part of a conversation's dialog (`super::placement`): its policy
//! (pinned, resilient, adaptive: `hearth_core::chat::fallback`) and up to three models
//! that may answer instead, in order. What is chosen here is saved with the dialog.

use hearth_core::chat::fallback::{Fallback, FallbackPolicy, MAX_ALTERNATIVES};
use hearth_core::preferences::ModelRef;
use leptos::prelude::*;

use crate::i18n::{Key, tr, use_i18n};
use crate::ui::field::{Control, Field};
use crate::ui::model_picker::{ModelPicker, offered_groups};

fn slug(policy: FallbackPolicy) -> &'static str {
    match policy {
        FallbackPolicy::Pinned => "pinned",
        FallbackPolicy::Resilient => "resilient",
        FallbackPolicy::Adaptive => "adaptive",
    }
}

/// The policy a select's value names.
fn policy_of(slug: &str) -> FallbackPolicy {
    match slug {
        "resilient" => FallbackPolicy::Resilient,
        "adaptive" => FallbackPolicy::Adaptive,
        _ => FallbackPolicy::Pinned,
    }
}

/// The fields, editing `setting`.
#[component]
pub fn FallbackFields(setting: RwSignal<Fallback>) -> impl IntoView {
    let i18n = use_i18n();
    let groups = offered_groups(crate::chat::use_chat());
    let policy = Signal::derive(move || slug(setting.with(|s| s.policy)).to_string());
    let pinned = move || setting.with(|s| s.policy == FallbackPolicy::Pinned);
    let pickers = move || {
        (0..MAX_ALTERNATIVES)
        .map(|index| {
            let selected = Signal::derive(move || setting.with(|s| s.models.get(index).cloned()));
            let change = move |model: Option<ModelRef>| {
                setting.update(|s| {
                    let mut models: Vec<Option<ModelRef>> =
                        (0..MAX_ALTERNATIVES).map(|i| s.models.get(i).cloned()).collect();
                    models[index] = model;
                    s.models = models.into_iter().flatten().collect();
                    *s = std::mem::take(s).repaired();
                });
            };
            view! {
                <ModelPicker
                    id=format!("placement-fallback-{index}")
                    label=Signal::derive(move || i18n.t_with(Key::FallbackAlternative, &[("number", &(index + 1).to_string())]))
                    groups=groups
                    selected=selected
                    on_change=Callback::new(change)
                    none=Signal::derive(move || i18n.t(Key::FallbackNone))
                />
            }
        })
        .collect_view()
    };
    view! {
        <fieldset class="field placement-fallback">
            <legend class="settings-subheading">{tr(Key::FallbackTitle)}</legend>
            <Field id="placement-fallback-policy" label=tr(Key::FallbackPolicy) control=Control::Select
                value=policy on_input=move |v: String| setting.update(|s| s.policy = policy_of(&v))
                hint=tr(Key::FallbackHint)>
                {[
                    (FallbackPolicy::Pinned, Key::FallbackPinned),
                    (FallbackPolicy::Resilient, Key::FallbackResilient),
                    (FallbackPolicy::Adaptive, Key::FallbackAdaptive),
                ]
                    .into_iter()
                    .map(|(choice, key)| view! {
                        <option value=slug(choice) selected=move || policy.get() == slug(choice)>{tr(key)}</option>
                    })
                    .collect_view()}
            </Field>
            <Show when=move || !pinned()>{pickers}</Show>
        </fieldset>
    }
}
