//! The checks a request passes before any route runs. Every request, the app's files
//! included, must name one of the edge's hosts ([`host_guard`]: 421 `HOST_NOT_ALLOWED`
//! otherwise, the DNS rebinding defence of [`crate::allowed_hosts`]). Then every
//! `/api/*` request ([`api_guard`]):
//! 1. **Same origin for state changes.** A request with a method other than GET, HEAD or
//!    OPTIONS must not come from another site: `Sec-Fetch-Site`, when sent, must be
//!    `same-origin` or `none`, and `Origin`, when sent, must be one of the edge's allowed
//!    origins ([`crate::allowed_hosts`]), never merely equal to the request's own `Host`
//!    (which a rebinding page controls). Browsers send at least one of them on every
//!    cross-site POST; tools like curl send neither.
//! 2. **Rate limits** per route family and client ([`crate::rate_limit`]); 429 with
//!    `Retry-After` over the limit, 503 when the shared store does not answer.
//! 3. **The password gate.** With `ACCESS_PASSWORD` set, every route except
//!    health, config and the gate's own needs a valid session cookie.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, OriginalUri, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hearth_core::api::{ApiError, DeploymentMode, ErrorCode};
use serde_json::json;

use crate::access;
use crate::allowed_hosts::AllowedHosts;
use crate::api::ApiErrorResponse;
use crate::rate_limit::{self, Family};
use crate::state::AppState;

/// Routes open without a session.
const OPEN_ROUTES: [&str; 4] = [
    "/api/health",
    "/api/config",
    "/api/access/verify",
    "/api/access/session",
];

/// Whether a state-changing request comes from one of the edge's own origins (or from no
/// browser page).
pub fn same_origin(method: &Method, headers: &HeaderMap, allowed: &AllowedHosts) -> bool {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return true;
    }
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(site) = text("sec-fetch-site")
        && !matches!(site, "same-origin" | "none")
    {
        return false;
    }
    match text(header::ORIGIN.as_str()) {
        None => true,
        Some(origin) => allowed.allows_origin(origin),
    }
}

/// A 429 (over the limit) or 503 (store down) for this request, if it gets one. Health
/// is exempt: it must be able to report a broken store.
async fn limited(state: &AppState, path: &str, identity: &str) -> Option<Response> {
    if path == "/api/health" {
        return None;
    }
    let family = Family::of(path);
    match rate_limit::check(&state.kv, family, identity).await {
        Ok(None) => None,
        Ok(Some(wait)) => Some(
            ApiErrorResponse(
                ApiError::new(ErrorCode::RateLimited, "Too many requests; slow down")
                    .with_retry_after(wait.as_secs().max(1))
                    .with_details(json!({ "family": family.name(), "limit": family.limit() })),
            )
            .into_response(),
        ),
        Err(error) => {
            tracing::error!(%error, "rate-limit store unavailable");
            Some(
                ApiErrorResponse(ApiError::new(
                    ErrorCode::ServiceUnavailable,
                    "The deployment's shared store is unavailable; try again shortly",
                ))
                .into_response(),
            )
        }
    }
}

/// A 401 when the deployment needs a session this request does not carry.
fn gate_refusal(state: &AppState, path: &str, headers: &HeaderMap) -> Option<Response> {
    let gate = state.access.as_ref()?;
    let open = OPEN_ROUTES.contains(&path);
    (!open && access::session_of(gate, headers).is_none()).then(|| {
        ApiErrorResponse(ApiError::new(
            ErrorCode::AccessRequired,
            "This deployment needs its access password",
        ))
        .into_response()
    })
}

