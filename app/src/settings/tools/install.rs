//! Settings › Tools › Add a plugin: an OpenAPI description by URL or pasted, or a remote
//! MCP server with an optional token (kept in the vault), the header the token goes in
//! and plain headers. The headers are read by `hearth_core::plugin::headers` under the
//! edge's own rules, so a refused header is named under its field before anything is
//! sent. Only the kinds this deployment serves are offered. A server that answers that
//! it needs a sign-in (and was given no token) offers one (`sign_in`); the server is
//! installed with the session it gives.

use hearth_core::api::{
    Capabilities, PluginInstallRequest, PluginInstallResponse, RegisteredPlugin,
};
use hearth_core::plugin::headers::{
    HeaderError, HeaderLineError, MAX_HEADER_VALUE_CHARS, MAX_MCP_HEADERS, check_credential_header,
    parse_header_lines,
};
use hearth_core::plugin::oauth::away::AfterSignIn;
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::sign_in::SignIn;
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::plugins::{CallError, refused_by_server, use_plugins};
use crate::ui::field::{Control, Field};
use crate::ui::toast::{ToastKind, Toasts, use_toasts};

/// The install form's fields, shared with the registry browser (which fills them).
#[derive(Clone, Copy)]
pub(super) struct Draft {
    pub kind: RwSignal<InstallKind>,
    pub url: RwSignal<String>,
    /// The header the token goes in (empty: `Authorization: Bearer`).
    pub auth_header: RwSignal<String>,
    /// Plain headers, one `Name: value` per line.
    pub headers: RwSignal<String>,
}

impl Draft {
    /// An empty draft for an MCP server.
    pub fn new() -> Self {
        Self {
            kind: RwSignal::new(InstallKind::Mcp),
            url: RwSignal::new(String::new()),
            auth_header: RwSignal::new(String::new()),
            headers: RwSignal::new(String::new()),
        }
    }
}

/// What the install form adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum InstallKind {
    OpenApiUrl,
    OpenApiText,
    Mcp,
}

impl InstallKind {
    fn slug(self) -> &'static str {
        match self {
            InstallKind::Mcp => "mcp",
            InstallKind::OpenApiUrl => "openapi-url",
            InstallKind::OpenApiText => "openapi-text",
        }
    }

    fn from_slug(slug: &str) -> Self {
        match slug {
            "openapi-url" => InstallKind::OpenApiUrl,
            "openapi-text" => InstallKind::OpenApiText,
            _ => InstallKind::Mcp,
        }
    }

    fn label(self) -> Key {
        match self {
            InstallKind::Mcp => Key::PluginsKindMcp,
            InstallKind::OpenApiUrl => Key::PluginsKindOpenApiUrl,
            InstallKind::OpenApiText => Key::PluginsKindOpenApiText,
        }
    }
}

/// The kinds a deployment serves, MCP first; all of them while its capabilities are
/// unknown.
fn offered_kinds(capabilities: Option<Capabilities>) -> Vec<InstallKind> {
    let (plugins, mcp) = capabilities.map_or((true, true), |c| (c.plugins, c.mcp));
    let mut kinds = Vec::new();
    if mcp {
        kinds.push(InstallKind::Mcp);
    }
    if plugins {
        kinds.extend([InstallKind::OpenApiUrl, InstallKind::OpenApiText]);
    }
    kinds
}

/// Why the form was not sent, or the edge did not install.
#[derive(Debug, Clone, PartialEq)]
enum InstallError {
    /// No address, or no pasted description.
    Missing,
    /// The plain headers' text.
    Headers(HeaderLineError),
    /// The token's header name.
    AuthHeader(HeaderError),
    /// The edge refused or failed.
    Failed(CallError),
}

