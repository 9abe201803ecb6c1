//! Settings › Templates: the user's prompt templates (`crate::templates`). New template,
//! and per template Edit, its earlier versions with Restore, and Delete with Undo. The
//! editor reads the text as it is typed and lists its variables, or says what is wrong
//! and on which line; the command is made from the title until the user writes one.

use hearth_core::template::library::{
    LibraryError, MAX_COMMAND_CHARS, MAX_TEMPLATES, MAX_TITLE_CHARS, PromptTemplate, TemplateDraft,
    command_from_title,
};
use hearth_core::template::{MAX_BODY_CHARS, TemplateError, VariableKind, parse};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::templates::{TemplatesError, use_templates};
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastAction, ToastKind, use_toasts};

/// What the editor is open for: a new template, or the one with this id.
type Editing = Option<Option<String>>;

/// The Templates tab.
#[component]
pub fn TemplatesPanel() -> impl IntoView {
    let templates = use_templates();
    let i18n = use_i18n();
    let toasts = use_toasts();
    spawn_local(async move {
        if let Err(error) = templates.ensure_loaded().await {
            toasts.show(ToastKind::Error, error_text(&error, i18n));
        }
    });
    let editing = RwSignal::new(None::<Option<String>>);
    let list = move || {
        templates
            .library()
            .with(|l| l.as_ref().map(|l| l.templates.clone()).unwrap_or_default())
    };
    view! {
        <div class="settings-section templates-panel">
            <p class="settings-section__text">{tr(Key::TemplatesIntro)}</p>
            <p class="field__hint" id="templates-syntax">{tr(Key::TemplatesSyntax)}</p>
            <div class="skills-actions">
                <button type="button" class="button button--secondary button--small" id="templates-new"
                    on:click=move |_| editing.set(Some(None))>
                    {tr(Key::TemplatesNew)}
                </button>
                <span class="field__hint">
                    {move || i18n.t_with(Key::TemplatesCount, &[
                        ("count", &list().len().to_string()),
                        ("max", &MAX_TEMPLATES.to_string()),
                    ])}
                </span>
            </div>
            {move || editing.get().map(|open| view! { <TemplateEditor open editing /> })}
            {move || list().is_empty().then(|| view! {
                <p class="field__hint" id="templates-empty">{tr(Key::TemplatesEmpty)}</p>
            })}
            <ul class="plugin-list" id="templates-list">
                <For each=list key=|t| (t.id.clone(), t.updated_at.to_bits(), t.title.clone(), t.command.clone()) let:template>
                    <TemplateCard template editing />
                </For>
            </ul>
        </div>
    }
}

