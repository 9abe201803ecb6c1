//! The sidebar: brand, "New chat", the way to the search palette, the conversation list
//! (pinned first, then the most recent; archived ones left out; each with Rename, Pin,
//! Archive and Delete) with its filter
//! by title (the search index's, `search::Search::find`), and the way to settings. It
//! reads only conversation records, never messages, and renders the list a page at a
//! time. At phone width it is a drawer over the page.

use std::collections::HashMap;

use hearth_core::chat::ConversationRecord;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::browser;
use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::search::{FindError, Phase, Search, Status, use_search};
use crate::shell::{COMPOSER_INPUT_ID, DRAWER_TOGGLE_ID, use_shell};
use crate::ui::icon::{Icon, icon};
use crate::ui::menu::{Menu, MenuItem};
use crate::ui::safe_image::SafeImage;

/// The sidebar.
#[component]
pub fn Sidebar() -> impl IntoView {
    let shell = use_shell();
    let close_drawer = move || {
        if shell.drawer_open.get_untracked() {
            shell.drawer_open.set(false);
            browser::focus_by_id(DRAWER_TOGGLE_ID);
        }
    };
    // The close button: the drawer at phone width, the column otherwise (the top bar's
    // toggle, shown while it is hidden, takes the focus).
    let close = move || {
        if super::shortcuts::phone_width() {
            close_drawer();
        } else {
            shell.sidebar_hidden.set(true);
            request_animation_frame(|| browser::focus_by_id(DRAWER_TOGGLE_ID));
        }
    };
    let on_keydown = move |event: KeyboardEvent| {
        if event.key() == "Escape" && shell.drawer_open.get_untracked() {
            event.prevent_default();
            close_drawer();
        }
    };
    let chat = use_chat();
    let new_chat = move |_| {
        chat.new_chat();
        shell.drawer_open.set(false);
        browser::focus_by_id(COMPOSER_INPUT_ID);
    };
    let shown = RwSignal::new(PAGE);
    let filter = TitleFilter::new();
    let workspace = chat.workspace;
    let i18n = use_i18n();
    // (title, pinned, temporary) of each row shown, by id: a change costs one pass over the rows
    // shown, and each row reads its own entry.
    let summaries = Memo::new(move |_| {
        filter.matches.with(|matches| {
            chat.list.with(|list| {
                list.iter()
                    .filter(|c| listed(c, matches) && workspace.lists(c.workspace_id.as_deref()))
                    .take(shown.get())
                    .map(|c| (c.id.clone(), (c.title.clone(), c.pinned, c.temporary)))
                    .collect::<HashMap<_, _>>()
            })
        })
    });
    let visible = move || {
        filter.matches.with(|matches| {
            chat.list.with(|list| {
                list.iter()
                    .filter(|c| listed(c, matches) && workspace.lists(c.workspace_id.as_deref()))
                    .take(shown.get())
                    .map(|c| c.id.clone())
                    .collect::<Vec<_>>()
            })
        })
    };
    let more = move || {
        let total = filter.matches.with(|matches| {
            chat.list.with(|list| {
                list.iter()
                    .filter(|c| listed(c, matches) && workspace.lists(c.workspace_id.as_deref()))
                    .count()
            })
        });
        total > shown.get()
    };
    let search = use_search();
    let open_search = move |_| {
        shell.drawer_open.set(false);
        search.open_palette();
    };
    let open_settings = move |_| {
        shell.drawer_open.set(false);
        shell.settings_open.set(true);
    };

    view! {
        <nav
            id="sidebar"
            class="sidebar"
            aria-label=tr(Key::SidebarLabel)
            on:keydown=on_keydown
        >
            <div class="sidebar__brand">
                <SafeImage src="/icons/icon.svg" alt="" class="sidebar__logo" />
                <span class="sidebar__name">{tr(Key::AppName)}</span>
                <button
                    type="button"
                    class="icon-button sidebar__close"
                    aria-label=tr(Key::SidebarClose)
                    title=tr(Key::SidebarClose)
                    on:click=move |_| close()
                >
                    {icon(Icon::Close)}
                </button>
            </div>
            <button
                type="button"
                id="sidebar-new-chat"
                class="button button--primary sidebar__new"
                on:click=new_chat
            >
                {icon(Icon::Plus)}
                <span>{tr(Key::SidebarNewChat)}</span>
            </button>
            <button
                type="button"
                class="sidebar__item sidebar__search"
                aria-haspopup="dialog"
                aria-keyshortcuts="Control+K Meta+K"
                on:click=open_search
            >
                {icon(Icon::Search)}
                <span>{tr(Key::SidebarSearch)}</span>
                <kbd class="sidebar__kbd">{shortcut_label()}</kbd>
            </button>
            <button
                type="button"
                id="sidebar-knowledge"
                class="sidebar__item"
                aria-haspopup="dialog"
                on:click=move |_| {
                    shell.settings_tab.set("knowledge".to_string());
                    shell.settings_open.set(true);
                }
            >
                {icon(Icon::Book)}
                <span>{tr(Key::SidebarKnowledge)}</span>
            </button>
            <button
                type="button"
                id="sidebar-assistants"
                class="sidebar__item"
                aria-haspopup="dialog"
                on:click=move |_| {
                    shell.settings_tab.set("assistants".to_string());
                    shell.settings_open.set(true);
                }
            >
                {icon(Icon::Sparkles)}
                <span>{tr(Key::SidebarAssistants)}</span>
            </button>
            <super::workspace_button::WorkspaceButton />
            <FilterField filter=filter />
            <div class="sidebar__list">
                // Nothing matches the filter, or the workspace has no conversations yet.
                <Show when=move || (filter.matches.with(Option::is_some) || workspace.id().is_some()) && summaries.with(HashMap::is_empty)>
                    <p class="sidebar__filter-empty" role="status" id="sidebar-list-empty">
                        {move || i18n.t(if filter.matches.with(Option::is_some) { Key::SidebarFilterNone } else { Key::WorkspacesNoConversations })}
                    </p>
                </Show>
                <Show
                    when=move || chat.list.with(|list| list.iter().any(|c| !c.archived))
                    fallback=move || {
                        // Every conversation archived is not "none yet": say where they are.
                        let archived = chat.list.with(|list| !list.is_empty());
                        let (title, hint) = if archived {
                            (Key::SidebarAllArchived, Key::SidebarAllArchivedHint)
                        } else {
                            (Key::SidebarEmpty, Key::SidebarEmptyHint)
                        };
                        view! {
                            <div class="sidebar__empty" data-all-archived=archived.then_some("")>
                                {icon(Icon::Chat)}
                                <p class="sidebar__empty-title">{tr(title)}</p>
                                <p class="sidebar__empty-hint">{tr(hint)}</p>
                                {archived.then(|| view! {
                                    <button type="button" id="sidebar-show-archived"
                                        class="button button--secondary button--small"
                                        on:click=move |_| {
                                            shell.drawer_open.set(false);
                                            shell.settings_tab.set("data".to_string());
                                            shell.settings_open.set(true);
                                        }>
                                        {tr(Key::SidebarShowArchived)}
                                    </button>
                                })}
                            </div>
                        }
                    }
                >
                    <ul class="conversation-list">
                        // Keyed by id alone: a row follows its record's changes in place, so
                        // a title arriving while its menu or rename field is open does not
                        // rebuild (and dispose) the row under the user's hands.
                        <For each=visible key=|id| id.clone() let:id>
                            <ConversationItem id=id summaries=summaries />
                        </For>
                    </ul>
                    <Show when=more>
                        <button
                            type="button"
                            class="button button--secondary button--small sidebar__more"
                            on:click=move |_| shown.update(|n| *n += PAGE)
                        >
                            {tr(Key::SidebarShowMore)}
                        </button>
                    </Show>
                </Show>
            </div>
            <div class="sidebar__footer">
                <button
                    type="button"
                    class="sidebar__item"
                    aria-haspopup="dialog"
                    on:click=open_settings
                >
                    {icon(Icon::Sliders)}
                    <span>{tr(Key::SidebarSettings)}</span>
                </button>
                <button
                    type="button"
                    class="sidebar__item"
                    aria-haspopup="dialog"
                    aria-keyshortcuts="Control+/ Meta+/"
                    on:click=move |_| shell.shortcuts_open.set(true)
                >
                    {icon(Icon::Keyboard)}
                    <span>{tr(Key::ShortcutsTitle)}</span>
                </button>
            </div>
        </nav>
    }
}

