//! HTML pages (and EPUB chapters) to Markdown-like text through html2text, after the
//! elements that hold no readable text (`script`, `style`, `noscript`, `template`, and
//! `head`'s `title` and `meta`) are removed from the parsed DOM, so their contents can
//! never reach the output whatever the converter does with them.
//!
//! Headings become `#` lines, lists `*` and `1.` items, links `[text][n]` with their
//! targets listed at the end, quotes `>`. Tables become Markdown tables (`table`: the
//! first row the header, `colspan` cells kept in their columns, a table nested in a
//! cell flattened into it). html2text 0.17 draws tables with box characters and exposes
//! no way to build or read its DOM's text nodes, so each outermost table is rendered
//! apart, a cell at a time (its children moved under a document of its own), and
//! replaced in the page by an image whose alt text is a marker html2text writes as
//! `[marker]`; the marker is then replaced by the table's Markdown.

use hearth_core::filetype::FileKind;
use html2text::{Element, Handle, RcDom};

use crate::error::ParseError;
use crate::table::{MAX_COLUMNS, Table};

/// Elements removed, with their subtrees, before conversion.
const REMOVED: [&str; 6] = ["script", "style", "noscript", "template", "title", "meta"];

/// The column html2text wraps at; wide, so paragraphs stay mostly on one line.
const WIDTH: usize = 200;
/// The most table cells rendered apart in one page (each is a render of its own); the
/// tables past it are left as html2text draws them.
const MAX_TABLE_CELLS: usize = 20_000;

/// `html` as Markdown-like text.
pub(crate) fn to_markdown(html: &str, kind: FileKind) -> Result<String, ParseError> {
    let config = html2text::config::plain()
        .allow_width_overflow()
        .no_link_wrapping();
    let dom = config
        .parse_html(html.as_bytes())
        .map_err(|e| ParseError::malformed(kind, format!("HTML: {e}")))?;
    strip(&dom);
    let tables = swap_tables(&dom, kind)?;
    let mut text = render(&dom, kind, false)?;
    for (i, table) in tables.iter().enumerate() {
        let marker = format!("[{}]", marker(i));
        if let Some(at) = text.find(&marker) {
            let before = text[..at].trim_end();
            let after = text[at + marker.len()..].trim_start();
            let mut joined = String::with_capacity(text.len() + table.len());
            joined.push_str(before);
            if !before.is_empty() {
                joined.push_str("\n\n");
            }
            joined.push_str(table.trim_end());
            if !after.is_empty() {
                joined.push_str("\n\n");
                joined.push_str(after);
            } else {
                joined.push('\n');
            }
            text = joined;
        }
    }
    Ok(text)
}

/// `dom` as text; `raw` for a table cell (a nested table's cells one after another).
fn render(dom: &RcDom, kind: FileKind, raw: bool) -> Result<String, ParseError> {
    let config = html2text::config::plain()
        .allow_width_overflow()
        .no_link_wrapping()
        .raw_mode(raw);
    let tree = config
        .dom_to_render_tree(dom)
        .map_err(|e| ParseError::malformed(kind, format!("HTML: {e}")))?;
    config
        .render_to_string(tree, WIDTH)
        .map_err(|e| ParseError::malformed(kind, format!("HTML: {e}")))
}

/// The alt text standing for table `i` (private-use characters around it, so a page's
/// own words do not look like it).
fn marker(i: usize) -> String {
    format!("\u{E000}table{i}\u{E000}")
}

/// Replaces every outermost table of `dom` with the image standing for it; the tables
/// as Markdown, in order.
fn swap_tables(dom: &RcDom, kind: FileKind) -> Result<Vec<String>, ParseError> {
    let mut found = Vec::new();
    let mut stack: Vec<Handle> = vec![dom.document.clone()];
    while let Some(node) = stack.pop() {
        for child in node.children.borrow().iter() {
            if is(child, "table") {
                found.push((node.clone(), child.clone()));
            } else {
                stack.push(child.clone());
            }
        }
    }
    let mut tables = Vec::with_capacity(found.len());
    let mut links = 0;
    let mut cells = 0;
    for (parent, table) in found {
        cells += cell_count(&table);
        if cells > MAX_TABLE_CELLS {
            break;
        }
        let i = tables.len();
        tables.push(markdown_table(&table, kind, &mut links)?);
        let placeholder = image(&marker(i), kind)?;
        let mut children = parent.children.borrow_mut();
        if let Some(at) = children.iter().position(|c| std::rc::Rc::ptr_eq(c, &table)) {
            children[at] = placeholder;
        }
    }
    Ok(tables)
}

/// An `<img>` with `alt` (parsed, since html2text's DOM cannot be built from outside).
fn image(alt: &str, kind: FileKind) -> Result<Handle, ParseError> {
    let html = format!("<img src=\"table\" alt=\"{alt}\">");
    let dom = html2text::config::plain()
        .parse_html(html.as_bytes())
        .map_err(|e| ParseError::malformed(kind, format!("HTML: {e}")))?;
    let mut stack = vec![dom.document.clone()];
    while let Some(node) = stack.pop() {
        if is(&node, "img") {
            return Ok(node);
        }
        stack.extend(node.children.borrow().iter().cloned());
    }
    Err(ParseError::malformed(kind, "HTML: no image parsed"))
}

