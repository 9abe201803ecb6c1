//! What an MCP server asks the user in the middle of a tool call
//! (`hearth_core::plugin::elicitation`), on screen, in its own lazily loaded chunk.
//! While it waits (and the conversation has not gone on past its reply) each question
//! is the server's message (plain text, never markup) with its form: text, numbers,
//! dates, a yes/no, one option or several, each labelled, required ones marked; or a
//! page to open, its host said first and the whole address shown. Send answers every
//! question (opening the pages, from the click itself), Decline declines them all
//! (`crate::chat::Chat::answer_server`); a wrong value is named, and nothing is sent.
//! Its sentences are "later" ones, fetched with the English catalogue once shown.

use hearth_core::chat::MessageStatus;
use hearth_core::chat::tools::ToolCallRecord;
use hearth_core::plugin::elicitation::answer::{AnswerError, Reply};
use hearth_core::plugin::elicitation::{self, Ask, Field, FieldKind, Request, TextFormat};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use serde_json::{Map, Value};

use crate::chat::{LiveMessage, QuestionAt, use_chat};
use crate::i18n::{Key, tr, use_i18n};

/// The card of the call `call`, the `index`th of round `round` of `live`, whose server
/// waits for the user.
#[lazy]
pub fn card(live: LiveMessage, round: usize, index: usize, call: ToolCallRecord) -> AnyView {
    let worded = RwSignal::new(crate::i18n::later_english_here());
    if !worded.get_untracked() {
        leptos::task::spawn_local(async move {
            crate::i18n::load_later_english().await;
            let _ = worded.try_set(true);
        });
    }
    // Questions that cannot be read are never answered: the card says so.
    let requests = elicitation::waiting(&call).map(|pending| pending.asked.requests);
    let server = call
        .plugin_title
        .clone()
        .unwrap_or_else(|| call.name.clone());
    let id = format!("server-question-{}", call.id);
    let open = move || {
        live.record
            .with(|r| r.status != MessageStatus::Streaming && r.active_child_id.is_none())
    };
    (move || {
        worded.get().then(|| {
            let requests = requests.clone().filter(|_| open());
            let state = if requests.is_some() {
                "waiting"
            } else {
                "closed"
            };
            let body = if let Some(requests) = requests {
                view! { <Questions live round index requests id=id.clone() /> }.into_any()
            } else {
                view! { <p class="question-card__note">{tr(Key::QuestionClosed)}</p> }.into_any()
            };
            let i18n = use_i18n();
            view! {
                <section class="question-card" data-server-question=call.id.clone() data-state=state
                    aria-labelledby=format!("{id}-title")>
                    <p class="question-card__title" id=format!("{id}-title")>
                        {i18n.t_with(Key::ServerQuestionTitle, &[("server", &server)])}
                    </p>
                    {body}
                </section>
            }
        })
    })
    .into_any()
}

/// The value a field starts with: the server's default, else empty.
fn starting_value(field: &Field) -> Option<Value> {
    match &field.kind {
        FieldKind::Text { default, .. } => default.clone().map(Value::String),
        FieldKind::Number { default, .. } => default.map(|n| Value::String(n.to_string())),
        FieldKind::Boolean { default } => Some(Value::Bool(default.unwrap_or(false))),
        FieldKind::Choice { default, .. } => default.clone().map(Value::String),
        FieldKind::Choices { default, .. } => Some(Value::Array(
            default.iter().cloned().map(Value::String).collect(),
        )),
    }
}

fn starting_values(requests: &[Request]) -> Vec<Map<String, Value>> {
    requests
        .iter()
        .map(|request| match &request.ask {
            Ask::Form { fields } => fields
                .iter()
                .filter_map(|f| starting_value(f).map(|v| (f.name.clone(), v)))
                .collect(),
            Ask::Url { .. } => Map::new(),
        })
        .collect()
}

