//! Toast notifications. Two live regions exist from the first render (a region added
//! together with its message is not announced): `role=status` / `aria-live=polite` for
//! information and `role=alert` / `aria-live=assertive` for errors. Information toasts
//! dismiss themselves; errors stay until dismissed, so nobody misses one.
//!
//! A modal dialog makes everything outside it inert, the page's toast region included, so
//! each open [`crate::ui::dialog::Dialog`] renders its own region and the page's region
//! stands down while any modal is open: toasts raised from a dialog can be read and
//! dismissed there.

use std::time::Duration;

use leptos::prelude::*;

use crate::i18n::{Key, tr};
use crate::ui::icon::{Icon, icon};

/// How long an information toast stays.
const INFO_TIMEOUT: Duration = Duration::from_secs(6);
/// The most toasts on screen; past it the oldest plain notice goes first.
const MAX_VISIBLE: usize = 3;

/// What a toast reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToastKind {
    /// Something happened or needs the user's attention; announced politely.
    Info,
    /// Something failed; announced at once and kept until dismissed.
    Error,
}

/// A button on a toast (Undo); clicking it runs the callback and dismisses the toast.
#[derive(Clone)]
pub struct ToastAction {
    /// The button's translated label.
    pub label: String,
    /// What it does.
    pub run: Callback<()>,
}

#[derive(Clone)]
struct ToastItem {
    id: u64,
    kind: ToastKind,
    message: String,
    action: Option<ToastAction>,
}

/// The toast queue, provided as context by the app root.
#[derive(Clone, Copy)]
pub struct Toasts {
    items: RwSignal<Vec<ToastItem>>,
    next_id: StoredValue<u64>,
    /// How many modal dialogs are open.
    pub modals_open: RwSignal<u32>,
}

impl Toasts {
    /// An empty queue.
    pub fn new() -> Self {
        Self {
            items: RwSignal::new(Vec::new()),
            next_id: StoredValue::new(1),
            modals_open: RwSignal::new(0),
        }
    }

    /// Shows a toast with an already translated `message`.
    pub fn show(&self, kind: ToastKind, message: impl Into<String>) {
        self.push(kind, message.into(), None);
    }

    /// Shows an information toast with a button (Undo); returns its id.
    pub fn show_with_action(&self, message: impl Into<String>, action: ToastAction) -> u64 {
        self.push(ToastKind::Info, message.into(), Some(action))
    }

    fn push(&self, kind: ToastKind, message: String, action: Option<ToastAction>) -> u64 {
        let id = self.next_id.get_value();
        self.next_id.set_value(id + 1);
        self.items.update(|items| {
            // The same message twice in a row is one toast, not a stack of them.
            items.retain(|item| item.message != message);
            items.push(ToastItem {
                id,
                kind,
                message,
                action,
            });
            while items.len() > MAX_VISIBLE {
                let oldest = items
                    .iter()
                    .position(|item| item.kind == ToastKind::Info && item.action.is_none())
                    .unwrap_or(0);
                items.remove(oldest);
            }
        });
        if kind == ToastKind::Info {
            let this = *self;
            set_timeout(move || this.dismiss(id), INFO_TIMEOUT);
        }
        id
    }

    /// Removes a toast.
    pub fn dismiss(&self, id: u64) {
        self.items
            .update(|items| items.retain(|item| item.id != id));
    }
}

impl Default for Toasts {
    fn default() -> Self {
        Self::new()
    }
}

/// The app's [`Toasts`].
pub fn use_toasts() -> Toasts {
    expect_context::<Toasts>()
}

/// The two live regions. The app root renders one with `in_modal = false`; every open
/// modal dialog renders one with `in_modal = true`, and the root's stands down meanwhile.
#[component]
pub fn ToastRegion(
    /// Whether this region lives inside a modal dialog.
    #[prop(optional)]
    in_modal: bool,
) -> impl IntoView {
    let toasts = use_toasts();
    let active = move || in_modal || toasts.modals_open.get() == 0;
    let list = move |kind: ToastKind| {
        view! {
            <For
                each=move || {
                    let items = if active() { toasts.items.get() } else { Vec::new() };
                    items.into_iter().filter(move |item| item.kind == kind)
                }
                key=|item| item.id
                let:item
            >
                <div class=format!("toast toast--{}", if item.kind == ToastKind::Error { "error" } else { "info" })>
                    {icon(if item.kind == ToastKind::Error { Icon::Alert } else { Icon::Info })}
                    <p class="toast__message">{item.message.clone()}</p>
                    {item.action.clone().map(|action| {
                        let id = item.id;
                        view! {
                            <button
                                type="button"
                                class="button button--secondary button--small toast__action"
                                on:click=move |_| {
                                    action.run.run(());
                                    toasts.dismiss(id);
                                }
                            >
                                {action.label.clone()}
                            </button>
                        }
                    })}
                    <button
                        type="button"
                        class="icon-button icon-button--small"
                        aria-label=tr(Key::ToastDismiss)
                        title=tr(Key::ToastDismiss)
                        on:click=move |_| toasts.dismiss(item.id)
                    >
                        {icon(Icon::Close)}
                    </button>
                </div>
            </For>
        }
    };
    view! {
        <section class="toasts" aria-label=tr(Key::ToastRegion)>
            <div class="toasts__list" role="status" aria-live="polite">
                {list(ToastKind::Info)}
            </div>
            <div class="toasts__list" role="alert" aria-live="assertive">
                {list(ToastKind::Error)}
            </div>
        </section>
    }
}
