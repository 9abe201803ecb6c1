//! A reply's search block: each web search it made, with its query and how it went
//! (searching, how many pages it found, or why it failed, in the user's language), so a
//! failed search stays in the conversation instead of disappearing. The pages are the
//! reply's sources, listed under its text (`super::sources`).

use hearth_core::chat::MessageStatus;
use hearth_core::web_search::record::{self, SearchOutcome};
use leptos::prelude::*;

use crate::chat::LiveMessage;
use crate::i18n::{Key, tr, use_i18n};

/// The search block of reply `live`, when it searched.
pub fn block(live: LiveMessage) -> impl IntoView {
    let i18n = use_i18n();
    // Its English sentences come with the catalogue (`crate::i18n::load_later_english`),
    // fetched only for a conversation that searched.
    let searched = move || live.record.with(|r| r.web_searches.is_some());
    let worded = RwSignal::new(crate::i18n::later_english_here());
    let asked = StoredValue::new(false);
    move || {
        if !searched() {
            return None;
        }
        if !worded.get() {
            if !asked.get_value() {
                asked.set_value(true);
                leptos::task::spawn_local(async move {
                    crate::i18n::load_later_english().await;
                    let _ = worded.try_set(true);
                });
            }
            return None;
        }
        let records = live
            .record
            .with(|r| record::decode(r.web_searches.as_deref()));
        let streaming = live.record.with(|r| r.status == MessageStatus::Streaming);
        (!records.is_empty()).then(|| {
            let id = live.record.with_untracked(|r| format!("searches-{}", r.id));
            let items = records
                .into_iter()
                .map(|searched| {
                    let (state, said) = match searched.outcome {
                        SearchOutcome::Searching if streaming => {
                            ("searching", i18n.t(Key::WebSearchBlockSearching))
                        }
                        // A search the page left waiting (a reload, a closed tab).
                        SearchOutcome::Searching => (
                            "failed",
                            crate::web_search::describe(&i18n, record::INTERRUPTED, None),
                        ),
                        SearchOutcome::Found { pages, .. } => (
                            "found",
                            i18n.t_with(Key::WebSearchBlockFound, &[("count", &pages.to_string())]),
                        ),
                        SearchOutcome::Failed { code, status } => {
                            ("failed", crate::web_search::describe(&i18n, &code, status))
                        }
                    };
                    // The provider's own search: named, with what it searched for when it
                    // said.
                    let query = match (searched.by_model, searched.query.is_empty()) {
                        (true, true) => i18n.t(Key::WebSearchBlockByModel),
                        (true, false) => {
                            format!("{}: {}", i18n.t(Key::WebSearchBlockByModel), searched.query)
                        }
                        (false, _) => searched.query,
                    };
                    view! {
                        <li class="search-block__item" data-state=state data-by-model=searched.by_model.then_some("")>
                            <span class="search-block__query">{query}</span>
                            <span class="search-block__outcome">
                                {said}
                            </span>
                        </li>
                    }
                })
                .collect_view();
            let labelled_by = id.clone();
            view! {
                <section class="search-block" data-search-block="" aria-labelledby=labelled_by>
                    <h3 class="search-block__title" id=id>{tr(Key::WebSearchBlockTitle)}</h3>
                    <ul class="search-block__list">{items}</ul>
                </section>
            }
        })
    }
}
