//! The one check every skill passes before Hearth keeps it, whatever its source (a
//! built-in catalogue, the user's editor, an imported `SKILL.md`): it must be text only
//! (no scripts, external tools, network or files), its id well formed, every field
//! within its bound. Text is trimmed; nothing else is rewritten. A refusal says which
//! rule refused the skill, as a code the app renders in the user's language.

use serde::{Deserialize, Serialize};

use super::meta::SkillMeta;

/// The longest id.
pub const MAX_ID_CHARS: usize = 64;
/// The longest title.
pub const MAX_TITLE_CHARS: usize = 80;
/// The longest description.
pub const MAX_DESCRIPTION_CHARS: usize = 1_024;
/// The most tags.
pub const MAX_TAGS: usize = 12;
/// The longest tag.
pub const MAX_TAG_CHARS: usize = 32;
/// The most items in each activation list.
pub const MAX_ACTIVATION_ITEMS: usize = 8;
/// The longest activation item.
pub const MAX_ACTIVATION_CHARS: usize = 200;
/// The longest instructions text (references included).
pub const MAX_CONTENT_CHARS: usize = 32_000;

/// A skill that passed [`normalise`]: metadata and the instructions the model receives.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TextSkill {
    /// Its metadata.
    #[serde(flatten)]
    pub meta: SkillMeta,
    /// Its instructions, Markdown.
    pub content: String,
}

/// The field a bound applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Field {
    /// The title.
    Title,
    /// The description.
    Description,
    /// The tags.
    Tags,
    /// Use when, avoid when, example queries.
    Activation,
    /// The instructions.
    Content,
}

impl Field {
    /// Its stored name.
    pub fn code(self) -> &'static str {
        match self {
            Self::Title => "title",
            Self::Description => "description",
            Self::Tags => "tags",
            Self::Activation => "activation",
            Self::Content => "content",
        }
    }
}

/// Why a skill was refused: the rule, never a sentence (the app says it in the user's
/// language).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "camelCase", tag = "rule")]
pub enum Refusal {
    /// It needs a script run.
    #[error("the skill needs scripts to run; only text skills are kept")]
    ScriptRequired,
    /// It needs a tool outside the model.
    #[error("the skill needs external tools; only text skills are kept")]
    ExternalToolRequired,
    /// It needs the network.
    #[error("the skill needs network access; only text skills are kept")]
    NetworkRequired,
    /// It needs to read or write files.
    #[error("the skill needs file access; only text skills are kept")]
    FileAccessRequired,
    /// It does not declare itself text only.
    #[error("the skill is not declared text only")]
    NotTextOnly,
    /// Its id is not lower-case letters, digits and single hyphens, at most 64.
    #[error("the skill's id must be lower-case letters, digits and single hyphens")]
    BadId,
    /// Its id is already taken.
    #[error("a skill with this id is already listed")]
    DuplicateId,
    /// It has no title.
    #[error("the skill has no title")]
    MissingTitle,
    /// It has no instructions.
    #[error("the skill has no instructions")]
    MissingContent,
    /// A field is over its bound.
    #[error("the skill's {} is too long (at most {max})", field.code())]
    TooLong {
        /// Which field.
        field: Field,
        /// Its bound (characters, or items for lists).
        max: usize,
    },
}

/// Whether `id` is lower-case ASCII letters and digits in hyphen-separated words, at most
/// [`MAX_ID_CHARS`].
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_CHARS
        && id.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

fn bounded(text: String, field: Field, max: usize) -> Result<String, Refusal> {
    let text = text.trim().to_string();
    if chars(&text) > max {
        return Err(Refusal::TooLong { field, max });
    }
    Ok(text)
}

fn bounded_list(
    list: Vec<String>,
    field: Field,
    items: usize,
    each: usize,
) -> Result<Vec<String>, Refusal> {
    let list: Vec<String> = list
        .into_iter()
        .map(|item| bounded(item, field, each))
        .filter(|item| !matches!(item, Ok(text) if text.is_empty()))
        .collect::<Result<_, _>>()?;
    if list.len() > items {
        return Err(Refusal::TooLong { field, max: items });
    }
    Ok(list)
}

/// Checks and trims a skill's metadata (the requirements first, so a scripted skill is
/// refused as scripted whatever else is wrong with it).
pub fn check_meta(mut meta: SkillMeta) -> Result<SkillMeta, Refusal> {
    let risk = meta.risk;
    if risk.script_required {
        return Err(Refusal::ScriptRequired);
    }
    if risk.external_tool_required {
        return Err(Refusal::ExternalToolRequired);
    }
    if risk.network_required {
        return Err(Refusal::NetworkRequired);
    }
    if risk.file_access_required {
        return Err(Refusal::FileAccessRequired);
    }
    if !risk.text_only {
        return Err(Refusal::NotTextOnly);
    }
    meta.id = meta.id.trim().to_string();
    if !is_valid_id(&meta.id) {
        return Err(Refusal::BadId);
    }
    meta.title = bounded(meta.title, Field::Title, MAX_TITLE_CHARS)?;
    if meta.title.is_empty() {
        return Err(Refusal::MissingTitle);
    }
    meta.description = bounded(meta.description, Field::Description, MAX_DESCRIPTION_CHARS)?;
    meta.tags = bounded_list(meta.tags, Field::Tags, MAX_TAGS, MAX_TAG_CHARS)?;
    let activation = &mut meta.activation;
    for list in [
        &mut activation.use_when,
        &mut activation.avoid_when,
        &mut activation.example_queries,
    ] {
        *list = bounded_list(
            std::mem::take(list),
            Field::Activation,
            MAX_ACTIVATION_ITEMS,
            MAX_ACTIVATION_CHARS,
        )?;
    }
    Ok(meta)
}

