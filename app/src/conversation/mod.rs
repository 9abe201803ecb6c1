//! The conversation pane: the open conversation's messages (or the welcome when there are
//! none), the queue of messages waiting for the streaming reply, and storage warnings.
//!
//! - [`list`]: the virtualised message list that sticks to the bottom while streaming.
//! - [`message`]: one message with its actions, branch switcher, status and details
//!   (`details`: their rows);
//!   `comparison`: the answers of several models to one question, side by side;
//!   `merged`: the note on a reply merged from them;
//!   `markdown_actions`: the buttons inside its rendered Markdown (and in reading mode).
//! - [`queue`]: messages sent while a reply streams: visible, editable, removable.
//! - `memory`: the memories a reply used and proposes, and memory's switch for the
//!   conversation.
//! - `archived`: the note under an archived conversation, with Unarchive.
//! - `context_break`: the line under the message after which `/clear` started the
//!   context again, with the way back.
//! - `reading`: a reply's menu (Read, Save as Markdown, Print) and its reading mode;
//!   `print`: the print view of one reply.
//! - `sources`: the pages a reply draws on, numbered as its citations count them.
//! - `round_text`: a round's text with the images the model sent in their places;
//!   `stored_image`: an image kept in the private file system, on screen.
//! - `related`: the follow-up questions suggested under the last answer.
//! - `tool_calls`: a reply's tool rounds and calls; `question_card`: a question the
//!   model asked the user, to answer there.

mod archived;
mod comparison;
mod context_break;
mod details;
mod flick;
pub mod list;
mod markdown_actions;
mod memory;
mod merged;
pub mod message;
mod passage;
mod preview;
mod print;
mod question_card;
pub mod queue;
mod reading;
mod related;
mod round_text;
mod search_block;
mod server_question;
mod sources;
mod stored_image;
mod temporary;
mod tool_calls;

use leptos::prelude::*;

use crate::chat::use_chat;
use crate::i18n::{Key, tr};
use crate::shell::EmptyState;
use crate::storage::StorageError;
use crate::ui::icon::{Icon, icon};

/// The message list and everything under it (messages, Markdown, actions), in its own
/// lazily loaded wasm chunk with its own stylesheet (`conversation.css`): the first page
/// load shows the shell without either. The list shows once its stylesheet is here.
#[lazy]
fn message_list() -> AnyView {
    let styled = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Conversation);
    // Diagrams are drawn for the theme: a switch draws them again.
    let theme = crate::theme::use_theme().choice;
    Effect::new(move |first: Option<()>| {
        theme.track();
        if first.is_some() {
            crate::diagram::retheme();
        }
    });
    view! {
        <Show
            when=move || styled.get()
            fallback=|| view! { <div class="message-list" aria-busy="true"></div> }
        >
            <list::MessageList />
        </Show>
    }
    .into_any()
}

/// The conversation pane.
#[component]
pub fn ConversationView() -> impl IntoView {
    let chat = use_chat();
    let i18n = crate::i18n::use_i18n();
    let empty = move || chat.open.path().with(Vec::is_empty) && chat.open.current().is_none();
    view! {
        <section class="conversation">
            {move || chat.store.error().map(|error| {
                let replaced = error == StorageError::Replaced;
                let text = move || match &error {
                    StorageError::QuotaExceeded => i18n.t(Key::StorageFull),
                    StorageError::Unavailable(_) => i18n.t(Key::StorageUnavailable),
                    StorageError::UpgradeFailed(why) => {
                        i18n.t_with(Key::StorageUpgradeFailed, &[("reason", why)])
                    }
                    StorageError::Replaced => i18n.t(Key::StorageReplaced),
                    _ => i18n.t(Key::StorageFailed),
                };
                // Only a reload gives this tab its data back.
                let reload = replaced.then(|| view! {
                    <button
                        type="button"
                        class="button button--secondary button--small"
                        on:click=|_| {
                            let _ = window().location().reload();
                        }
                    >
                        {tr(Key::StorageReload)}
                    </button>
                });
                view! {
                    <div class="storage-banner" role="alert">
                        {icon(Icon::Alert)}
                        <p>{text}</p>
                        {reload}
                        <button
                            type="button"
                            class="icon-button icon-button--small"
                            aria-label=tr(Key::ToastDismiss)
                            on:click=move |_| chat.store.dismiss_error()
                        >
                            {icon(Icon::Close)}
                        </button>
                    </div>
                }
            })}
            <Show when=move || !empty() fallback=|| view! { <EmptyState /> }>
                {crate::ui::lazy::lazy_view(message_list(), "message-list")}
            </Show>
        </section>
    }
}