fn header_message(i18n: I18n, line: usize, error: &HeaderError) -> String {
    let line = line.to_string();
    match error {
        HeaderError::TooMany => i18n.t_with(
            Key::PluginsHeadersTooMany,
            &[("max", &MAX_MCP_HEADERS.to_string())],
        ),
        HeaderError::BadName(name) => i18n.t_with(
            Key::PluginsHeadersBadName,
            &[("line", &line), ("name", name)],
        ),
        HeaderError::Reserved(name) => i18n.t_with(
            Key::PluginsHeadersReserved,
            &[("line", &line), ("name", name)],
        ),
        HeaderError::Credential(name) => i18n.t_with(
            Key::PluginsHeadersCredential,
            &[("line", &line), ("name", name)],
        ),
        HeaderError::BadValue(name) => i18n.t_with(
            Key::PluginsHeadersBadValue,
            &[
                ("line", &line),
                ("name", name),
                ("max", &MAX_HEADER_VALUE_CHARS.to_string()),
            ],
        ),
    }
}

fn error_message(i18n: I18n, error: &InstallError) -> String {
    match error {
        InstallError::Missing => i18n.t(Key::PluginsInstallMissing),
        InstallError::Headers(HeaderLineError::NotAHeader { text, .. }) => {
            i18n.t_with(Key::PluginsHeadersInvalid, &[("line", text)])
        }
        InstallError::Headers(HeaderLineError::MissingValue { line, name }) => i18n.t_with(
            Key::PluginsHeadersMissingValue,
            &[("line", &line.to_string()), ("name", name)],
        ),
        InstallError::Headers(HeaderLineError::Duplicate { line, name }) => i18n.t_with(
            Key::PluginsHeadersDuplicate,
            &[("line", &line.to_string()), ("name", name)],
        ),
        InstallError::Headers(HeaderLineError::Refused { line, error }) => {
            header_message(i18n, *line, error)
        }
        InstallError::Headers(HeaderLineError::TooMany) => {
            header_message(i18n, 0, &HeaderError::TooMany)
        }
        InstallError::AuthHeader(HeaderError::Reserved(name)) => {
            i18n.t_with(Key::PluginsAuthHeaderReserved, &[("name", name)])
        }
        InstallError::AuthHeader(HeaderError::BadName(name)) => {
            i18n.t_with(Key::PluginsAuthHeaderBadName, &[("name", name)])
        }
        InstallError::AuthHeader(other) => header_message(i18n, 1, other),
        InstallError::Failed(reason) => reason.to_string(),
    }
}

