//! The `<select>` of models, grouped by provider: `CompactModelPicker` in the composer,
//! `ModelPicker` (a settings `Field`) for every model setting (default, title,
//! compression, image). It takes its options
//! as a prop, so it does not care where the catalogue of listed models lives.
//!
//! An option's value is a [`ModelRef`] written by [`encode`] and read back by [`decode`]:
//! the length of the provider id, a colon, the provider id, then the model id, so any
//! character may appear in either id (model ids carry `/`, `:` and more) and the value
//! always ends with the model id. The empty value is "no model".

use hearth_core::preferences::ModelRef;
use leptos::prelude::*;

use super::field::{Control, Field};

/// One model a picker offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelOption {
    /// The model's id, as the provider lists it.
    pub id: String,
    /// A friendlier name, when the listing has one; the id is shown otherwise.
    pub name: Option<String>,
}

impl From<String> for ModelOption {
    fn from(id: String) -> Self {
        Self { id, name: None }
    }
}

/// One provider's models, shown as an `<optgroup>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelGroup {
    /// The provider's id.
    pub provider_id: String,
    /// The provider's name (the group's label).
    pub provider_name: String,
    /// Its models, in the order shown.
    pub models: Vec<ModelOption>,
}

/// The option value of `model`.
pub fn encode(model: &ModelRef) -> String {
    format!(
        "{}:{}{}",
        model.provider_id.len(),
        model.provider_id,
        model.model
    )
}

/// The model an option value names; `None` for the empty value ("no model") and for
/// anything [`encode`] did not write.
pub fn decode(value: &str) -> Option<ModelRef> {
    let (length, rest) = value.split_once(':')?;
    let canonical = !length.is_empty()
        && length.bytes().all(|b| b.is_ascii_digit())
        && (length == "0" || !length.starts_with('0'));
    if !canonical {
        return None;
    }
    let length: usize = length.parse().ok()?;
    let provider_id = rest.get(..length)?;
    let model = rest.get(length..)?;
    Some(ModelRef {
        provider_id: provider_id.to_string(),
        model: model.to_string(),
    })
}

/// The options of the groups, with the selected one marked (a `<select>` whose options
/// arrive after its value was set shows the marked one).
fn options(groups: Signal<Vec<ModelGroup>>, selected: Signal<String>) -> impl IntoView {
    move || {
        let current = selected.get();
        groups
            .get()
            .into_iter()
            .map(|group| {
                let options = group
                    .models
                    .into_iter()
                    .map(|option| {
                        let value = encode(&ModelRef {
                            provider_id: group.provider_id.clone(),
                            model: option.id.clone(),
                        });
                        let is_selected = value == current;
                        let text = option.name.unwrap_or(option.id);
                        view! { <option value=value selected=is_selected>{text}</option> }
                    })
                    .collect_view();
                view! { <optgroup label=group.provider_name>{options}</optgroup> }
            })
            .collect_view()
    }
}

/// What a picker's value does when the user changes it: a model is chosen, or (with a
/// "no model" entry) none.
fn picked(on_change: Callback<Option<ModelRef>>, allows_none: bool) -> impl Fn(String) + Copy {
    move |raw: String| {
        let model = decode(&raw);
        if model.is_some() || allows_none {
            on_change.run(model);
        }
    }
}

/// The composer's picker: a small pill, a model always chosen, its label for screen
/// readers only. (Kept apart from [`ModelPicker`] so the first screen does not carry the
/// settings' `Field`.)
#[component]
pub fn CompactModelPicker(
    /// The `<select>`'s id.
    #[prop(into)]
    id: String,
    /// The label's text.
    #[prop(into)]
    label: Signal<String>,
    /// The models offered, by provider.
    #[prop(into)]
    groups: Signal<Vec<ModelGroup>>,
    /// The chosen model.
    #[prop(into)]
    selected: Signal<Option<ModelRef>>,
    /// Called with the model the user chose.
    #[prop(into)]
    on_change: Callback<Option<ModelRef>>,
) -> impl IntoView {
    let value = Signal::derive(move || selected.get().map(|m| encode(&m)).unwrap_or_default());
    let pick = picked(on_change, false);
    let label_for = id.clone();
    view! {
        <label class="visually-hidden" for=label_for>{move || label.get()}</label>
        <select
            id=id
            class="composer__model"
            title=move || label.get()
            prop:value=move || value.get()
            on:change=move |event| pick(event_target_value(&event))
        >
            {options(groups, value)}
        </select>
    }
}

