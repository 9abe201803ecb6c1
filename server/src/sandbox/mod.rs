//! The artifact sandbox page (`GET /sandbox/artifact`): where the app previews an HTML,
//! SVG or JavaScript code block from a reply. The page (`artifact.html`) and its script
//! are one file with no request of their own; its policy replaces the app's:
//! - `sandbox allow-scripts`: an opaque origin even when opened on its own, so nothing
//!   in it reaches the app's storage, cookies or keys; no forms, popups, top navigation
//!   or modal prompts;
//! - every fetch directive `'none'` but inline scripts and styles, `data:` and `blob:`
//!   images and media, and `blob:` workers (the JavaScript runner): no request leaves;
//! - `frame-ancestors 'self'`: only the app may frame it.

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// Where the page is served.
pub const PATH: &str = "/sandbox/artifact";

const PAGE: &str = include_str!("artifact.html");

/// The page's Content-Security-Policy.
pub const CSP: &str = "sandbox allow-scripts; default-src 'none'; \
     script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; \
     media-src data: blob:; font-src data:; worker-src blob:; connect-src 'none'; \
     frame-src 'none'; child-src blob:; object-src 'none'; form-action 'none'; \
     base-uri 'none'; frame-ancestors 'self'";

/// The page itself.
pub async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        PAGE,
    )
        .into_response()
}

/// The page's security headers, in place of the app's (set after the app's, so they
/// replace them; the app's `X-Frame-Options: DENY` would stop the app framing it).
pub fn apply_headers(headers: &mut HeaderMap) {
    headers.remove(header::X_FRAME_OPTIONS);
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (
            HeaderName::from_static("permissions-policy"),
            "camera=(), geolocation=(), microphone=(), payment=(), usb=(), clipboard-read=(), clipboard-write=()",
        ),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_refuses_every_request_and_keeps_the_origin_opaque() {
        let directives: Vec<&str> = CSP.split(';').map(str::trim).collect();
        for needed in [
            "sandbox allow-scripts",
            "default-src 'none'",
            "connect-src 'none'",
            "form-action 'none'",
            "frame-ancestors 'self'",
            "base-uri 'none'",
        ] {
            assert!(directives.contains(&needed), "{needed} missing from {CSP}");
        }
        assert!(!CSP.contains("allow-same-origin"));
        for directive in &directives {
            assert!(
                !directive.contains("http") && !directive.contains('*'),
                "{directive}"
            );
        }
    }

    #[test]
    fn the_page_makes_no_request_of_its_own() {
        for reference in ["src=", "href=", "url(", "@import", "fetch("] {
            assert!(!PAGE.contains(reference), "{reference} in the sandbox page");
        }
        assert!(PAGE.contains("sandbox\", \"allow-scripts\""));
    }
}
