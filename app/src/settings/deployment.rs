//! What this deployment has switched off, explained where the user would look for it.
//! The edge says which features it serves (`GET /api/config`, `capabilities`); a tab
//! that offers a feature the edge does not serve shows one sentence saying so instead
//! of letting the user fill in a form that can only fail.
//!
//! Until the edge has answered, and when it does not answer, nothing is explained away:
//! the features stay offered and fail with the edge's own error at use.

use hearth_core::api::Capabilities;
use leptos::prelude::*;

use crate::edge;
use crate::i18n::{Key, tr};

/// Where the settings look at the capabilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Settings › Tools: installing and running plugins and MCP servers.
    Tools,
    /// Settings › Providers: reaching providers through the edge.
    Providers,
}

/// A feature this deployment has off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Off {
    /// Neither OpenAPI plugins nor MCP servers: nothing can be installed.
    Tools,
    /// OpenAPI plugins.
    Plugins,
    /// Remote MCP servers.
    Mcp,
    /// The model relay for providers that block browser calls.
    Relay,
    /// Sealed secrets for the edge (relayed keys, plugin credentials).
    Byok,
}

impl Off {
    /// The sentence that explains it.
    pub fn key(self) -> Key {
        match self {
            Off::Tools => Key::CapabilityToolsOff,
            Off::Plugins => Key::CapabilityPluginsOff,
            Off::Mcp => Key::CapabilityMcpOff,
            Off::Relay => Key::CapabilityRelayOff,
            Off::Byok => Key::CapabilityByokOff,
        }
    }

    fn slug(self) -> &'static str {
        match self {
            Off::Tools => "tools",
            Off::Plugins => "plugins",
            Off::Mcp => "mcp",
            Off::Relay => "relay",
            Off::Byok => "byok",
        }
    }
}

/// The features off at `place`, in the order shown.
pub fn notes(place: Place, capabilities: &Capabilities) -> Vec<Off> {
    match place {
        Place::Tools => match (capabilities.plugins, capabilities.mcp) {
            (false, false) => vec![Off::Tools],
            (false, true) => vec![Off::Plugins],
            (true, false) => vec![Off::Mcp],
            (true, true) => vec![],
        },
        Place::Providers => [
            (!capabilities.chat_relay).then_some(Off::Relay),
            (!capabilities.byok).then_some(Off::Byok),
        ]
        .into_iter()
        .flatten()
        .collect(),
    }
}

/// The edge's capabilities once it has answered; `None` before, or when it did not.
pub fn use_capabilities() -> Signal<Option<Capabilities>> {
    let config = LocalResource::new(edge::fetch_config);
    Signal::derive(move || config.get().and_then(Result::ok).map(|c| c.capabilities))
}

/// The notes for `place`, one paragraph each (nothing when every feature is on).
#[component]
pub fn CapabilityNotes(place: Place, capabilities: Signal<Option<Capabilities>>) -> impl IntoView {
    move || {
        capabilities
            .get()
            .map(|caps| notes(place, &caps))
            .unwrap_or_default()
            .into_iter()
            .map(|off| {
                view! {
                    <p class="notice notice--warning" role="note" data-capability-off=off.slug()>
                        {tr(off.key())}
                    </p>
                }
            })
            .collect_view()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_on() -> Capabilities {
        Capabilities {
            chat_relay: true,
            plugins: true,
            mcp: true,
            document_parse: true,
            byok: true,
            web_search: true,
            default_search: true,
            voice: true,
        }
    }

    #[test]
    fn everything_on_explains_nothing() {
        assert!(notes(Place::Tools, &all_on()).is_empty());
        assert!(notes(Place::Providers, &all_on()).is_empty());
    }

    #[test]
    fn the_tools_tab_says_which_kind_of_tool_is_off_in_one_sentence() {
        let off = |plugins, mcp| {
            notes(
                Place::Tools,
                &Capabilities {
                    plugins,
                    mcp,
                    ..all_on()
                },
            )
        };
        assert_eq!(off(false, false), [Off::Tools]);
        assert_eq!(off(false, true), [Off::Plugins]);
        assert_eq!(off(true, false), [Off::Mcp]);
    }

    #[test]
    fn the_providers_tab_explains_the_relay_and_sealed_keys() {
        let caps = Capabilities {
            chat_relay: false,
            byok: false,
            ..all_on()
        };
        assert_eq!(notes(Place::Providers, &caps), [Off::Relay, Off::Byok]);
        // Tool capabilities are not the providers tab's business, and the other way round.
        assert!(notes(Place::Tools, &caps).is_empty());
        let default = Capabilities::default();
        assert_eq!(notes(Place::Providers, &default), [Off::Relay, Off::Byok]);
        assert_eq!(notes(Place::Tools, &default), [Off::Tools]);
    }

    #[test]
    fn every_note_has_its_own_sentence() {
        let keys: std::collections::BTreeSet<&str> =
            [Off::Tools, Off::Plugins, Off::Mcp, Off::Relay, Off::Byok]
                .map(|o| o.key().id())
                .into_iter()
                .collect();
        assert_eq!(keys.len(), 5);
    }
}
