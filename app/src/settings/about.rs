//! Settings › About: the app's and the edge's versions, the deployment mode, and what
//! Hearth does with the user's data.

use hearth_core::api::DeploymentMode;
use leptos::prelude::*;

use crate::edge;
use crate::i18n::{Key, tr, use_i18n};

/// The About tab.
#[component]
pub fn AboutPanel() -> impl IntoView {
    let i18n = use_i18n();
    let config = LocalResource::new(edge::fetch_config);
    let edge_rows = move || match config.get() {
        None => {
            view! { <p class="field__hint" role="status">{tr(Key::HealthChecking)}</p> }.into_any()
        }
        Some(Err(error)) => {
            let reason = error.to_string();
            view! {
                <p class="notice notice--warning" role="status">
                    {move || i18n.t_with(Key::AboutEdgeUnreachable, &[("reason", &reason)])}
                </p>
            }
            .into_any()
        }
        Some(Ok(config)) => {
            let mode_key = match config.deployment.mode {
                DeploymentMode::Local => Key::AboutModeLocal,
                DeploymentMode::Hosted => Key::AboutModeHosted,
            };
            view! {
                <div class="facts__row">
                    <dt>{tr(Key::AboutEdgeVersion)}</dt>
                    <dd class="facts__mono" data-testid="edge-version">{config.version.clone()}</dd>
                </div>
                <div class="facts__row">
                    <dt>{tr(Key::AboutMode)}</dt>
                    <dd>{tr(mode_key)}</dd>
                </div>
            }
            .into_any()
        }
    };
    view! {
        <div class="settings-section">
            <dl class="facts">
                <div class="facts__row">
                    <dt>{tr(Key::AboutAppVersion)}</dt>
                    <dd class="facts__mono">{env!("CARGO_PKG_VERSION")}</dd>
                </div>
                {edge_rows}
            </dl>
            <p class="settings-section__text">{tr(Key::AboutPrivacy)}</p>
        </div>
    }
}
