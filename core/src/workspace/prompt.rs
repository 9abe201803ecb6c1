//! The system prompt of a turn, from up to three sets of instructions: the user's own
//! (Settings › System), the conversation's workspace's, and the conversation's. They are
//! joined in that order, the more particular later and said to take precedence where
//! they disagree (conversation > workspace > user's); one that repeats an earlier one is
//! left out, and one alone is sent as written. The reply records which applied
//! ([`AppliedPrompt`]), so its details can say so.

use serde::{Deserialize, Serialize};

/// Where a set of instructions comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PromptLevel {
    /// The user's own, for every conversation.
    Global,
    /// The conversation's workspace's.
    Workspace,
    /// The conversation's own.
    Conversation,
}

/// A set of instructions a reply was written with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedPrompt {
    /// Where it came from.
    pub level: PromptLevel,
    /// The workspace's name, for [`PromptLevel::Workspace`]; for
    /// [`PromptLevel::Conversation`], the name of the assistant the conversation started
    /// with while its instructions are still that assistant's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The instructions a turn may carry, each `None` or blank when there are none.
#[derive(Debug, Clone, Copy, Default)]
pub struct Instructions<'a> {
    /// The user's own.
    pub global: Option<&'a str>,
    /// The workspace's, with its name.
    pub workspace: Option<(&'a str, &'a str)>,
    /// The conversation's own.
    pub conversation: Option<&'a str>,
    /// The assistant the conversation started with: its instructions and name.
    pub assistant: Option<(&'a str, &'a str)>,
}

/// A turn's system prompt and where its parts came from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Assembled {
    /// The system prompt (`None`: no instructions at all).
    pub system: Option<String>,
    /// The instructions it holds, in order.
    pub applied: Vec<AppliedPrompt>,
}

/// The heading before the workspace's instructions when the user's come first.
const WORKSPACE_HEADING: &str = "Instructions for this workspace (where they differ from the \
                                 instructions above, these take precedence):";
/// The heading before the conversation's instructions when others come first.
const CONVERSATION_HEADING: &str = "Instructions for this conversation (where they differ from \
                                    the instructions above, these take precedence):";

/// The text compared to find a repeat: words, whatever the spaces between them.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` trimmed, `None` when blank.
fn blank(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|t| !t.is_empty())
}

/// The assistant's name when the conversation's instructions are still its own
/// (whatever the spacing).
fn assistant_name(instructions: Instructions<'_>) -> Option<String> {
    let (prompt, name) = instructions.assistant?;
    let own = blank(instructions.conversation)?;
    (words(own) == words(prompt)).then(|| name.to_string())
}

/// The system prompt of a turn with `instructions`.
pub fn assemble(instructions: Instructions<'_>) -> Assembled {
    let parts = [
        (PromptLevel::Global, blank(instructions.global), None),
        (
            PromptLevel::Workspace,
            blank(instructions.workspace.map(|(text, _)| text)),
            instructions.workspace.map(|(_, name)| name.to_string()),
        ),
        (
            PromptLevel::Conversation,
            blank(instructions.conversation),
            assistant_name(instructions),
        ),
    ];
    let mut out = Assembled::default();
    let mut seen: Vec<String> = Vec::new();
    for (level, text, name) in parts {
        let Some(text) = text else { continue };
        let key = words(text);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let section = match (&out.system, level) {
            (None, _) | (_, PromptLevel::Global) => text.to_string(),
            (Some(_), PromptLevel::Workspace) => format!("{WORKSPACE_HEADING}\n{text}"),
            (Some(_), PromptLevel::Conversation) => format!("{CONVERSATION_HEADING}\n{text}"),
        };
        out.system = Some(match out.system.take() {
            Some(before) => format!("{before}\n\n{section}"),
            None => section,
        });
        out.applied.push(AppliedPrompt { level, name });
    }
    out
}

/// The record of `applied` a reply keeps (JSON text; `None` when nothing applied).
pub fn encode(applied: &[AppliedPrompt]) -> Option<String> {
    (!applied.is_empty())
        .then(|| serde_json::to_string(applied).ok())
        .flatten()
}

/// What a reply's record says applied (nothing, when it cannot be read).
pub fn decode(text: Option<&str>) -> Vec<AppliedPrompt> {
    text.and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default()
}
