//! Settings › Tools: the plugin market. Whether calls wait for confirmation, this
//! session's approvals (each revocable), adding a plugin (an OpenAPI description by URL
//! or pasted, or a remote MCP server with an optional token), and every plugin —
//! built-in first — with its switch, its functions (each with its risk and own switch),
//! its credential (kept in the vault, shown masked) and, for installed ones, Uninstall.
//! Names two plugins expose are listed as collisions: neither is offered until one is
//! switched off.

use hearth_core::api::{
    McpServer, McpTransport, PluginInstallRequest, PluginInstallResponse, RegisteredPlugin,
};
use hearth_core::plugin::approval::ConfirmMode;
use hearth_core::plugin::builtin::IMAGE_GENERATOR_ID;
use hearth_core::plugin::selection::toolset;
use hearth_core::plugin::{Auth, Plugin, Risk, Source};
use hearth_core::preferences::ModelRef;
use hearth_core::provider::Protocol;
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::plugins::{CallError, ListState, use_plugins};
use crate::preferences::{Prefs, use_prefs};
use crate::ui::toast::{ToastKind, Toasts, use_toasts};

/// The label of a risk level.
pub fn risk_key(risk: Risk) -> Key {
    match risk {
        Risk::Read => Key::ToolRiskRead,
        Risk::Write => Key::ToolRiskWrite,
        Risk::External => Key::ToolRiskExternal,
        Risk::Destructive => Key::ToolRiskDestructive,
    }
}

fn confirm_slug(mode: ConfirmMode) -> &'static str {
    match mode {
        ConfirmMode::Off => "off",
        ConfirmMode::Destructive => "destructive",
        ConfirmMode::SideEffects => "side-effects",
    }
}

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

/// The install form's fields, shared with the registry browser (which fills them).
#[derive(Clone, Copy)]
struct Draft {
    kind: RwSignal<InstallKind>,
    url: RwSignal<String>,
    /// The header the token goes in (empty: `Authorization: Bearer`).
    auth_header: RwSignal<String>,
    /// Plain headers, one `Name: value` per line.
    headers: RwSignal<String>,
}

/// `Name: value` lines as a header map; the first line that is not one, as an error.
fn parse_headers(text: &str) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut out = std::collections::BTreeMap::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':').ok_or_else(|| line.to_string())?;
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() || value.is_empty() {
            return Err(line.to_string());
        }
        out.insert(name.to_string(), value.to_string());
    }
    Ok(out)
}

/// The Tools tab.
#[component]
pub fn PluginsPanel() -> impl IntoView {
    let plugins = use_plugins();
    let i18n = use_i18n();
    spawn_local(async move { plugins.refresh().await });
    let draft = Draft {
        kind: RwSignal::new(InstallKind::Mcp),
        url: RwSignal::new(String::new()),
        auth_header: RwSignal::new(String::new()),
        headers: RwSignal::new(String::new()),
    };
    view! {
        <div class="settings-section plugins-panel">
            <ConfirmSection />
            <ApprovalsSection />
            <InstallSection draft=draft />
            <RegistrySection draft=draft />
            {move || match plugins.state.get() {
                ListState::Loading => view! {
                    <p class="field__hint" role="status">{tr(Key::PluginsLoading)}</p>
                }
                .into_any(),
                ListState::Failed(error) => view! {
                    <p class="notice notice--warning" role="alert" id="plugins-failed">
                        {i18n.t_with(Key::PluginsListFailed, &[("reason", &CallError::Edge(error).to_string())])}
                    </p>
                }
                .into_any(),
                ListState::Ready => view! { <PluginList /> }.into_any(),
            }}
        </div>
    }
}

