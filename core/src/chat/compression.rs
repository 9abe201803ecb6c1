//! Compressing a long conversation with a task model: once the active path holds more
//! than [`COMPRESS_AFTER_TURNS`] turns past the last summary, everything but the newest
//! [`KEEP_TURNS`] turns is folded (with the previous summary) into a new one. A run then
//! sends the summary in the system prompt and only the turns after it. Stored messages
//! are never changed; a summary applies only while the message it reaches is on the
//! active path, so switching to another branch falls back to the whole history.

use serde::{Deserialize, Serialize};

use crate::provider::request::{ChatRequest, Message, Part};
use crate::provider::think::strip_think;

/// More turns than this past the last summary start a new one.
pub const COMPRESS_AFTER_TURNS: usize = 12;
/// The newest turns always sent whole.
pub const KEEP_TURNS: usize = 4;
/// The most characters of conversation sent to the compression model (newest kept).
const MAX_SOURCE_CHARS: usize = 60_000;
/// The longest summary kept, in characters.
pub const MAX_SUMMARY_CHARS: usize = 8_000;
/// The output limit of a compression request.
const SUMMARY_MAX_TOKENS: u64 = 1_024;

const INSTRUCTION: &str = "You summarise conversations so they can continue without the \
full history. Write a compact summary of the conversation below in its own language: \
the user's goals, facts and decisions, names, numbers and code identifiers that later \
messages may refer to, and open questions. If a previous summary is given, merge it in. \
Answer with the summary only.";

/// The summary a conversation carries, stored on its record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compression {
    /// The summary of everything up to and including `through_message_id`.
    pub summary: String,
    /// The last message the summary covers.
    pub through_message_id: String,
}

/// One message of the active path, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathMessage<'a> {
    /// The message's id.
    pub id: &'a str,
    /// Written by the user (a turn starts with one).
    pub user: bool,
    /// Its text.
    pub text: &'a str,
}

