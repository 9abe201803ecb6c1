//! Settings › Workspaces: the user's workspaces (`crate::workspaces`). New workspace,
//! and per workspace Edit and Delete with Undo (its conversations stay, in no
//! workspace). The editor holds the name, colour and icon, the instructions, the model a
//! new chat there starts with, and what its conversations use: the user's tool switches
//! or only the tools chosen here, the user's active skills or only those chosen here,
//! the knowledge collections every conversation there is answered from, and its files
//! (`super::workspace_files`).

use std::collections::BTreeSet;

use hearth_core::knowledge::{Colour, MAX_ATTACHED};
use hearth_core::preferences::{MAX_SYSTEM_PROMPT_CHARS, ModelRef};
use hearth_core::skill::library::MAX_ACTIVE;
use hearth_core::workspace::{
    MAX_NAME_CHARS, MAX_NAMED, MAX_WORKSPACES, Workspace, WorkspaceDraft, WorkspaceIcon,
};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::knowledge::colour_key;
use super::workspace_files::{Files, WorkspaceFiles};
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::field::{Control, Field};
use crate::ui::model_picker::{ModelPicker, offered_groups};
use crate::ui::toast::{ToastAction, ToastKind, use_toasts};
use crate::workspaces::use_workspaces;
use crate::workspaces::words::error_text;

/// What the editor is open for: a new workspace, or the one with this id.
type Editing = Option<Option<String>>;

/// The Workspaces tab.
#[component]
pub fn WorkspacesPanel() -> impl IntoView {
    let workspaces = use_workspaces();
    let i18n = use_i18n();
    // The workspace dots (the sidebar's button has usually linked it already).
    let _ = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Sidebar);
    let failed = RwSignal::new(None::<String>);
    spawn_local(async move {
        if let Err(error) = workspaces.ensure_loaded().await {
            failed.set(Some(error_text(&error, i18n)));
        }
    });
    let editing = RwSignal::new(None::<Option<String>>);
    // "New workspace" in the sidebar's menu opens the editor at once.
    if crate::workspaces::take_new_request() {
        editing.set(Some(None));
    }
    let list = move || {
        workspaces
            .library()
            .with(|l| l.as_ref().map(|l| l.workspaces.clone()).unwrap_or_default())
    };
    view! {
        <div class="settings-section workspaces-panel">
            <p class="settings-section__text">{tr(Key::WorkspacesIntro)}</p>
            <p class="field__error" role="alert" id="workspaces-unreadable">{move || failed.get()}</p>
            <div class="skills-actions">
                <button type="button" class="button button--secondary button--small" id="workspaces-new"
                    disabled=move || failed.with(Option::is_some)
                    on:click=move |_| editing.set(Some(None))>
                    {tr(Key::WorkspacesNew)}
                </button>
                <span class="field__hint">
                    {move || i18n.t_with(Key::WorkspacesCount, &[
                        ("count", &list().len().to_string()),
                        ("max", &MAX_WORKSPACES.to_string()),
                    ])}
                </span>
            </div>
            {move || editing.get().map(|open| view! { <WorkspaceEditor open editing /> })}
            {move || (list().is_empty() && failed.with(Option::is_none)).then(|| view! {
                <p class="field__hint" id="workspaces-empty">{tr(Key::WorkspacesEmpty)}</p>
            })}
            <ul class="plugin-list" id="workspaces-list">
                <For each=list key=|w| (w.id.clone(), w.updated_at.to_bits()) let:workspace>
                    <WorkspaceCard workspace editing />
                </For>
            </ul>
        </div>
    }
}

