//! The one path from untrusted Markdown (model output, tool results, documents) to HTML.
//!
//! Its output is the only HTML the app may assign with `inner_html`. Safety is decided
//! at the event level, before any HTML exists:
//! - raw HTML in the source (`<script>`, `<img onerror>`, comments) becomes escaped text,
//!   except a few formatting tags without attributes inside a paragraph (`<br>`, `<kbd>`,
//!   `<sup>`, …, [`formatting::FORMATTING_TAGS`]), which are written as tags and closed with the
//!   element they were opened in;
//!   an HTML block (CommonMark's block-level HTML) is that text inside a
//!   [`HTML_BLOCK_OPEN`] element, which the page may replace with what
//!   [`html_block::sanitise`](crate::markdown) keeps of it;
//! - links keep only `http`, `https`, `mailto` and relative targets
//!   ([`crate::safe_url::is_safe_link_href`]); others become plain text; links open in a
//!   new tab without opener or referrer;
//! - images load only from inline raster `data:` URLs. A remote image becomes a link:
//!   loading it by itself would let a prompt-injected reply leak data through the URL;
//! - math becomes MathML (pulldown-latex) with its `style` attributes removed, because
//!   the CSP forbids inline styles;
//! - every text run and attribute is escaped by pulldown-cmark's writer or ours;
//! - every id it writes (footnotes) starts with [`ID_PREFIX`] and is made of `[a-z0-9_-]`,
//!   so a label such as `[^cookie]` cannot clobber `document.cookie`.
//!
//! Output is bounded as well as input, because a few bytes can ask for a lot (the TeX
//! macro `\def\a{\a\a}\a` made pulldown-latex quote 47 KB of expansion in its error): a
//! formula gets at most [`math_budget`] bytes, a highlighted code block
//! [`MAX_CODE_BYTES`], a whole render [`MAX_HTML_BYTES`]. What does not fit is shown as
//! an error element of class [`ERROR_CLASS`], with its (bounded) source as text.
//!
//! [`StableSplitter`] finds where the finished blocks of a streaming reply end, so they
//! render once and only the open tail re-renders; an unclosed code fence is part of the
//! open tail and renders as an open code block.
//!
//! Code blocks are highlighted by their fence label ([`highlight`]); the highlighter
//! escapes every character it writes, like the rest of this module.
//!
//! Long because: `render` is the one event loop that decides what may reach the page;
//! its cases (links, images, code, math, HTML, formatting tags, the output budget) are
//! kept in one place so that every event passes the same checks. Its pieces with one job
//! live in the submodules.

mod citations;
mod css_colour;
mod formatting;
pub mod highlight;
#[cfg(feature = "html-blocks")]
pub mod html_block;
pub mod html_css;
mod math;
mod mathml;
mod splitter;

pub use math::math_budget;
pub use splitter::StableSplitter;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use pulldown_cmark_escape::{escape_href, escape_html};

use crate::safe_url::{is_safe_image_src, is_safe_link_href};
use formatting::{FormattingTag, formatting_tag};

/// The most source bytes rendered at once; longer input is cut (with a marker) rather
/// than freezing the page.
pub const MAX_SOURCE_BYTES: usize = 4 * 1024 * 1024;

/// The most HTML one render writes, besides the closing error element and the
/// truncation marker (which add under 1 KiB). Twice the source limit: prose renders at
/// about its own size, so only amplified output (markup-dense text, formulas, highlighted
/// code) reaches it. The blocks from the one that would cross it on are replaced by an
/// error and as much of their text, escaped, as still fits.
pub const MAX_HTML_BYTES: usize = 2 * MAX_SOURCE_BYTES;

/// The most MathML one formula may write, however long its source.
pub const MAX_MATH_BYTES: usize = 64 * 1024;

/// The most HTML one highlighted code block may write; a block whose highlighting would
/// be larger is shown as escaped text without highlighting (at most six bytes per byte).
pub const MAX_CODE_BYTES: usize = 1024 * 1024;

/// How much of a formula's source an error element quotes.
const MAX_QUOTED_BYTES: usize = 256;

/// The prefix of every element id the renderer writes (footnotes are `hearth-fn-…`).
pub const ID_PREFIX: &str = "hearth-";

/// The class of the element shown in place of what was not rendered (too large, or it
/// made the renderer fail).
pub const ERROR_CLASS: &str = "render-error";

