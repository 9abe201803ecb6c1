//! Settings › Knowledge: the user's collections (`crate::knowledge`). A form makes one
//! (name, description, colour); each collection lists its files with where each is on
//! its way in (storing, extracting text, indexing: a progress bar and Cancel), what
//! failed and why (Retry when the stored files allow it), and Reparse (asking first over
//! an edited text) and Remove; Add files, Check files (reconcile), Edit (name,
//! description, colour) and Delete (asking first) act on the whole collection. Every
//! change goes through the store, which checks it in core; a refusal is said in the
//! user's language. A collection the search palette opened is scrolled to, its Edit
//! focused. A ready file's Edit text opens the editor of its extracted text
//! (`knowledge_text`). Who parses documents is chosen here too (`document_parsing`).

use hearth_core::knowledge::{
    CollectionDraft, Colour, KnowledgeFile, MAX_COLLECTIONS, Reconciled, Stage,
};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::attachments::input_files;
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::knowledge::{error_text, use_knowledge};
use crate::settings::knowledge_text::{KnowledgeTextEditor, TextEdit};
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, Toasts, use_toasts};

/// A colour's label (collections and workspaces).
pub(super) fn colour_key(colour: Colour) -> Key {
    match colour {
        Colour::Accent => Key::KnowledgeColourAccent,
        Colour::Green => Key::KnowledgeColourGreen,
        Colour::Amber => Key::KnowledgeColourAmber,
        Colour::Red => Key::KnowledgeColourRed,
        Colour::Violet => Key::KnowledgeColourViolet,
        Colour::Grey => Key::KnowledgeColourGrey,
    }
}

/// The Knowledge tab.
#[component]
pub fn KnowledgePanel() -> impl IntoView {
    let knowledge = use_knowledge();
    let i18n = use_i18n();
    let toasts = use_toasts();
    // The collections' colour dots (`sidebar.css`, linked by the sidebar's button too).
    let _ = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Sidebar);
    // Read on first open; a library that cannot be read is said, never shown as empty.
    let unreadable = RwSignal::new(None::<String>);
    spawn_local(async move {
        if let Err(error) = knowledge.load().await {
            let _ = unreadable.try_set(Some(error_text(&error, i18n)));
        }
    });
    let library: RwSignal<_> = knowledge.library().into();
    let collections = move || library.get().map(|l| l.collections).unwrap_or_default();
    let draft = RwSignal::new(CollectionDraft::default());
    let error = RwSignal::new(None::<String>);
    let saving = RwSignal::new(false);
    let text_edit = RwSignal::new(None::<TextEdit>);
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if saving.get_untracked() {
            return;
        }
        saving.set(true);
        let current = draft.get_untracked();
        spawn_local(async move {
            let made = knowledge.create(current).await;
            saving.set(false);
            match made {
                Ok(_) => {
                    draft.set(CollectionDraft::default());
                    error.set(None);
                    toasts.show(ToastKind::Info, i18n.t(Key::KnowledgeCreated));
                }
                Err(refused) => {
                    error.set(Some(error_text(&refused, i18n)));
                    crate::browser::focus_by_id("knowledge-name");
                }
            }
        });
    };
    view! {
        <div class="settings-section knowledge-panel" id="knowledge-panel">
            <p class="field__hint">{tr(Key::KnowledgeIntro)}</p>
            {move || unreadable.get().map(|text| view! { <p class="field__error" role="alert">{text}</p> })}
            <form class="data-block" id="knowledge-form" on:submit=submit novalidate>
                <h3 class="settings-subheading">{tr(Key::KnowledgeNew)}</h3>
                <DraftFields prefix="knowledge".to_string() draft error />
                <div class="provider-form__actions">
                    <button type="submit" class="button button--primary" id="knowledge-create"
                        disabled=move || saving.get()>{tr(Key::KnowledgeCreate)}</button>
                </div>
            </form>
            <super::document_parsing::DocumentParsing />
            <section class="data-block" aria-labelledby="knowledge-list-title">
                <div class="skills-head">
                    <h3 class="settings-subheading" id="knowledge-list-title">{tr(Key::KnowledgeList)}</h3>
                    <span class="field__hint">
                        {move || i18n.t_with(Key::MemoryCount, &[
                            ("count", &collections().len().to_string()),
                            ("max", &MAX_COLLECTIONS.to_string()),
                        ])}
                    </span>
                </div>
                {move || (library.with(Option::is_some) && collections().is_empty()).then(|| view! {
                    <p class="field__hint" id="knowledge-empty">{tr(Key::KnowledgeEmpty)}</p>
                })}
                <ul class="plugin-list" id="knowledge-list">
                    <For each=collections key=|c| c.id.clone() let:collection>
                        <CollectionCard id=collection.id.clone() text_edit />
                    </For>
                </ul>
            </section>
            <KnowledgeTextEditor edit=text_edit />
        </div>
    }
}

