//! Runs: which reply each conversation is writing (or which replies, side by side, for
//! a comparison: one lane each), in which phase (the core phase machine,
//! `hearth_core::chat::Generation`, so an event of another run is refused by its
//! `RunId`), how to stop it, and the messages queued behind it. This store holds the
//! state; the pipeline in `turn` drives it.

use std::collections::HashMap;

use hearth_core::chat::queue::QueueError;
use hearth_core::chat::{
    Applied, Generation, GenerationError, GenerationEvent, Phase, Queue, QueuedMessage, RunId,
    RunOutcome,
};
use leptos::prelude::*;

use super::live::LiveMessage;

/// A reply being written: one lane of its conversation (a conversation writes one
/// reply, or the replies of one comparison side by side).
#[derive(Clone)]
struct Active {
    /// The reply.
    live: LiveMessage,
    /// The reply's id.
    message_id: String,
    /// The comparison it belongs to, if any.
    compare: Option<String>,
    /// Where it is.
    generation: Generation,
}

/// How to stop one lane.
struct Lane {
    run: RunId,
    message_id: String,
    controller: web_sys::AbortController,
}

/// What keeps a conversation's runs going that no view shows: their controllers, and
/// the owner of the conversation's signals while the user looks elsewhere (let go when
/// the last lane ends).
struct Handles {
    lanes: Vec<Lane>,
    kept: Vec<Owner>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// The reply is complete.
    Done,
    /// The user stopped it; what arrived is kept.
    Stopped,
    /// It failed with this error.
    Failed(GenerationError),
}

impl Ending {
    /// What the queue makes of it.
    pub fn outcome(&self) -> RunOutcome {
        match self {
            Ending::Done => RunOutcome::Completed,
            Ending::Stopped => RunOutcome::Stopped,
            Ending::Failed(_) => RunOutcome::Failed,
        }
    }
}

/// Every conversation's runs and queues.
#[derive(Clone, Copy)]
pub struct Runs {
    active: RwSignal<HashMap<String, Vec<Active>>>,
    queues: RwSignal<HashMap<String, Queue>>,
    handles: StoredValue<HashMap<String, Handles>, LocalStorage>,
    next: StoredValue<u64>,
}

impl Default for Runs {
    fn default() -> Self {
        Self::new()
    }
}

impl Runs {
    /// No runs.
    pub fn new() -> Self {
        Self {
            active: RwSignal::new(HashMap::new()),
            queues: RwSignal::new(HashMap::new()),
            handles: StoredValue::new_local(HashMap::new()),
            next: StoredValue::new(1),
        }
    }

    /// Starts a run writing `live` in `conversation_id`; `None` when another reply is
    /// being written there, unless both belong to the same comparison (its replies are
    /// written side by side).
    pub fn begin(
        &self,
        conversation_id: &str,
        live: LiveMessage,
    ) -> Option<(RunId, web_sys::AbortController)> {
        let compare = live.record.with_untracked(|r| r.compare.clone());
        let refused = self.active.with_untracked(|a| {
            a.get(conversation_id).is_some_and(|lanes| {
                lanes.iter().any(|lane| {
                    lane.generation.is_running() && (compare.is_none() || lane.compare != compare)
                })
            })
        });
        if refused {
            return None;
        }
        let controller = web_sys::AbortController::new().ok()?;
        let run = RunId(self.next.get_value());
        self.next.set_value(run.0 + 1);
        let mut generation = Generation::default();
        if generation.apply(&GenerationEvent::Start { run }) != Applied::Accepted {
            return None;
        }
        let message_id = live.id();
        self.active.update(|active| {
            let lanes = active.entry(conversation_id.to_string()).or_default();
            // Lanes that ended are forgotten: an event of theirs finds no lane.
            lanes.retain(|lane| lane.generation.is_running());
            lanes.push(Active {
                message_id: message_id.clone(),
                live,
                compare,
                generation,
            });
        });
        self.handles.update_value(|handles| {
            let handles = handles
                .entry(conversation_id.to_string())
                .or_insert_with(|| Handles {
                    lanes: Vec::new(),
                    kept: Vec::new(),
                });
            handles.lanes.push(Lane {
                run,
                message_id,
                controller: controller.clone(),
            });
        });
        Some((run, controller))
    }