/// The `/api` guard middleware.
pub async fn api_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if !same_origin(request.method(), request.headers(), &state.allowed_hosts) {
        return ApiErrorResponse(ApiError::new(
            ErrorCode::CsrfOriginBlocked,
            "Cross-origin requests may not change anything here",
        ))
        .into_response();
    }
    // Inside the nested `/api` router the URI has lost its prefix; the original has it.
    let path = request.extensions().get::<OriginalUri>().map_or_else(
        || request.uri().path().to_string(),
        |uri| uri.path().to_string(),
    );

    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |info| info.0.ip());
    let ip = rate_limit::client_ip(peer, request.headers(), &state.trusted_proxies);
    let hosted = state.config.deployment.mode == DeploymentMode::Hosted;
    let (identity, new_cookie) = match rate_limit::client_id(request.headers(), &state.signer) {
        Some(id) if hosted => (format!("client:{id}"), None),
        _ if hosted => (
            format!("ip:{ip}"),
            Some(rate_limit::new_client_cookie(&state.signer)),
        ),
        _ => (format!("ip:{ip}"), None),
    };
    let mut response = match limited(&state, &path, &identity).await {
        Some(refusal) => refusal,
        None => match gate_refusal(&state, &path, request.headers()) {
            Some(refusal) => refusal,
            None => next.run(request).await,
        },
    };
    if let Some(cookie) = new_cookie {
        let value = format!(
            "{}={cookie}; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=31536000",
            rate_limit::CLIENT_COOKIE
        );
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

/// The first host a request names that is not allowed (`Some(None)` when it names
/// none), or `None` when every name it carries is allowed: HTTP/2's `:authority` and an
/// absolute request target (both in the URI), and `Host`.
fn refused_host(allowed: &AllowedHosts, request: &Request) -> Option<Option<String>> {
    let authority = request.uri().authority().map(|a| a.as_str().to_string());
    let host = request
        .headers()
        .get(header::HOST)
        .map(|value| value.to_str().map(str::to_string).unwrap_or_default());
    if authority.is_none() && host.is_none() {
        return Some(None);
    }
    [authority, host]
        .into_iter()
        .flatten()
        .find(|name| !allowed.allows_host(name))
        .map(Some)
}

/// The middleware in front of every route: a request for a host that is not ours is
/// answered 421 before anything else runs.
pub async fn host_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match refused_host(&state.allowed_hosts, &request) {
        None => next.run(request).await,
        Some(host) => ApiErrorResponse(
            ApiError::new(
                ErrorCode::HostNotAllowed,
                "This server does not answer for that host name. If you reach it through \
                 another name or port, the operator can add it to HEARTH_ALLOWED_HOSTS.",
            )
            .with_details(json!({ "host": host.map(|h| h.chars().take(255).collect::<String>()) })),
        )
        .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn same_origin_rules() {
        let allowed = AllowedHosts::new(([127, 0, 0, 1], 8080).into(), &[], &[]).unwrap();
        let same_origin =
            |method: &Method, headers: &HeaderMap| super::same_origin(method, headers, &allowed);
        let post = Method::POST;
        assert!(same_origin(
            &Method::GET,
            &headers(&[("sec-fetch-site", "cross-site")])
        ));
        assert!(same_origin(&post, &headers(&[])), "non-browser clients");
        assert!(same_origin(
            &post,
            &headers(&[
                ("origin", "http://127.0.0.1:8080"),
                ("host", "127.0.0.1:8080"),
                ("sec-fetch-site", "same-origin")
            ])
        ));
        assert!(!same_origin(
            &post,
            &headers(&[("sec-fetch-site", "cross-site")])
        ));
        assert!(!same_origin(
            &post,
            &headers(&[("sec-fetch-site", "same-site")])
        ));
        assert!(!same_origin(
            &post,
            &headers(&[
                ("origin", "http://evil.example"),
                ("host", "127.0.0.1:8080")
            ])
        ));
        assert!(!same_origin(
            &post,
            &headers(&[("origin", "null"), ("host", "127.0.0.1:8080")])
        ));
        assert!(!same_origin(
            &post,
            &headers(&[
                ("origin", "http://127.0.0.1:8080.evil.example"),
                ("host", "127.0.0.1:8080")
            ])
        ));
        // A rebinding page: its Origin matches its own Host, which is not ours.
        assert!(!same_origin(
            &post,
            &headers(&[
                ("origin", "http://attacker.example:8080"),
                ("host", "attacker.example:8080"),
                ("sec-fetch-site", "same-origin")
            ])
        ));
    }
}
