//! `MarkdownBody`: a message's Markdown, rendered by the worker. While a reply streams,
//! `StableSplitter` marks where the finished blocks end; each finished block is rendered
//! once and never touched again, and only the open tail re-renders, at most one request
//! in flight (later growth is coalesced into the next request). Total work stays O(n) in
//! the reply's length. Until a block's HTML arrives (or if the worker is unavailable) its
//! text is shown as plain text. The finished blocks share one output budget
//! (`MessageBudget`), so a reply rendered in pieces is bounded like one rendered whole.
//!
//! What a streaming tail costs the page is the tail's own: the text is brought up to
//! date at most once a frame however often it grew, the tail's HTML is replaced at most
//! once a frame (the next tail render is asked for after the frame that shows the last
//! one), and a block finished while streaming is marked `md-block--settled`, which the
//! styles isolate (skipped while off screen), so the frames of a long reply do not lay
//! out, paint or restyle the blocks above.
//!
//! HTML that holds an inline HTML block (the renderer's `data-html-block` placeholder) is
//! handed to [`super::html_blocks`] as it is shown, and HTML that holds a diagram
//! (`data-diagram`) to [`crate::diagram`].

use std::sync::Arc;

use hearth_core::diagram::DIAGRAM_MARK;
use hearth_core::markdown::{HTML_BLOCK_MARK, Labels, MessageBudget, StableSplitter};
use leptos::prelude::*;

use super::{client, html_blocks};
use crate::i18n::{Key, use_i18n};

/// One rendered piece of a message.
#[derive(Clone)]
struct Slot {
    key: usize,
    plain: Arc<str>,
    html: RwSignal<Option<String>>,
    /// Finished while the reply streamed (the styles isolate it).
    settled: bool,
}

impl Slot {
    fn new(key: usize, plain: &str, settled: bool) -> Self {
        Self {
            key,
            plain: plain.into(),
            html: RwSignal::new(None),
            settled,
        }
    }
}

/// Where rendering of the current text stands.
#[derive(Default)]
struct Progress {
    /// Bumped when the text is replaced; answers for an older generation are dropped.
    generation: u64,
    splitter: StableSplitter,
    /// `text[..done]` is covered by finished blocks.
    done: usize,
    next_key: usize,
    /// A tail render is in flight, or its answer is waiting for the frame that shows it.
    tail_busy: bool,
    /// The tail grew while a render was in flight.
    tail_dirty: bool,
    /// The tail text the last tail answer was rendered from.
    tail_rendered: Option<(usize, String)>,
    /// Whether the text was growing when it last changed.
    was_streaming: Option<bool>,
    /// The text's length when it last changed.
    seen: usize,
    /// Since the last update the text was replaced (it got shorter: a tool round took
    /// it) or started growing again after it had stopped (Continue): the next update
    /// renders from the start. Noted when it happens, since the update that follows
    /// runs a frame later and may only see a longer text.
    replaced: bool,
    /// The HTML the finished blocks may still take.
    budget: MessageBudget,
}

fn labels() -> Labels {
    let i18n = use_i18n();
    Labels {
        copy_code: i18n.t(Key::MessageCopyCode),
        plain_text: i18n.t(Key::MessagePlainText),
        too_large: i18n.t(Key::MessageRenderTooLarge),
        preview: i18n.t(Key::MessagePreviewCode),
        render_failed: i18n.t(Key::MessageRenderFailed),
    }
}

/// The open tail of a streaming reply.
#[derive(Clone, Copy)]
struct Tail {
    open: RwSignal<bool>,
    plain: RwSignal<String>,
    html: RwSignal<Option<String>>,
}

