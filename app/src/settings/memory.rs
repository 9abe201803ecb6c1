//! Settings › Memory: whether memory is used, whether the model's proposals are kept
//! without asking, a form to add or edit a memory (kind, importance, tags), and every
//! memory with its source, Edit and Forget. Every change goes through the memory store
//! (`crate::memory`), which checks it in core; a refusal is said in the user's language.
//! A memory the search palette opened is scrolled to and its Edit button focused
//! (`ShellState::reveal`).

use hearth_core::memory::{
    MAX_IMPORTANCE, MAX_MEMORIES, MIN_IMPORTANCE, Memory, MemoryDraft, MemoryKind, MemorySource,
};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, tr, use_i18n};
use crate::memory::{Op, Switch, error_text, run, use_memories};
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, use_toasts};

/// A kind's label.
fn kind_key(kind: MemoryKind) -> Key {
    match kind {
        MemoryKind::Fact => Key::MemoryKindFact,
        MemoryKind::Preference => Key::MemoryKindPreference,
        MemoryKind::Project => Key::MemoryKindProject,
        MemoryKind::Person => Key::MemoryKindPerson,
    }
}

/// The form's fields, as typed.
#[derive(Clone, Default)]
struct Form {
    /// The memory being edited; `None` for a new one.
    editing: Option<String>,
    content: String,
    kind: String,
    importance: String,
    tags: String,
}

impl Form {
    fn of(memory: &Memory) -> Self {
        Self {
            editing: Some(memory.id.clone()),
            content: memory.draft.content.clone(),
            kind: memory.draft.kind.as_str().into(),
            importance: memory.draft.importance.to_string(),
            tags: memory.draft.tags.join(", "),
        }
    }

    fn draft(&self) -> MemoryDraft {
        MemoryDraft {
            kind: MemoryKind::from_name(&self.kind).unwrap_or_default(),
            content: self.content.clone(),
            importance: self.importance.parse().unwrap_or(0),
            tags: self
                .tags
                .split([',', '，', '、'])
                .map(str::to_string)
                .collect(),
        }
    }
}