/// Whether the list shows conversation `c`: not archived, and matching the title filter
/// when one is typed (`matches`).
fn listed(c: &ConversationRecord, matches: &Option<Vec<String>>) -> bool {
    !c.archived && matches.as_ref().is_none_or(|m| m.contains(&c.id))
}

/// How many conversations the sidebar shows at a time.
const PAGE: usize = 100;

/// The most conversations the title filter returns.
const FILTER_LIMIT: usize = 200;

/// "Ctrl K", or "⌘K" on Apple platforms.
fn shortcut_label() -> &'static str {
    let platform = window().navigator().platform().unwrap_or_default();
    if platform.starts_with("Mac") || platform.starts_with("iP") {
        "⌘K"
    } else {
        "Ctrl K"
    }
}

/// The list's filter by title: what was typed and the ids that match (`None`: no filter).
#[derive(Clone, Copy)]
struct TitleFilter {
    text: RwSignal<String>,
    matches: RwSignal<Option<Vec<String>>>,
}

impl TitleFilter {
    fn new() -> Self {
        let filter = Self {
            text: RwSignal::new(String::new()),
            matches: RwSignal::new(None),
        };
        let search = use_search();
        let asked = StoredValue::new(0_u64);
        // Asks the index again when the text changes, when the index becomes ready, and
        // when it changes.
        Effect::new(move |_| {
            let text = filter.text.get();
            let ready = matches!(search.phase(), Phase::Ready | Phase::Building);
            search.version();
            asked.update_value(|n| *n += 1);
            let mine = asked.get_value();
            if text.trim().is_empty() {
                filter.matches.set(None);
                return;
            }
            search.start();
            if !ready {
                return;
            }
            crate::browser::spawn_scoped(async move {
                let matches = titles_matching(search, text).await;
                if asked.try_get_value() == Some(mine) {
                    filter.matches.set(matches);
                }
            });
        });
        filter
    }
}

