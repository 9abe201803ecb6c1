//! One TeX formula to MathML within its budget: pulldown-latex writes into a sink that
//! refuses bytes past [`math_budget`] (which also stops its macro expansion), a parse
//! error shows only its first line, and the result passes the MathML sanitiser.

use std::fmt;

use super::{Labels, MAX_MATH_BYTES, inline_error, mathml};

/// How much of a parse error's message a formula shows: its first line, cut here.
/// pulldown-latex follows it with the source context of every macro expansion level.
pub(super) const MAX_MATH_ERROR_BYTES: usize = 120;

/// A parse error reduced to the first line of its message.
#[derive(Debug)]
struct MathError(String);

impl MathError {
    fn new(error: pulldown_latex::ParserError) -> Self {
        use fmt::Write as _;
        let mut line = FirstLine(String::new());
        let _ = write!(line, "{error}");
        Self(line.0)
    }
}

impl fmt::Display for MathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MathError {}

/// Keeps the first line of what is written, up to [`MAX_MATH_ERROR_BYTES`], and refuses
/// the rest (which stops the formatting).
struct FirstLine(String);

impl fmt::Write for FirstLine {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        for c in text.chars() {
            if c == '\n' || self.0.len() + c.len_utf8() > MAX_MATH_ERROR_BYTES {
                return Err(fmt::Error);
            }
            self.0.push(c);
        }
        Ok(())
    }
}

/// A byte sink that refuses to grow past its limit, which stops the MathML writer (and,
/// through it, the parser's macro expansion) there.
struct Capped {
    bytes: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Capped {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + bytes.len() > self.limit {
            return Err(std::io::ErrorKind::OutOfMemory.into());
        }
        self.bytes.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The most MathML a formula of `source_len` bytes may write: 1 KiB plus 64 bytes per
/// source byte (ordinary formulas write 4 to 12 per byte, `$x$` 40 in all), at most
/// [`MAX_MATH_BYTES`]. Proportional so that many small formulas cannot add up to much
/// more than their source.
pub fn math_budget(source_len: usize) -> usize {
    source_len
        .saturating_mul(64)
        .saturating_add(1024)
        .min(MAX_MATH_BYTES)
}

/// Renders `latex` to MathML without inline styles, or to an error element when it
/// would write more than [`math_budget`] allows.
pub(super) fn render(latex: &str, display: bool, labels: &Labels) -> String {
    let budget = math_budget(latex.len());
    let storage = pulldown_latex::Storage::new();
    let parser =
        pulldown_latex::Parser::new(latex, &storage).map(|event| event.map_err(MathError::new));
    let config = pulldown_latex::RenderConfig {
        display_mode: if display {
            pulldown_latex::config::DisplayMode::Block
        } else {
            pulldown_latex::config::DisplayMode::Inline
        },
        ..Default::default()
    };
    let mut out = Capped {
        bytes: Vec::new(),
        limit: budget,
    };
    pulldown_latex::write_mathml(&mut out, parser, config)
        .ok()
        .and_then(|()| String::from_utf8(out.bytes).ok())
        .map(|mathml| mathml::sanitize(&mathml).replace("<merror", "<merror class=\"math-error\""))
        .filter(|mathml| mathml.len() <= budget)
        .unwrap_or_else(|| inline_error(&labels.too_large, latex))
}
