//! Memory: short facts about the user and their work that the user has reviewed, kept in
//! this browser and brought into later conversations where they are relevant.
//!
//! - [`Memory`]: one fact (kind, content of at most [`MAX_CONTENT_CHARS`], importance,
//!   tags, where it came from), checked by [`normalise`] whoever writes it (the user, the
//!   model's proposal, an import).
//! - [`MemoryBook`]: every memory (at most [`MAX_MEMORIES`]), whether memory is used at
//!   all, whether the model may propose memories (off until the user turns it on: the
//!   tool costs every request its description) and whether its proposals are kept
//!   without asking; every change is typed and all-or-nothing.
//! - [`recall`]: which memories a question brings into its turn, through `crate::search`,
//!   bounded, and the system-prompt section that carries them as data, never as
//!   instructions.
//! - [`proposal`]: the internal `remember` tool the model proposes a memory with, and the
//!   proposal a reply keeps until the user saves or dismisses it.

pub mod proposal;
pub mod recall;

use serde::{Deserialize, Serialize};

use crate::chat::MessageRecord;
use proposal::MemoryProposal;
use recall::RecalledMemory;

/// The most memories kept.
pub const MAX_MEMORIES: usize = 500;
/// The longest memory, in characters.
pub const MAX_CONTENT_CHARS: usize = 2_000;
/// The most tags of one memory.
pub const MAX_TAGS: usize = 8;
/// The longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 32;
/// The lowest importance.
pub const MIN_IMPORTANCE: u8 = 1;
/// The highest importance: such a memory joins every turn (within the recall bound).
pub const MAX_IMPORTANCE: u8 = 5;

/// What a memory is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MemoryKind {
    /// Something true about the user or their world.
    #[default]
    Fact,
    /// How the user likes things done.
    Preference,
    /// Something the user is working on.
    Project,
    /// Someone the user mentions.
    Person,
}

impl MemoryKind {
    /// Every kind, in the order they are offered.
    pub const ALL: [MemoryKind; 4] = [Self::Fact, Self::Preference, Self::Project, Self::Person];

    /// Its stable name (wire, tool schema, storage).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fact => "fact",
            Self::Preference => "preference",
            Self::Project => "project",
            Self::Person => "person",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// Who wrote a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MemorySource {
    /// The user, in Settings.
    #[default]
    Manual,
    /// The model proposed it (and the user saved it, or had auto-record on).
    Model,
}

/// A memory as its writer gives it, before it is checked.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MemoryDraft {
    /// What kind it is.
    pub kind: MemoryKind,
    /// The fact.
    pub content: String,
    /// How much it matters, [`MIN_IMPORTANCE`] to [`MAX_IMPORTANCE`].
    pub importance: u8,
    /// Words it is filed under.
    pub tags: Vec<String>,
}

/// One memory.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Memory {
    /// Its id.
    pub id: String,
    /// What it says, checked.
    pub draft: MemoryDraft,
    /// Who wrote it.
    pub source: MemorySource,
    /// When it was written, ms since the epoch.
    pub created_at: f64,
    /// Its last change, ms since the epoch.
    pub updated_at: f64,
}

impl Memory {
    /// What of it is searchable (recall and the search palette): its tags as the title,
    /// its content as the body.
    pub fn search_document(&self) -> crate::search::local::LocalDocument {
        crate::search::local::LocalDocument {
            source: crate::search::Source::Memory,
            id: self.id.clone(),
            title: self.draft.tags.join(" "),
            body: self.draft.content.clone(),
            timestamp: self.updated_at as i64,
        }
    }
}

/// What memory did for one reply, as its record keeps it (`MessageRecord::memory`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReplyMemory {
    /// The memories its request carried.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recalled: Vec<RecalledMemory>,
    /// The memories the model proposed in it, and where each stands.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<MemoryProposal>,
}

impl ReplyMemory {
    /// What `record` keeps (nothing, for a record without it or with a damaged copy).
    pub fn of(record: &MessageRecord) -> Self {
        Self::from_text(record.memory.as_deref())
    }

    /// What a record's `memory` says (nothing, when it is missing or damaged).
    pub fn from_text(text: Option<&str>) -> Self {
        text.and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_default()
    }

    /// This as a record's `memory` (`None` when there is nothing to keep).
    pub fn to_text(&self) -> Option<String> {
        (*self != Self::default())
            .then(|| serde_json::to_string(self).ok())
            .flatten()
    }

    /// Stores this in `record`.
    pub fn store_in(&self, record: &mut MessageRecord) {
        record.memory = self.to_text();
    }
}

