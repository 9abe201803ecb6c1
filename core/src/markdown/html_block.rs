//! Inline HTML blocks (a model's `<div style="…">…</div>` between paragraphs) turned
//! into HTML that is safe to show. Built only with the `html-blocks` feature, by the
//! HTML worker (`app/html-worker`) that the page starts when a reply first contains
//! such a block: `ammonia` parses with a real HTML5 parser and keeps an allow-list.
//!
//! - Kept: text, layout and table elements, `details`, links (`http`, `https`,
//!   `mailto`; opened in a new tab without opener or referrer) and inline raster
//!   `data:` images. Attributes: `title`, `lang`, `dir`, table spans and alignment,
//!   list numbering, image sizes, `details[open]`, and `style` reduced by
//!   [`super::html_css::sanitise`].
//! - Removed with their content: scripts, styles, frames, objects, forms and their
//!   controls, templates, SVG and MathML, `<title>` (a full document keeps only its
//!   body's text and markup).
//! - Removed, content kept: every other element. Event handlers, ids, classes, remote
//!   images, relative and script URLs and comments are dropped.
//!
//! The CSP forbids inline styles, so [`sanitise`] writes the kept declarations as
//! `data-hb-style`, which the page applies through the CSSOM. The result is the same
//! when sanitised again ([`clean`] is idempotent).

use std::collections::{HashMap, HashSet};

use ammonia::{Builder, UrlRelative};

use super::html_css::{self, STYLE_ATTRIBUTE};
use crate::safe_url::{is_safe_image_src, is_safe_link_href};

/// The longest block sanitised; a longer one stays as text.
pub const MAX_BLOCK_BYTES: usize = 256 * 1024;

const TAGS: &[&str] = &[
    "a",
    "abbr",
    "address",
    "article",
    "aside",
    "b",
    "bdi",
    "bdo",
    "blockquote",
    "br",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "i",
    "img",
    "ins",
    "kbd",
    "li",
    "main",
    "mark",
    "ol",
    "p",
    "pre",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "section",
    "small",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "u",
    "ul",
    "var",
    "wbr",
];

/// Removed together with everything inside them.
const REMOVED_WITH_CONTENT: &[&str] = &[
    "applet",
    "audio",
    "button",
    "canvas",
    "datalist",
    "dialog",
    "embed",
    "form",
    "frame",
    "frameset",
    "head",
    "iframe",
    "input",
    "link",
    "math",
    "meta",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "option",
    "plaintext",
    "script",
    "select",
    "style",
    "svg",
    "template",
    "textarea",
    "title",
    "video",
    "xmp",
];

fn builder() -> Builder<'static> {
    let mut tag_attributes: HashMap<&str, HashSet<&str>> = HashMap::new();
    for (tag, attributes) in [
        ("a", &["href"][..]),
        ("img", &["src", "alt", "width", "height"]),
        ("td", &["colspan", "rowspan", "align", "valign"]),
        ("th", &["colspan", "rowspan", "align", "valign", "scope"]),
        ("col", &["span"]),
        ("colgroup", &["span"]),
        ("ol", &["start", "reversed"]),
        ("li", &["value"]),
        ("details", &["open"]),
        ("time", &["datetime"]),
        ("table", &["align"]),
        ("p", &["align"]),
        ("div", &["align"]),
    ] {
        tag_attributes.insert(tag, attributes.iter().copied().collect());
    }
    let mut builder = Builder::empty();
    builder
        .tags(TAGS.iter().copied().collect())
        .clean_content_tags(REMOVED_WITH_CONTENT.iter().copied().collect())
        .generic_attributes(["title", "lang", "dir", "style"].into_iter().collect())
        .tag_attributes(tag_attributes)
        .url_schemes(["http", "https", "mailto", "data"].into_iter().collect())
        .url_relative(UrlRelative::Deny)
        .link_rel(Some("noopener noreferrer nofollow"))
        .set_tag_attribute_value("a", "target", "_blank")
        .strip_comments(true)
        .attribute_filter(|element, attribute, value| {
            keep_attribute(element, attribute, value).map(Into::into)
        });
    builder
}

