//! The scope each signed-in MCP server said a call needs beyond its grant (a 403
//! `insufficient_scope`, passed on by the edge as `insufficientScope`), until a sign-in
//! asks for it. Kept for the page only, and out of the first load: a refusal notes it
//! through a lazily loaded chunk, and only the settings' plugin card reads it.

use std::collections::BTreeMap;

use leptos::prelude::*;

thread_local! {
    /// The wanted scope by plugin id.
    static WANTED: ArcRwSignal<BTreeMap<String, String>> = ArcRwSignal::new(BTreeMap::new());
}

/// The wanted scopes (tracked where read).
pub fn wanted() -> ArcRwSignal<BTreeMap<String, String>> {
    WANTED.with(Clone::clone)
}

/// Notes that a call to `plugin_id` needed `scope`.
#[lazy]
pub async fn note(plugin_id: String, scope: String) {
    wanted().update(|w| drop(w.insert(plugin_id, scope)));
}

/// Forgets what `plugin_id` wanted (a sign-in gave it, or asked for it).
pub fn clear(plugin_id: &str) {
    wanted().update(|w| drop(w.remove(plugin_id)));
}
