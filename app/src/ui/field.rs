//! `Field`: one labelled form control with an optional hint and an optional error, wired
//! the way assistive technology reads them. The label names the control (`for`/`id`),
//! the hint and the error are its description (`aria-describedby`), and an error marks
//! it `aria-invalid`. Every settings form builds its fields from this, so a field can no
//! longer lose its label or its error's link by being written by hand.
//!
//! Ids follow the control's: the hint is `<id>-hint`, the error `<id>-error` (e2e tests
//! and `focus_by_id` rely on them). The error paragraph is always in the page (empty and
//! hidden by `.field__error:empty` when there is none) with `role="alert"`, so a message
//! that appears is announced.

use leptos::prelude::*;

/// The control a [`Field`] holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Control {
    /// `<input type="text">`.
    #[default]
    Text,
    /// `<input type="password">`: never spell-checked, never autofilled.
    Password,
    /// `<input type="url">`.
    Url,
    /// `<input type="number">`.
    Number,
    /// `<input type="search">`.
    Search,
    /// `<textarea>` of this many rows.
    Textarea(u32),
    /// `<select>`; the options are the field's children.
    Select,
}

impl Control {
    /// The `type` of an `<input>`, `None` for the other elements.
    fn input_type(self) -> Option<&'static str> {
        match self {
            Control::Text => Some("text"),
            Control::Password => Some("password"),
            Control::Url => Some("url"),
            Control::Number => Some("number"),
            Control::Search => Some("search"),
            Control::Textarea(_) | Control::Select => None,
        }
    }
}

/// The id of the hint of the control `id`.
pub fn hint_id(id: &str) -> String {
    format!("{id}-hint")
}

/// The id of the error of the control `id`.
pub fn error_id(id: &str) -> String {
    format!("{id}-error")
}

/// The control's `aria-describedby`: its error first (what to fix), then its hint, then
/// any other description (a character count, a form-wide message).
fn described_by(id: &str, hint: bool, error: bool, extra: Option<&str>) -> Option<String> {
    let ids: Vec<String> = [
        error.then(|| error_id(id)),
        hint.then(|| hint_id(id)),
        extra.filter(|e| !e.trim().is_empty()).map(str::to_string),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!ids.is_empty()).then(|| ids.join(" "))
}

/// A labelled control with its hint and error.
///
/// `value` is what the control shows; `on_input` receives what the user typed (on every
/// `input`) or chose (on `change`, for a select). `error` is the message under the
/// control; `invalid` marks the control invalid without a message (a limit passed while
/// typing), and is implied by an error.
#[component]
pub fn Field(
    /// The control's id.
    #[prop(into)]
    id: String,
    /// The label's text.
    #[prop(into)]
    label: Signal<String>,
    /// Which control.
    #[prop(optional)]
    control: Control,
    /// What the control shows.
    #[prop(into)]
    value: Signal<String>,
    /// Called with the control's new value.
    #[prop(into)]
    on_input: Callback<String>,
    /// The hint under the control.
    #[prop(optional, into)]
    hint: Option<Signal<String>>,
    /// The error under the control, when there is one.
    #[prop(optional, into)]
    error: Option<Signal<Option<String>>>,
    /// Marks the control invalid while true, with or without an error.
    #[prop(optional, into)]
    invalid: Option<Signal<bool>>,
    /// The placeholder of a text-like control.
    #[prop(optional, into)]
    placeholder: Option<Signal<String>>,
    /// Ids of other elements that describe the control.
    #[prop(optional, into)]
    described_by_extra: Option<String>,
    /// The `inputmode` of a text-like control (`numeric`, …).
    #[prop(optional)]
    inputmode: Option<&'static str>,
    /// Whether the browser checks the spelling (off for names, URLs and keys).
    #[prop(optional)]
    spellcheck: bool,
    /// Keeps the label for screen readers only (a search box with a placeholder).
    #[prop(optional)]
    label_hidden: bool,
    /// Shown beside the hint (a character count).
    #[prop(optional, into)]
    aside: Option<ViewFn>,
    /// The options of a [`Control::Select`].
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let described = described_by(
        &id,
        hint.is_some(),
        error.is_some(),
        described_by_extra.as_deref(),
    );
    let is_invalid = move || {
        let has_error = error.is_some_and(|e| e.with(Option::is_some));
        (has_error || invalid.is_some_and(|i| i.get())).to_string()
    };
    let placeholder = move || placeholder.map(|p| p.get());
    let spellcheck = if spellcheck { "true" } else { "false" };
    let input = move |event: leptos::ev::Event| on_input.run(event_target_value(&event));
    let control_view = match control {
        Control::Select => view! {
            <select
                id=id.clone()
                class="select"
                aria-describedby=described.clone()
                aria-invalid=is_invalid
                prop:value=move || value.get()
                on:change=input
            >
                {children.map(|c| c())}
            </select>
        }
        .into_any(),
        Control::Textarea(rows) => view! {
            <textarea
                id=id.clone()
                class="input textarea"
                rows=rows
                spellcheck=spellcheck
                placeholder=placeholder
                aria-describedby=described.clone()
                aria-invalid=is_invalid
                prop:value=move || value.get()
                on:input=input
            ></textarea>
        }
        .into_any(),
        other => view! {
            <input
                id=id.clone()
                class="input"
                type=other.input_type()
                autocomplete="off"
                spellcheck=spellcheck
                inputmode=inputmode
                placeholder=placeholder
                aria-describedby=described.clone()
                aria-invalid=is_invalid
                prop:value=move || value.get()
                on:input=input
            />
        }
        .into_any(),
    };
    let hint_view = hint.map(|hint| {
        let hint_id = hint_id(&id);
        view! { <p class="field__hint" id=hint_id>{move || hint.get()}</p> }
    });
    let below = match aside {
        Some(aside) => view! { <div class="field__row">{hint_view}{aside.run()}</div> }.into_any(),
        None => hint_view.into_any(),
    };
    let error_view = error.map(|error| {
        let error_id = error_id(&id);
        view! { <p class="field__error" id=error_id role="alert">{move || error.get()}</p> }
    });
    let label_class = if label_hidden {
        "field__label visually-hidden"
    } else {
        "field__label"
    };
    view! {
        <div class="field">
            <label class=label_class for=id.clone()>
                {move || label.get()}
            </label>
            {control_view}
            {below}
            {error_view}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_names_the_error_then_the_hint_then_the_rest() {
        assert_eq!(described_by("name", false, false, None), None);
        assert_eq!(
            described_by("name", true, false, None).as_deref(),
            Some("name-hint")
        );
        assert_eq!(
            described_by("name", true, true, Some("name-count")).as_deref(),
            Some("name-error name-hint name-count")
        );
        assert_eq!(
            described_by("name", false, true, Some(" ")).as_deref(),
            Some("name-error")
        );
    }

    #[test]
    fn inputs_have_their_type_and_other_controls_none() {
        assert_eq!(Control::Password.input_type(), Some("password"));
        assert_eq!(Control::Url.input_type(), Some("url"));
        assert_eq!(Control::default().input_type(), Some("text"));
        assert_eq!(Control::Textarea(4).input_type(), None);
        assert_eq!(Control::Select.input_type(), None);
    }
}
