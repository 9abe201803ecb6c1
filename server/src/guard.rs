//! The checks every `/api/*` request passes before its route runs:
//! 1. **Same origin for state changes.** A request with a method other than GET, HEAD or
//!    OPTIONS must not come from another site: `Sec-Fetch-Site`, when sent, must be
//!    `same-origin` or `none`, and `Origin`, when sent, must match `Host`. Browsers send
//!    at least one of them on every cross-site POST; tools like curl send neither.
//! 2. **The password gate.** With `ACCESS_PASSWORD` set, every route except
//!    health, config and the gate's own needs a valid session cookie.

use axum::extract::{OriginalUri, Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hearth_core::api::{ApiError, ErrorCode};

use crate::api::ApiErrorResponse;
use crate::app::AppState;

/// Routes open without a session.
const OPEN_ROUTES: [&str; 4] = [
    "/api/health",
    "/api/config",
    "/api/access/verify",
    "/api/access/session",
];

/// Whether a state-changing request comes from this origin (or from no browser page).
pub fn same_origin(method: &Method, headers: &HeaderMap) -> bool {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return true;
    }
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(site) = text("sec-fetch-site")
        && !matches!(site, "same-origin" | "none")
    {
        return false;
    }
    match (text(header::ORIGIN.as_str()), text(header::HOST.as_str())) {
        (None, _) => true,
        (Some(origin), Some(host)) => {
            origin.split_once("://").is_some_and(|(scheme, authority)| {
                matches!(scheme, "http" | "https") && authority.eq_ignore_ascii_case(host)
            })
        }
        (Some(_), None) => false,
    }
}

/// The `/api` guard middleware.
pub async fn api_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if !same_origin(request.method(), request.headers()) {
        return ApiErrorResponse(ApiError::new(
            ErrorCode::CsrfOriginBlocked,
            "Cross-origin requests may not change anything here",
        ))
        .into_response();
    }
    if let Some(gate) = &state.access {
        // Inside the nested `/api` router the URI has lost its prefix; the original has it.
        let path = request.extensions().get::<OriginalUri>().map_or_else(
            || request.uri().path().to_string(),
            |uri| uri.path().to_string(),
        );
        let open = OPEN_ROUTES.contains(&path.as_str());
        if !open && crate::api::session_of(gate, request.headers()).is_none() {
            return ApiErrorResponse(ApiError::new(
                ErrorCode::AccessRequired,
                "This deployment needs its access password",
            ))
            .into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn same_origin_rules() {
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
    }
}
