//! Messages sent while a reply streams. They wait in a visible queue: editable,
//! removable, excluded from the running request, and sent one at a time when a reply
//! completes. Stopping a reply or a failed reply leaves the queue alone — the user
//! decides what happens next — and a superseded run drains nothing.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

/// The most messages that may wait.
pub const MAX_QUEUED: usize = 20;

/// A message waiting to be sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueuedMessage {
    /// Its id.
    pub id: String,
    /// Its text.
    pub text: String,
    /// The files it carries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<crate::attachment::Attachment>,
}

/// How the running reply ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// It completed.
    Completed,
    /// The user stopped it.
    Stopped,
    /// It failed.
    Failed,
    /// Another run replaced it.
    Superseded,
}

/// A change the queue refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueueError {
    /// The queue holds [`MAX_QUEUED`] messages already.
    #[error("at most {MAX_QUEUED} messages can wait")]
    Full,
    /// No queued message has this id.
    #[error("no queued message {0}")]
    Unknown(String),
    /// A queued message needs text.
    #[error("a queued message cannot be empty")]
    Empty,
}

/// The queue of one conversation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Queue {
    items: VecDeque<QueuedMessage>,
}

impl Queue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// The waiting messages, first to be sent first.
    pub fn items(&self) -> impl Iterator<Item = &QueuedMessage> {
        self.items.iter()
    }

    /// How many wait.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether none wait.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Adds a message at the end.
    pub fn push(&mut self, message: QueuedMessage) -> Result<(), QueueError> {
        if message.text.trim().is_empty() {
            return Err(QueueError::Empty);
        }
        if self.items.len() >= MAX_QUEUED {
            return Err(QueueError::Full);
        }
        self.items.push_back(message);
        Ok(())
    }

    /// Replaces a waiting message's text.
    pub fn edit(&mut self, id: &str, text: &str) -> Result<(), QueueError> {
        if text.trim().is_empty() {
            return Err(QueueError::Empty);
        }
        let item = self
            .items
            .iter_mut()
            .find(|m| m.id == id)
            .ok_or_else(|| QueueError::Unknown(id.to_string()))?;
        item.text = text.to_string();
        Ok(())
    }

    /// Withdraws a waiting message.
    pub fn remove(&mut self, id: &str) -> Result<QueuedMessage, QueueError> {
        let position = self
            .items
            .iter()
            .position(|m| m.id == id)
            .ok_or_else(|| QueueError::Unknown(id.to_string()))?;
        Ok(self
            .items
            .remove(position)
            .unwrap_or_else(|| unreachable!("position is valid")))
    }

    /// The one message to send after a reply ended with `outcome`, if any.
    pub fn next_after(&mut self, outcome: RunOutcome) -> Option<QueuedMessage> {
        match outcome {
            RunOutcome::Completed => self.items.pop_front(),
            RunOutcome::Stopped | RunOutcome::Failed | RunOutcome::Superseded => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str, text: &str) -> QueuedMessage {
        QueuedMessage {
            id: id.into(),
            text: text.into(),
            attachments: Vec::new(),
        }
    }

    #[test]
    fn drains_one_message_per_completed_reply() {
        let mut queue = Queue::new();
        queue.push(message("q1", "first")).unwrap();
        queue.push(message("q2", "second")).unwrap();
        assert_eq!(
            queue.next_after(RunOutcome::Completed),
            Some(message("q1", "first"))
        );
        assert_eq!(queue.len(), 1, "one at a time");
        assert_eq!(
            queue.next_after(RunOutcome::Completed),
            Some(message("q2", "second"))
        );
        assert_eq!(queue.next_after(RunOutcome::Completed), None);
    }

    #[test]
    fn stop_failure_and_supersession_leave_the_queue_alone() {
        let mut queue = Queue::new();
        queue.push(message("q1", "waiting")).unwrap();
        for outcome in [
            RunOutcome::Stopped,
            RunOutcome::Failed,
            RunOutcome::Superseded,
        ] {
            assert_eq!(queue.next_after(outcome), None);
            assert_eq!(queue.len(), 1);
        }
    }

    #[test]
    fn waiting_messages_can_be_edited_and_withdrawn() {
        let mut queue = Queue::new();
        queue.push(message("q1", "tpyo")).unwrap();
        queue.push(message("q2", "keep")).unwrap();
        queue.edit("q1", "typo fixed").unwrap();
        assert_eq!(queue.items().next().unwrap().text, "typo fixed");
        assert_eq!(queue.remove("q2").unwrap().text, "keep");
        assert_eq!(queue.remove("q2"), Err(QueueError::Unknown("q2".into())));
        assert_eq!(queue.edit("q1", "  "), Err(QueueError::Empty));
        assert_eq!(queue.push(message("q3", "")), Err(QueueError::Empty));
    }

    #[test]
    fn the_queue_is_bounded() {
        let mut queue = Queue::new();
        for i in 0..MAX_QUEUED {
            queue.push(message(&format!("q{i}"), "x")).unwrap();
        }
        assert_eq!(queue.push(message("over", "x")), Err(QueueError::Full));
    }
}
