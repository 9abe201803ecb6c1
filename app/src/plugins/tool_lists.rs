//! When an installed MCP server's tool list is due to be listed again, on this page: when
//! the keeping time the edge answered (`toolsFreshForMs`, the server's `ttlMs`) has run
//! out, or when the plugin's credential changed since the list (another user may see
//! other tools; [`super::credential_changes`]). A list that could not be refreshed is
//! tried again after [`RETRY_MS`], not before every reply, and one being listed is not
//! asked for again meanwhile (a hung server would collect a request per reply).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use hearth_core::api::RegisteredPlugin;

use super::credential_changes;

/// How long a list that could not be refreshed is used before trying again, in ms.
pub const RETRY_MS: f64 = 60_000.0;

/// What is known of one plugin's list.
#[derive(Debug, Clone, Copy)]
struct Listed {
    /// When it goes stale (page clock, ms), if the server said.
    stale_at: Option<f64>,
    /// The credential's change count when it was listed.
    credential: u32,
}

thread_local! {
    static LISTS: RefCell<BTreeMap<String, Listed>> = const { RefCell::new(BTreeMap::new()) };
    /// The plugins whose tools are being listed now.
    static IN_FLIGHT: RefCell<BTreeSet<String>> = const { RefCell::new(BTreeSet::new()) };
}

/// Notes that `plugin_id`'s tools are being listed (`true`) or no longer are.
pub fn set_in_flight(plugin_id: &str, listing: bool) {
    IN_FLIGHT.with_borrow_mut(|set| {
        if listing {
            set.insert(plugin_id.to_string());
        } else {
            set.remove(plugin_id);
        }
    });
}

/// Notes what the edge's plugin list answered for `registered` at `now`. That list was
/// not made with the credential of now, so a change of credential since the plugin was
/// last listed still makes it due.
pub fn note_listed(registered: &RegisteredPlugin, now: f64) {
    let id = registered.plugin.id.clone();
    let credential = LISTS
        .with_borrow(|lists| lists.get(&id).map(|l| l.credential))
        .unwrap_or_else(|| credential_changes::count(&id));
    let listed = Listed {
        stale_at: registered.tools_fresh_for_ms.map(|ms| now + ms as f64),
        credential,
    };
    LISTS.with_borrow_mut(|lists| lists.insert(id, listed));
}

/// Notes that `registered`'s tools were just listed again at `now`, with the credential
/// of now.
pub fn note_relisted(registered: &RegisteredPlugin, now: f64) {
    let id = registered.plugin.id.clone();
    let listed = Listed {
        stale_at: registered.tools_fresh_for_ms.map(|ms| now + ms as f64),
        credential: credential_changes::count(&id),
    };
    LISTS.with_borrow_mut(|lists| lists.insert(id, listed));
}

/// Notes that listing `plugin_id` again failed at `now`: the list in hand is used until
/// [`RETRY_MS`] later.
pub fn put_off(plugin_id: &str, now: f64) {
    let listed = Listed {
        stale_at: Some(now + RETRY_MS),
        credential: credential_changes::count(plugin_id),
    };
    LISTS.with_borrow_mut(|lists| lists.insert(plugin_id.to_string(), listed));
}

/// Whether `plugin_id`'s tools should be listed again before they are offered at `now`.
pub fn is_stale(plugin_id: &str, now: f64) -> bool {
    if IN_FLIGHT.with_borrow(|set| set.contains(plugin_id)) {
        return false;
    }
    LISTS.with_borrow(|lists| {
        lists.get(plugin_id).is_some_and(|listed| {
            listed.stale_at.is_some_and(|at| now >= at)
                || listed.credential != credential_changes::count(plugin_id)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hearth_core::plugin::{Auth, Plugin, Source};

    fn registered(id: &str, fresh_for: Option<u64>) -> RegisteredPlugin {
        RegisteredPlugin {
            plugin: Plugin::new(id, id, Source::Mcp, Auth::None, Vec::new()),
            fingerprints: BTreeMap::new(),
            tools_fresh_for_ms: fresh_for,
        }
    }

    #[test]
    fn a_list_is_stale_when_its_time_is_up_or_the_credential_changed() {
        note_listed(&registered("kept", Some(60_000)), 1_000.0);
        assert!(!is_stale("kept", 60_999.0));
        assert!(is_stale("kept", 61_000.0));

        // No hint: kept, until the credential changes.
        note_listed(&registered("unhinted", None), 1_000.0);
        assert!(!is_stale("unhinted", 1e12));
        credential_changes::note("unhinted");
        assert!(is_stale("unhinted", 2_000.0));
        // The plugin list asked again (Settings opened) was not made with the new
        // credential: still due. Listed again with it: no longer.
        note_listed(&registered("unhinted", None), 2_000.0);
        assert!(is_stale("unhinted", 3_000.0));
        note_relisted(&registered("unhinted", None), 3_000.0);
        assert!(!is_stale("unhinted", 4_000.0));

        // Installed with a credential: its first list was made with it.
        credential_changes::note("new");
        note_listed(&registered("new", None), 1_000.0);
        assert!(!is_stale("new", 2_000.0));

        // Never listed on this page: nothing to refresh.
        assert!(!is_stale("unknown", 1e12));

        // A list being listed is not asked for again meanwhile.
        note_listed(&registered("slow", Some(0)), 1_000.0);
        set_in_flight("slow", true);
        assert!(!is_stale("slow", 2_000.0));
        set_in_flight("slow", false);
        assert!(is_stale("slow", 2_000.0));

        // A failed refresh is tried again a minute later, not at once.
        note_listed(&registered("down", Some(0)), 1_000.0);
        assert!(is_stale("down", 1_000.0));
        put_off("down", 1_000.0);
        assert!(!is_stale("down", 1_000.0 + RETRY_MS - 1.0));
        assert!(is_stale("down", 1_000.0 + RETRY_MS));
    }
}
