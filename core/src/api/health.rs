//! `GET /api/health`: whether the edge is up and what each of its services can do right
//! now, in words a person can act on. Never contains a secret.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::DeploymentMode;

/// The state of one service of the edge (Neo Chat's vocabulary, so dashboards carry over).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServiceStatus {
    /// Configured and working.
    Available,
    /// Needs a key that is not configured.
    MissingKey,
    /// Refused by this deployment's policy (for example a memory store in hosted mode).
    PolicyBlocked,
    /// Configured, but the upstream it depends on failed.
    UpstreamFailed,
    /// Works, but only for this process (not shared between instances).
    LocalOnly,
    /// Not configured; the feature is off.
    Unconfigured,
}

/// One service's health.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceHealth {
    /// The state.
    pub status: ServiceStatus,
    /// A stable code explaining the state, such as `MEMORY_STORE`.
    pub code: String,
}

/// The body of `GET /api/health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthReport {
    /// `ok` while the edge can serve requests.
    pub status: String,
    /// The edge's version.
    pub version: String,
    /// When this report was made, RFC 3339 in UTC.
    pub generated_at: String,
    /// Seconds since the process started.
    pub uptime_seconds: u64,
    /// Local or hosted.
    pub deployment_mode: DeploymentMode,
    /// Each service by name.
    pub services: BTreeMap<String, ServiceHealth>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn statuses_use_snake_case_names() {
        let value = serde_json::to_value(ServiceHealth {
            status: ServiceStatus::MissingKey,
            code: "BYOK_KEY_NOT_CONFIGURED".into(),
        })
        .unwrap();
        assert_eq!(
            value,
            json!({"status": "missing_key", "code": "BYOK_KEY_NOT_CONFIGURED"})
        );
        assert_eq!(
            serde_json::to_value(ServiceStatus::PolicyBlocked).unwrap(),
            json!("policy_blocked")
        );
    }
}
