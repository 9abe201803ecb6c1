//! Running replies under this tab's claim on their conversation: one reply, or the
//! replies of a comparison side by side (a run each); once all have ended the claim is
//! let go and the next queued message is sent.

use hearth_core::chat::compare;
use hearth_core::chat::{MessageRecord, RunOutcome};
use leptos::prelude::*;

use super::Chat;
use super::live::LiveMessage;
use super::tabs::ReplyLock;
use super::turn::{self, Mode};

impl Chat {
    /// Runs the reply `reply_id` under this tab's claim `lock`, then lets go of it and
    /// sends the next queued message.
    pub(super) fn start_reply(
        &self,
        conversation_id: String,
        reply_id: &str,
        mode: Mode,
        lock: ReplyLock,
    ) {
        let Some(live) = self.open.live(reply_id) else {
            return;
        };
        let chat = *self;
        self.store.spawn(async move {
            let outcome = run_reply(chat, conversation_id.clone(), live, mode).await;
            lock.release().await;
            chat.after_runs(&conversation_id, outcome);
        });
    }

    /// Claims `conversation_id`, stores `reply` as a sibling of message `of` (the active
    /// one from now on) and runs it.
    pub(super) async fn run_sibling(
        &self,
        conversation_id: String,
        of: String,
        reply: MessageRecord,
    ) {
        let Some(lock) = self.claim(&conversation_id).await else {
            return;
        };
        let new_id = reply.id.clone();
        let inserted = self
            .open
            .insert(&conversation_id, vec![reply], |tree| {
                tree.add_sibling(&of, &new_id)
            })
            .await
            .is_ok();
        if inserted {
            self.start_reply(conversation_id, &new_id, Mode::Fresh, lock);
        }
    }

    /// Sends the message queued behind `conversation_id`'s reply (or replies, side by
    /// side) once they ended with `outcome`, if it is still open.
    pub(super) fn after_runs(&self, conversation_id: &str, outcome: RunOutcome) {
        if let Some(message) = self.runs.next_queued(conversation_id, outcome)
            && self.open.is_open_untracked(conversation_id)
        {
            self.send(message.text, message.attachments);
        }
    }

    /// Runs the replies `ids` of `conversation_id` side by side under this tab's claim
    /// `lock`; once all have ended, lets go of it and sends the next queued message.
    pub(super) fn start_replies(&self, conversation_id: String, ids: &[String], lock: ReplyLock) {
        if let [id] = ids {
            return self.start_reply(conversation_id, id, Mode::Fresh, lock);
        }
        let lives: Vec<LiveMessage> = ids.iter().filter_map(|id| self.open.live(id)).collect();
        let chat = *self;
        self.store.spawn(async move {
            let runs = lives
                .into_iter()
                .map(|live| run_reply(chat, conversation_id.clone(), live, Mode::Fresh));
            let outcomes = futures::future::join_all(runs).await;
            lock.release().await;
            chat.after_runs(&conversation_id, compare::together(&outcomes));
        });
    }
}

/// Runs a reply: the whole pipeline (planning, streaming, tools) is in its own lazily
/// loaded wasm chunk, which the first page load does not need, whichever action starts it.
#[lazy]
async fn run_reply(
    chat: Chat,
    conversation_id: String,
    live: LiveMessage,
    mode: Mode,
) -> RunOutcome {
    turn::run(chat.turn, conversation_id, live, mode).await
}
