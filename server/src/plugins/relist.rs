//! Listing an installed MCP server's tools again (its list went stale by the server's
//! `ttlMs`, or the user asked): discovered in the revision remembered, the tools it still
//! lists keep their functions' names (the user's switches and earlier replies name
//! them), new ones are named apart from the scope's other plugins, and the caching hint,
//! the revision and what the server offers are kept for the next time. Saving the
//! plugin is the service's ([`super::Plugins::refresh_tools`]).

use std::collections::BTreeSet;

use hearth_core::api::SkippedOperation;
use hearth_core::plugin::{McpInfo, Plugin, mcp};

use crate::mcp::Discovered;

/// The plugin as listed again, with the tools left out and the names added and removed.
#[derive(Debug)]
pub struct Relisted {
    /// The plugin with its new functions and list hint.
    pub plugin: Plugin,
    /// Tools left out, and why.
    pub skipped: Vec<SkippedOperation>,
    /// Function names that are new.
    pub added: Vec<String>,
    /// Function names that are gone.
    pub removed: Vec<String>,
}

/// `plugin` (an MCP plugin, with `server` its MCP part) after `discovered` listed it again
/// at `now_ms`; `taken` are the function names of the scope's other plugins.
pub fn relisted(
    plugin: &Plugin,
    server: &McpInfo,
    discovered: Discovered,
    taken: Vec<String>,
    now_ms: u64,
) -> Relisted {
    let (functions, skipped) = mcp::relisted(
        &server.server_name,
        &discovered.tools,
        &plugin.functions,
        taken,
    );
    let names = |list: &[hearth_core::plugin::PluginFunction]| -> BTreeSet<String> {
        list.iter().map(|f| f.name.clone()).collect()
    };
    let (before, after) = (names(&plugin.functions), names(&functions));
    let mut plugin = plugin.clone();
    plugin.functions = functions;
    plugin.mcp = Some(McpInfo {
        resources: discovered.resources,
        prompts: discovered.prompts,
        // A server that no longer names a known revision keeps the one it had.
        revision: discovered.revision.or_else(|| server.revision.clone()),
        tools_listed_at: Some(now_ms),
        tools_ttl_ms: discovered.tools_ttl_ms,
        ..server.clone()
    });
    Relisted {
        plugin,
        skipped: skipped
            .into_iter()
            .map(|s| SkippedOperation {
                operation: s.operation,
                reason: s.reason,
            })
            .collect(),
        added: after.difference(&before).cloned().collect(),
        removed: before.difference(&after).cloned().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hearth_core::plugin::{Auth, Source};
    use serde_json::json;

    fn discovered(tools: &[&str], ttl: Option<u64>) -> Discovered {
        Discovered {
            server_name: "shop".into(),
            revision: Some("2026-07-28".into()),
            tools: tools.iter().map(|t| json!({"name": t})).collect(),
            tools_ttl_ms: ttl,
            resources: true,
            prompts: false,
        }
    }

    #[test]
    fn a_tool_added_and_one_removed_are_reported_and_the_rest_keep_their_names() {
        let (functions, _) = mcp::functions("shop", &discovered(&["add", "old"], None).tools, []);
        let server = McpInfo {
            server_url: "https://mcp.example/mcp".into(),
            server_name: "shop".into(),
            resources: false,
            prompts: true,
            headers: [("x-team".to_string(), "a".to_string())].into(),
            revision: Some("2025-11-25".into()),
            tools_listed_at: Some(1),
            tools_ttl_ms: None,
        };
        let plugin = Plugin {
            mcp: Some(server.clone()),
            ..Plugin::new("mcp-shop-1", "shop", Source::Mcp, Auth::Bearer, functions)
        };
        let again = relisted(
            &plugin,
            &server,
            discovered(&["add", "new"], Some(60_000)),
            vec![],
            5_000,
        );
        assert_eq!(again.added, ["mcp_shop__new"]);
        assert_eq!(again.removed, ["mcp_shop__old"]);
        assert_eq!(again.plugin.functions[0].name, "mcp_shop__add");
        let mcp = again.plugin.mcp.unwrap();
        assert_eq!(mcp.tools_listed_at, Some(5_000));
        assert_eq!(mcp.tools_ttl_ms, Some(60_000));
        assert_eq!(mcp.revision.as_deref(), Some("2026-07-28"));
        assert!(mcp.resources && !mcp.prompts);
        // What the user set up is not the server's to change.
        assert_eq!(mcp.headers, server.headers);
        assert_eq!(mcp.server_url, server.server_url);
        assert_eq!(again.plugin.auth, Auth::Bearer);
        assert_eq!(again.plugin.id, "mcp-shop-1");
    }
}
