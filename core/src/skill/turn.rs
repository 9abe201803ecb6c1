//! What one turn takes from the skill library. Only installed, active skills ever reach a
//! request. With auto-selection off (or a model that takes no tools) every active skill
//! is injected; with it on, the model is first offered one internal tool,
//! [`SELECT_TOOL`], listing the active skills' metadata, and the skills it names (at most
//! [`MAX_AUTO`], only from that list) are injected. The chosen skills' instructions join
//! the system prompt after the user's own, and the reply records which were applied and
//! how ([`AppliedSkill`]).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::library::{InstalledSkill, SkillLibrary};
use super::normalise::TextSkill;
use crate::provider::request::{ChatRequest, Message, Part, ToolSpec};
use crate::provider::tool_calls::ToolCall;

/// The internal tool through which the model chooses skills.
pub const SELECT_TOOL: &str = "select_text_skills";
/// The most skills the model may choose for one turn.
pub const MAX_AUTO: usize = 4;
/// How much of the question the selection request shows, in characters.
const QUESTION_EXCERPT_CHARS: usize = 2_000;
/// The most tokens the selection answer may use.
const SELECTION_MAX_TOKENS: u64 = 200;

/// How a skill came to be applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SkillMode {
    /// Active, and auto-selection was off: applied as the user set it.
    #[default]
    Manual,
    /// The model chose it.
    Auto,
}

/// A skill applied to a reply, as the reply records it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AppliedSkill {
    /// Its id.
    pub id: String,
    /// Its title when it was applied.
    pub title: String,
    /// How it came to be applied.
    pub mode: SkillMode,
}

/// What a turn does with the library.
#[derive(Debug, Clone, PartialEq)]
pub enum SkillPlan<'a> {
    /// No active skills: nothing is added, nothing mentions skills.
    Nothing,
    /// Apply these (auto-selection off, or a model without tools).
    Inject(Vec<&'a InstalledSkill>),
    /// Let the model choose among these first.
    Choose(Vec<&'a InstalledSkill>),
}

/// The plan for a turn on a model that does (or does not) take tools.
pub fn plan(library: &SkillLibrary, model_takes_tools: bool) -> SkillPlan<'_> {
    plan_of(library.active_skills(), library, model_takes_tools)
}

/// The plan for a turn with `active` skills of `library` (its own active set, or the
/// ones a workspace names: `crate::workspace::scope::active_skills`).
pub fn plan_of<'a>(
    active: Vec<&'a InstalledSkill>,
    library: &SkillLibrary,
    model_takes_tools: bool,
) -> SkillPlan<'a> {
    if active.is_empty() {
        SkillPlan::Nothing
    } else if library.auto_select && model_takes_tools {
        SkillPlan::Choose(active)
    } else {
        SkillPlan::Inject(active)
    }
}

/// The record of `skills` applied in `mode`.
pub fn applied(skills: &[&InstalledSkill], mode: SkillMode) -> Vec<AppliedSkill> {
    skills
        .iter()
        .map(|s| AppliedSkill {
            id: s.id().to_string(),
            title: s.skill.meta.title.clone(),
            mode,
        })
        .collect()
}

/// The system prompt section holding `skills`' instructions; `None` without skills.
pub fn system_section(skills: &[&TextSkill]) -> Option<String> {
    if skills.is_empty() {
        return None;
    }
    let mut out = String::from(
        "The user turned on the skills below. Follow each skill's instructions where they \
         apply to the conversation; the user's explicit requests come first.",
    );
    for skill in skills {
        out.push_str(&format!(
            "\n\n<skill id=\"{}\" title=\"{}\">\n{}\n</skill>",
            skill.meta.id,
            skill.meta.title.replace('"', "'"),
            skill.content
        ));
    }
    Some(out)
}

/// The system prompt with `skills` after the user's own prompt.
pub fn with_skills(system: Option<String>, skills: &[&TextSkill]) -> Option<String> {
    match (system, system_section(skills)) {
        (Some(system), Some(section)) => Some(format!("{system}\n\n{section}")),
        (system, section) => system.or(section),
    }
}

fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(QUESTION_EXCERPT_CHARS).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// The internal tool offered for the choice among `candidates`.
pub fn selection_tool(candidates: &[&InstalledSkill]) -> ToolSpec {
    let ids: Vec<&str> = candidates.iter().map(|s| s.id()).collect();
    ToolSpec {
        name: SELECT_TOOL.to_string(),
        description: format!(
            "Choose the skills whose instructions should shape the answer to the user's \
             message: at most {MAX_AUTO}, only ids from the list, an empty list when none \
             clearly applies."
        ),
        parameters: json!({
            "type": "object",
            "properties": {
                "skill_ids": {
                    "type": "array",
                    "items": {"type": "string", "enum": ids},
                    "maxItems": MAX_AUTO,
                    "description": "Ids of the chosen skills, most useful first."
                }
            },
            "required": ["skill_ids"],
            "additionalProperties": false
        }),
    }
}

