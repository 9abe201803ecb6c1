//! The end of a sign-in that took the whole tab to the authorization server (the browser
//! blocked the login window): the callback page sends the tab back to Settings › Tools
//! with the answer in its session storage, and this finishes it once, when the tab opens:
//! the code is exchanged, then the server is installed or the session kept, as the
//! sign-in said before it left. A status says so while it runs; a failure stays in view,
//! in the user's language.

use hearth_core::plugin::oauth::away::AfterSignIn;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::install::announce_installed;
use super::installed::keep_session;
use super::sign_in::sign_in_message;
use crate::i18n::{Key, tr, use_i18n};
use crate::plugins::{oauth, use_plugins};
use crate::ui::toast::use_toasts;

/// Where the returning sign-in stands.
#[derive(Debug, Clone, PartialEq)]
enum Finishing {
    /// Nothing came back.
    Idle,
    /// The code is being exchanged, the server installed or the session kept.
    Running,
    /// It failed, for this reason (in the user's language).
    Failed(String),
}

/// Finishes the sign-in this tab came back from, if it did.
#[component]
pub(super) fn ComeBack() -> impl IntoView {
    let (plugins, toasts, i18n) = (use_plugins(), use_toasts(), use_i18n());
    let finishing = RwSignal::new(if oauth::has_come_back() {
        Finishing::Running
    } else {
        Finishing::Idle
    });
    if finishing.get_untracked() == Finishing::Running {
        spawn_local(async move {
            let outcome = match oauth::come_back(plugins).await {
                None => Ok(()),
                Some(Err(problem)) => Err(sign_in_message(i18n, &problem)),
                Some(Ok((AfterSignIn::Keep { plugin_id }, session))) => {
                    keep_session((plugins, toasts, i18n), &plugin_id, &session).await;
                    Ok(())
                }
                Some(Ok((AfterSignIn::Install(request), session))) => plugins
                    .install_signed_in(*request, &session)
                    .await
                    .map(|installed| announce_installed(toasts, i18n, &installed.registered))
                    .map_err(|reason| reason.to_string()),
            };
            finishing.set(match outcome {
                Ok(()) => Finishing::Idle,
                Err(reason) => Finishing::Failed(reason),
            });
        });
    }
    move || {
        match finishing.get() {
        Finishing::Idle => None,
        Finishing::Running => Some(
            view! {
                <p class="notice" id="plugin-sign-in-return" role="status" aria-busy="true">
                    {tr(Key::PluginsSignInReturning)}
                </p>
            }
            .into_any(),
        ),
        Finishing::Failed(reason) => Some(
            view! {
                <p class="notice notice--warning" id="plugin-sign-in-return" role="alert" data-failed="">
                    {reason}
                </p>
            }
            .into_any(),
        ),
    }
    }
}