fn small_number(value: &str, max: u32) -> bool {
    value.len() <= 4 && value.parse::<u32>().is_ok_and(|n| n <= max)
}

/// What is kept of `attribute` on `element`, after the allow-list let it through.
fn keep_attribute(element: &str, attribute: &str, value: &str) -> Option<String> {
    let keep = match (element, attribute) {
        (_, "style") => return html_css::sanitise(value),
        ("a", "href") => {
            let lower = value.trim().to_ascii_lowercase();
            is_safe_link_href(value)
                && ["http:", "https:", "mailto:"]
                    .iter()
                    .any(|scheme| lower.starts_with(scheme))
        }
        ("img", "src") => {
            value.trim().to_ascii_lowercase().starts_with("data:") && is_safe_image_src(value)
        }
        (_, "width" | "height") => small_number(value, 4000),
        (_, "colspan" | "rowspan" | "span" | "start" | "value") => small_number(value, 1000),
        (_, "align") => matches!(value, "left" | "center" | "right" | "justify"),
        (_, "valign") => matches!(value, "top" | "middle" | "bottom" | "baseline"),
        (_, "scope") => matches!(value, "row" | "col" | "rowgroup" | "colgroup"),
        (_, "dir") => matches!(value, "ltr" | "rtl" | "auto"),
        (_, "lang") => {
            value.len() <= 35
                && value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        }
        (_, "title" | "alt" | "datetime") => value.len() <= 1024,
        _ => true,
    };
    keep.then(|| value.to_string())
}

/// `source` sanitised to HTML that keeps its `style` attributes (already reduced). The
/// serialiser escapes `<`, `>` and `"` in text and attribute values alike, so every `<`
/// of the result starts a tag and no attribute value holds a quote.
pub fn clean(source: &str) -> String {
    builder().clean(source).to_string()
}

/// `source` ready for the page: [`clean`], with `style` renamed [`STYLE_ATTRIBUTE`];
/// `None` when it is longer than [`MAX_BLOCK_BYTES`].
pub fn sanitise(source: &str) -> Option<String> {
    (source.len() <= MAX_BLOCK_BYTES).then(|| rename_styles(&clean(source)))
}

