//! `GET /api/health`: liveness plus the state of each service, for the app's health panel,
//! load balancers and the Docker `HEALTHCHECK`.

use std::collections::BTreeMap;
use std::time::SystemTime;

use axum::Json;
use axum::extract::State;
use hearth_core::api::{DeploymentMode, HealthReport, ServiceHealth, ServiceStatus, StoreState};

use crate::state::AppState;

pub(super) async fn health(State(state): State<AppState>) -> Json<HealthReport> {
    let mut services = BTreeMap::new();
    services.insert(
        "accessPassword".to_string(),
        if state.config.deployment.access_password_enabled {
            service(ServiceStatus::Available, "ACCESS_PASSWORD_SET")
        } else {
            service(ServiceStatus::Unconfigured, "ACCESS_PASSWORD_UNSET")
        },
    );
    let store = match (state.kv.state(), state.kv.ping().await) {
        (_, Err(_)) => service(ServiceStatus::UpstreamFailed, "SHARED_STORE_UNREACHABLE"),
        (StoreState::Shared, Ok(())) => service(ServiceStatus::Available, "REDIS_STORE"),
        (_, Ok(())) if state.config.deployment.mode == DeploymentMode::Hosted => {
            service(ServiceStatus::PolicyBlocked, "MEMORY_STORE_IN_HOSTED_MODE")
        }
        (_, Ok(())) => service(ServiceStatus::LocalOnly, "MEMORY_STORE"),
    };
    services.insert("rateLimitStore".to_string(), store.clone());
    // Parse jobs live beside the rate limits: shared with Redis, this process otherwise.
    services.insert(
        "documentParseJobStore".to_string(),
        if state.doc_parse.is_shared() {
            store
        } else {
            service(ServiceStatus::LocalOnly, "MEMORY_JOB_STORE")
        },
    );
    services.insert(
        "byok".to_string(),
        if state.byok.is_some() {
            service(ServiceStatus::Available, "BYOK_KEY_LOADED")
        } else {
            service(ServiceStatus::MissingKey, "BYOK_KEY_NOT_CONFIGURED")
        },
    );
    services.insert("search".to_string(), state.web_search.deployment().health());
    services.insert(
        "voice".to_string(),
        hearth_core::voice::health(
            state.byok.is_some(),
            !state.config.server_providers.is_empty(),
        ),
    );
    services.insert(
        "app".to_string(),
        service(ServiceStatus::Available, "DIST_LOADED"),
    );
    Json(HealthReport {
        status: "ok".to_string(),
        version: state.config.version.clone(),
        generated_at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        uptime_seconds: state.started.elapsed().as_secs(),
        deployment_mode: state.config.deployment.mode,
        services,
    })
}

fn service(status: ServiceStatus, code: &str) -> ServiceHealth {
    ServiceHealth {
        status,
        code: code.to_string(),
    }
}
