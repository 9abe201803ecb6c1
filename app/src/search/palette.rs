//! The search palette: a modal dialog with a combobox (the query) and a listbox of
//! conversations (title, date, the matching passage highlighted), then of memories,
//! workspaces and collections, then of passages of the collections' files
//! (`super::others`). Arrow keys move through the results, Enter or a click
//! opens one (a conversation at its message). The empty, preparing,
//! indexing, no-results and error states each say what they are. All of it is in a lazily
//! loaded chunk, mounted the first time the palette opens (`search::palette`).

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use super::found::{self, FindError, Found, FoundConversation, Passage};
use super::others::{self, Other};
use super::{Phase, Status, use_search};
use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::dialog::Dialog;

/// How many conversations the palette lists.
pub const RESULTS: usize = 30;
/// The listbox's id.
const LISTBOX_ID: &str = "search-results";
/// How long the query must rest before the collections' files are searched, in ms.
const FILES_PAUSE_MS: i32 = 120;

/// The search palette (its body is mounted only while it is open).
#[component]
pub fn SearchPalette() -> impl IntoView {
    let search = use_search();
    let i18n = use_i18n();
    view! {
        <Dialog
            open=search.palette_open
            title=Signal::derive(move || i18n.t(Key::SearchTitle))
            class="dialog--search"
        >
            <PaletteBody />
        </Dialog>
    }
}

fn option_id(index: usize) -> String {
    format!("search-option-{index}")
}

