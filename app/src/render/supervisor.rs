//! The render worker's bookkeeping, free of browser types so that it is tested natively:
//! which requests are pending, which one a crash blames, and when to stop retrying.
//!
//! The worker renders its requests one at a time, in the order they were posted, so when
//! it dies (a trap, an allocation failure, a panic it reports, or no answer in time) the
//! oldest pending request is the one it was rendering. Every pending request is posted
//! again to a new worker; the one to blame is answered with an error instead once it has
//! crashed a worker [`MAX_CRASHES`] times. A worker that fails before it listens blames
//! nothing; after [`MAX_START_FAILURES`] of those in a row rendering is off for the session
//! (everything shows as plain text, as when no worker can be built at all).

use std::collections::BTreeMap;

/// How many workers one request may bring down before it is answered with an error.
pub const MAX_CRASHES: u8 = 2;

/// How many workers in a row may fail before listening before rendering is given up.
pub const MAX_START_FAILURES: u8 = 3;

/// A request waiting for its answer.
#[derive(Debug)]
struct Entry<T> {
    request: T,
    crashes: u8,
}

/// What the page does after a worker failed.
#[derive(Debug)]
pub struct Recovery<T> {
    /// Requests to answer with an error: they crashed [`MAX_CRASHES`] workers.
    pub failed: Vec<T>,
    /// Requests to answer with nothing (plain text): rendering is off for the session.
    pub abandoned: Vec<T>,
    /// Whether to start a new worker now (requests are still pending).
    pub restart: bool,
}

impl<T> Default for Recovery<T> {
    fn default() -> Self {
        Self {
            failed: Vec::new(),
            abandoned: Vec::new(),
            restart: false,
        }
    }
}

/// The pending requests of the current worker and its predecessors.
#[derive(Debug)]
pub struct Supervisor<T> {
    pending: BTreeMap<u64, Entry<T>>,
    next_id: u64,
    /// The current worker's number; what older workers report is ignored.
    epoch: u32,
    /// The current worker listens (requests posted before that would be lost).
    ready: bool,
    /// Workers that failed before listening, since the last one that did.
    start_failures: u8,
    /// Answers so far, for the watchdog.
    answers: u64,
    disabled: bool,
}

impl<T> Default for Supervisor<T> {
    fn default() -> Self {
        Self {
            pending: BTreeMap::new(),
            next_id: 0,
            epoch: 0,
            ready: false,
            start_failures: 0,
            answers: 0,
            disabled: false,
        }
    }
}

impl<T> Supervisor<T> {
    /// The current worker's number: give it to what reports for that worker.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// Whether rendering is off for the session.
    pub fn disabled(&self) -> bool {
        self.disabled
    }

    /// Whether the current worker has requests to answer.
    pub fn busy(&self) -> bool {
        self.ready && !self.pending.is_empty()
    }

    /// Changes with every answer and every new worker: the watchdog takes it, and when it
    /// is unchanged a while later while [`Supervisor::busy`], the worker hangs.
    pub fn progress(&self) -> (u32, u64) {
        (self.epoch, self.answers)
    }

    /// Adds a request. Returns its id and whether to post it now (the worker listens),
    /// or the request itself when rendering is off.
    pub fn submit(&mut self, request: T) -> Result<(u64, bool), T> {
        if self.disabled {
            return Err(request);
        }
        self.next_id += 1;
        let id = self.next_id;
        self.pending.insert(
            id,
            Entry {
                request,
                crashes: 0,
            },
        );
        Ok((id, self.ready))
    }

    /// Worker `epoch` listens: the requests to post to it, oldest first (none when it is
    /// not the current worker).
    pub fn ready(&mut self, epoch: u32) -> Vec<&T> {
        if epoch != self.epoch || self.disabled {
            return Vec::new();
        }
        self.ready = true;
        self.start_failures = 0;
        self.pending.values().map(|entry| &entry.request).collect()
    }

    /// The answer to `id` came: its request, if it was still pending.
    pub fn answered(&mut self, id: u64) -> Option<T> {
        let entry = self.pending.remove(&id)?;
        self.answers += 1;
        Some(entry.request)
    }

    /// Worker `epoch` failed, while rendering `culprit` if it said so. `None` when that
    /// worker was already replaced (its error and its panic report both arrive).
    pub fn failed(&mut self, epoch: u32, culprit: Option<u64>) -> Option<Recovery<T>> {
        if epoch != self.epoch || self.disabled {
            return None;
        }
        self.epoch = self.epoch.wrapping_add(1);
        let mut failed = Vec::new();
        if self.ready {
            let blamed = culprit
                .filter(|id| self.pending.contains_key(id))
                .or_else(|| self.pending.keys().next().copied());
            if let Some(id) = blamed
                && let Some(entry) = self.pending.get_mut(&id)
            {
                entry.crashes += 1;
                if entry.crashes >= MAX_CRASHES
                    && let Some(entry) = self.pending.remove(&id)
                {
                    failed.push(entry.request);
                }
            }
        } else {
            self.start_failures += 1;
        }
        self.ready = false;
        let abandoned = if self.start_failures >= MAX_START_FAILURES {
            self.disable()
        } else {
            Vec::new()
        };
        Some(Recovery {
            failed,
            abandoned,
            restart: !self.disabled && !self.pending.is_empty(),
        })
    }

