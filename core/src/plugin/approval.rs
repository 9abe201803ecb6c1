//! Whether a tool call runs, waits for the user, or is denied. Confirmation is off by
//! default (seed 000): calls run. With it on, `destructive` calls always wait, and the
//! user's Allow covers that one call only. In the stricter mode, `write` and `external`
//! calls wait too, and the user may allow them for the session: an approval bound to the
//! plugin, the function, the risk and the function's fingerprint, so an updated plugin
//! asks again. A call still waiting when the page reloads, the reply stops or the card
//! goes away is denied (fail closed), and the denial is the call's result, so the
//! conversation continues.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::risk::Risk;

/// How much the user wants to confirm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ConfirmMode {
    /// Every call runs.
    #[default]
    Off,
    /// Destructive calls wait.
    Destructive,
    /// Destructive calls wait; write and external calls wait unless allowed for the
    /// session.
    SideEffects,
}

/// What a session approval is bound to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalKey {
    /// The plugin.
    pub plugin_id: String,
    /// The function.
    pub function: String,
    /// Its risk when approved.
    pub risk: Risk,
    /// Its contract's fingerprint when approved.
    pub fingerprint: String,
}

/// What the user may answer to a waiting call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Allow once or Deny.
    Once,
    /// Allow once, allow for this session, or Deny.
    OnceOrSession,
}

/// What happens to a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// It runs.
    Run,
    /// It waits for the user.
    Ask(Offer),
}

/// The approvals given in this session (never stored: a reload starts clean).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionApprovals {
    keys: BTreeSet<ApprovalKey>,
}

impl SessionApprovals {
    /// Remembers an approval; `false` (and nothing remembered) for a risk that cannot be
    /// approved for a session.
    pub fn approve(&mut self, key: ApprovalKey) -> bool {
        if !key.risk.session_approvable() {
            return false;
        }
        self.keys.insert(key)
    }

    /// Forgets an approval.
    pub fn revoke(&mut self, key: &ApprovalKey) -> bool {
        self.keys.remove(key)
    }

    /// Forgets every approval of a plugin (it was uninstalled).
    pub fn revoke_plugin(&mut self, plugin_id: &str) {
        self.keys.retain(|key| key.plugin_id != plugin_id);
    }

    /// Every approval, for the user to see and revoke.
    pub fn list(&self) -> impl Iterator<Item = &ApprovalKey> {
        self.keys.iter()
    }

    fn covers(&self, key: &ApprovalKey) -> bool {
        self.keys.contains(key)
    }
}

/// Decides a call of the function `key` describes.
pub fn decide(mode: ConfirmMode, approvals: &SessionApprovals, key: &ApprovalKey) -> Decision {
    match (mode, key.risk) {
        (ConfirmMode::Off, _) | (_, Risk::Read) => Decision::Run,
        (_, Risk::Destructive) => Decision::Ask(Offer::Once),
        (ConfirmMode::Destructive, _) => Decision::Run,
        (ConfirmMode::SideEffects, _) if approvals.covers(key) => Decision::Run,
        (ConfirmMode::SideEffects, _) => Decision::Ask(Offer::OnceOrSession),
    }
}

/// The result a denied call returns to the model.
pub const DENIED_RESULT: &str =
    "The user denied this tool call. Do not retry it; continue without its result.";

#[cfg(test)]
mod tests {
    use super::*;

    fn key(risk: Risk) -> ApprovalKey {
        ApprovalKey {
            plugin_id: "items".into(),
            function: "delete_item".into(),
            risk,
            fingerprint: "sha256:aa".into(),
        }
    }

    #[test]
    fn off_by_default_every_call_runs() {
        let approvals = SessionApprovals::default();
        for risk in [Risk::Read, Risk::Write, Risk::External, Risk::Destructive] {
            assert_eq!(
                decide(ConfirmMode::default(), &approvals, &key(risk)),
                Decision::Run
            );
        }
    }

    #[test]
    fn with_confirmation_only_destructive_calls_wait_and_only_once() {
        let mut approvals = SessionApprovals::default();
        let mode = ConfirmMode::Destructive;
        assert_eq!(
            decide(mode, &approvals, &key(Risk::Destructive)),
            Decision::Ask(Offer::Once)
        );
        for risk in [Risk::Read, Risk::Write, Risk::External] {
            assert_eq!(decide(mode, &approvals, &key(risk)), Decision::Run);
        }
        // A destructive approval is never remembered.
        assert!(!approvals.approve(key(Risk::Destructive)));
        assert_eq!(
            decide(mode, &approvals, &key(Risk::Destructive)),
            Decision::Ask(Offer::Once)
        );
    }

    #[test]
    fn session_approvals_are_bound_to_the_fingerprint_and_can_be_revoked() {
        let mut approvals = SessionApprovals::default();
        let mode = ConfirmMode::SideEffects;
        let write = key(Risk::Write);
        assert_eq!(
            decide(mode, &approvals, &write),
            Decision::Ask(Offer::OnceOrSession)
        );
        assert!(approvals.approve(write.clone()));
        assert_eq!(decide(mode, &approvals, &write), Decision::Run);
        // The plugin changed: its fingerprint did too, so it asks again.
        let updated = ApprovalKey {
            fingerprint: "sha256:bb".into(),
            ..write.clone()
        };
        assert_eq!(
            decide(mode, &approvals, &updated),
            Decision::Ask(Offer::OnceOrSession)
        );
        assert_eq!(approvals.list().count(), 1);
        assert!(approvals.revoke(&write));
        approvals.approve(write.clone());
        approvals.revoke_plugin("items");
        assert_eq!(approvals.list().count(), 0);
        assert_eq!(
            decide(mode, &approvals, &write),
            Decision::Ask(Offer::OnceOrSession)
        );
        assert!(DENIED_RESULT.contains("denied"));
    }
}