/// One workspace: its dot, icon and name, what it sets, Edit and Delete.
#[component]
fn WorkspaceCard(workspace: Workspace, editing: RwSignal<Editing>) -> impl IntoView {
    let workspaces = use_workspaces();
    let current = crate::chat::use_chat().workspace;
    let i18n = use_i18n();
    let toasts = use_toasts();
    let id = workspace.id.clone();
    let name = workspace.name.clone();
    let label = {
        let name = name.clone();
        move |key: Key| format!("{}: {}", i18n.t(key), name)
    };
    let remove = {
        let id = id.clone();
        move |_| {
            let id = id.clone();
            spawn_local(async move {
                match workspaces.remove(current, id).await {
                    Ok(removed) => {
                        let name = removed.name.clone();
                        let undo = Callback::new(move |()| {
                            let removed = removed.clone();
                            spawn_local(async move {
                                let back = workspaces.change(current, move |l| l.put_back(removed));
                                if let Err(error) = back.await {
                                    toasts.show(ToastKind::Error, error_text(&error, i18n));
                                }
                            });
                        });
                        toasts.show_with_action(
                            i18n.t_with(Key::WorkspacesDeleted, &[("name", &name)]),
                            ToastAction {
                                label: i18n.t(Key::ChatUndo),
                                run: undo,
                            },
                        );
                        crate::browser::focus_by_id("workspaces-new");
                    }
                    Err(error) => toasts.show(ToastKind::Error, error_text(&error, i18n)),
                }
            });
        }
    };
    let mut sets = Vec::new();
    if workspace.instructions().is_some() {
        sets.push(i18n.t(Key::WorkspacesHasInstructions));
    }
    if let Some(model) = &workspace.model {
        sets.push(model.model.clone());
    }
    if let Some(plugins) = &workspace.plugins {
        sets.push(i18n.t_with(
            Key::WorkspacesToolCount,
            &[("count", &plugins.len().to_string())],
        ));
    }
    if let Some(skills) = &workspace.skills {
        sets.push(i18n.t_with(
            Key::WorkspacesSkillCount,
            &[("count", &skills.len().to_string())],
        ));
    }
    if !workspace.knowledge.is_empty() {
        let count = workspace.knowledge.len().to_string();
        sets.push(i18n.t_with(Key::WorkspacesCollectionCount, &[("count", &count)]));
    }
    if !workspace.files.is_empty() {
        let count = workspace.files.len().to_string();
        sets.push(i18n.t_with(Key::WorkspacesFileCount, &[("count", &count)]));
    }
    let edit_id = id.clone();
    view! {
        <li class="plugin-card workspace-card" data-workspace=id.clone()>
            <div class="plugin-card__head">
                <span class=format!("colour-dot colour-dot--{}", workspace.colour.as_str()) aria-hidden="true"></span>
                {crate::ui::icon::icon(crate::workspaces::words::icon_of(workspace.icon))}
                <div class="plugin-card__main">
                    <span class="plugin-card__title">{name.clone()}</span>
                    <span class="plugin-card__meta">{sets.join(" · ")}</span>
                </div>
            </div>
            <div class="skill-card__actions">
                <button type="button" class="button button--secondary button--small" data-workspace-edit=""
                    aria-label=label(Key::ProviderEdit)
                    on:click=move |_| editing.set(Some(Some(edit_id.clone())))>{tr(Key::ProviderEdit)}</button>
                <button type="button" class="button button--secondary button--small" data-workspace-delete=""
                    aria-label=label(Key::WorkspacesDelete) on:click=remove>{tr(Key::WorkspacesDelete)}</button>
            </div>
        </li>
    }
}

