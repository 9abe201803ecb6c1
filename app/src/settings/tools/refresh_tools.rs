//! Settings › Tools › an installed MCP server's "List tools again": its tools listed anew
//! through the edge (what a reply does by itself when the server's keeping time ran
//! out), with progress while it runs and the outcome told in a toast: what came and
//! went, nothing changed, or why it failed (the list stays as it was).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{Key, use_i18n};
use crate::plugins::use_plugins;
use crate::ui::toast::{ToastKind, use_toasts};

/// The button for the MCP plugin `plugin_id` titled `title`.
#[component]
pub(super) fn RefreshTools(plugin_id: String, title: String) -> impl IntoView {
    let plugins = use_plugins();
    let toasts = use_toasts();
    let i18n = use_i18n();
    let busy = RwSignal::new(false);
    let label = format!("{}: {title}", i18n.t(Key::PluginsRefreshTools));
    let refresh = move |_| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        let (id, title) = (plugin_id.clone(), title.clone());
        spawn_local(async move {
            let (kind, text) = match plugins.refresh_tools(&id).await {
                Ok(done) if done.added.is_empty() && done.removed.is_empty() => (
                    ToastKind::Info,
                    i18n.t_with(Key::PluginsToolsUnchanged, &[("title", &title)]),
                ),
                Ok(done) => (
                    ToastKind::Info,
                    i18n.t_with(
                        Key::ToolsChanged,
                        &[
                            ("title", &title),
                            ("added", &done.added.len().to_string()),
                            ("removed", &done.removed.len().to_string()),
                        ],
                    ),
                ),
                Err(reason) => (
                    ToastKind::Error,
                    i18n.t_with(
                        Key::PluginsRefreshFailed,
                        &[("reason", &reason.to_string())],
                    ),
                ),
            };
            toasts.show(kind, text);
            busy.set(false);
        });
    };
    view! {
        <button type="button" class="button button--secondary button--small" data-refresh-tools=""
            on:click=refresh aria-label=label aria-busy=move || busy.get().to_string()
            disabled=move || busy.get()>
            {move || i18n.t(if busy.get() { Key::PluginsRefreshing } else { Key::PluginsRefreshTools })}
        </button>
    }
}
