//! Comparing models (`hearth_core::chat::compare`): the models a message goes to, the
//! replies of one question to be written side by side (`super::starting` runs them),
//! stopping one of them, choosing the one the conversation goes on from, and merging
//! them into a new reply written by the composer's model.

use hearth_core::chat::MessageRecord;
use hearth_core::chat::compare::{self, CompareError};
use hearth_core::preferences::ModelRef;
use leptos::prelude::*;

use super::Chat;
use super::records::reply_record;
use crate::i18n::Key;
use crate::storage::Batch;
use crate::ui::toast::ToastKind;

/// A reply to question `question_id` from each of `models`; more than one share the
/// first reply's id as their comparison mark.
pub(super) fn replies(
    conversation_id: &str,
    question_id: &str,
    models: &[ModelRef],
) -> Vec<MessageRecord> {
    let mut replies: Vec<MessageRecord> = models
        .iter()
        .map(|model| reply_record(conversation_id, Some(question_id.to_string()), model))
        .collect();
    if replies.len() > 1 {
        let mark = replies[0].id.clone();
        for (index, reply) in replies.iter_mut().enumerate() {
            reply.compare = Some(mark.clone());
            // A millisecond apart: siblings are ordered by creation, and the columns keep
            // the models' order after a reload.
            reply.created_at += index as f64;
            reply.updated_at = reply.created_at;
        }
    }
    replies
}

impl Chat {
    /// The models a new message goes to: `choice`, then those compared with it (at most
    /// [`compare::MAX_MODELS`] in all).
    pub(super) fn lineup(&self, choice: ModelRef) -> Vec<ModelRef> {
        let also = self.choice.also_untracked();
        let also = &also[..also.len().min(compare::MAX_MODELS - 1)];
        compare::lineup(&choice, also).unwrap_or_else(|_| vec![choice])
    }

    /// The replies compared with reply `id`, itself included, in the order they were
    /// written (tracked: the tree); just `id` outside a comparison.
    pub fn compared_with(&self, id: &str) -> Vec<String> {
        let mark = self
            .open
            .live(id)
            .and_then(|live| live.record.with_untracked(|r| r.compare.clone()));
        let Some(mark) = mark else {
            return vec![id.to_string()];
        };
        let siblings = self.open.with_tree(|tree| {
            tree.siblings(id)
                .map(|(all, _)| all.to_vec())
                .unwrap_or_default()
        });
        siblings
            .into_iter()
            .filter(|sibling| {
                self.open.live(sibling).is_some_and(|live| {
                    live.record
                        .with_untracked(|r| r.compare.as_deref() == Some(mark.as_str()))
                })
            })
            .collect()
    }

    /// Stops the reply `id` alone (one of a comparison); the others go on. A reply
    /// another tab writes is stopped there with its whole comparison (that tab is asked
    /// for the conversation).
    pub fn stop_reply(&self, id: &str) {
        let Some(conversation_id) = self.open.current_untracked() else {
            return;
        };
        if self.tabs.is_elsewhere_untracked(&conversation_id) {
            super::broadcast::ask_stop(&conversation_id);
        }
        self.runs.stop_reply(&conversation_id, id);
    }

    /// Makes reply `id` the one the conversation goes on from.
    pub fn choose_answer(&self, id: String) {
        let Some(conversation_id) = self.open.current_untracked() else {
            return;
        };
        let open = self.open;
        self.store.spawn(async move {
            let mut batch = Batch::new();
            let _ = open
                .change_tree(&conversation_id, &mut batch, |tree| tree.activate(&id))
                .await;
        });
    }

    /// A new reply, written by the composer's model, that merges the answers compared
    /// with reply `id`; refused (and said) while a reply is written or when fewer than
    /// two answers have text.
    pub fn merge(&self, id: &str) {
        let Some(conversation_id) = self.open.current_untracked() else {
            return;
        };
        if self.busy(&conversation_id) {
            return;
        }
        let group = self.compared_with(id);
        let replies: Vec<_> = group.iter().filter_map(|id| self.open.live(id)).collect();
        let mergeable = super::live::with_answers(&replies, |answers| {
            compare::mergeable(answers)
                .map(|kept| kept.iter().map(|answer| answer.id.to_string()).collect())
        });
        let merged: Vec<String> = match mergeable {
            Ok(merged) => merged,
            Err(CompareError::TooFewAnswers(_) | CompareError::TooMany(_)) => {
                let i18n = self.turn.i18n;
                self.turn
                    .toasts
                    .show(ToastKind::Info, i18n.t(Key::CompareMergeTooFew));
                return;
            }
        };
        let Some(lead) = self.open.live(&group[0]) else {
            return;
        };
        let model = self.choice.get_untracked().unwrap_or_else(|| {
            lead.record.with_untracked(|r| ModelRef {
                provider_id: r.provider_id.clone().unwrap_or_default(),
                model: r.model.clone().unwrap_or_default(),
            })
        });
        let parent = lead.record.with_untracked(|r| r.parent_id.clone());
        let sibling = group[0].clone();
        let mut reply = reply_record(&conversation_id, parent, &model);
        reply.merged_from = merged;
        let chat = *self;
        self.store.spawn(async move {
            chat.run_sibling(conversation_id, sibling, reply).await;
        });
    }
}
