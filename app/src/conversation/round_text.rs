//! One round's text of a reply with the images the model sent in their places
//! (`hearth_core::chat::output_image::blocks`): text, image, text, … A round without
//! images is one Markdown body, exactly as before. With images, the stretches before the
//! last image are finished and rendered once; the text after it is the growing tail.
//! An image shows from the private file system, from the record (when the file system
//! refused it), as a link to open in a new tab (never loaded here), or as the reason it
//! could not be kept. Every piece renders with the reply's source definitions before it
//! (`hearth_core::chat::source`), so its citations are links to its sources.

use hearth_core::chat::output_image::{self, Block, KeptImage, LostReason};
use hearth_core::chat::source::reference_definitions;
use hearth_core::safe_url::web_host;
use leptos::prelude::*;

use super::stored_image::StoredImage;
use crate::chat::LiveMessage;
use crate::i18n::{Key, tr, use_i18n};
use crate::render::view::MarkdownBody;
use crate::ui::safe_image::SafeImage;

/// Round `round`'s `text` (the final text is round `tool_rounds.len()`, which grows as
/// rounds call tools), with its images.
#[component]
pub fn RoundText(
    live: LiveMessage,
    #[prop(into)] round: Signal<usize>,
    #[prop(into)] text: Signal<String>,
    #[prop(into)] streaming: Signal<bool>,
) -> impl IntoView {
    let round = Memo::new(move |_| u32::try_from(round.get()).unwrap_or(u32::MAX));
    let sources = Signal::from(Memo::new(move |_| {
        live.record.with(|r| reference_definitions(&r.sources()))
    }));
    let has_images = Memo::new(move |_| {
        let round = round.get();
        live.record
            .with(|r| r.images.iter().any(|i| i.round == round))
    });
    move || {
        if has_images.get() {
            view! { <WithImages live=live round=round text=text streaming=streaming sources=sources /> }
                .into_any()
        } else {
            view! { <MarkdownBody text=text streaming=streaming prefix=sources /> }.into_any()
        }
    }
}

/// The blocks before the growing tail, and where the tail starts.
#[derive(Clone, PartialEq)]
struct Layout {
    finished: Vec<Block>,
    tail_from: usize,
}

#[component]
fn WithImages(
    live: LiveMessage,
    round: Memo<u32>,
    text: Signal<String>,
    streaming: Signal<bool>,
    sources: Signal<String>,
) -> impl IntoView {
    // Laid out again when an image comes, not when the text grows: the text only grows
    // after the last image.
    let layout = Memo::new(move |_| {
        let round = round.get();
        live.record.with(|r| {
            text.with_untracked(|t| {
                let mut finished = output_image::blocks(t, &r.images, round);
                let tail_from = match finished.last() {
                    Some(Block::Text(range)) => {
                        let from = range.start;
                        finished.pop();
                        from
                    }
                    _ => t.len(),
                };
                Layout {
                    finished,
                    tail_from,
                }
            })
        })
    });
    let tail = Signal::derive(move || {
        let from = layout.with(|l| l.tail_from);
        text.with(|t| t.get(from..).unwrap_or_default().to_string())
    });
    let finished = move || {
        let blocks = layout.with(|l| l.finished.clone());
        let t = text.get_untracked();
        blocks
            .into_iter()
            .map(|block| match block {
                Block::Text(range) => {
                    let part = t.get(range).unwrap_or_default().to_string();
                    view! {
                        <MarkdownBody text=Signal::stored(part) streaming=Signal::stored(false)
                            prefix=sources />
                    }
                    .into_any()
                }
                Block::Image(index) => {
                    let kept = live
                        .record
                        .with_untracked(|r| r.images.get(index).map(|i| i.kept.clone()));
                    kept.map(|kept| view! { <ReplyImage kept=kept index=index /> }.into_any())
                        .unwrap_or_else(|| ().into_any())
                }
            })
            .collect_view()
    };
    view! {
        {finished}
        <MarkdownBody text=tail streaming=streaming prefix=sources />
    }
}

/// One image of a reply.
#[component]
fn ReplyImage(kept: KeptImage, index: usize) -> impl IntoView {
    let i18n = use_i18n();
    let alt = i18n.t_with(Key::ReplyImageAlt, &[("number", &(index + 1).to_string())]);
    let body = match kept {
        KeptImage::Stored { file, .. } => view! { <StoredImage name=file alt=alt /> }.into_any(),
        KeptImage::Inline { mime_type, data } => {
            let src = format!("data:{mime_type};base64,{data}");
            view! { <SafeImage src=src alt=alt class="stored-image__image".to_string() /> }
                .into_any()
        }
        // A record from outside (an import) is checked again before it becomes a link.
        KeptImage::Remote { url } if web_host(&url).is_some() => {
            view! { <RemoteImage url=url /> }.into_any()
        }
        KeptImage::Remote { .. } => lost(LostReason::UnsafeLink),
        KeptImage::Lost { reason } => lost(reason),
    };
    view! { <figure class="reply-image" data-reply-image=index>{body}</figure> }
}

/// Why an image is not shown.
fn lost(reason: LostReason) -> AnyView {
    let i18n = use_i18n();
    view! {
        <div class="stored-image__placeholder" data-lost=reason.code()>
            {i18n.t_with(Key::ReplyImageLost, &[("reason", &i18n.t(lost_key(reason)))])}
        </div>
    }
    .into_any()
}

/// A linked image: never loaded here (the page loads no image from another site); its
/// host is named and the link opens in a new tab, for the user to judge.
#[component]
fn RemoteImage(url: String) -> impl IntoView {
    let i18n = use_i18n();
    let host = web_host(&url).unwrap_or_default();
    view! {
        <div class="stored-image__placeholder reply-image__remote">
            <span>{i18n.t_with(Key::ReplyImageRemote, &[("host", &host)])}</span>
            <a class="button button--secondary button--small" href=url target="_blank"
                rel="noopener noreferrer">
                {tr(Key::ReplyImageOpen)}
            </a>
        </div>
    }
}

fn lost_key(reason: LostReason) -> Key {
    match reason {
        LostReason::Undecodable => Key::ReplyImageUndecodable,
        LostReason::NotAnImage => Key::ReplyImageNotAnImage,
        LostReason::TooLarge => Key::ReplyImageTooLarge,
        LostReason::UnsafeLink => Key::ReplyImageUnsafeLink,
        LostReason::TooMany => Key::ReplyImageTooMany,
        LostReason::NotStored => Key::ReplyImageNotStored,
    }
}