/// A collection's name, description and colour, as typed into `draft` (ids start with
/// `prefix`); `error` is said under the name.
#[component]
fn DraftFields(
    prefix: String,
    draft: RwSignal<CollectionDraft>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    view! {
        <Field
            id=format!("{prefix}-name")
            label=tr(Key::KnowledgeName)
            value=Signal::derive(move || draft.with(|d| d.name.clone()))
            on_input=move |v| draft.update(|d| d.name = v)
            error=move || error.get()
            invalid=move || error.with(Option::is_some)
        />
        <Field
            id=format!("{prefix}-description")
            label=tr(Key::KnowledgeDescription)
            control=Control::Textarea(2)
            spellcheck=true
            value=Signal::derive(move || draft.with(|d| d.description.clone()))
            on_input=move |v| draft.update(|d| d.description = v)
        />
        <Field
            id=format!("{prefix}-colour")
            label=tr(Key::KnowledgeColour)
            control=Control::Select
            value=Signal::derive(move || draft.with(|d| d.colour.as_str().to_string()))
            on_input=move |v: String| draft.update(|d| {
                d.colour = Colour::ALL.into_iter().find(|c| c.as_str() == v).unwrap_or_default();
            })
        >
            {Colour::ALL.into_iter().map(|colour| view! {
                <option value=colour.as_str()
                    selected=move || draft.with(|d| d.colour == colour)>
                    {tr(colour_key(colour))}
                </option>
            }).collect_view()}
        </Field>
    }
}

/// What the collection card is asking the user to confirm.
#[derive(Clone, Copy, PartialEq)]
enum Asking {
    Nothing,
    Delete,
    Edit,
}

/// Whether the search palette opened collection `id` (`ShellState::reveal`): then it is
/// scrolled to and its Edit focused, once.
fn reveal_when_asked(id: String) -> RwSignal<bool> {
    let shell = crate::shell::use_shell();
    let found = RwSignal::new(false);
    Effect::new(move |_| {
        if !shell.reveal.with(|r| r.as_deref() == Some(id.as_str())) {
            return;
        }
        shell.reveal.set(None);
        found.set(true);
        let selector = format!("[data-collection=\"{id}\"] [data-knowledge-edit]");
        request_animation_frame(move || {
            let button = document()
                .query_selector(&selector)
                .ok()
                .flatten()
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(button) = button {
                button.scroll_into_view_with_bool(false);
                let _ = button.focus();
            }
        });
    });
    found
}

