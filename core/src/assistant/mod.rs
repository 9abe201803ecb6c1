//! Assistants: ready-made starts for a conversation. An assistant has a name, a short
//! description, an emoji, instructions (the conversation's own system prompt when a chat
//! starts with it), a model, the tools and skills its conversations use (or the user's
//! own switches), and an opening message that greets the user before the first
//! question. The built-in ones come from a catalogue per locale (`catalog`); the user's
//! own (at most [`MAX_CUSTOM`]) and a copy of each one used lately (at most
//! [`MAX_RECENT`], the latest first) are kept in one record, the library. Every change is
//! checked here and fails with a typed [`AssistantError`] that leaves the library as it
//! was.
//!
//! A conversation started with an assistant names it by id; its turns look the
//! assistant up in the library (its own assistants, then the recent copies, so a
//! built-in one needs no catalogue at reply time), and an id the library no longer has
//! means no assistant: the conversation keeps the instructions it started with.
//!
//! - `catalog`: the built-in catalogues (`assistants-v1`), read with bounds.

pub mod catalog;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, HashSet};

use serde::{Deserialize, Serialize};

use crate::preferences::{MAX_SYSTEM_PROMPT_CHARS, ModelRef};

/// The most assistants of the user's own.
pub const MAX_CUSTOM: usize = 100;
/// The most assistants remembered as used lately.
pub const MAX_RECENT: usize = 50;
/// The most characters in a name.
pub const MAX_NAME_CHARS: usize = 60;
/// The most characters in a description.
pub const MAX_DESCRIPTION_CHARS: usize = 300;
/// The most characters in an opening message.
pub const MAX_OPENING_CHARS: usize = 2_000;
/// The most characters in an emoji (a flag or a family is several scalars).
pub const MAX_EMOJI_CHARS: usize = 8;
/// The most tools one assistant names (its skills are bounded like the user's active
/// ones, `crate::skill::library::MAX_ACTIVE`).
pub const MAX_NAMED: usize = 100;
/// The most characters in an id.
pub const MAX_ID_CHARS: usize = 64;

/// One assistant.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Assistant {
    /// Its id: a built-in one's catalogue id, or one made for the user's own.
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it is for, in a sentence.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The emoji it is shown with (empty: a generic mark).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub emoji: String,
    /// Its instructions: a conversation started with it has them as its own.
    pub prompt: String,
    /// The model a conversation started with it uses (`None`: the composer's choice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelRef>,
    /// The only tools (plugin ids) its conversations use; `None`: the user's switches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugins: Option<BTreeSet<String>>,
    /// The only skills (ids of installed skills) its conversations apply; `None`: the
    /// user's active skills.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<BTreeSet<String>>,
    /// What it says before the first question (shown, never sent to the model).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub opening: String,
    /// Built in (from a catalogue), not the user's own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub builtin: bool,
    /// When it last changed (the user's own) or was last used (a recent copy), ms since
    /// the epoch.
    pub updated_at: f64,
}

/// An assistant as the editor hands it over.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssistantDraft {
    /// The name.
    pub name: String,
    /// The description.
    pub description: String,
    /// The emoji.
    pub emoji: String,
    /// The instructions.
    pub prompt: String,
    /// The model.
    pub model: Option<ModelRef>,
    /// The only tools, or the user's switches.
    pub plugins: Option<BTreeSet<String>>,
    /// The only skills, or the user's active ones.
    pub skills: Option<BTreeSet<String>>,
    /// The opening message.
    pub opening: String,
}

impl Assistant {
    /// The editor's draft of it (a built-in one's is where a copy of the user's own
    /// starts from).
    pub fn draft(&self) -> AssistantDraft {
        AssistantDraft {
            name: self.name.clone(),
            description: self.description.clone(),
            emoji: self.emoji.clone(),
            prompt: self.prompt.clone(),
            model: self.model.clone(),
            plugins: self.plugins.clone(),
            skills: self.skills.clone(),
            opening: self.opening.clone(),
        }
    }
}