/// The request in which `model` chooses skills for `question` among `candidates`.
pub fn selection_request(
    model: &str,
    question: &str,
    candidates: &[&InstalledSkill],
) -> ChatRequest {
    let mut list = String::new();
    for skill in candidates {
        let meta = &skill.skill.meta;
        list.push_str(&format!(
            "- {}: {}. {}",
            meta.id, meta.title, meta.description
        ));
        if !meta.activation.use_when.is_empty() {
            list.push_str(&format!(
                " Use when: {}.",
                meta.activation.use_when.join("; ")
            ));
        }
        if !meta.activation.avoid_when.is_empty() {
            list.push_str(&format!(
                " Avoid when: {}.",
                meta.activation.avoid_when.join("; ")
            ));
        }
        list.push('\n');
    }
    let system = format!(
        "You decide which of the user's skills help answer their next message. Call \
         {SELECT_TOOL} once with the ids of the skills that clearly apply (at most \
         {MAX_AUTO}; an empty list when none does). Do not answer the message itself.\n\n\
         Skills:\n{list}"
    );
    ChatRequest {
        model: model.to_string(),
        system: Some(system),
        messages: vec![Message::User {
            parts: vec![Part::Text {
                text: format!("The user's next message:\n\n{}", excerpt(question)),
            }],
        }],
        tools: vec![selection_tool(candidates)],
        max_output_tokens: Some(SELECTION_MAX_TOKENS),
        ..Default::default()
    }
}

/// The ids the model chose through [`SELECT_TOOL`] in `calls`: only candidates, each
/// once, at most [`MAX_AUTO`], in the model's order. Anything else (no call, other
/// tools, malformed arguments) chooses nothing.
pub fn chosen(calls: &[ToolCall], candidates: &[&InstalledSkill]) -> Vec<String> {
    let Some(args) = calls
        .iter()
        .filter(|call| call.name == SELECT_TOOL)
        .find_map(|call| call.arguments.as_ref().ok())
    else {
        return Vec::new();
    };
    let Some(Value::Array(ids)) = args.get("skill_ids") else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for id in ids.iter().filter_map(Value::as_str) {
        if out.len() == MAX_AUTO {
            break;
        }
        if candidates.iter().any(|s| s.id() == id) && !out.iter().any(|o| o == id) {
            out.push(id.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::catalog::SkillMeta;

    fn library(n: usize, auto: bool) -> SkillLibrary {
        let mut lib = SkillLibrary {
            auto_select: auto,
            ..Default::default()
        };
        for i in 0..n {
            let meta = SkillMeta {
                id: format!("s{i}"),
                title: format!("Skill {i}"),
                description: format!("Does {i}."),
                ..Default::default()
            };
            lib.install_builtin(meta, &format!("Instructions {i}."), "en", 0.0)
                .unwrap();
        }
        lib
    }

    fn call(name: &str, args: Value) -> ToolCall {
        ToolCall {
            index: 0,
            id: "c".into(),
            name: name.into(),
            raw_arguments: args.to_string(),
            arguments: match args {
                Value::Object(map) => Ok(map),
                _ => Err(crate::provider::tool_calls::ToolCallError::NotAnObject),
            },
            signature: String::new(),
        }
    }

    #[test]
    fn only_active_installed_skills_are_planned() {
        let mut lib = library(3, false);
        assert_eq!(plan(&lib, true), SkillPlan::Nothing);
        lib.set_active("s2", true).unwrap();
        lib.set_active("s0", true).unwrap();
        let SkillPlan::Inject(skills) = plan(&lib, true) else {
            panic!()
        };
        assert_eq!(
            skills.iter().map(|s| s.id()).collect::<Vec<_>>(),
            ["s2", "s0"]
        );
        lib.auto_select = true;
        assert!(matches!(plan(&lib, true), SkillPlan::Choose(s) if s.len() == 2));
        // A model that takes no tools cannot choose: every active skill applies.
        assert!(matches!(plan(&lib, false), SkillPlan::Inject(s) if s.len() == 2));
    }

    #[test]
    fn the_system_prompt_keeps_the_users_text_first() {
        let lib = library(2, false);
        let skills: Vec<&TextSkill> = lib.installed.iter().map(|s| &s.skill).collect();
        let system = with_skills(Some("Be brief.".into()), &skills).unwrap();
        assert!(system.starts_with("Be brief.\n\nThe user turned on the skills below."));
        assert!(system.contains("<skill id=\"s1\" title=\"Skill 1\">\nInstructions 1.\n</skill>"));
        assert_eq!(with_skills(Some("x".into()), &[]), Some("x".into()));
        assert_eq!(with_skills(None, &[]), None);
    }

    #[test]
    fn the_choice_is_bounded_to_the_candidates() {
        let mut lib = library(6, true);
        for i in 0..6 {
            lib.set_active(&format!("s{i}"), true).unwrap();
        }
        let candidates = lib.active_skills();
        let request = selection_request("m", &"q".repeat(5_000), &candidates);
        assert_eq!(request.tools.len(), 1);
        assert_eq!(request.tools[0].name, SELECT_TOOL);
        assert!(
            request
                .system
                .as_deref()
                .unwrap()
                .contains("- s5: Skill 5. Does 5.")
        );
        let ids = json!({"skill_ids": ["s3", "nope", "s3", "s1", "s0", "s2", "s4"]});
        assert_eq!(
            chosen(&[call(SELECT_TOOL, ids)], &candidates),
            ["s3", "s1", "s0", "s2"]
        );
        assert!(chosen(&[call("other", json!({"skill_ids": ["s1"]}))], &candidates).is_empty());
        assert!(
            chosen(
                &[call(SELECT_TOOL, json!({"skill_ids": "s1"}))],
                &candidates
            )
            .is_empty()
        );
        assert!(chosen(&[call(SELECT_TOOL, json!([1]))], &candidates).is_empty());
        assert!(chosen(&[], &candidates).is_empty());
    }

    #[test]
    fn applied_skills_are_recorded_with_their_mode() {
        let mut lib = library(1, true);
        lib.set_active("s0", true).unwrap();
        let record = applied(&lib.active_skills(), SkillMode::Auto);
        assert_eq!(
            serde_json::to_value(&record).unwrap(),
            json!([{"id": "s0", "title": "Skill 0", "mode": "auto"}])
        );
    }
}
