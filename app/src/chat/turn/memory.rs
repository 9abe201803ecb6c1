//! What a reply takes from memory (`crate::memory`): with memory on (everywhere, and in
//! this conversation) the memories the question is about join the system prompt as
//! quoted data after the skills and are recorded on the reply, and (when the user let
//! it) the model is offered the internal `propose_memory` tool; a proposal it makes
//! waits on the reply for the user (`crate::conversation::memory`), or is kept at once
//! when the user turned auto-record on. A book that cannot be read is said in a toast
//! and the answer goes ahead without it.

use hearth_core::chat::MessageRecord;
use hearth_core::chat::tools::{ToolCallRecord, ToolCallStatus};
use serde_json::{Value, json};

use super::TurnContext;
use super::prepare::Prepared;
use super::reply::Reply;
use crate::memory::{Answer, Op, error_text, run};
use crate::ui::toast::ToastKind;

/// What memory does for one reply.
#[derive(Debug, Clone, Default)]
pub(super) struct MemoryTurn {
    /// The reply's `memory` record (the memories its request carries).
    pub memory: Option<String>,
    /// Whether the model may propose memories.
    pub propose: bool,
}

/// Adds the memories the question is about to `prepared`'s system prompt.
pub(super) async fn apply(
    context: TurnContext,
    prepared: &mut Prepared,
    record: &MessageRecord,
) -> MemoryTurn {
    let off_here = context
        .list
        .find(&record.conversation_id)
        .is_some_and(|c| c.memory_off);
    if off_here {
        return MemoryTurn::default();
    }
    let op = Op::Recall {
        system: prepared.turn.system.clone(),
        question: prepared.turn.history.newest.content.clone(),
    };
    match run(op).await {
        Ok(Answer::Recalled {
            system,
            memory,
            propose,
        }) => {
            prepared.turn.system = system;
            MemoryTurn { memory, propose }
        }
        Ok(_) => MemoryTurn::default(),
        Err(error) => {
            // Said, not swallowed: this answer goes ahead without memory.
            context
                .toasts
                .show(ToastKind::Error, error_text(&error, context.i18n));
            MemoryTurn::default()
        }
    }
}

/// Runs a `propose_memory` call: the proposal joins the reply (or, with auto-record on,
/// the book too), and `record` is settled with what the model reads.
pub(super) async fn propose(reply: &Reply, arguments: &Value, record: &mut ToolCallRecord) {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    match run(Op::Propose(arguments, record.id.clone())).await {
        Ok(Answer::Proposed(Some(proposal), result)) => {
            reply.change_memory(|memory| Some(with_proposal(memory, proposal)));
            record.settle(ToolCallStatus::Done, result, false);
        }
        Ok(Answer::Proposed(None, reason)) => record.settle(ToolCallStatus::Done, reason, true),
        Ok(_) => record.settle(ToolCallStatus::Failed, "", true),
        Err(error) => record.settle(
            ToolCallStatus::Failed,
            format!("The memory could not be proposed: {error:?}"),
            true,
        ),
    }
}

/// `memory` (a reply's record, or none) with `proposal` added.
fn with_proposal(memory: Option<String>, proposal: Value) -> String {
    let mut memory = match memory.and_then(|text| serde_json::from_str(&text).ok()) {
        Some(Value::Object(map)) => Value::Object(map),
        _ => json!({}),
    };
    match memory["proposals"].as_array_mut() {
        Some(list) => list.push(proposal),
        None => memory["proposals"] = json!([proposal]),
    }
    memory.to_string()
}
