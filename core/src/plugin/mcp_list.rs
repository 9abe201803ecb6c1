//! How long an MCP server's prompts or resources list stays fresh in the browser, from the
//! caching hint the 2026-07-28 revision puts on list results (`ttlMs`, `cacheScope`).
//! A list without a hint (a handshake server) is kept for the page; a hint of 0 means the
//! list is shown but asked again the next time a menu needs it. Both scopes may be kept
//! by the user's own browser (only an intermediary must not keep a `private` one).

use serde_json::Value;

/// The longest a hinted list is kept, whatever the server says (a day).
pub const MAX_LIST_TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// Who may reuse a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListScope {
    /// Anyone (the server said `public`).
    Public,
    /// Only the user it was listed for (`private`, or no scope given).
    Private,
}

/// The caching hint of one list result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListHint {
    /// How long the list is fresh, in milliseconds (`None`: no hint).
    pub ttl_ms: Option<u64>,
    /// Who may reuse it.
    pub scope: ListScope,
}

impl ListHint {
    /// The hint of a list result as the edge answers it (`{prompts|resources, ttlMs?,
    /// cacheScope?}`); a negative or malformed `ttlMs` is no hint at all but 0 (stale).
    pub fn read(result: &Value) -> Self {
        let ttl_ms = match result.get("ttlMs") {
            None | Some(Value::Null) => None,
            Some(value) => Some(value.as_u64().unwrap_or(0).min(MAX_LIST_TTL_MS)),
        };
        let scope = match result.get("cacheScope").and_then(Value::as_str) {
            Some("public") => ListScope::Public,
            _ => ListScope::Private,
        };
        Self { ttl_ms, scope }
    }

    /// When a list asked for at `asked_at_ms` stops being fresh (`None`: kept for the page).
    pub fn fresh_until(&self, asked_at_ms: f64) -> Option<f64> {
        self.ttl_ms.map(|ttl| asked_at_ms + ttl as f64)
    }
}

/// Whether a list that is fresh until `fresh_until` must be asked again at `now_ms`.
pub fn is_stale(fresh_until: Option<f64>, now_ms: f64) -> bool {
    fresh_until.is_some_and(|until| now_ms >= until)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_without_a_hint_is_kept_for_the_page() {
        let hint = ListHint::read(&json!({"prompts": []}));
        assert_eq!(hint.ttl_ms, None);
        assert_eq!(hint.scope, ListScope::Private);
        assert_eq!(hint.fresh_until(1_000.0), None);
        assert!(!is_stale(None, f64::MAX));
    }

    #[test]
    fn a_hinted_list_is_fresh_for_its_ttl_and_zero_means_ask_again() {
        let hint = ListHint::read(&json!({"prompts": [], "ttlMs": 60_000, "cacheScope": "public"}));
        assert_eq!(hint.scope, ListScope::Public);
        let until = hint.fresh_until(1_000.0);
        assert_eq!(until, Some(61_000.0));
        assert!(!is_stale(until, 60_999.0));
        assert!(is_stale(until, 61_000.0));
        let zero = ListHint::read(&json!({"resources": [], "ttlMs": 0}));
        assert!(is_stale(zero.fresh_until(5.0), 5.0));
    }

    #[test]
    fn a_hint_out_of_bounds_is_clamped_and_a_bad_one_is_stale() {
        let long = ListHint::read(&json!({"ttlMs": u64::MAX}));
        assert_eq!(long.ttl_ms, Some(MAX_LIST_TTL_MS));
        for bad in [json!(-5), json!("soon"), json!(1.5)] {
            assert_eq!(
                ListHint::read(&json!({"ttlMs": bad})).ttl_ms,
                Some(0),
                "{bad}"
            );
        }
        assert_eq!(
            ListHint::read(&json!({"cacheScope": "everyone"})).scope,
            ListScope::Private
        );
    }
}
