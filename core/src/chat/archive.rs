//! The export archive: a user's conversations, messages, preferences and providers as one
//! JSON document, and the rules for reading one back. Import is the inverse of export
//! and never loses anything: a record already stored wins unless the archive's copy is
//! newer (the same `rev` rule two tabs use), nothing is deleted, and an archive that is
//! not whole (a message without its conversation, a reply without its question, a
//! duplicated id) is refused as a whole with a typed error before anything is written.
//!
//! The export file around these records, with the files they refer to, is
//! [`super::export_file`]'s.
//!
//! API keys are never in an archive: providers are exported without them, and the vault
//! key that seals them cannot leave the browser anyway.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::record::{ConversationRecord, MessageRecord, newer};
use crate::preferences::Preferences;

/// The `format` field every archive carries.
pub const FORMAT: &str = "hearth-export";
/// The archive version this build writes and the newest it reads. Version 1 was the
/// records alone, saved as JSON; version 2 has the same records, saved inside a ZIP
/// beside the files they refer to ([`super::export_file`]).
pub const VERSION: u32 = 2;
/// The largest archive read, in bytes.
pub const MAX_ARCHIVE_BYTES: usize = 256 * 1024 * 1024;
/// The most records of one kind an archive may hold.
pub const MAX_RECORDS: usize = 1_000_000;

/// An export of everything a user's chats are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Archive {
    /// Always [`FORMAT`].
    pub format: String,
    /// The version it was written with.
    pub version: u32,
    /// When it was written (milliseconds since the epoch).
    pub exported_at: f64,
    /// Conversation records.
    #[serde(default)]
    pub conversations: Vec<ConversationRecord>,
    /// Message records.
    #[serde(default)]
    pub messages: Vec<MessageRecord>,
    /// The preferences record.
    #[serde(default)]
    pub preferences: Option<Preferences>,
    /// The providers, without keys (the app's own record shape).
    #[serde(default)]
    pub providers: Vec<Value>,
    /// The skill library record (`crate::skill::SkillLibrary`: installed skills, the
    /// active set, auto-selection), kept as JSON like the providers: it is read, and
    /// checked skill by skill, only where it is merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Value>,
    /// The memory record (`crate::memory::MemoryBook`), kept as JSON like the skills:
    /// repaired and merged memory by memory where it is imported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Value>,
    /// The prompt templates record (`crate::template::library::TemplateLibrary`), kept
    /// as JSON like the skills: repaired and merged template by template where imported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub templates: Option<Value>,
    /// The knowledge library record (`crate::knowledge::KnowledgeLibrary`), kept as JSON
    /// like the skills: merged collection by collection, as untrusted input, where
    /// imported (`KnowledgeLibrary::merge`); its files travel beside the records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knowledge: Option<Value>,
    /// The workspaces record (`crate::workspace::WorkspaceLibrary`), kept as JSON like
    /// the templates: repaired and merged workspace by workspace where imported; the
    /// conversations name theirs by id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspaces: Option<Value>,
    /// The assistants record (`crate::assistant::AssistantLibrary`: the user's own and
    /// the recently used), kept as JSON like the workspaces: repaired and merged where
    /// imported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistants: Option<Value>,
    /// The web search settings (`crate::web_search::settings::WebSearchSettings`: the
    /// service chosen, its address, engine id and page count; never a key, which stays
    /// sealed in the browser it was entered in), kept as JSON: taken where imported only
    /// when that browser has chosen no service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_search: Option<Value>,
    /// The user's own prices (`crate::cost::Prices`), kept as JSON: taken where imported
    /// for each model that browser has no price of its own for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prices: Option<Value>,
}

/// Why an archive was refused. Nothing is written when any of these is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    /// Bigger than [`MAX_ARCHIVE_BYTES`].
    #[error("the file has {0} bytes; an archive may have at most {MAX_ARCHIVE_BYTES}")]
    TooLarge(usize),
    /// Not JSON at all.
    #[error("the file is not JSON")]
    NotJson,
    /// JSON, but not a Hearth export.
    #[error("the file is not a Hearth export")]
    NotAnExport,
    /// Written by a newer Hearth.
    #[error("the export has version {0}; this Hearth reads up to version {VERSION}")]
    NewerVersion(u32),
    /// A Hearth export whose records do not read.
    #[error("the export is damaged: {0}")]
    Damaged(String),
    /// Records that do not fit together.
    #[error("the export is inconsistent: {0}")]
    Inconsistent(String),
    /// The ZIP around the records and files does not read.
    #[error("the export is damaged: {0}")]
    Package(#[from] crate::zip_store::ZipError),
}

