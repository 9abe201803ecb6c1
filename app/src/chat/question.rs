//! The user's answer to a question the model asked (`hearth_core::ask_user`), or one an
//! MCP server asked in the middle of a tool call (`hearth_core::plugin::elicitation`):
//! the waiting call is settled with the answers (or as declined), or for a server made
//! ready to run again with the replies, and the reply goes on from there with its tools,
//! in this tab. The same path serves a question asked minutes ago in this page and one
//! found waiting after a reload.
//!
//! Only a complete answer is taken (checked before anything is claimed, and again once
//! the conversation is claimed, so a question another tab answered in between is not
//! answered twice).

use hearth_core::ask_user::{self, Answer, AnswerError};
use hearth_core::chat::MessageStatus;
use hearth_core::chat::tools::{ToolCallRecord, ToolCallStatus};
use hearth_core::plugin::elicitation::{self, answer::Reply};
use leptos::prelude::*;

use super::Chat;
use super::turn::Mode;

/// Where a waiting question is: its reply, round and place in the round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionAt {
    /// The reply that asked.
    pub reply_id: String,
    /// Its round.
    pub round: usize,
    /// The call's place in the round.
    pub index: usize,
}

impl Chat {
    /// Answers the question at `at` with `answers` (`None`: the user declined) and sends
    /// the reply on. An incomplete answer is refused (nothing changes); a question no
    /// longer waiting, or a conversation busy writing, is left alone.
    pub fn answer_question(
        &self,
        at: QuestionAt,
        answers: Option<Vec<Answer>>,
    ) -> Result<(), AnswerError> {
        self.go_on_from(at, move |call| ask_user::settle(call, answers.as_deref()))
    }

    /// Answers the questions an MCP server asked at `at` with `replies` (one per
    /// question: accepted with a form's values, declined or dismissed) and sends the
    /// reply on, which calls the tool again with them. Refused like
    /// [`Chat::answer_question`].
    pub fn answer_server(
        &self,
        at: QuestionAt,
        replies: Vec<Reply>,
    ) -> Result<(), elicitation::answer::AnswerError> {
        self.go_on_from(at, move |call| {
            elicitation::take_replies(call, replies.clone())
        })
    }

    /// Applies `settle` to the call waiting at `at` and sends the reply on; `settle`'s
    /// refusal changes nothing.
    fn go_on_from<E: 'static>(
        &self,
        at: QuestionAt,
        settle: impl Fn(&mut ToolCallRecord) -> Result<(), E> + 'static,
    ) -> Result<(), E> {
        let Some(conversation_id) = self.open.current_untracked() else {
            return Ok(());
        };
        let Some(live) = self.open.live(&at.reply_id) else {
            return Ok(());
        };
        let (round, index) = (at.round, at.index);
        let settled = move || {
            let mut call = live.record.with_untracked(|r| {
                r.tool_rounds
                    .get(round)
                    .and_then(|calls| calls.calls.get(index))
                    .filter(|call| call.status == ToolCallStatus::AwaitingAnswer)
                    .cloned()
            })?;
            Some(settle(&mut call).map(|()| call))
        };
        match settled() {
            None => return Ok(()),
            Some(Err(refused)) => return Err(refused),
            Some(Ok(_)) => {}
        }
        if self.busy(&conversation_id) {
            self.say_elsewhere();
            return Ok(());
        }
        let chat = *self;
        self.store.spawn(async move {
            let Some(lock) = chat.claim(&conversation_id).await else {
                return;
            };
            // Answered in another tab meanwhile: nothing to do.
            let Some(Ok(call)) = settled() else {
                return;
            };
            live.record.update(|r| {
                if let Some(slot) = r
                    .tool_rounds
                    .get_mut(round)
                    .and_then(|calls| calls.calls.get_mut(index))
                {
                    *slot = call;
                }
                r.status = MessageStatus::Streaming;
                r.generation_error = None;
            });
            chat.start_reply(conversation_id, &at.reply_id, Mode::Continue, lock);
        });
        Ok(())
    }
}