/// Renders the current open tail, unless a render is already in flight (then the newest
/// tail is rendered when that one answers).
fn render_tail(
    (text, prefix): (Signal<String>, Signal<String>),
    tail: Tail,
    progress: StoredValue<Progress, LocalStorage>,
    labels: StoredValue<Labels>,
) {
    let (generation, start, busy) = progress.with_value(|p| (p.generation, p.done, p.tail_busy));
    if busy {
        progress.update_value(|p| p.tail_dirty = true);
        return;
    }
    let source = text.with_untracked(|t| t.get(start..).unwrap_or_default().to_string());
    if source.is_empty() {
        return;
    }
    progress.update_value(|p| {
        p.tail_busy = true;
        p.tail_dirty = false;
    });
    let rendered_from = source.clone();
    let sent = prefix.with_untracked(|prefix| format!("{prefix}{source}"));
    labels.with_value(|names| {
        client::render(&sent, names, move |html| {
            let current = progress.try_update_value(|p| {
                let current = p.generation == generation && p.done == start;
                if current {
                    p.tail_rendered = Some((start, rendered_from));
                }
                current
            });
            let Some(current) = current else {
                return; // the view is gone
            };
            if current && html.is_some() {
                upgrade_blocks_in(html.as_deref());
                let _ = tail.html.try_set(html);
            }
            // The tail grew meanwhile: rendered again after the frame that shows this
            // answer, so its HTML is replaced at most once a frame.
            request_animation_frame(move || {
                let dirty = progress.try_update_value(|p| {
                    p.tail_busy = false;
                    p.tail_dirty
                });
                if dirty == Some(true) {
                    render_tail((text, prefix), tail, progress, labels);
                }
            });
        });
    });
}

/// Has the HTML blocks of `html` (about to be shown) sanitised, and its diagrams drawn,
/// once they are in the page.
fn upgrade_blocks_in(html: Option<&str>) {
    if html.is_some_and(|html| html.contains(HTML_BLOCK_MARK)) {
        html_blocks::upgrade();
    }
    if html.is_some_and(|html| html.contains(DIAGRAM_MARK)) {
        crate::diagram::upgrade();
    }
}

/// Renders `text` as Markdown; `streaming` is true while the text still grows.
#[component]
pub fn MarkdownBody(
    /// The message's Markdown.
    #[prop(into)]
    text: Signal<String>,
    /// Whether the text is still growing.
    #[prop(into)]
    streaming: Signal<bool>,
    /// Markdown put before every block it renders, not shown itself: the reply's source
    /// definitions, so that its citations resolve. When it changes, the text renders
    /// again from the start.
    #[prop(optional, into)]
    prefix: Option<Signal<String>>,
) -> impl IntoView {
    let prefix = prefix.unwrap_or_else(|| Signal::stored(String::new()));
    let labels = StoredValue::new(labels());
    let blocks: RwSignal<Vec<Slot>> = RwSignal::new(Vec::new());
    let tail = Tail {
        open: RwSignal::new(false),
        plain: RwSignal::new(String::new()),
        html: RwSignal::new(None),
    };
    let progress = StoredValue::new_local(Progress::default());
    let owner = StoredValue::new_local(Owner::current());

    // Brings the blocks and the tail up to the text.
    let update = move || {
        let streaming = streaming.get_untracked();
        // A shorter text is a different one; a finished reply that grows again (Continue)
        // may extend its last paragraph, so both render from the start (`replaced`).
        let reset = text.with_untracked(|t| {
            progress.with_value(|p| t.len() < p.done || !t.is_char_boundary(p.done) || p.replaced)
        });
        if reset {
            progress.update_value(|p| {
                *p = Progress {
                    generation: p.generation + 1,
                    next_key: p.next_key,
                    was_streaming: p.was_streaming,
                    seen: p.seen,
                    ..Progress::default()
                }
            });
            blocks.set(Vec::new());
            tail.html.set(None);
        }
        let (start, end, length) = text.with_untracked(|t| {
            let start = progress.with_value(|p| p.done).min(t.len());
            let end = if streaming {
                progress
                    .try_update_value(|p| p.splitter.advance(t))
                    .unwrap_or(start)
            } else {
                t.len()
            };
            (start, end.max(start), t.len())
        });
        if end > start {
            owner.with_value(|owner| {
                finish_block(
                    owner.as_ref(),
                    (text, prefix),
                    (start, end),
                    streaming,
                    blocks,
                    tail,
                    progress,
                    labels,
                )
            });
        }
        if streaming && end < length {
            text.with_untracked(|t| tail.plain.set(t[end..].to_string()));
            tail.open.set(true);
            render_tail((text, prefix), tail, progress, labels);
        } else if tail.open.get_untracked() {
            tail.open.set(false);
            tail.html.set(None);
        }
    };
    // New sources: every block renders again with them (their citations become links).
    Effect::new(move |seen: Option<()>| {
        prefix.track();
        if seen.is_some() {
            progress.update_value(|p| p.replaced = true);
            update();
        }
    });
    // While the text streams it may grow many times a frame: the update runs once, on
    // the next frame. Otherwise (done, stopped, opened) at once.
    let frame_asked = StoredValue::new(false);
    Effect::new(move |_| {
        let growing = streaming.get();
        text.track();
        let length = text.with_untracked(String::len);
        progress.update_value(|p| {
            p.replaced |= length < p.seen || (growing && p.was_streaming == Some(false));
            p.seen = length;
            p.was_streaming = Some(growing);
        });
        if !growing {
            update();
        } else if !frame_asked.get_value() {
            frame_asked.set_value(true);
            request_animation_frame(move || {
                // Gone meanwhile (the message was closed): nothing to bring up to date.
                if frame_asked
                    .try_update_value(|asked| *asked = false)
                    .is_some()
                {
                    update();
                }
            });
        }
    });

    let piece = move |html: Signal<Option<String>>, plain: Signal<String>, class: &'static str| {
        view! {
            <Show
                when=move || html.with(Option::is_some)
                fallback=move || view! { <div class="md-plain">{plain}</div> }
            >
                <div class=class inner_html=move || html.get().unwrap_or_default()></div>
            </Show>
        }
    };
    view! {
        <div class="markdown">
            <For
                each=move || blocks.get()
                key=|slot| slot.key
                children=move |slot| {
                    let plain = slot.plain.to_string();
                    let class = if slot.settled { "md-block md-block--settled" } else { "md-block" };
                    piece(slot.html.into(), Signal::stored(plain), class)
                }
            />
            <Show when=move || tail.open.get()>
                {piece(tail.html.into(), tail.plain.into(), "md-block")}
            </Show>
        </div>
    }
}

