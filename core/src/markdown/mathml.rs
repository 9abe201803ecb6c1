//! MathML from pulldown-latex, re-tokenised before it reaches the page. pulldown-latex
//! writes its own tags well but copies some text verbatim: an operator `<` comes out as
//! `<mo><</mo>`, and a parse error quotes the surrounding source inside `<merror>`, so
//! `$\frac{<img src=x onerror=…>$` would put a live `<img>` into an `<mtext>` (an HTML
//! integration point, where the browser parses HTML tags). Found by the Markdown fuzz
//! target.
//!
//! Only tags whose names and attributes are on the allowlists below pass, as they are;
//! every other `<`, `>` and stray `&` becomes text. Inline `style` attributes are dropped,
//! and so is a length or keyword attribute whose value is not one (`width="…"` must be a
//! length such as `0.1667em`).
//!
//! pulldown-latex writes its empty elements with a space before the slash
//! (`<mspace width="1em" />`); those pass too, written `<mspace width="1em"/>`. They used
//! not to, and every `\,`, `\quad` and the space after `\sin` was lost.

/// The MathML elements pulldown-latex writes.
const ELEMENTS: &[&str] = &[
    "math",
    "semantics",
    "annotation",
    "mrow",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
    "mspace",
    "msub",
    "msup",
    "msubsup",
    "munder",
    "mover",
    "munderover",
    "mfrac",
    "msqrt",
    "mroot",
    "mtable",
    "mtr",
    "mtd",
    "mlabeledtr",
    "mstyle",
    "merror",
    "mpadded",
    "mphantom",
    "menclose",
    "mmultiscripts",
    "mprescripts",
    "none",
];

/// The attributes pulldown-latex writes (plus `class`, which the renderer adds).
const ATTRIBUTES: &[&str] = &[
    "display",
    "class",
    "mathvariant",
    "stretchy",
    "symmetric",
    "fence",
    "separator",
    "lspace",
    "rspace",
    "accent",
    "accentunder",
    "linethickness",
    "columnalign",
    "rowalign",
    "columnspacing",
    "rowspacing",
    "columnlines",
    "rowlines",
    "frame",
    "framespacing",
    "equalrows",
    "equalcolumns",
    "displaystyle",
    "scriptlevel",
    "movablelimits",
    "largeop",
    "form",
    "minsize",
    "maxsize",
    "width",
    "height",
    "depth",
    "voffset",
    "notation",
    "xmlns",
    "encoding",
    "bevelled",
    "linebreak",
];

/// Attributes whose value must be a [`length`].
const LENGTHS: &[&str] = &[
    "width",
    "height",
    "depth",
    "voffset",
    "lspace",
    "rspace",
    "minsize",
    "maxsize",
    "linethickness",
];

/// The values `linebreak` may take.
const LINEBREAKS: &[&str] = &[
    "auto",
    "newline",
    "nobreak",
    "goodbreak",
    "badbreak",
    "indentingnewline",
];

/// Whether `value` is a plain length: an optional sign, a number with at most three
/// digits before the point (nothing sensible is wider than 999em), and an optional unit.
fn length(value: &str) -> bool {
    let number = value.strip_prefix(['-', '+']).unwrap_or(value);
    let digits = number
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(number.len());
    let (number, unit) = number.split_at(digits);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    (!whole.is_empty() || !fraction.is_empty())
        && whole.len() <= 3
        && !fraction.contains('.')
        && [
            "", "em", "ex", "px", "pt", "pc", "in", "cm", "mm", "mu", "%",
        ]
        .contains(&unit)
}

/// Whether `attr` may keep `value`: a length or keyword attribute only with a valid one.
fn valid_value(attr: &str, value: &str) -> bool {
    if LENGTHS.contains(&attr) {
        length(value)
    } else if attr == "linebreak" {
        LINEBREAKS.contains(&value)
    } else {
        true
    }
}

/// The length of an allowed tag at the start of `text` (which starts with `<`), or
/// `None` when it is not one.
fn allowed_tag(text: &str) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let mut i = 1;
    let closing = bytes.get(i) == Some(&b'/');
    if closing {
        i += 1;
    }
    let name_start = i;
    while i < bytes.len() && bytes[i].is_ascii_lowercase() {
        i += 1;
    }
    let name = &text[name_start..i];
    if !ELEMENTS.contains(&name) {
        return None;
    }
    let mut kept = format!("<{}{name}", if closing { "/" } else { "" });
    loop {
        match bytes.get(i)? {
            b'>' => {
                kept.push('>');
                return Some((i + 1, kept));
            }
            b'/' if !closing && bytes.get(i + 1) == Some(&b'>') => {
                kept.push_str("/>");
                return Some((i + 2, kept));
            }
            b' ' if !closing && text[i..].starts_with(" />") => {
                kept.push_str("/>");
                return Some((i + 3, kept));
            }
            b' ' if !closing => {
                // ` name="value"`, the value without quotes or angle brackets.
                let attr_start = i + 1;
                let mut j = attr_start;
                while j < bytes.len() && (bytes[j].is_ascii_lowercase() || bytes[j] == b'-') {
                    j += 1;
                }
                let attr = &text[attr_start..j];
                if bytes.get(j) != Some(&b'=') || bytes.get(j + 1) != Some(&b'"') {
                    return None;
                }
                let value_start = j + 2;
                let value_len = text[value_start..].find('"')?;
                let value = &text[value_start..value_start + value_len];
                if value.contains(['<', '>']) {
                    return None;
                }
                if attr != "style" {
                    if !ATTRIBUTES.contains(&attr) {
                        return None;
                    }
                    if valid_value(attr, value) {
                        kept.push_str(&format!(" {attr}=\"{value}\""));
                    }
                }
                i = value_start + value_len + 1;
            }
            _ => return None,
        }
    }
}

