//! The installed MCP servers' prompts (for the `/` menu) and resources (for the `@`
//! menu): each server that offers them is asked once per page, the first time a menu
//! needs them (through the edge, with the plugin's credential sealed for it), and the
//! answer kept for the page: the list, or why there is none to show (said in the menu,
//! never an empty list in silence).

use std::collections::BTreeMap;

use hearth_core::api::{McpPromptsAction, McpResourcesAction};
use hearth_core::plugin::mcp_prompt::{McpPrompt, read_prompt_list};
use hearth_core::plugin::mcp_resource::{McpResource, read_resource_list};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::plugins::{ListState, Plugins};

/// What a server offers the composer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Offer {
    /// Prompts, for `/`.
    Prompts,
    /// Resources, for `@`.
    Resources,
}

/// What is known of one server's offer.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Listing {
    /// Being asked.
    Asking,
    /// Its prompts (perhaps none).
    Prompts(Vec<McpPrompt>),
    /// Its resources (perhaps none).
    Resources(Vec<McpResource>),
    /// The server or the edge failed (why, in the words of `CallError`).
    Failed(String),
}

/// One server and what is known of its offer.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Server {
    /// Its plugin id.
    pub plugin_id: String,
    /// Its title.
    pub title: String,
    /// Its list, or why not.
    pub listing: Listing,
}

thread_local! {
    /// Every server's listings this page, by offer and plugin id: asked once, kept.
    static LISTINGS: ArcRwSignal<BTreeMap<(Offer, String), Listing>> =
        ArcRwSignal::new(BTreeMap::new());
}

fn listings() -> ArcRwSignal<BTreeMap<(Offer, String), Listing>> {
    LISTINGS.with(Clone::clone)
}

/// Whether the plugin's server says it has `offer`.
fn offers(plugin: &hearth_core::plugin::Plugin, offer: Offer) -> bool {
    plugin.mcp.as_ref().is_some_and(|m| match offer {
        Offer::Prompts => m.prompts,
        Offer::Resources => m.resources,
    })
}

/// Asks every installed server that has `offer` and was not asked yet (the plugin list
/// itself first, if it was not listed yet).
pub(super) fn ask(plugins: Plugins, offer: Offer) {
    spawn_local(async move {
        plugins.ensure_listed().await;
        if plugins.state.get_untracked() != ListState::Ready {
            return;
        }
        let offering: Vec<String> = plugins.installed.with_untracked(|installed| {
            installed
                .iter()
                .filter(|p| offers(&p.plugin, offer))
                .map(|p| p.plugin.id.clone())
                .collect()
        });
        let all = listings();
        for plugin_id in offering {
            let key = (offer, plugin_id.clone());
            if all.with_untracked(|l| l.contains_key(&key)) {
                continue;
            }
            all.update(|l| {
                l.insert(key.clone(), Listing::Asking);
            });
            let all = all.clone();
            spawn_local(async move {
                let listing = match offer {
                    Offer::Prompts => plugins
                        .mcp_prompts(&plugin_id, McpPromptsAction::List)
                        .await
                        .map(|result| Listing::Prompts(read_prompt_list(&result))),
                    Offer::Resources => plugins
                        .mcp_resources(&plugin_id, McpResourcesAction::List)
                        .await
                        .map(|result| Listing::Resources(read_resource_list(&result))),
                }
                .unwrap_or_else(|error| Listing::Failed(error.to_string()));
                all.update(|l| {
                    l.insert(key, listing);
                });
            });
        }
    });
}

/// The servers asked for `offer`, with what is known of them (tracked), in the order
/// installed.
pub(super) fn servers(plugins: Plugins, offer: Offer) -> Vec<Server> {
    let all = listings();
    plugins.installed.with(|installed| {
        all.with(|listings| {
            installed
                .iter()
                .filter_map(|p| {
                    Some(Server {
                        plugin_id: p.plugin.id.clone(),
                        title: p.plugin.title.clone(),
                        listing: listings.get(&(offer, p.plugin.id.clone()))?.clone(),
                    })
                })
                .collect()
        })
    })
}
