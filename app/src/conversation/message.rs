//! One message on screen. The user's text is shown as text (never as HTML); a reply's
//! Markdown goes through the render worker. Under each message: its actions (copy, edit
//! or regenerate, delete, details), the branch switcher (`n/m`) when it has siblings, and
//! for a reply its status: streaming, stopped (Continue), interrupted (Continue, Retry)
//! or failed (the stored `generationError`, with Retry). A reply that called tools shows
//! its rounds first (`tool_calls`), and what its request left out (passages that did not
//! fit, images a model without vision was not sent) under its text.

use hearth_core::chat::context_note::ContextNote;
use hearth_core::chat::markdown_export::sources_markdown;
use hearth_core::chat::{MessageRecord, MessageStatus, Phase};
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use super::markdown_actions::{MarkdownActions, copy_text};
use crate::chat::{LiveMessage, use_chat};
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::ui::icon::{Icon, icon};
use crate::ui::toast::use_toasts;

fn icon_button(
    label: Key,
    glyph: Icon,
    disabled: Signal<bool>,
    action: impl Fn() + 'static,
) -> impl IntoView {
    view! {
        <button
            type="button"
            class="icon-button icon-button--small"
            aria-label=tr(label)
            title=tr(label)
            disabled=move || disabled.get()
            on:click=move |_| action()
        >
            {icon(glyph)}
        </button>
    }
}

/// The `n/m` switcher between a message and its siblings.
#[component]
fn BranchSwitcher(id: String) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let position = {
        let id = id.clone();
        Memo::new(move |_| {
            chat.open.with_tree(|tree| {
                tree.siblings(&id)
                    .map(|(all, index)| (index + 1, all.len()))
            })
        })
    };
    let busy = Signal::derive(move || chat.is_streaming());
    let (previous, next) = (id.clone(), id);
    move || {
        position
            .get()
            .filter(|(_, count)| *count > 1)
            .map(|(index, count)| {
                let (previous, next) = (previous.clone(), next.clone());
                view! {
                    <div class="branch" role="group" aria-label=tr(Key::MessageBranches)>
                        {icon_button(
                            Key::MessageBranchPrevious,
                            Icon::ChevronLeft,
                            Signal::derive(move || busy.get() || index <= 1),
                            move || chat.switch(previous.clone(), -1),
                        )}
                        <span class="branch__position" aria-live="polite">
                            {i18n.t_with(
                                Key::MessageBranchPosition,
                                &[("index", &index.to_string()), ("count", &count.to_string())],
                            )}
                        </span>
                        {icon_button(
                            Key::MessageBranchNext,
                            Icon::ChevronRight,
                            Signal::derive(move || busy.get() || index >= count),
                            move || chat.switch(next.clone(), 1),
                        )}
                    </div>
                }
            })
    }
}

/// What a reply in `phase` says while it has no text to show.
fn phase_key(phase: Option<Phase>) -> Key {
    match phase {
        Some(Phase::Pending) => Key::MessagePhasePending,
        Some(Phase::Attachments) => Key::MessagePhaseAttachments,
        Some(Phase::Rag) => Key::MessagePhaseRag,
        Some(Phase::Searching) => Key::MessagePhaseSearching,
        Some(Phase::Tool) => Key::MessagePhaseTool,
        _ => Key::MessageGenerating,
    }
}

