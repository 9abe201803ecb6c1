//! The images a turn's request carries, for a model that sees them: the attached ones (kept
//! in the browser's file store, already scaled down when they were attached) and, where
//! the protocol's answers carry images, those a model sent in an earlier answer (kept in
//! `images/`); the question's first and then the earlier messages', newest first, at most
//! `MAX_IMAGES_PER_REQUEST`. An image that cannot be read is reported as missing; the
//! request builder names it in text and the reply names it to the user. Read in this
//! module's own lazily loaded chunk.

use std::collections::{BTreeMap, BTreeSet};

use hearth_core::attachment::MAX_IMAGES_PER_REQUEST;
use hearth_core::chat::output_image::KeptImage;
use hearth_core::chat::request::{InlineImage, TurnRequest};
use leptos::prelude::*;

use crate::files::{self, ATTACHMENTS, IMAGES};

/// One image to read: its file store directory, its key (the attachment's id, or the
/// stored file's name) and its type.
type Wanted = (&'static str, String, String);

/// The images `turn` may carry, in order; those a model sent only when `answers` (the
/// protocol's answers carry images).
fn wanted(turn: &TurnRequest, answers: bool) -> Vec<Wanted> {
    std::iter::once(&turn.history.newest)
        .chain(turn.history.earlier.iter().rev())
        .flat_map(|message| {
            let attached = message
                .attachments
                .iter()
                .filter(|attachment| attachment.is_image())
                .map(|attachment| {
                    (
                        ATTACHMENTS,
                        attachment.id.clone(),
                        attachment.kind.mime().to_string(),
                    )
                });
            let sent = message
                .images
                .iter()
                .filter(move |_| answers)
                .filter_map(|image| match &image.kept {
                    KeptImage::Stored { file, mime_type } => {
                        Some((IMAGES, file.clone(), mime_type.clone()))
                    }
                    _ => None,
                });
            attached.chain(sent)
        })
        .take(MAX_IMAGES_PER_REQUEST)
        .collect()
}

/// The bytes of the images `turn` carries, by key, and the keys of those no longer
/// stored. `answers`: the protocol's answers carry the images a model sent.
pub async fn load(turn: &TurnRequest, answers: bool) -> Loaded {
    let wanted = wanted(turn, answers);
    if wanted.is_empty() {
        return Loaded::default();
    }
    read_all(wanted).await
}

/// What [`load`] found.
#[derive(Default)]
pub struct Loaded {
    /// The images read, by key.
    pub images: BTreeMap<String, InlineImage>,
    /// The images that are not stored (any other failure to read counts too).
    pub missing: BTreeSet<String>,
}

#[lazy]
async fn read_all(wanted: Vec<Wanted>) -> Loaded {
    use base64::Engine as _;
    let mut out = Loaded::default();
    for (dir, id, mime) in wanted {
        match files::read(dir, &id).await {
            Ok(bytes) => {
                let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
                out.images.insert(
                    id,
                    InlineImage {
                        mime_type: mime,
                        data,
                    },
                );
            }
            Err(_) => {
                out.missing.insert(id);
            }
        }
    }
    out
}
