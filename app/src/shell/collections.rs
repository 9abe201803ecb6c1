//! The knowledge collections the open conversation is answered from, as the composer
//! shows and changes them: the conversation's own (`ConversationRecord::knowledge`), or,
//! in the new chat, those chosen before its first message (`crate::knowledge`), which
//! its conversation takes. Chosen with `@` (`super::commands`); shown as chips above
//! the text, each with a button that stops using it.

use hearth_core::knowledge::MAX_ATTACHED;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::chat::Chat;
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::knowledge::use_knowledge;
use crate::ui::icon::{Icon, icon};
use crate::ui::toast::{ToastKind, Toasts, use_toasts};

/// The collections in use here (tracked).
pub fn in_use(chat: Chat) -> Vec<String> {
    match chat.open.current() {
        Some(id) => chat.list.knowledge(&id),
        None => use_knowledge().new_chat(),
    }
}

/// Starts (`on`) or stops using collection `id` here; what is said is in a toast.
pub fn set_used(chat: Chat, (i18n, toasts): (I18n, Toasts), id: String, name: String, on: bool) {
    let mut ids = in_use(chat);
    ids.retain(|c| *c != id);
    if on {
        if ids.len() >= MAX_ATTACHED {
            let max = MAX_ATTACHED.to_string();
            toasts.show(
                ToastKind::Error,
                i18n.t_with(Key::KnowledgeErrorTooManyAttached, &[("max", &max)]),
            );
            return;
        }
        ids.push(id);
    }
    let said = i18n.t_with(
        if on {
            Key::KnowledgeInUse
        } else {
            Key::KnowledgeNotInUse
        },
        &[("name", &name)],
    );
    let Some(conversation) = chat.open.current_untracked() else {
        use_knowledge().set_new_chat(ids);
        toasts.show(ToastKind::Info, said);
        return;
    };
    spawn_local(async move {
        match chat.list.set_knowledge(&conversation, ids).await {
            Ok(()) => toasts.show(ToastKind::Info, said),
            Err(error) => toasts.show(
                ToastKind::Error,
                i18n.t_with(
                    Key::KnowledgeErrorStorage,
                    &[("reason", &error.to_string())],
                ),
            ),
        }
    });
}

/// The chips of the collections in use, in their own lazily loaded chunk (shown once
/// their English sentences are here: `crate::i18n::load_later_english`).
#[lazy]
pub fn chips(chat: Chat) -> AnyView {
    let worded = crate::i18n::later_english_ready();
    view! { <Show when=move || worded.get()><Chips chat /></Show> }.into_any()
}

/// What a chip says of its collection.
enum Named {
    /// Its name.
    Name(String),
    /// Deleted since it was chosen.
    Gone,
    /// The library could not be read, so it is not known.
    Unreadable,
}

#[component]
fn Chips(chat: Chat) -> impl IntoView {
    let knowledge = use_knowledge();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let unreadable = RwSignal::new(false);
    spawn_local(async move {
        if knowledge.load().await.is_err() {
            unreadable.set(true);
        }
    });
    let library = knowledge.library();
    // Nothing until the library is read (a chip never says "deleted" while loading).
    let shown = move || {
        let ids = in_use(chat);
        let failed = unreadable.get();
        library.with(|library| match library {
            None if !failed => Vec::new(),
            None => ids.into_iter().map(|id| (id, Named::Unreadable)).collect(),
            Some(library) => ids
                .into_iter()
                .map(|id| {
                    let named = library
                        .collection(&id)
                        .map_or(Named::Gone, |c| Named::Name(c.name.clone()));
                    (id, named)
                })
                .collect(),
        })
    };
    view! {
        <ul class="attachment-chips collection-chips" aria-label=tr(Key::KnowledgeChipsLabel)>
            {move || shown().into_iter().map(|(id, named)| {
                // A collection deleted since, or not known: said, and still removable.
                let gone = !matches!(named, Named::Name(_));
                let name = match named {
                    Named::Name(name) => name,
                    Named::Gone => i18n.t(Key::KnowledgeChipGone),
                    Named::Unreadable => i18n.t(Key::KnowledgeChipUnreadable),
                };
                let remove_label = i18n.t_with(Key::KnowledgeStopUsing, &[("name", &name)]);
                let stop = {
                    let (id, name) = (id.clone(), name.clone());
                    move |_| set_used(chat, (i18n, toasts), id.clone(), name.clone(), false)
                };
                view! {
                    <li class="attachment-chip collection-chip" class:collection-chip--gone=gone
                        data-collection-chip=id.clone()>
                        {icon(Icon::Book)}
                        <span class="attachment-chip__name">{name}</span>
                        <button type="button" class="icon-button attachment-chip__remove"
                            aria-label=remove_label.clone() title=remove_label on:click=stop>
                            {icon(Icon::Close)}
                        </button>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}
