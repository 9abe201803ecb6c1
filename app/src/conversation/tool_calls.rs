//! A reply's tool rounds on screen: each round's text (Markdown), then one collapsible
//! block per call with its name, plugin, risk, status, duration, the arguments (with
//! credential-like fields masked) and the result. A call waiting for the user shows its
//! confirmation card here: Allow once, Allow for this session (where the mode offers it)
//! and Deny. A finished call whose tool has an MCP App's page shows it under its block
//! (`crate::mcp_app`). A question the model asked the user is shown as its card
//! (`super::question_card`). Every block reads its own call through a memo, so a call changing state
//! re-renders that block only.

use hearth_core::chat::tools::{ToolCallRecord, ToolCallStatus, redact_arguments};
use hearth_core::chat::{MessageRecord, MessageStatus};
use hearth_core::plugin::approval::ConfirmMode;
use leptos::prelude::*;

use crate::chat::LiveMessage;
use crate::i18n::{Key, tr, use_i18n};
use crate::plugins::risk_key;
use crate::plugins::{Answer, answer_key};
use crate::preferences::use_prefs;

fn status_key(status: ToolCallStatus) -> Key {
    match status {
        ToolCallStatus::Pending => Key::ToolStatusPending,
        ToolCallStatus::AwaitingApproval => Key::ToolStatusAwaiting,
        ToolCallStatus::AwaitingAnswer => Key::ToolStatusAwaitingAnswer,
        ToolCallStatus::Running => Key::ToolStatusRunning,
        ToolCallStatus::Done => Key::ToolStatusDone,
        ToolCallStatus::Failed => Key::ToolStatusFailed,
        ToolCallStatus::Denied => Key::ToolStatusDenied,
        ToolCallStatus::Skipped => Key::ToolStatusSkipped,
    }
}

fn status_slug(status: ToolCallStatus) -> &'static str {
    match status {
        ToolCallStatus::Pending => "pending",
        ToolCallStatus::AwaitingApproval => "awaiting",
        ToolCallStatus::AwaitingAnswer => "asking",
        ToolCallStatus::Running => "running",
        ToolCallStatus::Done => "done",
        ToolCallStatus::Failed => "failed",
        ToolCallStatus::Denied => "denied",
        ToolCallStatus::Skipped => "skipped",
    }
}

/// The tool rounds of a reply, before its final text.
#[component]
pub fn ToolRounds(live: LiveMessage) -> impl IntoView {
    let count = Memo::new(move |_| live.record.with(|r| r.tool_rounds.len()));
    view! {
        <For each=move || 0..count.get() key=|index| *index let:round>
            <RoundView live=live round=round />
        </For>
    }
}

#[component]
fn RoundView(live: LiveMessage, round: usize) -> impl IntoView {
    let text = Memo::new(move |_| {
        live.record
            .with(|r| r.tool_rounds.get(round).map(|r| r.text.clone()))
            .unwrap_or_default()
    });
    let ids = Memo::new(move |_| {
        live.record.with(|r| {
            r.tool_rounds
                .get(round)
                .map(|r| r.calls.iter().map(|c| c.id.clone()).collect::<Vec<_>>())
                .unwrap_or_default()
        })
    });
    view! {
        <div class="tool-round" data-round=round>
            <Show when=move || {
                text.with(|t| !t.trim().is_empty())
                    || live.record.with(|r| r.images.iter().any(|i| i.round as usize == round))
            }>
                <div class="message__markdown">
                    <super::round_text::RoundText live=live round=round text=text streaming=false />
                </div>
            </Show>
            <For
                each=move || ids.get().into_iter().enumerate()
                key=|(index, id)| (*index, id.clone())
                let:entry
            >
                <CallView live=live round=round index=entry.0 />
            </For>
        </div>
    }
}

fn call_of(record: &MessageRecord, round: usize, index: usize) -> Option<ToolCallRecord> {
    record.tool_rounds.get(round)?.calls.get(index).cloned()
}

