//! Settings › Health: `GET /api/health`, one row per edge service with its state in words
//! a person can act on, and a way to check again.

use hearth_core::api::{HealthReport, ServiceStatus};
use leptos::prelude::*;

use crate::edge;
use crate::i18n::{Key, tr, use_i18n};

fn service_label(name: &str) -> Option<Key> {
    Some(match name {
        "accessPassword" => Key::HealthServiceAccessPassword,
        "rateLimitStore" => Key::HealthServiceStore,
        "byok" => Key::HealthServiceByok,
        "search" => Key::HealthServiceSearch,
        "voice" => Key::HealthServiceVoice,
        "documentParseJobStore" => Key::HealthServiceParseJobs,
        "app" => Key::HealthServiceApp,
        _ => return None,
    })
}

fn status_text(status: ServiceStatus) -> Key {
    match status {
        ServiceStatus::Available => Key::HealthStatusAvailable,
        ServiceStatus::MissingKey => Key::HealthStatusMissingKey,
        ServiceStatus::PolicyBlocked => Key::HealthStatusPolicyBlocked,
        ServiceStatus::UpstreamFailed => Key::HealthStatusUpstreamFailed,
        ServiceStatus::LocalOnly => Key::HealthStatusLocalOnly,
        ServiceStatus::Unconfigured => Key::HealthStatusUnconfigured,
    }
}

fn status_class(status: ServiceStatus) -> &'static str {
    match status {
        ServiceStatus::Available => "health-row health-row--ok",
        ServiceStatus::LocalOnly | ServiceStatus::Unconfigured => "health-row health-row--info",
        _ => "health-row health-row--problem",
    }
}

/// The Health tab.
#[component]
pub fn HealthPanel() -> impl IntoView {
    let i18n = use_i18n();
    let report = LocalResource::new(edge::fetch_health);
    let rows = move |report: HealthReport| {
        report
            .services
            .into_iter()
            .map(|(name, health)| {
                let label = service_label(&name);
                let code = health.code.clone();
                let data_service = name.clone();
                view! {
                    <li class=status_class(health.status) data-service=data_service>
                        <span class="health-row__name">
                            {move || label.map(|k| i18n.t(k)).unwrap_or_else(|| name.clone())}
                        </span>
                        <span class="health-row__text">{tr(status_text(health.status))}</span>
                        <code class="health-row__code">{code}</code>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <div class="settings-section">
            <div class="providers__head">
                <button type="button" class="button button--secondary" id="health-refresh"
                    on:click=move |_| report.refetch()>
                    {tr(Key::HealthRefresh)}
                </button>
            </div>
            {move || match report.get() {
                None => view! { <p class="field__hint" role="status">{tr(Key::HealthChecking)}</p> }.into_any(),
                Some(Err(error)) => {
                    let reason = error.to_string();
                    view! {
                        <p class="notice notice--warning" role="alert">
                            {move || i18n.t_with(Key::HealthUnreachable, &[("reason", &reason)])}
                        </p>
                    }
                    .into_any()
                }
                Some(Ok(report)) => view! { <ul class="health-list">{rows(report)}</ul> }.into_any(),
            }}
        </div>
    }
}
