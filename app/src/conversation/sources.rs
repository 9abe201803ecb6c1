//! The sources under a reply: the pages it draws on, numbered as its citations `[n]`
//! count them, each a link that opens in a new tab with its site named, for the user to
//! judge before opening it; a passage of the user's knowledge collections is a button
//! that opens it (`super::passage`), and its `[n]` in the text opens the same; a note
//! under them says they were found by their words alone (no embedding model). Nothing
//! is fetched from them here (no favicon): a page loads nothing from another site. A
//! source that is not a web address (a record from outside) is shown as text.

use hearth_core::chat::MessageRecord;
use hearth_core::chat::source::Source;
use hearth_core::safe_url::web_host;
use leptos::prelude::*;

use crate::chat::LiveMessage;
use crate::i18n::{Key, tr};

/// The sources of reply `live`, when it has any.
pub fn list(live: LiveMessage) -> impl IntoView {
    move || {
        let sources = live.record.with(MessageRecord::sources);
        // Passages are found by their words alone (no embedding model): said under them.
        let lexical = sources.iter().any(|source| source.passage.is_some());
        (!sources.is_empty()).then(|| {
            let id = live.record.with_untracked(|r| format!("sources-{}", r.id));
            let labelled_by = id.clone();
            let opened = RwSignal::new(None::<Source>);
            view! {
                <section class="reply-sources" aria-labelledby=labelled_by>
                    <h3 class="reply-sources__title" id=id>{tr(Key::ReplySources)}</h3>
                    <ol class="reply-sources__list">
                        {sources.into_iter().enumerate().map(|(index, source)| item(index, source, opened))
                            .collect_view()}
                    </ol>
                    {lexical.then(|| view! {
                        <p class="reply-sources__note" data-knowledge-lexical="">
                            {tr(Key::KnowledgeLexicalOnly)}
                        </p>
                    })}
                    {move || opened.with(Option::is_some).then(|| view! {
                        <super::passage::PassageDialog shown=opened />
                    })}
                </section>
            }
        })
    }
}

fn item(index: usize, source: Source, opened: RwSignal<Option<Source>>) -> impl IntoView {
    let number = (index + 1).to_string();
    if source.passage.is_some() {
        return passage_item(number, source, opened).into_any();
    }
    let label = source.label();
    // A source without a title is named by its site: said once.
    let site = Some(source.site()).filter(|site| *site != label);
    let body = view! {
        <span class="reply-sources__number">{number}</span>
        <span class="reply-sources__name">{label}</span>
        {site.map(|site| view! { <span class="reply-sources__site">{site}</span> })}
    };
    let link = web_host(&source.url).is_some().then(|| source.url.clone());
    view! {
        <li class="reply-sources__item">
            {match link {
                Some(url) => view! {
                    <a class="reply-sources__link" href=url.clone() title=url target="_blank"
                        rel="noopener noreferrer nofollow">{body}</a>
                }
                .into_any(),
                None => view! { <span class="reply-sources__link">{body}</span> }.into_any(),
            }}
        </li>
    }
    .into_any()
}

/// A passage of a knowledge collection: a button that opens it, which its citations in
/// the text press too (`data-source-number`).
fn passage_item(number: String, source: Source, opened: RwSignal<Option<Source>>) -> impl IntoView {
    let label = source.label();
    let collection = source.site();
    let page = source.passage.as_ref().and_then(|p| p.page);
    let shown_number = number.clone();
    view! {
        <li class="reply-sources__item reply-sources__item--passage">
            <button type="button" class="reply-sources__link reply-sources__passage"
                data-source-number=number
                on:click=move |_| opened.set(Some(source.clone()))>
                <span class="reply-sources__number">{shown_number}</span>
                <span class="reply-sources__name">{label}</span>
                <span class="reply-sources__site">
                    {collection}
                    {page.map(|page| format!(" · {}", crate::i18n::use_i18n().t_with(Key::KnowledgePage, &[("page", &page.to_string())])))}
                </span>
            </button>
        </li>
    }
}
