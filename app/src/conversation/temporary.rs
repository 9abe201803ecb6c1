//! The note above a temporary chat: what it means (kept in this tab only, gone with it),
//! with the way to keep it as an ordinary conversation.

use leptos::prelude::*;

use crate::chat::use_chat;
use crate::i18n::{Key, tr};
use crate::ui::icon::{Icon, icon};

/// "Temporary chat: …", with Keep this chat, while the open conversation is temporary.
pub fn temporary_note() -> impl IntoView {
    let chat = use_chat();
    move || {
        let id = chat.open.current()?;
        chat.list.temporary(&id).then(|| {
            view! {
                <p class="conversation-note" id="temporary-note" role="status">
                    {icon(Icon::Info)}
                    <span>{tr(Key::TemporaryNote)}</span>
                    <button type="button" class="button button--secondary button--small"
                        id="temporary-keep" on:click=move |_| chat.keep_temporary()>
                        {tr(Key::TemporaryKeep)}
                    </button>
                </p>
            }
        })
    }
}