/// How an HTML block of the source starts in the output: an element holding the block's
/// source as escaped text, which the page hands to the HTML worker (`html_block`, loaded
/// only when a reply first contains one) and replaces with what that keeps.
pub const HTML_BLOCK_OPEN: &str = "<div class=\"html-block\" data-html-block=\"\">";

/// The attribute that marks an HTML block waiting for the page (see [`HTML_BLOCK_OPEN`]).
pub const HTML_BLOCK_MARK: &str = "data-html-block";

/// Text the renderer writes itself, already translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    /// The accessible name of a code block's copy button.
    pub copy_code: String,
    /// The label of a code block without a language.
    pub plain_text: String,
    /// The button that previews an HTML, SVG or JavaScript code block in the sandbox.
    pub preview: String,
    /// The error shown in place of a formula or the rest of a message that is too large.
    pub too_large: String,
    /// The error shown above a message the renderer failed on, which follows as plain text.
    pub render_failed: String,
}

impl Default for Labels {
    fn default() -> Self {
        Self {
            copy_code: "Copy code".into(),
            plain_text: "text".into(),
            preview: "Preview".into(),
            too_large: "Too large to display".into(),
            render_failed: "This could not be formatted; it is shown as plain text.".into(),
        }
    }
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_MATH
        | Options::ENABLE_GFM
}

fn escaped(text: &str) -> String {
    let mut out = String::new();
    let _ = escape_html(&mut out, text);
    out
}

fn link_open(href: &str) -> String {
    let mut out = String::from("<a href=\"");
    let _ = escape_href(&mut out, href);
    out.push_str("\" target=\"_blank\" rel=\"noopener noreferrer nofollow\">");
    out
}

/// What a code block of language `lang` previews as in the artifact sandbox: `html`,
/// `svg` or `js`; `None` for a language that does not preview.
pub fn preview_kind(lang: &str) -> Option<&'static str> {
    match lang.to_ascii_lowercase().as_str() {
        "html" | "htm" | "xhtml" => Some("html"),
        "svg" => Some("svg"),
        "js" | "javascript" | "mjs" => Some("js"),
        _ => None,
    }
}

/// A code language label reduced to safe characters (`c++`, `objective-c`, `rust`).
fn language(info: &str) -> String {
    info.split([' ', ',', '{'])
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '#' | '.' | '_'))
        .take(32)
        .collect()
}

/// `text` cut to at most `max` bytes (on a character boundary), and whether it was cut.
fn prefix(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// An inline error element: `message`, then the start of `source` as code.
fn inline_error(message: &str, source: &str) -> String {
    let (quoted, cut) = prefix(source, MAX_QUOTED_BYTES);
    format!(
        "<span class=\"{ERROR_CLASS}\">{} <code>{}{}</code></span>",
        escaped(message),
        escaped(quoted),
        if cut { "…" } else { "" }
    )
}

/// An error element saying `message`, followed by `text` as escaped plain text, of which
/// at most `room` bytes of HTML are written (the rest is cut, with a marker).
fn block_error(message: &str, text: &str, room: usize) -> String {
    // Escaping writes at most six bytes for one (`"` → `&quot;`).
    let (shown, cut) = prefix(text, room / 6);
    let mut out = format!(
        "<div class=\"{ERROR_CLASS}\" role=\"note\">{}</div>",
        escaped(message)
    );
    if !shown.is_empty() {
        out.push_str("<div class=\"md-plain\">");
        out.push_str(&escaped(shown));
        out.push_str(if cut { "…</div>" } else { "</div>" });
    }
    out
}

/// What the page shows for `text` when rendering it failed (the render worker crashed on
/// it): an error, then the text (up to [`MAX_SOURCE_BYTES`]) as escaped plain text. Safe
/// to assign with `inner_html`.
pub fn render_failed(text: &str, labels: &Labels) -> String {
    block_error(&labels.render_failed, text, 6 * MAX_SOURCE_BYTES)
}

/// The HTML budget of one message rendered in pieces (the finished blocks of a streaming
/// reply are rendered one by one): [`MAX_HTML_BYTES`] in all, as if rendered at once.
#[derive(Debug, Default, Clone)]
pub struct MessageBudget {
    used: usize,
    spent: bool,
}

impl MessageBudget {
    /// What to show for the piece `source`, rendered as `html`: `html` itself while it
    /// fits; for the first piece that does not, an error followed by as much of `source`
    /// as still fits, as escaped text; after that `None`, for plain text.
    pub fn admit(&mut self, html: String, source: &str, labels: &Labels) -> Option<String> {
        if self.spent {
            return None;
        }
        if self.used + html.len() <= MAX_HTML_BYTES {
            self.used += html.len();
            return Some(html);
        }
        self.spent = true;
        Some(block_error(
            &labels.too_large,
            source,
            MAX_HTML_BYTES - self.used,
        ))
    }
}

/// The id of footnote `label`: [`ID_PREFIX`] and `fn-`, then the label (lowercased and
/// with runs of white space as one space, as labels match) with every byte outside
/// `[a-z0-9-]` written as `_` and two hex digits, so distinct labels keep distinct ids.
fn footnote_id(label: &str) -> String {
    let mut id = format!("{ID_PREFIX}fn-");
    let normal = label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    for byte in normal.bytes() {
        if byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-' {
            id.push(byte as char);
        } else {
            id.push_str(&format!("_{byte:02x}"));
        }
    }
    id
}