/// One collection: its files and what can be done with them.
#[component]
fn CollectionCard(
    id: String,
    /// The panel's editor of a file's text (outside the rows, which are drawn again at
    /// every change of the library).
    text_edit: RwSignal<Option<TextEdit>>,
) -> impl IntoView {
    let knowledge = use_knowledge();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let library: RwSignal<_> = knowledge.library().into();
    let this = {
        let id = id.clone();
        move || library.with(|l| l.as_ref().and_then(|l| l.collection(&id)).cloned())
    };
    let asking = RwSignal::new(Asking::Nothing);
    // The edit form's fields live here, not in the card's view, which is drawn again at
    // every change of the library (a file's next stage).
    let editing = RwSignal::new(CollectionDraft::default());
    let edit_error = RwSignal::new(None::<String>);
    let save = {
        let id = id.clone();
        move |event: SubmitEvent| {
            event.prevent_default();
            let (id, draft) = (id.clone(), editing.get_untracked());
            spawn_local(async move {
                match knowledge.update(id, draft).await {
                    Ok(()) => {
                        edit_error.set(None);
                        asking.set(Asking::Nothing);
                    }
                    Err(error) => edit_error.set(Some(error_text(&error, i18n))),
                }
            });
        }
    };
    let add = {
        let id = id.clone();
        move |event: leptos::ev::Event| {
            let chosen = input_files(&event);
            if chosen.is_empty() {
                return;
            }
            let id = id.clone();
            spawn_local(async move {
                if let Err(error) = knowledge.add_files(id, chosen).await {
                    toasts.show(ToastKind::Error, error_text(&error, i18n));
                }
            });
        }
    };
    let check = {
        let id = id.clone();
        move |_| {
            let id = id.clone();
            spawn_local(async move {
                match knowledge.reconcile(id).await {
                    Ok(found) => toasts.show(ToastKind::Info, reconciled_text(&found, i18n)),
                    Err(error) => toasts.show(ToastKind::Error, error_text(&error, i18n)),
                }
            });
        }
    };
    let delete = {
        let id = id.clone();
        move |_| {
            let id = id.clone();
            spawn_local(async move {
                match knowledge.delete(id).await {
                    Ok(()) => toasts.show(ToastKind::Info, i18n.t(Key::KnowledgeDeleted)),
                    Err(error) => toasts.show(ToastKind::Error, error_text(&error, i18n)),
                }
            });
        }
    };
    let found = reveal_when_asked(id.clone());
    let file_input = format!("knowledge-add-{id}");
    let file_input_label = file_input.clone();
    move || {
        let collection = this()?;
        let name = collection.name.clone();
        let ready = collection.ready().count();
        let count = collection.files.len();
        let colour = format!("colour-dot colour-dot--{}", collection.colour.as_str());
        let rows = collection
            .files
            .iter()
            .map(|file| {
                file_row(&collection.id, file.clone(), (i18n, toasts), text_edit).into_any()
            })
            .collect::<Vec<_>>();
        let collection_id = collection.id.clone();
        let delete = delete.clone();
        let save = save.clone();
        let current = CollectionDraft {
            name: collection.name.clone(),
            description: collection.description.clone(),
            colour: collection.colour,
        };
        let edit_prefix = format!("knowledge-edit-{}", collection.id);
        Some(view! {
            <li class="plugin-card knowledge-card" class:plugin-card--found=move || found.get()
                data-collection=collection.id.clone()>
                <div class="knowledge-card__head">
                    <span class=colour aria-hidden="true"></span>
                    <h4 class="knowledge-card__name">{name.clone()}</h4>
                    <span class="plugin-card__meta" data-collection-count="">
                        {i18n.t_with(Key::KnowledgeFileCount, &[
                            ("count", &count.to_string()),
                            ("ready", &ready.to_string()),
                        ])}
                    </span>
                </div>
                {(!collection.description.is_empty()).then(|| view! {
                    <p class="plugin-card__meta">{collection.description.clone()}</p>
                })}
                <ul class="knowledge-files">
                    {rows}
                </ul>
                <div class="skill-card__actions">
                    <label class="button button--secondary button--small file-button">
                        <input id=file_input.clone() class="visually-hidden" type="file" multiple
                            aria-label=format!("{}: {name}", i18n.t(Key::KnowledgeAddFiles))
                            on:change=add.clone() />
                        <span aria-hidden="true" data-for=file_input_label.clone()>{tr(Key::KnowledgeAddFiles)}</span>
                    </label>
                    <button type="button" class="button button--secondary button--small" data-knowledge-check=""
                        on:click=check.clone()>{tr(Key::KnowledgeCheck)}</button>
                    <button type="button" class="button button--secondary button--small" data-knowledge-edit=""
                        on:click=move |_| {
                            editing.set(current.clone());
                            edit_error.set(None);
                            asking.set(Asking::Edit);
                        }>{tr(Key::ProviderEdit)}</button>
                    <button type="button" class="button button--secondary button--small" data-knowledge-delete=""
                        on:click=move |_| asking.set(Asking::Delete)>{tr(Key::KnowledgeDelete)}</button>
                </div>
                <Show when=move || asking.get() == Asking::Edit>
                    <form class="data-block" data-knowledge-edit-form="" on:submit=save.clone() novalidate>
                        <DraftFields prefix=edit_prefix.clone() draft=editing error=edit_error />
                        <div class="provider-form__actions">
                            <button type="button" class="button button--secondary"
                                on:click=move |_| asking.set(Asking::Nothing)>{tr(Key::ProviderCancel)}</button>
                            <button type="submit" class="button button--primary" data-knowledge-save="">
                                {tr(Key::ProviderSave)}</button>
                        </div>
                    </form>
                </Show>
                <Show when=move || asking.get() == Asking::Delete>
                    <div class="confirm-box" role="group" aria-label=tr(Key::KnowledgeDelete)>
                        <p class="confirm-box__text">{i18n.t_with(Key::KnowledgeDeleteConfirm, &[
                            ("name", &name), ("count", &count.to_string()),
                        ])}</p>
                        <div class="provider-form__actions">
                            <button type="button" class="button button--secondary"
                                on:click=move |_| asking.set(Asking::Nothing)>{tr(Key::ProviderCancel)}</button>
                            <button type="button" class="button button--danger" data-knowledge-delete-confirm=collection_id.clone()
                                on:click=delete.clone()>{tr(Key::KnowledgeDelete)}</button>
                        </div>
                    </div>
                </Show>
            </li>
        })
    }
}