#[component]
fn ConfirmSection() -> impl IntoView {
    let prefs = use_prefs();
    let toasts = use_toasts();
    let i18n = use_i18n();
    let current = move || prefs.value.with(|p| p.tools.confirm);
    let on_change = move |event: leptos::ev::Event| {
        let mode = match event_target_value(&event).as_str() {
            "destructive" => ConfirmMode::Destructive,
            "side-effects" => ConfirmMode::SideEffects,
            _ => ConfirmMode::Off,
        };
        save_prefs(prefs, toasts, i18n, move |p| p.tools.confirm = mode);
    };
    view! {
        <section class="data-block" aria-labelledby="tools-confirm-title">
            <h3 class="settings-subheading" id="tools-confirm-title">{tr(Key::ToolsConfirm)}</h3>
            <div class="field">
                <label class="field__label" for="tools-confirm">{tr(Key::ToolsConfirmLabel)}</label>
                <select
                    id="tools-confirm"
                    class="select"
                    aria-describedby="tools-confirm-hint"
                    prop:value=move || confirm_slug(current())
                    on:change=on_change
                >
                    <option value="off">{tr(Key::ToolsConfirmOff)}</option>
                    <option value="destructive">{tr(Key::ToolsConfirmDestructive)}</option>
                    <option value="side-effects">{tr(Key::ToolsConfirmSideEffects)}</option>
                </select>
                <p class="field__hint" id="tools-confirm-hint">{tr(Key::ToolsConfirmHint)}</p>
            </div>
        </section>
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

/// What the install form adds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum InstallKind {
    OpenApiUrl,
    OpenApiText,
    Mcp,
}

fn kind_slug(kind: InstallKind) -> &'static str {
    match kind {
        InstallKind::Mcp => "mcp",
        InstallKind::OpenApiUrl => "openapi-url",
        InstallKind::OpenApiText => "openapi-text",
    }
}

