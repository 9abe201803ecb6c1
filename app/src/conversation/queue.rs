//! Messages the user sent while a reply was streaming. They wait here, visible and
//! editable, are not part of the running request, and go out one at a time when the
//! reply finishes. Stopping or a failure leaves them waiting.

use leptos::prelude::*;

use crate::chat::use_chat;
use crate::i18n::{Key, tr};
use crate::ui::icon::{Icon, icon};

/// The open conversation's queue.
#[component]
pub fn QueueView() -> impl IntoView {
    let chat = use_chat();
    let items = move || chat.queued();
    view! {
        <Show when=move || !items().is_empty()>
            <section class="queue" aria-label=tr(Key::QueueLabel)>
                <p class="queue__title">{tr(Key::QueueTitle)}</p>
                <ol class="queue__list">
                    <For each=items key=|item| item.id.clone() let:item>
                        {
                            let (edit_id, remove_id) = (item.id.clone(), item.id.clone());
                            view! {
                                <li class="queue__item">
                                    <label class="visually-hidden" for=format!("queued-{}", item.id)>
                                        {tr(Key::QueueEditLabel)}
                                    </label>
                                    <input
                                        id=format!("queued-{}", item.id)
                                        class="queue__input"
                                        prop:value=item.text.clone()
                                        on:change=move |event| {
                                            chat.edit_queued(&edit_id, &event_target_value(&event))
                                        }
                                    />
                                    <button
                                        type="button"
                                        class="icon-button icon-button--small"
                                        aria-label=tr(Key::QueueRemove)
                                        title=tr(Key::QueueRemove)
                                        on:click=move |_| chat.remove_queued(&remove_id)
                                    >
                                        {icon(Icon::Close)}
                                    </button>
                                </li>
                            }
                        }
                    </For>
                </ol>
            </section>
        </Show>
    }
}