/// The name of `phase` on the message (`data-phase`), for styles and tests.
fn phase_name(phase: Phase) -> String {
    serde_json::to_value(phase)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A note about left-out context in the user's language.
fn note_text(note: &ContextNote, i18n: I18n) -> String {
    match note {
        ContextNote::PassagesLeftOut { origin, count, of } => i18n.t_with(
            Key::ReplyNotePassagesLeftOut,
            &[
                ("count", &count.to_string()),
                ("of", &of.to_string()),
                ("name", origin),
            ],
        ),
        ContextNote::ImagesNotSent { count } => i18n.t_with(
            Key::ReplyNoteImagesNotSent,
            &[("count", &count.to_string())],
        ),
        ContextNote::FilesMissing { names } => {
            i18n.t_with(Key::ReplyNoteFilesMissing, &[("names", &names.join(", "))])
        }
    }
}

/// The skills applied to a reply, when any were: each named, and whether the model
/// chose it.
fn applied_skills(live: LiveMessage) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let skills = live.record.with(|r| r.skill_invocations.clone());
        (!skills.is_empty()).then(|| {
            let names = skills
                .iter()
                .map(|skill| match skill.mode {
                    hearth_core::skill::SkillMode::Auto => {
                        i18n.t_with(Key::ReplySkillAuto, &[("title", &skill.title)])
                    }
                    hearth_core::skill::SkillMode::Manual => skill.title.clone(),
                })
                .collect::<Vec<_>>()
                .join(" · ");
            let ids = skills
                .iter()
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            view! {
                <p class="message__skills" data-skills=ids>
                    {icon(Icon::Info)}
                    <span>{i18n.t_with(Key::ReplySkills, &[("names", &names)])}</span>
                </p>
            }
        })
    }
}

/// What a reply's request left out, when anything was.
fn context_notes(live: LiveMessage) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let notes = live.record.with(|r| r.context_notes.clone());
        (!notes.is_empty()).then(|| {
            view! {
                <ul class="message__notes" aria-label=tr(Key::ReplyNotes)>
                    {notes
                        .iter()
                        .map(|note| view! { <li>{icon(Icon::Info)}<span>{note_text(note, i18n)}</span></li> })
                        .collect_view()}
                </ul>
            }
        })
    }
}

/// The status block of a reply that is not simply done.
fn status_block(id: String, live: LiveMessage) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    move || {
        // A call waiting for the user has its own card; "Generating…" would be wrong.
        let (status, error, waiting) = live.record.with(|r| {
            let waiting = r.tool_rounds.last().is_some_and(|round| {
                round
                    .calls
                    .iter()
                    .any(|c| c.status == hearth_core::chat::tools::ToolCallStatus::AwaitingApproval)
            });
            (r.status, r.generation_error.clone(), waiting)
        });
        let phase = chat.runs.phase_of(&id);
        // Between rounds (tools running) the text so far belongs to the round above.
        let working = phase.is_some_and(|p| p != Phase::Model);
        let empty = !waiting && (working || live.content.with(String::is_empty));
        let (retry_id, continue_id) = (id.clone(), id.clone());
        let retry = move || chat.retry(retry_id.clone());
        let resume = move || chat.continue_reply(continue_id.clone());
        match status {
            MessageStatus::Streaming if empty => Some(
                view! {
                    <p class="message__pending" role="status">
                        <span class="message__dots" aria-hidden="true"></span>
                        {tr(phase_key(phase))}
                    </p>
                }
                .into_any(),
            ),
            MessageStatus::Error => {
                let error = error.unwrap_or_else(|| {
                    hearth_core::chat::GenerationError::internal("no error was stored")
                });
                let code = error.code.to_string();
                let (sentence, detail) = crate::i18n::errors::describe(&i18n, &error);
                Some(
                    view! {
                        <div class="status-block status-block--error">
                            {icon(Icon::Alert)}
                            <div class="status-block__text">
                                <p class="status-block__title">{tr(Key::MessageFailed)}</p>
                                <p class="status-block__detail">
                                    <code>{code}</code>
                                    " "
                                    {sentence}
                                </p>
                                {detail.map(|detail| view! {
                                    <p class="status-block__quote">{detail}</p>
                                })}
                            </div>
                            <button type="button" class="button button--secondary button--small"
                                on:click=move |_| retry()>
                                {tr(Key::MessageRetry)}
                            </button>
                        </div>
                    }
                    .into_any(),
                )
            }
            MessageStatus::Interrupted => Some(
                view! {
                    <div class="status-block">
                        {icon(Icon::Info)}
                        <p class="status-block__text status-block__title">{tr(Key::MessageInterrupted)}</p>
                        <button type="button" class="button button--secondary button--small"
                            on:click=move |_| resume()>
                            {tr(Key::MessageContinue)}
                        </button>
                        <button type="button" class="button button--secondary button--small"
                            on:click=move |_| retry()>
                            {tr(Key::MessageRetry)}
                        </button>
                    </div>
                }
                .into_any(),
            ),
            MessageStatus::Aborted => Some(
                view! {
                    <div class="status-block status-block--quiet">
                        <p class="status-block__text">{tr(Key::MessageStopped)}</p>
                        <button type="button" class="button button--secondary button--small"
                            on:click=move |_| resume()>
                            {tr(Key::MessageContinue)}
                        </button>
                    </div>
                }
                .into_any(),
            ),
            _ => None,
        }
    }
}