/// A settings picker of one model among `groups`: a [`Field`] with its label and hint.
///
/// With `none`, a first option of that text means "no model" and choosing it calls
/// `on_change(None)`; without it a model is always chosen.
#[component]
pub fn ModelPicker(
    /// The `<select>`'s id.
    #[prop(into)]
    id: String,
    /// The label's text.
    #[prop(into)]
    label: Signal<String>,
    /// The models offered, by provider.
    #[prop(into)]
    groups: Signal<Vec<ModelGroup>>,
    /// The chosen model.
    #[prop(into)]
    selected: Signal<Option<ModelRef>>,
    /// Called with the model the user chose.
    #[prop(into)]
    on_change: Callback<Option<ModelRef>>,
    /// The text of the "no model" entry, when there is one.
    #[prop(optional, into)]
    none: Option<Signal<String>>,
    /// The hint under the picker.
    #[prop(optional, into)]
    hint: Option<Signal<String>>,
) -> impl IntoView {
    let value = Signal::derive(move || selected.get().map(|m| encode(&m)).unwrap_or_default());
    let pick = picked(on_change, none.is_some());
    let none_option = move || {
        none.map(|text| {
            view! { <option value="" selected=move || value.with(String::is_empty)>{move || text.get()}</option> }
        })
    };
    // Every settings picker explains itself.
    let hint = hint.unwrap_or_default();
    view! {
        <Field
            id=id
            label=label
            control=Control::Select
            value=value
            on_input=Callback::new(pick)
            hint=hint
        >
            {none_option}
            {options(groups, value)}
        </Field>
    }
}

/// The models on offer (each enabled provider's listed models, as the composer offers
/// them), grouped by provider, for a picker.
pub fn offered_groups(chat: crate::chat::Chat) -> Signal<Vec<ModelGroup>> {
    let offered = chat.choice.offered();
    Signal::derive(move || {
        offered.with(|offered| {
            offered
                .iter()
                .map(|(provider_id, provider_name, ids)| ModelGroup {
                    provider_id: provider_id.clone(),
                    provider_name: provider_name.clone(),
                    models: ids.iter().cloned().map(ModelOption::from).collect(),
                })
                .collect()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(provider_id: &str, model: &str) -> ModelRef {
        ModelRef {
            provider_id: provider_id.into(),
            model: model.into(),
        }
    }

    #[test]
    fn any_ids_round_trip() {
        for (provider, id) in [
            ("p1", "gpt-4o"),
            ("p1", "org/model:free"),
            ("server:team", "a:b:c"),
            ("p\u{1f}x", "m\u{1f}y"),
            ("12", "34"),
            ("", "model"),
            ("p", ""),
            ("プロバイダ", "模型/🙂"),
            ("3:abc", "0:"),
        ] {
            let value = model(provider, id);
            assert_eq!(decode(&encode(&value)), Some(value), "{provider} / {id}");
        }
    }

    #[test]
    fn a_value_ends_with_the_model_id() {
        // The e2e tests (and anyone reading the DOM) find the chosen model this way.
        assert!(encode(&model("p-7", "fixture-small")).ends_with("fixture-small"));
    }

    #[test]
    fn the_empty_value_and_foreign_values_name_no_model() {
        for value in [
            "",
            "no colon",
            ":p1model",
            "x:p1model",
            "9:short",
            "01:pm",
            "+1:pm",
            "p1\u{1f}model",
        ] {
            assert_eq!(decode(value), None, "{value:?}");
        }
        // A length that would cut a character in two is refused, not a panic.
        assert_eq!(decode("1:ü-model"), None);
    }

    #[test]
    fn a_bare_id_is_an_option_without_a_name() {
        assert_eq!(
            ModelOption::from("m".to_string()),
            ModelOption {
                id: "m".into(),
                name: None
            }
        );
    }
}
