//! Runs: which reply each conversation is writing, in which phase (the core phase
//! machine, `hearth_core::chat::Generation`, so an event of another run is refused by
//! its `RunId`), how to stop it, and the messages queued behind it. This store holds the
//! state; the pipeline in `turn` drives it.

use std::collections::HashMap;

use hearth_core::chat::queue::QueueError;
use hearth_core::chat::{
    Applied, Generation, GenerationError, GenerationEvent, Phase, Queue, QueuedMessage, RunId,
    RunOutcome,
};
use leptos::prelude::*;

use super::live::LiveMessage;

/// A reply being written.
#[derive(Clone)]
struct Active {
    /// The reply.
    live: LiveMessage,
    /// The reply's id.
    message_id: String,
    /// Where it is.
    generation: Generation,
}

/// What keeps a run going that no view shows: its controller, and the owner of the
/// conversation's signals while the user looks elsewhere.
struct Handles {
    run: RunId,
    controller: web_sys::AbortController,
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
    active: RwSignal<HashMap<String, Active>>,
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

    /// Starts a run writing `live` in `conversation_id`; `None` when one is running there.
    pub fn begin(
        &self,
        conversation_id: &str,
        live: LiveMessage,
    ) -> Option<(RunId, web_sys::AbortController)> {
        if self.is_running_untracked(conversation_id) {
            return None;
        }
        let controller = web_sys::AbortController::new().ok()?;
        let run = RunId(self.next.get_value());
        self.next.set_value(run.0 + 1);
        let mut generation = self
            .active
            .with_untracked(|a| a.get(conversation_id).map(|a| a.generation.clone()))
            .unwrap_or_default();
        if generation.apply(&GenerationEvent::Start { run }) != Applied::Accepted {
            return None;
        }
        self.active.update(|active| {
            active.insert(
                conversation_id.to_string(),
                Active {
                    message_id: live.id(),
                    live,
                    generation,
                },
            );
        });
        self.handles.update_value(|handles| {
            handles.insert(
                conversation_id.to_string(),
                Handles {
                    run,
                    controller: controller.clone(),
                    kept: Vec::new(),
                },
            );
        });
        Some((run, controller))
    }

    /// Applies `event` to `conversation_id`'s generation; whether it was accepted.
    fn apply(&self, conversation_id: &str, event: GenerationEvent) -> bool {
        let mut applied = Applied::Stale;
        self.active.update(|active| {
            if let Some(entry) = active.get_mut(conversation_id) {
                applied = entry.generation.apply(&event);
            }
        });
        applied == Applied::Accepted
    }

    /// Moves run `run` to `phase`; `false` for a run that is not the current one.
    pub fn enter(&self, conversation_id: &str, run: RunId, phase: Phase) -> bool {
        let current = self.active.with_untracked(|a| {
            a.get(conversation_id)
                .is_some_and(|entry| entry.generation.phase == phase)
        });
        current || self.apply(conversation_id, GenerationEvent::Phase { run, phase })
    }

    /// Ends run `run`; the owners it kept are returned for whoever disposes them. A
    /// later run of the same conversation is left alone.
    pub fn end(&self, conversation_id: &str, run: RunId, ending: &Ending) -> Vec<Owner> {
        let event = match ending {
            Ending::Done => GenerationEvent::Completed { run },
            Ending::Stopped => GenerationEvent::Aborted { run },
            Ending::Failed(error) => GenerationEvent::Failed {
                run,
                error: error.clone(),
            },
        };
        if !self.apply(conversation_id, event) {
            return Vec::new();
        }
        self.handles
            .try_update_value(|handles| match handles.get(conversation_id) {
                Some(h) if h.run == run => handles
                    .remove(conversation_id)
                    .map(|h| h.kept)
                    .unwrap_or_default(),
                _ => Vec::new(),
            })
            .unwrap_or_default()
    }

    /// Asks `conversation_id`'s run to stop; what arrived is kept.
    pub fn stop(&self, conversation_id: &str) {
        let Some((run, controller)) = self.handles.with_value(|h| {
            h.get(conversation_id)
                .map(|h| (h.run, h.controller.clone()))
        }) else {
            return;
        };
        self.apply(conversation_id, GenerationEvent::StopRequested { run });
        controller.abort();
    }

    /// Keeps `owner` (the signals of a conversation the user left) alive while
    /// `conversation_id`'s run writes into them; `Err` gives it back when nothing runs.
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

    fn is_running_untracked(&self, conversation_id: &str) -> bool {
        self.active.with_untracked(|a| {
            a.get(conversation_id)
                .is_some_and(|entry| entry.generation.is_running())
        })
    }

    /// Whether `conversation_id` has a reply being written (tracked).
    pub fn is_running(&self, conversation_id: &str) -> bool {
        self.active.with(|a| {
            a.get(conversation_id)
                .is_some_and(|entry| entry.generation.is_running())
        })
    }

    /// Whether a reply is being written anywhere (untracked).
    pub fn any_running(&self) -> bool {
        self.active
            .with_untracked(|a| a.values().any(|entry| entry.generation.is_running()))
    }

    /// Whether this tab writes a reply or holds messages queued for one (tracked): what a
    /// reload of the page would cut.
    pub fn writes_any(&self) -> bool {
        self.active
            .with(|a| a.values().any(|entry| entry.generation.is_running()))
            || self
                .queues
                .with(|q| q.values().any(|queue| !queue.is_empty()))
    }

    /// The reply `conversation_id` is writing, if any (untracked).
    pub fn writing(&self, conversation_id: &str) -> Option<LiveMessage> {
        self.active.with_untracked(|a| {
            a.get(conversation_id)
                .filter(|entry| entry.generation.is_running())
                .map(|entry| entry.live)
        })
    }

    /// Whether message `id` is a reply this tab is writing (untracked).
    pub fn is_writing(&self, id: &str) -> bool {
        self.active.with_untracked(|a| {
            a.values()
                .any(|entry| entry.message_id == id && entry.generation.is_running())
        })
    }

    /// The phase of the reply `message_id` while it is written (tracked).
    pub fn phase_of(&self, message_id: &str) -> Option<Phase> {
        self.active.with(|a| {
            a.values()
                .find(|entry| entry.message_id == message_id && entry.generation.is_running())
                .map(|entry| entry.generation.phase)
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
