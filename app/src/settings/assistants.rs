//! Settings › Assistants: start a chat with an assistant. The ones used lately first,
//! then the user's own (New assistant; per assistant Start chat, Edit and Delete with
//! Undo), then the built-in catalogue of the user's language with where it came from
//! (`crate::catalogue`); a built-in one can be copied to the user's own to change it.
//! The editor holds the name, emoji and description, the instructions, the opening
//! message, the model, and the tools and skills its conversations use.

use hearth_core::assistant::{
    Assistant, AssistantDraft, MAX_CUSTOM, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, MAX_OPENING_CHARS,
};
use hearth_core::preferences::{MAX_SYSTEM_PROMPT_CHARS, ModelRef};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::workspaces::{Choices, Which};
use crate::assistants::catalog::{self, CatalogState};
use crate::assistants::use_assistants;
use crate::assistants::words::error_text;
use crate::catalogue::CatalogStatus;
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::field::{Control, Field};
use crate::ui::model_picker::ModelPicker;
use crate::ui::model_picker::offered_groups;
use crate::ui::toast::{ToastAction, ToastKind, use_toasts};

/// How many recently used assistants are shown.
const RECENT_SHOWN: usize = 6;

/// What the editor is open for: a new assistant (from this draft: empty, or a copy of a
/// built-in one), or the user's own with this id.
#[derive(Clone, PartialEq)]
enum Editing {
    New(Box<AssistantDraft>),
    Existing(String),
}

/// Which list a card is in (what it offers besides Start chat).
#[derive(Clone, Copy, PartialEq)]
enum Shelf {
    Recent,
    Mine,
    Builtin,
}

