//! Settings › Tools: the plugin market. Whether calls wait for confirmation, this
//! session's approvals (each revocable), adding a plugin, browsing the MCP registry, and
//! every plugin, built-in first. What this deployment's edge does not serve (plugins,
//! MCP) is said at the top and not offered.
//!
//! - [`install`]: the install form (an OpenAPI description by URL or pasted, or a remote
//!   MCP server with an optional token, its header and plain headers).
//! - [`registry`]: browsing the official MCP registry, which fills the install form.
//! - [`installed`]: the built-in and installed plugins with their switches, functions,
//!   credential and Uninstall, and the names two plugins expose (collisions);
//!   [`refresh_tools`]: an MCP server's tools listed again.
//! - [`image_model`]: the model the built-in image generator draws with.
//! - [`sign_in`]: signing in to an MCP server (a login window, or this tab when the
//!   window is blocked); [`come_back`] finishes a sign-in that took the tab away.

mod come_back;
mod image_model;
mod install;
mod installed;
mod refresh_tools;
mod registry;
mod sign_in;

use hearth_core::plugin::approval::ConfirmMode;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::deployment::{CapabilityNotes, Place, use_capabilities};
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::plugins::{ListState, risk_key, use_plugins};
use crate::preferences::{Prefs, use_prefs};
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, Toasts, use_toasts};

fn confirm_slug(mode: ConfirmMode) -> &'static str {
    match mode {
        ConfirmMode::Off => "off",
        ConfirmMode::Destructive => "destructive",
        ConfirmMode::SideEffects => "side-effects",
    }
}

/// Saves a change to the tool preferences; a failure is shown as a toast.
fn save_prefs(
    prefs: Prefs,
    toasts: Toasts,
    i18n: I18n,
    change: impl FnOnce(&mut hearth_core::preferences::Preferences) + 'static,
) {
    spawn_local(async move {
        if let Err(reason) = prefs.update(change).await {
            toasts.show(
                ToastKind::Error,
                i18n.t_with(Key::ModelsSaveFailed, &[("reason", &reason.to_string())]),
            );
        }
    });
}

/// The Tools tab.
#[component]
pub fn PluginsPanel() -> impl IntoView {
    let plugins = use_plugins();
    let i18n = use_i18n();
    spawn_local(async move { plugins.refresh().await });
    let capabilities = use_capabilities();
    let draft = install::Draft::new();
    // Unknown (the edge has not answered) counts as on: the edge's own error explains.
    let plugins_on = move || capabilities.get().is_none_or(|c| c.plugins);
    let mcp_on = move || capabilities.get().is_none_or(|c| c.mcp);
    view! {
        <div class="settings-section plugins-panel">
            <CapabilityNotes place=Place::Tools capabilities=capabilities />
            <come_back::ComeBack />
            <ConfirmSection />
            <ApprovalsSection />
            <Show when=move || plugins_on() || mcp_on()>
                <install::InstallSection draft=draft capabilities=capabilities />
            </Show>
            <Show when=mcp_on>
                <registry::RegistrySection draft=draft />
            </Show>
            {move || match plugins.state.get() {
                ListState::Loading => view! {
                    <p class="field__hint" role="status">{tr(Key::PluginsLoading)}</p>
                }
                .into_any(),
                ListState::Failed(error) => view! {
                    <p class="notice notice--warning" role="alert" id="plugins-failed">
                        {i18n.t_with(Key::PluginsListFailed, &[("reason", &crate::i18n::edge_errors::describe(&i18n, &error))])}
                    </p>
                }
                .into_any(),
                ListState::Ready => view! { <installed::PluginList /> }.into_any(),
            }}
        </div>
    }
}

#[component]
fn ConfirmSection() -> impl IntoView {
    let prefs = use_prefs();
    let toasts = use_toasts();
    let i18n = use_i18n();
    let current = move || confirm_slug(prefs.value.with(|p| p.tools.confirm)).to_string();
    let on_change = move |value: String| {
        let mode = match value.as_str() {
            "destructive" => ConfirmMode::Destructive,
            "side-effects" => ConfirmMode::SideEffects,
            _ => ConfirmMode::Off,
        };
        save_prefs(prefs, toasts, i18n, move |p| p.tools.confirm = mode);
    };
    view! {
        <section class="data-block" aria-labelledby="tools-confirm-title">
            <h3 class="settings-subheading" id="tools-confirm-title">{tr(Key::ToolsConfirm)}</h3>
            <Field
                id="tools-confirm"
                label=tr(Key::ToolsConfirmLabel)
                control=Control::Select
                value=current
                on_input=on_change
                hint=tr(Key::ToolsConfirmHint)
            >
                <option value="off">{tr(Key::ToolsConfirmOff)}</option>
                <option value="destructive">{tr(Key::ToolsConfirmDestructive)}</option>
                <option value="side-effects">{tr(Key::ToolsConfirmSideEffects)}</option>
            </Field>
            <AskUserSwitch />
        </section>
    }
}

/// Whether models may ask the user questions (`ask_user`; off until switched on, like
/// every built-in tool).
#[component]
fn AskUserSwitch() -> impl IntoView {
    use hearth_core::ask_user::ASK_USER_PLUGIN_ID;
    let prefs = use_prefs();
    let toasts = use_toasts();
    let i18n = use_i18n();
    let on = move || {
        prefs
            .value
            .with(|p| p.tools.plugins.get(ASK_USER_PLUGIN_ID).copied())
            .unwrap_or(false)
    };
    let toggle = move |event: leptos::ev::Event| {
        let wanted = event_target_checked(&event);
        save_prefs(prefs, toasts, i18n, move |p| {
            p.tools.set_plugin(ASK_USER_PLUGIN_ID, wanted)
        });
    };
    view! {
        <label class="switch">
            <input type="checkbox" id="tools-ask-user" prop:checked=on on:change=toggle
                aria-describedby="tools-ask-user-hint" />
            <span>{tr(Key::ToolsAskUser)}</span>
        </label>
        <p class="field__hint" id="tools-ask-user-hint">{tr(Key::ToolsAskUserHint)}</p>
    }
}

#[component]
fn ApprovalsSection() -> impl IntoView {
    let plugins = use_plugins();
    let i18n = use_i18n();
    move || {
        let keys: Vec<_> = plugins.approvals.with(|a| a.list().cloned().collect());
        (!keys.is_empty()).then(|| {
            let rows = keys
                .into_iter()
                .map(|key| {
                    let title = plugins
                        .find(&key.plugin_id)
                        .map(|p| p.title)
                        .unwrap_or_else(|| key.plugin_id.clone());
                    let risk = key.risk;
                    let revoke_key = key.clone();
                    view! {
                        <li class="approval-row">
                            <span class="approval-row__name"><code>{key.function.clone()}</code>" · "{title}</span>
                            <span class=format!("risk risk--{}", risk.as_str())>{tr(risk_key(risk))}</span>
                            <button type="button" class="button button--secondary button--small"
                                aria-label=format!("{}: {}", i18n.t(Key::ToolsApprovalRevoke), key.function)
                                on:click=move |_| plugins.revoke(&revoke_key)>
                                {tr(Key::ToolsApprovalRevoke)}
                            </button>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <section class="data-block" aria-labelledby="tools-approvals-title" id="tools-approvals">
                    <h3 class="settings-subheading" id="tools-approvals-title">{tr(Key::ToolsApprovals)}</h3>
                    <p class="settings-section__text">{i18n.t(Key::ToolsApprovalsHint)}</p>
                    <ul class="approval-list">{rows}</ul>
                </section>
            }
        })
    }
}