/// Turns `text[start..end]` into a finished block, rendered once (or taken from the last
/// tail answer when that was rendered from exactly this text); `settled` while the reply
/// still streams.
#[allow(clippy::too_many_arguments)]
fn finish_block(
    owner: Option<&Owner>,
    (text, prefix): (Signal<String>, Signal<String>),
    (start, end): (usize, usize),
    settled: bool,
    blocks: RwSignal<Vec<Slot>>,
    tail: Tail,
    progress: StoredValue<Progress, LocalStorage>,
    labels: StoredValue<Labels>,
) {
    let generation = progress.with_value(|p| p.generation);
    let (key, reuse) = progress
        .try_update_value(|p| {
            let key = p.next_key;
            p.next_key += 1;
            p.done = end;
            let reuse = match p.tail_rendered.take() {
                Some((from, source)) if from == start && source.len() == end - start => {
                    text.with_untracked(|t| t[start..end] == source)
                }
                _ => false,
            };
            (key, reuse)
        })
        .unwrap_or_default();
    // The block's signal belongs to the component, not to the effect that made it: an
    // effect's children are disposed when it runs again, and the answer would be lost.
    let make = || text.with_untracked(|t| Slot::new(key, &t[start..end], settled));
    let slot = match owner {
        Some(owner) => owner.with(make),
        None => make(),
    };
    // A block's HTML counts against the message's budget (past it, the block shows an
    // error, then plain text).
    let admit = move |html: String, source: &str| {
        labels
            .try_with_value(|labels| {
                progress
                    .try_update_value(|p| {
                        (p.generation == generation)
                            .then(|| p.budget.admit(html, source, labels))
                            .flatten()
                    })
                    .flatten()
            })
            .flatten()
    };
    let reused = reuse.then(|| tail.html.get_untracked()).flatten();
    tail.html.set(None);
    if let Some(html) = reused {
        let html = admit(html, &slot.plain);
        upgrade_blocks_in(html.as_deref());
        slot.html.set(html);
    } else {
        let html = slot.html;
        let source = slot.plain.clone();
        let sent = prefix.with_untracked(|prefix| format!("{prefix}{source}"));
        labels.with_value(|labels| {
            client::render(&sent, labels, move |answer| {
                if let Some(answer) = answer.and_then(|answer| admit(answer, &source)) {
                    upgrade_blocks_in(Some(&answer));
                    let _ = html.try_set(Some(answer));
                }
            });
        });
    }
    blocks.update(|blocks| blocks.push(slot));
}
