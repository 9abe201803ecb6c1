//! The calls of a reply whose MCP server asked the user first
//! (`hearth_core::plugin::elicitation`). Such a call waits stored, like an `ask_user`
//! question: the reply ends there and a reload reopens the question. Once the user
//! answered (`crate::chat::Chat::answer_server`), the continuation runs the call again
//! with the replies before the model goes on; the server may finish, fail, or ask again.

use hearth_core::chat::tools::ToolCallStatus;
use hearth_core::plugin::elicitation;
use hearth_core::plugin::selection::Toolset;

use super::TurnContext;
use super::reply::Reply;

/// Whether the last round holds a call answered and ready to run again.
pub(super) fn has_answered(reply: &Reply) -> bool {
    reply.rounds.last().is_some_and(|round| {
        round
            .calls
            .iter()
            .any(|call| elicitation::ready(call).is_some())
    })
}

/// Runs again, one after the other, the calls of the last round the user answered.
pub(super) async fn run_answered(
    context: TurnContext,
    reply: &mut Reply,
    toolset: &Toolset,
    signal: &web_sys::AbortSignal,
) {
    let Some(round) = reply.rounds.len().checked_sub(1) else {
        return;
    };
    for index in 0..reply.rounds[round].calls.len() {
        let mut record = reply.rounds[round].calls[index].clone();
        let Some(replies) = elicitation::ready(&record) else {
            continue;
        };
        match toolset.targets.get(&record.name) {
            _ if signal.aborted() => record.deny(),
            None => record.settle(
                ToolCallStatus::Failed,
                "This tool is no longer offered, so the user's answer was not sent.",
                true,
            ),
            Some(target) => {
                record.status = ToolCallStatus::Running;
                reply.show_call(round, index, &record);
                let args = serde_json::from_str(&record.arguments)
                    .unwrap_or_else(|_| serde_json::json!({}));
                super::tools::execute(context, target, args, Some(replies), signal, &mut record)
                    .await;
                if signal.aborted() && record.status != ToolCallStatus::Done {
                    record.settle(
                        ToolCallStatus::Failed,
                        "The reply was stopped while the call ran; whether it took effect is unknown.",
                        true,
                    );
                }
            }
        }
        reply.rounds[round].calls[index] = record.clone();
        reply.show_call(round, index, &record);
    }
    reply.flush(context.store).await;
}
