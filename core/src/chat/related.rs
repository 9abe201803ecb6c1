//! Related questions under an answer: the request that asks the user's related-questions
//! model for a few follow-ups to an exchange, and how its answer becomes them (reasoning,
//! numbering, bullets, quotes and Markdown marks removed; at most [`MAX_RELATED`], each
//! one line of at most [`MAX_RELATED_CHARS`], none twice and none the question again).
//! They are plain text the user may send, never markup.

use super::title::exchange_request;
use crate::provider::request::ChatRequest;
use crate::provider::think::strip_think;

/// The most related questions kept.
pub const MAX_RELATED: usize = 3;
/// The longest related question, in characters.
pub const MAX_RELATED_CHARS: usize = 150;

/// The output limit of the request.
const RELATED_MAX_TOKENS: u64 = 200;

const INSTRUCTION: &str = "You suggest what the user might ask next. Answer with three \
short follow-up questions the user could ask about this exchange, in the language of the \
conversation, one per line, with no numbering and nothing else.";

/// The request asking `model` for follow-ups to `question` → `reply`.
pub fn related_request(model: &str, question: &str, reply: &str) -> ChatRequest {
    exchange_request(
        model,
        INSTRUCTION,
        (question, reply),
        "Follow-up questions:",
        RELATED_MAX_TOKENS,
    )
}

/// The questions in the model's `answer` (none when it holds nothing usable).
pub fn clean_related(answer: &str, question: &str) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    let asked = question.trim().to_lowercase();
    for line in strip_think(answer).lines() {
        let Some(cleaned) = clean_line(line) else {
            continue;
        };
        let folded = cleaned.to_lowercase();
        if folded == asked || kept.iter().any(|k| k.to_lowercase() == folded) {
            continue;
        }
        kept.push(cleaned);
        if kept.len() == MAX_RELATED {
            break;
        }
    }
    kept
}

fn clean_line(line: &str) -> Option<String> {
    let quotes = [
        '"', '\'', '“', '”', '‘', '’', '「', '」', '『', '』', '«', '»',
    ];
    let mut line = line.trim();
    // Bullets and numbering: `-`, `*`, `•`, `1.`, `2)`, `3、`.
    line = line.trim_start_matches(['-', '*', '•', '·']).trim_start();
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        let rest = &line[digits..];
        if let Some(after) = rest
            .strip_prefix('.')
            .or_else(|| rest.strip_prefix(')'))
            .or_else(|| rest.strip_prefix('、'))
        {
            line = after.trim_start();
        }
    }
    let line: String = line
        .trim_matches(|c| quotes.contains(&c))
        .chars()
        .filter(|c| !matches!(c, '*' | '_' | '`' | '#'))
        .collect();
    let line = line.trim();
    let words = line.chars().filter(|c| c.is_alphanumeric()).count();
    (words >= 2 && line.chars().count() <= MAX_RELATED_CHARS).then(|| line.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_bullets_quotes_and_marks_go_and_at_most_three_stay() {
        let answer = "<think>the user likes Rust</think>\n1. How do I **install** Rust?\n\
                      - \"What is `cargo`?\"\n\n* How do I install Rust?\n2) Is Rust fast?\n3、Rustは速い？\nA fourth one?";
        assert_eq!(
            clean_related(answer, "What is Rust?"),
            ["How do I install Rust?", "What is cargo?", "Is Rust fast?"]
        );
    }

    #[test]
    fn the_question_itself_empty_lines_and_overlong_ones_are_dropped() {
        let long = format!("Why {}?", "very ".repeat(40));
        let answer = format!("What is Rust?\n\n?\n{long}\nWhy is the sky blue?");
        assert_eq!(
            clean_related(&answer, "  what is rust?"),
            ["Why is the sky blue?"]
        );
        assert!(clean_related("", "q").is_empty());
        assert!(clean_related("<think>only thinking</think>", "q").is_empty());
    }

    use crate::provider::request::{Message, Part};

    #[test]
    fn the_request_quotes_the_exchange_bounded_and_asks_for_little() {
        let request = related_request("small", "What is Rust?", &"x".repeat(5_000));
        assert_eq!(request.model, "small");
        assert!(request.system.as_deref().unwrap().contains("three"));
        let Message::User { parts } = &request.messages[0] else {
            panic!("a user message");
        };
        let Part::Text { text } = &parts[0] else {
            panic!("text");
        };
        assert!(text.contains("User: What is Rust?"));
        assert!(text.chars().count() < 2_200, "{}", text.len());
        assert_eq!(request.max_output_tokens, Some(200));
        assert!(request.tools.is_empty());
    }
}