/// At least the bytes pulldown-cmark's writer escapes `text` to.
fn escaped_len(text: &str) -> usize {
    let special = text
        .bytes()
        .filter(|b| matches!(b, b'<' | b'>' | b'&' | b'"' | b'\''))
        .count();
    text.len() + 5 * special
}

/// At least the bytes of HTML pulldown-cmark's writer writes for `event`, as it reaches
/// the writer (links, images, code blocks and math are `Html` by then), newlines
/// included. `render` checks in debug builds (so in the fuzz target) that it is a bound.
fn html_cost(event: &Event) -> usize {
    match event {
        Event::Html(html) => html.len(),
        Event::Text(text) => escaped_len(text),
        Event::Code(text) => 16 + escaped_len(text),
        // `<sup class="footnote-reference"><a href="#…">12</a></sup>`
        Event::FootnoteReference(name) => 80 + escaped_len(name),
        // `<div class="footnote-definition" id="…"><sup class="footnote-definition-label">…`
        Event::Start(Tag::FootnoteDefinition(name)) => 112 + escaped_len(name),
        Event::SoftBreak | Event::HardBreak | Event::Rule => 8,
        // `</strong>`, `\n<li>`, `</p>\n`
        Event::Start(
            Tag::Paragraph
            | Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Item,
        )
        | Event::End(
            TagEnd::Paragraph
            | TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Item,
        ) => 16,
        // `<th style="text-align: center">`, `</tr></thead><tbody>\n`
        Event::Start(Tag::TableHead | Tag::TableRow | Tag::TableCell)
        | Event::End(TagEnd::TableHead | TagEnd::TableRow | TagEnd::TableCell) => 32,
        // `<input disabled="" type="checkbox" checked=""/>\n`, `<ol start="…">`,
        // `<blockquote class="markdown-alert-important">`
        _ => 64,
    }
}

/// The writer aligns a table column's cells with a `style` attribute, which the app's
/// policy (`style-src 'self'`) refuses (an error in the console per cell, and the
/// alignment lost): each becomes a class (`md-align-left`, `-center`, `-right`). Only the
/// writer makes these exact tags: raw HTML in a reply is escaped, and HTML blocks carry
/// their styles in another attribute.
fn aligned_cells_as_classes(html: String) -> String {
    if !html.contains(" style=\"text-align: ") {
        return html;
    }
    let mut html = html;
    for cell in ["th", "td"] {
        for side in ["left", "center", "right"] {
            html = html.replace(
                &format!("<{cell} style=\"text-align: {side}\">"),
                &format!("<{cell} class=\"md-align-{side}\">"),
            );
        }
    }
    html
}

/// Where a render may be cut: before a top-level block.
#[derive(Debug, Clone, Copy, Default)]
struct Cut {
    /// Output events before the block.
    events: usize,
    /// Their [`html_cost`].
    cost: usize,
    /// Where the block starts in the source.
    offset: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// A link or image-as-link that was emitted: close with `</a>`.
    Anchor,
    /// A link or image dropped as unsafe: its text stays, no tag.
    Dropped,
    /// An inline image whose alt text is being collected.
    Image,
}

