//! The tokenizer shared by indexing, queries and snippets.
//!
//! - **Words** (Latin and every other script that separates words with spaces): a
//!   maximal run of alphanumeric characters and `_`, folded by [`super::fold`]. Code
//!   identifiers stay whole: `snake_case_name` is one term, `CamelCase` is the term
//!   `camelcase`; a `.` between two digits joins too, so `v1.2.3`, `3.14` and
//!   `192.168.0.1` are one term each, while `file.rs` is `file` and `rs`. Hyphens,
//!   apostrophes and other punctuation split. A part of an identifier is found by prefix
//!   (`snake` as the query's last word), not as a word of its own.
//! - **Chinese and Japanese** (Han, hiragana, katakana, `々`, `ー`, halfwidth katakana):
//!   no spaces to split on, so a run of such characters becomes overlapping character
//!   bigrams (`機械学習` → `機械`, `械学`, `学習`) followed by the run's last character on
//!   its own (`習`), so every character starts some term: a one-character query matches
//!   as a prefix. A run of one character is that character.
//!
//! Each token has a position (consecutive, counting the run-final characters too, so a
//! phrase's offsets are the same in a query and a text) and the byte range it came from,
//! which snippets highlight. A term is at most [`MAX_TERM_BYTES`] long (cut on a character
//! boundary).

use super::fold::{fold_char, is_combining_mark};

/// The longest term kept; longer words (a base64 blob, a hash) are cut to this length.
pub const MAX_TERM_BYTES: usize = 64;

/// What produced a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A word, number or identifier.
    Word,
    /// Two adjacent CJK characters.
    Pair,
    /// The last character of a CJK run of two or more (already inside the last pair).
    Tail,
    /// A CJK run of one character.
    Single,
}

/// One token of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// The folded term.
    pub term: &'a str,
    /// The token's position among the text's tokens.
    pub pos: u32,
    /// Where the token starts in the text (bytes).
    pub start: usize,
    /// Where the token ends in the text (bytes, exclusive).
    pub end: usize,
    /// What produced it.
    pub kind: TokenKind,
}

/// Whether `c` is written without spaces between words (Chinese and Japanese).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3005 | 0x3006 | 0x3007          // 々 〆 〇
        | 0x3040..=0x30ff                 // hiragana, katakana (with ー)
        | 0x31f0..=0x31ff                 // katakana phonetic extensions
        | 0x3400..=0x4dbf                 // CJK extension A
        | 0x4e00..=0x9fff                 // CJK unified ideographs
        | 0xf900..=0xfaff                 // compatibility ideographs
        | 0xff66..=0xff9f                 // halfwidth katakana
        | 0x20000..=0x3134f) // extensions B–G
}

fn is_word_char(c: char) -> bool {
    (c.is_alphanumeric() && !is_cjk(c)) || c == '_' || is_combining_mark(c)
}

/// Calls `each` for every token of `text`, starting at position `first_pos`; returns the
/// position after the last token.
pub fn tokenize(text: &str, first_pos: u32, mut each: impl FnMut(Token<'_>)) -> u32 {
    let mut pos = first_pos;
    let mut term = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if is_cjk(c) {
            // The run's characters, as (byte offset, char).
            let mut prev = (start, c);
            let mut run_len = 1;
            while let Some(&(at, next)) = chars.peek() {
                if !is_cjk(next) {
                    break;
                }
                chars.next();
                term.clear();
                fold_char(prev.1, &mut term);
                fold_char(next, &mut term);
                let end = at + next.len_utf8();
                each(Token {
                    term: &term,
                    pos,
                    start: prev.0,
                    end,
                    kind: TokenKind::Pair,
                });
                pos += 1;
                prev = (at, next);
                run_len += 1;
            }
            term.clear();
            fold_char(prev.1, &mut term);
            each(Token {
                term: &term,
                pos,
                start: prev.0,
                end: prev.0 + prev.1.len_utf8(),
                kind: if run_len == 1 {
                    TokenKind::Single
                } else {
                    TokenKind::Tail
                },
            });
            pos += 1;
            continue;
        }
        if !is_word_char(c) || is_combining_mark(c) {
            continue;
        }
        term.clear();
        fold_char(c, &mut term);
        let mut end = start + c.len_utf8();
        let mut last = c;
        while let Some(&(at, next)) = chars.peek() {
            let joins = if next == '.' {
                last.is_ascii_digit()
                    && text[at + 1..]
                        .chars()
                        .next()
                        .is_some_and(|d| d.is_ascii_digit())
            } else {
                is_word_char(next)
            };
            if !joins {
                break;
            }
            chars.next();
            if term.len() < MAX_TERM_BYTES {
                fold_char(next, &mut term);
            }
            end = at + next.len_utf8();
            last = next;
        }
        if term.len() > MAX_TERM_BYTES {
            let mut cut = MAX_TERM_BYTES;
            while !term.is_char_boundary(cut) {
                cut -= 1;
            }
            term.truncate(cut);
        }
        if term.is_empty() {
            continue;
        }
        each(Token {
            term: &term,
            pos,
            start,
            end,
            kind: TokenKind::Word,
        });
        pos += 1;
    }
    pos
}

/// The tokens of `text` as owned `(term, pos, kind)` triples (for tests and queries).
pub fn terms(text: &str) -> Vec<(String, u32, TokenKind)> {
    let mut out = Vec::new();
    tokenize(text, 0, |t| out.push((t.term.to_string(), t.pos, t.kind)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        terms(text).into_iter().map(|(t, _, _)| t).collect()
    }

    #[test]
    fn words_identifiers_and_versions_stay_whole() {
        assert_eq!(
            words("Use snake_case_name, CamelCase and v1.2.3 (or 3.14) in file.rs!"),
            [
                "use",
                "snake_case_name",
                "camelcase",
                "and",
                "v1.2.3",
                "or",
                "3.14",
                "in",
                "file",
                "rs"
            ]
        );
        assert_eq!(
            words("end. 2 state-of-the-art"),
            ["end", "2", "state", "of", "the", "art"]
        );
        assert_eq!(words("Café naïve"), ["cafe", "naive"]);
    }

    #[test]
    fn cjk_runs_become_bigrams_and_a_tail() {
        let t = terms("学习Rust机器学习");
        let got: Vec<_> = t.iter().map(|(t, p, _)| (t.as_str(), *p)).collect();
        assert_eq!(
            got,
            [
                ("学习", 0),
                ("习", 1),
                ("rust", 2),
                ("机器", 3),
                ("器学", 4),
                ("学习", 5),
                ("习", 6)
            ]
        );
        assert_eq!(terms("猫")[0].2, TokenKind::Single);
        assert_eq!(
            words("ひらがなカタカナ"),
            ["ひら", "らが", "がな", "なカ", "カタ", "タカ", "カナ", "ナ"]
        );
    }

    #[test]
    fn byte_ranges_are_char_boundaries_and_long_terms_are_cut() {
        let text = "é中文 ".to_string() + &"ß".repeat(100);
        tokenize(&text, 0, |t| {
            assert!(text.is_char_boundary(t.start) && text.is_char_boundary(t.end));
            assert!(t.term.len() <= MAX_TERM_BYTES);
        });
    }
}
