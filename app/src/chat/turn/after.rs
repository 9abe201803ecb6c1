//! What follows a reply that is done, in the background: the conversation's title
//! (through the title model when the user chose one, else from the text), related
//! questions under the answer (when the user chose a model for them) and the
//! compression of its older turns (when the user chose a compression model and the
//! conversation has grown past the threshold, `hearth_core::chat::compression`).

use hearth_core::chat::compression;
use hearth_core::chat::context_break;
use hearth_core::chat::request::path_view;
use hearth_core::chat::{MessageRecord, MessageStatus};
use leptos::prelude::*;

use super::TurnContext;
use crate::chat::task;

/// Names the conversation from its first exchange, unless it has a name.
pub async fn title(context: TurnContext, conversation_id: &str, question: &str, reply: &str) {
    if !context.list.is_untitled(conversation_id) {
        return;
    }
    let title_model = context
        .prefs
        .value
        .with_untracked(|p| p.title_model.clone());
    let generated = match title_model {
        Some(model) => task::generate_title(context.targets, &model, question, reply).await,
        None => None,
    };
    let Some(title) = generated.or_else(|| hearth_core::chat::title::auto_title(question, reply))
    else {
        return;
    };
    // The user may have renamed it while the title model was thinking.
    if !context.list.is_untitled(conversation_id) {
        return;
    }
    let _ = context.list.set_auto_title(conversation_id, title).await;
}

/// Suggests follow-up questions under the reply `reply_id`, when the user chose a model
/// for them and the reply has an answer.
pub async fn related(context: TurnContext, reply_id: &str, question: &str, answer: &str) {
    let Some(model) = context
        .prefs
        .value
        .with_untracked(|p| p.related_model.clone())
    else {
        return;
    };
    if answer.trim().is_empty() {
        return;
    }
    let related = task::generate_related(context.targets, &model, question, answer).await;
    if related.is_empty() {
        return;
    }
    let mut batch = crate::storage::Batch::new();
    batch.merge(
        crate::storage::MESSAGES,
        reply_id,
        serde_json::json!({ "related": related }),
    );
    if context.store.write(batch).await.is_ok()
        && let Some(live) = context.open.live(reply_id)
    {
        live.record.update(|r| r.related = related);
    }
}

/// Folds the open path's older turns into a summary, when due.
pub async fn compress(context: TurnContext, conversation_id: &str) {
    let Some(model) = context
        .prefs
        .value
        .with_untracked(|p| p.compression_model.clone())
    else {
        return;
    };
    if !context.open.is_open_untracked(conversation_id) {
        return;
    }
    let (breaks, current) = context
        .list
        .find(conversation_id)
        .map(|c| (c.context_breaks, c.compression))
        .unwrap_or_default();
    let messages: Vec<MessageRecord> = context
        .open
        .path_records()
        .into_iter()
        .filter(|m| m.is_user() || m.status == MessageStatus::Done)
        .collect();
    // Only the turns after the last context break are sent, so only they are folded.
    let cleared = context_break::start(messages.iter().map(|m| m.id.as_str()), &breaks);
    let view = path_view(&messages[cleared..]);
    let Some(through) = compression::due(&view, current.as_ref()) else {
        return;
    };
    let Some(summary) =
        task::generate_summary(context.targets, &model, &view, through, current.as_ref()).await
    else {
        return;
    };
    let _ = context.list.set_compression(conversation_id, summary).await;
}
