//! `POST /api/access/verify` and `GET /api/access/session`: the password gate's routes.

use std::net::SocketAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use hearth_core::api::{
    AccessSession, AccessVerifyRequest, ApiError, DeploymentMode, ErrorCode,
    InvalidPasswordDetails, LockedDetails,
};

use super::error::ApiErrorResponse;
use super::json::ApiJson;
use crate::access::{self, Attempt, COOKIE, SESSION_LIFETIME};
use crate::state::AppState;

/// Password bodies are tiny; anything bigger is not a password.
const VERIFY_BODY_LIMIT: usize = 4096;

fn rfc3339(seconds_since_epoch: u64) -> String {
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(seconds_since_epoch))
        .to_string()
}

pub(super) async fn verify(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    ApiJson(request): ApiJson<AccessVerifyRequest, VERIFY_BODY_LIMIT>,
) -> Response {
    let Some(gate) = &state.access else {
        return Json(AccessSession {
            required: false,
            authenticated: true,
            expires_at: None,
        })
        .into_response();
    };
    let attempt = match gate.attempt(peer.ip(), &request.password).await {
        Ok(attempt) => attempt,
        Err(error) => {
            tracing::error!(%error, "access gate store unavailable");
            return ApiErrorResponse(ApiError::new(
                ErrorCode::ServiceUnavailable,
                "The deployment's shared store is unavailable; try again shortly",
            ))
            .into_response();
        }
    };
    match attempt {
        Attempt::Granted { token, expires_at } => {
            let secure = if state.config.deployment.mode == DeploymentMode::Hosted {
                "; Secure"
            } else {
                ""
            };
            let cookie = format!(
                "{COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
                SESSION_LIFETIME.as_secs()
            );
            let mut response = Json(AccessSession {
                required: true,
                authenticated: true,
                expires_at: Some(rfc3339(expires_at)),
            })
            .into_response();
            if let Ok(value) = HeaderValue::from_str(&cookie) {
                response.headers_mut().insert(header::SET_COOKIE, value);
            }
            response
        }
        Attempt::Denied { remaining } => ApiErrorResponse(
            ApiError::new(
                ErrorCode::AccessPasswordInvalid,
                "The password is not correct",
            )
            .with_details(
                serde_json::to_value(InvalidPasswordDetails {
                    remaining_attempts: remaining,
                })
                .unwrap_or_default(),
            ),
        )
        .into_response(),
        Attempt::Locked { retry_after } => {
            let until = SystemTime::now() + retry_after;
            ApiErrorResponse(
                ApiError::new(
                    ErrorCode::AccessPasswordLocked,
                    "Too many wrong passwords; try again later",
                )
                .with_retry_after(retry_after.as_secs().max(1))
                .with_details(
                    serde_json::to_value(LockedDetails {
                        locked_until: humantime::format_rfc3339_seconds(until).to_string(),
                    })
                    .unwrap_or_default(),
                ),
            )
            .into_response()
        }
    }
}

pub(super) async fn session(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Json<AccessSession> {
    Json(match &state.access {
        None => AccessSession {
            required: false,
            authenticated: true,
            expires_at: None,
        },
        Some(gate) => {
            let expiry = access::session_of(gate, &headers);
            AccessSession {
                required: true,
                authenticated: expiry.is_some(),
                expires_at: expiry.map(rfc3339),
            }
        }
    })
}