/// The conversations whose title matches `text` (`None`: no filter, the index is not
/// there), in a lazily loaded chunk.
#[lazy]
async fn titles_matching(search: Search, text: String) -> Option<Vec<String>> {
    match search.find(text, true, FILTER_LIMIT).await {
        Ok(found) => Some(found.results.into_iter().map(|r| r.id).collect()),
        Err(FindError::Empty | FindError::TooLong | FindError::TooManyParts) => Some(Vec::new()),
        Err(FindError::Unavailable | FindError::Lost) => None,
    }
}

/// The filter's field, with the index's progress while it is being built.
#[component]
fn FilterField(filter: TitleFilter) -> impl IntoView {
    let search = use_search();
    let i18n = use_i18n();
    let busy = move || {
        !filter.text.with(|t| t.trim().is_empty())
            && matches!(
                search.status(),
                Status::Opening | Status::Idle | Status::Indexing { .. }
            )
    };
    let on_keydown = move |event: KeyboardEvent| {
        if event.key() == "Escape" && !filter.text.with_untracked(String::is_empty) {
            event.prevent_default();
            event.stop_propagation();
            filter.text.set(String::new());
        }
    };
    view! {
        <div class="sidebar__filter">
            <input
                type="search"
                id="sidebar-filter"
                class="input sidebar__filter-input"
                placeholder=tr(Key::SidebarFilter)
                aria-label=tr(Key::SidebarFilter)
                autocomplete="off"
                spellcheck="false"
                maxlength="256"
                prop:value=move || filter.text.get()
                on:input=move |event| filter.text.set(event_target_value(&event))
                on:keydown=on_keydown
            />
            <Show when=busy>
                <p class="sidebar__filter-status" role="status">
                    {move || match search.status() {
                        Status::Indexing { done, total } => i18n.t_with(
                            Key::SearchIndexing,
                            &[("done", &done.to_string()), ("total", &total.to_string())],
                        ),
                        _ => i18n.t(Key::SearchPreparing),
                    }}
                </p>
            </Show>
        </div>
    }
}

