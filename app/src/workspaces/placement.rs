//! A conversation's settings, as a dialog (the conversation menu's "Conversation
//! settings…"): the workspace it belongs to (moving it between
//! workspaces) and its own instructions, joined to its turns' system prompt after the
//! user's and the workspace's (`hearth_core::workspace::prompt`), and its model fallback
//! policy (`super::placement_fallback`). In a lazily loaded
//! chunk, mounted while open (`crate::shell::ShellState::placing`).

use hearth_core::preferences::MAX_SYSTEM_PROMPT_CHARS;
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::use_workspaces;
use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::shell::use_shell;
use crate::ui::dialog::Dialog;
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, use_toasts};

/// The dialog for conversation `id`, once its stylesheet and English sentences are here.
#[lazy]
pub fn dialog(id: String) -> AnyView {
    let styled = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Panels);
    let worded = crate::i18n::later_english_ready();
    view! {
        <Show when=move || styled.get() && worded.get()>
            <PlacementDialog id=id.clone() />
        </Show>
    }
    .into_any()
}

#[component]
fn PlacementDialog(id: String) -> impl IntoView {
    let chat = use_chat();
    let shell = use_shell();
    let workspaces = use_workspaces();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let open = RwSignal::new(true);
    // Closing (Escape, the close button, Cancel, Save) ends the placing.
    Effect::new(move |_| {
        if !open.get() {
            shell.placing.set(None);
        }
    });
    let record = chat.list.find(&id).unwrap_or_default();
    let workspace = RwSignal::new(record.workspace_id.clone().unwrap_or_default());
    let prompt = RwSignal::new(record.system_prompt.clone());
    let fallback = RwSignal::new(hearth_core::chat::fallback::Fallback::decode(
        record.fallback.as_deref(),
    ));
    let failed = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let saving = RwSignal::new(false);
    spawn_local(async move {
        if let Err(error) = workspaces.ensure_loaded().await {
            let _ = failed.try_set(Some(crate::workspaces::words::error_text(&error, i18n)));
        }
    });
    let options = move || {
        workspaces.library().with(|l| {
            l.as_ref()
                .map(|l| {
                    l.workspaces
                        .iter()
                        .map(|w| (w.id.clone(), w.name.clone()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let count = move || prompt.with(|p| p.chars().count());
    let too_long = move || count() > MAX_SYSTEM_PROMPT_CHARS;
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        if too_long() {
            error.set(Some(i18n.t_with(
                Key::SystemPromptTooLong,
                &[
                    ("count", &count().to_string()),
                    ("max", &MAX_SYSTEM_PROMPT_CHARS.to_string()),
                ],
            )));
            return;
        }
        let chosen = Some(workspace.get_untracked()).filter(|w| !w.is_empty());
        let text = prompt.get_untracked();
        let id = id.clone();
        saving.set(true);
        spawn_local(async move {
            let mut outcome = chat.list.set_placement(&id, chosen, text).await;
            if outcome.is_ok() {
                let kept = fallback.get_untracked().repaired().encode();
                outcome = chat.list.set_fallback(&id, kept).await;
            }
            let _ = saving.try_set(false);
            match outcome {
                Ok(()) => {
                    toasts.show(ToastKind::Info, i18n.t(Key::PlacementSaved));
                    let _ = open.try_set(false);
                }
                Err(reason) => {
                    let _ = error.try_set(Some(i18n.t_with(
                        Key::WorkspacesStorageFailed,
                        &[("reason", &reason.to_string())],
                    )));
                }
            }
        });
    };
    view! {
        <Dialog open title=Signal::derive(move || i18n.t(Key::PlacementTitle)) class="dialog--placement">
            <form class="placement" id="placement-form" on:submit=submit.clone() novalidate>
                <Field id="placement-workspace" label=tr(Key::PlacementWorkspace) control=Control::Select
                    value=workspace on_input=move |v| workspace.set(v)
                    error=Signal::derive(move || failed.get())>
                    <option value="" selected=move || workspace.with(String::is_empty)>{tr(Key::PlacementNoWorkspace)}</option>
                    {move || options().into_iter().map(|(id, name)| {
                        let value = id.clone();
                        view! { <option value=value selected=move || workspace.with(|w| *w == id)>{name}</option> }
                    }).collect_view()}
                </Field>
                <Field id="placement-prompt" label=tr(Key::PlacementPrompt) control=Control::Textarea(6)
                    value=prompt on_input=move |v| prompt.set(v) spellcheck=true
                    hint=tr(Key::PlacementPromptHint)
                    invalid=Signal::derive(too_long)
                    described_by_extra="placement-prompt-count"
                    aside=move || view! {
                        <p class="field__hint field__count" id="placement-prompt-count">
                            {move || i18n.t_with(Key::SystemPromptCount, &[
                                ("count", &count().to_string()),
                                ("max", &MAX_SYSTEM_PROMPT_CHARS.to_string()),
                            ])}
                        </p>
                    } />
                <super::placement_fallback::FallbackFields setting=fallback />
                <p class="field__error" role="alert" id="placement-error">{move || error.get()}</p>
                <div class="provider-form__actions">
                    <button type="button" class="button button--secondary" id="placement-cancel"
                        on:click=move |_| open.set(false)>{tr(Key::ProviderCancel)}</button>
                    <button type="submit" class="button button--primary" id="placement-save"
                        aria-busy=move || saving.get().to_string() disabled=move || saving.get()>
                        {tr(Key::ProviderSave)}
                    </button>
                </div>
            </form>
        </Dialog>
    }
}
