//! The readable text of an HTML page, for a model to read: tags dropped, the contents of
//! `head`, `script`, `style`, `noscript`, `template` and embedded content removed whole,
//! entities decoded, whitespace collapsed, block elements on their own lines and
//! headings and list items marked as in Markdown. It never builds a document, so nothing
//! in the page can run, load or be styled on the way; the output is text, never HTML.

/// Elements whose contents are never text for the reader.
const SKIPPED: &[&str] = &[
    "head", "script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "math",
    "canvas", "select", "textarea",
];

/// Elements that break the text into blocks.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "header",
    "footer",
    "main",
    "nav",
    "aside",
    "ul",
    "ol",
    "table",
    "tr",
    "pre",
    "blockquote",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "hr",
    "form",
    "fieldset",
    "address",
    "details",
    "summary",
];

/// The text of `html`.
pub fn html_text(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        push_text(&mut out, &rest[..lt]);
        rest = &rest[lt..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |end| &after[end + 3..]);
            continue;
        }
        let Some((tag, closing, end)) = read_tag(rest) else {
            // A `<` that opens no tag is text.
            push_text(&mut out, "<");
            rest = &rest[1..];
            continue;
        };
        rest = &rest[end..];
        if !closing && SKIPPED.contains(&tag.as_str()) {
            rest = skip_to_close(rest, &tag);
            continue;
        }
        match tag.as_str() {
            "br" => out.push('\n'),
            "li" if !closing => {
                trim_spaces(&mut out);
                out.push_str("\n- ");
            }
            "td" | "th" if !closing && !out.is_empty() && !out.ends_with(['\n', ' ']) => {
                out.push(' ');
            }
            heading if heading_level(heading).is_some() => {
                block_break(&mut out);
                if !closing && let Some(level) = heading_level(heading) {
                    out.push_str(&"#".repeat(level));
                    out.push(' ');
                }
            }
            block if BLOCKS.contains(&block) => block_break(&mut out),
            _ => {}
        }
    }
    push_text(&mut out, rest);
    tidy(&out)
}

/// The level of a heading tag (`h1`…`h6`).
fn heading_level(tag: &str) -> Option<usize> {
    let level: usize = tag.strip_prefix('h')?.parse().ok()?;
    (1..=6).contains(&level).then_some(level)
}

/// The tag at the start of `text` (`<name …>` or `</name>`): its lower-case name,
/// whether it closes, and the length it takes. `None` when `<` starts no tag.
fn read_tag(text: &str) -> Option<(String, bool, usize)> {
    let bytes = text.as_bytes();
    let mut at = 1;
    let closing = bytes.get(at) == Some(&b'/');
    if closing {
        at += 1;
    }
    let start = at;
    while bytes.get(at).is_some_and(u8::is_ascii_alphanumeric) {
        at += 1;
    }
    if at == start || !bytes[start].is_ascii_alphabetic() {
        // `<!doctype …>`, `<?xml …?>`: skip them like tags, with no name.
        if matches!(bytes.get(start), Some(b'!' | b'?')) {
            let end = text.find('>').map_or(text.len(), |end| end + 1);
            return Some((String::new(), true, end));
        }
        return None;
    }
    let name = text[start..at].to_ascii_lowercase();
    let mut quote: Option<u8> = None;
    while let Some(&byte) = bytes.get(at) {
        match (quote, byte) {
            (Some(q), b) if b == q => quote = None,
            (None, b'"' | b'\'') => quote = Some(byte),
            (None, b'>') => return Some((name, closing, at + 1)),
            _ => {}
        }
        at += 1;
    }
    Some((name, closing, text.len()))
}

/// `text` after the element `tag`'s closing tag (all of it when it never closes).
fn skip_to_close<'a>(text: &'a str, tag: &str) -> &'a str {
    let lower = text.to_ascii_lowercase();
    let needle = format!("</{tag}");
    let mut from = 0;
    while let Some(found) = lower[from..].find(&needle) {
        let at = from + found;
        let after = lower.as_bytes().get(at + needle.len());
        if after.is_none_or(|b| !b.is_ascii_alphanumeric()) {
            return text[at..].find('>').map_or("", |end| &text[at + end + 1..]);
        }
        from = at + needle.len();
    }
    ""
}

