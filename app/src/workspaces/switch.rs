//! The sidebar's workspace menu (the menu button pattern, as `crate::ui::menu`): "All
//! conversations", each workspace, then New workspace and Manage workspaces. Choosing a
//! workspace makes it current (the list shows its conversations, a new chat goes to it);
//! on the new-chat screen its model becomes the composer's. Mounted by `button` the
//! first time it opens; the library is read then. A library that cannot be read is
//! said in the menu, which still offers "All conversations".

use hearth_core::workspace::Workspace;
use leptos::ev::{FocusEvent, KeyboardEvent};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{summary, use_workspaces};
use crate::chat::use_chat;
use crate::i18n::{Key, tr, use_i18n};
use crate::shell::use_shell;
use crate::ui::icon::{Icon, icon};

/// Moves focus to the item `index` of the menu (wrapping).
fn focus_item(menu: &web_sys::HtmlElement, index: isize) {
    let Ok(items) = menu.query_selector_all("[role^=menuitem]") else {
        return;
    };
    let count = items.length() as isize;
    if count == 0 {
        return;
    }
    let index = index.rem_euclid(count) as u32;
    if let Some(item) = items
        .item(index)
        .and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = item.focus();
    }
}

/// Which item of the menu has focus, if one does.
fn focused_index(menu: &web_sys::HtmlElement) -> Option<isize> {
    let items = menu.query_selector_all("[role^=menuitem]").ok()?;
    let active = document().active_element()?;
    (0..items.length())
        .find(|i| {
            items
                .item(*i)
                .is_some_and(|n| n.is_same_node(Some(&active)))
        })
        .map(|i| i as isize)
}

/// The menu, shown while `open`.
#[component]
pub(super) fn WorkspaceMenu(open: RwSignal<bool>) -> impl IntoView {
    let workspaces = use_workspaces();
    let chat = use_chat();
    let shell = use_shell();
    let i18n = use_i18n();
    let failed = RwSignal::new(None::<String>);
    let menu_ref = NodeRef::<leptos::html::Div>::new();
    let focus_current = move || {
        request_animation_frame(move || {
            let Some(menu) = menu_ref.try_get_untracked().flatten() else {
                return;
            };
            let checked = menu
                .query_selector("[aria-checked=true]")
                .ok()
                .flatten()
                .and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok());
            match checked {
                Some(item) => {
                    let _ = item.focus();
                }
                None => focus_item(&menu, 0),
            }
        });
    };
    leptos::task::spawn_local(async move {
        if let Err(error) = workspaces.ensure_loaded().await {
            let _ = failed.try_set(Some(super::words::error_text(&error, i18n)));
        }
        focus_current();
    });
    // Each opening lands on the current choice.
    Effect::new(move |_| {
        if open.get() {
            focus_current();
        }
    });
    let close = move |refocus: bool| {
        open.set(false);
        if refocus {
            crate::browser::focus_by_id(crate::shell::WORKSPACE_BUTTON_ID);
        }
    };
    let choose = move |workspace: Option<Workspace>| {
        close(true);
        if let Some(model) = workspace.as_ref().and_then(|w| w.model.clone())
            && chat.open.current_untracked().is_none()
        {
            chat.choice.pick(Some(model));
        }
        chat.workspace.set(workspace.as_ref().map(summary));
    };
    let manage = move |new: bool| {
        close(false);
        if new {
            super::ask_for_new();
        }
        shell.drawer_open.set(false);
        shell.settings_tab.set("workspaces".to_string());
        shell.settings_open.set(true);
    };
    let on_keydown = move |event: KeyboardEvent| {
        let Some(menu) = menu_ref.get_untracked() else {
            return;
        };
        let at = focused_index(&menu).unwrap_or(-1);
        match event.key().as_str() {
            "ArrowDown" => focus_item(&menu, at + 1),
            "ArrowUp" => focus_item(&menu, at - 1),
            "Home" => focus_item(&menu, 0),
            "End" => focus_item(&menu, -1),
            "Escape" => {
                event.stop_propagation();
                close(true);
            }
            "Tab" => {
                close(false);
                return;
            }
            _ => return,
        }
        event.prevent_default();
    };
    // Focus leaving the menu and its button closes it.
    let on_focusout = move |event: FocusEvent| {
        let inside = event
            .related_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|t| t.closest(".sidebar__workspace").ok().flatten().is_some());
        if !inside {
            let _ = open.try_set(false);
        }
    };
    let list = move || {
        workspaces
            .library()
            .with(|l| l.as_ref().map(|l| l.workspaces.clone()).unwrap_or_default())
    };
    let is_current = move |id: Option<&str>| chat.workspace.id().as_deref() == id;
    view! {
        <div node_ref=menu_ref id="workspace-menu" role="menu" class="menu workspace-menu"
            aria-labelledby=crate::shell::WORKSPACE_BUTTON_ID
            hidden=move || !open.get() on:keydown=on_keydown on:focusout=on_focusout>
            <button type="button" role="menuitemradio" class="menu__item" tabindex="-1"
                data-workspace-choice="" aria-checked=move || is_current(None).to_string()
                on:click=move |_| choose(None)>
                {icon(Icon::Chat)}
                <span class="menu__label">{tr(Key::WorkspacesAll)}</span>
                <span class="menu__check">{move || is_current(None).then(|| icon(Icon::Check))}</span>
            </button>
            <For each=list key=|w| (w.id.clone(), w.updated_at.to_bits()) let:workspace>
                {
                    let id = workspace.id.clone();
                    let checked = {
                        let id = id.clone();
                        move || is_current(Some(&id))
                    };
                    let check = checked.clone();
                    let dot = format!("colour-dot colour-dot--{}", workspace.colour.as_str());
                    let name = workspace.name.clone();
                    view! {
                        <button type="button" role="menuitemradio" class="menu__item" tabindex="-1"
                            data-workspace-choice=id aria-checked=move || checked().to_string()
                            on:click=move |_| choose(Some(workspace.clone()))>
                            <span class=dot aria-hidden="true"></span>
                            <span class="menu__label">{name}</span>
                            <span class="menu__check">{move || check().then(|| icon(Icon::Check))}</span>
                        </button>
                    }
                }
            </For>
            {move || failed.get().map(|reason| view! {
                <p class="workspace-menu__error" role="alert">{reason}</p>
            })}
            <hr class="menu__separator" />
            <button type="button" role="menuitem" class="menu__item" tabindex="-1" id="workspace-menu-new"
                on:click=move |_| manage(true)>
                {icon(Icon::Plus)}
                <span class="menu__label">{tr(Key::WorkspacesNew)}</span>
            </button>
            <button type="button" role="menuitem" class="menu__item" tabindex="-1" id="workspace-menu-manage"
                on:click=move |_| manage(false)>
                {icon(Icon::Sliders)}
                <span class="menu__label">{tr(Key::WorkspacesManage)}</span>
            </button>
        </div>
    }
}