#[component]
fn PaletteBody() -> impl IntoView {
    let search = use_search();
    let i18n = use_i18n();
    let query = RwSignal::new(String::new());
    // The last answer, with the query it answers.
    let answer = RwSignal::new(None::<(String, Result<Found, FindError>)>);
    let active = RwSignal::new(0_usize);
    // Answers to older queries are dropped.
    let asked = StoredValue::new(0_u64);
    // The memories and workspaces, read as the palette opens; what could not be.
    let unreadable = RwSignal::new(Vec::<String>::new());
    leptos::task::spawn_local_scoped(async move {
        let said = others::load(i18n).await;
        let _ = unreadable.try_set(said);
    });
    let found_here = Memo::new(move |_| others::find(&query.get()));
    // The collections' files, asked of the worker once the query has rested for
    // `FILES_PAUSE_MS` (each request carries the library's file list, so typing does
    // not send one per keystroke); what failed.
    let found_in_files = RwSignal::new(Vec::<Other>::new());
    let files_failed = RwSignal::new(None::<String>);
    let files_asked = StoredValue::new(0_u64);
    Effect::new(move |_| {
        let text = query.get();
        files_asked.update_value(|n| *n += 1);
        let mine = files_asked.get_value();
        if text.trim().is_empty() {
            found_in_files.set(Vec::new());
            files_failed.set(None);
            return;
        }
        leptos::task::spawn_local_scoped(async move {
            crate::browser::sleep_ms(FILES_PAUSE_MS).await;
            if files_asked.try_get_value() != Some(mine) {
                return;
            }
            let found = others::find_in_files(&text, i18n).await;
            if files_asked.try_get_value() == Some(mine) {
                let (found, failed) = match found {
                    Ok(found) => (found, None),
                    Err(said) => (Vec::new(), Some(said)),
                };
                found_in_files.set(found);
                files_failed.set(failed);
            }
        });
    });
    let found_others = Memo::new(move |_| {
        let mut all = found_here.get();
        all.extend(found_in_files.get());
        all
    });

    // Asks again when the query changes, when the index becomes ready, and when it
    // changes (a message written here or in another tab).
    Effect::new(move |_| {
        let text = query.get();
        let phase = search.phase();
        search.version();
        asked.update_value(|n| *n += 1);
        let mine = asked.get_value();
        if text.trim().is_empty() {
            answer.set(None);
            return;
        }
        if phase == Phase::Waiting {
            return;
        }
        leptos::task::spawn_local_scoped(async move {
            let found = search.find(text.clone(), false, RESULTS).await;
            if asked.try_get_value() == Some(mine) {
                // A refresh of the same query keeps the user's place in the list.
                let same = answer.with_untracked(|a| a.as_ref().is_some_and(|a| a.0 == text));
                let shown = found.as_ref().map_or(0, |f| f.results.len());
                if !same || active.get_untracked() >= shown {
                    active.set(0);
                }
                answer.set(Some((text, found)));
            }
        });
    });

    let results = move || match answer.get() {
        Some((text, Ok(found))) => found
            .results
            .into_iter()
            .enumerate()
            .map(|(index, result)| (index, result, text.clone()))
            .collect(),
        _ => Vec::new(),
    };
    let conversations = move || {
        answer.with(|a| match a {
            Some((_, Ok(found))) => found.results.len(),
            _ => 0,
        })
    };
    let count = move || conversations() + found_others.with(Vec::len);
    let open_at = move |index: usize| {
        let chosen = answer.with_untracked(|a| match a {
            Some((_, Ok(found))) => found.results.get(index).cloned(),
            _ => None,
        });
        if let Some(result) = chosen {
            search.palette_open.set(false);
            search.open_result(result.id, result.message);
            return;
        }
        let other = index
            .checked_sub(conversations())
            .and_then(|n| found_others.with_untracked(|o| o.get(n).cloned()));
        if let Some(other) = other {
            search.palette_open.set(false);
            others::open(&other);
        }
    };
    let on_keydown = move |event: KeyboardEvent| {
        let n = count();
        match event.key().as_str() {
            "ArrowDown" if n > 0 => {
                event.prevent_default();
                active.update(|i| *i = (*i + 1) % n);
            }
            "ArrowUp" if n > 0 => {
                event.prevent_default();
                active.update(|i| *i = (*i + n - 1) % n);
            }
            "Home" if n > 0 && event.ctrl_key() => {
                event.prevent_default();
                active.set(0);
            }
            "End" if n > 0 && event.ctrl_key() => {
                event.prevent_default();
                active.set(n - 1);
            }
            "Enter" if n > 0 => {
                event.prevent_default();
                open_at(active.get_untracked());
            }
            _ => {}
        }
    };
    // The active option stays in view.
    Effect::new(move |_| {
        let id = option_id(active.get());
        if let Some(element) = document().get_element_by_id(&id) {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            element.scroll_into_view_with_scroll_into_view_options(&options);
        }
    });

    let status_line = move || {
        let status = search.status();
        match (answer.get().map(|(_, found)| found), status) {
            (_, Status::Unavailable) => i18n.t(Key::SearchUnavailable),
            (_, Status::Indexing { done, total }) => i18n.t_with(
                Key::SearchIndexing,
                &[("done", &done.to_string()), ("total", &total.to_string())],
            ),
            (_, Status::Opening | Status::Idle) if !query.with(|q| q.trim().is_empty()) => {
                i18n.t(Key::SearchPreparing)
            }
            (None, _) => i18n.t(Key::SearchHint),
            (Some(Err(FindError::TooLong)), _) => i18n.t(Key::SearchTooLong),
            (Some(Err(FindError::TooManyParts)), _) => i18n.t(Key::SearchTooManyParts),
            (Some(Err(FindError::Empty)), _) => i18n.t(Key::SearchNoWords),
            (Some(Err(FindError::Unavailable | FindError::Lost)), _) => {
                i18n.t(Key::SearchUnavailable)
            }
            (Some(Ok(found)), _)
                if found.results.is_empty() && found_others.with(Vec::is_empty) =>
            {
                i18n.t_with(
                    Key::SearchNoResults,
                    &[(
                        "query",
                        &answer.with_untracked(|a| {
                            a.as_ref().map(|a| a.0.clone()).unwrap_or_default()
                        }),
                    )],
                )
            }
            (Some(Ok(found)), _) if found_others.with(Vec::is_empty) => i18n.t_with(
                Key::SearchResultCount,
                &[("count", &found.conversations.to_string())],
            ),
            (Some(Ok(found)), _) => i18n.t_with(
                Key::SearchOthersCount,
                &[
                    ("count", &found.conversations.to_string()),
                    ("others", &found_others.with(Vec::len).to_string()),
                ],
            ),
        }
    };
    let has_results = move || count() > 0;

    view! {
        <div class="search-palette">
            <input
                type="search"
                class="input search-palette__input"
                role="combobox"
                aria-autocomplete="list"
                aria-controls=LISTBOX_ID
                aria-expanded=move || if has_results() { "true" } else { "false" }
                aria-activedescendant=move || has_results().then(|| option_id(active.get()))
                aria-label=tr(Key::SearchPlaceholder)
                placeholder=tr(Key::SearchPlaceholder)
                autocomplete="off"
                spellcheck="false"
                maxlength="256"
                data-autofocus
                prop:value=move || query.get()
                on:input=move |event| query.set(event_target_value(&event))
                on:keydown=on_keydown
            />
            <p class="search-palette__status" role="status" aria-live="polite">{status_line}</p>
            <ul
                id=LISTBOX_ID
                class="search-palette__results"
                role="listbox"
                aria-label=tr(Key::SearchResults)
                hidden=move || !has_results()
            >
                <For
                    each=results
                    key=|(index, result, text)| {
                        (*index, result.id.clone(), result.message.clone(), text.clone())
                    }
                    let:((index, result, text))
                >
                    <ResultOption
                        index=index
                        result=result
                        query=text
                        active=active
                        on_open=Callback::new(open_at)
                    />
                </For>
                {move || {
                    let first = conversations();
                    found_others
                        .get()
                        .into_iter()
                        .enumerate()
                        .map(|(n, other)| view! {
                            <OtherOption
                                index=first + n
                                other=other
                                active=active
                                on_open=Callback::new(open_at)
                            />
                        })
                        .collect_view()
                }}
            </ul>
            {move || unreadable.get().into_iter().chain(files_failed.get()).map(|line| view! {
                <p class="search-palette__status" role="alert" data-search-unreadable="">{line}</p>
            }).collect_view()}
        </div>
    }
}

