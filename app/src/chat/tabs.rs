//! Which tab writes each conversation's reply. Before a tab stores anything for a new
//! reply it claims the Web Lock `hearth-reply:<conversation id>` (`crate::locks`) and
//! holds it until the reply has ended; a tab that cannot claim it starts nothing. Other
//! tabs learn of the run from the broadcast and from the lock manager (a tab opened
//! mid-reply, a runner that crashed or was closed), show the reply as their copy of the
//! database fills in, and may ask the runner to stop it. `sync` keeps this current.

use std::collections::HashSet;

use leptos::prelude::*;

use super::broadcast;
use crate::locks::{self, Claim, HeldLock};

/// The prefix of every reply lock's name.
const PREFIX: &str = "hearth-reply:";

/// The conversations whose replies this tab and the others write.
#[derive(Clone, Copy)]
pub struct Tabs {
    /// Conversations whose reply another tab writes.
    elsewhere: RwSignal<HashSet<String>>,
    /// Conversations whose lock this tab holds.
    own: StoredValue<HashSet<String>>,
}

impl Default for Tabs {
    fn default() -> Self {
        Self::new()
    }
}

/// A conversation's reply lock, held by this tab until dropped; dropping it tells the
/// other tabs the reply has ended.
pub struct ReplyLock {
    conversation_id: String,
    own: StoredValue<HashSet<String>>,
    held: Option<HeldLock>,
}

impl ReplyLock {
    /// Lets go and waits until the lock is free (a queued message claims it next).
    pub async fn release(mut self) {
        if let Some(held) = self.held.take() {
            held.let_go().await;
        }
    }
}

impl Drop for ReplyLock {
    fn drop(&mut self) {
        drop(self.held.take());
        self.own.update_value(|own| {
            own.remove(&self.conversation_id);
        });
        broadcast::announce_run(&self.conversation_id, false);
    }
}

/// How the lock manager's view changed.
#[derive(Debug, Default)]
pub struct Changed {
    /// Conversations another tab started writing.
    pub started: Vec<String>,
    /// Conversations no other tab writes any more.
    pub ended: Vec<String>,
}

impl Tabs {
    /// No runs known.
    pub fn new() -> Self {
        Self {
            elsewhere: RwSignal::new(HashSet::new()),
            own: StoredValue::new(HashSet::new()),
        }
    }

    /// Claims `conversation_id`'s reply for this tab; `None` when another tab writes one.
    /// A browser without Web Locks gets the claim (and this tab's own guard only).
    pub async fn claim(&self, conversation_id: &str) -> Option<ReplyLock> {
        let held = match locks::claim(&format!("{PREFIX}{conversation_id}")).await {
            Claim::Held(held) => Some(held),
            Claim::Unsupported => None,
            Claim::Taken => {
                self.heard_started(conversation_id);
                return None;
            }
        };
        self.own.update_value(|own| {
            own.insert(conversation_id.to_string());
        });
        broadcast::announce_run(conversation_id, true);
        Some(ReplyLock {
            conversation_id: conversation_id.to_string(),
            own: self.own,
            held,
        })
    }

    /// Whether another tab writes `conversation_id`'s reply (tracked).
    pub fn is_elsewhere(&self, conversation_id: &str) -> bool {
        self.elsewhere.with(|e| e.contains(conversation_id))
    }

    /// [`Tabs::is_elsewhere`], untracked.
    pub fn is_elsewhere_untracked(&self, conversation_id: &str) -> bool {
        self.elsewhere
            .with_untracked(|e| e.contains(conversation_id))
    }

    /// Whether another tab writes any reply (tracked).
    pub fn any_elsewhere(&self) -> bool {
        self.elsewhere.with(|e| !e.is_empty())
    }

    /// Whether any other tab's run is known (untracked): the lock manager is watched
    /// while there is one.
    pub fn watching(&self) -> bool {
        self.elsewhere.with_untracked(|e| !e.is_empty())
    }

    /// Notes that another tab started writing `conversation_id`'s reply. Its end is read
    /// from the lock manager ([`Tabs::refresh`]), not taken from an announcement, so a
    /// runner that crashed mid-reply ends too.
    pub fn heard_started(&self, conversation_id: &str) {
        if !self.own.with_value(|own| own.contains(conversation_id)) {
            self.elsewhere.update(|e| {
                e.insert(conversation_id.to_string());
            });
        }
    }

    /// Notes that another tab announced the end of `conversation_id`'s reply. With Web
    /// Locks the lock manager has the last word ([`Tabs::refresh`]); without them the
    /// announcement is all there is, so it is taken.
    pub fn heard_ended(&self, conversation_id: &str) {
        if !locks::supported() {
            self.elsewhere.update(|e| {
                e.remove(conversation_id);
            });
        }
    }

    /// Reads which replies are written now from the lock manager; what changed. Without
    /// Web Locks nothing changes here ([`Tabs::heard_ended`] instead).
    pub async fn refresh(&self) -> Changed {
        let Some(held) = locks::held(PREFIX).await else {
            return Changed::default();
        };
        let own = self.own.get_value();
        let now: HashSet<String> = held.into_iter().filter(|id| !own.contains(id)).collect();
        let before = self.elsewhere.get_untracked();
        let changed = Changed {
            started: now.difference(&before).cloned().collect(),
            ended: before.difference(&now).cloned().collect(),
        };
        if !changed.started.is_empty() || !changed.ended.is_empty() {
            self.elsewhere.set(now);
        }
        changed
    }
}
