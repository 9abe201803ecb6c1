//! The built-in `ask_user` tool: the model asks the user one or several questions, each
//! with options and, unless it says otherwise, room for "something else"; the reply
//! waits until the user answers or declines, and the answer is the call's result.
//!
//! - [`questions_of`] checks a call's arguments (bounded: [`MAX_QUESTIONS`] questions,
//!   [`MAX_OPTIONS`] options each); what cannot be asked is a sentence the model reads.
//! - [`check_answers`] checks what the user gave: every question answered, choices only
//!   from its options (one unless it allows several), "something else" only where
//!   allowed. An unanswered question never becomes an answer.
//! - [`answered_result`] and [`DECLINED_RESULT`] are what the model reads.
//!
//! A question waits as `ToolCallStatus::AwaitingAnswer`: stored, it survives a reload
//! and reopens still open (`crate::chat::tools::ToolCallRecord::reopened`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::chat::tools::{ToolCallRecord, ToolCallStatus};
use crate::plugin::Risk;
use crate::plugin::selection::{ToolTarget, Toolset};
use crate::provider::request::ToolSpec;

/// The pseudo-plugin a call to `ask_user` resolves to.
pub const ASK_USER_PLUGIN_ID: &str = "builtin:ask-user";
/// The tool's name.
pub const ASK_USER_TOOL: &str = "ask_user";
/// The most questions in one call.
pub const MAX_QUESTIONS: usize = 4;
/// The most options of one question.
pub const MAX_OPTIONS: usize = 8;
/// The longest question.
pub const MAX_QUESTION_CHARS: usize = 500;
/// The longest option.
pub const MAX_OPTION_CHARS: usize = 200;
/// The longest "something else" answer.
pub const MAX_OTHER_CHARS: usize = 2_000;
/// What the model reads when the user declined to answer.
pub const DECLINED_RESULT: &str =
    "The user declined to answer. Go on without their answer, or say what you need.";

/// One question the model asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// The question.
    pub question: String,
    /// The options to choose from (none: only a free answer).
    pub options: Vec<String>,
    /// Whether several options may be chosen.
    pub multiple: bool,
    /// Whether the user may answer something else in their own words.
    pub other: bool,
}

/// The user's answer to one question.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Answer {
    /// The options chosen.
    pub chosen: Vec<String>,
    /// Something else, in the user's words ("" when none).
    pub other: String,
}

/// Why the user's answers cannot be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerError {
    /// Not one answer per question.
    Count,
    /// This question (from 0) has no answer.
    Unanswered(usize),
    /// This question was given a choice it does not offer, or several where it takes one.
    Choice(usize),
    /// This question's own words are not allowed, or too long.
    Other(usize),
}

/// The tool as offered to the model.
pub fn tool_spec() -> ToolSpec {
    ToolSpec {
        name: ASK_USER_TOOL.into(),
        description: "Ask the user when you cannot go on well without their choice: a \
                      preference, a missing detail, which of several ways to take. Give \
                      short options where you can; the user may also answer in their own \
                      words. Do not ask what you can decide or find out yourself. Their \
                      answer comes back as this call's result."
            .into(),
        parameters: json!({
            "type": "object",
            "required": ["questions"],
            "additionalProperties": false,
            "properties": {
                "questions": {
                    "type": "array", "minItems": 1, "maxItems": MAX_QUESTIONS,
                    "items": {
                        "type": "object",
                        "required": ["question"],
                        "additionalProperties": false,
                        "properties": {
                            "question": {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS},
                            "options": {"type": "array", "maxItems": MAX_OPTIONS,
                                "items": {"type": "string", "minLength": 1, "maxLength": MAX_OPTION_CHARS}},
                            "multiple": {"type": "boolean", "description": "Several options may be chosen"},
                            "allowOther": {"type": "boolean", "description": "The user may answer in their own words (default true)"}
                        }
                    }
                }
            }
        }),
    }
}

/// `toolset` with `ask_user` offered too, unless a tool of the user's already takes the
/// name.
pub fn offer(toolset: &mut Toolset) {
    if toolset.targets.contains_key(ASK_USER_TOOL) {
        return;
    }
    toolset.specs.push(tool_spec());
    toolset.targets.insert(
        ASK_USER_TOOL.into(),
        ToolTarget {
            plugin_id: ASK_USER_PLUGIN_ID.into(),
            plugin_title: "Ask the user".into(),
            function: ASK_USER_TOOL.into(),
            risk: Risk::Read,
            fingerprint: "ask-user-v1".into(),
            needs_auth: false,
            has_page: false,
        },
    );
}

