//! Related questions under the last answer: the follow-ups the user's related-questions
//! model suggested (`hearth_core::chat::related`), each a button that sends it as the
//! next message. Plain text, never markup; shown only under the conversation's last
//! reply, once it is done.

use hearth_core::chat::MessageStatus;
use leptos::prelude::*;

use crate::chat::{LiveMessage, use_chat};
use crate::i18n::{Key, tr};

/// The related questions of reply `live`, when it has some and is the last.
pub fn list(live: LiveMessage) -> impl IntoView {
    let chat = use_chat();
    let shown = Memo::new(move |_| {
        live.record.with(|r| {
            let last = r.status == MessageStatus::Done && r.active_child_id.is_none();
            if last { r.related.clone() } else { Vec::new() }
        })
    });
    move || {
        let related = shown.get();
        (!related.is_empty()).then(|| {
            let buttons = related
                .into_iter()
                .map(|question| {
                    let sent = question.clone();
                    view! {
                        <li>
                            <button type="button" class="related-questions__item"
                                on:click=move |_| {
                                    chat.send(sent.clone(), Vec::new());
                                }>
                                {question}
                            </button>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <nav class="related-questions" aria-label=tr(Key::MessageRelated)>
                    <ul>{buttons}</ul>
                </nav>
            }
        })
    }
}
