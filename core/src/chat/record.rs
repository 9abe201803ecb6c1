//! What a conversation and a message look like in storage, and the rules about them that
//! do not need a browser: how a stored reply reopens after a crash, how two versions of
//! one record are reconciled, and what the per-message details say. (Titles are
//! [`super::title`]'s.)
//!
//! Records carry a `rev` that grows with every write; [`newer`] decides which of two
//! versions wins, so a tab never replaces another tab's newer write with an older one.

use serde::{Deserialize, Serialize};

use super::generation::GenerationError;
use super::tree::NodeRecord;
use crate::context::{TokenCount, estimate_tokens};
use crate::provider::{FinishReason, Usage};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// Where a message stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MessageStatus {
    /// Complete.
    #[default]
    Done,
    /// A reply still arriving (in this tab or another).
    Streaming,
    /// The reply failed; `generation_error` says why.
    Error,
    /// The user stopped the reply; what arrived is kept.
    Aborted,
    /// The page closed while the reply streamed; Continue or Retry.
    Interrupted,
}

/// Timings of a reply, in milliseconds from the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    /// Until the first token arrived.
    pub first_token_ms: Option<u64>,
    /// Until the reply ended.
    pub total_ms: Option<u64>,
}

/// One stored message.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MessageRecord {
    /// Its id.
    pub id: String,
    /// Its conversation.
    pub conversation_id: String,
    /// Its parent in the tree.
    pub parent_id: Option<String>,
    /// Which child continues the active path.
    pub active_child_id: Option<String>,
    /// Who wrote it.
    pub role: Option<Role>,
    /// The text (Markdown for replies).
    pub content: String,
    /// The model's reasoning, kept apart from the content.
    pub reasoning: String,
    /// Where it stands.
    pub status: MessageStatus,
    /// The failure of its generation, never written into `content`.
    pub generation_error: Option<GenerationError>,
    /// The provider that wrote a reply.
    pub provider_id: Option<String>,
    /// The model that wrote a reply.
    pub model: Option<String>,
    /// What the provider reported.
    pub usage: Usage,
    /// Timings of the reply.
    pub timings: Timings,
    /// Why the reply ended, stored as its name (`stop`, `length`, …).
    pub finish_reason: Option<FinishReason>,
    /// The rounds in which the reply called tools, before its final text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_rounds: Vec<super::tools::ToolRound>,
    /// Images the model sent in the reply, each at its place in the text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<super::output_image::OutputImage>,
    /// The pages a reply draws on, numbered from 1 in their order (its citations `[n]`),
    /// kept as JSON text ([`Self::sources`] reads it, `crate::chat::source::encode`
    /// writes it): decoded only where shown, exported or sent, so reading and writing
    /// messages carries no source code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<String>,
    /// Files the user attached to a question (their bytes and text live in the
    /// browser's file store under the attachment's id).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<crate::attachment::Attachment>,
    /// What a reply's request left out of the context, for the user to see.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context_notes: Vec<super::context_note::ContextNote>,
    /// The skills applied to a reply, and how (chosen by the user or by the model).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skill_invocations: Vec<crate::skill::AppliedSkill>,
    /// What memory did for a reply: the memories its request carried and those the model
    /// proposed (`crate::memory::ReplyMemory`), kept as JSON text: decoded only where it
    /// is shown or changed, so reading and writing messages carries no memory code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The instructions a reply was written with (`crate::workspace::prompt::AppliedPrompt`:
    /// the user's, the workspace's, the conversation's), kept as JSON text like `memory`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<String>,
    /// The web searches a reply made (`crate::web_search::record::SearchRecord`), kept as
    /// JSON text like `memory`: its search block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_searches: Option<String>,
    /// When another model answered than the one chosen (`crate::chat::fallback::
    /// FallbackRecord`), kept as JSON text like `memory`: decoded only where shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// Follow-up questions the related-questions model suggested under a reply (plain
    /// text, `crate::chat::related`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
    /// The comparison a reply belongs to (`super::compare`): the replies to one question
    /// written side by side by several models share it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<String>,
    /// The replies a merged reply was asked to combine (`super::compare`), in their
    /// order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    /// Creation time, ms since the epoch.
    pub created_at: f64,
    /// Last change, ms since the epoch.
    pub updated_at: f64,
    /// Grows with every write.
    pub rev: u64,
}

impl MessageRecord {
    /// The tree's view of it.
    pub fn node(&self) -> NodeRecord {
        NodeRecord {
            id: self.id.clone(),
            parent_id: self.parent_id.clone(),
            active_child_id: self.active_child_id.clone(),
        }
    }

