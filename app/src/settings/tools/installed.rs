//! Settings › Tools › the plugins: built-in ones first, then the installed ones, each
//! with its switch, its functions (each with its risk and own switch), its credential
//! (kept in the vault, shown masked; for an MCP server signed in to, whether it is, with
//! Sign out or Sign in), for an MCP server "List tools again", and for installed ones
//! Uninstall. Names two
//! plugins expose are listed as collisions: neither is offered until one is switched off.

use hearth_core::api::RegisteredPlugin;
use hearth_core::plugin::builtin::IMAGE_GENERATOR_ID;
use hearth_core::plugin::oauth::OauthSession;
use hearth_core::plugin::oauth::away::AfterSignIn;
use hearth_core::plugin::selection::toolset;
use hearth_core::plugin::{Auth, Plugin, Source};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::image_model::ImageModelField;
use super::refresh_tools::RefreshTools;
use super::save_prefs;
use super::sign_in::{SignIn, failure};
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::plugins::{Plugins, risk_key, use_plugins};
use crate::preferences::use_prefs;
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, Toasts, use_toasts};

#[component]
pub(super) fn PluginList() -> impl IntoView {
    let plugins = use_plugins();
    let prefs = use_prefs();
    let i18n = use_i18n();
    let collisions = move || {
        let builtins = plugins.builtins.get();
        let installed = plugins.installed.get();
        prefs
            .value
            .with(|p| toolset(&builtins, &installed, &p.tools).collisions)
    };
    view! {
        {move || {
            let list = collisions();
            (!list.is_empty()).then(|| view! {
                <div class="notice notice--warning" role="status" id="plugins-collisions">
                    <p>{tr(Key::PluginsCollisions)}</p>
                    <ul>{list.into_iter().map(|c| view! { <li>{c.to_string()}</li> }).collect_view()}</ul>
                </div>
            })
        }}
        <h3 class="settings-subheading">{tr(Key::PluginsBuiltin)}</h3>
        <ul class="plugin-list" id="plugins-builtin">
            <For each=move || plugins.builtins.get() key=|r| r.plugin.id.clone() let:registered>
                <PluginCard registered=registered />
            </For>
        </ul>
        <h3 class="settings-subheading">{tr(Key::PluginsInstalledTitle)}</h3>
        {move || plugins.installed.with(Vec::is_empty).then(|| view! {
            <p class="field__hint" id="plugins-empty">{i18n.t(Key::PluginsEmpty)}</p>
        })}
        <ul class="plugin-list" id="plugins-installed">
            <For each=move || plugins.installed.get() key=|r| (r.plugin.id.clone(), r.fingerprints.clone()) let:registered>
                <PluginCard registered=registered />
            </For>
        </ul>
    }
}

fn source_key(source: Source) -> Key {
    match source {
        Source::Builtin => Key::PluginsBuiltin,
        Source::Openapi => Key::PluginsSourceOpenApi,
        Source::Mcp => Key::PluginsSourceMcp,
    }
}

