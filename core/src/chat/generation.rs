//! The generation state machine of one conversation:
//! `idle → pending → (attachments | rag | searching | tool | model)* → done | error | aborted`.
//!
//! Every run has a [`RunId`]; an event for any other run (a late chunk of a stopped
//! reply, a callback of a superseded one) is ignored, so a stale stream can never write
//! into the current reply. Terminal states accept only a new `Start`. Failures are stored
//! on the message as a [`GenerationError`] — never written into its content.

use serde::{Deserialize, Serialize};

pub use super::error::GenerationError;

/// Identifies one run (one reply being generated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RunId(pub u64);

/// Where a generation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Nothing running.
    Idle,
    /// Started, nothing sent yet.
    Pending,
    /// Preparing attachments.
    Attachments,
    /// Querying knowledge bases.
    Rag,
    /// Searching the web.
    Searching,
    /// Running tool calls.
    Tool,
    /// Streaming the model's answer.
    Model,
    /// Finished.
    Done,
    /// Failed; the error is stored.
    Error,
    /// Stopped by the user; partial output kept.
    Aborted,
}

impl Phase {
    /// Whether the run has ended.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Idle | Self::Done | Self::Error | Self::Aborted)
    }
}

/// What happened to a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum GenerationEvent {
    /// A new run starts (also replaces an ended one).
    Start {
        /// Its id.
        run: RunId,
    },
    /// The run moved to a working phase.
    Phase {
        /// The run.
        run: RunId,
        /// The new phase (a working one).
        phase: Phase,
    },
    /// The user asked to stop.
    StopRequested {
        /// The run.
        run: RunId,
    },
    /// The run finished.
    Completed {
        /// The run.
        run: RunId,
    },
    /// The run failed.
    Failed {
        /// The run.
        run: RunId,
        /// Why.
        error: GenerationError,
    },
    /// The run stopped at the user's request.
    Aborted {
        /// The run.
        run: RunId,
    },
}

/// Whether an event changed the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// It did.
    Accepted,
    /// It belongs to another run.
    Stale,
    /// It makes no sense in the current state (a phase after the end, say).
    Invalid,
}

/// The state of the conversation's generation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Generation {
    /// The current or last run.
    pub run: Option<RunId>,
    /// Where it is.
    pub phase: Phase,
    /// The user asked to stop and the run has not ended yet.
    pub stop_requested: bool,
    /// The failure of the last run, if it failed.
    pub error: Option<GenerationError>,
}

impl Default for Generation {
    fn default() -> Self {
        Self {
            run: None,
            phase: Phase::Idle,
            stop_requested: false,
            error: None,
        }
    }
}

impl Generation {
    /// Whether a run is in progress.
    pub fn is_running(&self) -> bool {
        !self.phase.is_terminal()
    }

    /// Applies `event`.
    pub fn apply(&mut self, event: &GenerationEvent) -> Applied {
        if let GenerationEvent::Start { run } = event {
            if self.is_running() || self.run.is_some_and(|current| *run <= current) {
                return Applied::Invalid;
            }
            *self = Self {
                run: Some(*run),
                phase: Phase::Pending,
                stop_requested: false,
                error: None,
            };
            return Applied::Accepted;
        }
        let run = match event {
            GenerationEvent::Phase { run, .. }
            | GenerationEvent::StopRequested { run }
            | GenerationEvent::Completed { run }
            | GenerationEvent::Failed { run, .. }
            | GenerationEvent::Aborted { run } => *run,
            GenerationEvent::Start { .. } => unreachable!("handled above"),
        };
        if self.run != Some(run) {
            return Applied::Stale;
        }
        if !self.is_running() {
            return Applied::Invalid;
        }
        match event {
            GenerationEvent::Phase { phase, .. } => {
                if phase.is_terminal() || *phase == Phase::Pending {
                    return Applied::Invalid;
                }
                self.phase = *phase;
            }
            GenerationEvent::StopRequested { .. } => self.stop_requested = true,
            GenerationEvent::Completed { .. } => self.end(Phase::Done),
            GenerationEvent::Failed { error, .. } => {
                self.end(Phase::Error);
                self.error = Some(error.clone());
            }
            GenerationEvent::Aborted { .. } => self.end(Phase::Aborted),
            GenerationEvent::Start { .. } => unreachable!("handled above"),
        }
        Applied::Accepted
    }

