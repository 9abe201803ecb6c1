//! A reply's Markdown as text to read aloud: fenced code blocks, images, raw HTML tags,
//! citation numbers and link targets left out; headings, quotes, list and table marks
//! and emphasis taken away, leaving the words. A line-based reading, not a renderer: what
//! it cannot recognise is read as written, which is the safe failure for speech.

/// `markdown` as words to read aloud, paragraphs kept apart by blank lines.
pub fn speakable(markdown: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut fence: Option<String> = None;
    let mut math = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let mark: String = trimmed
                .chars()
                .take_while(|c| *c == '`' || *c == '~')
                .collect();
            fence = Some(mark);
            continue;
        }
        if trimmed.starts_with("$$") {
            // `$$ … $$` on one line is skipped alone; a lone `$$` opens or closes a block.
            let one_line = trimmed.len() >= 4 && trimmed.trim_end().ends_with("$$");
            if !one_line {
                math = !math;
            }
            continue;
        }
        if math {
            continue;
        }
        let Some(body) = line_body(trimmed) else {
            continue;
        };
        let words = words_of(body);
        if words.is_empty() {
            if out.last().is_some_and(|l| !l.is_empty()) {
                out.push(String::new());
            }
        } else {
            out.push(words);
        }
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out.join("\n")
}

/// A line without its block marks: heading `#`s, quote `>`s, list bullets and numbers,
/// table pipes; `None` for a table's rule or a thematic break (nothing to read).
fn line_body(line: &str) -> Option<String> {
    let mut line = line.trim();
    loop {
        let before = line;
        line = line.trim_start_matches('#').trim_start();
        line = line.trim_start_matches('>').trim_start();
        for bullet in ["- [ ] ", "- [x] ", "- ", "* ", "+ "] {
            if let Some(rest) = line.strip_prefix(bullet) {
                line = rest.trim_start();
            }
        }
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        if digits > 0
            && let Some(rest) = line[digits..]
                .strip_prefix(". ")
                .or_else(|| line[digits..].strip_prefix(") "))
        {
            line = rest.trim_start();
        }
        if line == before {
            break;
        }
    }
    // A table's rule, or a thematic break.
    if !line.is_empty()
        && line
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '*' | '_' | '='))
    {
        return None;
    }
    Some(
        line.trim_matches('|')
            .split('|')
            .map(str::trim)
            .filter(|cell| !cell.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// The words of inline Markdown: images and tags dropped, links reduced to their text,
/// citations `[n]` dropped, emphasis and code marks removed.
fn words_of(text: String) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '!' if chars.get(i + 1) == Some(&'[') => {
                // An image: skip `![alt](target)` whole.
                match bracket_end(&chars, i + 1) {
                    Some(end) => i = target_end(&chars, end + 1).unwrap_or(end + 1),
                    None => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            '[' => match bracket_end(&chars, i) {
                Some(end) => {
                    let inner: String = chars[i + 1..end].iter().collect();
                    let citation = !inner.is_empty() && inner.chars().all(|c| c.is_ascii_digit());
                    if !citation {
                        out.push_str(&words_of(inner));
                    }
                    i = target_end(&chars, end + 1).unwrap_or(end + 1);
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            },
            '<' => {
                // A tag (`<br>`, `<span …>`) is dropped; a lone `<` is read.
                let close = chars[i..].iter().position(|&c| c == '>');
                let tag = close.filter(|&n| {
                    n > 1 && (chars[i + 1].is_ascii_alphabetic() || chars[i + 1] == '/')
                });
                match tag {
                    Some(n) => {
                        out.push(' ');
                        i += n + 1;
                    }
                    None => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            '*' | '_' | '`' | '~' => i += 1,
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where the `[` at `open` closes, on the same line.
fn bracket_end(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    for (offset, &c) in chars[open..].iter().enumerate() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + offset);
                }
            }
            _ => {}
        }
    }
    None
}

/// Past a link target `(…)` starting at `at`, if there is one.
fn target_end(chars: &[char], at: usize) -> Option<usize> {
    if chars.get(at) != Some(&'(') {
        return None;
    }
    chars[at..]
        .iter()
        .position(|&c| c == ')')
        .map(|n| at + n + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_reads_as_its_words() {
        let markdown = "# The tides\n\nHigh tide is at **noon** [1], see [the table](https://t.example/x).\n\n\
                        ```js\nconsole.log(1)\n```\n\n- first point\n- second `code` point\n\n\
                        1. one\n2) two\n\n> quoted *words*\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\
                        ![a chart](chart.png) after<br>it\n\n---\n\n$$\nx^2\n$$\n\n$$ y $$\nEnd.";
        assert_eq!(
            speakable(markdown),
            "The tides\n\nHigh tide is at noon , see the table.\n\nfirst point\nsecond code point\n\n\
             one\ntwo\n\nquoted words\n\na, b\n1, 2\n\nafter it\n\nEnd."
        );
    }

    #[test]
    fn what_is_not_markup_is_read_as_written() {
        assert_eq!(speakable("3 < 4 and [not closed"), "3 < 4 and [not closed");
        assert_eq!(speakable("今日は[晴れ](x)です。"), "今日は晴れです。");
        assert_eq!(speakable("```\nonly code\n```"), "");
        assert_eq!(speakable(""), "");
    }
}
