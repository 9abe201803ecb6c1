//! Signing in to an MCP server from Settings › Tools: the button that opens the login
//! window (from the click itself, so no pop-up blocker stands in the way; when one does,
//! "Continue in this tab", finished by `come_back`), a client the
//! user registered with the server (optional: Hearth otherwise uses its metadata document
//! or registers), the wait with Cancel, and why a sign-in failed, in the user's language.
//! What to do with the session is the caller's (install the server, or keep it for an
//! installed one).

use std::cell::Cell;
use std::rc::Rc;

use hearth_core::plugin::oauth::away::AfterSignIn;
use hearth_core::plugin::oauth::client::{self, Client};
use hearth_core::plugin::oauth::{OauthError, OauthSession};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::plugins::oauth::{self, SignInError};
use crate::ui::field::{Control, Field};

/// The words for a failed sign-in.
pub(super) fn sign_in_message(i18n: I18n, error: &SignInError) -> String {
    match error {
        SignInError::PopupBlocked => i18n.t(Key::PluginsSignInPopupBlocked),
        SignInError::Cancelled => String::new(),
        SignInError::TimedOut => i18n.t(Key::PluginsSignInTimedOut),
        _ => i18n.t_with(
            Key::PluginsSignInFailed,
            &[("reason", &failure(i18n, error))],
        ),
    }
}

/// Why an exchange with the server or the edge failed, in a few words.
pub(super) fn failure(i18n: I18n, error: &SignInError) -> String {
    match error {
        SignInError::Oauth(error) => i18n.t(oauth_key(error)),
        SignInError::Edge(error) => error.to_string(),
        SignInError::Seal(error) => error.to_string(),
        SignInError::Credential(error) => error.to_string(),
        SignInError::Unsupported => "WebCrypto, BroadcastChannel".to_string(),
        SignInError::PopupBlocked | SignInError::Cancelled | SignInError::TimedOut => {
            sign_in_message(i18n, error)
        }
    }
}

/// The sentence for each reason a step can fail.
fn oauth_key(error: &OauthError) -> Key {
    match error {
        OauthError::BadDocument { .. } => Key::PluginsOauthBadDocument,
        OauthError::NoMetadata => Key::PluginsOauthNoMetadata,
        OauthError::ResourceMismatch(_) => Key::PluginsOauthResourceMismatch,
        OauthError::IssuerMismatch { .. } => Key::PluginsOauthIssuerMismatch,
        OauthError::PkceUnsupported => Key::PluginsOauthPkceUnsupported,
        OauthError::NeedsClient => Key::PluginsOauthNeedsClient,
        OauthError::StateMismatch => Key::PluginsOauthStateMismatch,
        OauthError::Denied { .. } => Key::PluginsOauthDenied,
        OauthError::TokenRefused { .. } => Key::PluginsOauthTokenRefused,
    }
}