    /// The pages a reply draws on, in order (none when its record holds no readable
    /// list).
    pub fn sources(&self) -> Vec<super::source::Source> {
        super::source::decode(self.sources.as_deref())
    }

    /// Whether it is the user's.
    pub fn is_user(&self) -> bool {
        self.role == Some(Role::User)
    }

    /// A record loaded after a reload or crash: a reply that was still streaming can no
    /// longer be, so it reopens as interrupted, with everything stored so far.
    pub fn reopened(mut self) -> Self {
        if self.status == MessageStatus::Streaming {
            self.status = MessageStatus::Interrupted;
        }
        self.tool_rounds = self
            .tool_rounds
            .into_iter()
            .map(super::tools::ToolRound::reopened)
            .collect();
        self
    }

    /// Input tokens: reported, or `None` when the provider said nothing (the prompt is
    /// not stored on the reply, so it cannot be estimated here).
    pub fn input_tokens(&self) -> Option<TokenCount> {
        self.usage.input_tokens.map(|value| TokenCount {
            value,
            estimated: false,
        })
    }

    /// Output tokens: reported, or a marked estimate from the stored text.
    pub fn output_tokens(&self) -> TokenCount {
        match self.usage.output_tokens {
            Some(value) => TokenCount {
                value,
                estimated: false,
            },
            None => TokenCount {
                value: estimate_tokens(&self.content) + estimate_tokens(&self.reasoning),
                estimated: true,
            },
        }
    }
}

/// One stored conversation (the sidebar reads only these, never messages).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ConversationRecord {
    /// Its id.
    pub id: String,
    /// Its title ("" until the first exchange names it).
    pub title: String,
    /// Whether the user named it (automatic titles never replace theirs).
    pub title_by_user: bool,
    /// Pinned to the top of the sidebar.
    pub pinned: bool,
    /// The root of the active path.
    pub active_root_id: Option<String>,
    /// The provider last used.
    pub provider_id: Option<String>,
    /// The model last used.
    pub model: Option<String>,
    /// Creation time, ms since the epoch.
    pub created_at: f64,
    /// Last change, ms since the epoch (the sidebar's order).
    pub updated_at: f64,
    /// Grows with every write.
    pub rev: u64,
    /// The summary of its older turns, when a compression model made one.
    pub compression: Option<super::compression::Compression>,
    /// Memory is off here: nothing is recalled into it and nothing proposed from it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub memory_off: bool,
    /// Archived: kept, searchable and openable, but not in the sidebar's list (Settings ›
    /// Data lists archived conversations).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub archived: bool,
    /// The knowledge collections its questions are answered from (ids).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub knowledge: Vec<String>,
    /// The workspace it belongs to (`crate::workspace`); none, or one deleted since:
    /// no workspace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<String>,
    /// Its own instructions, joined to its turns' system prompt after the user's and
    /// the workspace's (`crate::workspace::prompt`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub system_prompt: String,
    /// The assistant it was started with (`crate::assistant`; its instructions became
    /// the conversation's own); one deleted since: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assistant_id: Option<String>,
    /// A temporary chat: it and its messages live only in the tab's memory, are never
    /// written to the database, exported or indexed, and are gone with the tab (unless
    /// the user keeps it, which stores it as any other conversation).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub temporary: bool,
    /// The messages after which its context starts again (`/clear`,
    /// `super::context_break`): a turn sends nothing before the last of them on its path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context_breaks: Vec<String>,
    /// The model fallback policy and alternatives (`crate::chat::fallback::Fallback`),
    /// kept as JSON text: read only when a reply starts or the setting is shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// Whether `candidate` should replace `current`: a higher `rev`, or the same `rev` and a