/// One message of the active path, or one answer of a comparison (`column`: its
/// comparison chooses between the answers, so it has no branch switcher).
#[component]
pub fn MessageView(
    /// The message's id.
    id: String,
    /// Whether it is shown as a comparison's column.
    #[prop(optional)]
    column: bool,
) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let Some(live) = chat.open.live(&id) else {
        return ().into_any();
    };
    let is_user = live.record.with_untracked(MessageRecord::is_user);
    let busy = Signal::derive(move || chat.is_streaming());
    let streaming =
        Signal::derive(move || live.record.with(|r| r.status == MessageStatus::Streaming));
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(String::new());
    let show_details = RwSignal::new(false);
    // A code block being previewed (its dialog exists only while it is shown).
    let markdown_actions = MarkdownActions::new();

    let toasts = use_toasts();
    // A reply's sources go with its text, so that its citations still point somewhere.
    let copy = move || {
        let text = live.content.get_untracked();
        let sources = live.record.with_untracked(MessageRecord::sources);
        let text = match sources_markdown(&sources, &i18n.t(Key::ReplySources)) {
            Some(list) => format!("{}\n\n{list}", text.trim_end()),
            None => text,
        };
        copy_text(text, toasts, i18n)
    };
    let delete = {
        let id = id.clone();
        move || chat.delete_message(id.clone())
    };
    let regenerate = {
        let id = id.clone();
        move || chat.regenerate(id.clone())
    };
    let save_edit = {
        let id = id.clone();
        move || {
            let text = draft.get_untracked();
            if text.trim().is_empty() {
                return;
            }
            editing.set(false);
            chat.edit(id.clone(), text);
        }
    };
    let save_on_key = {
        let save_edit = save_edit.clone();
        move |event: KeyboardEvent| {
            let composing = event.is_composing() || event.key_code() == 229;
            if event.key() == "Enter" && !event.shift_key() && !composing {
                event.prevent_default();
                save_edit();
            } else if event.key() == "Escape" {
                event.prevent_default();
                editing.set(false);
            }
        }
    };

    let body = if is_user {
        view! {
            <Show
                when=move || editing.get()
                fallback=move || view! { <div class="message__text">{move || live.content.get()}</div> }
            >
                <div class="message__edit">
                    <label class="visually-hidden" for=format!("edit-{}", live.record.with_untracked(|r| r.id.clone()))>
                        {tr(Key::MessageEditLabel)}
                    </label>
                    <textarea
                        id=format!("edit-{}", live.record.with_untracked(|r| r.id.clone()))
                        class="message__edit-input"
                        prop:value=move || draft.get()
                        on:input=move |event| draft.set(event_target_value(&event))
                        on:keydown=save_on_key.clone()
                    ></textarea>
                    <div class="message__edit-actions">
                        <button type="button" class="button button--secondary button--small"
                            on:click=move |_| editing.set(false)>
                            {tr(Key::MessageEditCancel)}
                        </button>
                        <button type="button" class="button button--primary button--small"
                            on:click={
                                let save_edit = save_edit.clone();
                                move |_| save_edit()
                            }>
                            {tr(Key::MessageEditSend)}
                        </button>
                    </div>
                </div>
            </Show>
        }
        .into_any()
    } else {
        view! {
            {super::merged::note(live)}
            {applied_skills(live)}
            {super::memory::recalled(live)}
            {move || {
                live.reasoning.with(|r| !r.is_empty()).then(|| view! {
                    <details class="message__reasoning">
                        <summary>{tr(Key::MessageReasoning)}</summary>
                        <div class="message__reasoning-text">{move || live.reasoning.get()}</div>
                    </details>
                })
            }}
            {super::search_block::block(live)}
            <super::tool_calls::ToolRounds live=live />
            <div class="message__markdown" on:click=move |event| markdown_actions.on_click(event, toasts, i18n)>
                <super::round_text::RoundText
                    live=live
                    round=Signal::derive(move || live.record.with(|r| r.tool_rounds.len()))
                    text=live.content
                    streaming=streaming
                />
            </div>
            {super::sources::list(live)}
            {markdown_actions.dialogs()}
            {super::memory::proposals(live)}
            {context_notes(live)}
            {status_block(id.clone(), live)}
        }
        .into_any()
    };

    let actions = view! {
        <div class="message__actions">
            {icon_button(Key::MessageCopy, Icon::Copy, Signal::stored(false), copy)}
            {is_user.then(|| {
                icon_button(Key::MessageEdit, Icon::Edit, busy, move || {
                    draft.set(live.content.get_untracked());
                    editing.set(true);
                    let id = format!("edit-{}", live.record.with_untracked(|r| r.id.clone()));
                    request_animation_frame(move || crate::browser::focus_by_id(&id));
                })
            })}
            {(!is_user).then(|| icon_button(Key::MessageRegenerate, Icon::Refresh, busy, regenerate))}
            {icon_button(Key::MessageDelete, Icon::Trash, busy, delete)}
            {(!is_user).then(|| view! { <super::reading::ReplyMenu live=live /> })}
            {(!is_user).then(|| view! {
                <button
                    type="button"
                    class="icon-button icon-button--small"
                    aria-label=tr(Key::MessageDetails)
                    title=tr(Key::MessageDetails)
                    aria-expanded=move || show_details.get().to_string()
                    on:click=move |_| show_details.update(|v| *v = !*v)
                >
                    {icon(Icon::Info)}
                </button>
            })}
            {(!column).then(|| view! { <BranchSwitcher id=id.clone() /> })}
        </div>
    };

    let details = move || {
        show_details.get().then(|| {
            // Read only when the details open: no message holds the prices before.
            let prices = crate::usage::value().get();
            if prices.is_none() {
                // Read once; the rows are drawn again with the cost when it is here.
                leptos::task::spawn_local(async {
                    let _ = crate::usage::prices().await;
                });
            }
            let rows = live.record.with(|r| {
                let mut record = r.clone();
                record.content = live.content.get_untracked();
                super::details::rows(&record, prices.as_ref(), i18n)
            });
            view! {
                <dl class="message__details">
                    {rows
                        .into_iter()
                        .map(|(name, value)| view! { <dt>{name}</dt><dd>{value}</dd> })
                        .collect_view()}
                </dl>
            }
        })
    };

    let role_label = if is_user {
        tr(Key::MessageYou)
    } else {
        tr(Key::MessageAssistant)
    };
    view! {
        <article
            class=if is_user { "message message--user" } else { "message message--assistant" }
            aria-label=role_label
            data-message-id=id.clone()
            data-status=move || format!("{:?}", live.record.with(|r| r.status)).to_lowercase()
            data-phase={
                let id = id.clone();
                move || chat.runs.phase_of(&id).map(phase_name)
            }
        >
            // A question's files; a reply has some only when imported from another app
            // (the images its model generated there).
            <crate::attachments::chips::MessageChips
                attachments=live.record.with_untracked(|r| r.attachments.clone())
            />
            <div class="message__body">{body}</div>
            {details}
            {actions}
            {(!is_user).then(|| super::related::list(live))}
        </article>
    }
    .into_any()
}
