//! How many times each plugin's credential was saved or forgotten on this page (a
//! sign-in, a sign-out, a token replaced): what was listed for one user
//! (`cacheScope: private`) is not shown after the credential changed. A refresh of an
//! OAuth session is the same user, and does not count.

use std::cell::RefCell;
use std::collections::BTreeMap;

thread_local! {
    /// The count by plugin id.
    static CHANGES: RefCell<BTreeMap<String, u32>> = const { RefCell::new(BTreeMap::new()) };
}

/// How many times `plugin_id`'s credential changed on this page.
pub fn count(plugin_id: &str) -> u32 {
    CHANGES.with_borrow(|c| c.get(plugin_id).copied().unwrap_or_default())
}

/// Notes that `plugin_id`'s credential was saved or forgotten.
pub fn note(plugin_id: &str) {
    CHANGES.with_borrow_mut(|c| *c.entry(plugin_id.to_string()).or_default() += 1);
}
