//! Splits inline `<think>…</think>` reasoning out of answer text, as local servers
//! (Ollama, llama.cpp with some templates) send it.
//!
//! Only a `<think>` that opens the reply (after optional whitespace) starts reasoning, so
//! an answer that merely mentions the tag, in prose or in code, is left alone. Tags may be
//! split across chunks at any character: text that could still be the start of a tag is
//! held back until the next chunk decides it, and [`ThinkSplitter::finish`] releases
//! whatever is held (a round's text must be flushed before it is stored or echoed back).

use super::StreamEvent;

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing but whitespace so far; the reply may still open with `<think>`.
    Start,
    /// Inside the reasoning.
    Thinking,
    /// Just after `</think>`: the line breaks that separate it from the answer are
    /// dropped, in whichever chunk they arrive.
    AfterThink,
    /// Answer text; no more splitting.
    Answer,
}

/// The splitter for one reply.
#[derive(Debug)]
pub struct ThinkSplitter {
    state: State,
    held: String,
}

impl Default for ThinkSplitter {
    fn default() -> Self {
        Self::new()
    }
}

impl ThinkSplitter {
    /// A splitter at the start of a reply.
    pub fn new() -> Self {
        Self {
            state: State::Start,
            held: String::new(),
        }
    }

    /// Feeds answer text; returns text and reasoning events.
    pub fn push(&mut self, delta: &str) -> Vec<StreamEvent> {
        self.held.push_str(delta);
        let mut out = Vec::new();
        loop {
            match self.state {
                State::Start => {
                    let trimmed = self.held.trim_start();
                    if let Some(rest) = trimmed.strip_prefix(OPEN) {
                        self.held = rest.to_string();
                        self.state = State::Thinking;
                    } else if trimmed.is_empty() || OPEN.starts_with(trimmed) {
                        return out;
                    } else {
                        self.state = State::Answer;
                    }
                }
                State::Thinking => {
                    if let Some(end) = self.held.find(CLOSE) {
                        let reasoning = self.held[..end].to_string();
                        let rest = self.held[end + CLOSE.len()..].to_string();
                        emit(&mut out, reasoning, true);
                        self.held = rest;
                        self.state = State::AfterThink;
                    } else {
                        let keep = partial_suffix(&self.held, CLOSE);
                        let split = self.held.len() - keep;
                        let reasoning = self.held[..split].to_string();
                        self.held.drain(..split);
                        emit(&mut out, reasoning, true);
                        return out;
                    }
                }
                State::AfterThink => {
                    let rest = self.held.trim_start_matches(['\n', '\r']);
                    if rest.is_empty() {
                        self.held.clear();
                        return out;
                    }
                    self.held = rest.to_string();
                    self.state = State::Answer;
                }
                State::Answer => {
                    let text = std::mem::take(&mut self.held);
                    emit(&mut out, text, false);
                    return out;
                }
            }
        }
    }

    /// Releases held-back text at the end of the reply.
    pub fn finish(&mut self) -> Vec<StreamEvent> {
        let held = std::mem::take(&mut self.held);
        let mut out = Vec::new();
        match self.state {
            State::Thinking => emit(&mut out, held, true),
            State::Start | State::AfterThink | State::Answer => emit(&mut out, held, false),
        }
        out
    }
}

/// The answer in a whole `text`, its reasoning left out by the splitter's rule: only a
/// `<think>` that opens the text is reasoning (an unclosed one takes the rest of it), and
/// the line breaks after `</think>` go with it. Used on stored and task-model text (titles,
/// summaries), so it reads reasoning exactly as a streamed reply does.
pub fn strip_think(text: &str) -> String {
    let mut splitter = ThinkSplitter::new();
    let mut events = splitter.push(text);
    events.extend(splitter.finish());
    events
        .into_iter()
        .filter_map(|event| match event {
            StreamEvent::Text { delta } => Some(delta),
            _ => None,
        })
        .collect()
}

fn emit(out: &mut Vec<StreamEvent>, text: String, reasoning: bool) {
    if text.is_empty() {
        return;
    }
    out.push(if reasoning {
        StreamEvent::Reasoning { delta: text }
    } else {
        StreamEvent::Text { delta: text }
    });
}

/// The length of the longest suffix of `text` that is a proper prefix of `tag`.
fn partial_suffix(text: &str, tag: &str) -> usize {
    (1..tag.len())
        .rev()
        .find(|&n| {
            text.len() >= n
                && text.is_char_boundary(text.len() - n)
                && tag.starts_with(&text[text.len() - n..])
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `chunks` through a splitter and joins consecutive events of one kind.
    fn split(chunks: &[&str]) -> (String, String) {
        let mut splitter = ThinkSplitter::new();
        let mut events = Vec::new();
        for chunk in chunks {
            events.extend(splitter.push(chunk));
        }
        events.extend(splitter.finish());
        let mut text = String::new();
        let mut reasoning = String::new();
        for event in events {
            match event {
                StreamEvent::Text { delta } => text.push_str(&delta),
                StreamEvent::Reasoning { delta } => reasoning.push_str(&delta),
                other => panic!("unexpected {other:?}"),
            }
        }
        (reasoning, text)
    }

    const REPLY: &str = "\n<think>Let me weigh 中文 and <b>tags</b>.</think>\n\nThe answer is 42.";

    #[test]
    fn splits_reasoning_from_the_answer() {
        assert_eq!(
            split(&[REPLY]),
            (
                "Let me weigh 中文 and <b>tags</b>.".to_string(),
                "The answer is 42.".to_string()
            )
        );
    }

    #[test]
    fn every_split_point_gives_the_same_result() {
        let whole = split(&[REPLY]);
        let boundaries: Vec<usize> = (0..=REPLY.len())
            .filter(|i| REPLY.is_char_boundary(*i))
            .collect();
        for &i in &boundaries {
            assert_eq!(split(&[&REPLY[..i], &REPLY[i..]]), whole, "split at {i}");
            for &j in boundaries.iter().filter(|j| **j >= i) {
                assert_eq!(
                    split(&[&REPLY[..i], &REPLY[i..j], &REPLY[j..]]),
                    whole,
                    "split at {i} and {j}"
                );
            }
        }
    }

    #[test]
    fn a_tag_that_does_not_open_the_reply_is_just_text() {
        let reply = "Use `<think>` tags like this: <think>x</think>";
        assert_eq!(split(&[reply]), (String::new(), reply.to_string()));
    }

    #[test]
    fn unclosed_reasoning_is_reasoning_and_nothing_is_lost() {
        assert_eq!(
            split(&["<thi", "nk>still thinking </th"]),
            ("still thinking </th".to_string(), String::new())
        );
        assert_eq!(split(&["<thi"]), (String::new(), "<thi".to_string()));
        assert_eq!(split(&["   "]), (String::new(), "   ".to_string()));
    }

    #[test]
    fn plain_replies_pass_through_unchanged() {
        assert_eq!(
            split(&["Hello", ", world"]),
            (String::new(), "Hello, world".to_string())
        );
    }

    #[test]
    fn strip_think_keeps_the_answer_of_a_whole_text() {
        assert_eq!(strip_think(REPLY), "The answer is 42.");
        assert_eq!(strip_think("<think>only thoughts</think>"), "");
        assert_eq!(strip_think("<think>never closed"), "");
        let mention = "Use `<think>` tags like this: <think>x</think>";
        assert_eq!(strip_think(mention), mention);
        assert_eq!(strip_think("Plain"), "Plain");
    }
}
