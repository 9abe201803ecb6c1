//! The message list, virtualised: only the messages near the viewport are in the DOM,
//! with spacers standing in for the rest, so a conversation of 10,000 messages costs
//! about as much as one of twenty. Heights are measured (a `ResizeObserver` follows
//! streaming and late-rendered Markdown) and estimated until then.
//!
//! While a reply streams the list sticks to the bottom; scrolling up releases it, and
//! scrolling back to the bottom sticks it again. A message found by search
//! (`OpenConversation::found`) is scrolled to, however far up it is, and highlighted.
//! Rows made while the user flicks through the list are light until it rests (`flick`).

use std::collections::HashMap;

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::flick::{Flick, light_message};
use super::message::MessageView;
use crate::chat::use_chat;

/// The height assumed for a message not measured yet, in CSS pixels.
const ESTIMATE: f64 = 140.0;
/// How far beyond the viewport messages stay rendered, in CSS pixels.
const OVERSCAN: f64 = 800.0;
/// Within this distance of the bottom the list counts as at the bottom.
const STICK_DISTANCE: f64 = 48.0;

/// Which slice of `heights` to render for a viewport at `top`..`top + height`; returns
/// (first, end, space above, space below).
pub fn window_of(heights: &[f64], top: f64, height: f64) -> (usize, usize, f64, f64) {
    // A viewport past the end (measured heights came in smaller than estimated while it
    // sat at the bottom) shows the end, never an empty list.
    let total: f64 = heights.iter().sum();
    let top = top.min((total - height).max(0.0)).max(0.0);
    let (from, to) = (top - OVERSCAN, top + height + OVERSCAN);
    let mut y = 0.0;
    let mut first = heights.len();
    let mut above = 0.0;
    for (index, h) in heights.iter().enumerate() {
        if y + h >= from {
            first = index;
            above = y;
            break;
        }
        y += h;
    }
    let mut end = first;
    while end < heights.len() && y < to {
        y += heights[end];
        end += 1;
    }
    (first, end, above, (total - y).max(0.0))
}

