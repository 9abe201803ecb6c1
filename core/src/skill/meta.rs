//! What a skill is, as a catalogue lists it and a library keeps it: its metadata
//! (id, title, description, category, tags), the requirements it declares and when it
//! helps. Types only: the catalogue reader (`super::catalog`) and the one check
//! (`super::normalise`) both build on them.

use serde::{Deserialize, Serialize};

/// What a skill is for; shown as a translated label and used to filter.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Writing and editing.
    Writing,
    /// Programming.
    Coding,
    /// Data and numbers.
    Data,
    /// Translation and languages.
    Language,
    /// Studying and teaching.
    Learning,
    /// Plans and decisions.
    Planning,
    /// Reasoning, research and ideas.
    Thinking,
    /// Anything else (also an unknown category from a newer catalogue).
    #[default]
    #[serde(other)]
    Other,
}

impl Category {
    /// Every category, in the order filters list them.
    pub const ALL: [Category; 8] = [
        Self::Writing,
        Self::Coding,
        Self::Data,
        Self::Language,
        Self::Learning,
        Self::Planning,
        Self::Thinking,
        Self::Other,
    ];

    /// Its stored name (also the translation key's last part).
    pub fn code(self) -> &'static str {
        match self {
            Self::Writing => "writing",
            Self::Coding => "coding",
            Self::Data => "data",
            Self::Language => "language",
            Self::Learning => "learning",
            Self::Planning => "planning",
            Self::Thinking => "thinking",
            Self::Other => "other",
        }
    }

    /// The category named `code`; unknown names are [`Category::Other`].
    pub fn from_code(code: &str) -> Self {
        Self::ALL
            .into_iter()
            .find(|c| c.code() == code.trim().to_ascii_lowercase())
            .unwrap_or(Self::Other)
    }
}

/// How much care a skill's answers need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RiskLevel {
    /// Everyday help.
    #[default]
    Low,
    /// Answers that matter (money, health, decisions): the skill says to check them.
    Medium,
    /// Answers with serious consequences.
    High,
}

/// What a skill declares it needs. Hearth keeps only text-only skills: any `true`
/// requirement below refuses it ([`Refusal`] names which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SkillRisk {
    /// How much care its answers need.
    pub level: RiskLevel,
    /// It is instructions only.
    pub text_only: bool,
    /// It needs a script run.
    pub script_required: bool,
    /// It needs a tool outside the model.
    pub external_tool_required: bool,
    /// It needs the network.
    pub network_required: bool,
    /// It needs to read or write files.
    pub file_access_required: bool,
    /// High-stakes answers should be checked by a person.
    pub review_required_for_high_stakes: bool,
}

impl Default for SkillRisk {
    fn default() -> Self {
        Self {
            level: RiskLevel::Low,
            text_only: true,
            script_required: false,
            external_tool_required: false,
            network_required: false,
            file_access_required: false,
            review_required_for_high_stakes: false,
        }
    }
}

/// When a skill helps: what auto-selection and the user read before turning it on.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Activation {
    /// Situations it is for.
    pub use_when: Vec<String>,
    /// Situations it is not for.
    pub avoid_when: Vec<String>,
    /// Questions that would call for it.
    pub example_queries: Vec<String>,
}

/// One skill's metadata, as a catalogue lists it and a library keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SkillMeta {
    /// Lower-case letters, digits and single hyphens (`code-review`).
    pub id: String,
    /// Its name, in the catalogue's language.
    pub title: String,
    /// What it makes the model do.
    pub description: String,
    /// What it is for.
    pub category: Category,
    /// Search words.
    pub tags: Vec<String>,
    /// What it declares it needs.
    pub risk: SkillRisk,
    /// When it helps.
    pub activation: Activation,
}
