//! A question the model asked the user (`ask_user`) on screen. While it waits (and the
//! conversation has not gone on past its reply), each question is a group of options
//! (radio buttons, or checkboxes where several may be chosen) with a field for
//! "something else" where allowed; Send answer sends the reply on
//! (`crate::chat::Chat::answer_question`), Decline sends it on without. Answered, the card
//! shows each question with the answer given; a question left when the conversation
//! went on says it was not answered. Its sentences are "later" ones, fetched with the
//! English catalogue once a card is shown.

use hearth_core::ask_user::{self, Answer, AnswerError, Question};
use hearth_core::chat::MessageStatus;
use hearth_core::chat::tools::{ToolCallRecord, ToolCallStatus};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;

use crate::chat::{LiveMessage, QuestionAt, use_chat};
use crate::i18n::{Key, tr, use_i18n};

/// The card of the `ask_user` call `call`, the `index`th of round `round` of `live`.
pub fn card(live: LiveMessage, round: usize, index: usize, call: ToolCallRecord) -> impl IntoView {
    let worded = RwSignal::new(crate::i18n::later_english_here());
    if !worded.get_untracked() {
        leptos::task::spawn_local(async move {
            crate::i18n::load_later_english().await;
            let _ = worded.try_set(true);
        });
    }
    let arguments: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&call.arguments).unwrap_or_default();
    let questions = ask_user::questions_of(&arguments).unwrap_or_default();
    move || {
        worded.get().then(|| {
            let questions = questions.clone();
            let id = format!("question-{}", call.id);
            let state = match call.status {
                ToolCallStatus::AwaitingAnswer if open(live) => "waiting",
                ToolCallStatus::AwaitingAnswer => "closed",
                _ if call.structured.is_empty() => "declined",
                _ => "answered",
            };
            let body = match state {
                "waiting" => view! { <Form live round index questions id=id.clone() /> }.into_any(),
                "answered" => {
                    let answers = ask_user::decode_answers(&call.structured).unwrap_or_default();
                    view! { <Answered questions answers /> }.into_any()
                }
                "declined" => view! {
                    <p class="question-card__note">{tr(Key::QuestionDeclined)}</p>
                }
                .into_any(),
                _ => view! { <p class="question-card__note">{tr(Key::QuestionClosed)}</p> }.into_any(),
            };
            view! {
                <section class="question-card" data-question-card=call.id.clone() data-state=state
                    aria-labelledby=format!("{id}-title")>
                    <p class="question-card__title" id=format!("{id}-title")>{tr(Key::QuestionCardTitle)}</p>
                    {body}
                </section>
            }
        })
    }
}

/// Whether a waiting question can still be answered: its reply is not being written
/// and the conversation has not gone on past it.
fn open(live: LiveMessage) -> bool {
    live.record
        .with(|r| r.status != MessageStatus::Streaming && r.active_child_id.is_none())
}

/// The questions with their answers.
#[component]
fn Answered(questions: Vec<Question>, answers: Vec<Answer>) -> impl IntoView {
    let i18n = use_i18n();
    questions
        .into_iter()
        .zip(answers)
        .map(|(question, answer)| {
            let mut said = answer.chosen;
            if !answer.other.trim().is_empty() {
                said.push(answer.other.trim().to_string());
            }
            view! {
                <div class="question-card__answered">
                    <p class="question-card__question">{question.question}</p>
                    <p class="question-card__answer">
                        <span class="visually-hidden">{i18n.t(Key::QuestionYourAnswer)}": "</span>
                        {said.join(" · ")}
                    </p>
                </div>
            }
        })
        .collect_view()
}

/// The questions to answer.
#[component]
fn Form(
    live: LiveMessage,
    round: usize,
    index: usize,
    questions: Vec<Question>,
    id: String,
) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let answers = RwSignal::new(vec![Answer::default(); questions.len()]);
    let error = RwSignal::new(None::<String>);
    let at = move || QuestionAt {
        reply_id: live.record.with_untracked(|r| r.id.clone()),
        round,
        index,
    };
    let said = move |refused: AnswerError| {
        let number = |i: usize| (i + 1).to_string();
        match refused {
            AnswerError::Unanswered(i) => {
                i18n.t_with(Key::QuestionErrorUnanswered, &[("number", &number(i))])
            }
            AnswerError::Choice(i) => {
                i18n.t_with(Key::QuestionErrorChoice, &[("number", &number(i))])
            }
            AnswerError::Other(i) => {
                i18n.t_with(Key::QuestionErrorOther, &[("number", &number(i))])
            }
            AnswerError::Count => i18n.t(Key::QuestionErrorUnanswered),
        }
    };
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        match chat.answer_question(at(), Some(answers.get_untracked())) {
            Ok(()) => error.set(None),
            Err(refused) => error.set(Some(said(refused))),
        }
    };
    let decline = move |_| {
        let _ = chat.answer_question(at(), None);
    };
    let groups = questions
        .into_iter()
        .enumerate()
        .map(|(number, question)| {
            let name = format!("{id}-{number}");
            let kind = if question.multiple { "checkbox" } else { "radio" };
            let options = question
                .options
                .iter()
                .cloned()
                .map(|option| {
                    let value = option.clone();
                    let toggle = move |event: leptos::ev::Event| {
                        let on = event_target_checked(&event);
                        answers.update(|all| {
                            let chosen = &mut all[number].chosen;
                            if !question.multiple {
                                chosen.clear();
                            }
                            chosen.retain(|c| *c != value);
                            if on {
                                chosen.push(value.clone());
                            }
                        });
                        error.set(None);
                    };
                    view! {
                        <label class="question-card__option">
                            <input type=kind name=name.clone() value=option.clone() on:change=toggle />
                            <span>{option}</span>
                        </label>
                    }
                })
                .collect_view();
            let other_id = format!("{name}-other");
            let other = question.other.then(|| {
                let label = if question.options.is_empty() {
                    Key::QuestionYourAnswer
                } else {
                    Key::QuestionOther
                };
                view! {
                    <label class="question-card__other-label" for=other_id.clone()>{tr(label)}</label>
                    <input class="field__control question-card__other" type="text" id=other_id
                        maxlength=ask_user::MAX_OTHER_CHARS.to_string()
                        on:input=move |event| {
                            let text = event_target_value(&event);
                            answers.update(|all| all[number].other = text);
                            error.set(None);
                        } />
                }
            });
            view! {
                <fieldset class="question-card__group" data-question=number>
                    <legend class="question-card__question">{question.question}</legend>
                    {options}
                    {other}
                </fieldset>
            }
        })
        .collect_view();
    view! {
        <form class="question-card__form" on:submit=submit novalidate>
            {groups}
            <p class="field__error" role="alert" id=format!("{id}-error")>{move || error.get()}</p>
            <p class="question-card__note">{tr(Key::QuestionWaitingHint)}</p>
            <div class="confirm-card__actions">
                <button type="button" class="button button--secondary button--small" data-question-decline=""
                    on:click=decline>
                    {tr(Key::QuestionDecline)}
                </button>
                <button type="submit" class="button button--primary button--small" data-question-send="">
                    {tr(Key::QuestionSend)}
                </button>
            </div>
        </form>
    }
}
