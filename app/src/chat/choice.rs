//! The model new messages go to. The user's pick is kept (in local storage, across
//! reloads); what the composer uses is a memo over it: the pick while it is offered,
//! else the default model (Settings › Models) while that is offered, else the first
//! model offered. Nothing writes the pick back to make it valid.
//!
//! Beside it, the models the user compares it with (`also`, up to three, this tab's
//! memory only): a message then goes to all of them side by side
//! (`hearth_core::chat::compare`).

use hearth_core::preferences::ModelRef;
use leptos::prelude::*;

/// Where the pick is kept.
const CHOICE_KEY: &str = "hearth.model";

/// The models on offer: (provider id, provider name, model ids), providers in order.
pub type Offered = Vec<(String, String, Vec<String>)>;

/// The composer's model choice.
#[derive(Clone, Copy)]
pub struct ModelChoice {
    picked: RwSignal<Option<ModelRef>>,
    also: RwSignal<Vec<ModelRef>>,
    effective: Memo<Option<ModelRef>>,
    offered: Memo<Offered>,
}

/// Whether `choice` is among `offered`.
fn is_offered(offered: &Offered, choice: &ModelRef) -> bool {
    offered
        .iter()
        .any(|(p, _, ids)| *p == choice.provider_id && ids.contains(&choice.model))
}

impl ModelChoice {
    /// The stored pick over `offered`, falling back to `default`.
    pub fn new(offered: Memo<Offered>, default: Signal<Option<ModelRef>>) -> Self {
        let picked = RwSignal::new(
            crate::browser::local_storage_get(CHOICE_KEY)
                .and_then(|text| serde_json::from_str(&text).ok()),
        );
        let effective = Memo::new(move |_| {
            offered.with(|offered| {
                let valid = |choice: Option<ModelRef>| choice.filter(|c| is_offered(offered, c));
                valid(picked.get())
                    .or_else(|| valid(default.get()))
                    .or_else(|| {
                        offered.first().map(|(provider_id, _, ids)| ModelRef {
                            provider_id: provider_id.clone(),
                            model: ids[0].clone(),
                        })
                    })
            })
        });
        Self {
            picked,
            also: RwSignal::new(Vec::new()),
            effective,
            offered,
        }
    }

    /// The model a new message goes to (tracked).
    pub fn get(&self) -> Option<ModelRef> {
        self.effective.get()
    }

    /// The model a new message goes to (untracked).
    pub fn get_untracked(&self) -> Option<ModelRef> {
        self.effective.get_untracked()
    }

    /// The models on offer (a memo).
    pub fn offered(&self) -> Memo<Offered> {
        self.offered
    }

    /// The models a new message also goes to, for a comparison (tracked): those still
    /// on offer, never the chosen one.
    pub fn also(&self) -> Vec<ModelRef> {
        let chosen = self.get();
        self.offered.with(|offered| {
            self.also.with(|also| {
                also.iter()
                    .filter(|m| is_offered(offered, m) && Some(*m) != chosen.as_ref())
                    .cloned()
                    .collect()
            })
        })
    }

    /// [`Self::also`], untracked.
    pub fn also_untracked(&self) -> Vec<ModelRef> {
        untrack(|| self.also())
    }

    /// The user compares the chosen model with `models` (none: no comparison).
    pub fn compare_with(&self, models: Vec<ModelRef>) {
        self.also.set(models);
    }

    /// The user picks `choice` (kept across reloads).
    pub fn pick(&self, choice: Option<ModelRef>) {
        match &choice {
            Some(choice) => {
                if let Ok(text) = serde_json::to_string(choice) {
                    crate::browser::local_storage_set(CHOICE_KEY, &text);
                }
            }
            None => crate::browser::local_storage_remove(CHOICE_KEY),
        }
        self.picked.set(choice);
    }
}
