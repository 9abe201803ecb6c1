//! The editor of a knowledge file's extracted text: what the model reads from that file,
//! corrected by the user (a table the parser mangled, a scan's missing words, pages to
//! leave out). A dialog over Settings › Knowledge, opened by a ready file's Edit text:
//! the text is read from the private file system, saved through the store
//! (`Knowledge::edit_text`: a new version at the file's own content path, marked edited,
//! indexed again), and a refusal is said in the user's language. It sits outside the
//! collection card's rows, which are drawn again whenever the library changes, so an
//! edit under way survives another file's progress.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, tr, use_i18n};
use crate::knowledge::{error_text, use_knowledge};
use crate::ui::dialog::Dialog;
use crate::ui::toast::{ToastKind, use_toasts};

/// The file whose text is being edited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub collection: String,
    pub file: String,
    pub name: String,
}

/// The text being edited, as it loads and is saved.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Text {
    Reading,
    Unreadable(String),
    Editing(String),
}

/// What the dialog shows: changes when the text is read, not at every keystroke (the
/// textarea is made once per reading, so typing keeps its caret).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    Reading,
    Unreadable(String),
    Editing,
}

/// The dialog editing `edit`'s text while it is set (closing it clears it).
#[component]
pub fn KnowledgeTextEditor(edit: RwSignal<Option<TextEdit>>) -> impl IntoView {
    let i18n = use_i18n();
    let toasts = use_toasts();
    let knowledge = use_knowledge();
    let open = RwSignal::new(false);
    let text = RwSignal::new(Text::Reading);
    let error = RwSignal::new(None::<String>);
    let saving = RwSignal::new(false);
    // Signals notify at every set, so each effect sets only what is not so already (the
    // two would otherwise wake each other for ever).
    Effect::new(move |_| {
        let Some(asked) = edit.get() else {
            if open.get_untracked() {
                open.set(false);
            }
            return;
        };
        text.set(Text::Reading);
        error.set(None);
        open.set(true);
        spawn_local(async move {
            let read = knowledge.text(&asked.collection, &asked.file).await;
            if edit.get_untracked().as_ref() != Some(&asked) {
                return;
            }
            text.set(match read {
                Ok(read) => Text::Editing(read),
                Err(why) => Text::Unreadable(why.to_string()),
            });
        });
    });
    Effect::new(move |_| {
        if !open.get() && edit.with_untracked(Option::is_some) {
            edit.set(None);
        }
    });
    let save = move |_| {
        let (Some(asked), Text::Editing(edited)) = (edit.get_untracked(), text.get_untracked())
        else {
            return;
        };
        saving.set(true);
        spawn_local(async move {
            let saved = knowledge
                .edit_text(asked.collection.clone(), asked.file.clone(), edited)
                .await;
            saving.set(false);
            match saved {
                Ok(()) => {
                    toasts.show(ToastKind::Info, i18n.t(Key::KnowledgeTextSaved));
                    edit.set(None);
                }
                Err(refused) => error.set(Some(error_text(&refused, i18n))),
            }
        });
    };
    let phase = Memo::new(move |_| match &*text.read() {
        Text::Reading => Phase::Reading,
        Text::Unreadable(why) => Phase::Unreadable(why.clone()),
        Text::Editing(_) => Phase::Editing,
    });
    let title = Signal::derive(move || {
        edit.with(|e| {
            let name = e.as_ref().map(|e| e.name.clone()).unwrap_or_default();
            i18n.t_with(Key::KnowledgeEditTitle, &[("name", &name)])
        })
    });
    view! {
        <Dialog open title class="dialog--knowledge-text">
            <div class="knowledge-text" id="knowledge-text">
                <p class="field__hint" id="knowledge-text-hint">{tr(Key::KnowledgeEditHint)}</p>
                {move || match phase.get() {
                    Phase::Reading => view! {
                        <p class="field__hint" role="status">{tr(Key::KnowledgeTextReading)}</p>
                    }.into_any(),
                    Phase::Unreadable(why) => view! {
                        <p class="field__error" role="alert">
                            {i18n.t_with(Key::KnowledgeErrorStorage, &[("reason", &why)])}
                        </p>
                    }.into_any(),
                    Phase::Editing => {
                        let first = match text.get_untracked() {
                            Text::Editing(read) => read,
                            _ => String::new(),
                        };
                        // The dialog opened before the text was read: its field takes
                        // the focus once it is there.
                        request_animation_frame(|| crate::browser::focus_by_id("knowledge-text-area"));
                        view! {
                            <textarea class="input knowledge-text__area" id="knowledge-text-area"
                                aria-label=title aria-describedby="knowledge-text-hint"
                                spellcheck="false" prop:value=first
                                on:input=move |event| text.set(Text::Editing(event_target_value(&event)))
                            ></textarea>
                        }.into_any()
                    }
                }}
                {move || error.get().map(|e| view! { <p class="field__error" role="alert">{e}</p> })}
                <div class="provider-form__actions">
                    <button type="button" class="button button--secondary"
                        on:click=move |_| edit.set(None)>{tr(Key::ProviderCancel)}</button>
                    <button type="button" class="button button--primary" id="knowledge-text-save"
                        disabled=move || saving.get() || phase.get() != Phase::Editing
                        on:click=save>{tr(Key::ProviderSave)}</button>
                </div>
            </div>
        </Dialog>
    }
}