/// Renames each ` style="` inside a tag of `clean`'s output.
fn rename_styles(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 64);
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let end = rest[open..].find('>').map_or(rest.len(), |e| open + e + 1);
        out.push_str(&rest[open..end].replace(" style=\"", &format!(" {STYLE_ATTRIBUTE}=\"")));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The study's sanitiser case (Neo Chat's behaviour 40), plus what a model's
    /// "visual block" usually holds.
    #[test]
    fn a_hostile_section_keeps_only_its_safe_parts() {
        let source = r#"<section onclick="steal()" style="position:fixed;inset:0;z-index:9999;background:url(javascript:alert(1));display:flex"><script>alert(1)</script><style>.bad{}</style><iframe>bad frame</iframe><a href="javascript:alert(1)">bad</a><span style="color:#16a34a">safe</span></section>"#;
        let html = sanitise(source).unwrap();
        assert!(
            html.starts_with("<section data-hb-style=\"display:flex\">"),
            "{html}"
        );
        assert!(html.contains("<span data-hb-style=\"color:var(--hv-green-text)\">safe</span>"));
        for gone in [
            "onclick",
            "steal",
            "script",
            "alert",
            "<style",
            ".bad",
            "iframe",
            "bad frame",
            "javascript",
            "position",
            "z-index",
            "url(",
            " style=",
        ] {
            assert!(!html.contains(gone), "{gone} in {html}");
        }
    }

    #[test]
    fn every_hostile_input_stays_inert() {
        let cases = [
            "<img src=x onerror=alert(1)>",
            "<img src=\"https://evil.test/pixel?c=secret\">",
            "<a href=\"data:text/html,<script>alert(1)</script>\">x</a>",
            "<a href=\"/api/admin\">relative</a>",
            "<a href=\"//evil.test\">network path</a>",
            "<a href=\"jav&#x09;ascript:alert(1)\">tab</a>",
            "<svg><script>alert(1)</script><a xlink:href=\"javascript:alert(1)\">s</a></svg>",
            "<math><mi xlink:href=\"javascript:alert(1)\">m</mi></math>",
            "<form action=\"https://evil.test\"><input name=q><button>go</button></form>",
            "<object data=\"x.swf\"></object><embed src=\"x\">",
            "<meta http-equiv=\"refresh\" content=\"0;url=https://evil.test\">",
            "<base href=\"https://evil.test/\"><link rel=stylesheet href=x>",
            "<div id=\"cookie\" class=\"modal\" name=\"x\">clobber</div>",
            "<!--<img src=x onerror=alert(1)>-->",
            "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
            "<template><img src=x onerror=alert(1)></template>",
            "<html><head><title>t</title><script>alert(1)</script></head><body onload=alert(1)><p>body</p></body></html>",
            "<div style=\"background-image:url(https://evil.test)\">bg</div>",
            "<p style=\"color:red;behavior:url(x.htc)\">ie</p>",
            "<textarea><img src=x onerror=alert(1)></textarea>",
            "<select><option><img src=x onerror=alert(1)></option></select>",
            "<xmp><img src=x onerror=alert(1)></xmp>",
            "<details open ontoggle=alert(1)><summary>s</summary>d</details>",
            "<p data-hb-style=\"position:fixed;inset:0\">forged</p>",
        ];
        for case in cases {
            let html = sanitise(case).unwrap();
            for bad in [
                "onerror",
                "onload",
                "ontoggle",
                "alert",
                "<script",
                "javascript",
                "evil.test",
                "<form",
                "<input",
                "<object",
                "<embed",
                "<meta",
                "<base",
                "<link",
                "<svg",
                "<math",
                " id=",
                " class=",
                " name=",
                "<!--",
                "/api/admin",
                "url(",
                "behavior",
                "<textarea",
                "<template",
                "<title",
                "position",
                "inset",
            ] {
                assert!(!html.contains(bad), "{case:?} kept {bad:?}: {html}");
            }
        }
    }

    #[test]
    fn safe_markup_is_kept() {
        let html = sanitise(
            "<table><thead><tr><th colspan=\"2\" align=\"center\">Plan</th></tr></thead>\
             <tbody><tr><td>a</td><td><b>b</b><br><kbd>Ctrl</kbd></td></tr></tbody></table>\
             <details open><summary>More</summary><p>hidden</p></details>\
             <a href=\"https://example.com/x\">site</a>\
             <img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"dot\" width=\"16\">",
        )
        .unwrap();
        for kept in [
            "<th colspan=\"2\" align=\"center\">Plan</th>",
            "<kbd>Ctrl</kbd>",
            "<details open=\"\"><summary>More</summary>",
            "href=\"https://example.com/x\"",
            "target=\"_blank\"",
            "rel=\"noopener noreferrer nofollow\"",
            "<img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"dot\" width=\"16\">",
        ] {
            assert!(html.contains(kept), "{kept} not in {html}");
        }
    }

    #[test]
    fn cleaning_is_idempotent() {
        for case in [
            "<div style=\"display:flex;color:#2563eb;background:#eff6ff\"><p>a &amp; b</p><p>&lt;tag&gt; \"q\" x style=\"y\"</p></div>",
            "<ul><li>one<li>two</ul><p>unclosed <b>bold",
            "<table><tr><td>cell</table><p title='a \"quoted\" <title>'>t</p>",
        ] {
            let once = clean(case);
            assert_eq!(clean(&once), once, "{case}");
        }
    }

    #[test]
    fn only_style_attributes_are_renamed() {
        let html = sanitise("<p title='x style=\"y\"' style=\"font-weight:700\">a style=\"b\"</p>")
            .unwrap();
        assert_eq!(
            html,
            "<p title=\"x style=&quot;y&quot;\" data-hb-style=\"font-weight:700\">a style=\"b\"</p>"
        );
        assert!(sanitise(&"<p>x</p>".repeat(MAX_BLOCK_BYTES / 8 + 1)).is_none());
    }
}
