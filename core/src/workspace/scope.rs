//! What a conversation's assistant and workspace change in its turns: the tools offered
//! and the skills applied (only those named, when either names them: the assistant's,
//! the more particular, before the workspace's), and the knowledge collections searched
//! (the workspace's, then the conversation's own). With neither, or where neither names
//! anything, the user's own switches stand.

use std::collections::BTreeSet;

use super::Workspace;
use crate::assistant::Assistant;
use crate::plugin::selection::ToolPreferences;
use crate::skill::{InstalledSkill, SkillLibrary};

/// The tools and skills a turn is limited to; `None`: the user's own switches.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits<'a> {
    /// The only plugins (ids) offered.
    pub plugins: Option<&'a BTreeSet<String>>,
    /// The only skills (ids) applied, among the installed ones.
    pub skills: Option<&'a BTreeSet<String>>,
}

/// The limits of a turn with `assistant` in `workspace`: each list the assistant names,
/// else the workspace's.
pub fn limits<'a>(
    assistant: Option<&'a Assistant>,
    workspace: Option<&'a Workspace>,
) -> Limits<'a> {
    Limits {
        plugins: assistant
            .and_then(|a| a.plugins.as_ref())
            .or_else(|| workspace.and_then(|w| w.plugins.as_ref())),
        skills: assistant
            .and_then(|a| a.skills.as_ref())
            .or_else(|| workspace.and_then(|w| w.skills.as_ref())),
    }
}

/// The tool switches of a turn under `limits`: when they name plugins, each of
/// `plugin_ids` (every plugin there is) is on exactly when named; the user's function
/// switches and confirmation stay.
pub fn tool_preferences<'a>(
    prefs: &ToolPreferences,
    limits: Limits<'_>,
    plugin_ids: impl IntoIterator<Item = &'a str>,
) -> ToolPreferences {
    let mut scoped = prefs.clone();
    if let Some(only) = limits.plugins {
        for id in plugin_ids {
            scoped.set_plugin(id, only.contains(id));
        }
    }
    scoped
}

/// The active skills of a turn under `limits`: when they name skills, those of them
/// installed (in the order installed, as many as may be active at once); otherwise the
/// user's active ones. Nothing is copied (`docs/BENCHMARKS.md`, "Skills in a turn").
pub fn active_skills<'a>(library: &'a SkillLibrary, limits: Limits<'_>) -> Vec<&'a InstalledSkill> {
    let Some(only) = limits.skills else {
        return library.active_skills();
    };
    library
        .installed
        .iter()
        .filter(|s| only.contains(s.id()))
        .take(crate::skill::library::MAX_ACTIVE)
        .collect()
}

/// The collections a turn in `workspace` is answered from: the workspace's, then the
/// conversation's own (`own`), each once.
pub fn collections(workspace: Option<&Workspace>, own: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in workspace
        .map_or(&[][..], |w| &w.knowledge[..])
        .iter()
        .chain(own)
    {
        if !out.contains(id) {
            out.push(id.clone());
        }
    }
    out
}
