//! The assistant a new chat starts with, from "Start chat" until the first message
//! makes the conversation (which then names it and takes its instructions), or until
//! another new chat begins. On the first load (the empty state greets with it, the first
//! send reads it), so it holds plain strings and no assistant code.

use leptos::prelude::*;

/// What a new chat keeps of its assistant.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Opening {
    /// The assistant's id (the conversation names it).
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its emoji (may be empty).
    pub emoji: String,
    /// What it says before the first question (shown as text, never sent).
    pub greeting: String,
    /// Its instructions: the conversation's own once it exists.
    pub prompt: String,
}

/// The new chat's assistant (`None`: a plain new chat).
#[derive(Clone, Copy, Debug)]
pub struct NewChatAssistant(RwSignal<Option<Opening>>);

impl NewChatAssistant {
    /// No assistant yet.
    pub fn new() -> Self {
        Self(RwSignal::new(None))
    }

    /// The assistant, tracked (the empty state's greeting).
    pub fn get(&self) -> Option<Opening> {
        self.0.get()
    }

    /// Starts the new chat with `opening`.
    pub fn set(&self, opening: Opening) {
        self.0.set(Some(opening));
    }

    /// A plain new chat.
    pub fn clear(&self) {
        if self.0.with_untracked(Option::is_some) {
            self.0.set(None);
        }
    }

    /// The assistant, handed to the conversation the first message makes.
    pub fn take(&self) -> Option<Opening> {
        self.0.try_update(Option::take).flatten()
    }
}

impl Default for NewChatAssistant {
    fn default() -> Self {
        Self::new()
    }
}