#[component]
fn InstallSection(draft: Draft) -> impl IntoView {
    let plugins = use_plugins();
    let i18n = use_i18n();
    let toasts = use_toasts();
    let Draft {
        kind,
        url,
        auth_header,
        headers,
    } = draft;
    let spec = RwSignal::new(String::new());
    let token = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let skipped = RwSignal::new(Vec::<String>::new());

    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let kind = kind.get_untracked();
        let url_text = url.get_untracked().trim().to_string();
        let spec_text = spec.get_untracked();
        let missing = match kind {
            InstallKind::OpenApiText => spec_text.trim().is_empty(),
            _ => url_text.is_empty(),
        };
        if missing {
            error.set(Some(i18n.t(Key::PluginsInstallMissing)));
            return;
        }
        let mcp = kind == InstallKind::Mcp;
        let mcp_headers = if mcp {
            match parse_headers(&headers.get_untracked()) {
                Ok(map) => map,
                Err(line) => {
                    error.set(Some(
                        i18n.t_with(Key::PluginsHeadersInvalid, &[("line", &line)]),
                    ));
                    return;
                }
            }
        } else {
            Default::default()
        };
        let header_name = auth_header.get_untracked().trim().to_string();
        let request = PluginInstallRequest {
            spec: (kind == InstallKind::OpenApiText).then_some(spec_text),
            manifest_url: (kind == InstallKind::OpenApiUrl).then(|| url_text.clone()),
            mcp_url: mcp.then_some(url_text),
            auth: None,
            auth_header: (mcp && !header_name.is_empty()).then_some(header_name),
            mcp_headers,
        };
        let secret = (kind == InstallKind::Mcp).then(|| token.get_untracked());
        error.set(None);
        skipped.set(Vec::new());
        busy.set(true);
        spawn_local(async move {
            let outcome = plugins.install(request, secret).await;
            busy.set(false);
            match outcome {
                Ok(PluginInstallResponse {
                    registered,
                    skipped: left_out,
                }) => {
                    url.set(String::new());
                    spec.set(String::new());
                    token.set(String::new());
                    auth_header.set(String::new());
                    headers.set(String::new());
                    skipped.set(
                        left_out
                            .into_iter()
                            .map(|s| format!("{} — {}", s.operation, s.reason))
                            .collect(),
                    );
                    toasts.show(
                        ToastKind::Info,
                        i18n.t_with(
                            Key::PluginsInstalled,
                            &[
                                ("title", &registered.plugin.title),
                                ("count", &registered.plugin.functions.len().to_string()),
                            ],
                        ),
                    );
                }
                Err(reason) => error.set(Some(reason.to_string())),
            }
        });
    };
    let on_kind = move |event: leptos::ev::Event| {
        kind.set(match event_target_value(&event).as_str() {
            "openapi-url" => InstallKind::OpenApiUrl,
            "openapi-text" => InstallKind::OpenApiText,
            _ => InstallKind::Mcp,
        });
        error.set(None);
    };
    view! {
        <form class="provider-form plugin-install" on:submit=submit novalidate aria-labelledby="plugin-install-title">
            <h3 class="settings-subheading" id="plugin-install-title">{tr(Key::PluginsAdd)}</h3>
            <div class="field">
                <label class="field__label" for="plugin-install-kind">{tr(Key::PluginsAddKind)}</label>
                <select id="plugin-install-kind" class="select" prop:value=move || kind_slug(kind.get()) on:change=on_kind>
                    <option value="mcp">{tr(Key::PluginsKindMcp)}</option>
                    <option value="openapi-url">{tr(Key::PluginsKindOpenApiUrl)}</option>
                    <option value="openapi-text">{tr(Key::PluginsKindOpenApiText)}</option>
                </select>
            </div>
            <Show
                when=move || kind.get() == InstallKind::OpenApiText
                fallback=move || view! {
                    <div class="field">
                        <label class="field__label" for="plugin-install-url">
                            {move || if kind.get() == InstallKind::Mcp { i18n.t(Key::PluginsMcpUrl) } else { i18n.t(Key::PluginsManifestUrl) }}
                        </label>
                        <input id="plugin-install-url" class="input" type="url" autocomplete="off" spellcheck="false"
                            placeholder=move || if kind.get() == InstallKind::Mcp { "https://example.com/mcp" } else { "https://example.com/openapi.json" }
                            aria-invalid=move || error.with(Option::is_some).to_string()
                            aria-describedby="plugin-install-error"
                            prop:value=move || url.get()
                            on:input=move |e| url.set(event_target_value(&e)) />
                    </div>
                }
            >
                <div class="field">
                    <label class="field__label" for="plugin-install-spec">{tr(Key::PluginsSpec)}</label>
                    <textarea id="plugin-install-spec" class="input textarea" rows="8" spellcheck="false"
                        aria-invalid=move || error.with(Option::is_some).to_string()
                        aria-describedby="plugin-install-error"
                        prop:value=move || spec.get()
                        on:input=move |e| spec.set(event_target_value(&e))></textarea>
                </div>
            </Show>
            <Show when=move || kind.get() == InstallKind::Mcp>
                <div class="field">
                    <label class="field__label" for="plugin-install-token">{tr(Key::PluginsMcpToken)}</label>
                    <input id="plugin-install-token" class="input" type="password" autocomplete="off" spellcheck="false"
                        aria-describedby="plugin-install-token-hint"
                        prop:value=move || token.get()
                        on:input=move |e| token.set(event_target_value(&e)) />
                    <p class="field__hint" id="plugin-install-token-hint">{tr(Key::PluginsMcpTokenHint)}</p>
                </div>
                <div class="field">
                    <label class="field__label" for="plugin-install-auth-header">{tr(Key::PluginsAuthHeader)}</label>
                    <input id="plugin-install-auth-header" class="input" type="text" autocomplete="off" spellcheck="false"
                        placeholder="Authorization: Bearer"
                        aria-describedby="plugin-install-auth-header-hint"
                        prop:value=move || auth_header.get()
                        on:input=move |e| auth_header.set(event_target_value(&e)) />
                    <p class="field__hint" id="plugin-install-auth-header-hint">{tr(Key::PluginsAuthHeaderHint)}</p>
                </div>
                <div class="field">
                    <label class="field__label" for="plugin-install-headers">{tr(Key::PluginsHeaders)}</label>
                    <textarea id="plugin-install-headers" class="input textarea" rows="2" spellcheck="false"
                        placeholder="X-Workspace: team-a"
                        aria-describedby="plugin-install-headers-hint"
                        prop:value=move || headers.get()
                        on:input=move |e| headers.set(event_target_value(&e))></textarea>
                    <p class="field__hint" id="plugin-install-headers-hint">{tr(Key::PluginsHeadersHint)}</p>
                </div>
            </Show>
            <p class="field__error" id="plugin-install-error" role="alert">{move || error.get()}</p>
            <div class="provider-form__actions">
                <button type="submit" class="button button--primary" id="plugin-install-submit"
                    aria-busy=move || busy.get().to_string() disabled=move || busy.get()>
                    {move || if busy.get() { i18n.t(Key::PluginsInstalling) } else { i18n.t(Key::PluginsInstall) }}
                </button>
            </div>
            {move || {
                let list = skipped.get();
                (!list.is_empty()).then(|| view! {
                    <details class="plugin-skipped" id="plugin-install-skipped">
                        <summary>{i18n.t_with(Key::PluginsSkipped, &[("count", &list.len().to_string())])}</summary>
                        <ul>{list.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}</ul>
                    </details>
                })
            }}
        </form>
    }
}

