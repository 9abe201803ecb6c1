//! The query language of the search box.
//!
//! - Words are ANDed and ranked: `borrow checker` finds documents with both.
//! - The last word is also a prefix while it is being typed: `borrow che` matches
//!   `checker` (not when the query ends with a space or a quote, nor for a one-letter
//!   word).
//! - `"quoted words"` must appear next to each other in that order (a phrase). An
//!   unclosed quote runs to the end of the query.
//! - A word of [`FUZZY_MIN_CHARS`] characters or more without digits also matches terms
//!   one edit away (a letter added, dropped, changed, or two neighbours swapped), ranked
//!   below exact matches.
//! - Chinese and Japanese: a run of two or more characters must appear as written (a
//!   phrase of its bigrams); a single character matches every term that starts with it.
//! - Case and diacritics never matter (`Crème` finds `creme`).
//!
//! A query longer than [`MAX_QUERY_BYTES`] or with more than [`MAX_CLAUSES`] parts is
//! refused with a [`QueryError`].

use serde::{Deserialize, Serialize};

use super::token::{TokenKind, tokenize};

/// The longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 256;
/// The most parts (words, phrases) a query may have.
pub const MAX_CLAUSES: usize = 16;
/// Words this long (in characters) or longer also match one edit away.
pub const FUZZY_MIN_CHARS: usize = 5;

/// Why a query was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum QueryError {
    /// Nothing searchable (only spaces or punctuation).
    #[error("the query has no words")]
    Empty,
    /// Longer than [`MAX_QUERY_BYTES`].
    #[error("the query is longer than {max} bytes")]
    TooLong {
        /// The limit.
        max: usize,
    },
    /// More than [`MAX_CLAUSES`] parts.
    #[error("the query has more than {max} parts")]
    TooManyParts {
        /// The limit.
        max: usize,
    },
}

/// One part of a query; a document must match every part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Clause {
    /// A folded term.
    Term {
        /// The term.
        term: String,
        /// Also matches the terms it starts.
        prefix: bool,
        /// Also matches terms one edit away.
        fuzzy: bool,
    },
    /// One CJK character: matches every term starting with it.
    CharPrefix(String),
    /// Terms at fixed offsets from each other (offsets from the first).
    Phrase(Vec<(String, u32)>),
}

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    clauses: Vec<Clause>,
}

impl Query {
    /// Parses `text` (see the module documentation).
    pub fn parse(text: &str) -> Result<Self, QueryError> {
        if text.len() > MAX_QUERY_BYTES {
            return Err(QueryError::TooLong {
                max: MAX_QUERY_BYTES,
            });
        }
        let mut clauses = Vec::new();
        let ends_open = !text.ends_with(|c: char| c.is_whitespace() || c == '"');
        let segments: Vec<&str> = text.split('"').collect();
        let last_segment = segments.len() - 1;
        for (index, segment) in segments.iter().enumerate() {
            let quoted = index % 2 == 1;
            let mut tokens: Vec<(String, u32, TokenKind)> = Vec::new();
            tokenize(segment, 0, |t| {
                tokens.push((t.term.to_string(), t.pos, t.kind))
            });
            if quoted {
                let phrase: Vec<(String, u32)> = tokens
                    .into_iter()
                    .filter(|(_, _, kind)| *kind != TokenKind::Tail)
                    .map(|(term, pos, _)| (term, pos))
                    .collect();
                push_phrase(&mut clauses, phrase);
                continue;
            }
            let count = tokens.len();
            let mut run: Vec<(String, u32)> = Vec::new();
            for (i, (term, pos, kind)) in tokens.into_iter().enumerate() {
                match kind {
                    TokenKind::Pair => run.push((term, pos)),
                    TokenKind::Tail => push_phrase(&mut clauses, std::mem::take(&mut run)),
                    TokenKind::Single => clauses.push(Clause::CharPrefix(term)),
                    TokenKind::Word => {
                        let chars = term.chars().count();
                        let prefix =
                            index == last_segment && i + 1 == count && ends_open && chars >= 2;
                        let fuzzy = !prefix
                            && chars >= FUZZY_MIN_CHARS
                            && !term.chars().any(|c| c.is_numeric());
                        clauses.push(Clause::Term {
                            term,
                            prefix,
                            fuzzy,
                        });
                    }
                }
            }
        }
        let mut unique: Vec<Clause> = Vec::with_capacity(clauses.len());
        for clause in clauses {
            if !unique.contains(&clause) {
                unique.push(clause);
            }
        }
        if unique.is_empty() {
            return Err(QueryError::Empty);
        }
        if unique.len() > MAX_CLAUSES {
            return Err(QueryError::TooManyParts { max: MAX_CLAUSES });
        }
        Ok(Self { clauses: unique })
    }

    /// The parts of the query, in the order written.
    pub fn clauses(&self) -> &[Clause] {
        &self.clauses
    }
}

/// A phrase of one term is that term, exactly.
fn push_phrase(clauses: &mut Vec<Clause>, mut phrase: Vec<(String, u32)>) {
    match phrase.len() {
        0 => {}
        1 => clauses.push(Clause::Term {
            term: phrase.remove(0).0,
            prefix: false,
            fuzzy: false,
        }),
        _ => {
            let first = phrase[0].1;
            for (_, pos) in &mut phrase {
                *pos -= first;
            }
            clauses.push(Clause::Phrase(phrase));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(t: &str, prefix: bool, fuzzy: bool) -> Clause {
        Clause::Term {
            term: t.into(),
            prefix,
            fuzzy,
        }
    }

    #[test]
    fn words_prefix_phrases_and_fuzzy() {
        let q = Query::parse("Borrow \"the checker\" lifet").unwrap();
        assert_eq!(
            q.clauses(),
            [
                term("borrow", false, true),
                Clause::Phrase(vec![("the".into(), 0), ("checker".into(), 1)]),
                term("lifet", true, false),
            ]
        );
        // A trailing space closes the last word; digits are never fuzzy.
        let q = Query::parse("tokio 12345 ").unwrap();
        assert_eq!(
            q.clauses(),
            [term("tokio", false, true), term("12345", false, false)]
        );
        assert_eq!(
            Query::parse("a").unwrap().clauses(),
            [term("a", false, false)]
        );
    }

    #[test]
    fn cjk_runs_are_phrases_and_single_characters_prefixes() {
        let q = Query::parse("机器学习 猫").unwrap();
        assert_eq!(
            q.clauses(),
            [
                Clause::Phrase(vec![
                    ("机器".into(), 0),
                    ("器学".into(), 1),
                    ("学习".into(), 2)
                ]),
                Clause::CharPrefix("猫".into()),
            ]
        );
        let q = Query::parse("東京").unwrap();
        assert_eq!(q.clauses(), [term("東京", false, false)]);
        // Inside quotes the run's tail keeps its offset.
        let q = Query::parse("\"使用Rust\"").unwrap();
        assert_eq!(
            q.clauses(),
            [Clause::Phrase(vec![("使用".into(), 0), ("rust".into(), 2)])]
        );
    }

    #[test]
    fn limits_are_typed_errors() {
        assert_eq!(Query::parse("  ,. \"\" "), Err(QueryError::Empty));
        assert_eq!(
            Query::parse(&"a".repeat(MAX_QUERY_BYTES + 1)),
            Err(QueryError::TooLong {
                max: MAX_QUERY_BYTES
            })
        );
        let many: String = (0..MAX_CLAUSES + 1).map(|i| format!("w{i} ")).collect();
        assert_eq!(
            Query::parse(&many),
            Err(QueryError::TooManyParts { max: MAX_CLAUSES })
        );
    }
}