/// Where a file is, in the user's language, with its progress (of 3 stages).
fn stage_text(file: &KnowledgeFile, i18n: I18n) -> (String, Option<u8>) {
    if let Some(failure) = &file.failure {
        return (
            failure_text(file, &failure.code, failure.detail.as_deref(), i18n),
            None,
        );
    }
    match file.stage {
        Stage::Upload => (i18n.t(Key::KnowledgeStageUpload), Some(0)),
        Stage::Parse => (i18n.t(Key::KnowledgeStageParse), Some(1)),
        Stage::Index => (i18n.t(Key::KnowledgeStageIndex), Some(2)),
        Stage::Ready => (
            i18n.t_with(
                Key::KnowledgeStageReady,
                &[("count", &file.passages.to_string())],
            ),
            None,
        ),
    }
}

/// Why a file failed, in the user's language.
pub fn failure_text(file: &KnowledgeFile, code: &str, detail: Option<&str>, i18n: I18n) -> String {
    let name = [("name", file.name.as_str())];
    match code {
        "knowledge_image" => i18n.t_with(Key::KnowledgeFailImage, &name),
        "knowledge_no_text" => i18n.t_with(Key::KnowledgeFailNoText, &name),
        "knowledge_interrupted" => i18n.t_with(Key::KnowledgeFailInterrupted, &name),
        "knowledge_file_missing" => i18n.t_with(Key::KnowledgeFailMissing, &name),
        other => crate::attachments::add::refusal_text(i18n, other, &file.name, detail),
    }
}

/// What a file's button does.
#[derive(Clone, Copy)]
enum FileAction {
    /// Cancel its way in, or remove it.
    Remove,
    /// Run its failed stage again.
    Retry,
    /// Extract its text again.
    Reparse,
}

