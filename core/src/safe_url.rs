//! Which URLs may reach the page as an image source or a link target.
//!
//! Model output, tool results and remote data are untrusted (DESIGN principle 7). Before a
//! URL from them becomes `src` or `href`, it passes one of these checks. They parse the
//! way a browser does for the parts that matter: leading and trailing C0 controls and
//! spaces are ignored, tabs and newlines anywhere are removed, the scheme is
//! case-insensitive, and a backslash counts as a slash.

/// Image formats that may be inlined as `data:` URLs. SVG is excluded: it is a document
/// that can carry script and external references.
const DATA_IMAGE_TYPES: [&str; 5] = ["png", "jpeg", "gif", "webp", "avif"];

/// How a URL is classified before the allow-lists are applied.
#[derive(Debug, PartialEq, Eq)]
enum Parsed {
    /// A same-origin path such as `/icons/logo.svg` or `images/a.png`.
    Relative,
    /// A network-path reference (`//host/x`): another origin without a scheme.
    NetworkPath,
    /// An absolute URL with its lower-cased scheme and the text after the colon.
    Absolute { scheme: String, rest: String },
}

fn parse(raw: &str) -> Parsed {
    let cleaned: String = raw
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let scheme_end = cleaned.find(':');
    let path_start = cleaned.find(['/', '\\', '?', '#']);
    match scheme_end {
        Some(colon) if path_start.is_none_or(|p| colon < p) => {
            let scheme = cleaned[..colon].to_ascii_lowercase();
            let rest = cleaned[colon + 1..].to_string();
            Parsed::Absolute { scheme, rest }
        }
        _ => {
            let mut chars = cleaned.chars();
            let first_two = (chars.next(), chars.next());
            if matches!(first_two, (Some('/' | '\\'), Some('/' | '\\'))) {
                Parsed::NetworkPath
            } else {
                Parsed::Relative
            }
        }
    }
}

/// Whether `url` may be used as an `<img src>`: same-origin paths, `http(s)`, `blob:`, and
/// `data:` images of raster types. Everything else (`javascript:`, SVG data, `file:`,
/// network-path references) is refused.
pub fn is_safe_image_src(url: &str) -> bool {
    match parse(url) {
        Parsed::Relative => !url.trim().is_empty(),
        Parsed::NetworkPath => false,
        Parsed::Absolute { scheme, rest } => match scheme.as_str() {
            "http" | "https" | "blob" => true,
            "data" => {
                let lower = rest.to_ascii_lowercase();
                let Some(media) = lower.strip_prefix("image/") else {
                    return false;
                };
                let subtype_end = media.find([';', ',']).unwrap_or(media.len());
                DATA_IMAGE_TYPES.contains(&&media[..subtype_end])
            }
            _ => false,
        },
    }
}

/// Whether `url` may be used as a link `href`: same-origin paths, fragments, `http(s)` and
/// `mailto:`. Scripts and data URLs are refused.
pub fn is_safe_link_href(url: &str) -> bool {
    match parse(url) {
        Parsed::Relative => true,
        Parsed::NetworkPath => false,
        Parsed::Absolute { scheme, .. } => matches!(scheme.as_str(), "http" | "https" | "mailto"),
    }
}

/// The host (with its port) of an `http(s)` URL as a browser reads it: user info
/// dropped, a backslash counted as a slash, lower-cased. For the user to judge a link
/// before anything loads from it; `None` for any other URL.
pub fn web_host(url: &str) -> Option<String> {
    let Parsed::Absolute { scheme, rest } = parse(url) else {
        return None;
    };
    if !matches!(scheme.as_str(), "http" | "https") {
        return None;
    }
    let rest = rest.trim_start_matches(['/', '\\']);
    let authority = rest.split(['/', '\\', '?', '#']).next().unwrap_or_default();
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_sources_that_are_allowed() {
        for url in [
            "/icons/icon.svg",
            "images/a.png",
            "https://example.com/a.png",
            "HTTP://example.com/a.png",
            "blob:http://127.0.0.1:8080/0b6b",
            "data:image/png;base64,iVBORw0KGgo=",
            "data:IMAGE/WEBP;base64,AAAA",
        ] {
            assert!(is_safe_image_src(url), "{url} should be allowed");
        }
    }

    #[test]
    fn image_sources_that_are_refused() {
        for url in [
            "javascript:alert(1)",
            " JavaScript:alert(1)",
            "\u{1}javascript:alert(1)",
            "java\tscript:alert(1)",
            "jav\nascript:alert(1)",
            "data:image/svg+xml;base64,PHN2Zz4=",
            "data:text/html,<script>alert(1)</script>",
            "data:image/pngx,AAAA",
            "vbscript:msgbox",
            "file:///etc/passwd",
            "//evil.example/a.png",
            "\\\\evil.example/a.png",
            "/\\evil.example/a.png",
            "",
            "   ",
        ] {
            assert!(!is_safe_image_src(url), "{url:?} should be refused");
        }
    }

    #[test]
    fn link_targets() {
        for url in [
            "https://example.com",
            "mailto:a@example.com",
            "#footnote-1",
            "/settings",
        ] {
            assert!(is_safe_link_href(url), "{url} should be allowed");
        }
        for url in [
            "javascript:void(0)",
            "JAVASCRIPT:alert(1)",
            "data:text/html,x",
            "//evil.example",
            "vbscript:x",
        ] {
            assert!(!is_safe_link_href(url), "{url} should be refused");
        }
    }

    #[test]
    fn a_colon_after_the_path_is_not_a_scheme() {
        assert!(is_safe_image_src("/a/b:c.png"));
        assert!(is_safe_link_href("?q=a:b"));
    }

    #[test]
    fn a_web_host_is_read_as_a_browser_reads_it() {
        for (url, host) in [
            ("https://Example.com/a.png", "example.com"),
            ("http://user:pw@evil.example:8080/x", "evil.example:8080"),
            ("https:\\\\cdn.example\\i.png", "cdn.example"),
            (" https://a.example?x#y", "a.example"),
        ] {
            assert_eq!(web_host(url).as_deref(), Some(host), "{url}");
        }
        for url in [
            "javascript:alert(1)",
            "data:image/png;base64,AA",
            "/a.png",
            "https://",
        ] {
            assert_eq!(web_host(url), None, "{url}");
        }
    }
}
