//! A knowledge passage a reply cites, opened from its source (or its `[n]` in the text):
//! the collection, the file and its page, and the passage itself, read again from the
//! file's stored text. A file changed since the reply (a new version: a reparse or an
//! edit) or removed is said, never shown with another text in the passage's place.

use hearth_core::chat::source::{Source, SourcePassage};
use hearth_core::knowledge::retrieve::passage_text;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, tr, use_i18n};
use crate::knowledge::use_knowledge;
use crate::ui::dialog::Dialog;

/// What reading the passage found.
#[derive(Clone, PartialEq)]
enum Found {
    Reading,
    Text(String),
    Changed,
    Gone,
}

/// The dialog of the passage `shown`; closing it clears `shown`.
#[component]
pub fn PassageDialog(shown: RwSignal<Option<Source>>) -> impl IntoView {
    let open = RwSignal::new(true);
    Effect::new(move |_| {
        if !open.get() {
            shown.set(None);
        }
    });
    let i18n = use_i18n();
    let source = shown.get_untracked().unwrap_or_default();
    let place = source.passage.clone().unwrap_or_default();
    let found = RwSignal::new(Found::Reading);
    let knowledge = use_knowledge();
    {
        let place = place.clone();
        spawn_local(async move {
            let _ = found.try_set(read(knowledge, &place).await);
        });
    }
    let title = source.title.clone();
    // Its English sentences come with the catalogue (`crate::i18n::load_later_english`).
    let worded = crate::i18n::later_english_ready();
    move || {
        worded.get().then(|| {
            let (title, place) = (title.clone(), place.clone());
            view! {
                <Dialog open=open title=Signal::derive(move || i18n.t(Key::KnowledgePassageTitle)) class="dialog--passage">
                    {body(title.clone(), place.clone(), found)}
                </Dialog>
            }
        })
    }
}

/// Where the passage is, and what reading it found.
fn body(title: String, place: SourcePassage, found: RwSignal<Found>) -> impl IntoView {
    let i18n = use_i18n();
    let page = place
        .page
        .map(|page| i18n.t_with(Key::KnowledgePage, &[("page", &page.to_string())]));
    view! {
        <div class="passage" id="passage-view">
            <p class="passage__where">
                <span class="passage__collection">{place.collection_name}</span>
                " › "
                <span class="passage__file">{title}</span>
                {page.map(|page| view! { <span class="passage__page">{format!(" · {page}")}</span> })}
            </p>
            {move || match found.get() {
                Found::Reading => view! { <p class="field__hint" role="status">{tr(Key::KnowledgePassageReading)}</p> }.into_any(),
                Found::Text(text) => view! { <blockquote class="passage__text">{text}</blockquote> }.into_any(),
                Found::Changed => view! { <p class="field__hint" role="status">{tr(Key::KnowledgePassageChanged)}</p> }.into_any(),
                Found::Gone => view! { <p class="field__hint" role="status">{tr(Key::KnowledgePassageGone)}</p> }.into_any(),
            }}
        </div>
    }
}

/// The passage at `place`, if its file still holds the version it was found in.
async fn read(knowledge: crate::knowledge::Knowledge, place: &SourcePassage) -> Found {
    let Ok(library) = knowledge.load().await else {
        return Found::Gone;
    };
    let Some(file) = library
        .collection(&place.collection)
        .and_then(|c| c.file(&place.file))
    else {
        return Found::Gone;
    };
    if file.version != place.version {
        return Found::Changed;
    }
    match knowledge.text(&place.collection, &place.file).await {
        Ok(text) => passage_text(&text, place)
            .map(|t| Found::Text(t.trim().to_string()))
            .unwrap_or(Found::Changed),
        Err(_) => Found::Gone,
    }
}
