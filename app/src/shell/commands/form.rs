//! The form above the composer that fills a template's variables or an MCP prompt's
//! arguments: one field per variable, of its kind (a line of text, a paragraph, a
//! number, a date, a choice; an argument is a line, optional unless the server needs
//! it). Insert checks every value in core (`Parsed::fill`, `arguments_to_send`), marks
//! each that does not fit and focuses the first (from then on each field is checked again
//! as it changes). A template's filled text becomes the composer's text at once; a
//! prompt is got from its server through the edge (Insert says so while it runs, a
//! failure is said in the form and keeps the values), and its messages' text becomes the
//! composer's text, to read and send. Escape or Cancel goes back to the composer with
//! its text as it was.

use hearth_core::api::McpPromptsAction;
use hearth_core::plugin::mcp_prompt::{
    MAX_PROMPT_CHARS, McpPrompt, arguments_to_send, prompt_text,
};
use hearth_core::template::{ValueProblem, VariableKind, check, parse};
use leptos::ev::{KeyboardEvent, SubmitEvent};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{Commands, Filling};
use crate::i18n::{I18n, Key, use_i18n};
use crate::shell::COMPOSER_INPUT_ID;
use crate::templates::use_templates;
use crate::ui::toast::{ToastKind, use_toasts};

/// One field of the form.
#[derive(Clone, Debug)]
struct FieldSpec {
    /// Its label: the variable's or argument's name.
    label: String,
    /// What the server says the argument is (empty for a template's variable).
    hint: String,
    /// What it takes.
    kind: VariableKind,
    /// Whether it must be filled in.
    required: bool,
}

impl FieldSpec {
    /// Why `value` does not fit, if it does not.
    fn problem(&self, value: &str) -> Option<ValueProblem> {
        if !self.required && value.trim().is_empty() {
            return None;
        }
        check(&self.kind, value).err()
    }
}

/// What the form fills, read: its title, its fields, and how Insert makes the text.
enum Source {
    Template(hearth_core::template::Parsed),
    Prompt {
        plugin_id: String,
        prompt: McpPrompt,
    },
}