#[component]
fn PluginList() -> impl IntoView {
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
        Source::Builtin => Key::PluginsSourceBuiltin,
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
            {(plugin.auth != Auth::None).then(|| view! { <Credential plugin_id=id.clone() /> })}
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
                    Err(reason) => toasts.show(ToastKind::Error, reason),
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
                    toasts.show(ToastKind::Error, reason);
                }
            });
        }
    };
    let has_for_clear = has.clone();
    view! {
        <form class="plugin-credential" on:submit=save novalidate>
            <label class="field__label" for=field_id.clone()>{tr(Key::PluginsCredential)}</label>
            <div class="plugin-credential__row">
                <input id=field_id class="input" type="password" autocomplete="off" spellcheck="false"
                    placeholder=move || if has() { i18n.t(Key::PluginsCredentialSet) } else { i18n.t(Key::PluginsCredentialNone) }
                    prop:value=move || value.get()
                    on:input=move |e| value.set(event_target_value(&e)) />
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

/// Browsing the official MCP registry through the edge: a search, a page of servers
/// (their text shown as text), more pages on demand, and for a server Hearth can reach
/// (a streamable-HTTP remote) a button that fills the install form.
#[component]
fn RegistrySection(draft: Draft) -> impl IntoView {
    let i18n = use_i18n();
    let search = RwSignal::new(String::new());
    let servers = RwSignal::new(Vec::<McpServer>::new());
    let cursor = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let searched = RwSignal::new(false);
    let load = move |more: bool| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        error.set(None);
        let term = search.get_untracked();
        let from = if more { cursor.get_untracked() } else { None };
        spawn_local(async move {
            let page = crate::edge::browse_mcp_registry(&term, from.as_deref()).await;
            busy.set(false);
            searched.set(true);
            match page {
                Ok(page) => {
                    if more {
                        servers.update(|list| list.extend(page.servers));
                    } else {
                        servers.set(page.servers);
                    }
                    cursor.set(page.next_cursor);
                }
                Err(reason) => error.set(Some(CallError::Edge(reason).to_string())),
            }
        });
    };
    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        load(false);
    };
    let row = move |server: McpServer| {
        let remote = server
            .remotes
            .iter()
            .find(|r| r.transport == McpTransport::StreamableHttp)
            .cloned();
        let needs = remote
            .as_ref()
            .and_then(|r| r.headers.iter().find(|h| h.required).cloned());
        let title = server.title.clone().unwrap_or_else(|| server.name.clone());
        let use_it = remote.clone().map(|remote| {
            move |_| {
                draft.kind.set(InstallKind::Mcp);
                draft.url.set(remote.url.clone());
                // A secret header other than Authorization carries the token; required
                // plain headers are listed for the user to fill in.
                let secret = remote
                    .headers
                    .iter()
                    .find(|h| h.secret && !h.name.eq_ignore_ascii_case("authorization"));
                draft
                    .auth_header
                    .set(secret.map(|h| h.name.clone()).unwrap_or_default());
                draft.headers.set(
                    remote
                        .headers
                        .iter()
                        .filter(|h| h.required && !h.secret)
                        .map(|h| format!("{}: ", h.name))
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
                crate::browser::focus_by_id("plugin-install-url");
            }
        });
        view! {
            <li class="registry-row" data-registry-name=server.name.clone()>
                <div class="registry-row__main">
                    <span class="plugin-card__title">{title}</span>
                    <span class="plugin-card__meta">{format!("{} · {}", server.name, server.version)}</span>
                    <p class="plugin-card__description">{server.description.clone()}</p>
                    {remote.map(|r| view! { <span class="plugin-card__url">{r.url}</span> })}
                    {needs.map(|h| view! {
                        <p class="field__hint">{i18n.t_with(Key::RegistryNeedsHeader, &[("name", &h.name), ("description", &h.description)])}</p>
                    })}
                </div>
                {match use_it {
                    Some(use_it) => view! {
                        <button type="button" class="button button--secondary button--small" data-registry-use="" on:click=use_it>
                            {tr(Key::RegistryUse)}
                        </button>
                    }.into_any(),
                    None => view! {
                        <span class="field__hint">{tr(Key::RegistryNotInstallable)}</span>
                    }.into_any(),
                }}
            </li>
        }
    };
    view! {
        <section class="data-block" aria-labelledby="registry-title">
            <h3 class="settings-subheading" id="registry-title">{tr(Key::RegistryTitle)}</h3>
            <form class="registry-search" role="search" on:submit=submit>
                <label class="visually-hidden" for="registry-search">{tr(Key::RegistrySearch)}</label>
                <input id="registry-search" class="input" type="search" autocomplete="off"
                    placeholder=tr(Key::RegistrySearch)
                    prop:value=move || search.get()
                    on:input=move |e| search.set(event_target_value(&e)) />
                <button type="submit" class="button button--secondary" id="registry-search-submit"
                    aria-busy=move || busy.get().to_string() disabled=move || busy.get()>
                    {tr(Key::RegistryBrowse)}
                </button>
            </form>
            <p class="field__error" role="alert" id="registry-error">{move || error.get()}</p>
            <Show when=move || busy.get()>
                <p class="field__hint" role="status">{tr(Key::RegistryLoading)}</p>
            </Show>
            {move || (searched.get() && servers.with(Vec::is_empty) && error.with(Option::is_none) && !busy.get())
                .then(|| view! { <p class="field__hint" id="registry-empty">{tr(Key::RegistryEmpty)}</p> })}
            <ul class="plugin-list registry-list" id="registry-results">
                {move || servers.get().into_iter().map(row).collect_view()}
            </ul>
            <Show when=move || cursor.with(Option::is_some)>
                <button type="button" class="button button--secondary" id="registry-more"
                    disabled=move || busy.get() on:click=move |_| load(true)>
                    {tr(Key::RegistryMore)}
                </button>
            </Show>
        </section>
    }
}

