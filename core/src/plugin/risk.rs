//! Risk levels and the floors each transport sets. Levels are ordered by how much a call
//! can do: `read` < `write` < `external` < `destructive`. The transport decides the
//! floor, whatever a manifest says; a manifest (or an MCP tool annotation) may raise a
//! function above its floor, never below it. Only `destructive` calls can require the
//! user's confirmation; `write` and `external` calls may be approved for a session.

use serde::{Deserialize, Serialize};

use super::method::HttpMethod;

/// What a call may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    /// Reads remote or local context.
    Read,
    /// May create or update external data.
    Write,
    /// May trigger an external service or workflow.
    External,
    /// May delete or overwrite external data.
    Destructive,
}

impl Risk {
    /// The floor of an HTTP operation: `GET` reads, `DELETE` destroys, anything else
    /// writes.
    pub fn floor_for_method(method: HttpMethod) -> Self {
        match method {
            HttpMethod::Get => Risk::Read,
            HttpMethod::Delete => Risk::Destructive,
            HttpMethod::Post | HttpMethod::Put | HttpMethod::Patch => Risk::Write,
        }
    }

    /// The floor of an MCP tool: the server owns the implementation and may act on the
    /// world, so at least `external`; `destructiveHint` raises it. `readOnlyHint` cannot
    /// lower it (a server's claim about itself is not a guarantee).
    pub fn floor_for_mcp(destructive_hint: Option<bool>) -> Self {
        if destructive_hint == Some(true) {
            Risk::Destructive
        } else {
            Risk::External
        }
    }

    /// The effective level: the floor, raised by what the manifest declares.
    pub fn effective(floor: Risk, declared: Option<Risk>) -> Risk {
        declared.map_or(floor, |declared| declared.max(floor))
    }

    /// Whether a call at this level waits for the user when confirmation is on.
    pub fn needs_confirmation(self) -> bool {
        self == Risk::Destructive
    }

    /// Whether the user may approve calls at this level for the rest of a session.
    pub fn session_approvable(self) -> bool {
        matches!(self, Risk::Write | Risk::External)
    }

    /// The level's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Read => "read",
            Risk::Write => "write",
            Risk::External => "external",
            Risk::Destructive => "destructive",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_method_has_its_floor() {
        assert_eq!(Risk::floor_for_method(HttpMethod::Get), Risk::Read);
        assert_eq!(Risk::floor_for_method(HttpMethod::Post), Risk::Write);
        assert_eq!(Risk::floor_for_method(HttpMethod::Put), Risk::Write);
        assert_eq!(Risk::floor_for_method(HttpMethod::Patch), Risk::Write);
        assert_eq!(
            Risk::floor_for_method(HttpMethod::Delete),
            Risk::Destructive
        );
    }

    #[test]
    fn a_manifest_raises_but_never_lowers() {
        // A GET the manifest calls destructive is destructive.
        assert_eq!(
            Risk::effective(Risk::Read, Some(Risk::Destructive)),
            Risk::Destructive
        );
        // A DELETE the manifest calls a read is still destructive.
        assert_eq!(
            Risk::effective(Risk::Destructive, Some(Risk::Read)),
            Risk::Destructive
        );
        // A POST declared `read` stays a write.
        assert_eq!(Risk::effective(Risk::Write, Some(Risk::Read)), Risk::Write);
        assert_eq!(Risk::effective(Risk::Write, None), Risk::Write);
    }

    #[test]
    fn mcp_tools_are_external_unless_they_say_they_destroy() {
        assert_eq!(Risk::floor_for_mcp(None), Risk::External);
        assert_eq!(Risk::floor_for_mcp(Some(false)), Risk::External);
        assert_eq!(Risk::floor_for_mcp(Some(true)), Risk::Destructive);
        // readOnlyHint is not an input: a server cannot talk itself below `external`.
        assert_eq!(
            Risk::effective(Risk::floor_for_mcp(None), Some(Risk::Read)),
            Risk::External
        );
    }

    #[test]
    fn only_destructive_calls_wait_and_only_write_or_external_are_session_approvable() {
        let all = [Risk::Read, Risk::Write, Risk::External, Risk::Destructive];
        let waits: Vec<_> = all.iter().filter(|r| r.needs_confirmation()).collect();
        assert_eq!(waits, [&Risk::Destructive]);
        let approvable: Vec<_> = all.iter().filter(|r| r.session_approvable()).collect();
        assert_eq!(approvable, [&Risk::Write, &Risk::External]);
        assert_eq!(
            serde_json::to_string(&Risk::Destructive).unwrap(),
            "\"destructive\""
        );
    }
}