#[component]
fn PluginCard(registered: RegisteredPlugin) -> impl IntoView {
    let plugins = use_plugins();
    let prefs = use_prefs();
    let toasts = use_toasts();
    let i18n = use_i18n();
    let plugin: Plugin = registered.plugin;
    let id = plugin.id.clone();
    let on = {
        let plugin = plugin.clone();
        move || prefs.value.with(|p| p.tools.plugin_on(&plugin))
    };
    let toggle = {
        let id = id.clone();
        move |event: leptos::ev::Event| {
            let checked = event_target_checked(&event);
            let id = id.clone();
            save_prefs(prefs, toasts, i18n, move |p| {
                p.tools.set_plugin(&id, checked)
            });
        }
    };
    let installed = plugin.source != Source::Builtin;
    let uninstall = {
        let id = id.clone();
        let title = plugin.title.clone();
        move |_| {
            let (id, title) = (id.clone(), title.clone());
            spawn_local(async move {
                match plugins.uninstall(&id).await {
                    Ok(()) => {
                        let forget = id.clone();
                        save_prefs(prefs, toasts, i18n, move |p| p.tools.forget(&forget));
                        toasts.show(
                            ToastKind::Info,
                            i18n.t_with(Key::PluginsUninstalled, &[("title", &title)]),
                        );
                    }
                    Err(reason) => toasts.show(
                        ToastKind::Error,
                        i18n.t_with(
                            Key::PluginsUninstallFailed,
                            &[("reason", &reason.to_string())],
                        ),
                    ),
                }
            });
        }
    };
    let location = plugin
        .mcp
        .as_ref()
        .map(|m| m.server_url.clone())
        .or_else(|| plugin.server_url.clone())
        .unwrap_or_default();
    let functions = plugin
        .functions
        .iter()
        .map(|function| {
            let (plugin_id, name) = (id.clone(), function.name.clone());
            let checked = {
                let (plugin_id, name) = (plugin_id.clone(), name.clone());
                move || prefs.value.with(|p| p.tools.function_on(&plugin_id, &name))
            };
            let toggle = move |event: leptos::ev::Event| {
                let checked = event_target_checked(&event);
                let (plugin_id, name) = (plugin_id.clone(), name.clone());
                save_prefs(prefs, toasts, i18n, move |p| {
                    p.tools.set_function(&plugin_id, &name, checked)
                });
            };
            let risk = function.risk;
            view! {
                <li class="function-row" data-function=function.name.clone()>
                    <label class="switch">
                        <input type="checkbox" prop:checked=checked on:change=toggle
                            aria-label=format!("{} {}", i18n.t(Key::PluginsFunctionEnabled), function.name) />
                        <code class="function-row__name">{function.name.clone()}</code>
                    </label>
                    <span class=format!("risk risk--{}", risk.as_str())>{tr(risk_key(risk))}</span>
                    <p class="function-row__description">{function.description.clone()}</p>
                </li>
            }
        })
        .collect_view();
    let count = plugin.functions.len();
    view! {
        <li class="plugin-card" data-plugin-id=id.clone()>
            <div class="plugin-card__head">
                <div class="plugin-card__main">
                    <span class="plugin-card__title">{plugin.title.clone()}</span>
                    <span class="plugin-card__meta">{tr(source_key(plugin.source))}</span>
                    {(!location.is_empty()).then(|| view! { <span class="plugin-card__url">{location}</span> })}
                </div>
                <label class="switch">
                    <input type="checkbox" prop:checked=on on:change=toggle data-plugin-switch=""
                        aria-label=format!("{}: {}", i18n.t(Key::PluginsEnabled), plugin.title) />
                    <span aria-hidden="true">{tr(Key::PluginsEnabled)}</span>
                </label>
                {plugin.mcp.is_some().then(|| view! {
                    <RefreshTools plugin_id=id.clone() title=plugin.title.clone() />
                })}
                {installed.then(|| view! {
                    <button type="button" class="button button--secondary button--small" data-uninstall="" on:click=uninstall
                        aria-label=format!("{}: {}", i18n.t(Key::PluginsUninstall), plugin.title)>
                        {tr(Key::PluginsUninstall)}
                    </button>
                })}
            </div>
            {(!plugin.description.is_empty()).then(|| view! {
                <p class="plugin-card__description">{plugin.description.clone()}</p>
            })}
            {match (&plugin.auth, &plugin.mcp) {
                (Auth::None, _) => None,
                (Auth::Oauth2, Some(mcp)) => Some(view! {
                    <SignedIn plugin_id=id.clone() server_url=mcp.server_url.clone() headers=mcp.headers.clone() />
                }.into_any()),
                _ => Some(view! { <Credential plugin_id=id.clone() /> }.into_any()),
            }}
            {(id == IMAGE_GENERATOR_ID).then(|| view! { <ImageModelField /> })}
            <details class="plugin-card__functions">
                <summary>{i18n.t_with(Key::PluginsFunctions, &[("count", &count.to_string())])}</summary>
                <ul class="function-list">{functions}</ul>
            </details>
        </li>
    }
}

/// A plugin's credential: whether one is saved, a field to save or replace it, and a way
/// to forget it. The secret is never shown back.
#[component]
fn Credential(plugin_id: String) -> impl IntoView {
    let plugins = use_plugins();
    let toasts = use_toasts();
    let i18n = use_i18n();
    let value = RwSignal::new(String::new());
    let field_id = format!("plugin-credential-{}", plugin_id.replace(':', "-"));
    let has = {
        let plugin_id = plugin_id.clone();
        move || plugins.credentials.with(|c| c.contains(&plugin_id))
    };
    let save = {
        let plugin_id = plugin_id.clone();
        move |event: SubmitEvent| {
            event.prevent_default();
            let secret = value.get_untracked();
            if secret.trim().is_empty() {
                return;
            }
            let plugin_id = plugin_id.clone();
            spawn_local(async move {
                match plugins.set_credential(&plugin_id, &secret).await {
                    Ok(()) => {
                        value.set(String::new());
                        toasts.show(ToastKind::Info, i18n.t(Key::PluginsCredentialSaved));
                    }
                    Err(reason) => toasts.show(ToastKind::Error, reason.to_string()),
                }
            });
        }
    };
    let clear = {
        let plugin_id = plugin_id.clone();
        move |_| {
            let plugin_id = plugin_id.clone();
            spawn_local(async move {
                if let Err(reason) = plugins.clear_credential(&plugin_id).await {
                    toasts.show(ToastKind::Error, reason.to_string());
                }
            });
        }
    };
    let has_for_clear = has.clone();
    view! {
        <form class="plugin-credential" on:submit=save novalidate>
            <div class="plugin-credential__row">
                <Field
                    id=field_id
                    label=tr(Key::PluginsCredential)
                    control=Control::Password
                    value=value
                    on_input=move |v| value.set(v)
                    placeholder=move || if has() { i18n.t(Key::PluginsCredentialSet) } else { i18n.t(Key::PluginsCredentialNone) }
                />
                <button type="submit" class="button button--secondary button--small">{tr(Key::PluginsCredentialSave)}</button>
                <Show when=has_for_clear.clone()>
                    <button type="button" class="button button--secondary button--small" on:click=clear.clone()>
                        {tr(Key::PluginsCredentialClear)}
                    </button>
                </Show>
            </div>
        </form>
    }
}