/// The model the image generator draws with: any listed model of an enabled provider
/// that speaks OpenAI's protocol with its own key (its Images API is called from the
/// browser).
#[component]
fn ImageModelField() -> impl IntoView {
    let providers = crate::providers::use_providers();
    let prefs = use_prefs();
    let toasts = use_toasts();
    let i18n = use_i18n();
    let options = Memo::new(move |_| {
        let models = providers.models().get();
        providers.list.with(|list| {
            list.iter()
                .filter(|p| {
                    p.enabled
                        && p.server.is_none()
                        && matches!(
                            p.kind.protocol().0,
                            Protocol::OpenAiChat | Protocol::OpenAiResponses
                        )
                })
                .flat_map(|p| {
                    models
                        .get(&p.id)
                        .into_iter()
                        .flatten()
                        .map(|m| (p.id.clone(), p.name.clone(), m.id.clone()))
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        })
    });
    let selected = move || {
        prefs
            .value
            .with(|p| p.image_model.clone())
            .map(|m| format!("{}\u{1f}{}", m.provider_id, m.model))
            .unwrap_or_default()
    };
    let choose = move |event: leptos::ev::Event| {
        let value = event_target_value(&event);
        let model = value
            .split_once('\u{1f}')
            .map(|(provider_id, model)| ModelRef {
                provider_id: provider_id.to_string(),
                model: model.to_string(),
            });
        save_prefs(prefs, toasts, i18n, move |p| p.image_model = model);
    };
    view! {
        <div class="field">
            <label class="field__label" for="image-model">{tr(Key::ImageModel)}</label>
            <select id="image-model" class="select" prop:value=selected on:change=choose
                aria-describedby="image-model-hint">
                <option value="">{tr(Key::ImageModelNone)}</option>
                {move || options.get().into_iter().map(|(provider_id, provider, model)| {
                    let value = format!("{provider_id}\u{1f}{model}");
                    view! { <option value=value>{format!("{model} · {provider}")}</option> }
                }).collect_view()}
            </select>
            <p class="field__hint" id="image-model-hint">{tr(Key::ImageModelHint)}</p>
        </div>
    }
}
