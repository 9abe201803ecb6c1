//! Settings › System: the global system prompt every new request carries. The text is
//! edited locally and stored on Save (never on every keystroke), with a character
//! count, a specific error past the limit, and a way back to what is stored.

use hearth_core::preferences::{MAX_SYSTEM_PROMPT_CHARS, PreferencesError};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, tr, use_i18n};
use crate::preferences::{SaveError, use_prefs};
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, use_toasts};

/// Why the prompt was not saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PromptError {
    /// Longer than [`MAX_SYSTEM_PROMPT_CHARS`]: this many characters.
    TooLong(usize),
}

/// The System tab.
#[component]
pub fn SystemPanel() -> impl IntoView {
    let prefs = use_prefs();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let stored = move || prefs.value.with(|p| p.system_prompt.clone());
    let text = RwSignal::new(stored());
    // The record may finish loading (or another tab may save) after the tab opened;
    // follow it while the user has not started editing.
    let edited = RwSignal::new(false);
    Effect::new(move |_| {
        let latest = stored();
        if !edited.get_untracked() {
            text.set(latest);
        }
    });
    let count = move || text.with(|t| t.chars().count());
    let too_long = move || count() > MAX_SYSTEM_PROMPT_CHARS;
    let changed = move || text.with(|t| prefs.value.with(|p| p.system_prompt != *t));
    let saving = RwSignal::new(false);
    let error = RwSignal::new(None::<PromptError>);
    let too_long_message = move |length: usize| {
        i18n.t_with(
            Key::SystemPromptTooLong,
            &[
                ("count", &length.to_string()),
                ("max", &MAX_SYSTEM_PROMPT_CHARS.to_string()),
            ],
        )
    };

    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        let value = text.get_untracked();
        let length = value.chars().count();
        if length > MAX_SYSTEM_PROMPT_CHARS {
            error.set(Some(PromptError::TooLong(length)));
            crate::browser::focus_by_id("settings-system-prompt");
            return;
        }
        error.set(None);
        saving.set(true);
        spawn_local(async move {
            let outcome = prefs.update(|p| p.system_prompt = value).await;
            saving.set(false);
            match outcome {
                Ok(()) => {
                    edited.set(false);
                    toasts.show(ToastKind::Info, i18n.t(Key::SystemPromptSaved));
                }
                Err(SaveError::Invalid(PreferencesError::SystemPromptTooLong(n))) => {
                    error.set(Some(PromptError::TooLong(n)));
                }
                Err(reason) => toasts.show(
                    ToastKind::Error,
                    i18n.t_with(Key::ModelsSaveFailed, &[("reason", &reason.to_string())]),
                ),
            }
        });
    };
    let revert = move |_| {
        text.set(prefs.value.with_untracked(|p| p.system_prompt.clone()));
        edited.set(false);
        error.set(None);
    };

    view! {
        <form class="settings-section" on:submit=submit novalidate>
            <Field
                id="settings-system-prompt"
                label=tr(Key::SystemPrompt)
                control=Control::Textarea(10)
                spellcheck=true
                value=text
                on_input=move |value| {
                    edited.set(true);
                    text.set(value);
                }
                placeholder=tr(Key::SystemPromptPlaceholder)
                hint=tr(Key::SystemPromptHint)
                error=move || error.get().map(|PromptError::TooLong(n)| too_long_message(n))
                invalid=too_long
                described_by_extra="settings-system-prompt-count"
                aside=move || view! {
                    <p
                        class="field__hint field__count"
                        id="settings-system-prompt-count"
                        class:field__count--over=too_long
                    >
                        {move || i18n.t_with(
                            Key::SystemPromptCount,
                            &[
                                ("count", &count().to_string()),
                                ("max", &MAX_SYSTEM_PROMPT_CHARS.to_string()),
                            ],
                        )}
                    </p>
                }
            />
            <div class="provider-form__actions">
                <button
                    type="button"
                    class="button button--secondary"
                    disabled=move || !changed()
                    on:click=revert
                >
                    {tr(Key::SystemPromptRevert)}
                </button>
                <button
                    type="submit"
                    class="button button--primary"
                    id="settings-system-save"
                    aria-busy=move || saving.get().to_string()
                    disabled=move || saving.get() || !changed()
                >
                    {tr(Key::ProviderSave)}
                </button>
            </div>
        </form>
    }
}
