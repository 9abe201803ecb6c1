//! A modal dialog on the native `<dialog>` element (`showModal()` makes the rest of the
//! page inert and gives the top layer). On top of that it:
//! - moves focus into the dialog when it opens (to the element marked `data-autofocus`,
//!   else the first focusable one);
//! - traps Tab and Shift+Tab inside (the browser would otherwise let focus escape to its
//!   own toolbar after the last control);
//! - closes on Escape, on the close button and on a click on the backdrop;
//! - returns focus to the element that had it before opening.
//!
//! The body is only mounted while the dialog is open, so a closed settings dialog costs
//! nothing.

use leptos::ev::{KeyboardEvent, MouseEvent};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::i18n::{Key, tr};
use crate::ui::icon::{Icon, icon};
use crate::ui::toast::{ToastRegion, use_toasts};

/// A modal dialog controlled by `open`.
#[component]
pub fn Dialog(
    /// Whether the dialog is shown. The dialog sets it to `false` when the user closes it.
    open: RwSignal<bool>,
    /// The heading, also the dialog's accessible name.
    #[prop(into)]
    title: Signal<String>,
    /// Extra class on the dialog element (for size variants).
    #[prop(optional, into)]
    class: String,
    /// The dialog's content.
    children: ChildrenFn,
) -> impl IntoView {
    let dialog_ref = NodeRef::<leptos::html::Dialog>::new();
    let opener = StoredValue::new_local(None::<web_sys::HtmlElement>);
    let title_id = browser::unique_id("dialog-title");

    let toasts = use_toasts();
    Effect::new(move |_| {
        let is_open = open.get();
        let Some(dialog) = dialog_ref.get() else {
            return;
        };
        if is_open && !dialog.open() {
            opener.set_value(browser::active_element());
            if dialog.show_modal().is_ok() {
                toasts.modals_open.update(|n| *n += 1);
                focus_initial(&dialog);
            }
        } else if !is_open && dialog.open() {
            dialog.close();
            toasts.modals_open.update(|n| *n = n.saturating_sub(1));
            if let Some(element) = opener.get_value() {
                let _ = element.focus();
            }
        }
    });

    let on_keydown = move |event: KeyboardEvent| match event.key().as_str() {
        "Escape" => {
            event.prevent_default();
            event.stop_propagation();
            open.set(false);
        }
        "Tab" => {
            if let Some(dialog) = dialog_ref.get() {
                trap_tab(&event, &dialog);
            }
        }
        _ => {}
    };
    // A click whose target is the <dialog> itself landed on the backdrop: the surface
    // fills the dialog box, so clicks on content always hit a descendant.
    let on_click = move |event: MouseEvent| {
        let on_backdrop = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::HtmlDialogElement>().ok())
            .is_some();
        if on_backdrop {
            open.set(false);
        }
    };
    let class = format!("dialog {class}");
    let labelled_by = title_id.clone();

    view! {
        <dialog
            node_ref=dialog_ref
            class=class
            aria-labelledby=labelled_by
            aria-modal="true"
            on:keydown=on_keydown
            on:cancel=move |event: leptos::ev::Event| {
                event.prevent_default();
                open.set(false);
            }
            on:click=on_click
        >
            <div class="dialog__surface">
                <header class="dialog__header">
                    <h2 class="dialog__title" id=title_id>
                        {move || title.get()}
                    </h2>
                    <button
                        type="button"
                        class="icon-button"
                        aria-label=tr(Key::DialogClose)
                        title=tr(Key::DialogClose)
                        on:click=move |_| open.set(false)
                    >
                        {icon(Icon::Close)}
                    </button>
                </header>
                <div class="dialog__body">
                    <Show when=move || open.get()>{children()}</Show>
                </div>
                <Show when=move || open.get()>
                    <ToastRegion in_modal=true />
                </Show>
            </div>
        </dialog>
    }
}

fn focus_initial(dialog: &web_sys::HtmlDialogElement) {
    let preferred = dialog
        .query_selector("[data-autofocus]")
        .ok()
        .flatten()
        .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok());
    let target = preferred.or_else(|| browser::focusable_within(dialog).into_iter().next());
    if let Some(element) = target {
        let _ = element.focus();
    }
}

fn trap_tab(event: &KeyboardEvent, dialog: &web_sys::HtmlDialogElement) {
    let focusable = browser::focusable_within(dialog);
    let (Some(first), Some(last)) = (focusable.first(), focusable.last()) else {
        event.prevent_default();
        return;
    };
    let active = browser::active_element();
    let inside = active
        .as_ref()
        .is_some_and(|element| focusable.iter().any(|f| f == element));
    if event.shift_key() {
        if !inside || active.as_ref() == Some(first) {
            event.prevent_default();
            let _ = last.focus();
        }
    } else if !inside || active.as_ref() == Some(last) {
        event.prevent_default();
        let _ = first.focus();
    }
}
