//! The app shell a user sees first: the sidebar, the top bar, the conversation pane with
//! its empty state, and the composer. On narrow screens the sidebar becomes a drawer.
//! On wide screens it can be hidden. The address bar follows the open conversation
//! ([`address`]); the composer's `/` menu and template form are [`commands`]; the
//! keyboard shortcuts and their dialog are [`shortcuts`] (the dialog in
//! `shortcuts_dialog`, loaded on first use); comparing models is `compare_picker`, with
//! the composer's other optional controls.

pub mod address;
mod collections;
mod commands;
mod compare_picker;
mod composer;
mod dictation;
mod empty_state;
mod search_switch;
pub mod shortcuts;
mod shortcuts_dialog;
mod sidebar;
mod topbar;
mod workspace_button;

use leptos::prelude::*;

pub use composer::Composer;
pub use empty_state::EmptyState;
pub use sidebar::Sidebar;
pub use topbar::Topbar;
pub use workspace_button::BUTTON_ID as WORKSPACE_BUTTON_ID;

/// The id of the composer's text area (the skip link's and "New chat"'s target).
pub const COMPOSER_INPUT_ID: &str = "composer-input";
/// The id of the drawer toggle, where focus returns when the drawer closes.
pub const DRAWER_TOGGLE_ID: &str = "drawer-toggle";

/// UI state of the shell shared by its parts, provided as context.
#[derive(Clone, Copy)]
pub struct ShellState {
    /// The phone-width drawer is open.
    pub drawer_open: RwSignal<bool>,
    /// The settings dialog is open.
    pub settings_open: RwSignal<bool>,
    /// The settings tab to show (its slug; a deep link sets it).
    pub settings_tab: RwSignal<String>,
    /// The sidebar is hidden (wide screens; the drawer is the phone's).
    pub sidebar_hidden: RwSignal<bool>,
    /// The shortcuts dialog is open.
    pub shortcuts_open: RwSignal<bool>,
    /// The conversation whose workspace and instructions dialog is open.
    pub placing: RwSignal<Option<String>>,
    /// The item a settings tab shows first and focuses, once (a memory the search
    /// palette opened).
    pub reveal: RwSignal<Option<String>>,
}

/// The shell's state.
pub fn use_shell() -> ShellState {
    expect_context::<ShellState>()
}
