//! Settings › Data › Archived conversations: those archived out of the sidebar's list,
//! most recent first, each to open, bring back to the list or delete (with Undo).

use leptos::prelude::*;

use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::shell::use_shell;

/// The archived conversations' block of the Data tab.
#[component]
pub fn ArchivedConversations() -> impl IntoView {
    let chat = use_chat();
    // (id, title) of each archived conversation, in the list's order.
    let archived = Memo::new(move |_| {
        chat.list.with(|list| {
            list.iter()
                .filter(|c| c.archived)
                .map(|c| (c.id.clone(), c.title.clone()))
                .collect::<Vec<_>>()
        })
    });
    view! {
        <section class="data-block" aria-labelledby="data-archived-title">
            <h3 class="settings-subheading" id="data-archived-title">{tr(Key::DataArchived)}</h3>
            <p class="settings-section__text">{tr(Key::DataArchivedHint)}</p>
            <Show
                when=move || !archived.with(Vec::is_empty)
                fallback=|| view! {
                    <p class="settings-section__text" id="data-archived-none">{tr(Key::DataArchivedNone)}</p>
                }
            >
                <ul class="plugin-list archived-list" id="data-archived-list">
                    <For each=move || archived.get() key=Clone::clone let:entry>
                        <ArchivedRow id=entry.0 title=entry.1 />
                    </For>
                </ul>
            </Show>
        </section>
    }
}

/// One archived conversation, with Open, Unarchive and Delete.
#[component]
fn ArchivedRow(id: String, title: String) -> impl IntoView {
    let chat = use_chat();
    let shell = use_shell();
    let i18n = use_i18n();
    let shown = if title.is_empty() {
        i18n.t(Key::ConversationUntitled)
    } else {
        title
    };
    let label = {
        let shown = shown.clone();
        move |key: Key| format!("{}: {shown}", i18n.t(key))
    };
    let open = {
        let id = id.clone();
        move |_| {
            chat.open.open(id.clone());
            shell.settings_open.set(false);
        }
    };
    let unarchive = {
        let id = id.clone();
        move |_| chat.unarchive_conversation(id.clone())
    };
    let delete = {
        let id = id.clone();
        move |_| chat.delete_conversation(id.clone())
    };
    view! {
        <li class="plugin-card" data-archived=id>
            <span class="plugin-card__title">{shown}</span>
            <div class="skill-card__actions">
                <button type="button" class="button button--secondary button--small"
                    data-archived-open="" aria-label=label(Key::DataArchivedOpen) on:click=open>
                    {tr(Key::DataArchivedOpen)}
                </button>
                <button type="button" class="button button--secondary button--small"
                    data-archived-unarchive="" aria-label=label(Key::ConversationUnarchive)
                    on:click=unarchive>
                    {tr(Key::ConversationUnarchive)}
                </button>
                <button type="button" class="button button--secondary button--small"
                    data-archived-delete="" aria-label=label(Key::ConversationDelete)
                    on:click=delete>
                    {tr(Key::ConversationDelete)}
                </button>
            </div>
        </li>
    }
}