/// Renders Markdown to sanitised HTML of at most [`MAX_HTML_BYTES`] (plus under 1 KiB of
/// error element and truncation marker).
pub fn render(source: &str, labels: &Labels) -> String {
    let (source, cut) = if source.len() > MAX_SOURCE_BYTES {
        let mut end = MAX_SOURCE_BYTES;
        while !source.is_char_boundary(end) {
            end -= 1;
        }
        (&source[..end], true)
    } else {
        (source, false)
    };
    let mut events: Vec<Event> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut image: Option<(String, String)> = None;
    // The language and text of the open code block: its text may arrive in several
    // events, and a string or comment may span them, so it is highlighted at its end.
    let mut code: Option<(String, String)> = None;
    // The output is costed as it grows (the events of the previous source event at the
    // top of each turn); once over budget, it is cut before the block that crossed it.
    let mut costed = 0;
    let mut cost = 0;
    let mut depth = 0usize;
    // The formatting tags a source opened (`<kbd>`) and the depth they were opened at.
    let mut inline_open: Vec<(usize, &'static str)> = Vec::new();
    let mut last_cut = Cut::default();
    let mut over: Option<Cut> = None;
    let parser = Parser::new_ext(source, options()).into_offset_iter();
    // The first pass has read every definition: the numbered ones are citations' sources.
    let numbered = citations::numbered(parser.reference_definitions());
    let mut parser = citations::Pairs::new(parser, numbered);
    loop {
        let next = parser.next();
        cost += events[costed..].iter().map(html_cost).sum::<usize>();
        costed = events.len();
        if cost > MAX_HTML_BYTES {
            over = Some(last_cut);
            break;
        }
        let Some((event, range)) = next else { break };
        if depth == 0 {
            last_cut = Cut {
                events: events.len(),
                cost,
                offset: range.start,
            };
        }
        match &event {
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
        // Formatting tags opened inside the element that ends here close with it.
        if matches!(event, Event::End(_)) {
            while inline_open.last().is_some_and(|&(at, _)| at > depth) {
                if let Some((_, open)) = inline_open.pop() {
                    events.push(Event::Html(format!("</{open}>").into()));
                }
            }
        }
        if let (Some((_, buffer)), Event::Text(text)) = (code.as_mut(), &event) {
            buffer.push_str(text);
            continue;
        }
        if let Some((_, alt)) = image.as_mut() {
            match event {
                Event::End(TagEnd::Image) => {
                    open.pop();
                    let (src, alt) = image.take().unwrap_or_default();
                    events.push(Event::Html(
                        format!(
                            "<img src=\"{}\" alt=\"{}\" loading=\"lazy\" decoding=\"async\" referrerpolicy=\"no-referrer\">",
                            {
                                let mut href = String::new();
                                let _ = escape_href(&mut href, &src);
                                href
                            },
                            escaped(&alt)
                        )
                        .into(),
                    ));
                }
                Event::Text(text)
                | Event::Code(text)
                | Event::InlineHtml(text)
                | Event::Html(text) => alt.push_str(&text),
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(Tag::HtmlBlock) => events.push(Event::Html(HTML_BLOCK_OPEN.into())),
            Event::End(TagEnd::HtmlBlock) => events.push(Event::Html("</div>".into())),
            Event::InlineHtml(html) => match formatting_tag(&html) {
                Some(FormattingTag::Break) => events.push(Event::Html("<br>".into())),
                Some(FormattingTag::Open(name)) => {
                    inline_open.push((depth, name));
                    events.push(Event::Html(format!("<{name}>").into()));
                }
                Some(FormattingTag::Close(name))
                    if inline_open
                        .iter()
                        .any(|&(at, open)| at == depth && open == name) =>
                {
                    while let Some((_, open)) = inline_open.pop() {
                        events.push(Event::Html(format!("</{open}>").into()));
                        if open == name {
                            break;
                        }
                    }
                }
                _ => events.push(Event::Text(html)),
            },
            Event::Html(html) => events.push(Event::Text(html)),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                if is_safe_link_href(&dest_url) {
                    open.push(Open::Anchor);
                    let html = if citations::is_citation(link_type, &id) {
                        citations::citation_open(&dest_url, &title)
                    } else {
                        link_open(&dest_url)
                    };
                    events.push(Event::Html(html.into()));
                } else {
                    open.push(Open::Dropped);
                }
            }
            Event::End(TagEnd::Link) => {
                if open.pop() == Some(Open::Anchor) {
                    events.push(Event::Html("</a>".into()));
                }
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                let lower = dest_url.trim().to_ascii_lowercase();
                if lower.starts_with("data:") && is_safe_image_src(&dest_url) {
                    open.push(Open::Image);
                    image = Some((dest_url.to_string(), String::new()));
                } else if is_safe_link_href(&dest_url) && !lower.starts_with("data:") {
                    open.push(Open::Anchor);
                    events.push(Event::Html(
                        format!("{}<span class=\"md-image-link\">", link_open(&dest_url)).into(),
                    ));
                } else {
                    open.push(Open::Dropped);
                }
            }
            Event::End(TagEnd::Image) => {
                if open.pop() == Some(Open::Anchor) {
                    events.push(Event::Html("</span></a>".into()));
                }
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match &kind {
                    CodeBlockKind::Fenced(info) => language(info),
                    CodeBlockKind::Indented => String::new(),
                };
                let label = if lang.is_empty() {
                    labels.plain_text.clone()
                } else {
                    lang.clone()
                };
                let class = if lang.is_empty() {
                    String::new()
                } else {
                    format!(" class=\"language-{}\"", escaped(&lang))
                };
                let preview = match preview_kind(&lang) {
                    Some(kind) => format!(
                        "<button type=\"button\" class=\"code-block__preview\" data-action=\"preview-code\" data-kind=\"{kind}\">{}</button>",
                        escaped(&labels.preview)
                    ),
                    None => String::new(),
                };
                // A diagram: the page renders it in the diagram sandbox and shows the
                // picture above this code (`crate::diagram`).
                let diagram = if crate::diagram::is_diagram(&lang) {
                    let open = if crate::diagram::fence_closed(&source[range.clone()]) {
                        ""
                    } else {
                        " data-diagram-open=\"\""
                    };
                    format!(" diagram\" data-diagram=\"\"{open}")
                } else {
                    "\"".to_string()
                };
                events.push(Event::Html(
                    format!(
                        "<div class=\"code-block{diagram}><div class=\"code-block__bar\">\
                         <span class=\"code-block__lang\">{}</span>{preview}\
                         <button type=\"button\" class=\"code-block__copy\" data-action=\"copy-code\" aria-label=\"{}\" title=\"{}\"></button>\
                         </div><pre><code{class}>",
                        escaped(&label),
                        escaped(&labels.copy_code),
                        escaped(&labels.copy_code)
                    )
                    .into(),
                ));
                code = Some((lang, String::new()));
            }
            Event::End(TagEnd::CodeBlock) => {
                let (lang, text) = code.take().unwrap_or_default();
                let mut html = highlight::highlight_within(&lang, &text, MAX_CODE_BYTES)
                    .unwrap_or_else(|| escaped(&text));
                html.push_str("</code></pre></div>");
                events.push(Event::Html(html.into()));
            }
            Event::InlineMath(latex) => {
                events.push(Event::Html(math::render(&latex, false, labels).into()));
            }
            Event::DisplayMath(latex) => {
                events.push(Event::Html(math::render(&latex, true, labels).into()));
            }
            Event::FootnoteReference(label) => {
                events.push(Event::FootnoteReference(footnote_id(&label).into()));
            }
            Event::Start(Tag::FootnoteDefinition(label)) => {
                events.push(Event::Start(Tag::FootnoteDefinition(
                    footnote_id(&label).into(),
                )));
            }
            Event::Start(Tag::Heading { level, .. }) => {
                // Drop ids and classes a source could set.
                events.push(Event::Start(Tag::Heading {
                    level,
                    id: None,
                    classes: Vec::new(),
                    attrs: Vec::new(),
                }));
            }
            other => events.push(other),
        }
    }
    if let Some(at) = over {
        events.truncate(at.events);
        cost = at.cost;
    }
    // An unclosed code fence at the end of a streaming reply is closed by the parser.
    let mut html = String::with_capacity(source.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    let mut html = aligned_cells_as_classes(html);
    debug_assert!(html.len() <= cost, "{} > {cost} for {source:?}", html.len());
    if let Some(at) = over {
        html.push_str(&block_error(
            &labels.too_large,
            &source[at.offset..],
            MAX_HTML_BYTES.saturating_sub(at.cost),
        ));
    }
    if cut {
        html.push_str("<p class=\"md-truncated\">…</p>");
    }
    html
}

#[cfg(test)]
mod tests;