/// The questions and their answers' controls.
#[component]
fn Questions(
    live: LiveMessage,
    round: usize,
    index: usize,
    requests: Vec<Request>,
    id: String,
) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let values = RwSignal::new(starting_values(&requests));
    let error = RwSignal::new(None::<String>);
    let at = move || QuestionAt {
        reply_id: live.record.with_untracked(|r| r.id.clone()),
        round,
        index,
    };
    let said = move |refused: AnswerError| match refused.field() {
        Some(field) if matches!(refused, AnswerError::Required(_)) => {
            i18n.t_with(Key::ServerQuestionRequired, &[("field", field)])
        }
        Some(field) => i18n.t_with(Key::ServerQuestionInvalid, &[("field", field)]),
        None => i18n.t(Key::QuestionClosed),
    };
    let pages: Vec<String> = requests
        .iter()
        .filter_map(|r| match &r.ask {
            Ask::Url { url, .. } => Some(url.clone()),
            Ask::Form { .. } => None,
        })
        .collect();
    let forms = requests.clone();
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        let given = values.get_untracked();
        let replies = forms
            .iter()
            .zip(given)
            .map(|(request, values)| match request.ask {
                Ask::Form { .. } => Reply::Accept(values),
                Ask::Url { .. } => Reply::Accept(Map::new()),
            })
            .collect();
        match chat.answer_server(at(), replies) {
            Ok(()) => {
                error.set(None);
                // Opened from the click itself, in a tab of its own that cannot reach back.
                for url in &pages {
                    let _ = window().open_with_url_and_target_and_features(
                        url,
                        "_blank",
                        "noopener,noreferrer",
                    );
                }
            }
            Err(refused) => error.set(Some(said(refused))),
        }
    };
    let count = requests.len();
    let decline = move |_| {
        let _ = chat.answer_server(at(), vec![Reply::Decline; count]);
    };
    let opens_pages = requests.iter().any(|r| matches!(r.ask, Ask::Url { .. }));
    let groups = requests
        .into_iter()
        .enumerate()
        .map(|(number, request)| {
            let group_id = format!("{id}-{number}");
            let controls = match request.ask {
                Ask::Form { fields } => fields
                    .into_iter()
                    .map(|field| field_view(number, field, &group_id, values, error))
                    .collect_view()
                    .into_any(),
                Ask::Url { url, .. } => page_view(&url).into_any(),
            };
            view! {
                <div class="question-card__group" data-server-request=request.key>
                    <p class="question-card__question">{request.message}</p>
                    {controls}
                </div>
            }
        })
        .collect_view();
    let send = if opens_pages {
        Key::ServerQuestionOpen
    } else {
        Key::QuestionSend
    };
    view! {
        <form class="question-card__form" on:submit=submit novalidate>
            {groups}
            <p class="field__error" role="alert">{move || error.get()}</p>
            <p class="question-card__note">{tr(Key::ServerQuestionPrivacy)}</p>
            <div class="confirm-card__actions">
                <button type="button" class="button button--secondary button--small" data-question-decline=""
                    on:click=decline>
                    {tr(Key::QuestionDecline)}
                </button>
                <button type="submit" class="button button--primary button--small" data-question-send="">
                    {tr(send)}
                </button>
            </div>
        </form>
    }
}

/// A page the server asks the user to open: its host first, then the whole address.
fn page_view(url: &str) -> impl IntoView {
    let i18n = use_i18n();
    let host = hearth_core::safe_url::web_host(url).unwrap_or_default();
    view! {
        <p class="server-question__host">
            {i18n.t_with(Key::ServerQuestionOpensHost, &[("host", &host)])}
        </p>
        <p class="server-question__url" data-server-url="">{url.to_string()}</p>
    }
}

/// Sets field `name` of request `number` to `value` (`None`: cleared).
fn set(values: RwSignal<Vec<Map<String, Value>>>, number: usize, name: &str, value: Option<Value>) {
    values.update(|all| {
        if let Some(map) = all.get_mut(number) {
            match value {
                Some(value) => map.insert(name.to_string(), value),
                None => map.remove(name),
            };
        }
    });
}

