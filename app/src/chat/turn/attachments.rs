//! The attachments phase: the text of the files on the question and on the earlier
//! messages the request carries, then of the conversation's workspace's files, cut into
//! passages on their structure (`hearth_core::chat::attachment_context`), for the
//! planner's attachments band. The question's files come first, then earlier ones,
//! newest first, then the workspace's in their order. Images have no text:
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
use crate::files::{self, ATTACHMENTS, WORKSPACE_FILES};

/// The producer, with the files of the conversation's workspace.
pub struct Attachments {
    /// The workspace's files (documents only).
    pub workspace_files: Vec<Attachment>,
}

impl Attachments {
    /// The files with text a turn carries, the question's first, then the workspace's,
    /// each with the folder its text is stored in.
    fn carried(&self, turn: &TurnRequest) -> Vec<(Attachment, &'static str)> {
        std::iter::once(&turn.history.newest)
            .chain(turn.history.earlier.iter().rev())
            .flat_map(|message| &message.attachments)
            .filter(|attachment| !attachment.is_image())
            .map(|attachment| (attachment.clone(), ATTACHMENTS))
            .chain(
                self.workspace_files
                    .iter()
                    .map(|file| (file.clone(), WORKSPACE_FILES)),
            )
            .collect()
    }
}

impl PhaseProducer for Attachments {
    fn phase(&self) -> Phase {
        Phase::Attachments
    }

    fn band(&self) -> Band {
        Band::Attachments
    }

    fn applies(&self, turn: &TurnRequest) -> bool {
        !self.carried(turn).is_empty()
    }

    fn produce<'a>(
        &'a self,
        turn: &'a TurnRequest,
        _signal: &'a web_sys::AbortSignal,
    ) -> LocalBoxFuture<'a, Result<Vec<ContextItem>, GenerationError>> {
        Box::pin(passages(self.carried(turn)))
    }
}

/// The passages of `attachments`; a file whose text is gone from this browser is named
/// as missing rather than left out unseen.
#[lazy]
async fn passages(
    attachments: Vec<(Attachment, &'static str)>,
) -> Result<Vec<ContextItem>, GenerationError> {
    let mut items = Vec::new();
    for (attachment, folder) in &attachments {
        let name = files::attachment_text_name(&attachment.id);
        match files::read(folder, &name).await {
            Ok(bytes) => items.extend(context_items(attachment, &String::from_utf8_lossy(&bytes))),
            Err(_) => items.push(missing_item(attachment)),
        }
    }
    Ok(items)
}