/// The open conversation's messages.
#[component]
pub fn MessageList() -> impl IntoView {
    let chat = use_chat();
    let scroller = NodeRef::<html::Div>::new();
    let heights = RwSignal::new(HashMap::<String, f64>::new());
    let viewport = RwSignal::new((0.0_f64, 800.0_f64));
    let stick = RwSignal::new(true);
    let flick = Flick::new();

    let window = Memo::new(move |_| {
        let path = chat.open.path().get();
        let measured: Vec<f64> = heights.with(|h| {
            path.iter()
                .map(|id| h.get(id).copied().unwrap_or(ESTIMATE))
                .collect()
        });
        let (top, height) = viewport.get();
        let (first, end, above, below) = window_of(&measured, top, height);
        (path[first..end].to_vec(), above, below)
    });

    // Called on later frames and by the observer, perhaps after the list was disposed
    // (the conversation emptied or closed meanwhile): every reactive read below is a
    // `try_` read, which gives nothing then instead of panicking.
    let to_bottom = move || {
        if let Some(element) = scroller.try_get_untracked().flatten() {
            element.set_scroll_top(element.scroll_height());
        }
    };

    // One observer measures every rendered message.
    let observer = StoredValue::new_local(None::<web_sys::ResizeObserver>);
    let on_resize = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let mut changed = Vec::new();
        for entry in entries.iter() {
            let Ok(entry) = entry.dyn_into::<web_sys::ResizeObserverEntry>() else {
                continue;
            };
            let target = entry.target();
            let Some(id) = target.get_attribute("data-row") else {
                continue;
            };
            // A light row stands in the space its whole form was measured at.
            if target.has_attribute("data-light")
                && heights.try_with_untracked(|h| h.contains_key(&id)) == Some(true)
            {
                continue;
            }
            let Some(element) = target.dyn_ref::<web_sys::HtmlElement>() else {
                continue;
            };
            let height = f64::from(element.offset_height());
            changed.push((id, height));
        }
        if changed.is_empty() {
            return;
        }
        heights.try_update(|h| {
            for (id, height) in changed {
                h.insert(id, height);
            }
        });
        if stick.try_get_untracked() == Some(true) {
            to_bottom();
        }
    });
    observer.set_value(web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok());
    on_resize.forget();
    on_cleanup(move || {
        if let Some(Some(observer)) = observer.try_get_value() {
            observer.disconnect();
        }
    });

    let on_scroll = move |_| {
        let Some(element) = scroller.get_untracked() else {
            return;
        };
        let top = f64::from(element.scroll_top());
        let height = f64::from(element.client_height());
        let distance = f64::from(element.scroll_height()) - top - height;
        stick.set(distance <= STICK_DISTANCE);
        flick.scrolled(top, height, stick.get_untracked());
        viewport.set((top, height));
    };

    // A message found by search is brought into view: first by its estimated offset (so
    // the window renders it), then, once it is rendered, centred; a few frames in a row,
    // while its neighbours' real heights replace the estimates.
    let reveal = Reveal {
        scroller,
        heights,
        viewport,
        stick,
        path: chat.open.path(),
    };
    Effect::new(move |_| {
        if let Some(id) = chat.open.found() {
            request_animation_frame(move || reveal.step(id, 8));
        }
    });

    // A new conversation opens at its end.
    Effect::new(move |previous: Option<Option<String>>| {
        let current = chat.open.current();
        if previous.as_ref() != Some(&current) {
            stick.set(true);
            heights.set(HashMap::new());
            request_animation_frame(move || {
                if let Some(element) = scroller.try_get_untracked().flatten() {
                    viewport.try_set((0.0, f64::from(element.client_height())));
                }
                to_bottom();
            });
        }
        current
    });
    // New messages and streamed text keep the end in view while stuck.
    Effect::new(move |_| {
        chat.open.path().track();
        if stick.get_untracked() {
            request_animation_frame(to_bottom);
        }
    });

    let row = move |id: String| {
        let node = NodeRef::<html::Div>::new();
        // Light while the user flicks (never the message a search result opens).
        let light = flick.is_flicking() && chat.open.found().as_deref() != Some(id.as_str());
        let whole = if light {
            flick.light_row()
        } else {
            RwSignal::new(true)
        };
        let measured = light
            .then(|| heights.with_untracked(|h| h.get(&id).copied()))
            .flatten();
        node.on_load(move |element| {
            if let Some(px) = measured {
                let _ = web_sys::HtmlElement::style(&element)
                    .set_property("min-height", &format!("{px}px"));
            }
            if let Some(observer) = observer.get_value() {
                observer.observe(&element);
            }
        });
        let row_id = id.clone();
        let break_id = id.clone();
        let found_id = id.clone();
        let found = move || chat.open.found().as_deref() == Some(found_id.as_str());
        let message = move || {
            if whole.get() {
                if let Some(element) = node.get_untracked() {
                    let _ = web_sys::HtmlElement::style(&element).remove_property("min-height");
                }
                // The answers of a comparison are one row, side by side.
                let compared = chat
                    .open
                    .live(&id)
                    .is_some_and(|live| live.record.with_untracked(|r| r.compare.is_some()));
                if compared {
                    super::comparison::row(id.clone())
                } else {
                    view! { <MessageView id=id.clone() /> }.into_any()
                }
            } else {
                light_message(chat, &id).into_any()
            }
        };
        view! {
            <div
                class="message-row"
                class:message-row--found=found
                data-row=row_id
                data-light=move || (!whole.get()).then_some("")
                node_ref=node
            >
                {message}
                {super::context_break::context_break(break_id)}
            </div>
        }
    };

    // The spacers' heights are computed geometry, not design values: set through the
    // CSSOM (which the CSP allows), never as a `style` attribute.
    let (above, below) = (NodeRef::<html::Div>::new(), NodeRef::<html::Div>::new());
    Effect::new(move |_| {
        let (top, bottom) = window.with(|w| (w.1, w.2));
        for (node, px) in [(above, top), (below, bottom)] {
            if let Some(element) = node.get() {
                let _ = web_sys::HtmlElement::style(&element)
                    .set_property("height", &format!("{px}px"));
            }
        }
    });

    view! {
        <div class="message-list" data-menu-bounds node_ref=scroller on:scroll=on_scroll>
            <div class="message-list__inner">
                <div class="message-list__spacer" node_ref=above></div>
                <For each=move || window.get().0 key=|id| id.clone() children=row />
                <div class="message-list__spacer" node_ref=below></div>
                {super::archived::archived_note()}
                {super::temporary::temporary_note()}
                {super::memory::memory_off_note()}
            </div>
        </div>
    }
}

