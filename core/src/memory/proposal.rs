//! How the model proposes a memory: the internal [`PROPOSE_TOOL`], offered beside the
//! user's tools when memory is on, and the [`MemoryProposal`] a reply keeps until the
//! user saves, edits or dismisses it. A proposal is never a memory by itself: only the
//! user's yes (or the auto-record switch they turned on) makes one, and what the model
//! wrote passes the same [`super::normalise`] as anything else.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{MAX_CONTENT_CHARS, MAX_IMPORTANCE, MAX_TAGS, MIN_IMPORTANCE, MemoryDraft, MemoryKind};
use crate::plugin::risk::Risk;
use crate::plugin::selection::{ToolTarget, Toolset};
use crate::provider::request::ToolSpec;

/// The tool the model proposes a memory with.
pub const PROPOSE_TOOL: &str = "propose_memory";
/// Its plugin id (reserved: no installed plugin can take it).
pub const MEMORY_PLUGIN_ID: &str = "builtin:memory";
/// What the model reads when its proposal waits for the user.
pub const PROPOSED_RESULT: &str =
    "Proposed to the user, who decides whether it is kept. Do not mention it again.";
/// What the model reads when the proposal was kept (the user's auto-record switch).
pub const SAVED_RESULT: &str = "Saved to the user's memory.";

/// Where a proposal stands (a plain name: every stored message reads it, so it stays
/// cheap to decode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ProposalState {
    /// Waiting for the user.
    #[default]
    Pending,
    /// Kept (as [`MemoryProposal::memory_id`]).
    Saved,
    /// The user said no.
    Dismissed,
}

/// A memory the model proposed in a reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MemoryProposal {
    /// The call that proposed it.
    pub id: String,
    /// What it says, checked.
    pub draft: MemoryDraft,
    /// Where it stands.
    pub state: ProposalState,
    /// The memory it became, once saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_id: Option<String>,
}

/// The tool's description and schema.
pub fn tool_spec() -> ToolSpec {
    let kinds: Vec<&str> = MemoryKind::ALL.iter().map(|k| k.as_str()).collect();
    ToolSpec {
        name: PROPOSE_TOOL.into(),
        description: "Propose a memory: a lasting fact about the user or their work that \
                      would help in later conversations (a preference, a project, someone \
                      they mention). The user reviews it before it is kept. Use it rarely, \
                      only for what the user would want remembered; never for secrets, \
                      passwords or one-off details. Keep answering the user as usual."
            .into(),
        parameters: json!({
            "type": "object",
            "required": ["content"],
            "additionalProperties": false,
            "properties": {
                "content": {"type": "string", "minLength": 1, "maxLength": MAX_CONTENT_CHARS,
                    "description": "The fact, in one or two sentences, about the user in the third person"},
                "kind": {"type": "string", "enum": kinds},
                "importance": {"type": "integer", "minimum": MIN_IMPORTANCE, "maximum": MAX_IMPORTANCE,
                    "description": "5 only for what matters in nearly every conversation"},
                "tags": {"type": "array", "maxItems": MAX_TAGS, "items": {"type": "string", "maxLength": 32}}
            }
        }),
    }
}

/// `toolset` with the memory tool offered too, unless an installed tool already takes
/// its name (then memory is not proposed this turn; the user's tool keeps its name).
pub fn offer(toolset: &mut Toolset) {
    if toolset.targets.contains_key(PROPOSE_TOOL) {
        return;
    }
    toolset.specs.push(tool_spec());
    toolset.targets.insert(
        PROPOSE_TOOL.into(),
        ToolTarget {
            plugin_id: MEMORY_PLUGIN_ID.into(),
            plugin_title: "Memory".into(),
            function: PROPOSE_TOOL.into(),
            risk: Risk::Read,
            fingerprint: "memory-v1".into(),
            needs_auth: false,
            has_page: false,
        },
    );
}