#[component]
fn CallView(live: LiveMessage, round: usize, index: usize) -> impl IntoView {
    let i18n = use_i18n();
    let call = Memo::new(move |_| live.record.with(|r| call_of(r, round, index)));
    move || {
        let call = call.get()?;
        // A question for the user is its own card, not a tool's block.
        if call.plugin_id.as_deref() == Some(hearth_core::ask_user::ASK_USER_PLUGIN_ID) {
            return Some(super::question_card::card(live, round, index, call).into_any());
        }
        // So is what a tool's server asks the user before it can finish.
        if hearth_core::plugin::elicitation::is_waiting(&call) {
            let card = super::server_question::card(live, round, index, call);
            return Some(crate::ui::lazy::lazy_view(card, "question-card--loading").into_any());
        }
        let status = call.status;
        let arguments = redact_arguments(&call.arguments);
        let duration = call
            .duration_ms
            .map(|ms| format!("{:.2} s", ms as f64 / 1000.0));
        let open = status == ToolCallStatus::AwaitingApproval;
        // A JSON result reads better indented; anything else is shown as it came.
        let result = (!call.result.is_empty()).then(|| {
            serde_json::from_str::<serde_json::Value>(&call.result)
                .ok()
                .filter(|v| v.is_object() || v.is_array())
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_else(|| call.result.clone())
        });
        let files = call.files.clone();
        let alt = serde_json::from_str::<serde_json::Value>(&call.arguments)
            .ok()
            .and_then(|args| args["prompt"].as_str().map(str::to_string))
            .unwrap_or_default();
        Some(view! {
            <details
                class=format!("tool-call tool-call--{}", status_slug(status))
                data-call-id=call.id.clone()
                data-status=status_slug(status)
                open=open
            >
                <summary class="tool-call__summary">
                    <code class="tool-call__name">{call.name.clone()}</code>
                    {call.plugin_title.clone().map(|title| view! { <span class="tool-call__plugin">{title}</span> })}
                    {call.risk.map(|risk| view! {
                        <span class=format!("risk risk--{}", risk.as_str())>{tr(risk_key(risk))}</span>
                    })}
                    <span class="tool-call__status" role="status">{tr(status_key(status))}</span>
                    {duration.map(|d| view! { <span class="tool-call__duration">{d}</span> })}
                </summary>
                <div class="tool-call__body">
                    <p class="tool-call__label">{i18n.t(Key::ToolArguments)}</p>
                    <pre class="tool-call__code">{arguments}</pre>
                    {result.map(|result| view! {
                        <p class="tool-call__label">
                            {i18n.t(Key::ToolResult)}
                            {call.truncated.then(|| format!(" · {}", i18n.t(Key::ToolTruncated)))}
                            {(call.images > 0).then(|| format!(" · {}", i18n.t_with(Key::ToolImages, &[("count", &call.images.to_string())])))}
                        </p>
                        <pre class=if call.is_error { "tool-call__code tool-call__code--error" } else { "tool-call__code" }>{result}</pre>
                    })}
                </div>
            </details>
            {(!files.is_empty()).then(|| view! {
                <div class="tool-images">
                    {files.into_iter().map(|name| view! { <super::stored_image::StoredImage name=name alt=alt.clone() /> }).collect_view()}
                </div>
            })}
            {(status == ToolCallStatus::Done).then(|| {
                // Finished while this tab writes the reply: its page (if any) shows at once.
                let writing = live.record.with_untracked(|r| r.status == MessageStatus::Streaming);
                view! { <crate::mcp_app::CallApp call=call.clone() live=writing /> }
            })}
            {open.then(|| {
                let key = answer_key(&live.record.with_untracked(|r| r.id.clone()), round, index);
                let conversation = live.record.with_untracked(|r| r.conversation_id.clone());
                view! { <ConfirmCard call=call.clone() answer_key=key conversation=conversation /> }
            })}
        }.into_any())
    }
}

/// The confirmation card of a waiting call.
#[component]
fn ConfirmCard(call: ToolCallRecord, answer_key: String, conversation: String) -> impl IntoView {
    let chat = crate::chat::use_chat();
    // The tab writing the reply runs the call; an answer given here reaches it.
    let answer_in = move |conversation: String| {
        move |key: &str, answer: Answer| chat.answer_call(&conversation, key, answer)
    };
    let (answer_deny, answer_session, answer_once) = (
        answer_in(conversation.clone()),
        answer_in(conversation.clone()),
        answer_in(conversation),
    );
    let prefs = use_prefs();
    let i18n = use_i18n();
    let session = prefs.value.with_untracked(|p| p.tools.confirm) == ConfirmMode::SideEffects
        && call.risk.is_some_and(|r| r.session_approvable());
    let (once, always, deny) = (answer_key.clone(), answer_key.clone(), answer_key);
    let title_id = format!("confirm-{}", call.id);
    let label_id = title_id.clone();
    let plugin = call.plugin_title.clone().unwrap_or_default();
    view! {
        <div class="confirm-card" role="group" aria-labelledby=label_id data-confirm-call=call.id.clone()>
            <p class="confirm-card__title" id=title_id>
                {i18n.t_with(Key::ToolConfirmTitle, &[("name", &call.name), ("plugin", &plugin)])}
            </p>
            <p class="confirm-card__text">{tr(Key::ToolConfirmHint)}</p>
            <div class="confirm-card__actions">
                <button type="button" class="button button--secondary button--small" data-answer="deny"
                    on:click=move |_| answer_deny(&deny, Answer::Deny)>
                    {tr(Key::ToolDeny)}
                </button>
                {session.then(|| view! {
                    <button type="button" class="button button--secondary button--small" data-answer="session"
                        on:click=move |_| answer_session(&always, Answer::AllowSession)>
                        {tr(Key::ToolAllowSession)}
                    </button>
                })}
                <button type="button" class="button button--primary button--small" data-answer="once"
                    on:click=move |_| answer_once(&once, Answer::AllowOnce)>
                    {tr(Key::ToolAllowOnce)}
                </button>
            </div>
        </div>
    }
}