/// Says that `registered` was installed, and with how many functions.
pub(super) fn announce_installed(toasts: Toasts, i18n: I18n, registered: &RegisteredPlugin) {
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

#[component]
pub(super) fn InstallSection(
    draft: Draft,
    capabilities: Signal<Option<Capabilities>>,
) -> impl IntoView {
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
    let error = RwSignal::new(None::<InstallError>);
    let skipped = RwSignal::new(Vec::<String>::new());
    // The install a server refused until the user signs in.
    let pending = RwSignal::new(None::<PluginInstallRequest>);
    let offered = Memo::new(move |_| offered_kinds(capabilities.get()));
    let finish = move |outcome: Result<PluginInstallResponse, CallError>| match outcome {
        Ok(PluginInstallResponse {
            registered,
            skipped: left_out,
        }) => {
            pending.set(None);
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
            announce_installed(toasts, i18n, &registered);
        }
        Err(reason) => error.set(Some(InstallError::Failed(reason))),
    };
    // A kind the deployment does not serve is never the one shown.
    Effect::new(move |_| {
        let offered = offered.get();
        if !offered.contains(&kind.get())
            && let Some(first) = offered.first()
        {
            kind.set(*first);
        }
    });

    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let kind = kind.get_untracked();
        let url_text = url.get_untracked().trim().to_string();
        let spec_text = spec.get_untracked();
        let mcp = kind == InstallKind::Mcp;
        let fail = |problem: InstallError, field: &str| {
            error.set(Some(problem));
            crate::browser::focus_by_id(field);
        };
        let missing = match kind {
            InstallKind::OpenApiText => spec_text.trim().is_empty(),
            _ => url_text.is_empty(),
        };
        if missing {
            let field = if kind == InstallKind::OpenApiText {
                "plugin-install-spec"
            } else {
                "plugin-install-url"
            };
            return fail(InstallError::Missing, field);
        }
        let header_name = auth_header.get_untracked().trim().to_string();
        if mcp
            && !header_name.is_empty()
            && let Err(problem) = check_credential_header(&header_name)
        {
            return fail(
                InstallError::AuthHeader(problem),
                "plugin-install-auth-header",
            );
        }
        let mcp_headers = if mcp {
            match parse_header_lines(&headers.get_untracked()) {
                Ok(map) => map,
                Err(problem) => {
                    return fail(InstallError::Headers(problem), "plugin-install-headers");
                }
            }
        } else {
            Default::default()
        };
        let request = PluginInstallRequest {
            spec: (kind == InstallKind::OpenApiText).then_some(spec_text),
            manifest_url: (kind == InstallKind::OpenApiUrl).then(|| url_text.clone()),
            mcp_url: mcp.then_some(url_text),
            auth: None,
            auth_header: (mcp && !header_name.is_empty()).then_some(header_name),
            mcp_headers,
            oauth: false,
        };
        let secret = mcp.then(|| token.get_untracked());
        let no_token = secret.as_deref().is_none_or(|t| t.trim().is_empty());
        error.set(None);
        skipped.set(Vec::new());
        pending.set(None);
        busy.set(true);
        spawn_local(async move {
            let outcome = plugins.install(request.clone(), secret).await;
            busy.set(false);
            match outcome {
                // The server wants a sign-in, and no token was given: offer one.
                Err(reason) if mcp && no_token && refused_by_server(&reason) => {
                    pending.set(Some(request));
                    // Once shown: the way on is in view and under the keyboard.
                    crate::browser::sleep_ms(0).await;
                    crate::browser::focus_by_id("plugin-install-sign-in-start");
                }
                outcome => finish(outcome),
            }
        });
    };
    let signed_in = Callback::new(move |session: hearth_core::plugin::oauth::OauthSession| {
        let Some(request) = pending.get_untracked() else {
            return;
        };
        busy.set(true);
        spawn_local(async move {
            let outcome = plugins.install_signed_in(request, &session).await;
            busy.set(false);
            finish(outcome);
        });
    });
    let pending_headers = Signal::derive(move || {
        pending.with(|p| {
            p.as_ref()
                .map(|r| r.mcp_headers.clone())
                .unwrap_or_default()
        })
    });
    let pending_install = Signal::derive(move || {
        pending
            .get()
            .map(|request| AfterSignIn::Install(Box::new(request)))
    });
    let pending_url = Signal::derive(move || {
        pending.with(|p| {
            p.as_ref()
                .and_then(|r| r.mcp_url.clone())
                .unwrap_or_default()
        })
    });
    // Each problem under the field it is about; the edge's answer under the form.
    let error_where = move |pick: fn(&InstallError, InstallKind) -> bool| {
        Signal::derive(move || {
            error.with(|e| {
                e.as_ref()
                    .filter(|e| pick(e, kind.get()))
                    .map(|e| error_message(i18n, e))
            })
        })
    };
    let url_error =
        error_where(|e, k| *e == InstallError::Missing && k != InstallKind::OpenApiText);
    let spec_error =
        error_where(|e, k| *e == InstallError::Missing && k == InstallKind::OpenApiText);
    let auth_error = error_where(|e, _| matches!(e, InstallError::AuthHeader(_)));
    let headers_error = error_where(|e, _| matches!(e, InstallError::Headers(_)));
    let form_error = error_where(|e, _| matches!(e, InstallError::Failed(_)));
    let on_kind = move |value: String| {
        kind.set(InstallKind::from_slug(&value));
        error.set(None);
    };
    let is_mcp = move || kind.get() == InstallKind::Mcp;
    view! {
        <form class="provider-form plugin-install" on:submit=submit novalidate aria-labelledby="plugin-install-title">
            <h3 class="settings-subheading" id="plugin-install-title">{tr(Key::PluginsAdd)}</h3>
            <Field
                id="plugin-install-kind"
                label=tr(Key::PluginsAddKind)
                control=Control::Select
                value=move || kind.get().slug().to_string()
                on_input=on_kind
            >
                {move || offered.get().into_iter().map(|k| view! {
                    <option value=k.slug() selected=move || kind.get() == k>{tr(k.label())}</option>
                }).collect_view()}
            </Field>
            <Show
                when=move || kind.get() == InstallKind::OpenApiText
                fallback=move || view! {
                    <Field
                        id="plugin-install-url"
                        label=move || i18n.t(if is_mcp() { Key::PluginsMcpUrl } else { Key::PluginsManifestUrl })
                        control=Control::Url
                        value=url
                        on_input=move |v| url.set(v)
                        placeholder=move || if is_mcp() { "https://example.com/mcp".to_string() } else { "https://example.com/openapi.json".to_string() }
                        error=url_error
                    />
                }
            >
                <Field
                    id="plugin-install-spec"
                    label=tr(Key::PluginsSpec)
                    control=Control::Textarea(8)
                    value=spec
                    on_input=move |v| spec.set(v)
                    error=spec_error
                />
            </Show>
            <Show when=is_mcp>
                <Field
                    id="plugin-install-token"
                    label=tr(Key::PluginsMcpToken)
                    control=Control::Password
                    value=token
                    on_input=move |v| token.set(v)
                    hint=tr(Key::PluginsMcpTokenHint)
                />
                <Field
                    id="plugin-install-auth-header"
                    label=tr(Key::PluginsAuthHeader)
                    value=auth_header
                    on_input=move |v| auth_header.set(v)
                    placeholder="Authorization: Bearer".to_string()
                    hint=tr(Key::PluginsAuthHeaderHint)
                    error=auth_error
                />
                <Field
                    id="plugin-install-headers"
                    label=tr(Key::PluginsHeaders)
                    control=Control::Textarea(2)
                    value=headers
                    on_input=move |v| headers.set(v)
                    placeholder="X-Workspace: team-a".to_string()
                    hint=tr(Key::PluginsHeadersHint)
                    error=headers_error
                />
            </Show>
            <p class="field__error" id="plugin-install-error" role="alert">{move || form_error.get()}</p>
            <Show when=move || pending.with(Option::is_some)>
                <div class="notice" id="plugin-install-sign-in-needed">
                    <p>{tr(Key::PluginsSignInNeeded)}</p>
                    <SignIn id="plugin-install-sign-in".to_string() server_url=pending_url headers=pending_headers on_session=signed_in then=pending_install />
                </div>
            </Show>
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_kinds_the_deployment_serves_are_offered() {
        let caps = |plugins, mcp| Capabilities {
            plugins,
            mcp,
            ..Capabilities::default()
        };
        assert_eq!(
            offered_kinds(None),
            [
                InstallKind::Mcp,
                InstallKind::OpenApiUrl,
                InstallKind::OpenApiText
            ]
        );
        assert_eq!(offered_kinds(Some(caps(false, true))), [InstallKind::Mcp]);
        assert_eq!(
            offered_kinds(Some(caps(true, false))),
            [InstallKind::OpenApiUrl, InstallKind::OpenApiText]
        );
        assert!(offered_kinds(Some(caps(false, false))).is_empty());
    }

    #[test]
    fn kinds_read_back_from_their_slugs() {
        for kind in [
            InstallKind::Mcp,
            InstallKind::OpenApiUrl,
            InstallKind::OpenApiText,
        ] {
            assert_eq!(InstallKind::from_slug(kind.slug()), kind);
        }
    }
}
