//! Titling a conversation with a task model: the request that asks for a title, and how
//! the model's answer becomes one (reasoning, quotes, a `Title:` label and Markdown marks
//! removed, one line, at most [`super::record::MAX_TITLE_CHARS`]). When the title model fails or
//! answers nothing usable, the caller falls back to [`super::record::auto_title`].

use super::record::{first_line, shorten, strip_think};
use crate::provider::request::{ChatRequest, Message, Part};

/// How much of the first question and answer the title model reads, in characters.
const EXCERPT_CHARS: usize = 2_000;

/// The output limit of a title request.
const TITLE_MAX_TOKENS: u64 = 64;

const INSTRUCTION: &str = "You write titles for chat conversations. Answer with one short \
title (at most six words) in the language of the conversation, with no quotes, no \
punctuation at the end and nothing else.";

fn excerpt(text: &str) -> String {
    let text = strip_think(text);
    let mut cut: String = text.chars().take(EXCERPT_CHARS).collect();
    if text.chars().count() > EXCERPT_CHARS {
        cut.push('…');
    }
    cut
}

/// The request asking `model` to title the exchange `question` → `reply`.
pub fn title_request(model: &str, question: &str, reply: &str) -> ChatRequest {
    let text = format!(
        "Conversation:\n\nUser: {}\n\nAssistant: {}\n\nTitle:",
        excerpt(question),
        excerpt(reply)
    );
    ChatRequest {
        model: model.to_string(),
        system: Some(INSTRUCTION.to_string()),
        messages: vec![Message::User {
            parts: vec![Part::Text { text }],
        }],
        max_output_tokens: Some(TITLE_MAX_TOKENS),
        ..Default::default()
    }
}

/// The title in a title model's answer, or `None` when it holds no words.
pub fn clean_generated_title(answer: &str) -> Option<String> {
    let line = first_line(&strip_think(answer));
    let line = line.trim();
    let line = ["title:", "标题：", "标题:", "タイトル：", "タイトル:"]
        .iter()
        .find_map(|label| {
            line.get(..label.len())
                .filter(|head| head.eq_ignore_ascii_case(label))
                .map(|_| &line[label.len()..])
        })
        .unwrap_or(line);
    let quotes = [
        '"', '\'', '“', '”', '‘', '’', '「', '」', '『', '』', '«', '»',
    ];
    let line = line
        .trim()
        .trim_matches(|c| quotes.contains(&c))
        .trim_end_matches(['.', '。', '!', '！'])
        .trim();
    (!line.is_empty()).then(|| shorten(line))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::record::MAX_TITLE_CHARS;

    #[test]
    fn the_request_carries_both_sides_without_reasoning_and_bounded() {
        let long = "word ".repeat(2_000);
        let request = title_request(
            "small",
            "How do I sort in Rust?",
            &format!("<think>secret plan</think>Use sort(). {long}"),
        );
        assert_eq!(request.model, "small");
        assert_eq!(request.max_output_tokens, Some(TITLE_MAX_TOKENS));
        let Message::User { parts } = &request.messages[0] else {
            panic!("a user message");
        };
        let Part::Text { text } = &parts[0] else {
            panic!("text");
        };
        assert!(text.contains("How do I sort in Rust?"));
        assert!(text.contains("Use sort()."));
        assert!(!text.contains("secret plan"));
        assert!(text.chars().count() < 2 * EXCERPT_CHARS + 100, "bounded");
        assert!(request.system.is_some());
        assert!(request.tools.is_empty());
    }

    #[test]
    fn answers_become_clean_titles() {
        for (answer, expected) in [
            ("Sorting vectors in Rust", "Sorting vectors in Rust"),
            ("\"Sorting vectors in Rust\"", "Sorting vectors in Rust"),
            ("Title: Sorting in Rust.", "Sorting in Rust"),
            ("TITLE: **Sorting** in Rust", "Sorting in Rust"),
            (
                "<think>they want a title</think>\n\nRust sorting\nExplanation…",
                "Rust sorting",
            ),
            ("「Rust の並べ替え」", "Rust の並べ替え"),
            ("标题：Rust 排序", "Rust 排序"),
            ("# Heading title", "Heading title"),
        ] {
            assert_eq!(
                clean_generated_title(answer).as_deref(),
                Some(expected),
                "{answer}"
            );
        }
        for empty in ["", "   ", "<think>only thoughts</think>", "\"\"", "Title:"] {
            assert_eq!(clean_generated_title(empty), None, "{empty:?}");
        }
        let long = clean_generated_title(&"word ".repeat(40)).unwrap();
        assert!(long.chars().count() <= MAX_TITLE_CHARS + 1, "{long}");
        assert!(long.ends_with('…'));
    }
}