fn push_text(out: &mut String, raw: &str) {
    let decoded = decode_entities(raw);
    for (index, word) in decoded.split_whitespace().enumerate() {
        let spaced = index > 0 || decoded.starts_with(char::is_whitespace);
        if spaced && !out.is_empty() && !out.ends_with([' ', '\n']) {
            out.push(' ');
        }
        out.push_str(word);
    }
    if decoded.ends_with(char::is_whitespace) && !decoded.trim().is_empty() {
        out.push(' ');
    }
}

fn trim_spaces(out: &mut String) {
    while out.ends_with(' ') {
        out.pop();
    }
}

fn block_break(out: &mut String) {
    trim_spaces(out);
    if !out.is_empty() && !out.ends_with("\n\n") {
        out.push_str(if out.ends_with('\n') { "\n" } else { "\n\n" });
    }
}

/// Lines trimmed, at most one blank line in a row, no blank start or end.
fn tidy(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() && (out.is_empty() || out.ends_with("\n\n")) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_end().to_string()
}

fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest[1..]
            .find(|c: char| c == ';' || c.is_whitespace() || c == '&')
            .map(|e| e + 1);
        let decoded = end
            .filter(|&e| rest.as_bytes().get(e) == Some(&b';') && e <= 12)
            .and_then(|e| entity(&rest[1..e]).map(|c| (c, e + 1)));
        match decoded {
            Some((c, used)) => {
                out.push(c);
                rest = &rest[used..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        return char::from_u32(code).filter(|c| *c != '\0');
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "copy" => '©',
        "reg" => '®',
        "mdash" => '—',
        "ndash" => '–',
        "hellip" => '…',
        "laquo" => '«',
        "raquo" => '»',
        "ldquo" => '“',
        "rdquo" => '”',
        "lsquo" => '‘',
        "rsquo" => '’',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_styles_and_the_head_are_gone_text_stays() {
        let page = "<!doctype html><html><head><title>T</title><style>.x{color:red}</style>\
                    <script>alert('pwned')</script></head><body><h1>Fruit</h1>\
                    <p>The visible fruit is <b>kiwi</b>.</p><noscript>hidden</noscript>\
                    <SCRIPT type=\"x\">evil()</SCRIPT ><p>After.</p></body></html>";
        assert_eq!(
            html_text(page),
            "# Fruit\n\nThe visible fruit is kiwi.\n\nAfter."
        );
    }

    #[test]
    fn blocks_lists_and_breaks_keep_their_shape() {
        let html = "<ul><li>one</li><li>two</li></ul><p>a<br>b</p><table><tr><td>x</td><td>y</td></tr></table>";
        assert_eq!(html_text(html), "- one\n- two\n\na\nb\n\nx y");
    }

    #[test]
    fn entities_are_decoded_and_broken_ones_kept() {
        assert_eq!(
            html_text("<p>Fish &amp; chips &lt;3 &#8364;5 &#x41; &bogus; & done&nbsp;now</p>"),
            "Fish & chips <3 €5 A &bogus; & done now"
        );
    }

    #[test]
    fn attributes_with_angle_brackets_and_comments_do_not_leak() {
        let html = "<p title=\"a > b\" data-x='<script>'>kept</p><!-- <p>comment</p> -->\
                    <a href=\"javascript:alert(1)\">link</a> 1 < 2";
        assert_eq!(html_text(html), "kept\n\nlink 1 < 2");
    }

    #[test]
    fn an_unclosed_script_swallows_the_rest_and_nothing_panics() {
        assert_eq!(html_text("<p>before</p><script>never closed"), "before");
        for text in [
            "<",
            "</",
            "<a",
            "<!--",
            "&",
            "&#",
            "&#x;",
            "<p",
            "<script",
            "\u{1F600}<p>é</p>",
        ] {
            let _ = html_text(text);
        }
    }

    #[test]
    fn any_input_gives_text_without_tags_of_skipped_elements() {
        bolero::check!()
            .with_type::<String>()
            .for_each(|text: &String| {
                let out = html_text(&format!("<script>{text}</script>ok"));
                assert!(out.ends_with("ok") || text.to_ascii_lowercase().contains("</script"));
                let _ = html_text(text);
            });
    }
}
