//! Tool calls held open on this edge while a handshake MCP server waits for the user.
//!
//! A 2025-11-25 server asks the user with an `elicitation/create` request in the middle
//! of `tools/call`, on the call's own session. The edge cannot answer it, so the call's
//! exchange runs in a task of its own ([`super::tool_call`]); the request that started it
//! answers the browser with the question as an `input_required` result whose state is
//! [`HELD_PREFIX`] and the id of the call held here. The browser's next call with that
//! state hands the user's answer to the waiting server ([`HeldCalls::take`]) and waits
//! for what comes next: the result, or another question.
//!
//! A held call belongs to the scope and the plugin that started it, waits at most
//! [`HELD_FOR`] for its answer (then the server is told nobody answered: never an
//! answer made up), and lives on this instance only: another instance, or this one
//! restarted, does not know it and says the question expired. At most [`MAX_HELD`] are
//! held at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use base64::Engine;
use tokio::sync::oneshot;

use super::session::{HELD_FOR, Reply};

/// The most calls held at once on one edge.
pub const MAX_HELD: usize = 256;
/// What starts the state of a question held here (the rest is its id).
pub const HELD_PREFIX: &str = "hearth-held:";

/// One call waiting for its answer, with what its caller waits on next (`W`).
#[derive(Debug)]
pub struct Held<W> {
    /// Who started it: the scope and the plugin.
    owner: String,
    /// Where the answer goes.
    pub reply: oneshot::Sender<Reply>,
    /// The rest of the call.
    pub waiting: W,
    until: Instant,
}

/// The calls held on this edge.
#[derive(Debug)]
pub struct HeldCalls<W>(Arc<Mutex<HashMap<String, Held<W>>>>);

impl<W> Default for HeldCalls<W> {
    fn default() -> Self {
        Self(Arc::default())
    }
}

impl<W> Clone for HeldCalls<W> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

/// The owner string of a call started by `scope` for `plugin_id`.
pub fn owner(scope: &str, plugin_id: &str) -> String {
    format!("{scope}\u{0}{plugin_id}")
}

impl<W> HeldCalls<W> {
    /// Holds a call for `owner` until it is answered or [`HELD_FOR`] passes; the state to
    /// hand the browser (`None`: too many held already).
    pub fn hold(&self, owner: String, reply: oneshot::Sender<Reply>, waiting: W) -> Option<String> {
        let mut calls = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        calls.retain(|_, held| held.until > now && !held.reply.is_closed());
        if calls.len() >= MAX_HELD {
            return None;
        }
        let id = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(&crate::signing::random_bytes()[..16]);
        calls.insert(
            id.clone(),
            Held {
                owner,
                reply,
                waiting,
                until: now + HELD_FOR,
            },
        );
        Some(format!("{HELD_PREFIX}{id}"))
    }

    /// The call held under `state` for `owner`, taken out (`None`: unknown here,
    /// expired, or someone else's).
    pub fn take(&self, state: &str, owner: &str) -> Option<Held<W>> {
        let id = state.strip_prefix(HELD_PREFIX)?;
        let mut calls = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Calls nobody came back for go here too, not only when another is held.
        let now = Instant::now();
        calls.retain(|_, held| held.until > now && !held.reply.is_closed());
        let mine = calls.get(id).is_some_and(|held| held.owner == owner);
        if !mine {
            return None;
        }
        calls.remove(id)
    }

    /// How many calls are held.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(calls: &HeldCalls<()>, owner: &str) -> (String, oneshot::Receiver<Reply>) {
        let (reply, answered) = oneshot::channel();
        let state = calls.hold(owner.into(), reply, ()).expect("room");
        (state, answered)
    }

    #[test]
    fn a_held_call_is_taken_once_and_only_by_its_owner() {
        let calls = HeldCalls::default();
        let (state, _answered) = held(&calls, "a");
        assert!(state.starts_with(HELD_PREFIX));
        assert!(calls.take(&state, "b").is_none(), "someone else's");
        assert!(calls.take("hearth-held:unknown", "a").is_none());
        assert!(
            calls
                .take(state.trim_start_matches(HELD_PREFIX), "a")
                .is_none(),
            "no prefix"
        );
        assert!(calls.take(&state, "a").is_some());
        assert!(calls.take(&state, "a").is_none(), "taken once");
    }

    #[test]
    fn looking_one_up_sweeps_the_abandoned_ones() {
        let calls = HeldCalls::default();
        let (_kept, _answered) = held(&calls, "a");
        let (gone, answered) = held(&calls, "a");
        drop(answered);
        assert_eq!(calls.len(), 2);
        assert!(calls.take(&gone, "a").is_none(), "its task gave up");
        assert_eq!(calls.len(), 1);
    }

    #[test]
    fn abandoned_calls_make_room_and_the_count_is_bounded() {
        let calls = HeldCalls::default();
        let mut kept = Vec::new();
        for _ in 0..MAX_HELD {
            kept.push(held(&calls, "a"));
        }
        let (reply, _answered) = oneshot::channel();
        assert!(calls.hold("a".into(), reply, ()).is_none(), "full");
        // A call whose task gave up (its answer's receiver dropped) is swept.
        drop(kept.pop());
        let (_state, _answered) = held(&calls, "a");
        assert_eq!(calls.len(), MAX_HELD);
    }
}