/// `table`'s rows (through `thead`, `tbody` and `tfoot`, not into nested tables) as a
/// Markdown table, and after it the targets of the links in its cells (`[T1]: url`,
/// numbered on from `links`, apart from the page's own `[1]` footnotes).
fn markdown_table(table: &Handle, kind: FileKind, links: &mut usize) -> Result<String, ParseError> {
    let mut out = Table::default();
    let mut targets = Vec::new();
    let mut stack: Vec<Handle> = table.children.borrow().iter().rev().cloned().collect();
    while let Some(node) = stack.pop() {
        if is(&node, "tr") {
            out.start_row();
            for cell in node.children.borrow().iter() {
                if !(is(cell, "td") || is(cell, "th")) {
                    continue;
                }
                out.push_cell(cell_text(cell, kind, links, &mut targets)?);
                let span = attribute(cell, "colspan")
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(1)
                    .clamp(1, MAX_COLUMNS);
                for _ in 1..span {
                    out.push_cell(String::new());
                }
            }
        } else if !is(&node, "table") {
            stack.extend(node.children.borrow().iter().rev().cloned());
        }
    }
    let mut markdown = out.render();
    if !targets.is_empty() {
        markdown.push('\n');
        for (label, url) in targets {
            markdown.push_str(&format!("[{label}]: {url}\n"));
        }
    }
    Ok(markdown)
}

/// A cell's text on one line: its children rendered under a document of their own, its
/// links' footnotes (`[1]: url`) taken out into `targets`, relabelled `T<n>`.
fn cell_text(
    cell: &Handle,
    kind: FileKind,
    links: &mut usize,
    targets: &mut Vec<(String, String)>,
) -> Result<String, ParseError> {
    let alone = html2text::config::plain()
        .parse_html(&b""[..])
        .map_err(|e| ParseError::malformed(kind, format!("HTML: {e}")))?;
    *alone.document.children.borrow_mut() = cell.children.borrow().clone();
    let rendered = render(&alone, kind, true)?;
    let mut text = String::new();
    let mut own = Vec::new();
    for line in rendered.lines() {
        let footnote = line
            .strip_prefix('[')
            .and_then(|rest| rest.split_once("]: "))
            .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        match footnote {
            Some((n, url)) => own.push((n.to_string(), url.to_string())),
            None => {
                text.push_str(line);
                text.push(' ');
            }
        }
    }
    let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // Relabelled last first, so `[1]` does not catch the start of `[10]`.
    let mut relabelled = Vec::new();
    for (n, url) in own {
        *links += 1;
        relabelled.push((n, format!("T{links}"), url));
    }
    for (n, label, _) in relabelled.iter().rev() {
        text = text.replace(&format!("][{n}]"), &format!("][{label}]"));
    }
    targets.extend(relabelled.into_iter().map(|(_, label, url)| (label, url)));
    Ok(text)
}

/// How many cells `table` has, nested tables' included.
fn cell_count(table: &Handle) -> usize {
    let mut count = 0;
    let mut stack = vec![table.clone()];
    while let Some(node) = stack.pop() {
        count += usize::from(is(&node, "td") || is(&node, "th"));
        stack.extend(node.children.borrow().iter().cloned());
    }
    count
}

/// Whether `node` is the element `name`.
fn is(node: &Handle, name: &str) -> bool {
    matches!(&node.data, Element { name: n, .. } if &*n.local == name)
}

/// Attribute `name` of element `node`.
fn attribute(node: &Handle, name: &str) -> Option<String> {
    match &node.data {
        Element { attrs, .. } => attrs
            .borrow()
            .iter()
            .find(|a| &*a.name.local == name)
            .map(|a| a.value.to_string()),
        _ => None,
    }
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

    #[test]
    fn tables_become_markdown_tables() {
        let html = "<p>Before</p><table><thead><tr><th>Plan</th><th>Price</th><th>Notes</th></tr></thead>\
                    <tbody><tr><td><b>Basic</b></td><td>$5 | month</td><td><a href=\"https://x.test/\">terms</a></td></tr>\
                    <tr><td colspan=\"2\">Custom, on request</td><td><p>one</p><p>two</p></td></tr>\
                    <tr><td>Nested</td><td><table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table></td></tr>\
                    </tbody></table><p>After <a href=\"https://y.test/\">page</a></p><table><tr><td>Second</td></tr></table>";
        let text = to_markdown(html, FileKind::Html).unwrap();
        assert_eq!(
            text,
            "Before\n\n| Plan | Price | Notes |\n| --- | --- | --- |\n| **Basic** | $5 \\| month | [terms][T1] |\n\
             | Custom, on request |  | one two |\n| Nested | a b c |  |\n\n[T1]: https://x.test/\n\n\
             After [page][1]\n\n| Second |\n| --- |\n\n[1]: https://y.test/\n"
        );
    }

    #[test]
    fn tables_past_the_cell_budget_are_left_drawn() {
        let row = "<tr><td>x</td><td>y</td></tr>".repeat(MAX_TABLE_CELLS / 4);
        let html = format!("<table>{row}</table><table>{row}</table><table>{row}</table>");
        let text = to_markdown(&html, FileKind::Html).unwrap();
        // Two tables fit the budget, the third is left to html2text; no cell is lost.
        assert_eq!(text.matches("| --- | --- |").count(), 2);
        assert!(
            text.trim_end().ends_with("x y\nx y"),
            "{:?}",
            &text[text.len() - 100..]
        );
        assert_eq!(text.matches('x').count(), 3 * MAX_TABLE_CELLS / 4);
    }

    #[test]
    fn a_page_that_names_the_marker_itself_keeps_its_words() {
        let html = "<p>[\u{E000}table0\u{E000}]</p><table><tr><td>Real</td></tr></table>";
        let text = to_markdown(html, FileKind::Html).unwrap();
        assert!(text.contains("| Real |"), "{text}");
    }
}
