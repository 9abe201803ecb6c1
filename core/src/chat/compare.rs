//! Several models answering one question side by side, and one answer merged from
//! theirs.
//!
//! The replies of a comparison are siblings in the message tree (branches of the same
//! turn) whose records carry the same `compare` mark; the branch the user picks is the
//! active one, which the conversation goes on from. A merged reply is one more sibling,
//! written by a model that reads the compared answers as data (the planner's
//! [`Band::Answers`](crate::context::Band::Answers)), never as instructions; its record
//! names them (`merged_from`).

use crate::chat::queue::RunOutcome;
use crate::chat::request::ContextItem;
use crate::preferences::ModelRef;

/// The fewest models a comparison asks.
pub const MIN_MODELS: usize = 2;
/// The most models a comparison asks.
pub const MAX_MODELS: usize = 4;

/// Why a comparison or a merge cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    /// More models than a comparison takes.
    #[error("a comparison asks at most {MAX_MODELS} models, not {0}")]
    TooMany(usize),
    /// A merge needs two answers with text.
    #[error("a merge needs at least {MIN_MODELS} answers with text, not {0}")]
    TooFewAnswers(usize),
}

/// The models a message goes to: `chosen` first, then `also` in order, each once. One
/// model is an ordinary reply; two to [`MAX_MODELS`] are a comparison.
pub fn lineup(chosen: &ModelRef, also: &[ModelRef]) -> Result<Vec<ModelRef>, CompareError> {
    let mut models = vec![chosen.clone()];
    for model in also {
        if !models.contains(model) {
            models.push(model.clone());
        }
    }
    if models.len() > MAX_MODELS {
        return Err(CompareError::TooMany(models.len()));
    }
    Ok(models)
}

/// How runs that went side by side ended, for the messages queued behind them: done
/// when any is, stopped when all were, failed otherwise.
pub fn together(outcomes: &[RunOutcome]) -> RunOutcome {
    if outcomes.contains(&RunOutcome::Completed) {
        RunOutcome::Completed
    } else if !outcomes.is_empty() && outcomes.iter().all(|o| *o == RunOutcome::Stopped) {
        RunOutcome::Stopped
    } else {
        RunOutcome::Failed
    }
}

/// One compared answer, as a merge reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer<'a> {
    /// The reply's id.
    pub id: &'a str,
    /// The model that wrote it.
    pub model: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// What a merge adds to the system prompt, before the answers (which come as context).
pub const MERGE_INSTRUCTION: &str = "Several assistants answered the user's last message; \
their answers follow as numbered context. Write the single best answer to the user's \
message yourself: keep what is correct and useful in them, correct what is wrong, and say \
plainly where they disagree and which view is better supported. Do not mention the \
answers or the assistants unless the user asks.";

/// The system prompt of a merge: the user's instructions (if any), then
/// [`MERGE_INSTRUCTION`].
pub fn merge_system(system: Option<String>) -> String {
    match system {
        Some(system) if !system.trim().is_empty() => format!("{system}\n\n{MERGE_INSTRUCTION}"),
        _ => MERGE_INSTRUCTION.to_string(),
    }
}

/// Whether the reply `id` with comparison mark `mark` leads its comparison (the mark is
/// the first reply's id): the one whose completion titles the conversation. A reply
/// outside any comparison leads itself.
pub fn leads(id: &str, mark: Option<&str>) -> bool {
    mark.is_none_or(|mark| mark == id)
}

/// The answers worth merging (those with text), in order; `TooFewAnswers` when fewer
/// than two have any.
pub fn mergeable<'a>(answers: &[Answer<'a>]) -> Result<Vec<Answer<'a>>, CompareError> {
    let with_text: Vec<Answer<'a>> = answers
        .iter()
        .filter(|answer| !answer.text.trim().is_empty())
        .copied()
        .collect();
    if with_text.len() < MIN_MODELS {
        return Err(CompareError::TooFewAnswers(with_text.len()));
    }
    Ok(with_text)
}

/// The answers as context items, numbered in their order, each under its model's name.
pub fn merge_items(answers: &[Answer<'_>]) -> Vec<ContextItem> {
    answers
        .iter()
        .enumerate()
        .map(|(index, answer)| ContextItem {
            id: format!("answer-{}", answer.id),
            source: format!("Answer {} ({})", index + 1, answer.model),
            origin: answer.model.to_string(),
            text: answer.text.trim().to_string(),
            missing: false,
            cite: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(provider: &str, id: &str) -> ModelRef {
        ModelRef {
            provider_id: provider.into(),
            model: id.into(),
        }
    }

    #[test]
    fn the_lineup_starts_with_the_chosen_model_and_names_each_once() {
        let chosen = model("p", "a");
        assert_eq!(lineup(&chosen, &[]).unwrap(), vec![chosen.clone()]);
        let also = [
            model("p", "b"),
            model("p", "a"),
            model("q", "a"),
            model("p", "b"),
        ];
        assert_eq!(
            lineup(&chosen, &also).unwrap(),
            [chosen.clone(), model("p", "b"), model("q", "a")]
        );
        let many = [
            model("p", "b"),
            model("p", "c"),
            model("p", "d"),
            model("p", "e"),
        ];
        assert_eq!(lineup(&chosen, &many), Err(CompareError::TooMany(5)));
        assert_eq!(lineup(&chosen, &many[..3]).unwrap().len(), MAX_MODELS);
    }

    #[test]
    fn a_merge_reads_the_answers_with_text_numbered_and_named() {
        let answers = [
            Answer {
                id: "r1",
                model: "small",
                text: " Paris. ",
            },
            Answer {
                id: "r2",
                model: "large",
                text: "  ",
            },
            Answer {
                id: "r3",
                model: "other",
                text: "It is Paris, the capital.",
            },
        ];
        let kept = mergeable(&answers).unwrap();
        assert_eq!(kept.iter().map(|a| a.id).collect::<Vec<_>>(), ["r1", "r3"]);
        let items = merge_items(&kept);
        assert_eq!(items[0].source, "Answer 1 (small)");
        assert_eq!(items[0].text, "Paris.");
        assert_eq!(items[1].source, "Answer 2 (other)");
        assert_eq!(items[1].id, "answer-r3");
        assert!(
            items
                .iter()
                .all(|item| item.cite.is_none() && !item.missing)
        );
        assert_eq!(
            mergeable(&answers[..2]),
            Err(CompareError::TooFewAnswers(1))
        );
        assert_eq!(merge_system(None), MERGE_INSTRUCTION);
        assert_eq!(merge_system(Some(" ".into())), MERGE_INSTRUCTION);
        assert!(merge_system(Some("Be brief.".into())).starts_with("Be brief.\n\nSeveral"));
    }

    #[test]
    fn runs_side_by_side_are_done_when_any_is() {
        use RunOutcome::{Completed, Failed, Stopped};
        assert_eq!(together(&[Failed, Completed, Stopped]), Completed);
        assert_eq!(together(&[Stopped, Stopped]), Stopped);
        assert_eq!(together(&[Stopped, Failed]), Failed);
        assert_eq!(together(&[]), Failed);
    }

    #[test]
    fn the_first_reply_leads_its_comparison() {
        assert!(leads("r1", None));
        assert!(leads("r1", Some("r1")));
        assert!(!leads("r2", Some("r1")));
    }
}