/// The editor of one workspace.
#[component]
fn WorkspaceEditor(open: Option<String>, editing: RwSignal<Editing>) -> impl IntoView {
    let workspaces = use_workspaces();
    let chat = crate::chat::use_chat();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let existing = open.as_ref().and_then(|id| {
        workspaces
            .library()
            .with_untracked(|l| l.as_ref().and_then(|l| l.get(id).cloned()))
    });
    let start = existing.as_ref().map(Workspace::draft).unwrap_or_default();
    let name = RwSignal::new(start.name.clone());
    let colour = RwSignal::new(start.colour);
    let icon = RwSignal::new(start.icon);
    let prompt = RwSignal::new(start.system_prompt.clone());
    let model = RwSignal::new(start.model.clone());
    let plugins = RwSignal::new(start.plugins.clone());
    let skills = RwSignal::new(start.skills.clone());
    let knowledge = RwSignal::new(start.knowledge.clone());
    let files = Files::new(start.files.clone());
    on_cleanup(move || files.close());
    let error = RwSignal::new(None::<String>);
    let saving = RwSignal::new(false);
    request_animation_frame(|| crate::browser::focus_by_id("workspace-editor-name"));
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        if files.busy() {
            error.set(Some(i18n.t(Key::AttachBusy)));
            crate::browser::focus_by_id("workspace-editor-error");
            return;
        }
        let draft = WorkspaceDraft {
            name: name.get_untracked(),
            colour: colour.get_untracked(),
            icon: icon.get_untracked(),
            system_prompt: prompt.get_untracked(),
            model: model.get_untracked(),
            plugins: plugins.get_untracked(),
            skills: skills.get_untracked(),
            knowledge: knowledge.get_untracked(),
            files: files.chosen(),
        };
        let id = open.clone();
        saving.set(true);
        spawn_local(async move {
            let outcome = workspaces.save(chat.workspace, id, draft).await;
            saving.set(false);
            match outcome {
                Ok(_) => {
                    files.stored();
                    error.set(None);
                    editing.set(None);
                    toasts.show(ToastKind::Info, i18n.t(Key::WorkspacesSaved));
                    crate::browser::focus_by_id("workspaces-new");
                }
                Err(reason) => {
                    error.set(Some(error_text(&reason, i18n)));
                    crate::browser::focus_by_id("workspace-editor-error");
                }
            }
        });
    };
    let heading = if existing.is_some() {
        Key::WorkspacesEdit
    } else {
        Key::WorkspacesNew
    };
    let groups = offered_groups(chat);
    let count = move || prompt.with(|p| p.chars().count());
    view! {
        <form class="data-block skill-editor" id="workspace-editor" on:submit=submit novalidate
            aria-labelledby="workspace-editor-heading">
            <h3 class="settings-subheading" id="workspace-editor-heading">{tr(heading)}</h3>
            <Field id="workspace-editor-name" label=tr(Key::WorkspacesFieldName) value=name
                on_input=move |v| name.set(v) spellcheck=true
                hint=Signal::derive(move || i18n.t_with(Key::WorkspacesFieldNameHint, &[
                    ("max", &MAX_NAME_CHARS.to_string()),
                ])) />
            <Swatches colour icon />
            <Field id="workspace-editor-prompt" label=tr(Key::WorkspacesFieldPrompt)
                control=Control::Textarea(6) value=prompt on_input=move |v| prompt.set(v) spellcheck=true
                hint=tr(Key::WorkspacesFieldPromptHint)
                invalid=Signal::derive(move || count() > MAX_SYSTEM_PROMPT_CHARS)
                described_by_extra="workspace-editor-prompt-count"
                aside=move || view! {
                    <p class="field__hint field__count" id="workspace-editor-prompt-count">
                        {move || i18n.t_with(Key::SystemPromptCount, &[
                            ("count", &count().to_string()),
                            ("max", &MAX_SYSTEM_PROMPT_CHARS.to_string()),
                        ])}
                    </p>
                } />
            <ModelPicker id="workspace-editor-model" label=tr(Key::WorkspacesFieldModel)
                groups=groups selected=model
                on_change=Callback::new(move |m: Option<ModelRef>| model.set(m))
                none=tr(Key::WorkspacesModelNone) hint=tr(Key::WorkspacesFieldModelHint) />
            <Choices which=Which::Tools chosen=plugins prefix="workspace" />
            <Choices which=Which::Skills chosen=skills prefix="workspace" />
            <Collections chosen=knowledge />
            <WorkspaceFiles files />
            <p class="field__error" role="alert" id="workspace-editor-error" tabindex="-1">{move || error.get()}</p>
            <div class="provider-form__actions">
                <button type="button" class="button button--secondary" id="workspace-editor-cancel"
                    on:click=move |_| editing.set(None)>{tr(Key::ProviderCancel)}</button>
                <button type="submit" class="button button--primary" id="workspace-editor-save"
                    aria-busy=move || saving.get().to_string() disabled=move || saving.get()>
                    {tr(Key::ProviderSave)}
                </button>
            </div>
        </form>
    }
}

/// The colour and icon, each a radio group.
#[component]
fn Swatches(colour: RwSignal<Colour>, icon: RwSignal<WorkspaceIcon>) -> impl IntoView {
    let colours = Colour::ALL.map(|c| {
        let dot = view! { <span class=format!("colour-dot colour-dot--{}", c.as_str()) aria-hidden="true"></span> };
        (c, c.as_str(), colour_key(c), dot.into_any())
    });
    let icons = WorkspaceIcon::ALL.map(|i| {
        let drawn = crate::ui::icon::icon(crate::workspaces::words::icon_of(i));
        (i, i.as_str(), icon_key(i), drawn.into_any())
    });
    view! {
        {swatch_group("colour", Key::WorkspacesFieldColour, colours, colour)}
        {swatch_group("icon", Key::WorkspacesFieldIcon, icons, icon)}
    }
}

