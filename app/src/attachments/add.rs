//! Adding files to the draft, in its own lazily loaded chunk: the count limit, a chip
//! per file while it is read (`super::read`) or copied (a file an earlier message
//! carries, chosen with `@`), and each refusal as a toast in the user's language.

use hearth_core::attachment::{AttachError, Attachment, MAX_IMAGE_SEND_BYTES, check_reuse};
use hearth_core::image_header::MAX_IMAGE_PIXELS;
use leptos::prelude::*;

use super::read::{self, ReadFor, Source};
use super::{Draft, DraftFile, DraftState};
use crate::i18n::Key;
use crate::ui::toast::ToastKind;

/// Adds `files` to `draft`, in order.
#[lazy]
pub async fn add_files(draft: Draft, files: Vec<web_sys::File>) {
    for file in files {
        add(draft, file);
    }
}

/// Adds one file: a chip at once, then its reading.
fn add(draft: Draft, file: web_sys::File) {
    let name = file.name();
    let max = draft.holder.bounds().max_files;
    if draft.files.with_untracked(Vec::len) >= max {
        let too_many = AttachError::TooMany { max };
        refuse(draft, too_many.code(), &name, Some(&max.to_string()));
        return;
    }
    let id = crate::files::new_name("att").replace(".att", "");
    let held: Vec<u64> = draft
        .files
        .with_untracked(|files| files.iter().map(|f| f.size).collect());
    let size = file.size() as u64;
    draft.files.update(|files| {
        files.push(DraftFile {
            id: id.clone(),
            name: name.clone(),
            size,
            state: DraftState::Reading,
        });
    });
    leptos::task::spawn_local(async move {
        let outcome = read::prepare(
            ReadFor::Draft(draft),
            Source::Chosen(file),
            id.clone(),
            held,
        )
        .await;
        match outcome {
            Ok(attachment) => draft.set_state(&id, DraftState::Ready(attachment)),
            Err(refusal) => {
                let was_wanted = draft.contains(&id);
                draft.files.try_update(|files| files.retain(|f| f.id != id));
                if was_wanted {
                    refuse(draft, &refusal.code, &name, refusal.detail.as_deref());
                }
            }
        }
    });
}

/// Adds a copy of `attachment`, a file an earlier message of this chat carries: its
/// stored original, text and thumbnail copied under a new id, so that the draft and that
/// message each own theirs (removing one never takes the other's bytes). The count and
/// total limits apply; its text was read when it was first attached.
#[lazy]
pub async fn add_copy(draft: Draft, attachment: Attachment) {
    let name = attachment.name.clone();
    let held: Vec<u64> = draft
        .files
        .with_untracked(|files| files.iter().map(|f| f.size).collect());
    if let Err(error) = check_reuse(&held, attachment.size) {
        let refusal = read::Refusal::from(error);
        refuse(draft, &refusal.code, &name, refusal.detail.as_deref());
        return;
    }
    let id = crate::files::new_name("att").replace(".att", "");
    draft.files.update(|files| {
        files.push(DraftFile {
            id: id.clone(),
            name: name.clone(),
            size: attachment.size,
            state: DraftState::Reading,
        });
    });
    let copied = read::copy(&attachment.id, &id).await;
    let wanted = draft.contains(&id);
    match copied {
        Ok(()) if wanted => draft.set_state(
            &id,
            DraftState::Ready(Attachment {
                id: id.clone(),
                ..attachment
            }),
        ),
        // Removed while it was copied: the copy goes.
        Ok(()) => read::forget(draft.holder.folder(), id).await,
        Err(refusal) => {
            draft.files.update(|files| files.retain(|f| f.id != id));
            if wanted {
                refuse(draft, &refusal.code, &name, refusal.detail.as_deref());
            }
        }
    }
}

/// Shows why a file was not added.
fn refuse(draft: Draft, code: &str, name: &str, detail: Option<&str>) {
    draft.toasts.show(
        ToastKind::Error,
        refusal_text(draft.i18n, code, name, detail),
    );
}

/// Why the file `name` was not read (a refusal's `code` and `detail`: a limit's number
/// for a count, bytes for a size), in the user's language.
pub fn refusal_text(
    i18n: crate::i18n::I18n,
    code: &str,
    name: &str,
    detail: Option<&str>,
) -> String {
    let max = |bytes: u64| super::chips::size_label(bytes);
    let limit = || detail.and_then(|d| d.parse::<u64>().ok()).unwrap_or(0);
    let (key, values): (Key, Vec<(&str, String)>) = match code {
        "attach_too_many" => (Key::AttachTooMany, vec![("max", limit().to_string())]),
        "attach_too_large" => (Key::AttachTooLarge, vec![("max", max(limit()))]),
        "attach_total_too_large" => (Key::AttachTotalTooLarge, vec![("max", max(limit()))]),
        "attach_image_not_taken" => (Key::AttachImageNotTaken, vec![]),
        "attach_unknown_type" | "file_type_unknown" | "parse_unsupported" => {
            (Key::AttachUnknownType, vec![])
        }
        "attach_no_parser" => (Key::AttachNoParser, vec![]),
        "attach_empty" => (Key::AttachEmpty, vec![]),
        "attach_image_unreadable" => (Key::AttachImageUnreadable, vec![]),
        "attach_image_too_many_pixels" => (
            Key::AttachImageTooManyPixels,
            vec![("max", (MAX_IMAGE_PIXELS / 1_000_000).to_string())],
        ),
        "attach_image_too_detailed" => (
            Key::AttachImageTooDetailed,
            vec![("max", max(MAX_IMAGE_SEND_BYTES))],
        ),
        "attach_storage_full" => (Key::AttachStorageFull, vec![]),
        "parse_no_text_layer" => (Key::AttachNoText, vec![]),
        "parse_timeout" => (Key::AttachTimeout, vec![]),
        "attach_unreachable" => (Key::AttachUnreachable, vec![]),
        "attach_offline" => (Key::AttachOffline, vec![]),
        "parse_no_key" => (Key::ParseRefusedNoKey, vec![]),
        "parse_no_deployment_key" => (Key::ParseRefusedNoDeploymentKey, vec![]),
        "parse_no_sealing" => (Key::ParseRefusedNoSealing, vec![]),
        _ => (
            Key::AttachFailed,
            vec![("reason", detail.unwrap_or(code).to_string())],
        ),
    };
    let mut values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    values.push(("name", name));
    i18n.t_with(key, &values)
}