/// A sign-in to the MCP server at `server_url` (given `headers`, its plain headers, on
/// the discovery probe); `on_session` gets the session (to install the server, or keep
/// it for an installed one). When the browser blocks the login window, the sign-in can
/// continue in this tab, which leaves and comes back: `then` says what the session is
/// for, since no callback outlives the page. `id` prefixes the elements' ids.
#[component]
pub(super) fn SignIn(
    id: String,
    server_url: Signal<String>,
    headers: Signal<std::collections::BTreeMap<String, String>>,
    on_session: Callback<OauthSession>,
    then: Signal<Option<AfterSignIn>>,
    /// A scope a call said it needs beyond the grant: asked for on top of the server's.
    #[prop(optional, into)]
    extra_scope: Option<String>,
) -> impl IntoView {
    let i18n = use_i18n();
    let plugins = crate::plugins::use_plugins();
    let client_id = RwSignal::new(String::new());
    let client_secret = RwSignal::new(String::new());
    let waiting = RwSignal::new(false);
    // Waiting for the tab to leave for the sign-in page, not for a window.
    let leaving = RwSignal::new(false);
    let error = RwSignal::new(None::<SignInError>);
    let cancel: StoredValue<Option<Rc<Cell<bool>>>, LocalStorage> = StoredValue::new_local(None);
    // Copy, so that the click handler stays `Fn` for the view that holds it.
    let extra_scope = StoredValue::new(extra_scope);
    let here_id = StoredValue::new(format!("{id}-here"));
    // The client the user entered, if any.
    let entered_client = move || {
        Some(client_id.get_untracked().trim().to_string())
            .filter(|id| !id.is_empty())
            .map(|id| Client {
                client_id: id,
                client_secret: Some(client_secret.get_untracked().trim().to_string())
                    .filter(|s| !s.is_empty()),
                token_auth: client::TokenAuth::None,
            })
    };
    let start = move |_| {
        if waiting.get_untracked() {
            return;
        }
        // Opened by the click itself: later, the browser would block it.
        let popup = match oauth::open_window() {
            Ok(popup) => popup,
            Err(problem) => {
                error.set(Some(problem));
                // The way on (this tab) is under the keyboard once shown.
                request_animation_frame(move || crate::browser::focus_by_id(&here_id.get_value()));
                return;
            }
        };
        let entered = entered_client();
        let cancelled = Rc::new(Cell::new(false));
        cancel.set_value(Some(cancelled.clone()));
        error.set(None);
        waiting.set(true);
        let server_url = server_url.get_untracked();
        let headers = headers.get_untracked();
        let extra_scope = extra_scope.get_value();
        spawn_local(async move {
            let outcome =
                oauth::sign_in(popup, server_url, headers, extra_scope, entered, cancelled).await;
            match outcome {
                Ok(session) => on_session.run(session),
                // The user knows: nothing to say.
                Err(SignInError::Cancelled) => error.set(None),
                Err(problem) => error.set(Some(problem)),
            }
            waiting.set(false);
        });
    };
    // The window was blocked: the tab itself goes, and the Tools tab finishes the
    // sign-in when it is back (`come_back`).
    let here = move |_| {
        let Some(then) = then.get_untracked() else {
            return;
        };
        if waiting.get_untracked() {
            return;
        }
        error.set(None);
        waiting.set(true);
        leaving.set(true);
        let (server_url, headers) = (server_url.get_untracked(), headers.get_untracked());
        let (extra_scope, entered) = (extra_scope.get_value(), entered_client());
        spawn_local(async move {
            let problem =
                oauth::sign_in_here(plugins, server_url, headers, extra_scope, entered, then).await;
            error.set(Some(problem));
            leaving.set(false);
            waiting.set(false);
        });
    };
    let blocked = move || error.with(|e| *e == Some(SignInError::PopupBlocked));
    let stop = move |_| {
        if let Some(flag) = cancel.get_value() {
            flag.set(true);
        }
    };
    let message = move || error.with(|e| e.as_ref().map(|e| sign_in_message(i18n, e)));
    let (start_id, own_id) = (format!("{id}-start"), format!("{id}-own"));
    view! {
        <div class="plugin-sign-in" id=id.clone() aria-busy=move || waiting.get().to_string()>
            <div class="plugin-sign-in__row">
                <Show
                    when=move || waiting.get()
                    fallback=move || view! {
                        <button type="button" class="button button--primary button--small" id=start_id.clone() on:click=start>
                            {tr(Key::PluginsSignIn)}
                        </button>
                        <Show when=blocked>
                            <button type="button" class="button button--secondary button--small" id=here_id.get_value() on:click=here>
                                {tr(Key::PluginsSignInHere)}
                            </button>
                        </Show>
                    }
                >
                    <span class="plugin-sign-in__waiting" role="status">
                        {move || i18n.t(if leaving.get() { Key::PluginsSignInLeaving } else { Key::PluginsSignInWaiting })}
                    </span>
                    <Show when=move || !leaving.get()>
                        <button type="button" class="button button--secondary button--small" on:click=stop>
                            {tr(Key::ProviderCancel)}
                        </button>
                    </Show>
                </Show>
            </div>
            <p class="field__error" role="alert">{message}</p>
            <details class="plugin-sign-in__own" id=own_id.clone()>
                <summary>{tr(Key::PluginsSignInOwnClient)}</summary>
                <Field
                    id=format!("{own_id}-client-id")
                    label=tr(Key::PluginsSignInClientId)
                    value=client_id
                    on_input=move |v| client_id.set(v)
                />
                <Field
                    id=format!("{own_id}-client-secret")
                    label=tr(Key::PluginsSignInClientSecret)
                    control=Control::Password
                    value=client_secret
                    on_input=move |v| client_secret.set(v)
                />
            </details>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_a_step_fails_for_has_its_own_sentence() {
        let reasons = hearth_core::plugin::oauth::REASONS;
        let keys: std::collections::BTreeSet<&str> = reasons
            .iter()
            .map(|r| oauth_key(&OauthError::from_reason(r, String::new(), String::new())).id())
            .collect();
        assert_eq!(keys.len(), reasons.len(), "{keys:?}");
    }
}
