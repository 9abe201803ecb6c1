//! The sandbox pages, each served from its own route with a policy that replaces the
//! app's, framed by the app with `sandbox="allow-scripts"`:
//! - [`ARTIFACT`] (`GET /sandbox/artifact`, `artifact.html`): where the app previews an
//!   HTML, SVG or JavaScript code block from a reply;
//! - [`DIAGRAM`] (`GET /sandbox/diagram`, `diagram.html`): where the app has Mermaid
//!   render a reply's diagrams to SVG, which it then shows as images;
//! - [`PICTURE`] (`GET /sandbox/picture`, `picture.html`): where the app has a reply, as
//!   it shows it, drawn as a PNG ("Save as PNG");
//! - [`APP`] (`GET /sandbox/app`, `app.html`): the proxy in which an MCP App's page (a
//!   tool's `ui://` resource) runs, in a nested frame, passing its JSON-RPC messages to
//!   and from the app.
//!
//! Each page and its script are one file with no request of their own. Their policies:
//! - `sandbox allow-scripts`: an opaque origin even when opened on its own, so nothing
//!   in it reaches the app's storage, cookies or keys; no forms, popups, top navigation
//!   or modal prompts;
//! - every fetch directive `'none'` but inline scripts and styles, `data:` and `blob:`
//!   images (and, for the artifact page, media and `blob:` workers: the JavaScript
//!   runner; for the diagram page, `blob:` scripts: the Mermaid the app posts it): no
//!   request leaves;
//! - `frame-ancestors 'self'`: only the app may frame them.

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// A sandbox page: where it is served, what it is, and its Content-Security-Policy.
#[derive(Debug, Clone, Copy)]
pub struct Page {
    /// The route.
    pub path: &'static str,
    /// The page, one self-contained file.
    pub html: &'static str,
    /// Its Content-Security-Policy.
    pub csp: &'static str,
}

/// The artifact preview page.
pub const ARTIFACT: Page = Page {
    path: "/sandbox/artifact",
    html: include_str!("artifact.html"),
    csp: "sandbox allow-scripts; default-src 'none'; \
     script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; \
     media-src data: blob:; font-src data:; worker-src blob:; connect-src 'none'; \
     frame-src 'none'; child-src blob:; object-src 'none'; form-action 'none'; \
     base-uri 'none'; frame-ancestors 'self'",
};

/// The diagram rendering page.
pub const DIAGRAM: Page = Page {
    path: "/sandbox/diagram",
    html: include_str!("diagram.html"),
    csp: "sandbox allow-scripts; default-src 'none'; \
     script-src 'unsafe-inline' blob:; style-src 'unsafe-inline'; img-src data: blob:; \
     font-src data:; worker-src 'none'; connect-src 'none'; frame-src 'none'; \
     child-src 'none'; object-src 'none'; form-action 'none'; base-uri 'none'; \
     frame-ancestors 'self'",
};

/// The page that draws a reply as a PNG.
pub const PICTURE: Page = Page {
    path: "/sandbox/picture",
    html: include_str!("picture.html"),
    csp: "sandbox allow-scripts; default-src 'none'; \
     script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; \
     font-src data:; worker-src 'none'; connect-src 'none'; frame-src 'none'; \
     child-src 'none'; object-src 'none'; form-action 'none'; base-uri 'none'; \
     frame-ancestors 'self'",
};

/// The MCP Apps proxy page. The page it shows inherits this policy: whatever origins
/// an app's resource asks for (`_meta.ui.csp`), it reaches none.
pub const APP: Page = Page {
    path: "/sandbox/app",
    html: include_str!("app.html"),
    csp: "sandbox allow-scripts allow-forms; default-src 'none'; \
     script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; \
     media-src data: blob:; font-src data:; worker-src blob:; connect-src 'none'; \
     frame-src 'none'; child-src blob:; object-src 'none'; form-action 'none'; \
     base-uri 'none'; frame-ancestors 'self'",
};

/// Every sandbox page.
pub const PAGES: [Page; 4] = [ARTIFACT, DIAGRAM, PICTURE, APP];

/// The sandbox page served at `path`, if any.
pub fn page_at(path: &str) -> Option<Page> {
    PAGES.into_iter().find(|page| page.path == path)
}

impl Page {
    /// The page itself.
    pub fn respond(self) -> Response {
        (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            self.html,
        )
            .into_response()
    }

