//! The attachments phase: the text of the files on the question and on the earlier
//! messages the request carries, cut into passages on their structure
//! (`hearth_core::chat::attachment_context`), for the planner's attachments band. The
//! question's files come first, then earlier ones, newest first. Images have no text:
//! they travel as themselves (`super::image_parts`). The texts are read from the browser's
//! file store in this phase's own lazily loaded chunk.

use futures::future::LocalBoxFuture;
use hearth_core::attachment::Attachment;
use hearth_core::chat::attachment_context::{context_items, missing_item};
use hearth_core::chat::request::{ContextItem, TurnRequest};
use hearth_core::chat::{GenerationError, Phase};
use hearth_core::context::Band;
use leptos::prelude::*;

use super::producer::PhaseProducer;
use crate::files::{self, ATTACHMENTS};

/// The producer.
pub struct Attachments;

/// The files with text a turn carries, the question's first.
fn carried(turn: &TurnRequest) -> Vec<Attachment> {
    std::iter::once(&turn.history.newest)
        .chain(turn.history.earlier.iter().rev())
        .flat_map(|message| &message.attachments)
        .filter(|attachment| !attachment.is_image())
        .cloned()
        .collect()
}

impl PhaseProducer for Attachments {
    fn phase(&self) -> Phase {
        Phase::Attachments
    }

    fn band(&self) -> Band {
        Band::Attachments
    }

    fn applies(&self, turn: &TurnRequest) -> bool {
        !carried(turn).is_empty()
    }

    fn produce<'a>(
        &'a self,
        turn: &'a TurnRequest,
        _signal: &'a web_sys::AbortSignal,
    ) -> LocalBoxFuture<'a, Result<Vec<ContextItem>, GenerationError>> {
        Box::pin(passages(carried(turn)))
    }
}

/// The passages of `attachments`; a file whose text is gone from this browser is named
/// as missing rather than left out unseen.
#[lazy]
async fn passages(attachments: Vec<Attachment>) -> Result<Vec<ContextItem>, GenerationError> {
    let mut items = Vec::new();
    for attachment in &attachments {
        let name = files::attachment_text_name(&attachment.id);
        match files::read(ATTACHMENTS, &name).await {
            Ok(bytes) => items.extend(context_items(attachment, &String::from_utf8_lossy(&bytes))),
            Err(_) => items.push(missing_item(attachment)),
        }
    }
    Ok(items)
}
