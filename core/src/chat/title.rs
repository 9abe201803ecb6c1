//! Conversation titles: the one derived from the first exchange's text ([`auto_title`]),
//! the request that asks a title model for one, and how that model's answer becomes one
//! (reasoning, quotes, a `Title:` label and Markdown marks removed, one line, at most
//! [`MAX_TITLE_CHARS`]). When the title model fails or answers nothing usable, the caller
//! falls back to [`auto_title`].

use crate::provider::request::{ChatRequest, Message, Part};
use crate::provider::think::strip_think;

/// The longest automatic title, in characters.
pub const MAX_TITLE_CHARS: usize = 60;

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
    exchange_request(
        model,
        INSTRUCTION,
        (question, reply),
        "Title:",
        TITLE_MAX_TOKENS,
    )
}

/// A task model's request about one exchange (`question`, `reply`), both excerpted:
/// `instruction` as its system prompt, the exchange quoted, then `ask`.
pub(crate) fn exchange_request(
    model: &str,
    instruction: &str,
    (question, reply): (&str, &str),
    ask: &str,
    max_output_tokens: u64,
) -> ChatRequest {
    let text = format!(
        "Conversation:\n\nUser: {}\n\nAssistant: {}\n\n{ask}",
        excerpt(question),
        excerpt(reply)
    );
    ChatRequest {
        model: model.to_string(),
        system: Some(instruction.to_string()),
        messages: vec![Message::User {
            parts: vec![Part::Text { text }],
        }],
        max_output_tokens: Some(max_output_tokens),
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

/// A title from the first exchange: the question's first line (it names a conversation
/// better than the reply does), or else the reply's, with reasoning (`<think>` blocks),
/// code fences and Markdown marks stripped, cut at [`MAX_TITLE_CHARS`] on a word
/// boundary. `None` when neither has any words.
pub fn auto_title(question: &str, reply: &str) -> Option<String> {
    [question, reply]
        .into_iter()
        .map(|text| first_line(&strip_think(text)))
        .find(|line| !line.is_empty())
        .map(|line| shorten(&line))
}

/// The first line of `text` with words in it, outside code fences, without Markdown marks
/// and with its spaces collapsed; empty when there is none.
fn first_line(text: &str) -> String {
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let cleaned: String = trimmed
            .trim_start_matches(['#', '>', '-', '*', '+', ' '])
            .chars()
            .filter(|c| !matches!(c, '*' | '_' | '`' | '[' | ']'))
            .collect();
        let cleaned = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
        if !cleaned.is_empty() {
            return cleaned;
        }
    }
    String::new()
}

/// `line`, cut at [`MAX_TITLE_CHARS`] on a word boundary (with `…`) when longer.
fn shorten(line: &str) -> String {
    if line.chars().count() <= MAX_TITLE_CHARS {
        return line.to_string();
    }
    let cut: String = line.chars().take(MAX_TITLE_CHARS).collect();
    let at_word = match cut.rfind(' ') {
        Some(space) if space > MAX_TITLE_CHARS / 2 => &cut[..space],
        _ => cut.as_str(),
    };
    format!("{}…", at_word.trim_end_matches([',', '.', ';', ':', ' ']))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn titles_come_from_the_question_without_reasoning_or_marks() {
        assert_eq!(
            auto_title("  ## How do **lifetimes** work?\nmore", "They…").as_deref(),
            Some("How do lifetimes work?")
        );
        assert_eq!(
            auto_title("<think>hmm</think>\n", "<think>plan</think>Rust ownership").as_deref(),
            Some("Rust ownership")
        );
        assert_eq!(auto_title("```\ncode\n```", "").as_deref(), None);
        let long = "word ".repeat(40);
        let title = auto_title(&long, "").unwrap();
        assert!(title.ends_with('…'));
        assert!(title.chars().count() <= MAX_TITLE_CHARS + 1);
        assert!(!title.contains("wo…"), "cut on a word boundary: {title}");
        assert_eq!(auto_title("你好世界", "").as_deref(), Some("你好世界"));
    }
}
