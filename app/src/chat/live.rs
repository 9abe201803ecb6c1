//! A message on screen: its record, with the growing text and reasoning in signals of
//! their own so a streaming reply re-renders only itself. While a reply streams, these
//! signals are the one owner of its text: the run appends to them and the flush reads
//! them.

use hearth_core::chat::MessageRecord;
use leptos::prelude::*;

/// A message on screen.
#[derive(Clone, Copy)]
pub struct LiveMessage {
    /// Everything but the text.
    pub record: RwSignal<MessageRecord>,
    /// The text.
    pub content: RwSignal<String>,
    /// The reasoning.
    pub reasoning: RwSignal<String>,
}

impl LiveMessage {
    /// Signals for `record`, owned by the current reactive owner.
    pub fn new(mut record: MessageRecord) -> Self {
        let content = std::mem::take(&mut record.content);
        let reasoning = std::mem::take(&mut record.reasoning);
        Self {
            record: RwSignal::new(record),
            content: RwSignal::new(content),
            reasoning: RwSignal::new(reasoning),
        }
    }

    /// The message's id.
    pub fn id(&self) -> String {
        self.record.with_untracked(|r| r.id.clone())
    }

    /// The whole record, untracked.
    pub fn snapshot(&self) -> MessageRecord {
        let mut record = self.record.get_untracked();
        record.content = self.content.get_untracked();
        record.reasoning = self.reasoning.get_untracked();
        record
    }

    /// Shows `record` (another tab's newer version), touching only what changed.
    pub fn replace(&self, mut record: MessageRecord) {
        let content = std::mem::take(&mut record.content);
        let reasoning = std::mem::take(&mut record.reasoning);
        if self.content.with_untracked(|c| *c != content) {
            self.content.set(content);
        }
        if self.reasoning.with_untracked(|r| *r != reasoning) {
            self.reasoning.set(reasoning);
        }
        self.record.set(record);
    }
}

/// Calls `f` with the replies `replies` as a merge reads them
/// (`hearth_core::chat::compare::Answer`: id, model, text).
pub fn with_answers<R>(
    replies: &[LiveMessage],
    f: impl FnOnce(&[hearth_core::chat::compare::Answer<'_>]) -> R,
) -> R {
    let owned: Vec<(String, String, String)> = replies
        .iter()
        .map(|live| {
            let model = live
                .record
                .with_untracked(|r| r.model.clone().unwrap_or_default());
            (live.id(), model, live.content.get_untracked())
        })
        .collect();
    let answers: Vec<_> = owned
        .iter()
        .map(|(id, model, text)| hearth_core::chat::compare::Answer { id, model, text })
        .collect();
    f(&answers)
}