    /// Applies `event` to the lane of its run in `conversation_id`; whether it was
    /// accepted.
    fn apply(&self, conversation_id: &str, run: RunId, event: GenerationEvent) -> bool {
        let mut applied = Applied::Stale;
        self.active.update(|active| {
            if let Some(lane) = active
                .get_mut(conversation_id)
                .and_then(|lanes| lanes.iter_mut().find(|l| l.generation.run == Some(run)))
            {
                applied = lane.generation.apply(&event);
            }
        });
        applied == Applied::Accepted
    }

    /// Moves run `run` to `phase`; `false` for a run that is not a current one.
    pub fn enter(&self, conversation_id: &str, run: RunId, phase: Phase) -> bool {
        let current = self.active.with_untracked(|a| {
            a.get(conversation_id).is_some_and(|lanes| {
                lanes
                    .iter()
                    .any(|l| l.generation.run == Some(run) && l.generation.phase == phase)
            })
        });
        current || self.apply(conversation_id, run, GenerationEvent::Phase { run, phase })
    }

    /// Ends run `run`; once it was the conversation's last, the owners kept for its
    /// lanes are returned for whoever disposes them. A later run is left alone.
    pub fn end(&self, conversation_id: &str, run: RunId, ending: &Ending) -> Vec<Owner> {
        let event = match ending {
            Ending::Done => GenerationEvent::Completed { run },
            Ending::Stopped => GenerationEvent::Aborted { run },
            Ending::Failed(error) => GenerationEvent::Failed {
                run,
                error: error.clone(),
            },
        };
        if !self.apply(conversation_id, run, event) {
            return Vec::new();
        }
        self.handles
            .try_update_value(|handles| {
                let entry = handles.get_mut(conversation_id)?;
                entry.lanes.retain(|lane| lane.run != run);
                if !entry.lanes.is_empty() {
                    return None;
                }
                handles.remove(conversation_id).map(|h| h.kept)
            })
            .flatten()
            .unwrap_or_default()
    }

    /// Asks every run of `conversation_id` to stop; what arrived is kept.
    pub fn stop(&self, conversation_id: &str) {
        self.stop_where(conversation_id, |_| true);
    }

    /// Asks the run writing reply `message_id` of `conversation_id` to stop (one of a
    /// comparison's); the others go on.
    pub fn stop_reply(&self, conversation_id: &str, message_id: &str) {
        self.stop_where(conversation_id, |lane| lane.message_id == message_id);
    }

    fn stop_where(&self, conversation_id: &str, chosen: impl Fn(&Lane) -> bool) {
        let lanes: Vec<(RunId, web_sys::AbortController)> = self
            .handles
            .with_value(|h| {
                h.get(conversation_id).map(|h| {
                    h.lanes
                        .iter()
                        .filter(|lane| chosen(lane))
                        .map(|lane| (lane.run, lane.controller.clone()))
                        .collect()
                })
            })
            .unwrap_or_default();
        for (run, controller) in lanes {
            self.apply(conversation_id, run, GenerationEvent::StopRequested { run });
            controller.abort();
        }
    }

    /// Keeps `owner` (the signals of a conversation the user left) alive while
    /// `conversation_id`'s runs write into them; `Err` gives it back when nothing runs.
    pub fn keep(&self, conversation_id: &str, owner: Owner) -> Result<(), Owner> {
        let mut owner = Some(owner);
        self.handles.update_value(|handles| {
            if let Some(h) = handles.get_mut(conversation_id)
                && let Some(owner) = owner.take()
            {
                h.kept.push(owner);
            }
        });
        match owner {
            Some(owner) => Err(owner),
            None => Ok(()),
        }
    }