impl Archive {
    /// An archive of the given records, written at `now`.
    pub fn new(
        conversations: Vec<ConversationRecord>,
        messages: Vec<MessageRecord>,
        preferences: Option<Preferences>,
        providers: Vec<Value>,
        now: f64,
    ) -> Self {
        Self {
            format: FORMAT.into(),
            version: VERSION,
            exported_at: now,
            conversations,
            messages,
            preferences,
            providers,
            skills: None,
            memory: None,
            templates: None,
            knowledge: None,
            workspaces: None,
            assistants: None,
            web_search: None,
            prices: None,
        }
    }

    /// Reads and checks an archive. Replies that were streaming when exported come back
    /// interrupted, as they would after a reload.
    pub fn parse(text: &str) -> Result<Self, ArchiveError> {
        if text.len() > MAX_ARCHIVE_BYTES {
            return Err(ArchiveError::TooLarge(text.len()));
        }
        let value: Value = serde_json::from_str(text).map_err(|_| ArchiveError::NotJson)?;
        Self::from_value(value)
    }

    /// [`Archive::parse`] of a file already read as JSON.
    pub fn from_value(value: Value) -> Result<Self, ArchiveError> {
        if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(ArchiveError::NotAnExport);
        }
        match value.get("version").and_then(Value::as_u64) {
            Some(v) if v > u64::from(VERSION) => {
                return Err(ArchiveError::NewerVersion(
                    u32::try_from(v).unwrap_or(u32::MAX),
                ));
            }
            Some(_) => {}
            None => return Err(ArchiveError::Damaged("no version".into())),
        }
        let mut archive: Archive =
            serde_json::from_value(value).map_err(|e| ArchiveError::Damaged(e.to_string()))?;
        archive.check()?;
        archive.messages = archive
            .messages
            .into_iter()
            .map(MessageRecord::reopened)
            .collect();
        Ok(archive)
    }

    /// Checks that the records fit together (ids unique and present, every message in a
    /// conversation of the archive, every parent in the same conversation).
    pub fn check(&self) -> Result<(), ArchiveError> {
        let inconsistent = |why: String| Err(ArchiveError::Inconsistent(why));
        if self.conversations.len() > MAX_RECORDS || self.messages.len() > MAX_RECORDS {
            return inconsistent(format!("more than {MAX_RECORDS} records of one kind"));
        }
        let mut conversations = HashSet::new();
        for conversation in &self.conversations {
            if conversation.id.is_empty() {
                return inconsistent("a conversation has no id".into());
            }
            if !conversations.insert(conversation.id.as_str()) {
                return inconsistent(format!("conversation {} appears twice", conversation.id));
            }
        }
        let mut messages: HashMap<&str, &MessageRecord> = HashMap::new();
        for message in &self.messages {
            if message.id.is_empty() {
                return inconsistent("a message has no id".into());
            }
            if messages.insert(message.id.as_str(), message).is_some() {
                return inconsistent(format!("message {} appears twice", message.id));
            }
            if !conversations.contains(message.conversation_id.as_str()) {
                return inconsistent(format!(
                    "message {} belongs to conversation {}, which is not in the export",
                    message.id, message.conversation_id
                ));
            }
        }
        for message in &self.messages {
            if let Some(parent) = &message.parent_id {
                match messages.get(parent.as_str()) {
                    Some(p) if p.conversation_id == message.conversation_id => {}
                    _ => {
                        return inconsistent(format!(
                            "message {} answers {parent}, which is not in its conversation",
                            message.id
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// What importing into a store holding `stored_conversations` and messages with the
    /// given `(rev, updated_at)` would write: every record that is new or newer.
    pub fn plan(
        &self,
        stored_conversations: &[ConversationRecord],
        stored_messages: &HashMap<String, (u64, f64)>,
    ) -> ImportPlan {
        let stored: HashMap<&str, (u64, f64)> = stored_conversations
            .iter()
            .map(|c| (c.id.as_str(), (c.rev, c.updated_at)))
            .collect();
        let wins = |rev: u64, at: f64, current: Option<(u64, f64)>| {
            current.is_none_or(|(current_rev, current_at)| newer(rev, at, current_rev, current_at))
        };
        let conversations: Vec<ConversationRecord> = self
            .conversations
            .iter()
            .filter(|c| wins(c.rev, c.updated_at, stored.get(c.id.as_str()).copied()))
            .cloned()
            .collect();
        let messages: Vec<MessageRecord> = self
            .messages
            .iter()
            .filter(|m| wins(m.rev, m.updated_at, stored_messages.get(&m.id).copied()))
            .cloned()
            .collect();
        let skipped =
            self.conversations.len() - conversations.len() + self.messages.len() - messages.len();
        ImportPlan {
            conversations,
            messages,
            skipped,
        }
    }
}

/// The records an import writes.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportPlan {
    /// Conversations that are new or newer than the stored copy.
    pub conversations: Vec<ConversationRecord>,
    /// Messages that are new or newer than the stored copy.
    pub messages: Vec<MessageRecord>,
    /// Records left alone because the stored copy is as new or newer.
    pub skipped: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::record::{MessageStatus, Role};

    fn conversation(id: &str, rev: u64) -> ConversationRecord {
        ConversationRecord {
            id: id.into(),
            title: format!("Conversation {id}"),
            rev,
            updated_at: 10.0,
            ..Default::default()
        }
    }

    fn message(id: &str, conversation: &str, parent: Option<&str>) -> MessageRecord {
        MessageRecord {
            id: id.into(),
            conversation_id: conversation.into(),
            parent_id: parent.map(Into::into),
            role: Some(if parent.is_some() {
                Role::Assistant
            } else {
                Role::User
            }),
            content: format!("text of {id}"),
            status: MessageStatus::Done,
            rev: 1,
            updated_at: 10.0,
            ..Default::default()
        }
    }

    fn sample() -> Archive {
        Archive::new(
            vec![conversation("c1", 3), conversation("c2", 1)],
            vec![
                message("m1", "c1", None),
                message("m2", "c1", Some("m1")),
                message("m3", "c2", None),
            ],
            Some(Preferences {
                system_prompt: "Be brief.".into(),
                ..Default::default()
            }),
            vec![serde_json::json!({"id": "p1", "name": "Local"})],
            1_700_000_000_000.0,
        )
    }

    #[test]
    fn an_export_reads_back_as_itself() {
        let archive = sample();
        let text = serde_json::to_string(&archive).unwrap();
        assert!(text.contains("\"format\":\"hearth-export\""));
        assert_eq!(Archive::parse(&text).unwrap(), archive);
    }

    #[test]
    fn the_skill_library_travels_with_the_export() {
        let mut archive = sample();
        let mut library = crate::skill::SkillLibrary::default();
        let meta = crate::skill::SkillMeta {
            id: "proofread".into(),
            title: "Proofread".into(),
            ..Default::default()
        };
        library
            .install_builtin(meta, "Fix typos.", "en", 1.0)
            .unwrap();
        library.set_active("proofread", true).unwrap();
        archive.skills = Some(serde_json::to_value(&library).unwrap());
        let text = serde_json::to_string(&archive).unwrap();
        let parsed = Archive::parse(&text).unwrap();
        assert_eq!(parsed, archive);
        let back: crate::skill::SkillLibrary =
            serde_json::from_value(parsed.skills.unwrap()).unwrap();
        assert_eq!(back, library);
        // An export without skills (older versions) reads as none.
        let older = serde_json::to_string(&sample()).unwrap();
        assert!(!older.contains("skills"));
        assert_eq!(Archive::parse(&older).unwrap().skills, None);
    }

    #[test]
    fn the_memories_travel_with_the_export() {
        let mut archive = sample();
        let mut book = crate::memory::MemoryBook::default();
        let draft = crate::memory::MemoryDraft {
            content: "Prefers metric units.".into(),
            ..Default::default()
        };
        book.add("m1".into(), draft, crate::memory::MemorySource::Manual, 1.0)
            .unwrap();
        archive.memory = Some(serde_json::to_value(&book).unwrap());
        let parsed = Archive::parse(&serde_json::to_string(&archive).unwrap()).unwrap();
        let back: crate::memory::MemoryBook =
            serde_json::from_value(parsed.memory.unwrap()).unwrap();
        assert_eq!(back, book);
        let older = serde_json::to_string(&sample()).unwrap();
        assert!(!older.contains("memory"));
        assert_eq!(Archive::parse(&older).unwrap().memory, None);
    }

    #[test]
    fn the_workspaces_travel_with_the_export_and_their_conversations_name_them() {
        use crate::workspace::{WorkspaceDraft, WorkspaceLibrary};
        let mut library = WorkspaceLibrary::default();
        let draft = WorkspaceDraft {
            name: "Research".into(),
            system_prompt: "Cite sources.".into(),
            knowledge: vec!["k".into()],
            ..Default::default()
        };
        library.add("w".into(), draft, 1.0).unwrap();
        let mut archive = sample();
        archive.conversations[0].workspace_id = Some("w".into());
        archive.conversations[0].system_prompt = "Be formal.".into();
        archive.workspaces = Some(serde_json::to_value(&library).unwrap());
        let parsed = Archive::parse(&serde_json::to_string(&archive).unwrap()).unwrap();
        let back: WorkspaceLibrary = serde_json::from_value(parsed.workspaces.unwrap()).unwrap();
        assert_eq!(back, library);
        assert_eq!(parsed.conversations[0].workspace_id.as_deref(), Some("w"));
        assert_eq!(parsed.conversations[0].system_prompt, "Be formal.");
    }

    #[test]
    fn the_assistants_travel_with_the_export_and_their_conversations_name_them() {
        use crate::assistant::{AssistantDraft, AssistantLibrary};
        let mut library = AssistantLibrary::default();
        let draft = AssistantDraft {
            name: "Tutor".into(),
            prompt: "Teach.".into(),
            opening: "Hello!".into(),
            ..Default::default()
        };
        library.add("a".into(), draft, 1.0).unwrap();
        let tutor = library.get("a").unwrap().clone();
        library.used(&tutor, 2.0).unwrap();
        let mut archive = sample();
        archive.conversations[0].assistant_id = Some("a".into());
        archive.conversations[0].system_prompt = "Teach.".into();
        archive.assistants = Some(serde_json::to_value(&library).unwrap());
        let parsed = Archive::parse(&serde_json::to_string(&archive).unwrap()).unwrap();
        let back: AssistantLibrary = serde_json::from_value(parsed.assistants.unwrap()).unwrap();
        assert_eq!(back, library);
        assert_eq!(parsed.conversations[0].assistant_id.as_deref(), Some("a"));
    }

    #[test]
    fn the_web_search_settings_travel_without_a_key() {
        use crate::web_search::SearchProviderKind;
        use crate::web_search::capability::SearchChoice;
        use crate::web_search::settings::WebSearchSettings;
        let settings = WebSearchSettings {
            choice: SearchChoice::Provider(SearchProviderKind::Searxng),
            searxng_url: "http://127.0.0.1:8888".into(),
            ..WebSearchSettings::default()
        };
        let mut archive = sample();
        archive.web_search = Some(serde_json::to_value(&settings).unwrap());
        let text = serde_json::to_string(&archive).unwrap();
        let parsed = Archive::parse(&text).unwrap();
        let back: WebSearchSettings = serde_json::from_value(parsed.web_search.unwrap()).unwrap();
        assert_eq!(back, settings);
        // An archive from before web search reads as having none.
        let older = serde_json::to_string(&sample()).unwrap();
        assert!(!older.contains("webSearch"));
        assert_eq!(Archive::parse(&older).unwrap().web_search, None);
    }

    #[test]
    fn the_templates_travel_with_the_export_versions_and_all() {
        use crate::template::library::{TemplateDraft, TemplateLibrary};
        let mut archive = sample();
        let mut library = TemplateLibrary::default();
        let draft = |body: &str| TemplateDraft {
            title: "Translate".into(),
            command: "translate".into(),
            body: body.into(),
        };
        library.add("t1".into(), draft("To {{lang}}"), 1.0).unwrap();
        library
            .update("t1", draft("Into {{lang:choice:fr|de}}"), 2.0)
            .unwrap();
        archive.templates = Some(serde_json::to_value(&library).unwrap());
        let parsed = Archive::parse(&serde_json::to_string(&archive).unwrap()).unwrap();
        let back: TemplateLibrary = serde_json::from_value(parsed.templates.unwrap()).unwrap();
        assert_eq!(back, library);
        assert_eq!(back.templates[0].versions.len(), 1);
        let older = serde_json::to_string(&sample()).unwrap();
        assert!(!older.contains("templates"));
        assert_eq!(Archive::parse(&older).unwrap().templates, None);
    }

    #[test]
    fn a_streaming_reply_comes_back_interrupted() {
        let mut archive = sample();
        archive.messages[1].status = MessageStatus::Streaming;
        let parsed = Archive::parse(&serde_json::to_string(&archive).unwrap()).unwrap();
        assert_eq!(parsed.messages[1].status, MessageStatus::Interrupted);
        assert_eq!(parsed.messages[1].content, "text of m2");
    }

    #[test]
    fn files_that_are_not_exports_are_typed_errors() {
        assert_eq!(Archive::parse("not json"), Err(ArchiveError::NotJson));
        assert_eq!(Archive::parse("{}"), Err(ArchiveError::NotAnExport));
        assert_eq!(
            Archive::parse(r#"{"format":"other","version":1}"#),
            Err(ArchiveError::NotAnExport)
        );
        assert_eq!(
            Archive::parse(r#"{"format":"hearth-export","version":7}"#),
            Err(ArchiveError::NewerVersion(7))
        );
        assert!(matches!(
            Archive::parse(r#"{"format":"hearth-export"}"#),
            Err(ArchiveError::Damaged(_))
        ));
        assert!(matches!(
            Archive::parse(
                r#"{"format":"hearth-export","version":1,"exportedAt":0,"conversations":[{"id":5}]}"#
            ),
            Err(ArchiveError::Damaged(_))
        ));
        let huge = " ".repeat(MAX_ARCHIVE_BYTES + 1);
        assert_eq!(
            Archive::parse(&huge),
            Err(ArchiveError::TooLarge(MAX_ARCHIVE_BYTES + 1))
        );
    }

    #[test]
    fn an_archive_that_does_not_fit_together_is_refused_whole() {
        type Damage = fn(&mut Archive);
        let cases: Vec<(Damage, &str)> = vec![
            (
                |a| a.messages[2].conversation_id = "gone".into(),
                "not in the export",
            ),
            (
                |a| a.messages[1].parent_id = Some("m3".into()),
                "not in its conversation",
            ),
            (
                |a| a.messages[1].parent_id = Some("nowhere".into()),
                "not in its conversation",
            ),
            (|a| a.messages.push(a.messages[0].clone()), "appears twice"),
            (
                |a| a.conversations.push(a.conversations[0].clone()),
                "appears twice",
            ),
            (|a| a.conversations[0].id.clear(), "no id"),
        ];
        for (damage, expected) in cases {
            let mut archive = sample();
            damage(&mut archive);
            match Archive::parse(&serde_json::to_string(&archive).unwrap()) {
                Err(ArchiveError::Inconsistent(why)) => assert!(why.contains(expected), "{why}"),
                other => panic!("expected Inconsistent({expected}), got {other:?}"),
            }
        }
    }

    #[test]
    fn importing_keeps_what_is_newer_on_either_side() {
        let archive = sample();
        // Stored: c1 is newer here (rev 5 > 3), c2 is older (rev 0 < 1); m1 is the same.
        let stored = vec![conversation("c1", 5), conversation("c2", 0)];
        let stored_messages = HashMap::from([("m1".to_string(), (1, 10.0))]);
        let plan = archive.plan(&stored, &stored_messages);
        assert_eq!(
            plan.conversations
                .iter()
                .map(|c| c.id.as_str())
                .collect::<Vec<_>>(),
            ["c2"]
        );
        assert_eq!(
            plan.messages
                .iter()
                .map(|m| m.id.as_str())
                .collect::<Vec<_>>(),
            ["m2", "m3"]
        );
        assert_eq!(plan.skipped, 2);
        // Into an empty store, everything is written.
        let fresh = archive.plan(&[], &HashMap::new());
        assert_eq!((fresh.conversations.len(), fresh.messages.len()), (2, 3));
        assert_eq!(fresh.skipped, 0);
    }
}