/// The Memory tab.
#[component]
pub fn MemoryPanel() -> impl IntoView {
    let memories = use_memories();
    let i18n = use_i18n();
    let toasts = use_toasts();
    // Read on first open; a book that cannot be read is said, never shown as empty.
    let unreadable = RwSignal::new(None::<String>);
    spawn_local(async move {
        if let Err(error) = run(Op::Load).await {
            unreadable.set(Some(error_text(&error, i18n)));
        }
    });
    let book = move || memories.book().get();
    let form = RwSignal::new(Form::default());
    let error = RwSignal::new(None::<String>);
    let saving = RwSignal::new(false);

    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        let current = form.get_untracked();
        saving.set(true);
        spawn_local(async move {
            let draft = current.draft();
            let op = match current.editing {
                Some(id) => Op::Update(id, draft),
                None => Op::Add(draft, MemorySource::Manual),
            };
            let outcome = run(op).await;
            saving.set(false);
            match outcome {
                Ok(_) => {
                    form.set(Form::default());
                    error.set(None);
                    toasts.show(ToastKind::Info, i18n.t(Key::ProviderSaved));
                }
                Err(refused) => {
                    error.set(Some(error_text(&refused, i18n)));
                    crate::browser::focus_by_id("memory-content");
                }
            }
        });
    };
    let switch = move |which: Switch| {
        move |event: leptos::ev::Event| {
            let on = event_target_checked(&event);
            let input: web_sys::HtmlInputElement = event_target(&event);
            // Shown as stored: the box follows the book once the change is kept.
            input.set_checked(!on);
            spawn_local(async move {
                if let Err(error) = run(Op::Set(which, on)).await {
                    toasts.show(ToastKind::Error, error_text(&error, i18n));
                }
            });
        }
    };
    let enabled = move || book().is_some_and(|b| b.enabled);
    let propose = move || book().is_some_and(|b| b.propose);
    let auto_record = move || book().is_some_and(|b| b.auto_record);
    let listed = move || book().map(|b| b.memories).unwrap_or_default();
    let field = move |pick: fn(&Form) -> String| Signal::derive(move || form.with(pick));

    view! {
        <div class="settings-section memory-panel" id="memory-panel">
            <p class="field__hint">{tr(Key::MemoryIntro)}</p>
            {move || unreadable.get().map(|text| view! { <p class="field__error" role="alert">{text}</p> })}
            <label class="switch">
                <input type="checkbox" id="memory-enabled" prop:checked=enabled
                    on:change=switch(Switch::Enabled) aria-describedby="memory-enabled-hint" />
                <span>{tr(Key::MemoryEnabled)}</span>
            </label>
            <p class="field__hint" id="memory-enabled-hint">{tr(Key::MemoryEnabledHint)}</p>
            <label class="switch">
                <input type="checkbox" id="memory-propose" prop:checked=propose
                    on:change=switch(Switch::Propose) aria-describedby="memory-propose-hint" />
                <span>{tr(Key::MemoryPropose)}</span>
            </label>
            <p class="field__hint" id="memory-propose-hint">{tr(Key::MemoryProposeHint)}</p>
            <label class="switch">
                <input type="checkbox" id="memory-auto-record" prop:checked=auto_record
                    on:change=switch(Switch::AutoRecord) aria-describedby="memory-auto-record-hint" />
                <span>{tr(Key::MemoryAutoRecord)}</span>
            </label>
            <p class="field__hint" id="memory-auto-record-hint">{tr(Key::MemoryAutoRecordHint)}</p>

            <form class="data-block" id="memory-form" on:submit=submit novalidate>
                <h3 class="settings-subheading">{tr(Key::MemoryAdd)}</h3>
                <Field
                    id="memory-content"
                    label=tr(Key::MemoryContent)
                    control=Control::Textarea(3)
                    spellcheck=true
                    value=field(|f| f.content.clone())
                    on_input=move |v| form.update(|f| f.content = v)
                    placeholder=tr(Key::MemoryContentPlaceholder)
                    error=move || error.get()
                    invalid=move || error.with(Option::is_some)
                />
                <div class="memory-form__row">
                    <Field
                        id="memory-kind"
                        label=tr(Key::PluginsAddKind)
                        control=Control::Select
                        value=field(|f| f.kind.clone())
                        on_input=move |v| form.update(|f| f.kind = v)
                    >
                        {MemoryKind::ALL
                            .into_iter()
                            .map(|kind| view! {
                                <option value=kind.as_str()
                                    selected=move || form.with(|f| MemoryKind::from_name(&f.kind).unwrap_or_default() == kind)>
                                    {tr(kind_key(kind))}
                                </option>
                            })
                            .collect_view()}
                    </Field>
                    <Field
                        id="memory-importance"
                        label=tr(Key::MemoryImportance)
                        control=Control::Select
                        value=field(|f| f.importance.clone())
                        on_input=move |v| form.update(|f| f.importance = v)
                        hint=tr(Key::MemoryImportanceHint)
                    >
                        {(MIN_IMPORTANCE..=MAX_IMPORTANCE)
                            .map(|n| view! {
                                <option value=n.to_string()
                                    selected=move || form.with(|f| f.importance.parse().unwrap_or(3u8) == n)>
                                    {n.to_string()}
                                </option>
                            })
                            .collect_view()}
                    </Field>
                </div>
                <Field
                    id="memory-tags"
                    label=tr(Key::MemoryTags)
                    value=field(|f| f.tags.clone())
                    on_input=move |v| form.update(|f| f.tags = v)
                    hint=tr(Key::MemoryTagsHint)
                />
                <div class="provider-form__actions">
                    {move || form.with(|f| f.editing.is_some()).then(|| view! {
                        <button type="button" class="button button--secondary"
                            on:click=move |_| { form.set(Form::default()); error.set(None); }>
                            {tr(Key::ProviderCancel)}
                        </button>
                    })}
                    <button type="submit" class="button button--primary" id="memory-save"
                        disabled=move || saving.get()>{tr(Key::ProviderSave)}</button>
                </div>
            </form>

            <section class="data-block" aria-labelledby="memory-list-title">
                <div class="skills-head">
                    <h3 class="settings-subheading" id="memory-list-title">{tr(Key::MemoryList)}</h3>
                    <span class="field__hint" id="memory-count">
                        {move || i18n.t_with(Key::MemoryCount, &[
                            ("count", &listed().len().to_string()),
                            ("max", &MAX_MEMORIES.to_string()),
                        ])}
                    </span>
                </div>
                {move || listed().is_empty().then(|| view! {
                    <p class="field__hint" id="memory-empty">{tr(Key::MemoryEmpty)}</p>
                })}
                <ul class="plugin-list" id="memory-list">
                    <For each=move || listed().into_iter().rev() key=|m| (m.id.clone(), m.updated_at.to_bits()) let:memory>
                        <MemoryCard memory form />
                    </For>
                </ul>
            </section>
        </div>
    }
}