    /// The page's security headers, in place of the app's (set after the app's, so they
    /// replace them; the app's `X-Frame-Options: DENY` would stop the app framing it).
    pub fn apply_headers(self, headers: &mut HeaderMap) {
        headers.remove(header::X_FRAME_OPTIONS);
        for (name, value) in [
            (header::CONTENT_SECURITY_POLICY, self.csp),
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_policy_refuses_every_request_and_keeps_the_origin_opaque() {
        for page in PAGES {
            let csp = page.csp;
            let directives: Vec<&str> = csp.split(';').map(str::trim).collect();
            // Scripts, and for the app page forms that its scripts handle (sending one
            // anywhere is refused by `form-action 'none'`): nothing else.
            let sandbox = directives
                .iter()
                .find(|d| d.starts_with("sandbox "))
                .expect("a sandbox directive");
            let flags: Vec<&str> = sandbox.split_whitespace().skip(1).collect();
            assert!(flags.contains(&"allow-scripts"), "{csp}");
            assert!(
                flags
                    .iter()
                    .all(|f| *f == "allow-scripts" || *f == "allow-forms"),
                "{csp}"
            );
            for needed in [
                "default-src 'none'",
                "connect-src 'none'",
                "form-action 'none'",
                "frame-ancestors 'self'",
                "base-uri 'none'",
                "object-src 'none'",
            ] {
                assert!(directives.contains(&needed), "{needed} missing from {csp}");
            }
            assert!(!csp.contains("allow-same-origin"), "{csp}");
            assert!(!csp.contains("unsafe-eval"), "{csp}");
            for directive in &directives {
                assert!(
                    !directive.contains("http")
                        && !directive.contains('*')
                        && !directive.contains("'self'")
                        || *directive == "frame-ancestors 'self'",
                    "{directive}"
                );
            }
        }
    }

    #[test]
    fn no_page_makes_a_request_of_its_own() {
        for page in PAGES {
            for reference in ["src=", "href=", "url(", "@import", "fetch("] {
                assert!(
                    !page.html.contains(reference),
                    "{reference} in {}",
                    page.path
                );
            }
            assert!(page_at(page.path).is_some());
        }
        assert!(ARTIFACT.html.contains("sandbox\", \"allow-scripts\""));
        assert!(page_at("/sandbox/other").is_none());
    }

    #[test]
    fn the_app_proxy_passes_messages_only_between_its_parent_and_its_own_frame() {
        let html = APP.html;
        assert!(html.contains("event.source === window.parent"));
        assert!(html.contains("event.source === view.contentWindow"));
        // The page runs in a frame with scripts and forms only (no same origin, no popups,
        // no navigation of the app), once.
        assert!(html.contains("\"sandbox\", \"allow-scripts allow-forms\""));
        assert!(html.contains("view === null && typeof html === \"string\""));
        // Its own sandbox-* methods are never passed on.
        assert!(html.contains("data.method.startsWith(PREFIX)) return false"));
    }

    #[test]
    fn the_diagram_page_renders_strictly_and_keeps_safety_settings_from_diagrams() {
        let html = DIAGRAM.html;
        assert!(html.contains("securityLevel: \"strict\""));
        for key in [
            "\"securityLevel\"",
            "\"htmlLabels\"",
            "\"themeCSS\"",
            "\"dompurifyConfig\"",
        ] {
            let secure = &html[html.find("const SECURE").expect("SECURE")..];
            let secure = &secure[..secure.find("];").expect("end of SECURE")];
            assert!(secure.contains(key), "{key} is not kept from diagrams");
        }
        assert!(html.contains("event.source !== window.parent"));
    }

    #[test]
    fn a_png_is_laid_on_the_app_s_surface_colours() {
        let tokens =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../style/tokens.css"))
                .expect("style/tokens.css");
        let line = tokens
            .lines()
            .find(|line| line.trim().starts_with("--color-surface:"))
            .expect("--color-surface");
        let pair = line.split_once("light-dark(").expect("light-dark").1;
        let (light, dark) = pair
            .trim_end_matches([')', ';'])
            .split_once(',')
            .expect("two colours");
        let expected = format!(
            "const SURFACE = {{ light: \"{}\", dark: \"{}\" }};",
            light.trim(),
            dark.trim()
        );
        for page in [DIAGRAM, PICTURE] {
            assert!(
                page.html.contains(&expected),
                "{expected} is not in {}",
                page.path
            );
        }
    }

    #[test]
    fn the_picture_page_keeps_only_what_a_picture_shows_and_answers_only_its_parent() {
        let html = PICTURE.html;
        assert!(html.contains("event.source !== window.parent"));
        let dropped = &html[html.find("const DROPPED").expect("DROPPED")..];
        let dropped = &dropped[..dropped.find(";\n").expect("end of DROPPED")];
        for element in [
            "script", "iframe", "object", "embed", "form", "button", "link",
        ] {
            assert!(dropped.contains(element), "{element} is kept in a picture");
        }
        // Handlers go, images are only the blobs posted or `data:` URLs, links lead nowhere.
        assert!(html.contains("name.startsWith(\"on\")"));
        assert!(html.contains("/^data:image\\/(png|jpeg|gif|webp|avif|svg\\+xml)[;,]/i"));
        assert!(html.contains("link.removeAttribute(\"href\")"));
    }
}
