//! The security headers on every response the edge sends: API answers, static files,
//! errors and 404s alike.
//!
//! The Content-Security-Policy allows scripts from this origin, WebAssembly compilation
//! (`'wasm-unsafe-eval'`, which is not `'unsafe-eval'`: it permits compiling wasm, not
//! `eval` of strings) and, by hash, exactly the inline module loader Trunk writes into
//! `index.html`. There is no `'unsafe-inline'` and no `'unsafe-eval'` anywhere.
//! `connect-src` admits HTTPS and loopback model servers, because the app calls providers
//! directly with the user's key (the edge relay is the fallback, not the default).

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};

/// The fixed set of security headers, built once at start-up.
#[derive(Debug, Clone)]
pub struct SecurityHeaders {
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl SecurityHeaders {
    /// Builds the headers; `inline_script_hashes` are CSP hash sources for the inline
    /// scripts of `index.html`.
    pub fn new(inline_script_hashes: &[String]) -> Self {
        let mut script_src = vec!["'self'", "'wasm-unsafe-eval'"];
        script_src.extend(inline_script_hashes.iter().map(String::as_str));
        let csp = [
            "default-src 'self'".to_string(),
            format!("script-src {}", script_src.join(" ")),
            "style-src 'self'".to_string(),
            "img-src 'self' data: blob:".to_string(),
            "font-src 'self'".to_string(),
            // Direct calls from the browser to providers: any HTTPS API, and model servers
            // on the user's own machine (Ollama, llama.cpp). CSP has no syntax for IPv6
            // literals, so [::1] cannot be listed (Chromium logs an error for it).
            "connect-src 'self' https: http://localhost:* http://127.0.0.1:*".to_string(),
            "worker-src 'self'".to_string(),
            "manifest-src 'self'".to_string(),
            "media-src 'self' blob:".to_string(),
            // The sandbox pages (`crate::sandbox`), each an opaque origin of its own.
            "frame-src 'self'".to_string(),
            "object-src 'none'".to_string(),
            "base-uri 'none'".to_string(),
            "form-action 'self'".to_string(),
            "frame-ancestors 'none'".to_string(),
        ]
        .join("; ");
        let mut headers = vec![
            (header::CONTENT_SECURITY_POLICY, csp),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".into()),
            (header::REFERRER_POLICY, "no-referrer".into()),
            (header::X_FRAME_OPTIONS, "DENY".into()),
            (
                HeaderName::from_static("cross-origin-opener-policy"),
                "same-origin".into(),
            ),
            (
                HeaderName::from_static("cross-origin-resource-policy"),
                "same-origin".into(),
            ),
            (
                HeaderName::from_static("permissions-policy"),
                "camera=(), geolocation=(), payment=(), usb=(), microphone=(self)".into(),
            ),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, HeaderValue::from_str(&value).ok()?)))
        .collect::<Vec<_>>();
        headers.shrink_to_fit();
        Self { headers }
    }

    /// Sets every security header on `target`, replacing any earlier value.
    pub fn apply(&self, target: &mut HeaderMap) {
        for (name, value) in &self.headers {
            target.insert(name.clone(), value.clone());
        }
    }

    /// The Content-Security-Policy value.
    pub fn csp(&self) -> &str {
        self.headers
            .iter()
            .find(|(name, _)| name == header::CONTENT_SECURITY_POLICY)
            .and_then(|(_, value)| value.to_str().ok())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csp_allows_wasm_and_hashed_loader_but_no_unsafe_sources() {
        let headers = SecurityHeaders::new(&["'sha256-abc='".to_string()]);
        let csp = headers.csp();
        assert!(
            csp.contains("script-src 'self' 'wasm-unsafe-eval' 'sha256-abc='"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(!csp.contains("'unsafe-inline'"), "{csp}");
        assert!(!csp.contains("'unsafe-eval'"), "{csp}");
    }

    #[test]
    fn apply_sets_every_header() {
        let mut map = HeaderMap::new();
        SecurityHeaders::new(&[]).apply(&mut map);
        assert_eq!(map["x-content-type-options"], "nosniff");
        assert_eq!(map["referrer-policy"], "no-referrer");
        assert!(map.contains_key("content-security-policy"));
    }
}