/// Why a memory, or a change of the book, was refused. Codes are stable: the app renders
/// them in the user's language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum MemoryError {
    /// Nothing to remember.
    #[error("the memory is empty")]
    Empty,
    /// Longer than [`MAX_CONTENT_CHARS`].
    #[error("the memory is longer than {max} characters")]
    TooLong {
        /// The limit.
        max: usize,
    },
    /// The book holds [`MAX_MEMORIES`] already.
    #[error("there are {max} memories already")]
    Full {
        /// The limit.
        max: usize,
    },
    /// No memory has this id.
    #[error("no such memory")]
    NotFound,
    /// The same fact is kept already.
    #[error("this is remembered already")]
    Duplicate,
}

impl MemoryError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Empty => "memory_empty",
            Self::TooLong { .. } => "memory_too_long",
            Self::Full { .. } => "memory_full",
            Self::NotFound => "memory_not_found",
            Self::Duplicate => "memory_duplicate",
        }
    }
}

/// `draft` checked: its content trimmed (never empty, at most [`MAX_CONTENT_CHARS`]),
/// its importance within bounds (0, the default, is the middle), its tags trimmed,
/// lower-cased, cut to [`MAX_TAG_CHARS`], without repeats, at most [`MAX_TAGS`].
pub fn normalise(draft: MemoryDraft) -> Result<MemoryDraft, MemoryError> {
    let content = draft.content.trim();
    if content.is_empty() {
        return Err(MemoryError::Empty);
    }
    if content.chars().count() > MAX_CONTENT_CHARS {
        return Err(MemoryError::TooLong {
            max: MAX_CONTENT_CHARS,
        });
    }
    let importance = match draft.importance {
        0 => 3,
        n => n.clamp(MIN_IMPORTANCE, MAX_IMPORTANCE),
    };
    let mut tags: Vec<String> = Vec::new();
    for tag in &draft.tags {
        let tag: String = tag
            .trim()
            .trim_start_matches('#')
            .to_lowercase()
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_TAG_CHARS)
            .collect();
        if !tag.is_empty() && !tags.contains(&tag) && tags.len() < MAX_TAGS {
            tags.push(tag);
        }
    }
    Ok(MemoryDraft {
        kind: draft.kind,
        content: content.to_string(),
        importance,
        tags,
    })
}

/// Whether two contents say the same thing (case, spacing and a final full stop aside).
fn same_content(a: &str, b: &str) -> bool {
    let key = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .trim_end_matches(['.', '。'])
            .to_lowercase()
    };
    key(a) == key(b)
}

/// Everything this browser remembers, and how memory is used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MemoryBook {
    /// Whether memories are recalled into turns (with none kept, nothing changes).
    pub enabled: bool,
    /// Whether the model is offered the tool that proposes memories.
    pub propose: bool,
    /// Whether the model's proposals are kept without asking the user.
    pub auto_record: bool,
    /// The memories, oldest first.
    pub memories: Vec<Memory>,
}

impl Default for MemoryBook {
    fn default() -> Self {
        Self {
            enabled: true,
            propose: false,
            auto_record: false,
            memories: Vec::new(),
        }
    }
}

impl MemoryBook {
    /// The memory `id`.
    pub fn get(&self, id: &str) -> Option<&Memory> {
        self.memories.iter().find(|m| m.id == id)
    }

    /// Adds `draft` (checked) as memory `id`, written by `source` at `now`.
    pub fn add(
        &mut self,
        id: String,
        draft: MemoryDraft,
        source: MemorySource,
        now: f64,
    ) -> Result<&Memory, MemoryError> {
        let draft = normalise(draft)?;
        if self.memories.len() >= MAX_MEMORIES {
            return Err(MemoryError::Full { max: MAX_MEMORIES });
        }
        if self
            .memories
            .iter()
            .any(|m| same_content(&m.draft.content, &draft.content))
        {
            return Err(MemoryError::Duplicate);
        }
        self.memories.push(Memory {
            id,
            draft,
            source,
            created_at: now,
            updated_at: now,
        });
        Ok(&self.memories[self.memories.len() - 1])
    }

    /// Replaces what memory `id` says with `draft` (checked).
    pub fn update(&mut self, id: &str, draft: MemoryDraft, now: f64) -> Result<(), MemoryError> {
        let draft = normalise(draft)?;
        if self
            .memories
            .iter()
            .any(|m| m.id != id && same_content(&m.draft.content, &draft.content))
        {
            return Err(MemoryError::Duplicate);
        }
        let memory = self
            .memories
            .iter_mut()
            .find(|m| m.id == id)
            .ok_or(MemoryError::NotFound)?;
        memory.draft = draft;
        memory.updated_at = now;
        Ok(())
    }

