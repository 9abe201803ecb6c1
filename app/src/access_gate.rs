//! The password screen of a protected deployment. On start the app asks the edge whether
//! a password is required and whether this browser already has a session (an HttpOnly
//! cookie the app never sees); if one is needed, the password screen replaces the shell
//! until the edge accepts a password. An unreachable edge does not lock the user out of
//! the data in their own browser.

use hearth_core::api::{ErrorCode, InvalidPasswordDetails, LockedDetails};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::edge::{self, EdgeError};
use crate::i18n::{I18n, Key, tr, use_i18n};
use crate::ui::safe_image::SafeImage;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gate {
    Checking,
    Open,
    Closed,
}

/// Shows `children` once the deployment lets this browser in.
#[component]
pub fn AccessGate(children: ChildrenFn) -> impl IntoView {
    let gate = RwSignal::new(Gate::Checking);
    spawn_local(async move {
        let closed = matches!(
            edge::fetch_access_session().await,
            Ok(session) if session.required && !session.authenticated
        );
        gate.set(if closed { Gate::Closed } else { Gate::Open });
    });
    move || match gate.get() {
        Gate::Checking => view! {
            <div class="boot" aria-hidden="true">
                <span class="boot__mark"></span>
            </div>
        }
        .into_any(),
        Gate::Open => children().into_any(),
        Gate::Closed => crate::ui::lazy::lazy_view(password_screen(gate), "boot").into_any(),
    }
}

/// The password screen, in its own lazily loaded chunk: most deployments have none.
#[lazy]
fn password_screen(gate: RwSignal<Gate>) -> AnyView {
    // Shown once its stylesheet is here (`crate::ui::lazy_styles`).
    let styled = crate::ui::lazy_styles::ready(crate::ui::lazy_styles::Sheet::Panels);
    view! {
        <Show when=move || styled.get()>
            <PasswordScreen on_unlocked=move || gate.set(Gate::Open) />
        </Show>
    }
    .into_any()
}

/// A locale-formatted local time for an RFC 3339 instant.
fn local_time(rfc3339: &str, i18n: &I18n) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_str(rfc3339));
    date.to_locale_string(i18n.locale().tag(), &wasm_bindgen::JsValue::UNDEFINED)
        .as_string()
        .unwrap_or_else(|| rfc3339.to_string())
}

fn message_for(error: &EdgeError, i18n: &I18n) -> String {
    match error {
        EdgeError::Api(api) if api.code == ErrorCode::AccessPasswordInvalid => {
            let remaining = api
                .details
                .clone()
                .and_then(|d| serde_json::from_value::<InvalidPasswordDetails>(d).ok())
                .map_or(0, |d| d.remaining_attempts);
            i18n.t_with(Key::AccessInvalid, &[("count", &remaining.to_string())])
        }
        EdgeError::Api(api) if api.code == ErrorCode::AccessPasswordLocked => {
            let until = api
                .details
                .clone()
                .and_then(|d| serde_json::from_value::<LockedDetails>(d).ok())
                .map(|d| local_time(&d.locked_until, i18n))
                .unwrap_or_default();
            i18n.t_with(Key::AccessLocked, &[("time", &until)])
        }
        _ => i18n.t(Key::AccessUnreachable),
    }
}

#[component]
fn PasswordScreen(on_unlocked: impl Fn() + Copy + Send + Sync + 'static) -> impl IntoView {
    let i18n = use_i18n();
    let password = RwSignal::new(String::new());
    let pending = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);

    let submit = move |event: SubmitEvent| {
        event.prevent_default();
        if pending.get_untracked() {
            return;
        }
        let typed = password.get_untracked();
        if typed.is_empty() {
            error.set(Some(i18n.t(Key::AccessEmpty)));
            return;
        }
        pending.set(true);
        error.set(None);
        spawn_local(async move {
            let outcome = edge::verify_access_password(typed).await;
            pending.set(false);
            match outcome {
                Ok(session) if session.authenticated => on_unlocked(),
                Ok(_) => error.set(Some(i18n.t(Key::AccessUnreachable))),
                Err(failure) => {
                    password.set(String::new());
                    error.set(Some(message_for(&failure, &i18n)));
                }
            }
        });
    };

    view! {
        <main class="access">
            <form class="access__card" on:submit=submit aria-labelledby="access-title" novalidate>
                <SafeImage src="/icons/icon.svg" alt="" class="access__mark" />
                <h1 class="access__title" id="access-title">{tr(Key::AccessTitle)}</h1>
                <p class="access__body">{tr(Key::AccessBody)}</p>
                <label class="field__label" for="access-password">{tr(Key::AccessPassword)}</label>
                <input
                    id="access-password"
                    class="input"
                    type="password"
                    autocomplete="current-password"
                    autofocus
                    aria-invalid=move || error.get().is_some().to_string()
                    aria-describedby="access-error"
                    prop:value=move || password.get()
                    on:input=move |event| password.set(event_target_value(&event))
                />
                <p class="access__error" id="access-error" role="alert">
                    {move || error.get()}
                </p>
                <button
                    type="submit"
                    class="button button--primary access__submit"
                    aria-busy=move || pending.get().to_string()
                    disabled=move || pending.get()
                >
                    {move || if pending.get() { i18n.t(Key::AccessChecking) } else { i18n.t(Key::AccessSubmit) }}
                </button>
            </form>
        </main>
    }
}
