//! HTML pages (and EPUB chapters) to Markdown-like text through html2text, after the
//! elements that hold no readable text (`script`, `style`, `noscript`, `template`, and
//! `head`'s `title` and `meta`) are removed from the parsed DOM, so their contents can
//! never reach the output whatever the converter does with them.
//!
//! Headings become `#` lines, lists `*` and `1.` items, links `[text][n]` with their
//! targets listed at the end, quotes `>`. Tables stay as html2text draws them (box
//! characters), not Markdown tables: html2text 0.17 exposes no way to build or read the
//! text nodes of its DOM from outside, so a table cannot be swapped out before rendering.

use hearth_core::filetype::FileKind;
use html2text::{Element, Handle, RcDom};

use crate::error::ParseError;

/// Elements removed, with their subtrees, before conversion.
const REMOVED: [&str; 6] = ["script", "style", "noscript", "template", "title", "meta"];

/// The column html2text wraps at; wide, so paragraphs stay mostly on one line.
const WIDTH: usize = 200;

/// `html` as Markdown-like text.
pub(crate) fn to_markdown(html: &str, kind: FileKind) -> Result<String, ParseError> {
    let config = html2text::config::plain()
        .allow_width_overflow()
        .no_link_wrapping();
    let dom = config
        .parse_html(html.as_bytes())
        .map_err(|e| ParseError::malformed(kind, format!("HTML: {e}")))?;
    strip(&dom);
    let tree = config
        .dom_to_render_tree(&dom)
        .map_err(|e| ParseError::malformed(kind, format!("HTML: {e}")))?;
    config
        .render_to_string(tree, WIDTH)
        .map_err(|e| ParseError::malformed(kind, format!("HTML: {e}")))
}

/// Removes the [`REMOVED`] elements, walking the tree with a stack (documents nest deep).
fn strip(dom: &RcDom) {
    let mut stack: Vec<Handle> = vec![dom.document.clone()];
    while let Some(node) = stack.pop() {
        let mut children = node.children.borrow_mut();
        children.retain(|child| !removed(child));
        stack.extend(children.iter().cloned());
    }
}

fn removed(node: &Handle) -> bool {
    match &node.data {
        Element { name, .. } => REMOVED.contains(&&*name.local),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_elements_never_reach_the_text() {
        let html = "<!doctype html><html><head><title>T</title><style>p{color:red}</style>\
                    <script>var secret = 1;</script></head><body><h1>Title</h1>\
                    <p>Hello <b>world</b></p><noscript>enable js</noscript>\
                    <template><p>tmpl</p></template><script>alert(1)</script>\
                    <div><div><script>nested()</script></div></div></body></html>";
        let text = to_markdown(html, FileKind::Html).unwrap();
        assert!(
            text.contains("# Title") && text.contains("Hello **world**"),
            "{text}"
        );
        for hidden in [
            "secret",
            "color",
            "alert",
            "enable js",
            "tmpl",
            "nested",
            "T\n",
        ] {
            assert!(!text.contains(hidden), "{hidden} in {text}");
        }
    }
}