/// The form for `filling`.
#[component]
pub(super) fn FillForm(filling: Filling, commands: Commands) -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let plugins = crate::plugins::use_plugins();
    let close = move || {
        commands.filling.set(None);
        crate::browser::focus_by_id(COMPOSER_INPUT_ID);
    };
    let read = match filling {
        Filling::Template(id) => use_templates()
            .library()
            .with_untracked(|l| {
                l.as_ref()
                    .and_then(|l| l.get(&id))
                    .and_then(|t| parse(&t.body).ok().map(|p| (t.title.clone(), p)))
            })
            .map(|(title, parsed)| {
                let fields = parsed
                    .variables
                    .iter()
                    .map(|v| FieldSpec {
                        label: v.name.clone(),
                        hint: String::new(),
                        kind: v.kind.clone(),
                        required: true,
                    })
                    .collect::<Vec<_>>();
                (title, fields, Source::Template(parsed))
            }),
        Filling::Prompt {
            plugin_id,
            server,
            prompt,
        } => {
            let fields = prompt
                .arguments
                .iter()
                .map(|a| FieldSpec {
                    label: a.name.clone(),
                    hint: a.description.clone(),
                    kind: VariableKind::Text,
                    required: a.required,
                })
                .collect::<Vec<_>>();
            Some((
                format!("{} · {server}", prompt.title),
                fields,
                Source::Prompt { plugin_id, prompt },
            ))
        }
    };
    let Some((title, fields, source)) = read else {
        // Deleted meanwhile (another tab): nothing to fill.
        close();
        return ().into_any();
    };
    let values: Vec<RwSignal<String>> = fields
        .iter()
        .map(|_| RwSignal::new(String::new()))
        .collect();
    // Whether Insert was tried: from then on every field shows what does not fit, live.
    let tried = RwSignal::new(false);
    let busy = RwSignal::new(false);
    let failure = RwSignal::new(None::<String>);
    let first = if fields.is_empty() {
        "template-form-insert".to_string()
    } else {
        field_id(0)
    };
    request_animation_frame(move || crate::browser::focus_by_id(&first));
    let source = StoredValue::new_local(source);
    let submit = {
        let values = values.clone();
        move |event: SubmitEvent| {
            event.prevent_default();
            if busy.get_untracked() {
                return;
            }
            let filled: Vec<String> = values.iter().map(|v| v.get_untracked()).collect();
            let refused = |first: Option<usize>| {
                tried.set(true);
                if let Some(first) = first {
                    crate::browser::focus_by_id(&field_id(first));
                }
            };
            source.with_value(|source| match source {
                Source::Template(parsed) => match parsed.fill(&filled) {
                    Ok(text) => {
                        commands.text.set(text);
                        close();
                    }
                    Err(found) => refused(found.first().map(|(i, _)| *i)),
                },
                Source::Prompt { plugin_id, prompt } => match arguments_to_send(prompt, &filled) {
                    Err(found) => refused(found.first().map(|(i, _)| *i)),
                    Ok(args) => {
                        let action = McpPromptsAction::Get {
                            name: prompt.name.clone(),
                            args,
                        };
                        let plugin_id = plugin_id.clone();
                        busy.set(true);
                        failure.set(None);
                        spawn_local(async move {
                            let got = plugins.mcp_prompts(&plugin_id, action).await;
                            let _ = busy.try_set(false);
                            let outcome = got
                                .map_err(|e| {
                                    i18n.t_with(
                                        Key::TemplateFormPromptFailed,
                                        &[("reason", &e.to_string())],
                                    )
                                })
                                .and_then(|value| {
                                    prompt_text(&value)
                                        .map_err(|_| i18n.t(Key::TemplateFormPromptEmpty))
                                });
                            match outcome {
                                Ok(got) => {
                                    if got.left_out > 0 {
                                        toasts.show(
                                            ToastKind::Info,
                                            i18n.t_with(
                                                Key::TemplateFormPromptLeftOut,
                                                &[("count", &got.left_out.to_string())],
                                            ),
                                        );
                                    }
                                    if got.cut {
                                        toasts.show(
                                            ToastKind::Info,
                                            i18n.t_with(
                                                Key::TemplateFormPromptCut,
                                                &[("max", &MAX_PROMPT_CHARS.to_string())],
                                            ),
                                        );
                                    }
                                    commands.text.set(got.text);
                                    close();
                                }
                                Err(reason) => {
                                    let _ = failure.try_set(Some(reason));
                                }
                            }
                        });
                    }
                },
            });
        }
    };
    let on_keydown = move |event: KeyboardEvent| {
        if event.key() == "Escape" {
            event.prevent_default();
            event.stop_propagation();
            close();
        }
    };
    let fields = field_views(&fields, &values, tried, i18n);
    view! {
        <form class="slash-menu template-form" id="template-form" novalidate
            aria-labelledby="template-form-title" aria-busy=move || busy.get().to_string()
            on:submit=submit on:keydown=on_keydown>
            <h2 class="template-form__title" id="template-form-title">
                {move || i18n.t_with(Key::TemplateFormTitle, &[("title", &title)])}
            </h2>
            {fields}
            <p class="field__error" role="alert" id="template-form-failure">{move || failure.get()}</p>
            <div class="template-form__actions">
                <button type="button" class="button button--secondary button--small"
                    id="template-form-cancel" on:click=move |_| close()>
                    {move || i18n.t(Key::TemplateFormCancel)}
                </button>
                <button type="submit" class="button button--primary button--small" id="template-form-insert"
                    disabled=move || busy.get()>
                    {move || i18n.t(if busy.get() { Key::TemplateFormGetting } else { Key::TemplateFormInsert })}
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

/// One labelled field per variable, with its hint and, once Insert was `tried`, its
/// problem under it.
fn field_views(
    fields: &[FieldSpec],
    values: &[RwSignal<String>],
    tried: RwSignal<bool>,
    i18n: I18n,
) -> impl IntoView {
    fields
        .iter()
        .enumerate()
        .map(|(index, spec)| {
            let value = values[index];
            let id = field_id(index);
            let error_id = format!("{id}-error");
            let hint_id = format!("{id}-hint");
            let described = if spec.hint.is_empty() {
                error_id.clone()
            } else {
                format!("{hint_id} {error_id}")
            };
            let checked = spec.clone();
            let problem = Memo::new(move |_| {
                tried
                    .get()
                    .then(|| value.with(|v| checked.problem(v)))
                    .flatten()
            });
            let invalid = move || problem.get().is_some().to_string();
            let on_input = move |event: leptos::ev::Event| value.set(event_target_value(&event));
            let control = match &spec.kind {
                VariableKind::Paragraph => view! {
                    <textarea id=id.clone() class="input template-form__paragraph" rows="4"
                        aria-invalid=invalid aria-describedby=described.clone()
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
                            aria-describedby=described.clone()
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
                            aria-invalid=invalid aria-describedby=described.clone()
                            aria-required=spec.required.to_string()
                            prop:value=move || value.get() on:input=on_input />
                    }
                    .into_any()
                }
            };
            let label = if spec.required {
                spec.label.clone()
            } else {
                format!("{} ({})", spec.label, i18n.t(Key::TemplateFormOptional))
            };
            view! {
                <div class="field template-form__field">
                    <label class="field__label" for=id.clone()>{label}</label>
                    {control}
                    {(!spec.hint.is_empty()).then(|| view! {
                        <p class="field__hint" id=hint_id.clone()>{spec.hint.clone()}</p>
                    })}
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