/// Where the messages after `compression` start on `path`, if its last message is there.
fn after(path: &[PathMessage<'_>], compression: Option<&Compression>) -> Option<usize> {
    let compression = compression?;
    path.iter()
        .position(|m| m.id == compression.through_message_id)
        .map(|i| i + 1)
}

/// The indexes on `path` where turns start, from `from` on.
fn turn_starts(path: &[PathMessage<'_>], from: usize) -> Vec<usize> {
    (from..path.len()).filter(|&i| path[i].user).collect()
}

/// If `path` (the active path of finished messages) is due for compression, the index of
/// the last message to fold into the new summary.
pub fn due(path: &[PathMessage<'_>], current: Option<&Compression>) -> Option<usize> {
    let from = after(path, current).unwrap_or(0);
    let starts = turn_starts(path, from);
    if starts.len() <= COMPRESS_AFTER_TURNS {
        return None;
    }
    // Fold everything before the first of the turns kept whole.
    let keep_from = starts[starts.len() - KEEP_TURNS];
    (keep_from > 0).then(|| keep_from - 1)
}

/// The request asking `model` to fold `path[..=through]` (after the current summary,
/// merged with it) into a new summary.
pub fn compression_request(
    model: &str,
    path: &[PathMessage<'_>],
    through: usize,
    current: Option<&Compression>,
) -> ChatRequest {
    let from = after(path, current).filter(|&i| i <= through).unwrap_or(0);
    let mut transcript = String::new();
    for message in &path[from..=through.min(path.len().saturating_sub(1))] {
        let who = if message.user { "User" } else { "Assistant" };
        transcript.push_str(&format!("{who}: {}\n\n", strip_think(message.text).trim()));
    }
    // Bounded, newest kept: the previous summary covers what came before.
    if transcript.chars().count() > MAX_SOURCE_CHARS {
        let skip = transcript.chars().count() - MAX_SOURCE_CHARS;
        transcript = format!("…{}", transcript.chars().skip(skip).collect::<String>());
    }
    let previous = current
        .filter(|_| from > 0)
        .map(|c| format!("Previous summary:\n{}\n\n", c.summary))
        .unwrap_or_default();
    ChatRequest {
        model: model.to_string(),
        system: Some(INSTRUCTION.to_string()),
        messages: vec![Message::User {
            parts: vec![Part::Text {
                text: format!("{previous}Conversation:\n\n{transcript}Summary:"),
            }],
        }],
        max_output_tokens: Some(SUMMARY_MAX_TOKENS),
        ..Default::default()
    }
}

/// The summary in a compression model's answer (reasoning removed, bounded), or `None`
/// when it holds nothing.
pub fn clean_summary(answer: &str) -> Option<String> {
    let text = strip_think(answer);
    let text = text.trim();
    let text = text
        .strip_prefix("Summary:")
        .map(str::trim_start)
        .unwrap_or(text);
    if text.is_empty() {
        return None;
    }
    Some(text.chars().take(MAX_SUMMARY_CHARS).collect())
}

/// What a run sends for `path` (without the new message): the summary to put in the
/// system prompt and the index where the messages sent whole begin. `None` when there
/// is no summary or it does not apply to this path (another branch).
pub fn applied<'c>(
    path: &[PathMessage<'_>],
    compression: Option<&'c Compression>,
) -> Option<(&'c str, usize)> {
    let start = after(path, compression)?;
    Some((compression?.summary.as_str(), start))
}

/// The system prompt a run sends: the user's, then the summary of earlier turns.
pub fn system_with_summary(system: Option<String>, summary: Option<&str>) -> Option<String> {
    let block = summary.map(|s| format!("Summary of the earlier conversation:\n{s}"));
    match (system, block) {
        (Some(system), Some(block)) => Some(format!("{system}\n\n{block}")),
        (system, block) => system.or(block),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `turns` question/answer pairs with ids `q1`, `a1`, `q2`, `a2`, …
    fn ids(turns: usize) -> Vec<(String, bool, String)> {
        (1..=turns)
            .flat_map(|n| {
                [
                    (format!("q{n}"), true, format!("Question {n}")),
                    (format!("a{n}"), false, format!("Answer {n}")),
                ]
            })
            .collect()
    }

    fn path(rows: &[(String, bool, String)]) -> Vec<PathMessage<'_>> {
        rows.iter()
            .map(|(id, user, text)| PathMessage {
                id,
                user: *user,
                text,
            })
            .collect()
    }

    #[test]
    fn a_conversation_is_due_after_twelve_turns_and_keeps_four_whole() {
        let twelve = ids(12);
        assert_eq!(due(&path(&twelve), None), None);
        let thirteen = ids(13);
        let p = path(&thirteen);
        let through = due(&p, None).expect("due after 13 turns");
        // Turns 10..=13 stay whole: fold through a9.
        assert_eq!(p[through].id, "a9");
    }

    #[test]
    fn counting_restarts_after_the_last_summary() {
        let rows = ids(20);
        let p = path(&rows);
        let done = Compression {
            summary: "s".into(),
            through_message_id: "a9".into(),
        };
        // 11 turns after a9: not due yet.
        assert_eq!(due(&p, Some(&done)), None);
        let rows = ids(22);
        let p = path(&rows);
        // 13 turns after a9: fold through a18, keep 19..=22.
        assert_eq!(p[due(&p, Some(&done)).unwrap()].id, "a18");
    }

    #[test]
    fn the_request_merges_the_previous_summary_and_only_new_turns() {
        let rows = ids(22);
        let p = path(&rows);
        let done = Compression {
            summary: "Earlier: the user likes Rust.".into(),
            through_message_id: "a9".into(),
        };
        let through = due(&p, Some(&done)).unwrap();
        let request = compression_request("small", &p, through, Some(&done));
        let Message::User { parts } = &request.messages[0] else {
            panic!("a user message")
        };
        let Part::Text { text } = &parts[0] else {
            panic!("text")
        };
        assert!(text.contains("Previous summary:\nEarlier: the user likes Rust."));
        assert!(text.contains("User: Question 10") && text.contains("Assistant: Answer 18"));
        assert!(!text.contains("Question 9\n") && !text.contains("Question 19"));
        assert_eq!(request.max_output_tokens, Some(SUMMARY_MAX_TOKENS));
    }

    #[test]
    fn the_request_is_bounded_and_leaves_reasoning_out() {
        let long = "x".repeat(MAX_SOURCE_CHARS);
        let rows = vec![
            ("q1".to_string(), true, long.clone()),
            (
                "a1".to_string(),
                false,
                format!("<think>private</think>{long}"),
            ),
        ];
        let p = path(&rows);
        let request = compression_request("m", &p, 1, None);
        let Message::User { parts } = &request.messages[0] else {
            panic!()
        };
        let Part::Text { text } = &parts[0] else {
            panic!()
        };
        assert!(text.chars().count() < MAX_SOURCE_CHARS + 200);
        assert!(!text.contains("private"));
    }

    #[test]
    fn a_summary_applies_only_on_its_own_branch() {
        let rows = ids(6);
        let p = path(&rows);
        let done = Compression {
            summary: "S".into(),
            through_message_id: "a2".into(),
        };
        assert_eq!(applied(&p, Some(&done)), Some(("S", 4)));
        let other = Compression {
            summary: "S".into(),
            through_message_id: "elsewhere".into(),
        };
        assert_eq!(applied(&p, Some(&other)), None);
        assert_eq!(applied(&p, None), None);
    }

    #[test]
    fn answers_become_summaries_and_system_prompts_combine() {
        assert_eq!(
            clean_summary("<think>hmm</think>\nSummary: They want X.").as_deref(),
            Some("They want X.")
        );
        assert_eq!(clean_summary("  "), None);
        assert_eq!(
            clean_summary(&"y".repeat(MAX_SUMMARY_CHARS * 2))
                .unwrap()
                .chars()
                .count(),
            MAX_SUMMARY_CHARS
        );
        assert_eq!(
            system_with_summary(Some("Be brief.".into()), Some("S")).as_deref(),
            Some("Be brief.\n\nSummary of the earlier conversation:\nS")
        );
        assert_eq!(
            system_with_summary(None, Some("S")).as_deref(),
            Some("Summary of the earlier conversation:\nS")
        );
        assert_eq!(system_with_summary(None, None), None);
    }
}