/// One conversation in the sidebar.
#[component]
fn ConversationItem(
    id: String,
    summaries: Memo<HashMap<String, (String, bool, bool)>>,
) -> impl IntoView {
    let chat = use_chat();
    let shell = use_shell();
    let i18n = use_i18n();
    let renaming = RwSignal::new(false);
    // (title, pinned, temporary) of this row's record, as it changes.
    let record = {
        let id = id.clone();
        Memo::new(move |_| summaries.with(|all| all.get(&id).cloned().unwrap_or_default()))
    };
    let title = move || {
        record.with(|(title, ..)| {
            if title.is_empty() {
                i18n.t(Key::ConversationUntitled)
            } else {
                title.clone()
            }
        })
    };
    let pinned = move || record.with(|(_, pinned, _)| *pinned);
    let temporary = move || record.with(|(.., temporary)| *temporary);
    let current = {
        let id = id.clone();
        move || chat.open.is_open(&id)
    };
    let open = {
        let id = id.clone();
        move |_| {
            chat.open.open(id.clone());
            shell.drawer_open.set(false);
        }
    };
    let input_id = format!("rename-{id}");
    let toasts = crate::ui::toast::use_toasts();
    let items = {
        let (rename_input, pin_id, place_id, export_id, archive_id, delete_id) = (
            input_id.clone(),
            id.clone(),
            id.clone(),
            id.clone(),
            id.clone(),
            id.clone(),
        );
        vec![
            MenuItem {
                label: Signal::derive(move || i18n.t(Key::ConversationRename)),
                icon: Icon::Edit,
                checked: None,
                on_select: Callback::new(move |_| {
                    renaming.set(true);
                    let target = rename_input.clone();
                    // Focused with its text selected: typing replaces the old name.
                    request_animation_frame(move || {
                        browser::focus_by_id(&target);
                        browser::select_text_of(&target);
                    });
                }),
            },
            MenuItem {
                label: Signal::derive(move || {
                    i18n.t(if pinned() {
                        Key::ConversationUnpin
                    } else {
                        Key::ConversationPin
                    })
                }),
                icon: Icon::Pin,
                checked: None,
                on_select: Callback::new(move |_| {
                    chat.list
                        .set_pinned(pin_id.clone(), !record.with_untracked(|(_, p, _)| *p))
                }),
            },
            MenuItem {
                label: Signal::derive(move || i18n.t(Key::PlacementTitle)),
                icon: Icon::Folder,
                checked: None,
                on_select: Callback::new(move |_| shell.placing.set(Some(place_id.clone()))),
            },
            MenuItem {
                label: Signal::derive(move || i18n.t(Key::ConversationExportMarkdown)),
                icon: Icon::Download,
                checked: None,
                on_select: Callback::new(move |_| {
                    let what = crate::archive::markdown::Export::Conversation(export_id.clone());
                    crate::archive::markdown::offer(chat, what, i18n, toasts);
                }),
            },
            MenuItem {
                label: Signal::derive(move || i18n.t(Key::ConversationArchive)),
                icon: Icon::Archive,
                checked: None,
                on_select: Callback::new(move |_| chat.archive_conversation(archive_id.clone())),
            },
            MenuItem {
                label: Signal::derive(move || i18n.t(Key::ConversationDelete)),
                icon: Icon::Trash,
                checked: None,
                on_select: Callback::new(move |_| chat.delete_conversation(delete_id.clone())),
            },
        ]
    };
    let save_id = id.clone();
    let on_key = move |event: KeyboardEvent| match event.key().as_str() {
        "Enter" => {
            event.prevent_default();
            chat.list
                .rename(save_id.clone(), event_target_value(&event));
            renaming.set(false);
        }
        "Escape" => {
            event.prevent_default();
            event.stop_propagation();
            renaming.set(false);
        }
        _ => {}
    };
    view! {
        <li class="conversation-item" class:conversation-item--current=current.clone()>
            <Show
                when=move || renaming.get()
                fallback={
                    let current = current.clone();
                    move || {
                        let current = current.clone();
                        view! {
                            <button
                                type="button"
                                class="conversation-item__open"
                                aria-current=move || current().then_some("page")
                                on:click=open.clone()
                            >
                                {move || pinned().then(|| icon(Icon::Pin))}
                                <span class="conversation-item__title">{title}</span>
                                {move || temporary().then(|| view! {
                                    <span class="conversation-item__badge">
                                        {tr(Key::TemporaryBadge)}
                                    </span>
                                })}
                            </button>
                        }
                    }
                }
            >
                <label class="visually-hidden" for=input_id.clone()>{tr(Key::ConversationRename)}</label>
                <input
                    id=input_id.clone()
                    class="conversation-item__rename"
                    prop:value=move || record.with_untracked(|(title, ..)| title.clone())
                    on:keydown=on_key.clone()
                    // A row removed while renaming blurs its field after its signals are gone.
                    on:blur=move |_| {
                        let _ = renaming.try_set(false);
                    }
                />
            </Show>
            <Menu
                label=Signal::derive(move || i18n.t_with(Key::ConversationActions, &[("title", &title())]))
                button_icon=Icon::More
                items=items
            />
        </li>
    }
}
