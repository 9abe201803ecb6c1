//! The note under an archived conversation (opened from Settings › Data, search or its
//! address), with the way back to the sidebar's list.

use leptos::prelude::*;

use crate::chat::use_chat;
use crate::i18n::{Key, tr};
use crate::ui::icon::{Icon, icon};

/// "This conversation is archived", with Unarchive, while the open one is archived.
pub fn archived_note() -> impl IntoView {
    let chat = use_chat();
    move || {
        let id = chat.open.current()?;
        chat.list.archived(&id).then(|| {
            let unarchive = move |_| chat.unarchive_conversation(id.clone());
            view! {
                <p class="conversation-note" id="archived-note" role="status">
                    {icon(Icon::Archive)}
                    <span>{tr(Key::ConversationArchivedHere)}</span>
                    <button type="button" class="button button--secondary button--small"
                        on:click=unarchive>
                        {tr(Key::ConversationUnarchive)}
                    </button>
                </p>
            }
        })
    }
}