    /// Whether `conversation_id` has a reply being written (tracked).
    pub fn is_running(&self, conversation_id: &str) -> bool {
        self.active.with(|a| {
            a.get(conversation_id)
                .is_some_and(|lanes| lanes.iter().any(|l| l.generation.is_running()))
        })
    }

    /// Whether a reply is being written anywhere (untracked).
    pub fn any_running(&self) -> bool {
        self.active.with_untracked(|a| {
            a.values()
                .flatten()
                .any(|lane| lane.generation.is_running())
        })
    }

    /// Whether this tab writes a reply or holds messages queued for one (tracked): what a
    /// reload of the page would cut.
    pub fn writes_any(&self) -> bool {
        self.active.with(|a| {
            a.values()
                .flatten()
                .any(|lane| lane.generation.is_running())
        }) || self
            .queues
            .with(|q| q.values().any(|queue| !queue.is_empty()))
    }

    /// The replies `conversation_id` is writing (untracked): one, the replies of a
    /// comparison, or none.
    pub fn writing(&self, conversation_id: &str) -> Vec<LiveMessage> {
        self.active.with_untracked(|a| {
            a.get(conversation_id)
                .map(|lanes| {
                    lanes
                        .iter()
                        .filter(|lane| lane.generation.is_running())
                        .map(|lane| lane.live)
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// Whether message `id` is a reply this tab is writing (untracked).
    pub fn is_writing(&self, id: &str) -> bool {
        self.active.with_untracked(|a| {
            a.values()
                .flatten()
                .any(|lane| lane.message_id == id && lane.generation.is_running())
        })
    }

    /// The phase of the reply `message_id` while it is written (tracked).
    pub fn phase_of(&self, message_id: &str) -> Option<Phase> {
        self.active.with(|a| {
            a.values()
                .flatten()
                .find(|lane| lane.message_id == message_id && lane.generation.is_running())
                .map(|lane| lane.generation.phase)
        })
    }

    /// Queues `text` behind `key`'s running reply (`""`: the new chat).
    pub fn enqueue(&self, key: &str, message: QueuedMessage) -> Result<(), QueueError> {
        let mut result = Ok(());
        self.queues.update(|queues| {
            result = queues.entry(key.to_string()).or_default().push(message);
        });
        result
    }

    /// The messages queued behind `key` (tracked).
    pub fn queued(&self, key: &str) -> Vec<QueuedMessage> {
        self.queues.with(|queues| {
            queues
                .get(key)
                .map(|queue| queue.items().cloned().collect())
                .unwrap_or_default()
        })
    }

    /// Edits a queued message.
    pub fn edit_queued(&self, key: &str, id: &str, text: &str) {
        self.queues.update(|queues| {
            if let Some(queue) = queues.get_mut(key) {
                let _ = queue.edit(id, text);
            }
        });
    }

    /// Removes a queued message.
    pub fn remove_queued(&self, key: &str, id: &str) {
        self.queues.update(|queues| {
            if let Some(queue) = queues.get_mut(key) {
                let _ = queue.remove(id);
            }
        });
    }

    /// The new chat's queue moves to the conversation it became.
    pub fn adopt_new_chat_queue(&self, conversation_id: &str) {
        self.queues.update(|queues| {
            if let Some(queue) = queues.remove("") {
                queues.insert(conversation_id.to_string(), queue);
            }
        });
    }

    /// The queued message to send after a run ended with `outcome`, if any.
    pub fn next_queued(&self, key: &str, outcome: RunOutcome) -> Option<QueuedMessage> {
        self.queues
            .try_update(|queues| queues.get_mut(key).and_then(|q| q.next_after(outcome)))
            .flatten()
    }
}
