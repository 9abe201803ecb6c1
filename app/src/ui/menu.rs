//! A menu button (WAI-ARIA menu button pattern): the button opens a `role=menu` popup;
//! ArrowDown/ArrowUp move between items and wrap, Home and End jump to the ends, Enter
//! and Space choose, Escape closes and returns focus to the button, Tab or a click
//! elsewhere closes it. Items are radio items (`menuitemradio`, the theme menu) when
//! they have a checked state, and plain actions (`menuitem`, a conversation's menu)
//! when they do not. A menu that would run past the bottom of what shows it opens
//! upwards. The items exist only while the menu is open.

use leptos::ev::{FocusEvent, KeyboardEvent};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::ui::icon::{Icon, icon};

/// One choice in a [`Menu`].
#[derive(Clone)]
pub struct MenuItem {
    /// The item's text (reactive, for translation).
    pub label: Signal<String>,
    /// The item's icon.
    pub icon: Icon,
    /// Whether this is the current choice; `None` for an action item.
    pub checked: Option<Signal<bool>>,
    /// Runs when the item is chosen.
    pub on_select: Callback<()>,
}

/// Opens `menu` upwards (`menu--up`) when it would run past the bottom of what shows it
/// (the window, or the scrolling box around it that says so with `data-menu-bounds`,
/// such as the message list above the composer) and there is room above its button.
fn place(menu: &web_sys::HtmlDivElement) {
    let _ = menu.class_list().remove_1("menu--up");
    let Some(anchor) = menu.parent_element() else {
        return;
    };
    let window_bottom = web_sys::window()
        .and_then(|window| window.inner_height().ok())
        .and_then(|height| height.as_f64())
        .unwrap_or(f64::MAX);
    let (top, bottom) = match anchor.closest("[data-menu-bounds]") {
        Ok(Some(bounds)) => {
            let rect = bounds.get_bounding_client_rect();
            (rect.top().max(0.0), rect.bottom().min(window_bottom))
        }
        _ => (0.0, window_bottom),
    };
    let shown = menu.get_bounding_client_rect();
    let room_above = anchor.get_bounding_client_rect().top() - top;
    if shown.bottom() > bottom && room_above >= shown.height() {
        let _ = menu.class_list().add_1("menu--up");
    }
}

/// Moves focus to item `index` of `menu` (clamped), synchronously.
fn focus_item(menu: &web_sys::HtmlDivElement, index: usize) {
    let Ok(nodes) = menu.query_selector_all("[role^=menuitem]") else {
        return;
    };
    let last = nodes.length().saturating_sub(1);
    let index = u32::try_from(index).unwrap_or(last).min(last);
    if let Some(element) = nodes
        .item(index)
        .and_then(|node| node.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = element.focus();
    }
}

