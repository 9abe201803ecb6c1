//! A template's form, above the composer: one field per variable, of its kind (a line
//! of text, a paragraph, a number, a date, a choice). Insert checks every value in core
//! (`Parsed::fill`), marks each that does not fit and focuses the first (from then on
//! each field is checked again as it changes); once all fit,
//! the filled text becomes the composer's text, to read and send. Escape or Cancel goes
//! back to the composer with its text as it was.

use hearth_core::template::{Parsed, ValueProblem, VariableKind, check, parse};
use leptos::ev::{KeyboardEvent, SubmitEvent};
use leptos::prelude::*;

use super::Commands;
use crate::i18n::{I18n, Key, use_i18n};
use crate::shell::COMPOSER_INPUT_ID;
use crate::templates::use_templates;

/// The form of the template `id`.
#[component]
pub(super) fn TemplateForm(id: String, commands: Commands) -> impl IntoView {
    let i18n = use_i18n();
    let templates = use_templates();
    let template = templates.library().with_untracked(|l| {
        l.as_ref()
            .and_then(|l| l.get(&id))
            .and_then(|t| parse(&t.body).ok().map(|p| (t.title.clone(), p)))
    });
    let close = move || {
        commands.filling.set(None);
        crate::browser::focus_by_id(COMPOSER_INPUT_ID);
    };
    let Some((title, parsed)) = template else {
        // Deleted meanwhile (another tab): nothing to fill.
        close();
        return ().into_any();
    };
    let values: Vec<RwSignal<String>> = parsed
        .variables
        .iter()
        .map(|_| RwSignal::new(String::new()))
        .collect();
    // Whether Insert was tried: from then on every field shows what does not fit, live.
    let tried = RwSignal::new(false);
    request_animation_frame(|| crate::browser::focus_by_id(&field_id(0)));
    let submit = {
        let parsed = parsed.clone();
        let values = values.clone();
        move |event: SubmitEvent| {
            event.prevent_default();
            let filled: Vec<String> = values.iter().map(|v| v.get_untracked()).collect();
            match parsed.fill(&filled) {
                Ok(text) => {
                    commands.text.set(text);
                    close();
                }
                Err(found) => {
                    tried.set(true);
                    if let Some((first, _)) = found.first() {
                        crate::browser::focus_by_id(&field_id(*first));
                    }
                }
            }
        }
    };
    let on_keydown = move |event: KeyboardEvent| {
        if event.key() == "Escape" {
            event.prevent_default();
            event.stop_propagation();
            close();
        }
    };
    let fields = fields(&parsed, &values, tried, i18n);
    view! {
        <form class="slash-menu template-form" id="template-form" novalidate
            aria-labelledby="template-form-title" on:submit=submit on:keydown=on_keydown>
            <h2 class="template-form__title" id="template-form-title">
                {move || i18n.t_with(Key::TemplateFormTitle, &[("title", &title)])}
            </h2>
            {fields}
            <div class="template-form__actions">
                <button type="button" class="button button--secondary button--small"
                    id="template-form-cancel" on:click=move |_| close()>
                    {move || i18n.t(Key::TemplateFormCancel)}
                </button>
                <button type="submit" class="button button--primary button--small" id="template-form-insert">
                    {move || i18n.t(Key::TemplateFormInsert)}
                </button>
            </div>
        </form>
    }
    .into_any()
}

/// The id of the field of variable `index`.
fn field_id(index: usize) -> String {
    format!("template-field-{index}")
}

/// One labelled field per variable, with its problem under it once Insert was `tried`.
fn fields(
    parsed: &Parsed,
    values: &[RwSignal<String>],
    tried: RwSignal<bool>,
    i18n: I18n,
) -> impl IntoView {
    parsed
        .variables
        .iter()
        .enumerate()
        .map(|(index, variable)| {
            let value = values[index];
            let id = field_id(index);
            let error_id = format!("{id}-error");
            let kind = variable.kind.clone();
            let problem = Memo::new(move |_| {
                tried
                    .get()
                    .then(|| value.with(|v| check(&kind, v).err()))
                    .flatten()
            });
            let invalid = move || problem.get().is_some().to_string();
            let on_input = move |event: leptos::ev::Event| value.set(event_target_value(&event));
            let control = match &variable.kind {
                VariableKind::Paragraph => view! {
                    <textarea id=id.clone() class="input template-form__paragraph" rows="4"
                        aria-invalid=invalid aria-describedby=error_id.clone()
                        prop:value=move || value.get() on:input=on_input></textarea>
                }
                .into_any(),
                VariableKind::Choice(options) => {
                    let options = options
                        .iter()
                        .map(|o| view! { <option value=o.clone()>{o.clone()}</option> })
                        .collect_view();
                    view! {
                        <select id=id.clone() class="input" aria-invalid=invalid
                            aria-describedby=error_id.clone()
                            prop:value=move || value.get() on:change=on_input>
                            <option value="">{move || i18n.t(Key::TemplateFormChoose)}</option>
                            {options}
                        </select>
                    }
                    .into_any()
                }
                kind => {
                    let kind = match kind {
                        VariableKind::Number => "number",
                        VariableKind::Date => "date",
                        _ => "text",
                    };
                    view! {
                        <input id=id.clone() class="input" type=kind autocomplete="off"
                            aria-invalid=invalid aria-describedby=error_id.clone()
                            prop:value=move || value.get() on:input=on_input />
                    }
                    .into_any()
                }
            };
            view! {
                <div class="field template-form__field">
                    <label class="field__label" for=id.clone()>{variable.name.clone()}</label>
                    {control}
                    <p class="field__error" id=error_id>
                        {move || problem.get().map(|p| problem_text(p, i18n))}
                    </p>
                </div>
            }
        })
        .collect_view()
}

/// Why a value does not fit, in the user's language.
fn problem_text(problem: ValueProblem, i18n: I18n) -> String {
    match problem {
        ValueProblem::Missing => i18n.t(Key::TemplateValueMissing),
        ValueProblem::TooLong => i18n.t_with(
            Key::TemplateValueTooLong,
            &[("max", &hearth_core::template::MAX_VALUE_CHARS.to_string())],
        ),
        ValueProblem::LineBreak => i18n.t(Key::TemplateValueOneLine),
        ValueProblem::NotANumber => i18n.t(Key::TemplateValueNumber),
        ValueProblem::NotADate => i18n.t(Key::TemplateValueDate),
        ValueProblem::NotAnOption => i18n.t(Key::TemplateValueChoice),
    }
}