/// The draft a call's arguments propose, checked; the sentence the model reads when
/// they cannot be used.
pub fn draft_of(arguments: &Map<String, Value>) -> Result<MemoryDraft, String> {
    let content = arguments
        .get("content")
        .and_then(Value::as_str)
        .ok_or("`content` must be a string.")?;
    let kind = match arguments.get("kind") {
        None | Some(Value::Null) => MemoryKind::Fact,
        Some(value) => value
            .as_str()
            .and_then(MemoryKind::from_name)
            .ok_or("`kind` must be one of fact, preference, project, person.")?,
    };
    let importance = match arguments.get("importance") {
        None | Some(Value::Null) => 0,
        Some(value) => value
            .as_u64()
            .filter(|n| (u64::from(MIN_IMPORTANCE)..=u64::from(MAX_IMPORTANCE)).contains(n))
            .map(|n| n as u8)
            .ok_or("`importance` must be a whole number from 1 to 5.")?,
    };
    let tags = match arguments.get("tags") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        Some(_) => return Err("`tags` must be a list of strings.".into()),
    };
    super::normalise(MemoryDraft {
        kind,
        content: content.to_string(),
        importance,
        tags,
    })
    .map_err(|error| format!("The memory was not proposed: {error}."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::args::check;

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn a_proposal_is_read_from_the_call_and_checked() {
        let draft = draft_of(&args(json!({
            "content": " The user is learning Rust. ",
            "kind": "project",
            "importance": 4,
            "tags": ["Rust", "learning"]
        })))
        .unwrap();
        assert_eq!(draft.content, "The user is learning Rust.");
        assert_eq!(draft.kind, MemoryKind::Project);
        assert_eq!(draft.importance, 4);
        assert_eq!(draft.tags, ["rust", "learning"]);
        let plain = draft_of(&args(json!({"content": "Likes tea."}))).unwrap();
        assert_eq!((plain.kind, plain.importance), (MemoryKind::Fact, 3));
        for (bad, says) in [
            (json!({}), "`content`"),
            (json!({"content": 3}), "`content`"),
            (json!({"content": "  "}), "empty"),
            (
                json!({"content": "x".repeat(MAX_CONTENT_CHARS + 1)}),
                "longer",
            ),
            (json!({"content": "a", "kind": "secret"}), "`kind`"),
            (json!({"content": "a", "importance": 9}), "`importance`"),
            (
                json!({"content": "a", "importance": "high"}),
                "`importance`",
            ),
            (json!({"content": "a", "tags": "x"}), "`tags`"),
        ] {
            let error = draft_of(&args(bad.clone())).unwrap_err();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }

    #[test]
    fn the_tool_is_offered_once_and_never_over_a_users_tool() {
        let spec = tool_spec();
        assert!(
            check(
                &json!({"content": "Likes tea.", "kind": "preference"}),
                &spec.parameters
            )
            .is_ok()
        );
        assert!(check(&json!({"content": "a", "extra": 1}), &spec.parameters).is_err());
        let mut toolset = Toolset::default();
        offer(&mut toolset);
        offer(&mut toolset);
        assert_eq!(toolset.specs.len(), 1);
        let target = &toolset.targets[PROPOSE_TOOL];
        assert_eq!(target.plugin_id, MEMORY_PLUGIN_ID);
        assert!(crate::plugin::registry::is_reserved(MEMORY_PLUGIN_ID));
        // An installed tool with the same name keeps it; memory is not offered.
        let mut taken = Toolset::default();
        taken.targets.insert(
            PROPOSE_TOOL.into(),
            ToolTarget {
                plugin_id: "mcp:notes".into(),
                ..target.clone()
            },
        );
        offer(&mut taken);
        assert!(taken.specs.is_empty());
        assert_eq!(taken.targets[PROPOSE_TOOL].plugin_id, "mcp:notes");
    }

    #[test]
    fn a_proposal_keeps_its_state_through_storage() {
        for (state, memory_id) in [
            (ProposalState::Pending, None),
            (ProposalState::Saved, Some("m1".to_string())),
            (ProposalState::Dismissed, None),
        ] {
            let proposal = MemoryProposal {
                id: "call-1".into(),
                draft: MemoryDraft {
                    content: "Likes tea.".into(),
                    ..Default::default()
                },
                state,
                memory_id,
            };
            let stored = serde_json::to_value(&proposal).unwrap();
            assert_eq!(
                serde_json::from_value::<MemoryProposal>(stored).unwrap(),
                proposal
            );
        }
    }
}