/// One field's label, explanation and control.
fn field_view(
    number: usize,
    field: Field,
    group_id: &str,
    values: RwSignal<Vec<Map<String, Value>>>,
    error: RwSignal<Option<String>>,
) -> AnyView {
    let control_id = format!("{group_id}-{}", field.name);
    let hint_id = format!("{control_id}-hint");
    let name = field.name.clone();
    let current = values.with_untracked(|all| all.get(number).and_then(|m| m.get(&name)).cloned());
    let hint = (!field.description.is_empty()).then(|| {
        view! { <span class="field__hint" id=hint_id.clone()>{field.description.clone()}</span> }
    });
    let described = (!field.description.is_empty()).then(|| hint_id.clone());
    let required = field.required;
    let several = matches!(field.kind, FieldKind::Choices { .. });
    let marker = required.then(|| view! { <span class="server-question__required">" "{tr(Key::ServerQuestionRequiredMark)}</span> });
    let typed = {
        let name = name.clone();
        move |event: leptos::ev::Event| {
            let text = event_target_value(&event);
            let value = (!text.is_empty()).then_some(Value::String(text));
            set(values, number, &name, value);
            error.set(None);
        }
    };
    match field.kind {
        FieldKind::Text {
            format, max_length, ..
        } => {
            let kind = match format {
                Some(TextFormat::Email) => "email",
                Some(TextFormat::Uri) => "url",
                Some(TextFormat::Date) => "date",
                Some(TextFormat::DateTime) => "datetime-local",
                None => "text",
            };
            let max = max_length
                .unwrap_or(elicitation::answer::MAX_TEXT_CHARS as u32)
                .min(elicitation::answer::MAX_TEXT_CHARS as u32);
            let value = current
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            view! {
                <label class="field__label" for=control_id.clone()>{field.title}{marker}</label>
                {hint}
                <input class="field__control" type=kind id=control_id name=name.clone() prop:value=value
                    maxlength=max.to_string() aria-required=required.to_string()
                    aria-describedby=described on:input=typed />
            }
            .into_any()
        }
        FieldKind::Number {
            integer,
            minimum,
            maximum,
            ..
        } => {
            let value = current
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            view! {
                <label class="field__label" for=control_id.clone()>{field.title}{marker}</label>
                {hint}
                <input class="field__control" type="number" id=control_id name=name.clone() prop:value=value
                    inputmode=if integer { "numeric" } else { "decimal" }
                    step=if integer { "1" } else { "any" }
                    min=minimum.map(|m| m.to_string()) max=maximum.map(|m| m.to_string())
                    aria-required=required.to_string() aria-describedby=described on:input=typed />
            }
            .into_any()
        }
        FieldKind::Boolean { .. } => {
            let checked = current.and_then(|v| v.as_bool()).unwrap_or(false);
            let toggle = move |event: leptos::ev::Event| {
                set(
                    values,
                    number,
                    &name,
                    Some(Value::Bool(event_target_checked(&event))),
                );
                error.set(None);
            };
            view! {
                <label class="question-card__option">
                    <input type="checkbox" id=control_id prop:checked=checked aria-describedby=described
                        on:change=toggle />
                    <span>{field.title}</span>
                </label>
                {hint}
            }
            .into_any()
        }
        FieldKind::Choice { options, .. } | FieldKind::Choices { options, .. } => {
            let kind = if several { "checkbox" } else { "radio" };
            let chosen: Vec<String> = match &current {
                Some(Value::String(s)) => vec![s.clone()],
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            };
            let boxes = options
                .into_iter()
                .map(|option| {
                    let name = name.clone();
                    let value = option.value.clone();
                    let toggle = move |event: leptos::ev::Event| {
                        let on = event_target_checked(&event);
                        values.update(|all| {
                            let Some(map) = all.get_mut(number) else {
                                return;
                            };
                            if !several {
                                map.insert(name.clone(), Value::String(value.clone()));
                                return;
                            }
                            let mut picked: Vec<Value> = map
                                .get(&name)
                                .and_then(Value::as_array)
                                .cloned()
                                .unwrap_or_default();
                            picked.retain(|v| v.as_str() != Some(value.as_str()));
                            if on {
                                picked.push(Value::String(value.clone()));
                            }
                            map.insert(name.clone(), Value::Array(picked));
                        });
                        error.set(None);
                    };
                    view! {
                        <label class="question-card__option">
                            <input type=kind name=control_id.clone() value=option.value.clone()
                                prop:checked=chosen.contains(&option.value) on:change=toggle />
                            <span>{option.title}</span>
                        </label>
                    }
                })
                .collect_view();
            view! {
                <fieldset class="question-card__group server-question__choices" aria-describedby=described>
                    <legend class="field__label">{field.title}{marker}</legend>
                    {hint}
                    {boxes}
                </fieldset>
            }
            .into_any()
        }
    }
}
