//! The attached images a turn's request carries, for a model that sees them: the bytes
//! kept in the browser's file store (already scaled down when they were attached),
//! the question's first and then the earlier messages', newest first, at most
//! `MAX_IMAGES_PER_REQUEST`. An image that cannot be read is left to the request
//! builder, which names it in text. Read in this module's own lazily loaded chunk.

use std::collections::BTreeMap;

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

/// The bytes of the images `turn` carries, by attachment id.
pub async fn load(turn: &TurnRequest) -> BTreeMap<String, InlineImage> {
    let wanted = wanted(turn);
    if wanted.is_empty() {
        return BTreeMap::new();
    }
    read_all(wanted).await
}

#[lazy]
async fn read_all(wanted: Vec<(String, &'static str)>) -> BTreeMap<String, InlineImage> {
    use base64::Engine as _;
    let mut out = BTreeMap::new();
    for (id, mime) in wanted {
        if let Ok(bytes) = files::read(ATTACHMENTS, &id).await {
            let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
            out.insert(
                id,
                InlineImage {
                    mime_type: mime.to_string(),
                    data,
                },
            );
        }
    }
    out
}