/// A button that opens a menu of radio items.
#[component]
pub fn Menu(
    /// The button's accessible name and tooltip.
    #[prop(into)]
    label: Signal<String>,
    /// The button's icon.
    #[prop(into)]
    button_icon: Signal<Icon>,
    /// The items.
    items: Vec<MenuItem>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    // The item that has focus while the menu is open.
    let current = StoredValue::new(0usize);
    let button_id = browser::unique_id("menu-button");
    let menu_id = browser::unique_id("menu");
    let menu_ref = NodeRef::<leptos::html::Div>::new();
    let wrapper_ref = NodeRef::<leptos::html::Div>::new();
    let count = items.len();
    let items = StoredValue::new(items);

    let focus_button = {
        let button_id = button_id.clone();
        move || browser::focus_by_id(&button_id)
    };
    // Opens the menu and focuses `index` once the popup is shown (a hidden element
    // cannot take focus, and `hidden` is removed when the view updates).
    let open_at = move |index: usize| {
        open.set(true);
        // A later frame: the menu may be gone by then (a `try_` read gives nothing).
        request_animation_frame(move || {
            if let Some(menu) = menu_ref.try_get_untracked().flatten() {
                place(&menu);
                focus_item(&menu, index);
            }
        });
    };
    let move_to = move |index: usize| {
        if let Some(menu) = menu_ref.get_untracked() {
            focus_item(&menu, index);
        }
    };

    let on_button_keydown = move |event: KeyboardEvent| match event.key().as_str() {
        "ArrowDown" | "Enter" | " " => {
            event.prevent_default();
            open_at(0);
        }
        "ArrowUp" => {
            event.prevent_default();
            open_at(count.saturating_sub(1));
        }
        _ => {}
    };

    let on_menu_keydown = {
        let focus_button = focus_button.clone();
        move |event: KeyboardEvent| {
            if count == 0 {
                return;
            }
            let index = current.get_value();
            let next = match event.key().as_str() {
                "ArrowDown" => Some((index + 1) % count),
                "ArrowUp" => Some((index + count - 1) % count),
                "Home" => Some(0),
                "End" => Some(count - 1),
                "Escape" => {
                    event.prevent_default();
                    event.stop_propagation();
                    open.set(false);
                    focus_button();
                    None
                }
                "Tab" => {
                    open.set(false);
                    None
                }
                _ => None,
            };
            if let Some(index) = next {
                event.prevent_default();
                move_to(index);
            }
        }
    };

    // Focus leaving the menu and its button (a click elsewhere, Tab) closes it. This also
    // fires when an item's action removed the menu from the page (deleting the
    // conversation it belongs to); its signals may be gone by then, hence `try_`.
    let on_focusout = move |event: FocusEvent| {
        let Some(wrapper) = wrapper_ref.try_get_untracked().flatten() else {
            return;
        };
        let still_inside = event
            .related_target()
            .and_then(|target| target.dyn_into::<web_sys::Node>().ok())
            .is_some_and(|node| wrapper.contains(Some(&node)));
        if !still_inside {
            let _ = open.try_set(false);
        }
    };

    let render_items = move || {
        items
            .get_value()
            .into_iter()
            .enumerate()
            .map(|(index, item)| {
                let focus_button = focus_button.clone();
                let select = move |_| {
                    let _ = open.try_set(false);
                    focus_button();
                    item.on_select.run(());
                };
                let checked = item.checked;
                view! {
                    <button
                        type="button"
                        role=if checked.is_some() { "menuitemradio" } else { "menuitem" }
                        class="menu__item"
                        tabindex="-1"
                        aria-checked=move || checked.map(|c| c.get().to_string())
                        on:click=select
                        on:focus=move |_| current.set_value(index)
                    >
                        {icon(item.icon)}
                        <span class="menu__label">{move || item.label.get()}</span>
                        <span class="menu__check">
                            {move || checked.is_some_and(|c| c.get()).then(|| icon(Icon::Check))}
                        </span>
                    </button>
                }
            })
            .collect_view()
    };

    let controls = menu_id.clone();
    let labelled_by = button_id.clone();
    view! {
        <div class="menu-anchor" node_ref=wrapper_ref on:focusout=on_focusout>
            <button
                type="button"
                id=button_id
                class="icon-button"
                aria-haspopup="menu"
                aria-controls=controls
                aria-expanded=move || open.get().to_string()
                aria-label=move || label.get()
                title=move || label.get()
                on:click=move |_| {
                    if open.get_untracked() { open.set(false) } else { open_at(0) }
                }
                on:keydown=on_button_keydown
            >
                {move || icon(button_icon.get())}
            </button>
            <div
                node_ref=menu_ref
                id=menu_id
                role="menu"
                class="menu"
                aria-labelledby=labelled_by
                hidden=move || !open.get()
                on:keydown=on_menu_keydown
            >
                // Made when opened: a list shows a menu per row (every message, every
                // conversation), and their items, made up front, were most of a row's nodes.
                {move || open.get().then(&render_items)}
            </div>
        </div>
    }
}
