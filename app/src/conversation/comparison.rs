//! The answers of a comparison side by side (`crate::chat::Chat::compared_with`): a
//! column per model, each headed by the model's name,
//! Stop while that answer is written, and "Continue with this" (the conversation goes
//! on from the chosen one, marked); under them, Merge answers (a new reply by the
//! composer's model). Columns sit side by side where there is room and scroll sideways
//! where there is not (a phone shows one at a time). Part of the message list's chunk;
//! its sentences are "later" ones, fetched with the English catalogue once shown.

use leptos::prelude::*;

use super::message::MessageView;
use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::icon::{Icon, icon};

/// The comparison that reply `id` (the one on the active path) belongs to. (Not a lazy
/// chunk of its own: it shows messages, and a second chunk showing them moved the
/// message view and all under it into the first load.)
pub fn row(id: String) -> AnyView {
    let chat = use_chat();
    let i18n = use_i18n();
    let worded = crate::i18n::later_english_ready();
    let members = Memo::new({
        let id = id.clone();
        move |_| chat.compared_with(&id)
    });
    let busy = Signal::derive(move || chat.is_streaming());
    let merger = Signal::derive(move || chat.choice.get().map(|m| m.model).unwrap_or_default());
    let merge_id = id.clone();
    (move || {
        worded.get().then(|| {
            let merge_id = merge_id.clone();
            view! {
                <div class="comparison" data-comparison=members.with(|m| m.first().cloned())>
                    // Focusable: on a narrow screen the keys scroll it sideways.
                    <div class="comparison__columns" role="group" tabindex="0"
                        aria-label=tr(Key::CompareTitle)>
                        // Made again only when the answers change (one regenerated or
                        // deleted): always in the order they were written.
                        {move || {
                            members
                                .get()
                                .into_iter()
                                .map(|id| view! { <Column id=id /> })
                                .collect_view()
                        }}
                    </div>
                    <div class="comparison__footer">
                        <button
                            type="button"
                            class="button button--secondary button--small comparison__merge"
                            disabled=move || busy.get()
                            on:click=move |_| chat.merge(&merge_id)
                        >
                            {icon(Icon::Sparkles)}
                            {tr(Key::CompareMerge)}
                        </button>
                        <span class="comparison__hint">
                            {move || i18n.t_with(Key::CompareMergeHint, &[("model", &merger.get())])}
                        </span>
                    </div>
                </div>
            }
        })
    })
    .into_any()
}

/// One answer of the comparison.
#[component]
fn Column(id: String) -> impl IntoView {
    let chat = use_chat();
    let i18n = use_i18n();
    let model = chat
        .open
        .live(&id)
        .and_then(|live| live.record.with_untracked(|r| r.model.clone()))
        .unwrap_or_default();
    let chosen = Memo::new({
        let id = id.clone();
        move |_| chat.open.path().with(|path| path.contains(&id))
    });
    let running = Memo::new({
        let id = id.clone();
        move |_| chat.runs.phase_of(&id).is_some()
    });
    let (stop_id, choose_id) = (id.clone(), id.clone());
    let label = i18n.t_with(Key::CompareAnswerBy, &[("model", &model)]);
    view! {
        <div
            class="comparison__column"
            class:comparison__column--chosen=move || chosen.get()
            role="group"
            aria-label=label
            data-column=id.clone()
        >
            <header class="comparison__head">
                <span class="comparison__model" title=model.clone()>{model.clone()}</span>
                <Show when=move || running.get()>
                    <button
                        type="button"
                        class="icon-button icon-button--small comparison__stop"
                        aria-label=tr(Key::CompareStop)
                        title=tr(Key::CompareStop)
                        on:click={
                            let id = stop_id.clone();
                            move |_| chat.stop_reply(&id)
                        }
                    >
                        {icon(Icon::Stop)}
                    </button>
                </Show>
                <Show
                    when=move || chosen.get()
                    fallback={
                        let id = choose_id.clone();
                        move || {
                            let id = id.clone();
                            view! {
                                <button
                                    type="button"
                                    class="button button--secondary button--small comparison__choose"
                                    on:click=move |_| chat.choose_answer(id.clone())
                                >
                                    {tr(Key::CompareChoose)}
                                </button>
                            }
                        }
                    }
                >
                    <span class="comparison__chosen" title=tr(Key::CompareChosenHint)>
                        {icon(Icon::Check)}
                        <span>{tr(Key::CompareChosen)}</span>
                    </span>
                </Show>
            </header>
            <MessageView id=id.clone() column=true />
        </div>
    }
}