/// later `updated_at` (two tabs that raced to the same `rev`).
pub fn newer(candidate_rev: u64, candidate_at: f64, current_rev: u64, current_at: f64) -> bool {
    candidate_rev > current_rev || (candidate_rev == current_rev && candidate_at > current_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streaming_reply_reopens_interrupted_with_its_text() {
        let record = MessageRecord {
            id: "m".into(),
            content: "partial".into(),
            status: MessageStatus::Streaming,
            ..Default::default()
        };
        let reopened = record.clone().reopened();
        assert_eq!(reopened.status, MessageStatus::Interrupted);
        assert_eq!(reopened.content, "partial");
        let done = MessageRecord {
            status: MessageStatus::Done,
            ..record
        };
        assert_eq!(done.clone().reopened(), done);
    }

    #[test]
    fn a_call_waiting_for_the_user_when_the_page_closed_reopens_denied() {
        use super::super::tools::{ToolCallRecord, ToolCallStatus, ToolRound};
        let record = MessageRecord {
            status: MessageStatus::Streaming,
            tool_rounds: vec![ToolRound {
                calls: vec![ToolCallRecord {
                    id: "c".into(),
                    status: ToolCallStatus::AwaitingApproval,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let reopened = record.reopened();
        assert_eq!(
            reopened.tool_rounds[0].calls[0].status,
            ToolCallStatus::Denied
        );
    }

    #[test]
    fn archived_is_stored_only_when_set_and_older_records_read_as_not_archived() {
        let record = ConversationRecord {
            id: "c".into(),
            ..Default::default()
        };
        let plain = serde_json::to_value(&record).unwrap();
        assert!(plain.get("archived").is_none(), "{plain}");
        let archived = ConversationRecord {
            archived: true,
            ..record.clone()
        };
        let stored = serde_json::to_value(&archived).unwrap();
        assert_eq!(stored["archived"], serde_json::json!(true));
        let back: ConversationRecord = serde_json::from_value(stored).unwrap();
        assert!(back.archived);
        // A record written before archiving existed.
        let old: ConversationRecord =
            serde_json::from_str(r#"{"id":"c","title":"t","pinned":true}"#).unwrap();
        assert!(!old.archived && old.pinned);
    }

    #[test]
    fn a_workspace_and_own_instructions_are_stored_only_when_set() {
        let plain = serde_json::to_value(ConversationRecord::default()).unwrap();
        assert!(plain.get("workspaceId").is_none() && plain.get("systemPrompt").is_none());
        let placed = ConversationRecord {
            workspace_id: Some("w".into()),
            system_prompt: "Be formal.".into(),
            ..Default::default()
        };
        let stored = serde_json::to_value(&placed).unwrap();
        assert_eq!(stored["workspaceId"], "w");
        assert_eq!(stored["systemPrompt"], "Be formal.");
        let back: ConversationRecord = serde_json::from_value(stored).unwrap();
        assert_eq!(back, placed);
        let reply = serde_json::to_value(MessageRecord::default()).unwrap();
        assert!(reply.get("prompts").is_none(), "{reply}");
    }

    #[test]
    fn newer_prefers_the_higher_revision_then_the_later_write() {
        assert!(newer(3, 1.0, 2, 9.0));
        assert!(!newer(2, 9.0, 3, 1.0));
        assert!(newer(3, 2.0, 3, 1.0));
        assert!(!newer(3, 1.0, 3, 1.0));
    }

    #[test]
    fn output_tokens_are_reported_or_a_marked_estimate() {
        let mut record = MessageRecord {
            content: "abcd".repeat(10),
            ..Default::default()
        };
        let estimate = record.output_tokens();
        assert!(estimate.estimated);
        assert_eq!(estimate.to_string(), format!("~{}", estimate.value));
        assert!(estimate.value > 0);
        assert_eq!(record.input_tokens(), None);
        record.usage.output_tokens = Some(7);
        record.usage.input_tokens = Some(3);
        assert_eq!(record.output_tokens().to_string(), "7");
        assert_eq!(record.input_tokens().unwrap().to_string(), "3");
    }

    #[test]
    fn records_read_back_from_partial_json() {
        let record: MessageRecord =
            serde_json::from_str(r#"{"id":"m","conversationId":"c","status":"streaming"}"#)
                .unwrap();
        assert_eq!(record.status, MessageStatus::Streaming);
        assert_eq!(record.usage, Usage::default());
        let json = serde_json::to_string(&record).unwrap();
        assert!(json.contains("\"conversationId\":\"c\""));
    }

    #[test]
    fn the_finish_reason_is_stored_as_the_name_it_always_had() {
        for (name, reason) in [
            ("stop", FinishReason::Stop),
            ("length", FinishReason::Length),
            ("tool_calls", FinishReason::ToolCalls),
            ("content_filter", FinishReason::ContentFilter),
            ("end_turn", FinishReason::Other("end_turn".into())),
        ] {
            // A record written before the reason was typed opens with it typed.
            let old = format!(r#"{{"id":"m","conversationId":"c","finishReason":"{name}"}}"#);
            let record: MessageRecord = serde_json::from_str(&old).unwrap();
            assert_eq!(record.finish_reason, Some(reason), "{name}");
            // And is written back exactly as before.
            let json = serde_json::to_value(&record).unwrap();
            assert_eq!(json["finishReason"], serde_json::json!(name));
            let again: MessageRecord = serde_json::from_value(json).unwrap();
            assert_eq!(again, record);
        }
        let none: MessageRecord =
            serde_json::from_str(r#"{"id":"m","conversationId":"c","finishReason":null}"#).unwrap();
        assert_eq!(none.finish_reason, None);
        assert_eq!(
            serde_json::to_value(&none).unwrap()["finishReason"],
            serde_json::Value::Null
        );
    }
}
