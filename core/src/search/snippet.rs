//! Snippets: the part of a text around its best match, with the byte ranges to
//! highlight.
//!
//! The text is tokenized as when it was indexed and each token tested against the query:
//! a word equal to a query term or a phrase's term, starting with the query's prefix or a
//! single CJK character, or one edit away from a fuzzy word. The window of at most
//! `max_bytes` holding the most matches wins (the first on a tie), with some text before
//! the first match; it starts after a space when one is near. Ranges are relative to the
//! snippet, sorted, merged where they touch (CJK bigrams overlap), and always fall on
//! character boundaries.

use serde::{Deserialize, Serialize};

use super::dict::one_edit;
use super::query::{Clause, Query};
use super::token::tokenize;

/// A cut of a text with its highlights.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snippet {
    /// The cut text.
    pub text: String,
    /// Byte ranges of `text` to highlight, `(start, end)`, sorted and disjoint.
    pub highlights: Vec<(usize, usize)>,
    /// Text was left out before `text` (show an ellipsis).
    pub cut_start: bool,
    /// Text was left out after `text`.
    pub cut_end: bool,
}

struct Matcher {
    exact: Vec<String>,
    prefixes: Vec<String>,
    fuzzy: Vec<Vec<char>>,
}

impl Matcher {
    fn new(query: &Query) -> Self {
        let mut m = Matcher {
            exact: Vec::new(),
            prefixes: Vec::new(),
            fuzzy: Vec::new(),
        };
        for clause in query.clauses() {
            match clause {
                Clause::Term {
                    term,
                    prefix,
                    fuzzy,
                } => {
                    if *prefix {
                        m.prefixes.push(term.clone());
                    } else {
                        m.exact.push(term.clone());
                    }
                    if *fuzzy {
                        m.fuzzy.push(term.chars().collect());
                    }
                }
                Clause::CharPrefix(c) => m.prefixes.push(c.clone()),
                Clause::Phrase(parts) => m.exact.extend(parts.iter().map(|(t, _)| t.clone())),
            }
        }
        m
    }

    fn hits(&self, term: &str) -> bool {
        self.exact.iter().any(|t| t == term)
            || self.prefixes.iter().any(|p| term.starts_with(p.as_str()))
            || (!self.fuzzy.is_empty() && {
                let chars: Vec<char> = term.chars().collect();
                self.fuzzy.iter().any(|f| one_edit(f, &chars))
            })
    }
}

/// Every range of `text` the query matches, sorted and merged (for a title shown whole).
pub fn highlights(query: &Query, text: &str) -> Vec<(usize, usize)> {
    let matcher = Matcher::new(query);
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    tokenize(text, 0, |t| {
        if matcher.hits(t.term) {
            match ranges.last_mut() {
                Some(last) if t.start <= last.1 => last.1 = last.1.max(t.end),
                _ => ranges.push((t.start, t.end)),
            }
        }
    });
    ranges
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The best window of `text` for `query`, at most `max_bytes` long (see the module docs).
pub fn snippet(query: &Query, text: &str, max_bytes: usize) -> Snippet {
    let ranges = highlights(query, text);
    let max_bytes = max_bytes.max(16);
    // The window holding the most ranges: from each range, as many as fit.
    let mut best = (0, 0);
    let mut j = 0;
    for i in 0..ranges.len() {
        j = j.max(i);
        while j + 1 < ranges.len() && ranges[j + 1].1 - ranges[i].0 <= max_bytes {
            j += 1;
        }
        if j + 1 - i > best.1 - best.0 {
            best = (i, j + 1);
        }
    }
    let (start, end) = if ranges.is_empty() {
        (0, floor_boundary(text, max_bytes))
    } else {
        let first = ranges[best.0].0;
        let last = ranges[best.1 - 1].1.min(first + max_bytes);
        let spare = max_bytes.saturating_sub(last - first);
        let mut start = floor_boundary(text, first.saturating_sub(spare / 3));
        // Start after a space near the window's start, if it does not pass the match.
        if start > 0
            && let Some(space) = text[start..first].find(char::is_whitespace)
            && space < spare / 3
        {
            start += space;
            start += text[start..].chars().next().map_or(0, char::len_utf8);
        }
        let end = floor_boundary(text, start + max_bytes).max(floor_boundary(text, last));
        (start, end)
    };
    let end = end.max(start);
    let highlights = ranges
        .iter()
        .filter(|(s, e)| *s >= start && *e <= end)
        .map(|(s, e)| (s - start, e - start))
        .collect();
    Snippet {
        text: text[start..end].to_string(),
        highlights,
        cut_start: start > 0,
        cut_end: end < text.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_around_the_densest_matches_with_char_safe_ranges() {
        let text = format!(
            "{} the borrow checker rejects this: borrow twice. {}",
            "préambule ".repeat(30),
            "fin ".repeat(40)
        );
        let q = Query::parse("borrow checker").unwrap();
        let s = snippet(&q, &text, 80);
        assert!(s.text.len() <= 80, "{}", s.text.len());
        assert!(s.cut_start && s.cut_end);
        let marked: Vec<&str> = s.highlights.iter().map(|&(a, b)| &s.text[a..b]).collect();
        assert_eq!(marked, ["borrow", "checker", "borrow"]);
    }

    #[test]
    fn cjk_pairs_merge_and_prefixes_and_typos_highlight() {
        let q = Query::parse("机器学习").unwrap();
        let text = "我们研究机器学习。";
        let h = highlights(&q, text);
        assert_eq!(h.len(), 1);
        assert_eq!(&text[h[0].0..h[0].1], "机器学习");
        let q = Query::parse("chekcer lifet").unwrap();
        let text = "the checker and lifetimes";
        let got: Vec<&str> = highlights(&q, text)
            .iter()
            .map(|&(a, b)| &text[a..b])
            .collect();
        assert_eq!(got, ["checker", "lifetimes"]);
        let s = snippet(&q, "no match here", 100);
        assert_eq!(s.text, "no match here");
        assert!(s.highlights.is_empty() && !s.cut_start && !s.cut_end);
    }
}
