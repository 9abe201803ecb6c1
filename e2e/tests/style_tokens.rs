//! Styling goes through `style/tokens.css`: no literal colours, lengths or durations in
//! any other stylesheet (media-query conditions aside), and no inline `style=` in the
//! app's views (the CSP forbids inline styles, and they would bypass the tokens). The
//! message list's styles tie no element to its siblings (`+`, `~`): the list and a
//! streaming reply grow by appending, and such a selector made every append restyle and
//! re-lay out everything already there.

use std::path::Path;

use hearth_e2e::paths::repo_root;

/// Lines of `css` that contain a literal colour, length or duration outside `@media`.
fn literal_values(css: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_comment = false;
    for (number, line) in css.lines().enumerate() {
        let mut code = String::new();
        let mut rest = line;
        loop {
            if in_comment {
                match rest.find("*/") {
                    Some(end) => {
                        rest = &rest[end + 2..];
                        in_comment = false;
                    }
                    None => break,
                }
            } else {
                match rest.find("/*") {
                    Some(start) => {
                        code.push_str(&rest[..start]);
                        rest = &rest[start + 2..];
                        in_comment = true;
                    }
                    None => {
                        code.push_str(rest);
                        break;
                    }
                }
            }
        }
        if code.trim_start().starts_with("@media") {
            continue;
        }
        if has_literal(&code) {
            found.push((number + 1, line.trim().to_string()));
        }
    }
    found
}

fn has_literal(code: &str) -> bool {
    let lower = code.to_ascii_lowercase();
    if [
        "rgb(",
        "rgba(",
        "hsl(",
        "hsla(",
        "oklch(",
        "lab(",
        "lch(",
        "color-mix(",
    ]
    .iter()
    .any(|f| lower.contains(f))
    {
        return true;
    }
    let bytes = lower.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        // #abc / #aabbcc colours (selectors such as `#id` start with a letter after '#'
        // too, so only flag hex runs that are 3, 4, 6 or 8 long inside a declaration).
        if b == b'#' && lower[..i].contains(':') {
            let run = bytes[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_hexdigit())
                .count();
            if matches!(run, 3 | 4 | 6 | 8) {
                return true;
            }
        }
        if b.is_ascii_digit() {
            let number_end = bytes[i..]
                .iter()
                .position(|c| !(c.is_ascii_digit() || *c == b'.'))
                .map_or(bytes.len(), |p| i + p);
            let unit: String = lower[number_end..]
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            let starts_word =
                i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            if starts_word
                && matches!(
                    unit.as_str(),
                    "px" | "rem" | "em" | "pt" | "ch" | "ms" | "s"
                )
            {
                return true;
            }
        }
    }
    false
}

#[test]
fn stylesheets_use_tokens_only() {
    let dir = repo_root().join("style");
    let mut offenders = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("style/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "css")
            && path.file_name().is_some_and(|n| n != "tokens.css")
        {
            checked += 1;
            let css = std::fs::read_to_string(&path).expect("read css");
            for (line, text) in literal_values(&css) {
                offenders.push(format!("{}:{line}: {text}", path.display()));
            }
        }
    }
    assert!(checked > 0, "no stylesheet besides tokens.css was checked");
    assert!(
        offenders.is_empty(),
        "literal values outside style/tokens.css (use a token):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_checker_catches_literals() {
    assert!(has_literal("  color: #fff;"));
    assert!(has_literal("  margin: 4px;"));
    assert!(has_literal("  width: 1.5rem;"));
    assert!(has_literal("  transition: opacity 200ms;"));
    assert!(has_literal("  background: rgb(0 0 0 / 0.5);"));
    assert!(has_literal("  margin: -2px;"));
    assert!(!has_literal("  margin: var(--space-2);"));
    assert!(!has_literal("  grid-template-columns: minmax(0, 1fr);"));
    assert!(!has_literal("  width: 100%;"));
    assert!(!has_literal("#sidebar-new-chat {"));
    assert!(!has_literal("  font-weight: var(--font-weight-bold);"));
    assert_eq!(
        literal_values("/* 4px */\n@media (max-width: 767px) {\n").len(),
        0
    );
}

/// The selectors of `css` (every rule's prelude, at-rules left out, comments removed)
/// that hold a sibling combinator or a position among siblings (`+` or `~` outside an
/// attribute selector's brackets, so `:is(.a + .b)` and `:nth-child(2n+1)` count too).
fn sibling_selectors(css: &str) -> Vec<String> {
    let mut code = String::new();
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        code.push_str(&rest[..start]);
        rest = rest[start + 2..]
            .split_once("*/")
            .map_or("", |(_, after)| after);
    }
    code.push_str(rest);
    let mut found = Vec::new();
    let mut prelude = String::new();
    for c in code.chars() {
        match c {
            '{' => {
                let selector = prelude.trim().to_string();
                let mut in_brackets = false;
                let combines = selector.chars().any(|c| {
                    match c {
                        '[' => in_brackets = true,
                        ']' => in_brackets = false,
                        _ => {}
                    }
                    !in_brackets && (c == '+' || c == '~')
                });
                if !selector.starts_with('@') && combines {
                    found.push(selector);
                }
                prelude.clear();
            }
            '}' | ';' => prelude.clear(),
            _ => prelude.push(c),
        }
    }
    found
}

#[test]
fn the_message_styles_tie_no_element_to_its_siblings() {
    let css = std::fs::read_to_string(repo_root().join("style/conversation.css"))
        .expect("style/conversation.css");
    assert!(css.contains(".md-block"), "not the message styles");
    let found = sibling_selectors(&css);
    assert!(
        found.is_empty(),
        "sibling combinators in the message styles (each append restyles the siblings):\n{}",
        found.join("\n")
    );
    // The checker itself: what it must catch, and what it must leave.
    assert_eq!(
        sibling_selectors(
            ".a + .b { margin: 0; }\n@media (width > 1px) { .c ~ .d { x: y; } }\n\
             .e:is(.f + .g) { x: y; } li:nth-child(2n+1) { x: y; }"
        ),
        [".a + .b", ".c ~ .d", ".e:is(.f + .g)", "li:nth-child(2n+1)"]
    );
    assert!(
        sibling_selectors(
            "/* .a + .b */ .a > :first-child { width: calc(1px + 2px); }\n\
             [data-x~=\"y\"] { x: y; }"
        )
        .is_empty()
    );
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn views_have_no_inline_styles() {
    let mut files = Vec::new();
    rust_files(&repo_root().join("app").join("src"), &mut files);
    assert!(!files.is_empty());
    let offenders: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let text = std::fs::read_to_string(path).expect("read");
            text.lines()
                .enumerate()
                .filter(|(_, line)| line.contains(" style=") || line.contains("style:"))
                .map(|(n, line)| format!("{}:{}: {}", path.display(), n + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "inline styles:\n{}",
        offenders.join("\n")
    );
}