/// A memory, a workspace, a collection or a passage of a collection's file found: what
/// it is, and the passage that matched.
#[component]
fn OtherOption(
    index: usize,
    other: Other,
    active: RwSignal<usize>,
    on_open: Callback<usize>,
) -> impl IntoView {
    let (kind, kind_name) = match other.source {
        _ if other.in_file => (Key::SearchKindKnowledgeFile, "knowledge-file"),
        hearth_core::search::Source::Workspaces => (Key::SearchKindWorkspace, "workspace"),
        hearth_core::search::Source::Knowledge => (Key::SearchKindKnowledge, "knowledge"),
        _ => (Key::SearchKindMemory, "memory"),
    };
    view! {
        <OptionRow index active on_open kind=kind_name>
            <div class="search-result__head">
                <span class="search-result__title">{other.title.clone()}</span>
                <span class="search-result__date">{tr(kind)}</span>
            </div>
            <p class="search-result__passage">{pieces(other.passage)}</p>
        </OptionRow>
    }
}

/// One option of the listbox: made active by the arrows or the pointer, opened by a
/// click; `kind` names what it is for the page (`data-search-kind`).
#[component]
fn OptionRow(
    index: usize,
    active: RwSignal<usize>,
    on_open: Callback<usize>,
    kind: &'static str,
    children: Children,
) -> impl IntoView {
    let selected = move || active.get() == index;
    view! {
        <li
            id=option_id(index)
            class="search-result"
            class:search-result--active=selected
            role="option"
            aria-selected=move || if selected() { "true" } else { "false" }
            data-search-kind=kind
            on:click=move |_| on_open.run(index)
            on:mousemove=move |_| {
                if active.get_untracked() != index {
                    active.set(index);
                }
            }
        >
            {children()}
        </li>
    }
}

/// A passage's pieces, the matches marked.
fn pieces(passage: Passage) -> Vec<AnyView> {
    let mut nodes = Vec::new();
    if passage.cut_start {
        nodes.push(view! { <span>"…"</span> }.into_any());
    }
    for (text, highlighted) in passage.pieces {
        nodes.push(if highlighted {
            view! { <mark>{text}</mark> }.into_any()
        } else {
            view! { <span>{text}</span> }.into_any()
        });
    }
    if passage.cut_end {
        nodes.push(view! { <span>"…"</span> }.into_any());
    }
    nodes
}

/// One result: the conversation's title and date, and the passage that matched.
#[component]
fn ResultOption(
    index: usize,
    result: FoundConversation,
    query: String,
    active: RwSignal<usize>,
    on_open: Callback<usize>,
) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let title = {
        let id = result.id.clone();
        move || {
            let title = chat.list.title(&id);
            if title.is_empty() {
                i18n.t(Key::ConversationUntitled)
            } else {
                title
            }
        }
    };
    let passage = RwSignal::new(None::<Passage>);
    {
        let (message, query, id) = (result.message.clone(), query.clone(), result.id.clone());
        leptos::task::spawn_local_scoped(async move {
            let text = match (&message, chat.store.get()) {
                (Some(message), Some(db)) => found::message_text(&db, message).await,
                (None, _) => Some(chat.list.title(&id)),
                _ => None,
            };
            if let Some(text) = text {
                let _ = passage.try_set(Some(found::passage(&query, &text)));
            }
        });
    }
    let date = {
        let at = result.timestamp;
        move || {
            let tag = i18n.locale().tag();
            js_sys::Date::new(&at.into())
                .to_locale_date_string(tag, &wasm_bindgen::JsValue::UNDEFINED)
                .as_string()
                .unwrap_or_default()
        }
    };
    let pieces = move || passage.get().map(pieces);
    let partial = result.partial;
    view! {
        <OptionRow index active on_open kind="conversation">
            <div class="search-result__head">
                <span class="search-result__title">{title}</span>
                <time class="search-result__date">{date}</time>
            </div>
            <p class="search-result__passage">{pieces}</p>
            <Show when=move || partial>
                <p class="search-result__note">{tr(Key::SearchPartial)}</p>
            </Show>
        </OptionRow>
    }
}
