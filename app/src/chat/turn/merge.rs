//! A merged reply's context: the compared answers it was asked to combine
//! (`hearth_core::chat::compare`), read from the open conversation, given to the model
//! as data in the planner's answers band, with the merge instruction after the system
//! prompt.

use hearth_core::chat::compare;
use hearth_core::chat::{GenerationError, MessageRecord};
use hearth_core::context::Band;

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
    // Those no longer here (deleted since) are left out.
    let replies: Vec<_> = (record.merged_from.iter())
        .filter_map(|id| context.open.live(id))
        .collect();
    let kept = crate::chat::live::with_answers(&replies, |all| {
        compare::mergeable(all).map(|kept| compare::merge_items(&kept))
    })
    .map_err(|error| GenerationError::invalid_request(&error.to_string()))?;
    prepared.turn.context.push((Band::Answers, kept));
    prepared.turn.system = Some(compare::merge_system(prepared.turn.system.take()));
    Ok(())
}
