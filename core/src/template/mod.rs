//! Prompt templates: text the user keeps and reuses, with typed `{{variables}}` that a
//! small form fills before the text joins the composer ([`Parsed::fill`]), and the
//! library that keeps them with their earlier versions ([`library`]).
//!
//! A variable is `{{name}}` (one line of text) or `{{name:kind}}`, the kind one of
//! `text`, `paragraph` (several lines), `number`, `date` (`YYYY-MM-DD`) or
//! `choice:a|b|c`. A name may use any letters (`{{言語}}`), not `{ } : |` or line
//! breaks; the same name twice is one variable (and must not change kind). `\{{` is a
//! literal `{{`. Anything else that opens `{{` and is not a variable is an error that
//! says where, so a typo never reaches a model as a silent literal.

pub mod library;

use serde::Serialize;

/// The most characters in a template's text.
pub const MAX_BODY_CHARS: usize = 20_000;
/// The most distinct variables in one template.
pub const MAX_VARIABLES: usize = 20;
/// The most characters in a variable's name.
pub const MAX_NAME_CHARS: usize = 40;
/// The most options of a choice.
pub const MAX_CHOICES: usize = 20;
/// The most characters of one filled-in value.
pub const MAX_VALUE_CHARS: usize = 10_000;

/// What a variable takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "options")]
pub enum VariableKind {
    /// One line of text.
    Text,
    /// Several lines of text.
    Paragraph,
    /// A number.
    Number,
    /// A calendar date, `YYYY-MM-DD`.
    Date,
    /// One of these options.
    Choice(Vec<String>),
}

/// A variable of a template, in the order it first appears.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    /// Its name, as written.
    pub name: String,
    /// What it takes.
    pub kind: VariableKind,
}

/// Why a template's text is not a template (nothing is kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase", tag = "code")]
pub enum TemplateError {
    /// The text is empty.
    #[error("the template is empty")]
    Empty,
    /// The text is over [`MAX_BODY_CHARS`].
    #[error("the template is over {MAX_BODY_CHARS} characters")]
    TooLong,
    /// A `{{` at `line` is never closed by `}}`.
    #[error("line {line}: “{{{{” is not closed")]
    Unclosed {
        /// The line, from 1.
        line: usize,
    },
    /// The variable at `line` has no name, or one with a character names cannot have,
    /// or one over [`MAX_NAME_CHARS`].
    #[error("line {line}: “{text}” is not a variable name")]
    BadName {
        /// The line, from 1.
        line: usize,
        /// What was between the braces.
        text: String,
    },
    /// The variable `name` at `line` has a kind this version does not know.
    #[error("line {line}: “{kind}” is not a kind of variable")]
    UnknownKind {
        /// The line, from 1.
        line: usize,
        /// The kind as written.
        kind: String,
    },
    /// The choice `name` has no options, an empty one, a repeated one, or too many.
    #[error("“{name}”: a choice needs 1 to {MAX_CHOICES} different options")]
    BadChoice {
        /// The variable.
        name: String,
    },
    /// `name` is used with two different kinds.
    #[error("“{name}” is used with two different kinds")]
    KindChanged {
        /// The variable.
        name: String,
    },
    /// More than [`MAX_VARIABLES`] variables.
    #[error("a template can have at most {MAX_VARIABLES} variables")]
    TooManyVariables,
}

/// Why a value does not fit its variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
pub enum ValueProblem {
    /// Nothing was filled in.
    #[error("required")]
    Missing,
    /// Over [`MAX_VALUE_CHARS`].
    #[error("too long")]
    TooLong,
    /// A line break in a one-line value.
    #[error("one line only")]
    LineBreak,
    /// Not a number.
    #[error("not a number")]
    NotANumber,
    /// Not a date `YYYY-MM-DD`.
    #[error("not a date")]
    NotADate,
    /// Not one of the options.
    #[error("not one of the options")]
    NotAnOption,
}

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Literal text.
    Text(String),
    /// The variable at this index of [`Parsed::variables`].
    Variable(usize),
}

/// A template's text, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pieces: Vec<Piece>,
    /// Its variables, in the order they first appear.
    pub variables: Vec<Variable>,
}