    /// Turns rendering off for the session: every pending request, to answer with nothing.
    pub fn disable(&mut self) -> Vec<T> {
        self.disabled = true;
        self.ready = false;
        std::mem::take(&mut self.pending)
            .into_values()
            .map(|entry| entry.request)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker that listens, with requests `names` posted to it.
    fn listening(names: &[&'static str]) -> (Supervisor<&'static str>, Vec<u64>) {
        let mut supervisor = Supervisor::default();
        let ids = names
            .iter()
            .map(|name| supervisor.submit(*name).unwrap())
            .map(|(id, post_now)| {
                assert!(!post_now, "nothing is posted before the worker listens");
                id
            })
            .collect();
        assert_eq!(supervisor.ready(0), names.iter().collect::<Vec<_>>());
        (supervisor, ids)
    }

    #[test]
    fn a_crash_restarts_the_worker_and_reposts_every_pending_request() {
        let (mut supervisor, _) = listening(&["a", "b", "c"]);
        let recovery = supervisor.failed(0, None).unwrap();
        assert!(recovery.restart && recovery.failed.is_empty() && recovery.abandoned.is_empty());
        assert!(
            supervisor.failed(0, None).is_none(),
            "the same worker fails once"
        );
        assert_eq!(supervisor.ready(0), Vec::<&&str>::new(), "an old worker");
        assert_eq!(supervisor.ready(1), vec![&"a", &"b", &"c"]);
        assert!(!supervisor.disabled());
    }

    #[test]
    fn a_request_that_crashes_two_workers_fails_alone() {
        let (mut supervisor, ids) = listening(&["bomb", "fine", "also fine"]);
        // The oldest pending request is the one the worker was rendering.
        let recovery = supervisor.failed(0, None).unwrap();
        assert!(recovery.failed.is_empty());
        supervisor.ready(1);
        let recovery = supervisor.failed(1, None).unwrap();
        assert_eq!(recovery.failed, vec!["bomb"]);
        assert!(recovery.restart);
        assert_eq!(supervisor.ready(2), vec![&"fine", &"also fine"]);
        assert_eq!(supervisor.answered(ids[1]), Some("fine"));
        assert_eq!(supervisor.answered(ids[2]), Some("also fine"));
        assert_eq!(supervisor.answered(ids[0]), None);
        // Rendering goes on for later requests.
        assert_eq!(supervisor.submit("next").ok(), Some((4, true)));
    }

    #[test]
    fn a_reported_panic_blames_its_request() {
        let (mut supervisor, ids) = listening(&["a", "b"]);
        supervisor.failed(0, Some(ids[1])).unwrap();
        supervisor.ready(1);
        let recovery = supervisor.failed(1, Some(ids[1])).unwrap();
        assert_eq!(recovery.failed, vec!["b"]);
        assert_eq!(supervisor.ready(2), vec![&"a"]);
        // An id that is not pending blames the oldest.
        let recovery = supervisor.failed(2, Some(999)).unwrap();
        assert!(recovery.failed.is_empty() && recovery.restart);
    }

    #[test]
    fn a_worker_that_never_listens_is_given_up_after_a_few_tries() {
        let mut supervisor = Supervisor::default();
        let _ = supervisor.submit("a");
        let _ = supervisor.submit("b");
        for epoch in 0..u32::from(MAX_START_FAILURES) - 1 {
            let recovery = supervisor.failed(epoch, None).unwrap();
            assert!(recovery.restart && recovery.abandoned.is_empty());
        }
        let recovery = supervisor
            .failed(u32::from(MAX_START_FAILURES) - 1, None)
            .unwrap();
        assert_eq!(recovery.abandoned, vec!["a", "b"]);
        assert!(!recovery.restart && recovery.failed.is_empty());
        assert!(supervisor.disabled());
        assert_eq!(
            supervisor.submit("c").err(),
            Some("c"),
            "handed back, to answer"
        );
    }

    #[test]
    fn start_failures_count_only_in_a_row() {
        let mut supervisor = Supervisor::default();
        let _ = supervisor.submit("a");
        for round in 0..10 {
            let epoch = supervisor.epoch();
            supervisor.failed(epoch, None).unwrap();
            // Every other worker listens before it too fails: never three in a row.
            if round % 2 == 0 {
                supervisor.ready(supervisor.epoch());
                let (id, _) = supervisor.submit("x").unwrap();
                supervisor.answered(id);
            }
        }
        assert!(!supervisor.disabled());
    }

    #[test]
    fn the_watchdog_sees_progress() {
        let (mut supervisor, ids) = listening(&["a", "b"]);
        let before = supervisor.progress();
        assert!(supervisor.busy());
        supervisor.answered(ids[0]);
        assert_ne!(supervisor.progress(), before);
        let stalled = supervisor.progress();
        assert!(supervisor.busy());
        supervisor.failed(stalled.0, None).unwrap();
        assert!(!supervisor.busy(), "the new worker is not listening yet");
        assert_ne!(supervisor.progress(), stalled);
        supervisor.answered(ids[1]);
        supervisor.ready(supervisor.epoch());
        assert!(!supervisor.busy(), "nothing pending");
    }
}