/// Why a change of the library was refused (nothing changed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase", tag = "code")]
pub enum AssistantError {
    /// The name is empty or over [`MAX_NAME_CHARS`].
    #[error("a name needs 1 to {MAX_NAME_CHARS} characters")]
    BadName,
    /// The instructions are empty or over [`MAX_SYSTEM_PROMPT_CHARS`] (their length).
    #[error("instructions need 1 to {MAX_SYSTEM_PROMPT_CHARS} characters; these have {0}")]
    BadPrompt(usize),
    /// The description, the opening message or the emoji is too long.
    #[error(
        "a description has at most {MAX_DESCRIPTION_CHARS} characters, an opening message {MAX_OPENING_CHARS}, an emoji {MAX_EMOJI_CHARS}"
    )]
    TooLong,
    /// More than [`MAX_NAMED`] tools or more skills than may be active at once.
    #[error("an assistant names at most {MAX_NAMED} tools and {skills} skills", skills = crate::skill::library::MAX_ACTIVE)]
    TooManyNamed,
    /// Already [`MAX_CUSTOM`] assistants of the user's own.
    #[error("at most {MAX_CUSTOM} assistants of your own can be kept")]
    TooMany,
    /// An id that is empty, too long, or not letters, digits, `-` and `_`.
    #[error("that is not an assistant id")]
    BadId,
    /// No assistant of the user's has that id.
    #[error("that assistant does not exist")]
    NotFound,
}

/// Whether `id` can name an assistant: 1 to [`MAX_ID_CHARS`] ASCII letters, digits, `-`
/// and `_`.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_CHARS
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A draft that keeps the rules: name and emoji trimmed, lengths bounded, the lists
/// without empty ids, a model with both parts or none.
pub fn checked(mut draft: AssistantDraft) -> Result<AssistantDraft, AssistantError> {
    draft.name = draft.name.trim().to_string();
    draft.emoji = draft.emoji.trim().to_string();
    draft.description = draft.description.trim().to_string();
    if draft.name.is_empty() || draft.name.chars().count() > MAX_NAME_CHARS {
        return Err(AssistantError::BadName);
    }
    let length = draft.prompt.chars().count();
    if draft.prompt.trim().is_empty() || length > MAX_SYSTEM_PROMPT_CHARS {
        return Err(AssistantError::BadPrompt(length));
    }
    if draft.description.chars().count() > MAX_DESCRIPTION_CHARS
        || draft.opening.chars().count() > MAX_OPENING_CHARS
        || draft.emoji.chars().count() > MAX_EMOJI_CHARS
    {
        return Err(AssistantError::TooLong);
    }
    for set in [&mut draft.plugins, &mut draft.skills]
        .into_iter()
        .flatten()
    {
        set.retain(|id| !id.is_empty());
    }
    let named = |set: &Option<BTreeSet<String>>| set.as_ref().map_or(0, BTreeSet::len);
    if named(&draft.plugins) > MAX_NAMED || named(&draft.skills) > crate::skill::library::MAX_ACTIVE
    {
        return Err(AssistantError::TooManyNamed);
    }
    if draft
        .model
        .as_ref()
        .is_some_and(|m| m.provider_id.is_empty() || m.model.is_empty())
    {
        draft.model = None;
    }
    Ok(draft)
}

/// Writes a checked `draft` into `assistant`.
fn fill(assistant: &mut Assistant, draft: AssistantDraft, now: f64) {
    assistant.name = draft.name;
    assistant.description = draft.description;
    assistant.emoji = draft.emoji;
    assistant.prompt = draft.prompt;
    assistant.model = draft.model;
    assistant.plugins = draft.plugins;
    assistant.skills = draft.skills;
    assistant.opening = draft.opening;
    assistant.updated_at = now;
}

/// `assistant` if it keeps the rules (mended where it can be), else `None`.
pub fn repaired(mut assistant: Assistant) -> Option<Assistant> {
    if !is_valid_id(&assistant.id) {
        return None;
    }
    let draft = checked(assistant.draft()).ok()?;
    let updated = assistant.updated_at;
    fill(&mut assistant, draft, updated);
    Some(assistant)
}

/// The library record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AssistantLibrary {
    /// The user's own, in the order made.
    pub custom: Vec<Assistant>,
    /// A copy of each assistant used lately, the latest first.
    pub recent: Vec<Assistant>,
}

impl AssistantLibrary {
    /// The assistant `id`: the user's own, else the copy kept when it was last used.
    pub fn get(&self, id: &str) -> Option<&Assistant> {
        self.custom.iter().chain(&self.recent).find(|a| a.id == id)
    }