/// One template: its title, command and variables, Edit, its versions, Delete.
#[component]
fn TemplateCard(template: PromptTemplate, editing: RwSignal<Editing>) -> impl IntoView {
    let templates = use_templates();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let show_versions = RwSignal::new(false);
    let id = template.id.clone();
    let variables = parse(&template.body)
        .map(|p| {
            p.variables
                .iter()
                .map(|v| v.name.clone())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let label = {
        let title = template.title.clone();
        move |key: Key| format!("{}: {}", i18n.t(key), title)
    };
    let remove = {
        let id = id.clone();
        move |_| {
            let id = id.clone();
            spawn_local(async move {
                match templates.remove(id).await {
                    Ok(removed) => {
                        let title = removed.title.clone();
                        let undo = Callback::new(move |()| {
                            let removed = removed.clone();
                            spawn_local(async move {
                                if let Err(error) =
                                    templates.change(move |l| l.put_back(removed)).await
                                {
                                    toasts.show(ToastKind::Error, error_text(&error, i18n));
                                }
                            });
                        });
                        toasts.show_with_action(
                            i18n.t_with(Key::TemplatesDeleted, &[("title", &title)]),
                            ToastAction {
                                label: i18n.t(Key::ChatUndo),
                                run: undo,
                            },
                        );
                        crate::browser::focus_by_id("templates-new");
                    }
                    Err(error) => toasts.show(ToastKind::Error, error_text(&error, i18n)),
                }
            });
        }
    };
    let versions = template.versions.clone();
    let version_count = versions.len();
    let restore = Callback::new(move |index: usize| {
        let id = id.clone();
        spawn_local(async move {
            let now = crate::browser::now();
            match templates.change(move |l| l.restore(&id, index, now)).await {
                Ok(()) => toasts.show(ToastKind::Info, i18n.t(Key::TemplatesRestored)),
                Err(error) => toasts.show(ToastKind::Error, error_text(&error, i18n)),
            }
        });
    });
    let edit_id = template.id.clone();
    view! {
        <li class="plugin-card template-card" data-template=template.id.clone()>
            <div class="plugin-card__head">
                <div class="plugin-card__main">
                    <span class="plugin-card__title">{template.title.clone()}</span>
                    <span class="plugin-card__meta">
                        <code data-template-command="">{format!("/{}", template.command)}</code>
                        {(!variables.is_empty()).then(|| view! {
                            <span>{format!(" · {}", variables.join(", "))}</span>
                        })}
                    </span>
                </div>
            </div>
            <p class="plugin-card__description template-card__body">{first_lines(&template.body)}</p>
            <div class="skill-card__actions">
                <button type="button" class="button button--secondary button--small" data-template-edit=""
                    aria-label=label(Key::ProviderEdit)
                    on:click=move |_| editing.set(Some(Some(edit_id.clone())))>{tr(Key::ProviderEdit)}</button>
                {(version_count > 0).then(|| view! {
                    <button type="button" class="button button--secondary button--small" data-template-versions=""
                        aria-expanded=move || show_versions.get().to_string()
                        on:click=move |_| show_versions.update(|s| *s = !*s)>
                        {move || i18n.t_with(Key::TemplatesVersions, &[("count", &version_count.to_string())])}
                    </button>
                })}
                <button type="button" class="button button--secondary button--small" data-template-delete=""
                    aria-label=label(Key::TemplatesDelete) on:click=remove>{tr(Key::TemplatesDelete)}</button>
            </div>
            <Show when=move || show_versions.get()>
                <ol class="template-versions" reversed>
                    {versions.iter().enumerate().rev().map(|(index, version)| {
                        let when = js_sys::Date::new(&version.saved_at.into())
                            .to_locale_string(i18n.locale().tag(), &wasm_bindgen::JsValue::UNDEFINED)
                            .as_string()
                            .unwrap_or_default();
                        view! {
                            <li class="template-version" data-template-version=index.to_string()>
                                <span class="field__hint">{when}</span>
                                <p class="template-card__body">{first_lines(&version.body)}</p>
                                <button type="button" class="button button--secondary button--small"
                                    data-template-restore="" on:click=move |_| restore.run(index)>
                                    {tr(Key::TemplatesRestore)}
                                </button>
                            </li>
                        }
                    }).collect_view()}
                </ol>
            </Show>
        </li>
    }
}

/// The first lines of a text, for a card (at most 3 lines, 240 characters).
fn first_lines(body: &str) -> String {
    let mut out: String = body.lines().take(3).collect::<Vec<_>>().join("\n");
    if out.chars().count() > 240 {
        out = out.chars().take(240).collect();
        out.push('…');
    } else if body.lines().count() > 3 {
        out.push('…');
    }
    out
}

/// The editor: title, command, text; the text's variables or what is wrong with it.
#[component]
fn TemplateEditor(open: Option<String>, editing: RwSignal<Editing>) -> impl IntoView {
    let templates = use_templates();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let existing = open.as_ref().and_then(|id| {
        templates
            .library()
            .with_untracked(|l| l.as_ref().and_then(|l| l.get(id).cloned()))
    });
    let start = existing.clone().unwrap_or_default();
    let title = RwSignal::new(start.title.clone());
    let command = RwSignal::new(start.command.clone());
    // The command follows the title until the user writes one.
    let command_written = RwSignal::new(existing.is_some());
    let body = RwSignal::new(start.body.clone());
    let error = RwSignal::new(None::<String>);
    let saving = RwSignal::new(false);
    request_animation_frame(|| crate::browser::focus_by_id("template-editor-title"));
    let read = Memo::new(move |_| body.with(|b| parse(b)));
    let status = move || -> (bool, String) {
        if body.with(|b| b.trim().is_empty()) {
            return (false, String::new());
        }
        match read.get() {
            Ok(parsed) if parsed.variables.is_empty() => (false, i18n.t(Key::TemplatesNoVariables)),
            Ok(parsed) => {
                let list: Vec<String> = parsed
                    .variables
                    .iter()
                    .map(|v| format!("{} ({})", v.name, i18n.t(kind_key(&v.kind))))
                    .collect();
                (
                    false,
                    i18n.t_with(Key::TemplatesVariables, &[("list", &list.join(", "))]),
                )
            }
            Err(problem) => (true, template_error_text(&problem, i18n)),
        }
    };
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        let draft = TemplateDraft {
            title: title.get_untracked(),
            command: command.get_untracked(),
            body: body.get_untracked(),
        };
        let id = open.clone();
        saving.set(true);
        spawn_local(async move {
            let outcome = templates.save(id, draft).await;
            saving.set(false);
            match outcome {
                Ok(_) => {
                    error.set(None);
                    editing.set(None);
                    toasts.show(ToastKind::Info, i18n.t(Key::TemplatesSaved));
                    crate::browser::focus_by_id("templates-new");
                }
                Err(reason) => {
                    error.set(Some(error_text(&reason, i18n)));
                    crate::browser::focus_by_id("template-editor-error");
                }
            }
        });
    };
    let heading = if existing.is_some() {
        Key::TemplatesEdit
    } else {
        Key::TemplatesNew
    };
    let count = move || body.with(|b| b.chars().count());
    view! {
        <form class="data-block skill-editor" id="template-editor" on:submit=submit novalidate
            aria-labelledby="template-editor-heading">
            <h3 class="settings-subheading" id="template-editor-heading">{tr(heading)}</h3>
            <Field id="template-editor-title" label=tr(Key::TemplatesFieldTitle) value=title
                on_input=move |v: String| {
                    if !command_written.get_untracked() {
                        command.set(command_from_title(&v));
                    }
                    title.set(v);
                } spellcheck=true />
            <Field id="template-editor-command" label=tr(Key::TemplatesFieldCommand) value=command
                hint=Signal::derive(move || i18n.t_with(Key::TemplatesFieldCommandHint, &[
                    ("max", &MAX_COMMAND_CHARS.to_string()),
                ]))
                on_input=move |v| {
                    command_written.set(true);
                    command.set(v);
                } />
            <Field id="template-editor-body" label=tr(Key::TemplatesFieldBody)
                control=Control::Textarea(10) value=body
                on_input=move |v| body.set(v) spellcheck=true
                invalid=Signal::derive(move || status().0)
                described_by_extra="template-editor-read template-editor-count"
                aside=move || view! {
                    <p class="field__hint" id="template-editor-read" aria-live="polite"
                        class:field__hint--error=move || status().0>{move || status().1}</p>
                    <p class="field__hint field__count" id="template-editor-count">
                        {move || i18n.t_with(Key::SystemPromptCount, &[
                            ("count", &count().to_string()),
                            ("max", &MAX_BODY_CHARS.to_string()),
                        ])}
                    </p>
                } />
            <p class="field__error" role="alert" id="template-editor-error" tabindex="-1">{move || error.get()}</p>
            <div class="provider-form__actions">
                <button type="button" class="button button--secondary" id="template-editor-cancel"
                    on:click=move |_| editing.set(None)>{tr(Key::ProviderCancel)}</button>
                <button type="submit" class="button button--primary" id="template-editor-save"
                    aria-busy=move || saving.get().to_string() disabled=move || saving.get()>
                    {tr(Key::ProviderSave)}
                </button>
            </div>
        </form>
    }
}

/// The name of a variable's kind.
fn kind_key(kind: &VariableKind) -> Key {
    match kind {
        VariableKind::Text => Key::TemplatesKindText,
        VariableKind::Paragraph => Key::TemplatesKindParagraph,
        VariableKind::Number => Key::TemplatesKindNumber,
        VariableKind::Date => Key::TemplatesKindDate,
        VariableKind::Choice(_) => Key::TemplatesKindChoice,
    }
}

/// What is wrong with a template's text, in the user's language.
fn template_error_text(error: &TemplateError, i18n: I18n) -> String {
    use hearth_core::template::{MAX_CHOICES, MAX_VARIABLES};
    let line = |line: &usize| line.to_string();
    match error {
        TemplateError::Empty => i18n.t(Key::TemplatesErrorEmpty),
        TemplateError::TooLong => i18n.t_with(
            Key::TemplatesErrorTooLong,
            &[("max", &MAX_BODY_CHARS.to_string())],
        ),
        TemplateError::Unclosed { line: at } => {
            i18n.t_with(Key::TemplatesErrorUnclosed, &[("line", &line(at))])
        }
        TemplateError::BadName { line: at, text } => i18n.t_with(
            Key::TemplatesErrorBadName,
            &[("line", &line(at)), ("text", text)],
        ),
        TemplateError::UnknownKind { line: at, kind } => i18n.t_with(
            Key::TemplatesErrorUnknownKind,
            &[("line", &line(at)), ("kind", kind)],
        ),
        TemplateError::BadChoice { name } => i18n.t_with(
            Key::TemplatesErrorBadChoice,
            &[("name", name), ("max", &MAX_CHOICES.to_string())],
        ),
        TemplateError::KindChanged { name } => {
            i18n.t_with(Key::TemplatesErrorKindChanged, &[("name", name)])
        }
        TemplateError::TooManyVariables => i18n.t_with(
            Key::TemplatesErrorTooManyVariables,
            &[("max", &MAX_VARIABLES.to_string())],
        ),
    }
}

/// Why a change of the templates did not happen, in the user's language.
pub(super) fn error_text(error: &TemplatesError, i18n: I18n) -> String {
    match error {
        TemplatesError::Library(error) => match error {
            LibraryError::BadTitle => i18n.t_with(
                Key::TemplatesErrorTitle,
                &[("max", &MAX_TITLE_CHARS.to_string())],
            ),
            LibraryError::BadCommand => i18n.t_with(
                Key::TemplatesErrorCommand,
                &[("max", &MAX_COMMAND_CHARS.to_string())],
            ),
            LibraryError::ReservedCommand(command) => {
                i18n.t_with(Key::TemplatesErrorReserved, &[("command", command)])
            }
            LibraryError::CommandTaken(command) => {
                i18n.t_with(Key::TemplatesErrorTaken, &[("command", command)])
            }
            LibraryError::Body(problem) => template_error_text(problem, i18n),
            LibraryError::TooMany => i18n.t_with(
                Key::TemplatesErrorTooMany,
                &[("max", &MAX_TEMPLATES.to_string())],
            ),
            LibraryError::NotFound | LibraryError::NoSuchVersion => i18n.t(Key::TemplatesErrorGone),
        },
        TemplatesError::Storage(reason) => {
            i18n.t_with(Key::TemplatesStorageFailed, &[("reason", reason)])
        }
        TemplatesError::Unreadable(reason) => {
            i18n.t_with(Key::TemplatesReadFailed, &[("reason", reason)])
        }
    }
}