/// The Assistants tab.
#[component]
pub fn AssistantsPanel() -> impl IntoView {
    let assistants = use_assistants();
    let i18n = use_i18n();
    let failed = RwSignal::new(None::<String>);
    spawn_local(async move {
        if let Err(error) = assistants.ensure_loaded().await {
            failed.set(Some(error_text(&error, i18n)));
        }
    });
    let editing = RwSignal::new(None::<Editing>);
    let mine = move || {
        assistants
            .library()
            .with(|l| l.as_ref().map(|l| l.custom.clone()).unwrap_or_default())
    };
    let recent = move || {
        assistants.library().with(|l| {
            l.as_ref()
                .map(|l| {
                    l.recent
                        .iter()
                        .take(RECENT_SHOWN)
                        .cloned()
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    view! {
        <div class="settings-section assistants-panel">
            <p class="settings-section__text">{tr(Key::AssistantsIntro)}</p>
            <p class="field__error" role="alert" id="assistants-unreadable">{move || failed.get()}</p>
            <Show when=move || !recent().is_empty()>
                <section class="data-block" aria-labelledby="assistants-recent-title">
                    <h3 class="settings-subheading" id="assistants-recent-title">{tr(Key::AssistantsRecent)}</h3>
                    <ul class="plugin-list" id="assistants-recent">
                        <For each=recent key=|a| (a.id.clone(), a.updated_at.to_bits()) let:assistant>
                            <AssistantCard assistant shelf=Shelf::Recent editing />
                        </For>
                    </ul>
                </section>
            </Show>
            <section class="data-block" aria-labelledby="assistants-mine-title">
                <h3 class="settings-subheading" id="assistants-mine-title">{tr(Key::AssistantsMine)}</h3>
                <div class="skills-actions">
                    <button type="button" class="button button--secondary button--small" id="assistants-new"
                        disabled=move || failed.with(Option::is_some)
                        on:click=move |_| editing.set(Some(Editing::New(Box::default())))>
                        {tr(Key::AssistantsNew)}
                    </button>
                    <span class="field__hint">
                        {move || i18n.t_with(Key::AssistantsCount, &[
                            ("count", &mine().len().to_string()),
                            ("max", &MAX_CUSTOM.to_string()),
                        ])}
                    </span>
                </div>
                {move || editing.get().map(|open| view! { <AssistantEditor open editing /> })}
                {move || (mine().is_empty() && failed.with(Option::is_none)).then(|| view! {
                    <p class="field__hint" id="assistants-empty">{tr(Key::AssistantsEmpty)}</p>
                })}
                <ul class="plugin-list" id="assistants-mine">
                    <For each=mine key=|a| (a.id.clone(), a.updated_at.to_bits()) let:assistant>
                        <AssistantCard assistant shelf=Shelf::Mine editing />
                    </For>
                </ul>
            </section>
            <BuiltinSection editing />
        </div>
    }
}

/// The built-in catalogue, with where it came from.
#[component]
fn BuiltinSection(editing: RwSignal<Option<Editing>>) -> impl IntoView {
    let i18n = use_i18n();
    // Where the list on screen came from; this tab's alone.
    let state = RwSignal::new(CatalogState::Loading);
    let load = move || {
        let tag = i18n.locale().tag().to_string();
        state.set(CatalogState::Loading);
        spawn_local(async move {
            let loaded = catalog::load(&tag).await;
            // The tab may have closed meanwhile.
            let _ = state.try_set(loaded);
        });
    };
    // Again whenever the language changes.
    Effect::new(move |_| {
        let _ = i18n.locale();
        untrack(load);
    });
    let shown = move || state.with(|s| s.shown().map(|c| c.assistants.clone()).unwrap_or_default());
    view! {
        <section class="data-block" aria-labelledby="assistants-builtin-title">
            <h3 class="settings-subheading" id="assistants-builtin-title">{tr(Key::AssistantsBuiltin)}</h3>
            <CatalogStatus state id="assistants-catalog" failed=Key::AssistantsCatalogFailed
                retry=Callback::new(move |()| load()) />
            <ul class="plugin-list" id="assistants-catalog">
                <For each=shown key=|a| a.id.clone() let:assistant>
                    <AssistantCard assistant shelf=Shelf::Builtin editing />
                </For>
            </ul>
        </section>
    }
}

/// One assistant: its emoji, name and description, Start chat, and Edit and Delete (the
/// user's own) or Make a copy (a built-in one).
#[component]
fn AssistantCard(
    assistant: Assistant,
    shelf: Shelf,
    editing: RwSignal<Option<Editing>>,
) -> impl IntoView {
    let assistants = use_assistants();
    let chat = crate::chat::use_chat();
    let shell = crate::shell::use_shell();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let id = assistant.id.clone();
    let name = assistant.name.clone();
    let label = {
        let name = name.clone();
        move |key: Key| format!("{}: {}", i18n.t(key), name)
    };
    let start = {
        let assistant = assistant.clone();
        move |_| crate::assistants::start::start(assistant.clone(), chat, shell, toasts, i18n)
    };
    let remove = {
        let id = id.clone();
        move |_| {
            let id = id.clone();
            spawn_local(async move {
                match assistants.remove(id).await {
                    Ok(removed) => {
                        let name = removed.name.clone();
                        let undo = Callback::new(move |()| {
                            let removed = removed.clone();
                            spawn_local(async move {
                                let back = assistants.change(move |l| l.put_back(removed));
                                if let Err(error) = back.await {
                                    toasts.show(ToastKind::Error, error_text(&error, i18n));
                                }
                            });
                        });
                        toasts.show_with_action(
                            i18n.t_with(Key::AssistantsDeleted, &[("name", &name)]),
                            ToastAction {
                                label: i18n.t(Key::ChatUndo),
                                run: undo,
                            },
                        );
                        crate::browser::focus_by_id("assistants-new");
                    }
                    Err(error) => toasts.show(ToastKind::Error, error_text(&error, i18n)),
                }
            });
        }
    };
    let actions = match shelf {
        Shelf::Mine => {
            let edit_id = id.clone();
            view! {
                <button type="button" class="button button--secondary button--small" data-assistant-edit=""
                    aria-label=label(Key::ProviderEdit)
                    on:click=move |_| editing.set(Some(Editing::Existing(edit_id.clone())))>{tr(Key::ProviderEdit)}</button>
                <button type="button" class="button button--secondary button--small" data-assistant-delete=""
                    aria-label=label(Key::AssistantsDelete) on:click=remove>{tr(Key::AssistantsDelete)}</button>
            }
            .into_any()
        }
        Shelf::Builtin => {
            let draft = assistant.draft();
            view! {
                <button type="button" class="button button--secondary button--small" data-assistant-copy=""
                    aria-label=label(Key::AssistantsCopy)
                    on:click=move |_| {
                        editing.set(Some(Editing::New(Box::new(draft.clone()))));
                        crate::browser::focus_by_id("assistant-editor-name");
                    }>{tr(Key::AssistantsCopy)}</button>
            }
            .into_any()
        }
        Shelf::Recent => ().into_any(),
    };
    let emoji = if assistant.emoji.is_empty() {
        "🤖".to_string()
    } else {
        assistant.emoji.clone()
    };
    view! {
        <li class="plugin-card assistant-card" data-assistant=id.clone()>
            <div class="plugin-card__head">
                <span class="assistant-card__emoji" aria-hidden="true">{emoji}</span>
                <div class="plugin-card__main">
                    <span class="plugin-card__title">{name.clone()}</span>
                    <span class="plugin-card__meta">{assistant.description.clone()}</span>
                </div>
            </div>
            <div class="skill-card__actions">
                <button type="button" class="button button--primary button--small" data-assistant-start=""
                    aria-label=label(Key::AssistantsStart) on:click=start>{tr(Key::AssistantsStart)}</button>
                {actions}
            </div>
        </li>
    }
}

/// The editor of one assistant of the user's own.
#[component]
fn AssistantEditor(open: Editing, editing: RwSignal<Option<Editing>>) -> impl IntoView {
    let assistants = use_assistants();
    let chat = crate::chat::use_chat();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let (id, start) = match &open {
        Editing::New(draft) => (None, (**draft).clone()),
        Editing::Existing(id) => (
            Some(id.clone()),
            assistants
                .library()
                .with_untracked(|l| l.as_ref().and_then(|l| l.get(id)).map(Assistant::draft))
                .unwrap_or_default(),
        ),
    };
    let heading = if id.is_some() {
        Key::AssistantsEdit
    } else {
        Key::AssistantsNew
    };
    let name = RwSignal::new(start.name.clone());
    let emoji = RwSignal::new(start.emoji.clone());
    let description = RwSignal::new(start.description.clone());
    let prompt = RwSignal::new(start.prompt.clone());
    let opening = RwSignal::new(start.opening.clone());
    let model = RwSignal::new(start.model.clone());
    let plugins = RwSignal::new(start.plugins.clone());
    let skills = RwSignal::new(start.skills.clone());
    let error = RwSignal::new(None::<String>);
    let saving = RwSignal::new(false);
    request_animation_frame(|| crate::browser::focus_by_id("assistant-editor-name"));
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        let draft = AssistantDraft {
            name: name.get_untracked(),
            emoji: emoji.get_untracked(),
            description: description.get_untracked(),
            prompt: prompt.get_untracked(),
            opening: opening.get_untracked(),
            model: model.get_untracked(),
            plugins: plugins.get_untracked(),
            skills: skills.get_untracked(),
        };
        let id = id.clone();
        saving.set(true);
        spawn_local(async move {
            let outcome = assistants.save(id, draft).await;
            saving.set(false);
            match outcome {
                Ok(_) => {
                    error.set(None);
                    editing.set(None);
                    toasts.show(ToastKind::Info, i18n.t(Key::AssistantsSaved));
                    crate::browser::focus_by_id("assistants-new");
                }
                Err(reason) => {
                    error.set(Some(error_text(&reason, i18n)));
                    crate::browser::focus_by_id("assistant-editor-error");
                }
            }
        });
    };
    let groups = offered_groups(chat);
    let count = move || prompt.with(|p| p.chars().count());
    let max = |n: usize| {
        Signal::derive(move || i18n.t_with(Key::AssistantsFieldMax, &[("max", &n.to_string())]))
    };
    view! {
        <form class="data-block skill-editor" id="assistant-editor" on:submit=submit novalidate
            aria-labelledby="assistant-editor-heading">
            <h3 class="settings-subheading" id="assistant-editor-heading">{tr(heading)}</h3>
            <Field id="assistant-editor-name" label=tr(Key::WorkspacesFieldName) value=name
                on_input=move |v| name.set(v) spellcheck=true hint=max(MAX_NAME_CHARS) />
            <Field id="assistant-editor-emoji" label=tr(Key::AssistantsFieldEmoji) value=emoji
                on_input=move |v| emoji.set(v) hint=tr(Key::AssistantsFieldEmojiHint) />
            <Field id="assistant-editor-description" label=tr(Key::AssistantsFieldDescription)
                value=description on_input=move |v| description.set(v) spellcheck=true
                hint=max(MAX_DESCRIPTION_CHARS) />
            <Field id="assistant-editor-prompt" label=tr(Key::WorkspacesFieldPrompt)
                control=Control::Textarea(6) value=prompt on_input=move |v| prompt.set(v) spellcheck=true
                hint=tr(Key::AssistantsFieldPromptHint)
                invalid=Signal::derive(move || count() > MAX_SYSTEM_PROMPT_CHARS)
                described_by_extra="assistant-editor-prompt-count"
                aside=move || view! {
                    <p class="field__hint field__count" id="assistant-editor-prompt-count">
                        {move || i18n.t_with(Key::SystemPromptCount, &[
                            ("count", &count().to_string()),
                            ("max", &MAX_SYSTEM_PROMPT_CHARS.to_string()),
                        ])}
                    </p>
                } />
            <Field id="assistant-editor-opening" label=tr(Key::AssistantsFieldOpening)
                control=Control::Textarea(3) value=opening on_input=move |v| opening.set(v) spellcheck=true
                hint=Signal::derive(move || i18n.t_with(Key::AssistantsFieldOpeningHint, &[
                    ("max", &MAX_OPENING_CHARS.to_string()),
                ])) />
            <ModelPicker id="assistant-editor-model" label=tr(Key::WorkspacesFieldModel)
                groups=groups selected=model
                on_change=Callback::new(move |m: Option<ModelRef>| model.set(m))
                none=tr(Key::WorkspacesModelNone) hint=tr(Key::AssistantsFieldModelHint) />
            <Choices which=Which::Tools chosen=plugins prefix="assistant" />
            <Choices which=Which::Skills chosen=skills prefix="assistant" />
            <p class="field__error" role="alert" id="assistant-editor-error" tabindex="-1">{move || error.get()}</p>
            <div class="provider-form__actions">
                <button type="button" class="button button--secondary" id="assistant-editor-cancel"
                    on:click=move |_| editing.set(None)>{tr(Key::ProviderCancel)}</button>
                <button type="submit" class="button button--primary" id="assistant-editor-save"
                    aria-busy=move || saving.get().to_string() disabled=move || saving.get()>
                    {tr(Key::ProviderSave)}
                </button>
            </div>
        </form>
    }
}
