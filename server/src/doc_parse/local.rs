//! The local parser: the edge turns a file into Markdown itself, with no external
//! service. Runs inside the worker process only ([`super::worker`]).

use super::job::{Outcome, failure};

/// Parses `bytes` (named `name`, a hint only) into at most `max_output` bytes of text.
pub fn parse(bytes: &[u8], _name: Option<&str>, max_output: u64) -> Outcome {
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            let mut end = text
                .len()
                .min(usize::try_from(max_output).unwrap_or(usize::MAX));
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let notes = if end < text.len() {
                vec![hearth_core::api::doc_parse::ParseNote::Truncated { bytes: end as u64 }]
            } else {
                vec![]
            };
            Outcome::Completed {
                markdown: text[..end].to_string(),
                pages: vec![],
                notes,
            }
        }
        Err(_) => Outcome::Failed {
            error: failure("parse_unsupported", "This file type cannot be parsed here"),
        },
    }
}

/// The type of `bytes` as the job records it, or why it is refused.
pub fn kind_of(bytes: &[u8], _name: Option<&str>) -> Result<String, String> {
    if std::str::from_utf8(bytes).is_ok() {
        Ok("text".to_string())
    } else {
        Err("The file's bytes are not a type Hearth can parse".to_string())
    }
}
