//! A merged reply's context: the compared answers it was asked to combine
//! (`hearth_core::chat::compare`), read from the open conversation, given to the model
//! as data in the planner's answers band, with the merge instruction after the system
//! prompt.

use hearth_core::chat::compare::{self, Answer};
use hearth_core::chat::{GenerationError, MessageRecord};
use hearth_core::context::Band;
use leptos::prelude::*;

use super::TurnContext;
use super::prepare::Prepared;

/// Adds the answers the reply `record` merges, when it is a merge; an error when fewer
/// than two of them still have text (deleted since, say).
pub fn apply(
    context: TurnContext,
    prepared: &mut Prepared,
    record: &MessageRecord,
) -> Result<(), GenerationError> {
    if record.merged_from.is_empty() {
        return Ok(());
    }
    let answers: Vec<(String, String, String)> = record
        .merged_from
        .iter()
        .filter_map(|id| context.open.live(id))
        .map(|live| {
            let model = live
                .record
                .with_untracked(|r| r.model.clone().unwrap_or_default());
            (live.id(), model, live.content.get_untracked())
        })
        .collect();
    let borrowed: Vec<Answer<'_>> = answers
        .iter()
        .map(|(id, model, text)| Answer { id, model, text })
        .collect();
    let kept = compare::mergeable(&borrowed)
        .map_err(|error| GenerationError::invalid_request(&error.to_string()))?;
    prepared
        .turn
        .context
        .push((Band::Answers, compare::merge_items(&kept)));
    prepared.turn.system = Some(compare::merge_system(prepared.turn.system.take()));
    Ok(())
}