/// Whether `text` (starting with `&`) starts with a character reference.
fn is_reference(text: &str) -> bool {
    let body = &text[1..];
    let end = body.find(';').unwrap_or(0);
    end > 0
        && end <= 32
        && body[..end].strip_prefix('#').map_or_else(
            || body[..end].chars().all(|c| c.is_ascii_alphanumeric()),
            |num| {
                let num = num.strip_prefix(['x', 'X']).unwrap_or(num);
                !num.is_empty() && num.chars().all(|c| c.is_ascii_hexdigit())
            },
        )
}

/// `markup` with only allowed MathML tags left as markup.
pub fn sanitize(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len());
    let mut rest = markup;
    while let Some(at) = rest.find(['<', '>', '&']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        match tail.as_bytes()[0] {
            b'<' => match allowed_tag(tail) {
                Some((len, tag)) => {
                    out.push_str(&tag);
                    rest = &tail[len..];
                    continue;
                }
                None => out.push_str("&lt;"),
            },
            b'>' => out.push_str("&gt;"),
            _ if is_reference(tail) => out.push('&'),
            _ => out.push_str("&amp;"),
        }
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pulldown_latex_markup_passes_unchanged() {
        let markup = "<math display=\"inline\"><mfrac><mrow><mn>1</mn></mrow><mrow><mn>2</mn></mrow></mfrac><mo stretchy=\"false\">(</mo><mspace width=\"0.2em\"/></math>";
        assert_eq!(sanitize(markup), markup);
    }

    #[test]
    fn empty_elements_written_with_a_space_pass() {
        // As pulldown-latex writes `\,`, `\quad` and the space after `\sin`.
        assert_eq!(
            sanitize("<mi>a</mi><mspace width=\"0.16666667em\" /><mi>b</mi>"),
            "<mi>a</mi><mspace width=\"0.16666667em\"/><mi>b</mi>"
        );
        assert_eq!(
            sanitize("<mspace width=\"-0.1667em\" style=\"margin-left: -0.1667em\" />"),
            "<mspace width=\"-0.1667em\"/>"
        );
        assert_eq!(
            sanitize(
                "<mspace width=\"1em\" height=\"0.5ex\" depth=\"2pt\" linebreak=\"newline\" />"
            ),
            "<mspace width=\"1em\" height=\"0.5ex\" depth=\"2pt\" linebreak=\"newline\"/>"
        );
        // A closing tag has no slash of its own, and a lone ` />` is text.
        assert_eq!(sanitize("</mi />"), "&lt;/mi /&gt;");
        assert_eq!(sanitize("a />"), "a /&gt;");
    }

    #[test]
    fn hostile_lengths_and_keywords_are_dropped() {
        for value in [
            "expression(alert(1))",
            "1em;background:url(x)",
            "javascript:alert(1)",
            "1e9em",
            "100000em",
            "1.2.3em",
            "em",
            "",
            "1 em",
            "calc(100vw)",
            "&quot;x",
        ] {
            for attr in ["width", "height", "depth", "linethickness"] {
                assert_eq!(
                    sanitize(&format!("<mspace {attr}=\"{value}\" />")),
                    "<mspace/>",
                    "{attr}={value:?}"
                );
            }
        }
        for value in ["evil", "NEWLINE", "newline;x", ""] {
            assert_eq!(
                sanitize(&format!("<mspace linebreak=\"{value}\" width=\"1em\" />")),
                "<mspace width=\"1em\"/>",
                "{value:?}"
            );
        }
        for value in ["0", "-0.5em", "+1em", "12.5%", ".5ex", "2mu", "999px"] {
            assert!(length(value), "{value}");
        }
        // Values with quotes or angle brackets still make the whole tag text.
        assert_eq!(
            sanitize("<mspace width=\"1em\" onclick=\"x\" />"),
            "&lt;mspace width=\"1em\" onclick=\"x\" /&gt;"
        );
    }

    #[test]
    fn quoted_source_and_raw_operators_become_text() {
        assert_eq!(
            sanitize("<mtext>error near <img src=x onerror=alert(1)></mtext>"),
            "<mtext>error near &lt;img src=x onerror=alert(1)&gt;</mtext>"
        );
        assert_eq!(
            sanitize("<mo><</mo><mo>></mo>"),
            "<mo>&lt;</mo><mo>&gt;</mo>"
        );
        assert_eq!(
            sanitize("<mtext>a<script>b</script></mtext>"),
            "<mtext>a&lt;script&gt;b&lt;/script&gt;</mtext>"
        );
        // An allowed element with an attribute that is not allowed is text too.
        assert_eq!(
            sanitize("<mi onclick=\"x\">a</mi>"),
            "&lt;mi onclick=\"x\"&gt;a</mi>"
        );
    }

    #[test]
    fn styles_are_dropped_and_references_kept() {
        assert_eq!(
            sanitize("<mi style=\"color:red\" mathvariant=\"bold\">x</mi>"),
            "<mi mathvariant=\"bold\">x</mi>"
        );
        assert_eq!(
            sanitize("<mo>&lt;&#x2212;&amp;</mo>"),
            "<mo>&lt;&#x2212;&amp;</mo>"
        );
        assert_eq!(
            sanitize("<mtext>a & b &x</mtext>"),
            "<mtext>a &amp; b &amp;x</mtext>"
        );
    }
}