/// A radio group of swatches (`workspace-editor-<slug>`): each option's value, name and
/// what it shows.
fn swatch_group<T: Copy + PartialEq + Send + Sync + 'static, const N: usize>(
    slug: &'static str,
    legend: Key,
    options: [(T, &'static str, Key, AnyView); N],
    chosen: RwSignal<T>,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <fieldset class="field workspace-swatches" id=format!("workspace-editor-{slug}")>
            <legend class="field__label">{tr(legend)}</legend>
            <div class="workspace-swatches__row">
                {options.into_iter().map(|(value, name, key, shown)| view! {
                    <label class="workspace-swatch" title=move || i18n.t(key)>
                        <input type="radio" name=format!("workspace-{slug}") value=name
                            prop:checked=move || chosen.get() == value
                            on:change=move |_| chosen.set(value) />
                        {shown}
                        <span class="visually-hidden">{move || i18n.t(key)}</span>
                    </label>
                }).collect_view()}
            </div>
        </fieldset>
    }
}

/// Which list a [`Choices`] offers.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Which {
    Tools,
    Skills,
}

/// "Use my switches" or "only these", with a box per tool or skill (a workspace's or an
/// assistant's: `prefix` names its editor, `<prefix>-editor-tools`).
#[component]
pub(super) fn Choices(
    which: Which,
    chosen: RwSignal<Option<BTreeSet<String>>>,
    prefix: &'static str,
) -> impl IntoView {
    let i18n = use_i18n();
    let plugins = crate::plugins::use_plugins();
    let skills = crate::skills::use_skills();
    let skills_failed = RwSignal::new(false);
    match which {
        Which::Tools => spawn_local(async move { plugins.ensure_listed().await }),
        Which::Skills => spawn_local(async move {
            if skills.ensure_loaded().await.is_err() {
                skills_failed.set(true);
            }
        }),
    }
    // (id, name) of everything there is to choose.
    let options = move || -> Vec<(String, String)> {
        match which {
            Which::Tools => plugins
                .builtins
                .get()
                .into_iter()
                .chain(plugins.installed.get())
                .map(|r| (r.plugin.id.clone(), r.plugin.title.clone()))
                .collect(),
            Which::Skills => skills.library().with(|l| {
                l.as_ref()
                    .map(|l| {
                        l.installed
                            .iter()
                            .map(|s| (s.id().to_string(), s.skill.meta.title.clone()))
                            .collect()
                    })
                    .unwrap_or_default()
            }),
        }
    };
    let (slug, legend, mine, only, max) = match which {
        Which::Tools => (
            "tools",
            Key::WorkspacesFieldTools,
            Key::WorkspacesToolsMine,
            Key::WorkspacesToolsOnly,
            MAX_NAMED,
        ),
        Which::Skills => (
            "skills",
            Key::WorkspacesFieldSkills,
            Key::WorkspacesSkillsMine,
            Key::WorkspacesSkillsOnly,
            MAX_ACTIVE,
        ),
    };
    let limited = move || chosen.with(|c| c.as_ref().is_some_and(|c| c.len() >= max));
    view! {
        <fieldset class="field workspace-choices" id=format!("{prefix}-editor-{slug}")>
            <legend class="field__label">{tr(legend)}</legend>
            <label class="choice">
                <input type="radio" name=format!("{prefix}-{slug}-mode") value="mine"
                    prop:checked=move || chosen.with(Option::is_none)
                    on:change=move |_| chosen.set(None) />
                <span>{tr(mine)}</span>
            </label>
            <label class="choice">
                <input type="radio" name=format!("{prefix}-{slug}-mode") value="only"
                    prop:checked=move || chosen.with(Option::is_some)
                    on:change=move |_| chosen.set(Some(BTreeSet::new())) />
                <span>{tr(only)}</span>
            </label>
            <Show when=move || chosen.with(Option::is_some)>
                <ul class="workspace-choices__list">
                    {move || {
                        // A list that could not be read is said, never shown as "none".
                        let empty = match (which, skills_failed.get(), plugins.state.get()) {
                            (Which::Skills, true, _) => i18n.t(Key::WorkspacesSkillsUnreadable),
                            (Which::Skills, false, _) => i18n.t(Key::WorkspacesNoSkills),
                            (Which::Tools, _, crate::plugins::ListState::Failed(error)) => i18n.t_with(
                                Key::PluginsListFailed,
                                &[("reason", &crate::i18n::edge_errors::describe(&i18n, &error))],
                            ),
                            (Which::Tools, _, _) => i18n.t(Key::WorkspacesNoTools),
                        };
                        check_boxes(
                            options(),
                            empty,
                            move |id| chosen.with(|c| c.as_ref().is_some_and(|c| c.contains(id))),
                            limited,
                            move |id, on| chosen.update(|c| {
                                let set = c.get_or_insert_with(BTreeSet::new);
                                if on { set.insert(id.to_string()); } else { set.remove(id); }
                            }),
                        )
                    }}
                </ul>
                <p class="field__hint">{move || i18n.t_with(Key::WorkspacesChosenMax, &[("max", &max.to_string())])}</p>
            </Show>
        </fieldset>
    }
}

