//! What a reply's rounds share, gathered once before the first: the model's provider,
//! key and capabilities, the user's system prompt, and the question with the history the
//! request may carry (`hearth_core::chat::request`: from the conversation's last context
//! break on, with its compression summary standing in for older turns).

use hearth_core::chat::request::{TurnRequest, turn_history};
use hearth_core::chat::{GenerationError, MessageRecord};
use hearth_core::preferences::ModelRef;
use leptos::prelude::*;

use super::{Mode, TurnContext};
use crate::chat::target::Target;

/// A reply ready for its first round.
pub struct Prepared {
    /// Where its calls go.
    pub target: Target,
    /// What its rounds are planned from (phase producers add their context to it).
    pub turn: TurnRequest,
}

/// Prepares the reply `reply` (its record as the run starts).
pub async fn prepare(
    context: TurnContext,
    reply: &MessageRecord,
    mode: Mode,
) -> Result<Prepared, GenerationError> {
    let model = ModelRef {
        provider_id: reply.provider_id.clone().unwrap_or_default(),
        model: reply.model.clone().unwrap_or_default(),
    };
    let target = context.targets.resolve(&model).await?;
    let conversation = context.list.find(&reply.conversation_id);
    let (breaks, compression) = conversation
        .map(|c| (c.context_breaks, c.compression))
        .unwrap_or_default();
    let history = turn_history(
        &context.open.records_to(&reply.id),
        &reply.id,
        &breaks,
        compression.as_ref(),
    )
    .map_err(|_| GenerationError::no_messages())?;
    let turn = TurnRequest {
        model: model.model,
        capabilities: target.capabilities,
        system: context.prefs.value.with_untracked(|p| p.system_prompt()),
        history,
        // Nothing written yet (a reply that stopped between tool rounds): nothing to
        // continue, the next round simply follows the rounds.
        continuation: (mode == Mode::Continue && !reply.content.is_empty())
            .then(|| reply.content.clone()),
        context: Vec::new(),
        images: Default::default(),
        missing_images: Default::default(),
    };
    Ok(Prepared { target, turn })
}