    /// Forgets memory `id`.
    pub fn remove(&mut self, id: &str) -> Result<Memory, MemoryError> {
        let at = self
            .memories
            .iter()
            .position(|m| m.id == id)
            .ok_or(MemoryError::NotFound)?;
        Ok(self.memories.remove(at))
    }

    /// The book as stored, with anything that breaks a rule dropped (a damaged or
    /// hand-edited record): every kept memory passes [`normalise`], ids are unique and
    /// non-empty, at most [`MAX_MEMORIES`]; and how many were dropped.
    pub fn repaired(self) -> (Self, usize) {
        let before = self.memories.len();
        let mut seen = std::collections::HashSet::new();
        let memories: Vec<Memory> = self
            .memories
            .into_iter()
            .filter_map(|mut memory| {
                memory.draft = normalise(memory.draft).ok()?;
                (!memory.id.is_empty() && seen.insert(memory.id.clone())).then_some(memory)
            })
            .take(MAX_MEMORIES)
            .collect();
        let dropped = before - memories.len();
        (Self { memories, ..self }, dropped)
    }

    /// `incoming` (an import) merged in: a memory this book has keeps the newer copy;
    /// new ones join while there is room and they repeat nothing kept. The switches stay
    /// this browser's. How many came in.
    pub fn merge(&mut self, incoming: MemoryBook) -> usize {
        let (incoming, _) = incoming.repaired();
        let mut added = 0;
        for memory in incoming.memories {
            match self.memories.iter_mut().find(|m| m.id == memory.id) {
                Some(held) => {
                    if memory.updated_at > held.updated_at {
                        *held = memory;
                        added += 1;
                    }
                }
                None => {
                    let repeats = self
                        .memories
                        .iter()
                        .any(|m| same_content(&m.draft.content, &memory.draft.content));
                    if !repeats && self.memories.len() < MAX_MEMORIES {
                        self.memories.push(memory);
                        added += 1;
                    }
                }
            }
        }
        added
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(content: &str) -> MemoryDraft {
        MemoryDraft {
            content: content.into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_memory_is_checked_whoever_writes_it() {
        assert_eq!(normalise(draft("  ")), Err(MemoryError::Empty));
        assert_eq!(
            normalise(draft(&"x".repeat(MAX_CONTENT_CHARS + 1))),
            Err(MemoryError::TooLong {
                max: MAX_CONTENT_CHARS
            })
        );
        assert!(normalise(draft(&"é".repeat(MAX_CONTENT_CHARS))).is_ok());
        let checked = normalise(MemoryDraft {
            kind: MemoryKind::Preference,
            content: "  Prefers metric units. ".into(),
            importance: 9,
            tags: vec![
                " #Units".into(),
                "units".into(),
                "".into(),
                "x".repeat(40),
                "a\u{7}b".into(),
            ]
            .into_iter()
            .chain((0..20).map(|i| format!("t{i}")))
            .collect(),
        })
        .unwrap();
        assert_eq!(checked.content, "Prefers metric units.");
        assert_eq!(checked.importance, MAX_IMPORTANCE);
        assert_eq!(checked.tags.len(), MAX_TAGS);
        assert_eq!(checked.tags[..3], ["units", &"x".repeat(32), "ab"]);
        assert_eq!(normalise(draft("a")).unwrap().importance, 3);
        let mut low = draft("a");
        low.importance = 1;
        assert_eq!(normalise(low).unwrap().importance, 1);
    }

    #[test]
    fn the_book_is_bounded_and_every_change_is_all_or_nothing() {
        let mut book = MemoryBook::default();
        book.add(
            "a".into(),
            draft("Lives in Lyon."),
            MemorySource::Manual,
            1.0,
        )
        .unwrap();
        // The same fact again, however it is spaced or cased, is refused.
        assert_eq!(
            book.add(
                "b".into(),
                draft("lives  in lyon"),
                MemorySource::Model,
                2.0
            )
            .err(),
            Some(MemoryError::Duplicate)
        );
        assert_eq!(
            book.add("c".into(), draft(" "), MemorySource::Manual, 2.0)
                .err(),
            Some(MemoryError::Empty)
        );
        assert_eq!(book.memories.len(), 1);
        book.update("a", draft("Lives in Paris."), 3.0).unwrap();
        assert_eq!(book.get("a").unwrap().draft.content, "Lives in Paris.");
        assert_eq!(book.get("a").unwrap().updated_at, 3.0);
        assert_eq!(
            book.update("zz", draft("x"), 4.0),
            Err(MemoryError::NotFound)
        );
        assert_eq!(book.update("a", draft(""), 4.0), Err(MemoryError::Empty));
        assert_eq!(book.get("a").unwrap().draft.content, "Lives in Paris.");
        for i in 1..MAX_MEMORIES {
            book.add(
                format!("m{i}"),
                draft(&format!("fact {i}")),
                MemorySource::Manual,
                5.0,
            )
            .unwrap();
        }
        assert_eq!(
            book.add("over".into(), draft("one more"), MemorySource::Manual, 6.0)
                .err(),
            Some(MemoryError::Full { max: MAX_MEMORIES })
        );
        assert_eq!(book.remove("a").unwrap().id, "a");
        assert_eq!(book.remove("a"), Err(MemoryError::NotFound));
        assert_eq!(book.memories.len(), MAX_MEMORIES - 1);
        for error in [
            MemoryError::Empty,
            MemoryError::TooLong { max: 1 },
            MemoryError::Full { max: 1 },
            MemoryError::NotFound,
            MemoryError::Duplicate,
        ] {
            assert!(error.code().starts_with("memory_"));
        }
    }

    #[test]
    fn a_reply_keeps_what_memory_did_as_json() {
        let mut record = MessageRecord::default();
        assert_eq!(ReplyMemory::of(&record), ReplyMemory::default());
        let memory = ReplyMemory {
            recalled: vec![RecalledMemory {
                id: "m1".into(),
                content: "Likes tea.".into(),
            }],
            proposals: vec![MemoryProposal {
                id: "call-1".into(),
                draft: draft("Lives in Lyon."),
                ..Default::default()
            }],
        };
        memory.store_in(&mut record);
        let stored = serde_json::to_string(&record).unwrap();
        let back: MessageRecord = serde_json::from_str(&stored).unwrap();
        assert_eq!(ReplyMemory::of(&back), memory);
        // Nothing to keep: nothing stored; a damaged copy reads as nothing.
        ReplyMemory::default().store_in(&mut record);
        assert_eq!(record.memory, None);
        assert!(!serde_json::to_string(&record).unwrap().contains("memory"));
        record.memory = Some(r#"{"recalled": "not a list"}"#.into());
        assert_eq!(ReplyMemory::of(&record), ReplyMemory::default());
    }

    #[test]
    fn a_stored_book_is_repaired_and_an_import_merges_newer_wins() {
        let stored: MemoryBook = serde_json::from_value(serde_json::json!({
            "enabled": false,
            "memories": [
                {"id": "a", "draft": {"kind": "fact", "content": "Has a cat.", "importance": 4}, "updatedAt": 5.0},
                {"id": "a", "draft": {"content": "A repeated id."}},
                {"id": "", "draft": {"content": "No id."}},
                {"id": "b", "draft": {"content": "   "}},
                {"id": "c", "draft": {"kind": "person", "content": "Sam is a colleague.", "tags": ["Work"]}}
            ]
        }))
        .unwrap();
        let (mut book, dropped) = stored.repaired();
        assert_eq!(dropped, 3);
        assert!(!book.enabled);
        assert_eq!(book.memories[1].draft.kind, MemoryKind::Person);
        assert_eq!(book.memories[1].draft.tags, ["work"]);
        let incoming = MemoryBook {
            memories: vec![
                Memory {
                    id: "a".into(),
                    draft: draft("Has two cats."),
                    updated_at: 9.0,
                    ..Default::default()
                },
                Memory {
                    id: "c".into(),
                    draft: draft("Old text."),
                    updated_at: 0.0,
                    ..Default::default()
                },
                Memory {
                    id: "d".into(),
                    draft: draft("sam is a colleague"),
                    ..Default::default()
                },
                Memory {
                    id: "e".into(),
                    draft: draft("Speaks Japanese."),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        assert_eq!(book.merge(incoming), 2);
        let contents: Vec<&str> = book
            .memories
            .iter()
            .map(|m| m.draft.content.as_str())
            .collect();
        assert_eq!(
            contents,
            ["Has two cats.", "Sam is a colleague.", "Speaks Japanese."]
        );
        assert!(!book.enabled, "an import never changes the switches");
        for kind in MemoryKind::ALL {
            assert_eq!(MemoryKind::from_name(kind.as_str()), Some(kind));
        }
    }
}
