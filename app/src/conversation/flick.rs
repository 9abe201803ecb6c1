//! Rows made during a flick are light. Scrolling fast through a long conversation brings
//! a viewport of new rows every frame, and a whole message (its Markdown, actions, menus,
//! branch switcher, details: dozens of reactive nodes and a few hundred DOM nodes) cost
//! several milliseconds to make, so a flick of forty viewports ran at about a dozen
//! frames a second. While the user flicks, a new row shows its message as plain text
//! (at most [`LIGHT_CHARS`] characters, in the space its whole form took when it was
//! measured); once the scrolling has rested for [`REST_MS`], the light rows become whole
//! ones, a few each frame ([`UPGRADE_BUDGET_MS`]), so settling is no long task either.
//!
//! Never light: anything made while the list sticks to the bottom (a streaming reply, a
//! conversation opening), and the message a search result opens.

use std::collections::VecDeque;

use hearth_core::chat::{MessageRecord, MessageStatus};
use leptos::prelude::*;

use crate::chat::Chat;

/// Scrolling faster than this, in CSS pixels per millisecond, is a flick.
const FLICK_SPEED: f64 = 1.5;
/// A flick has ended once the list has not moved for this long.
const REST_MS: i32 = 120;
/// How long one frame may spend making light rows whole.
const UPGRADE_BUDGET_MS: f64 = 6.0;
/// The most characters a light row shows.
pub const LIGHT_CHARS: usize = 600;

/// The list's flick state: whether the user is flicking, and the light rows waiting to be
/// made whole.
#[derive(Clone, Copy)]
pub struct Flick {
    moving: RwSignal<bool>,
    /// Each light row's switch to its whole form (a row gone since is simply skipped).
    waiting: StoredValue<VecDeque<RwSignal<bool>>, LocalStorage>,
    /// Where the last scroll left the list: (top, when).
    last: StoredValue<(f64, f64)>,
    /// Bumped by every fast scroll; a rest timer of an older one does nothing.
    generation: StoredValue<u64>,
    draining: StoredValue<bool>,
}

impl Flick {
    /// Not flicking.
    pub fn new() -> Self {
        Self {
            moving: RwSignal::new(false),
            waiting: StoredValue::new_local(VecDeque::new()),
            last: StoredValue::new((0.0, 0.0)),
            generation: StoredValue::new(0),
            draining: StoredValue::new(false),
        }
    }

    /// Notes a scroll to `top` in a viewport `height` high; `stuck` when the list follows
    /// its end (never a flick).
    pub fn scrolled(self, top: f64, height: f64, stuck: bool) {
        let at = crate::browser::now();
        let (before, then) = self.last.get_value();
        self.last.set_value((top, at));
        let moved = (top - before).abs();
        let fast = moved >= height / 2.0 || moved / (at - then).max(1.0) > FLICK_SPEED;
        if stuck || !fast {
            return;
        }
        if !self.moving.get_untracked() {
            self.moving.set(true);
        }
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        crate::browser::spawn_scoped(async move {
            crate::browser::sleep_ms(REST_MS).await;
            if self.generation.try_get_value() == Some(generation) {
                self.moving.try_set(false);
                self.upgrade();
            }
        });
    }

    /// Whether a row made now should be light.
    pub fn is_flicking(self) -> bool {
        self.moving.get_untracked()
    }

    /// A light row's switch, made whole once the flick rests.
    pub fn light_row(self) -> RwSignal<bool> {
        let whole = RwSignal::new(false);
        self.waiting
            .update_value(|waiting| waiting.push_back(whole));
        whole
    }

    /// Makes the waiting rows whole, a frame's budget at a time, until a new flick starts.
    fn upgrade(self) {
        if self.draining.try_get_value() != Some(false) {
            return;
        }
        self.draining.set_value(true);
        request_animation_frame(move || self.upgrade_frame());
    }

    fn upgrade_frame(self) {
        if self.moving.try_get_untracked() != Some(false) {
            self.draining.try_set_value(false);
            return;
        }
        let start = crate::browser::now();
        while crate::browser::now() - start < UPGRADE_BUDGET_MS {
            let Some(Some(whole)) = self.waiting.try_update_value(VecDeque::pop_front) else {
                self.draining.try_set_value(false);
                return;
            };
            // A row scrolled away before it was made whole is gone with its switch.
            whole.try_set(true);
        }
        request_animation_frame(move || self.upgrade_frame());
    }
}

impl Default for Flick {
    fn default() -> Self {
        Self::new()
    }
}

/// The first [`LIGHT_CHARS`] characters of `text`, with an ellipsis when cut.
pub fn light_text(text: &str) -> String {
    match text.char_indices().nth(LIGHT_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// Message `id` as a light row shows it: its text as plain text.
pub fn light_message(chat: Chat, id: &str) -> impl IntoView {
    let Some(live) = chat.open.live(id) else {
        return ().into_any();
    };
    let (is_user, status) = live
        .record
        .with_untracked(|r| (r.is_user(), status_name(r)));
    let text = live.content.with_untracked(|text| light_text(text));
    view! {
        <article
            class=if is_user {
                "message message--user message--light"
            } else {
                "message message--assistant message--light"
            }
            data-message-id=id.to_string()
            data-status=status
            aria-busy="true"
        >
            <div class="message__body">
                <div class="message__text">{text}</div>
            </div>
        </article>
    }
    .into_any()
}

/// `data-status` as the whole message writes it.
fn status_name(record: &MessageRecord) -> &'static str {
    match record.status {
        MessageStatus::Done => "done",
        MessageStatus::Streaming => "streaming",
        MessageStatus::Error => "error",
        MessageStatus::Aborted => "aborted",
        MessageStatus::Interrupted => "interrupted",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_light_row_shows_the_text_up_to_its_limit_cut_on_a_character() {
        assert_eq!(light_text("short"), "short");
        let long = "日本語".repeat(LIGHT_CHARS);
        let shown = light_text(&long);
        assert_eq!(shown.chars().count(), LIGHT_CHARS + 1);
        assert!(shown.ends_with('…'));
        let exact = "a".repeat(LIGHT_CHARS);
        assert_eq!(light_text(&exact), exact);
    }

    #[test]
    fn the_status_is_named_as_the_whole_message_names_it() {
        // MessageView writes `format!("{:?}", status).to_lowercase()`.
        for status in [
            MessageStatus::Done,
            MessageStatus::Streaming,
            MessageStatus::Error,
            MessageStatus::Aborted,
            MessageStatus::Interrupted,
        ] {
            let record = MessageRecord {
                status,
                ..Default::default()
            };
            assert_eq!(status_name(&record), format!("{status:?}").to_lowercase());
        }
    }
}
