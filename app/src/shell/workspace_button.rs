//! The top of the sidebar's list: the workspace button (the workspace the list shows,
//! and its menu), with what hangs off it (a conversation's workspace and instructions
//! dialog), from a lazily loaded chunk (`crate::workspaces::button`) mounted as the
//! sidebar shows (a placeholder of its height until then), and the list's heading.

use leptos::prelude::*;

use crate::i18n::{Key, tr};

/// The button's id (where focus returns when the menu closes).
pub const BUTTON_ID: &str = "sidebar-workspace";

/// The button and the list's heading.
#[component]
pub fn WorkspaceButton() -> impl IntoView {
    view! {
        {crate::ui::lazy::lazy_view(crate::workspaces::button::button(), "sidebar__workspace-placeholder")}
        <h2 class="sidebar__heading">{tr(Key::SidebarConversations)}</h2>
    }
}
