//! Memory on a reply and in a conversation: which memories the reply's request carried,
//! the memories the model proposed (each saved as it is or as the user edits it, or
//! dismissed: `Chat::review_memory`), the switch that turns memory off in this
//! conversation, and the note that says it is off with the way back on.
//!
//! A reply's `memory` record is read here as plain JSON (its shape is
//! `hearth_core::memory::ReplyMemory`'s): decoding it with the typed record would put
//! that code in every chunk that shows a reply.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::chat::memory_review::Review;
use crate::chat::{LiveMessage, use_chat};
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::ui::icon::{Icon, icon};
use crate::ui::toast::{ToastKind, use_toasts};

/// The longest excerpt of a recalled memory shown on its reply, in characters.
const EXCERPT_CHARS: usize = 80;

/// A proposal as shown.
#[derive(Clone, Debug, PartialEq)]
struct Shown {
    id: String,
    content: String,
    /// `pending`, `saved` or `dismissed`.
    state: String,
}

/// The `key` list of a reply's `memory` record.
fn listed(memory: Option<&String>, key: &str) -> Vec<Value> {
    let memory: Option<Value> = memory.and_then(|text| serde_json::from_str(text).ok());
    memory
        .and_then(|mut m| m.get_mut(key).map(Value::take))
        .and_then(|list| match list {
            Value::Array(items) => Some(items),
            _ => None,
        })
        .unwrap_or_default()
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

/// The memories the model proposed in a reply, each waiting or answered.
pub fn proposals(live: LiveMessage) -> impl IntoView {
    move || {
        let proposals: Vec<Shown> = live.record.with(|r| {
            listed(r.memory.as_ref(), "proposals")
                .iter()
                .map(|p| Shown {
                    id: text(&p["id"]),
                    content: text(&p["draft"]["content"]),
                    state: text(&p["state"]),
                })
                .collect()
        });
        let message_id = live.record.with_untracked(|r| r.id.clone());
        proposals
            .into_iter()
            .map(|proposal| view! { <ProposalCard message_id=message_id.clone() proposal /> })
            .collect_view()
    }
}

/// The memories a reply's request carried, when any: excerpts, and the switch that
/// turns memory off in this conversation.
pub fn recalled(live: LiveMessage) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let memories = live.record.with(|r| listed(r.memory.as_ref(), "recalled"));
        (!memories.is_empty()).then(|| {
            let names = memories
                .iter()
                .map(|m| excerpt(&text(&m["content"])))
                .collect::<Vec<_>>()
                .join(" · ");
            let ids = memories
                .iter()
                .map(|m| text(&m["id"]))
                .collect::<Vec<_>>()
                .join(" ");
            let conversation_id = live.record.with_untracked(|r| r.conversation_id.clone());
            view! {
                <div class="message__memories" data-memories=ids>
                    <p class="message__skills">
                        {icon(Icon::Info)}
                        <span>{format!("{}: {names}", i18n.t(Key::ReplyMemories))}</span>
                    </p>
                    <MemorySwitch conversation_id off=true />
                </div>
            }
        })
    }
}

fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(EXCERPT_CHARS).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// A button that turns memory off (`off`) or back on in a conversation.
#[component]
fn MemorySwitch(conversation_id: String, off: bool) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let click = move |_| {
        let id = conversation_id.clone();
        spawn_local(async move {
            if let Err(error) = chat.list.set_memory_off(&id, off).await {
                toasts.show(
                    ToastKind::Error,
                    i18n.t_with(Key::MemoryErrorStorage, &[("reason", &error.to_string())]),
                );
            }
        });
    };
    view! {
        <button type="button" class="button button--secondary button--small"
            data-memory-switch=if off { "off" } else { "on" } on:click=click>
            {tr(if off { Key::MemoryOffHere } else { Key::MemoryOnHere })}
        </button>
    }
}

/// The note under a conversation whose memory is off, with the way back on.
pub fn memory_off_note() -> impl IntoView {
    let chat = use_chat();
    move || {
        let id = chat.open.current()?;
        chat.list.memory_off(&id).then(|| {
            view! {
                <p class="conversation-note" id="memory-off-note" role="status">
                    {icon(Icon::Info)}
                    <span>{tr(Key::MemoryIsOffHere)}</span>
                    <MemorySwitch conversation_id=id off=false />
                </p>
            }
        })
    }
}

/// One proposal: waiting (save, edit, dismiss), or what the user decided.
#[component]
fn ProposalCard(message_id: String, proposal: Shown) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let editing = RwSignal::new(false);
    let content = RwSignal::new(proposal.content.clone());
    let edited = RwSignal::new(false);
    let busy = RwSignal::new(false);
    let id = proposal.id.clone();
    let answer = move |review: Review| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        let (message_id, id) = (message_id.clone(), id.clone());
        spawn_local(async move {
            let outcome = chat.review_memory(&message_id, &id, review.clone()).await;
            busy.set(false);
            match outcome {
                Ok(()) if matches!(review, Review::Save(_)) => {
                    toasts.show(ToastKind::Info, i18n.t(Key::ProviderSaved));
                }
                Ok(()) => {}
                Err(error) => {
                    toasts.show(ToastKind::Error, crate::memory::error_text(&error, i18n))
                }
            }
        });
    };
    let save = {
        let answer = answer.clone();
        move |_| {
            answer(Review::Save(
                edited.get_untracked().then(|| content.get_untracked()),
            ))
        }
    };
    let dismiss = move |_| answer(Review::Dismiss);
    let title_id = format!("memory-proposal-{}", proposal.id);
    let labelled_by = title_id.clone();
    let body = match proposal.state.as_str() {
        "pending" => view! {
            <Show
                when=move || editing.get()
                fallback=move || view! { <p class="memory-proposal__text">{move || content.get()}</p> }
            >
                <textarea class="input textarea" rows="3"
                    aria-label=tr(Key::MemoryContent)
                    prop:value=move || content.get()
                    on:input=move |e| {
                        edited.set(true);
                        content.set(event_target_value(&e));
                    }></textarea>
            </Show>
            <div class="memory-proposal__actions">
                <button type="button" class="button button--primary button--small" data-proposal-save=""
                    disabled=move || busy.get() on:click=save>{tr(Key::ProviderSave)}</button>
                <Show when=move || !editing.get()>
                    <button type="button" class="button button--secondary button--small" data-proposal-edit=""
                        on:click=move |_| editing.set(true)>{tr(Key::ProviderEdit)}</button>
                </Show>
                <button type="button" class="button button--secondary button--small" data-proposal-dismiss=""
                    disabled=move || busy.get() on:click=dismiss>{tr(Key::ToastDismiss)}</button>
            </div>
        }
        .into_any(),
        "saved" => decided(i18n, Key::MemoryProposalSaved, &proposal.content),
        _ => decided(i18n, Key::MemoryProposalDismissed, &proposal.content),
    };
    view! {
        <section class="memory-proposal" data-proposal=proposal.id.clone() data-state=proposal.state.clone()
            aria-labelledby=labelled_by>
            <p class="memory-proposal__title" id=title_id>{icon(Icon::Info)}{tr(Key::MemoryProposal)}</p>
            {body}
        </section>
    }
}

/// A proposal the user answered: what it said, and the answer.
fn decided(i18n: I18n, key: Key, content: &str) -> AnyView {
    view! {
        <p class="memory-proposal__text">{content.to_string()}</p>
        <p class="memory-proposal__state" role="status">{i18n.t(key)}</p>
    }
    .into_any()
}