/// What bringing a found message into view needs of the list.
#[derive(Clone, Copy)]
struct Reveal {
    scroller: NodeRef<html::Div>,
    heights: RwSignal<HashMap<String, f64>>,
    viewport: RwSignal<(f64, f64)>,
    stick: RwSignal<bool>,
    path: Memo<Vec<String>>,
}

impl Reveal {
    /// One attempt at showing message `id`, and `tries` more on the next frames. It runs
    /// on later frames, perhaps after the list was disposed: its reads are `try_` reads.
    fn step(self, id: String, tries: u32) {
        let Some(element) = self.scroller.try_get_untracked().flatten() else {
            return;
        };
        let Some(index) = self
            .path
            .try_with_untracked(|path| path.iter().position(|p| *p == id))
            .flatten()
        else {
            return;
        };
        self.stick.try_set(false);
        let rendered = element
            .query_selector_all(".message-row")
            .ok()
            .and_then(|rows| {
                (0..rows.length())
                    .filter_map(|i| rows.item(i))
                    .filter_map(|row| row.dyn_into::<web_sys::Element>().ok())
                    .find(|row| row.get_attribute("data-row").as_deref() == Some(id.as_str()))
            });
        match rendered {
            Some(row) => {
                let options = web_sys::ScrollIntoViewOptions::new();
                options.set_block(web_sys::ScrollLogicalPosition::Center);
                row.scroll_into_view_with_scroll_into_view_options(&options);
            }
            None => {
                let offset: f64 = self
                    .path
                    .try_with_untracked(|path| {
                        self.heights.try_with_untracked(|h| {
                            path[..index.min(path.len())]
                                .iter()
                                .map(|p| h.get(p).copied().unwrap_or(ESTIMATE))
                                .sum()
                        })
                    })
                    .flatten()
                    .unwrap_or(0.0);
                element.set_scroll_top(offset as i32);
            }
        }
        self.viewport.try_set((
            f64::from(element.scroll_top()),
            f64::from(element.client_height()),
        ));
        if tries > 0 {
            request_animation_frame(move || self.step(id, tries - 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_covers_the_viewport_and_the_spacers_the_rest() {
        let heights = vec![100.0; 1000];
        let (first, end, above, below) = window_of(&heights, 50_000.0, 800.0);
        assert!(first <= 500 - 8 && end >= 508 + 8, "{first}..{end}");
        assert!(end - first < 40);
        assert_eq!(above, first as f64 * 100.0);
        assert_eq!(below, (1000 - end) as f64 * 100.0);
        let (first, end, above, _) = window_of(&heights, 0.0, 800.0);
        assert_eq!((first, above), (0, 0.0));
        assert!(end >= 8);
        assert_eq!(window_of(&[], 0.0, 800.0), (0, 0, 0.0, 0.0));
        // Past the end: the last messages, not nothing.
        let (first, end, _, below) = window_of(&heights, 10_000_000.0, 800.0);
        assert_eq!(end, 1000);
        assert!(first < 1000 && first > 950, "{first}");
        assert_eq!(below, 0.0);
    }
}
