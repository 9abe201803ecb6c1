//! What the browser asks of an installed MCP server through the edge, each with the
//! plugin's credential sealed for that request: its tools listed again (and when they
//! are due, [`super::tool_lists`]), its prompts and its resources.

use hearth_core::api::{
    McpPromptsAction, McpPromptsRequest, McpResourcesAction, McpResourcesRequest,
    PluginRefreshRequest, PluginRefreshResponse,
};
use hearth_core::plugin::selection::ToolPreferences;
use leptos::prelude::*;
use serde_json::Value;

use super::{CallError, Plugins, tool_lists};
use crate::edge;

impl Plugins {
    /// Lists an MCP plugin's tools again through the edge, with its credential sealed
    /// for it, and shows the plugin as now registered. A failure leaves the list as it
    /// was, tried again later ([`tool_lists::RETRY_MS`]).
    pub async fn refresh_tools(&self, plugin_id: &str) -> Result<PluginRefreshResponse, CallError> {
        tool_lists::set_in_flight(plugin_id, true);
        let answer = self
            .sealed_call(plugin_id, async |auth| {
                let request = PluginRefreshRequest {
                    plugin_id: plugin_id.to_string(),
                    auth,
                };
                edge::refresh_plugin(&request).await
            })
            .await;
        tool_lists::set_in_flight(plugin_id, false);
        let now = crate::browser::now();
        match &answer {
            Ok(refreshed) => {
                tool_lists::note_relisted(&refreshed.registered, now);
                let registered = refreshed.registered.clone();
                self.installed.update(|list| {
                    if let Some(slot) = list.iter_mut().find(|r| r.plugin.id == plugin_id) {
                        *slot = registered;
                    }
                });
            }
            Err(_) => tool_lists::put_off(plugin_id, now),
        }
        answer
    }

    /// The installed MCP plugins switched on in `prefs` whose tools are due to be listed
    /// again at `now`.
    pub fn stale_tool_lists(&self, prefs: &ToolPreferences, now: f64) -> Vec<String> {
        self.installed.with_untracked(|list| {
            list.iter()
                .map(|r| &r.plugin)
                .filter(|p| p.mcp.is_some() && prefs.plugin_on(p))
                .filter(|p| tool_lists::is_stale(&p.id, now))
                .map(|p| p.id.clone())
                .collect()
        })
    }

    /// Lists an MCP plugin's prompts, or gets one, through the edge, with the plugin's
    /// credential sealed for it; the server's result.
    pub async fn mcp_prompts(
        &self,
        plugin_id: &str,
        action: McpPromptsAction,
    ) -> Result<Value, CallError> {
        self.sealed_call(plugin_id, async |auth| {
            let request = McpPromptsRequest {
                plugin_id: plugin_id.to_string(),
                auth,
                action: action.clone(),
            };
            edge::mcp_prompts(&request).await
        })
        .await
    }

    /// Lists an MCP plugin's resources, or reads one, through the edge, with the plugin's
    /// credential sealed for it; the server's result.
    pub async fn mcp_resources(
        &self,
        plugin_id: &str,
        action: McpResourcesAction,
    ) -> Result<Value, CallError> {
        self.sealed_call(plugin_id, async |auth| {
            let request = McpResourcesRequest {
                plugin_id: plugin_id.to_string(),
                auth,
                action: action.clone(),
            };
            edge::mcp_resources(&request).await
        })
        .await
    }
}