/// The questions a call asks, checked; the sentence the model reads when they cannot be
/// asked.
pub fn questions_of(arguments: &Map<String, Value>) -> Result<Vec<Question>, String> {
    let listed = arguments
        .get("questions")
        .and_then(Value::as_array)
        .ok_or("`questions` must be a list of 1 to 4 questions.")?;
    if listed.is_empty() || listed.len() > MAX_QUESTIONS {
        return Err(format!(
            "Ask 1 to {MAX_QUESTIONS} questions at once, not {}.",
            listed.len()
        ));
    }
    listed
        .iter()
        .enumerate()
        .map(|(index, item)| question_of(index + 1, item))
        .collect()
}

fn question_of(number: usize, item: &Value) -> Result<Question, String> {
    let question = item["question"]
        .as_str()
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .ok_or(format!("Question {number} has no `question` text."))?;
    if question.chars().count() > MAX_QUESTION_CHARS {
        return Err(format!(
            "Question {number} is longer than {MAX_QUESTION_CHARS} characters."
        ));
    }
    let mut options: Vec<String> = Vec::new();
    if let Some(listed) = item.get("options").filter(|v| !v.is_null()) {
        let listed = listed
            .as_array()
            .ok_or(format!("The options of question {number} must be a list."))?;
        if listed.len() > MAX_OPTIONS {
            return Err(format!(
                "Question {number} has more than {MAX_OPTIONS} options."
            ));
        }
        for option in listed {
            let option = option
                .as_str()
                .map(str::trim)
                .filter(|o| !o.is_empty() && o.chars().count() <= MAX_OPTION_CHARS)
                .ok_or(format!(
                    "Each option of question {number} must be text of 1 to {MAX_OPTION_CHARS} characters."
                ))?;
            if !options.iter().any(|o| o == option) {
                options.push(option.to_string());
            }
        }
    }
    let multiple = item["multiple"].as_bool().unwrap_or(false);
    // Without options, only the user's own words can answer.
    let other = item["allowOther"].as_bool().unwrap_or(true) || options.is_empty();
    Ok(Question {
        question: question.to_string(),
        options,
        multiple,
        other,
    })
}

/// Whether `answers` answer `questions`, one each, within what each allows.
pub fn check_answers(questions: &[Question], answers: &[Answer]) -> Result<(), AnswerError> {
    if questions.len() != answers.len() {
        return Err(AnswerError::Count);
    }
    for (index, (question, answer)) in questions.iter().zip(answers).enumerate() {
        let other = answer.other.trim();
        if answer.chosen.is_empty() && other.is_empty() {
            return Err(AnswerError::Unanswered(index));
        }
        let offered = answer
            .chosen
            .iter()
            .all(|c| question.options.iter().any(|o| o == c));
        if !offered || (!question.multiple && answer.chosen.len() > 1) {
            return Err(AnswerError::Choice(index));
        }
        if !other.is_empty() && (!question.other || other.chars().count() > MAX_OTHER_CHARS) {
            return Err(AnswerError::Other(index));
        }
    }
    Ok(())
}

/// What the model reads once the user answered: each question with its answer.
pub fn answered_result(questions: &[Question], answers: &[Answer]) -> String {
    let mut text = String::from("The user answered:");
    for (question, answer) in questions.iter().zip(answers) {
        let mut said: Vec<String> = answer.chosen.clone();
        let other = answer.other.trim();
        if !other.is_empty() {
            said.push(format!("(in their own words) {other}"));
        }
        text.push_str(&format!(
            "\n- {}\n  → {}",
            question.question,
            said.join("; ")
        ));
    }
    text
}

/// Settles the waiting call `call` with the user's `answers` (`None`: declined).
/// Refused, the call is left waiting: an incomplete answer is never sent.
pub fn settle(call: &mut ToolCallRecord, answers: Option<&[Answer]>) -> Result<(), AnswerError> {
    let Some(answers) = answers else {
        call.settle(ToolCallStatus::Done, DECLINED_RESULT, false);
        return Ok(());
    };
    let arguments: Map<String, Value> = serde_json::from_str(&call.arguments).unwrap_or_default();
    let questions = questions_of(&arguments).map_err(|_| AnswerError::Count)?;
    check_answers(&questions, answers)?;
    call.settle(
        ToolCallStatus::Done,
        answered_result(&questions, answers),
        false,
    );
    call.structured = encode_answers(answers);
    Ok(())
}

/// The stored answers of a call (its `structured` text), if it was answered.
pub fn decode_answers(structured: &str) -> Option<Vec<Answer>> {
    serde_json::from_str(structured).ok()
}

/// The answers as a call keeps them (in its `structured` text, which only an MCP App's
/// page otherwise uses; never sent to the model).
pub fn encode_answers(answers: &[Answer]) -> String {
    serde_json::to_string(answers).unwrap_or_default()
}

#[cfg(test)]
mod tests;
