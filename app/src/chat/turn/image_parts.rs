//! The attached images a turn's request carries, for a model that sees them: the bytes
//! kept in the browser's file store (already scaled down when they were attached),
//! the question's first and then the earlier messages', newest first, at most
//! `MAX_IMAGES_PER_REQUEST`. An image that cannot be read is reported as missing; the
//! request builder names it in text and the reply names it to the user. Read in this module's own lazily loaded chunk.

use std::collections::{BTreeMap, BTreeSet};

use hearth_core::attachment::MAX_IMAGES_PER_REQUEST;
use hearth_core::chat::request::{InlineImage, TurnRequest};
use leptos::prelude::*;

use crate::files::{self, ATTACHMENTS};

/// The ids, kinds and order of the images `turn` may carry.
fn wanted(turn: &TurnRequest) -> Vec<(String, &'static str)> {
    std::iter::once(&turn.history.newest)
        .chain(turn.history.earlier.iter().rev())
        .flat_map(|message| &message.attachments)
        .filter(|attachment| attachment.is_image())
        .take(MAX_IMAGES_PER_REQUEST)
        .map(|attachment| (attachment.id.clone(), attachment.kind.mime()))
        .collect()
}

/// The bytes of the images `turn` carries, by attachment id, and the ids of those no
/// longer stored.
pub async fn load(turn: &TurnRequest) -> Loaded {
    let wanted = wanted(turn);
    if wanted.is_empty() {
        return Loaded::default();
    }
    read_all(wanted).await
}

/// What [`load`] found.
#[derive(Default)]
pub struct Loaded {
    /// The images read, by attachment id.
    pub images: BTreeMap<String, InlineImage>,
    /// The images that are not stored (any other failure to read counts too).
    pub missing: BTreeSet<String>,
}

#[lazy]
async fn read_all(wanted: Vec<(String, &'static str)>) -> Loaded {
    use base64::Engine as _;
    let mut out = Loaded::default();
    for (id, mime) in wanted {
        match files::read(ATTACHMENTS, &id).await {
            Ok(bytes) => {
                let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
                out.images.insert(
                    id,
                    InlineImage {
                        mime_type: mime.to_string(),
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