/// Keeps `session` as the installed plugin's credential, and says so (or why not).
pub(super) async fn keep_session(
    (plugins, toasts, i18n): (Plugins, Toasts, I18n),
    plugin_id: &str,
    session: &OauthSession,
) {
    match plugins
        .set_credential(plugin_id, &session.to_stored())
        .await
    {
        Ok(()) => {
            crate::plugins::more_access::clear(plugin_id);
            toasts.show(ToastKind::Info, i18n.t(Key::PluginsCredentialSaved));
        }
        Err(reason) => toasts.show(ToastKind::Error, reason.to_string()),
    }
}

/// An MCP server signed in to with OAuth: signed in (Sign out revokes the grant at the
/// server and forgets the session), or signed out (Sign in makes a new one). A call
/// never signs in by itself.
#[component]
fn SignedIn(
    plugin_id: String,
    server_url: String,
    headers: std::collections::BTreeMap<String, String>,
) -> impl IntoView {
    let plugins = use_plugins();
    let toasts = use_toasts();
    let i18n = use_i18n();
    let has = {
        let plugin_id = plugin_id.clone();
        Signal::derive(move || plugins.credentials.with(|c| c.contains(&plugin_id)))
    };
    let sign_out = {
        let plugin_id = plugin_id.clone();
        move |_| {
            let plugin_id = plugin_id.clone();
            spawn_local(async move {
                match plugins.sign_out(&plugin_id).await {
                    Ok(None) => {}
                    // Signed out here; the server may still honour the tokens.
                    Ok(Some(refused)) => toasts.show(
                        ToastKind::Error,
                        i18n.t_with(
                            Key::PluginsSignOutNotRevoked,
                            &[("reason", &failure(i18n, &refused))],
                        ),
                    ),
                    Err(reason) => toasts.show(ToastKind::Error, reason.to_string()),
                }
            });
        }
    };
    let keep = {
        let plugin_id = plugin_id.clone();
        Callback::new(move |session: OauthSession| {
            let plugin_id = plugin_id.clone();
            spawn_local(async move {
                keep_session((plugins, toasts, i18n), &plugin_id, &session).await;
            });
        })
    };
    let then = {
        let plugin_id = plugin_id.clone();
        Signal::derive(move || {
            Some(AfterSignIn::Keep {
                plugin_id: plugin_id.clone(),
            })
        })
    };
    let dom_id = format!("plugin-session-{}", plugin_id.replace(':', "-"));
    let sign_in_id = format!("{dom_id}-sign-in");
    let server_url = Signal::derive(move || server_url.clone());
    let headers = Signal::derive(move || headers.clone());
    // A call needed more than the grant gives: a sign-in asking for it, signed in or not.
    let wanted = {
        let plugin_id = plugin_id.clone();
        let all = crate::plugins::more_access::wanted();
        Signal::derive(move || all.with(|w| w.get(&plugin_id).cloned()))
    };
    let more_id = format!("{dom_id}-more");
    view! {
        <div class="plugin-session" id=dom_id data-signed-in=move || has.get().to_string()>
            <Show
                when=move || has.get()
                fallback=move || view! {
                    <p class="field__hint">{tr(Key::PluginsSignedOut)}</p>
                    <SignIn id=sign_in_id.clone() server_url=server_url headers=headers on_session=keep then=then />
                }
            >
                <div class="plugin-sign-in__row">
                    <span class="plugin-session__state">{tr(Key::PluginsSignedIn)}</span>
                    <button type="button" class="button button--secondary button--small" data-sign-out="" on:click=sign_out.clone()>
                        {tr(Key::PluginsSignOut)}
                    </button>
                </div>
                {
                    let more_id = more_id.clone();
                    move || wanted.get().map(|scope| view! {
                        <p class="field__hint" data-more-access=scope.clone()>
                            {i18n.t_with(Key::PluginsMoreAccess, &[("scope", &scope)])}
                        </p>
                        <SignIn id=more_id.clone() server_url=server_url headers=headers extra_scope=scope on_session=keep then=then />
                    })
                }
            </Show>
        </div>
    }
}