/// Reads a template's text: its literal pieces and its variables.
pub fn parse(body: &str) -> Result<Parsed, TemplateError> {
    if body.trim().is_empty() {
        return Err(TemplateError::Empty);
    }
    if body.chars().count() > MAX_BODY_CHARS {
        return Err(TemplateError::TooLong);
    }
    let mut pieces = Vec::new();
    let mut variables: Vec<Variable> = Vec::new();
    let mut text = String::new();
    let mut rest = body;
    while let Some(at) = rest.find("{{") {
        let line = line_of(body, rest, at);
        if rest[..at].ends_with('\\') {
            text.push_str(&rest[..at - 1]);
            text.push_str("{{");
            rest = &rest[at + 2..];
            continue;
        }
        text.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after
            .find("}}")
            .filter(|end| !after[..*end].contains('\n'))
            .ok_or(TemplateError::Unclosed { line })?;
        let variable = read_variable(&after[..end], line)?;
        let index = match variables.iter().position(|v| v.name == variable.name) {
            Some(index) if variables[index].kind != variable.kind => {
                return Err(TemplateError::KindChanged {
                    name: variable.name,
                });
            }
            Some(index) => index,
            None => {
                if variables.len() == MAX_VARIABLES {
                    return Err(TemplateError::TooManyVariables);
                }
                variables.push(variable);
                variables.len() - 1
            }
        };
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut text)));
        }
        pieces.push(Piece::Variable(index));
        rest = &after[end + 2..];
    }
    text.push_str(rest);
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(Parsed { pieces, variables })
}

/// The line (from 1) of `rest[at]` in `body` (`rest` is a tail of `body`).
fn line_of(body: &str, rest: &str, at: usize) -> usize {
    let offset = body.len() - rest.len() + at;
    body[..offset].matches('\n').count() + 1
}

/// One `name` or `name:kind` between braces.
fn read_variable(inside: &str, line: usize) -> Result<Variable, TemplateError> {
    let (name, kind) = match inside.split_once(':') {
        Some((name, kind)) => (name.trim(), Some(kind.trim())),
        None => (inside.trim(), None),
    };
    let bad_name = name.is_empty()
        || name.chars().count() > MAX_NAME_CHARS
        || name
            .chars()
            .any(|c| matches!(c, '{' | '}' | '|' | ':') || c.is_control());
    if bad_name {
        return Err(TemplateError::BadName {
            line,
            text: inside.chars().take(MAX_NAME_CHARS + 10).collect(),
        });
    }
    let name = name.to_string();
    let kind = match kind {
        None | Some("text") => VariableKind::Text,
        Some("paragraph") => VariableKind::Paragraph,
        Some("number") => VariableKind::Number,
        Some("date") => VariableKind::Date,
        Some(kind) => match kind.strip_prefix("choice:") {
            Some(options) => VariableKind::Choice(read_choices(options, &name)?),
            None => {
                return Err(TemplateError::UnknownKind {
                    line,
                    kind: kind.chars().take(MAX_NAME_CHARS).collect(),
                });
            }
        },
    };
    Ok(Variable { name, kind })
}

/// The options of `choice:a|b|c`: 1 to [`MAX_CHOICES`], none empty, none twice.
fn read_choices(options: &str, name: &str) -> Result<Vec<String>, TemplateError> {
    let options: Vec<String> = options.split('|').map(|o| o.trim().to_string()).collect();
    let mut seen = std::collections::HashSet::new();
    let fine = options.len() <= MAX_CHOICES
        && options
            .iter()
            .all(|o| !o.is_empty() && !o.contains('}') && seen.insert(o.as_str()));
    if fine {
        Ok(options)
    } else {
        Err(TemplateError::BadChoice {
            name: name.to_string(),
        })
    }
}

/// Whether `value` fits `kind`.
pub fn check(kind: &VariableKind, value: &str) -> Result<(), ValueProblem> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(ValueProblem::Missing);
    }
    if value.chars().count() > MAX_VALUE_CHARS {
        return Err(ValueProblem::TooLong);
    }
    match kind {
        VariableKind::Paragraph => Ok(()),
        _ if value.contains(['\n', '\r']) => Err(ValueProblem::LineBreak),
        VariableKind::Text => Ok(()),
        VariableKind::Number => trimmed
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(|_| ())
            .ok_or(ValueProblem::NotANumber),
        VariableKind::Date => is_date(trimmed).then_some(()).ok_or(ValueProblem::NotADate),
        VariableKind::Choice(options) => options
            .iter()
            .any(|o| o == trimmed)
            .then_some(())
            .ok_or(ValueProblem::NotAnOption),
    }
}

/// Whether `text` is a real calendar date `YYYY-MM-DD` (leap years counted).
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = &text[range];
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

impl Parsed {
    /// The text with every variable replaced by its value (`values` in the order of
    /// [`Self::variables`], trimmed; a paragraph keeps its inner lines), or every value
    /// that does not fit, by variable index.
    pub fn fill(&self, values: &[String]) -> Result<String, Vec<(usize, ValueProblem)>> {
        let problems: Vec<(usize, ValueProblem)> = self
            .variables
            .iter()
            .enumerate()
            .filter_map(|(index, variable)| {
                let value = values.get(index).map_or("", String::as_str);
                check(&variable.kind, value).err().map(|p| (index, p))
            })
            .collect();
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(self
            .pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => text.as_str(),
                Piece::Variable(index) => values[*index].trim(),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests;