    /// Adds one of the user's own under `id` (made by the caller, unique).
    pub fn add(
        &mut self,
        id: String,
        draft: AssistantDraft,
        now: f64,
    ) -> Result<(), AssistantError> {
        if !is_valid_id(&id) || self.get(&id).is_some() {
            return Err(AssistantError::BadId);
        }
        let draft = checked(draft)?;
        if self.custom.len() >= MAX_CUSTOM {
            return Err(AssistantError::TooMany);
        }
        let mut assistant = Assistant {
            id,
            ..Default::default()
        };
        fill(&mut assistant, draft, now);
        self.custom.push(assistant);
        Ok(())
    }

    /// Changes the user's own assistant `id` (a recent copy of it follows).
    pub fn update(
        &mut self,
        id: &str,
        draft: AssistantDraft,
        now: f64,
    ) -> Result<(), AssistantError> {
        let draft = checked(draft)?;
        let assistant = self
            .custom
            .iter_mut()
            .find(|a| a.id == id)
            .ok_or(AssistantError::NotFound)?;
        fill(assistant, draft, now);
        let changed = assistant.clone();
        for copy in self.recent.iter_mut().filter(|a| a.id == id) {
            *copy = Assistant {
                updated_at: copy.updated_at,
                ..changed.clone()
            };
        }
        Ok(())
    }

    /// Removes the user's own assistant `id` (and its recent copy); it, for an Undo.
    /// Conversations started with it keep their instructions.
    pub fn remove(&mut self, id: &str) -> Result<Assistant, AssistantError> {
        let index = self
            .custom
            .iter()
            .position(|a| a.id == id)
            .ok_or(AssistantError::NotFound)?;
        self.recent.retain(|a| a.id != id);
        Ok(self.custom.remove(index))
    }

    /// Puts back one of the user's own (an Undo, an import), unless its id came back
    /// meanwhile or the library is full.
    pub fn put_back(&mut self, assistant: Assistant) -> Result<(), AssistantError> {
        if self.custom.len() >= MAX_CUSTOM {
            return Err(AssistantError::TooMany);
        }
        if self.custom.iter().any(|a| a.id == assistant.id) {
            return Err(AssistantError::BadId);
        }
        let assistant = repaired(Assistant {
            builtin: false,
            ..assistant
        })
        .ok_or(AssistantError::BadId)?;
        self.custom.push(assistant);
        Ok(())
    }

    /// Notes that `assistant` started a chat at `now`: a copy of it goes first among the
    /// recent ones (once), the oldest beyond [`MAX_RECENT`] go.
    pub fn used(&mut self, assistant: &Assistant, now: f64) -> Result<(), AssistantError> {
        let copy = repaired(Assistant {
            updated_at: now,
            ..assistant.clone()
        })
        .ok_or(AssistantError::BadId)?;
        self.recent.retain(|a| a.id != copy.id);
        self.recent.insert(0, copy);
        self.recent.truncate(MAX_RECENT);
        Ok(())
    }

    /// The library with everything that breaks a rule dropped or mended (a stored or
    /// imported record), and how many assistants were dropped.
    pub fn repaired(self) -> (Self, usize) {
        let before = self.custom.len() + self.recent.len();
        let mut ids = HashSet::new();
        let custom: Vec<Assistant> = self
            .custom
            .into_iter()
            .filter_map(|a| {
                repaired(Assistant {
                    builtin: false,
                    ..a
                })
            })
            .filter(|a| ids.insert(a.id.clone()))
            .take(MAX_CUSTOM)
            .collect();
        let mut recent_ids = HashSet::new();
        let recent: Vec<Assistant> = self
            .recent
            .into_iter()
            .filter_map(repaired)
            .filter(|a| recent_ids.insert(a.id.clone()))
            .take(MAX_RECENT)
            .collect();
        let dropped = before - custom.len() - recent.len();
        (Self { custom, recent }, dropped)
    }

    /// Adds another library's assistants (an import): the user's own whose id is not
    /// here, within the bounds, and recent copies of assistants not remembered here
    /// (after these). How many of the user's own were added.
    pub fn merge(&mut self, other: AssistantLibrary) -> usize {
        let (other, _) = other.repaired();
        let added = other
            .custom
            .into_iter()
            .filter(|a| self.put_back(a.clone()).is_ok())
            .count();
        for copy in other.recent {
            if self.recent.len() < MAX_RECENT && !self.recent.iter().any(|a| a.id == copy.id) {
                self.recent.push(copy);
            }
        }
        added
    }
}
