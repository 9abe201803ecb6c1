//! The installed MCP servers' prompts for the `/` menu: each server that offers prompts
//! is asked once per page, the first time the menu opens (through the edge, with the
//! plugin's credential sealed for it), and the answer kept for the page: the prompts, or
//! why there are none to show (said in the menu, never an empty list in silence).

use std::collections::BTreeMap;

use hearth_core::api::McpPromptsAction;
use hearth_core::plugin::mcp_prompt::{McpPrompt, read_prompt_list};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::plugins::{ListState, Plugins};

/// What is known of one server's prompts.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Listing {
    /// Being asked.
    Asking,
    /// Listed (perhaps none).
    Listed(Vec<McpPrompt>),
    /// The server or the edge failed (why, in the words of `CallError`).
    Failed(String),
}

/// One server that offers prompts.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Server {
    /// Its plugin id.
    pub plugin_id: String,
    /// Its title.
    pub title: String,
    /// Its prompts, or why not.
    pub listing: Listing,
}

thread_local! {
    /// Every server's listing this page, by plugin id: asked once, kept for the page.
    static LISTINGS: ArcRwSignal<BTreeMap<String, Listing>> = ArcRwSignal::new(BTreeMap::new());
}

fn listings() -> ArcRwSignal<BTreeMap<String, Listing>> {
    LISTINGS.with(Clone::clone)
}

/// Asks every installed server that offers prompts and was not asked yet (the plugin
/// list itself first, if it was not listed yet).
pub(super) fn ask(plugins: Plugins) {
    spawn_local(async move {
        plugins.ensure_listed().await;
        if plugins.state.get_untracked() != ListState::Ready {
            return;
        }
        let offering: Vec<String> = plugins.installed.with_untracked(|installed| {
            installed
                .iter()
                .filter(|p| p.plugin.mcp.as_ref().is_some_and(|m| m.prompts))
                .map(|p| p.plugin.id.clone())
                .collect()
        });
        let all = listings();
        for plugin_id in offering {
            if all.with_untracked(|l| l.contains_key(&plugin_id)) {
                continue;
            }
            all.update(|l| {
                l.insert(plugin_id.clone(), Listing::Asking);
            });
            let all = all.clone();
            spawn_local(async move {
                let listing = match plugins
                    .mcp_prompts(&plugin_id, McpPromptsAction::List)
                    .await
                {
                    Ok(result) => Listing::Listed(read_prompt_list(&result)),
                    Err(error) => Listing::Failed(error.to_string()),
                };
                all.update(|l| {
                    l.insert(plugin_id, listing);
                });
            });
        }
    });
}

/// The servers that offer prompts, with what is known of them (tracked), in the order
/// installed.
pub(super) fn servers(plugins: Plugins) -> Vec<Server> {
    let all = listings();
    plugins.installed.with(|installed| {
        all.with(|listings| {
            installed
                .iter()
                .filter_map(|p| {
                    Some(Server {
                        plugin_id: p.plugin.id.clone(),
                        title: p.plugin.title.clone(),
                        listing: listings.get(&p.plugin.id)?.clone(),
                    })
                })
                .collect()
        })
    })
}