/// One memory, with Edit and Forget.
#[component]
fn MemoryCard(memory: Memory, form: RwSignal<Form>) -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let excerpt: String = memory.draft.content.chars().take(40).collect();
    let label = move |key: Key| format!("{}: {}", i18n.t(key), excerpt);
    let edit = {
        let memory = memory.clone();
        move |_| {
            form.set(Form::of(&memory));
            crate::browser::focus_by_id("memory-content");
        }
    };
    let forget = {
        let id = memory.id.clone();
        move |_| {
            let id = id.clone();
            spawn_local(async move {
                match run(Op::Remove(id)).await {
                    Ok(_) => toasts.show(ToastKind::Info, i18n.t(Key::MemoryForgotten)),
                    Err(error) => toasts.show(ToastKind::Error, error_text(&error, i18n)),
                }
            });
        }
    };
    let tags = memory.draft.tags.join(", ");
    // Shown first when the search palette opened it: scrolled to, its Edit focused.
    let edit_button = NodeRef::<leptos::html::Button>::new();
    let shell = crate::shell::use_shell();
    let found = RwSignal::new(false);
    {
        let id = memory.id.clone();
        Effect::new(move |_| {
            if shell.reveal.with(|r| r.as_deref() == Some(id.as_str()))
                && let Some(button) = edit_button.get()
            {
                shell.reveal.set(None);
                found.set(true);
                button.scroll_into_view_with_bool(false);
                let _ = button.focus();
            }
        });
    }
    view! {
        <li class="plugin-card" class:plugin-card--found=move || found.get()
            data-memory=memory.id.clone()>
            <p class="memory-card__content">{memory.draft.content.clone()}</p>
            <p class="plugin-card__meta">
                {tr(kind_key(memory.draft.kind))}
                {format!(" · {} {}", i18n.t(Key::MemoryImportance), memory.draft.importance)}
                {(!tags.is_empty()).then(|| format!(" · {tags}"))}
                {(memory.source == MemorySource::Model).then(|| view! {
                    <span class="risk skill-badge">{tr(Key::MemoryFromModel)}</span>
                })}
            </p>
            <div class="skill-card__actions">
                <button type="button" class="button button--secondary button--small" data-memory-edit=""
                    node_ref=edit_button aria-label=label(Key::ProviderEdit) on:click=edit>{tr(Key::ProviderEdit)}</button>
                <button type="button" class="button button--secondary button--small" data-memory-forget=""
                    aria-label=label(Key::MemoryForget) on:click=forget>{tr(Key::MemoryForget)}</button>
            </div>
        </li>
    }
}
