//! The chips that show attached files: in the composer (with progress, a remove button,
//! and a warning when images go to a model that cannot see them) and on a sent message
//! (with what the user should know about the text). An image's chip shows its thumbnail
//! (`super::thumbnail`, loaded lazily).

use hearth_core::api::doc_parse::ParseNote;
use hearth_core::attachment::Attachment;
use leptos::prelude::*;

use super::{Draft, DraftState};
use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::ui::icon::{Icon, icon};
use crate::ui::lazy::lazy_view;

/// The chip's leading picture: the thumbnail of an image, else a file icon.
fn chip_icon(id: &str, image: bool) -> AnyView {
    if image {
        lazy_view(
            super::thumbnail::thumbnail(id.to_string()),
            "attachment-chip__thumb attachment-chip__thumb--loading",
        )
        .into_any()
    } else {
        icon(Icon::File).into_any()
    }
}

/// `bytes` for people: B, KB, MB (decimal, one digit). Integer arithmetic: float
/// formatting would add its whole machinery to the critical path.
pub fn size_label(bytes: u64) -> String {
    let tenths = |unit: u64| {
        let tenths = (bytes * 10 + unit / 2) / unit;
        format!("{}.{}", tenths / 10, tenths % 10)
    };
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{} KB", tenths(1_000)),
        _ => format!("{} MB", tenths(1_000_000)),
    }
}

/// The composer's chips.
#[component]
pub fn DraftChips(
    /// The composer's draft.
    draft: Draft,
) -> impl IntoView {
    let i18n = use_i18n();
    let chat = use_chat();
    let unseen = move || draft.has_images() && chat.chosen_sees_images() == Some(false);
    let list_label = match draft.holder() {
        super::Holder::Message => Key::AttachList,
        super::Holder::Workspace => Key::WorkspacesFilesList,
    };
    view! {
        <Show when=unseen>
            <p class="attachment-warning" id="attachment-no-vision" role="status">
                {icon(Icon::Info)}
                <span>{tr(Key::AttachNoVision)}</span>
            </p>
        </Show>
        <Show when=move || draft.has_files()>
            <ul class="attachment-chips" aria-label=tr(list_label)>
                <For each=move || draft.files() key=|file| (file.id.clone(), matches!(file.state, DraftState::Ready(_)), matches!(file.state, DraftState::Parsing)) let:file>
                    {
                        let id = file.id.clone();
                        let marker = id.clone();
                        let busy = !matches!(file.state, DraftState::Ready(_));
                        let image = matches!(&file.state, DraftState::Ready(a) if a.is_image());
                        let status = match &file.state {
                            DraftState::Reading => i18n.t(Key::AttachReading),
                            DraftState::Parsing => i18n.t(Key::AttachParsing),
                            DraftState::Ready(_) => size_label(file.size),
                        };
                        let label = i18n.t_with(Key::AttachRemove, &[("name", &file.name)]);
                        view! {
                            <li class="attachment-chip" class:attachment-chip--busy=busy aria-busy=busy.to_string() data-attachment=marker.clone()>
                                <span class="attachment-chip__icon">{chip_icon(&marker, image)}</span>
                                <span class="attachment-chip__name" title=file.name.clone()>{file.name.clone()}</span>
                                <span class="attachment-chip__status" role="status">{status}</span>
                                <button
                                    type="button"
                                    class="icon-button attachment-chip__remove"
                                    aria-label=label.clone()
                                    title=label
                                    on:click=move |_| draft.remove(&id)
                                >
                                    {icon(Icon::Close)}
                                </button>
                            </li>
                        }
                    }
                </For>
            </ul>
        </Show>
    }
}

/// A sent message's files.
#[component]
pub fn MessageChips(
    /// The message's files.
    attachments: Vec<Attachment>,
) -> impl IntoView {
    let i18n = use_i18n();
    (!attachments.is_empty()).then(|| {
        view! {
            <ul class="attachment-chips attachment-chips--message" aria-label=tr(Key::AttachList)>
                {attachments
                    .into_iter()
                    .map(|attachment| {
                        let notes: Vec<String> = attachment
                            .notes
                            .iter()
                            .map(|note| match note {
                                ParseNote::Truncated { .. } => i18n.t(Key::AttachCut),
                                ParseNote::PagesWithoutText { .. } => i18n.t(Key::AttachScanned),
                                ParseNote::Skipped { what } => what.clone(),
                            })
                            .collect();
                        let has_notes = !notes.is_empty();
                        view! {
                            <li class="attachment-chip" data-attachment=attachment.id.clone() data-kind=attachment.kind.as_str()>
                                <span class="attachment-chip__icon">{chip_icon(&attachment.id, attachment.is_image())}</span>
                                <span class="attachment-chip__name" title=attachment.name.clone()>{attachment.name.clone()}</span>
                                <span class="attachment-chip__status">{size_label(attachment.size)}</span>
                                {has_notes.then(|| view! {
                                    <span class="attachment-chip__note" title=notes.join(" ")>
                                        {icon(Icon::Info)}
                                        <span class="visually-hidden">{notes.join(" ")}</span>
                                    </span>
                                })}
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
    })
}
