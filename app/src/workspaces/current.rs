//! The workspace the sidebar is in: its conversations are the ones listed, and a new
//! chat goes to it and starts with its model. Kept in local storage as plain strings
//! (its id; its colour and name; its model as `ui::model_picker::encode` writes it), so
//! the first load reads it without a JSON reader and carries no workspace code: the
//! library, the sidebar's button and its menu live in lazily loaded chunks, which write
//! the strings again when the workspace changes. Other tabs hear of it through the
//! `storage` event (listened to from the button's chunk).

use hearth_core::preferences::ModelRef;
use leptos::prelude::*;

/// Where the id is kept.
const ID_KEY: &str = "hearth.workspace";
/// Where its colour and name are kept (`colour`, U+001F, `name`).
const LABEL_KEY: &str = "hearth.workspace.label";
/// Where its model is kept.
const MODEL_KEY: &str = "hearth.workspace.model";

/// What the page keeps of the current workspace without its library.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Summary {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its colour's name (`hearth_core::knowledge::Colour::as_str`).
    pub colour: String,
    /// The model a new chat here starts with.
    pub model: Option<ModelRef>,
}

/// The current workspace's id (`None`: all conversations), provided by the chat.
#[derive(Clone, Copy)]
pub struct CurrentWorkspace(RwSignal<Option<String>>);

impl CurrentWorkspace {
    /// The stored one.
    pub fn load() -> Self {
        Self(RwSignal::new(crate::browser::local_storage_get(ID_KEY)))
    }

    /// Follows other tabs' changes (called by the sidebar's button, in its chunk).
    pub fn follow_other_tabs(self) {
        let _ = window_event_listener(leptos::ev::storage, move |event| {
            match event.key().as_deref() {
                Some(ID_KEY) => self.0.set(event.new_value()),
                // Renamed or recoloured: the same id, shown again.
                Some(LABEL_KEY) => self.0.update(|_| {}),
                _ => {}
            }
        });
    }

    /// Its id (tracked).
    pub fn id(&self) -> Option<String> {
        self.0.get()
    }

    /// Its id (untracked): the workspace a new conversation goes to.
    pub fn id_untracked(&self) -> Option<String> {
        self.0.get_untracked()
    }

    /// The model a new chat here starts with.
    pub fn model(&self) -> Option<ModelRef> {
        self.0.get_untracked()?;
        crate::ui::model_picker::decode(&crate::browser::local_storage_get(MODEL_KEY)?)
    }

    /// Whether conversation workspace `id` is listed (tracked): every one when no
    /// workspace is current.
    pub fn lists(&self, id: Option<&str>) -> bool {
        self.0
            .with(|current| current.is_none() || current.as_deref() == id)
    }

    /// Its colour and name, as last written (`None` without a current workspace).
    pub fn label(&self) -> Option<(String, String)> {
        self.0.get()?;
        let label = crate::browser::local_storage_get(LABEL_KEY).unwrap_or_default();
        let (colour, name) = label.split_once('\u{1f}').unwrap_or(("", &label));
        Some((colour.to_string(), name.to_string()))
    }

    /// Makes `summary` the current workspace (kept across reloads); `None`: all
    /// conversations.
    pub fn set(&self, summary: Option<Summary>) {
        let keys = [ID_KEY, LABEL_KEY, MODEL_KEY];
        match &summary {
            Some(s) => {
                let label = format!("{}\u{1f}{}", s.colour, s.name);
                let model = s.model.as_ref().map(crate::ui::model_picker::encode);
                for (key, value) in keys
                    .into_iter()
                    .zip([Some(s.id.clone()), Some(label), model])
                {
                    match value {
                        Some(value) => crate::browser::local_storage_set(key, &value),
                        None => crate::browser::local_storage_remove(key),
                    }
                }
            }
            None => keys
                .into_iter()
                .for_each(crate::browser::local_storage_remove),
        }
        // Set even when the id is the same: the label is read with it.
        self.0.set(summary.map(|s| s.id));
    }
}
