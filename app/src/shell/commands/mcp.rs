//! The installed MCP servers' prompts (for the `/` menu) and resources (for the `@`
//! menu): each server that offers them is asked the first time a menu needs them
//! (through the edge, with the plugin's credential sealed for it), and the answer kept:
//! the list, or why there is none to show (said in the menu, never an empty list in
//! silence). A list is kept as long as the server's caching hint says
//! (`core::plugin::mcp_list`; for the page when it gives none) and asked again when a
//! menu next needs it, the old list shown meanwhile; a failure is asked again next time.
//! A list the server gave for one user only (`cacheScope: private`, or no scope) is not
//! shown once the plugin's credential changed (signed out, or in again): it is asked
//! again.

use std::collections::BTreeMap;

use hearth_core::api::{McpPromptsAction, McpResourcesAction};
use hearth_core::plugin::mcp_list::{ListHint, ListScope, is_stale};
use hearth_core::plugin::mcp_prompt::{McpPrompt, read_prompt_list};
use hearth_core::plugin::mcp_resource::{McpResource, read_resource_list};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::plugins::{ListState, Plugins, credential_changes};

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

/// A listing, until when it is fresh (`None`: for the page, or being asked), and, for
/// a list the server gave for one user only, the plugin's credential it was listed
/// under (`credential_changes::count` then).
#[derive(Debug, Clone, PartialEq)]
struct Kept {
    listing: Listing,
    fresh_until: Option<f64>,
    private_to: Option<u32>,
}

impl Kept {
    /// Whether a menu that needs it now must ask again.
    fn wants_asking(&self, now_ms: f64, credential: u32) -> bool {
        matches!(self.listing, Listing::Failed(_))
            || is_stale(self.fresh_until, now_ms)
            || self.outlived(credential)
    }

    /// Whether it was listed for one user under another credential than `credential`
    /// (signed out, or in as someone else): then it is not shown again.
    fn outlived(&self, credential: u32) -> bool {
        self.private_to.is_some_and(|listed| listed != credential)
    }
}

type Listings = ArcRwSignal<BTreeMap<(Offer, String), Kept>>;

thread_local! {
    /// Every server's listings, by offer and plugin id.
    static LISTINGS: Listings = ArcRwSignal::new(BTreeMap::new());
}

fn listings() -> Listings {
    LISTINGS.with(Clone::clone)
}

/// Whether the plugin's server says it has `offer`.
fn offers(plugin: &hearth_core::plugin::Plugin, offer: Offer) -> bool {
    plugin.mcp.as_ref().is_some_and(|m| match offer {
        Offer::Prompts => m.prompts,
        Offer::Resources => m.resources,
    })
}

/// Asks every installed server that has `offer` and whose list is missing, stale or
/// failed (the plugin list itself first, if it was not listed yet).
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
        let now = js_sys::Date::now();
        for plugin_id in offering {
            let key = (offer, plugin_id.clone());
            let known = all.with_untracked(|l| l.get(&key).cloned());
            let credential = credential_changes::count(&plugin_id);
            if known
                .as_ref()
                .is_some_and(|k| !k.wants_asking(now, credential))
            {
                continue;
            }
            // A stale list stays shown while it is asked again (held for the page until
            // the answer comes, so it is not asked twice); a failure, or another user's
            // list, shows as asking.
            let shown = match known {
                Some(Kept {
                    listing: listing @ (Listing::Prompts(_) | Listing::Resources(_)),
                    ..
                }) if !known.as_ref().is_some_and(|k| k.outlived(credential)) => listing,
                _ => Listing::Asking,
            };
            all.update(|l| {
                l.insert(
                    key.clone(),
                    Kept {
                        listing: shown,
                        fresh_until: None,
                        private_to: None,
                    },
                );
            });
            let all = all.clone();
            spawn_local(async move {
                let asked_at = js_sys::Date::now();
                let answer = match offer {
                    Offer::Prompts => plugins
                        .mcp_prompts(&plugin_id, McpPromptsAction::List)
                        .await
                        .map(|result| (Listing::Prompts(read_prompt_list(&result)), result)),
                    Offer::Resources => plugins
                        .mcp_resources(&plugin_id, McpResourcesAction::List)
                        .await
                        .map(|result| (Listing::Resources(read_resource_list(&result)), result)),
                };
                let kept = match answer {
                    Ok((listing, result)) => {
                        let hint = ListHint::read(&result);
                        Kept {
                            listing,
                            fresh_until: hint.fresh_until(asked_at),
                            private_to: (hint.scope == ListScope::Private).then_some(credential),
                        }
                    }
                    Err(error) => Kept {
                        listing: Listing::Failed(error.to_string()),
                        fresh_until: None,
                        private_to: None,
                    },
                };
                all.update(|l| {
                    l.insert(key, kept);
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
                        listing: listings.get(&(offer, p.plugin.id.clone()))?.listing.clone(),
                    })
                })
                .collect()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(fresh_until: Option<f64>, private_to: Option<u32>) -> Kept {
        Kept {
            listing: Listing::Prompts(Vec::new()),
            fresh_until,
            private_to,
        }
    }

    #[test]
    fn a_list_for_one_user_is_asked_again_once_the_credential_changed() {
        // Fresh for ten minutes, listed under the credential counted 1.
        let private = kept(Some(600_000.0), Some(1));
        assert!(!private.wants_asking(1_000.0, 1));
        assert!(private.wants_asking(1_000.0, 2), "signed out or in again");
        assert!(private.outlived(2) && !private.outlived(1));
        // A list for everyone outlives a sign-out; its freshness still counts.
        let public = kept(Some(600_000.0), None);
        assert!(!public.wants_asking(1_000.0, 7));
        assert!(public.wants_asking(600_001.0, 7));
        // A failure is asked again whatever the credential.
        let failed = Kept {
            listing: Listing::Failed("no".into()),
            ..kept(None, None)
        };
        assert!(failed.wants_asking(0.0, 0));
    }
}