/// A box per knowledge collection.
#[component]
fn Collections(chosen: RwSignal<Vec<String>>) -> impl IntoView {
    let i18n = use_i18n();
    let knowledge = crate::knowledge::use_knowledge();
    let failed = RwSignal::new(false);
    spawn_local(async move {
        if knowledge.load().await.is_err() {
            failed.set(true);
        }
    });
    let library = knowledge.library();
    let options = move || {
        library.with(|l| {
            l.as_ref()
                .map(|l| {
                    l.collections
                        .iter()
                        .map(|c| (c.id.clone(), c.name.clone()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    view! {
        <fieldset class="field workspace-choices" id="workspace-editor-knowledge">
            <legend class="field__label">{tr(Key::WorkspacesFieldKnowledge)}</legend>
            <p class="field__hint">{move || i18n.t_with(Key::WorkspacesFieldKnowledgeHint, &[("max", &MAX_ATTACHED.to_string())])}</p>
            <ul class="workspace-choices__list">
                {move || check_boxes(
                    options(),
                    i18n.t(if failed.get() { Key::KnowledgeChipUnreadable } else { Key::WorkspacesNoCollections }),
                    move |id| chosen.with(|c| c.iter().any(|x| x == id)),
                    move || chosen.with(|c| c.len() >= MAX_ATTACHED),
                    move |id, on| chosen.update(|c| {
                        c.retain(|x| x != id);
                        if on { c.push(id.to_string()); }
                    }),
                )}
            </ul>
        </fieldset>
    }
}

/// A box per option (id, name): checked when `is_on`, disabled while `full` unless
/// checked, `toggle` on a change; `empty` said when there is nothing to choose (or the
/// list could not be read).
fn check_boxes(
    options: Vec<(String, String)>,
    empty: String,
    is_on: impl Fn(&str) -> bool + Copy + Send + Sync + 'static,
    full: impl Fn() -> bool + Copy + Send + Sync + 'static,
    toggle: impl Fn(&str, bool) + Copy + Send + Sync + 'static,
) -> AnyView {
    if options.is_empty() {
        return view! { <li class="field__hint">{empty}</li> }.into_any();
    }
    options
        .into_iter()
        .map(|(id, name)| {
            let (checked_id, disabled_id, toggle_id) = (id.clone(), id.clone(), id.clone());
            view! {
                <li>
                    <label class="choice">
                        <input type="checkbox" data-choice=id
                            prop:checked=move || is_on(&checked_id)
                            disabled=move || !is_on(&disabled_id) && full()
                            on:change=move |event| toggle(&toggle_id, event_target_checked(&event)) />
                        <span>{name}</span>
                    </label>
                </li>
            }
        })
        .collect_view()
        .into_any()
}

/// An icon's name.
fn icon_key(icon: WorkspaceIcon) -> Key {
    match icon {
        WorkspaceIcon::Folder => Key::WorkspacesIconFolder,
        WorkspaceIcon::Briefcase => Key::WorkspacesIconBriefcase,
        WorkspaceIcon::Code => Key::WorkspacesIconCode,
        WorkspaceIcon::Book => Key::WorkspacesIconBook,
        WorkspaceIcon::Pen => Key::WorkspacesIconPen,
        WorkspaceIcon::Chat => Key::WorkspacesIconChat,
    }
}
