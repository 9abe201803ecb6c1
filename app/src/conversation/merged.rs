//! A merged reply's note (`hearth_core::chat::compare`): how many answers it merged,
//! and the way back to them. Its sentences are "later" ones, fetched with the English
//! catalogue once shown.

use leptos::prelude::*;

use crate::chat::{LiveMessage, use_chat};
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::icon::{Icon, icon};

/// A merged reply's note: how many answers it merged, and the way back to them.
pub fn note(live: LiveMessage) -> impl IntoView {
    let merged = live.record.with_untracked(|r| r.merged_from.clone());
    let first = merged.first().cloned()?;
    let chat = use_chat();
    let i18n = use_i18n();
    let worded = crate::i18n::later_english_ready();
    let count = merged.len().to_string();
    Some(move || {
        let first = first.clone();
        worded.get().then(|| {
            view! {
                <p class="message__merged">
                    {icon(Icon::Columns)}
                    <span>{i18n.t_with(Key::MessageMerged, &[("count", &count)])}</span>
                    <button type="button" class="button button--secondary button--small"
                        on:click=move |_| chat.choose_answer(first.clone())>
                        {tr(Key::MessageMergedShow)}
                    </button>
                </p>
            }
        })
    })
}
