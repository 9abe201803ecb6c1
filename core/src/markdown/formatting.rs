//! The few inline HTML tags a Markdown source may use as tags (formatting, without
//! attributes), read from pulldown-cmark's inline HTML events; the renderer
//! (`super::render`) writes them and closes them with the element they were opened in.

/// The inline HTML tags a source may use, without attributes: they format text and
/// nothing else. Any other inline tag, or one of these with attributes, stays text.
pub const FORMATTING_TAGS: &[&str] = &[
    "b", "del", "em", "i", "ins", "kbd", "mark", "s", "small", "strong", "sub", "sup", "u",
];

/// An inline HTML tag the renderer writes as a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormattingTag {
    /// `<br>`, `<br/>`, `<br />`.
    Break,
    /// An opening tag of [`FORMATTING_TAGS`].
    Open(&'static str),
    /// Its closing tag.
    Close(&'static str),
}

/// Reads `<kbd>`, `</kbd>` or `<br/>` (any case, no attributes); `None` for anything else.
pub fn formatting_tag(html: &str) -> Option<FormattingTag> {
    let inner = html.trim().strip_prefix('<')?.strip_suffix('>')?;
    let (closing, inner) = match inner.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let (self_closing, name) = match inner.strip_suffix('/') {
        Some(rest) => (true, rest.trim_end()),
        None => (false, inner),
    };
    let name = name.to_ascii_lowercase();
    if name == "br" && !closing {
        return Some(FormattingTag::Break);
    }
    let &tag = FORMATTING_TAGS.iter().find(|tag| **tag == name)?;
    match (closing, self_closing) {
        (false, false) => Some(FormattingTag::Open(tag)),
        (true, false) => Some(FormattingTag::Close(tag)),
        _ => None,
    }
}
