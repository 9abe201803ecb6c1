//! The line under a message after which the conversation's context starts again
//! (`/clear`): says the model does not see what is above, with the way to bring it back.

use leptos::prelude::*;

use crate::chat::use_chat;
use crate::i18n::{Key, tr};

/// The break under message `id`, while the open conversation has one there.
pub fn context_break(id: String) -> impl IntoView {
    let chat = use_chat();
    move || {
        let conversation = chat.open.current()?;
        let here = chat.list.context_breaks(&conversation).contains(&id);
        let after = id.clone();
        here.then(|| {
            view! {
                <div class="context-break" data-context-break=id.clone()>
                    <span class="context-break__note">{tr(Key::ContextBreakNote)}</span>
                    <button type="button" class="button button--secondary button--small context-break__restore"
                        on:click=move |_| chat.restore_context(after.clone())>
                        {tr(Key::ContextBreakRestore)}
                    </button>
                </div>
            }
        })
    }
}