/// One file: where it is, and what can be done with it (`text_edit`: the card's editor
/// of a file's text).
fn file_row(
    collection: &str,
    file: KnowledgeFile,
    (i18n, toasts): (I18n, Toasts),
    text_edit: RwSignal<Option<TextEdit>>,
) -> impl IntoView {
    let edit_this = TextEdit {
        collection: collection.to_string(),
        file: file.id.clone(),
        name: file.name.clone(),
    };
    let knowledge = use_knowledge();
    let (text, progress) = stage_text(&file, i18n);
    let failed = file.failure.is_some();
    let ids = (collection.to_string(), file.id.clone());
    let act = move |action: FileAction| {
        let (collection, file) = ids.clone();
        move |_: leptos::ev::MouseEvent| {
            let (collection, file) = (collection.clone(), file.clone());
            spawn_local(async move {
                let outcome = match action {
                    FileAction::Remove => knowledge.remove_file(collection, file).await,
                    FileAction::Retry => knowledge.retry(collection, file).await,
                    FileAction::Reparse => knowledge.reparse(collection, file).await,
                };
                if let Err(error) = outcome {
                    toasts.show(ToastKind::Error, error_text(&error, i18n));
                }
            });
        }
    };
    let confirming = RwSignal::new(false);
    let needs_confirmation = file.reparse_needs_confirmation();
    let reparse = act(FileAction::Reparse);
    let reparse_now = reparse.clone();
    let label = |key: Key| format!("{}: {}", i18n.t(key), file.name);
    view! {
        <li class="knowledge-file" data-knowledge-file=file.name.clone()
            data-stage=if failed { "failed" } else { file.stage.as_str() }>
            <div class="knowledge-file__head">
                <span class="knowledge-file__name">{file.name.clone()}</span>
                <span class="knowledge-file__size">{crate::attachments::chips::size_label(file.size)}</span>
            </div>
            <p class="knowledge-file__state" class:field__error=failed role=if failed { "alert" } else { "status" }>
                {text.clone()}
            </p>
            {file.source_missing.then(|| view! {
                <p class="field__hint">{tr(Key::KnowledgeSourceMissing)}</p>
            })}
            {file.edited.then(|| view! {
                <p class="field__hint" data-knowledge-edited="">{tr(Key::KnowledgeEdited)}</p>
            })}
            {progress.map(|done| view! {
                <progress class="data-progress__bar" max="3" value=done.to_string() aria-label=text.clone()></progress>
            })}
            <div class="skill-card__actions">
                {file.in_flight().then(|| view! {
                    <button type="button" class="button button--secondary button--small" data-knowledge-cancel=""
                        aria-label=label(Key::KnowledgeCancel)
                        on:click=act(FileAction::Remove)>
                        {tr(Key::KnowledgeCancel)}
                    </button>
                })}
                {file.retry_stage().is_some().then(|| view! {
                    <button type="button" class="button button--secondary button--small" data-knowledge-retry=""
                        aria-label=label(Key::KnowledgeRetry)
                        on:click=act(FileAction::Retry)>
                        {tr(Key::KnowledgeRetry)}
                    </button>
                })}
                {file.is_ready().then(|| view! {
                    <button type="button" class="button button--secondary button--small" data-knowledge-edit-text=""
                        aria-label=label(Key::KnowledgeEditText) aria-haspopup="dialog"
                        on:click=move |_| text_edit.set(Some(edit_this.clone()))>
                        {tr(Key::KnowledgeEditText)}
                    </button>
                })}
                {(file.is_ready() && !file.source_missing).then(|| view! {
                    <button type="button" class="button button--secondary button--small" data-knowledge-reparse=""
                        aria-label=label(Key::KnowledgeReparse)
                        on:click=move |event| if needs_confirmation { confirming.set(true) } else { reparse(event) }>
                        {tr(Key::KnowledgeReparse)}
                    </button>
                })}
                {(!file.in_flight()).then(|| view! {
                    <button type="button" class="button button--secondary button--small" data-knowledge-remove=""
                        aria-label=label(Key::KnowledgeRemove)
                        on:click=act(FileAction::Remove)>
                        {tr(Key::KnowledgeRemove)}
                    </button>
                })}
            </div>
            <Show when=move || confirming.get()>
                <div class="confirm-box" role="group">
                    <p class="confirm-box__text">{tr(Key::KnowledgeReparseConfirm)}</p>
                    <div class="provider-form__actions">
                        <button type="button" class="button button--secondary"
                            on:click=move |_| confirming.set(false)>{tr(Key::ProviderCancel)}</button>
                        <button type="button" class="button button--danger" data-knowledge-reparse-confirm=""
                            on:click={
                                let reparse_now = reparse_now.clone();
                                move |event| { confirming.set(false); reparse_now(event) }
                            }>{tr(Key::KnowledgeReparse)}</button>
                    </div>
                </div>
            </Show>
        </li>
    }
}

/// What a check of a collection found, in the user's language.
fn reconciled_text(found: &Reconciled, i18n: I18n) -> String {
    if found.is_clean() {
        return i18n.t(Key::KnowledgeCheckClean);
    }
    i18n.t_with(
        Key::KnowledgeCheckFound,
        &[
            ("orphans", &found.orphans.len().to_string()),
            ("kept", &found.sources_missing.len().to_string()),
            ("reparsed", &found.to_reparse.len().to_string()),
            ("lost", &found.lost.len().to_string()),
        ],
    )
}
