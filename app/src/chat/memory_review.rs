//! The user's answer to a memory the model proposed in a reply: saved (as proposed or as
//! the user edited it) into the memory book, or dismissed. The reply's record keeps where
//! each proposal stands, so a reload or another tab shows the same.

use leptos::prelude::*;
use serde_json::json;

use super::Chat;
use crate::memory::{Answer, MemoryStoreError, Op, run};
use crate::storage::{Batch, MESSAGES};

/// What the user decided about a proposal.
#[derive(Debug, Clone, PartialEq)]
pub enum Review {
    /// Keep it, with this content when the user edited it.
    Save(Option<String>),
    /// Do not keep it.
    Dismiss,
}

impl Chat {
    /// Answers proposal `proposal_id` of reply `message_id` with `review`. A refused
    /// save (a repeat, a full book) leaves the proposal waiting.
    pub async fn review_memory(
        &self,
        message_id: &str,
        proposal_id: &str,
        review: Review,
    ) -> Result<(), MemoryStoreError> {
        let Some(live) = self.open.live(message_id) else {
            return Ok(());
        };
        let op = Op::Review {
            memory: live.record.with_untracked(|r| r.memory.clone()),
            id: proposal_id.to_string(),
            save: match review {
                Review::Save(edited) => Some(edited),
                Review::Dismiss => None,
            },
        };
        let Answer::Reviewed(memory) = run(op).await? else {
            return Ok(());
        };
        live.record.update(|r| r.memory = memory.clone());
        let mut batch = Batch::new();
        batch.merge(
            MESSAGES,
            message_id,
            json!({"memory": memory, "updatedAt": crate::browser::now()}),
        );
        // The memory is kept either way; the record shows the answer on the next read.
        let _ = self.store.write(batch).await;
        Ok(())
    }
}