/// A skill from its metadata and instructions, or the rule that refuses it.
pub fn normalise(meta: SkillMeta, content: &str) -> Result<TextSkill, Refusal> {
    let meta = check_meta(meta)?;
    let content = bounded(content.to_string(), Field::Content, MAX_CONTENT_CHARS)?;
    if content.is_empty() {
        return Err(Refusal::MissingContent);
    }
    Ok(TextSkill { meta, content })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::meta::SkillRisk;

    fn meta() -> SkillMeta {
        SkillMeta {
            id: "code-review".into(),
            title: " Code review ".into(),
            description: "Reviews code.".into(),
            tags: vec!["review".into(), "  ".into()],
            ..Default::default()
        }
    }

    #[test]
    fn a_text_skill_passes_trimmed() {
        let skill = normalise(meta(), "\n# Code review\nLook for bugs.\n").unwrap();
        assert_eq!(skill.meta.title, "Code review");
        assert_eq!(skill.meta.tags, ["review"]);
        assert_eq!(skill.content, "# Code review\nLook for bugs.");
    }

    #[test]
    fn every_requirement_is_refused_by_its_own_rule() {
        type SetRequirement = fn(&mut SkillRisk);
        let cases: [(SetRequirement, Refusal); 5] = [
            (|r| r.script_required = true, Refusal::ScriptRequired),
            (
                |r| r.external_tool_required = true,
                Refusal::ExternalToolRequired,
            ),
            (|r| r.network_required = true, Refusal::NetworkRequired),
            (
                |r| r.file_access_required = true,
                Refusal::FileAccessRequired,
            ),
            (|r| r.text_only = false, Refusal::NotTextOnly),
        ];
        for (set, rule) in cases {
            let mut m = meta();
            set(&mut m.risk);
            assert_eq!(normalise(m, "text"), Err(rule));
        }
        // A scripted skill is refused as scripted even when its id is bad too.
        let mut m = meta();
        m.id = "Bad".into();
        m.risk.script_required = true;
        assert_eq!(check_meta(m), Err(Refusal::ScriptRequired));
    }

    #[test]
    fn ids_titles_and_bounds() {
        for bad in ["", "Code", "a--b", "-a", "a-", "a_b", "ü", &"a".repeat(65)] {
            assert!(!is_valid_id(bad), "{bad}");
        }
        for good in ["a", "code-review", "x2-y3", &"a".repeat(64)] {
            assert!(is_valid_id(good), "{good}");
        }
        let mut m = meta();
        m.title = " ".into();
        assert_eq!(normalise(m, "x"), Err(Refusal::MissingTitle));
        assert_eq!(normalise(meta(), "  "), Err(Refusal::MissingContent));
        let mut m = meta();
        m.title = "題".repeat(81);
        assert_eq!(
            normalise(m, "x"),
            Err(Refusal::TooLong {
                field: Field::Title,
                max: 80
            })
        );
        let mut m = meta();
        m.title = "題".repeat(80);
        assert!(
            normalise(m, "x").is_ok(),
            "bounds count characters, not bytes"
        );
        let mut m = meta();
        m.tags = (0..13).map(|i| format!("t{i}")).collect();
        assert_eq!(
            normalise(m, "x"),
            Err(Refusal::TooLong {
                field: Field::Tags,
                max: MAX_TAGS
            })
        );
        let mut m = meta();
        m.activation.use_when = vec!["u".repeat(201)];
        assert_eq!(
            normalise(m, "x"),
            Err(Refusal::TooLong {
                field: Field::Activation,
                max: MAX_ACTIVATION_CHARS
            })
        );
        assert_eq!(
            normalise(meta(), &"x".repeat(MAX_CONTENT_CHARS + 1)),
            Err(Refusal::TooLong {
                field: Field::Content,
                max: MAX_CONTENT_CHARS
            })
        );
    }

    #[test]
    fn a_refusal_is_stored_as_its_rule() {
        let json = serde_json::to_string(&Refusal::TooLong {
            field: Field::Tags,
            max: 12,
        })
        .unwrap();
        assert_eq!(json, r#"{"rule":"tooLong","field":"tags","max":12}"#);
        assert_eq!(
            serde_json::to_string(&Refusal::ScriptRequired).unwrap(),
            r#"{"rule":"scriptRequired"}"#
        );
    }
}