    fn end(&mut self, phase: Phase) {
        self.phase = phase;
        self.stop_requested = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(run: u64, phase: Phase) -> GenerationEvent {
        GenerationEvent::Phase {
            run: RunId(run),
            phase,
        }
    }

    #[test]
    fn a_run_moves_through_its_phases_to_done() {
        let mut generation = Generation::default();
        assert_eq!(
            generation.apply(&GenerationEvent::Start { run: RunId(1) }),
            Applied::Accepted
        );
        assert_eq!(generation.phase, Phase::Pending);
        for p in [
            Phase::Attachments,
            Phase::Rag,
            Phase::Searching,
            Phase::Model,
            Phase::Tool,
            Phase::Model,
        ] {
            assert_eq!(generation.apply(&phase(1, p)), Applied::Accepted);
            assert_eq!(generation.phase, p);
        }
        assert_eq!(
            generation.apply(&GenerationEvent::Completed { run: RunId(1) }),
            Applied::Accepted
        );
        assert_eq!(generation.phase, Phase::Done);
        assert!(!generation.is_running());
    }

    #[test]
    fn events_of_another_run_are_ignored() {
        let mut generation = Generation::default();
        generation.apply(&GenerationEvent::Start { run: RunId(1) });
        generation.apply(&GenerationEvent::StopRequested { run: RunId(1) });
        generation.apply(&GenerationEvent::Aborted { run: RunId(1) });
        assert_eq!(generation.phase, Phase::Aborted);
        generation.apply(&GenerationEvent::Start { run: RunId(2) });
        // The stopped run's late events change nothing.
        assert_eq!(generation.apply(&phase(1, Phase::Model)), Applied::Stale);
        assert_eq!(
            generation.apply(&GenerationEvent::Completed { run: RunId(1) }),
            Applied::Stale
        );
        assert_eq!(generation.phase, Phase::Pending);
        assert_eq!(generation.run, Some(RunId(2)));
    }

    #[test]
    fn terminal_states_only_accept_a_newer_start() {
        let mut generation = Generation::default();
        generation.apply(&GenerationEvent::Start { run: RunId(5) });
        let error = GenerationError::from_http_status(429, Some("slow down"));
        generation.apply(&GenerationEvent::Failed {
            run: RunId(5),
            error: error.clone(),
        });
        assert_eq!(generation.phase, Phase::Error);
        assert_eq!(generation.error, Some(error));
        assert_eq!(generation.apply(&phase(5, Phase::Model)), Applied::Invalid);
        assert_eq!(
            generation.apply(&GenerationEvent::Completed { run: RunId(5) }),
            Applied::Invalid
        );
        assert_eq!(
            generation.apply(&GenerationEvent::Start { run: RunId(4) }),
            Applied::Invalid,
            "runs only move forward"
        );
        assert_eq!(
            generation.apply(&GenerationEvent::Start { run: RunId(6) }),
            Applied::Accepted
        );
        assert_eq!(generation.error, None);
    }

    #[test]
    fn a_second_start_while_running_is_refused() {
        let mut generation = Generation::default();
        generation.apply(&GenerationEvent::Start { run: RunId(1) });
        assert_eq!(
            generation.apply(&GenerationEvent::Start { run: RunId(2) }),
            Applied::Invalid
        );
        assert_eq!(
            generation.apply(&phase(1, Phase::Done)),
            Applied::Invalid,
            "end through Completed"
        );
        assert_eq!(
            generation.apply(&phase(1, Phase::Pending)),
            Applied::Invalid
        );
    }
}
