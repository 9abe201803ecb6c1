//! The context planner: what of a conversation fits in the model's input, decided once,
//! here, for every producer (history, attachments, web search, knowledge bases, tools).
//!
//! The input budget is the model's context window minus the output reservation. The
//! fixed part of a request (system prompt, the new message with its images, tool
//! definitions) must fit, or the request fails with the recoverable
//! [`ContextError::BudgetExceeded`] — nothing is silently cut from what the user just
//! wrote. What remains is shared: each extra band (the attached files' passages, search,
//! knowledge, tool results) may use at most its weight of it, and history takes
//! everything the bands leave. History is kept in whole turns, newest first; the oldest
//! go first and no turn in the middle is ever skipped.
//!
//! An unknown context window is unknown, not zero and not a guess: nothing is trimmed.
//! Stored messages are never changed; a plan only says what to send.

use serde::{Deserialize, Serialize};

/// Tokens assumed for one image in a request.
pub const IMAGE_TOKENS: u64 = 1500;
/// Output reserved when neither the request nor the model sets a limit.
pub const DEFAULT_OUTPUT_RESERVATION: u64 = 4096;

/// A producer of context besides the conversation history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Band {
    /// Passages of the attached files (the question's first).
    Attachments,
    /// Web search results.
    Search,
    /// Knowledge-base passages.
    Rag,
    /// Earlier tool calls and results.
    Tools,
    /// The answers a merged reply combines (`crate::chat::compare`).
    Answers,
}

impl Band {
    /// Every band.
    pub const ALL: [Band; 5] = [
        Band::Attachments,
        Band::Search,
        Band::Rag,
        Band::Tools,
        Band::Answers,
    ];

    /// The largest share of the free budget this band may take, in percent.
    pub fn weight_percent(self) -> u64 {
        match self {
            Band::Attachments => 18,
            Band::Search => 14,
            Band::Rag => 14,
            Band::Tools => 8,
            // Only a merged reply has answers, and they are what it is about: the
            // largest share, and every band together stays within the free budget.
            Band::Answers => 46,
        }
    }
}

/// A token count, reported by a provider or estimated (shown with `~`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenCount {
    /// The count.
    pub value: u64,
    /// Whether it is an estimate.
    pub estimated: bool,
}

impl std::fmt::Display for TokenCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.estimated {
            write!(f, "~{}", self.value)
        } else {
            write!(f, "{}", self.value)
        }
    }
}

/// A conservative token estimate for `text`: a token per four ASCII characters and one
/// per other character (CJK text is close to a token a character).
pub fn estimate_tokens(text: &str) -> u64 {
    let ascii = text.bytes().filter(u8::is_ascii).count() as u64;
    let other = text.chars().filter(|c| !c.is_ascii()).count() as u64;
    ascii.div_ceil(4) + other
}

/// Something that can be sent or left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// Its id (a message, a search result, a passage…).
    pub id: String,
    /// Its size.
    pub tokens: u64,
}

/// What the planner is asked.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanInput {
    /// The model's context window, if known.
    pub context_window: Option<u64>,
    /// Output tokens to keep free (the request's or the model's output limit).
    pub output_reservation: Option<u64>,
    /// System prompt, new message (with its images) and tool definitions.
    pub fixed_tokens: u64,
    /// Earlier turns, oldest first; each is kept or dropped whole.
    pub history: Vec<Vec<Item>>,
    /// Extra context by band, most relevant first.
    pub extras: Vec<(Band, Vec<Item>)>,
}

/// What to send.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The input budget, if the window is known.
    pub input_budget: Option<u64>,
    /// Ids of the history items to send, oldest first.
    pub history: Vec<String>,
    /// Ids of history items left out (whole turns, oldest).
    pub dropped_history: Vec<String>,
    /// Ids of extra items to send, per band, in the order given.
    pub extras: Vec<(Band, Vec<String>)>,
    /// Ids of extra items left out.
    pub dropped_extras: Vec<String>,
    /// Tokens the sent input will use.
    pub tokens: u64,
}

/// Why a request cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "camelCase", tag = "code")]
pub enum ContextError {
    /// The fixed part alone exceeds the input budget (`CONTEXT_BUDGET_EXCEEDED`).
    #[error(
        "the message needs about {needed} tokens but the model accepts {available}; \
         shorten it, remove attachments or tools, or pick a model with a larger context"
    )]
    #[serde(rename = "CONTEXT_BUDGET_EXCEEDED")]
    BudgetExceeded {
        /// Tokens the fixed part needs.
        needed: u64,
        /// Tokens the model accepts.
        available: u64,
    },
}

impl ContextError {
    /// The stable code stored on the message.
    pub fn code(&self) -> &'static str {
        "CONTEXT_BUDGET_EXCEEDED"
    }

    /// Always recoverable: the user can change the message or the model.
    pub fn recoverable(&self) -> bool {
        true
    }
}

/// Plans one request.
pub fn plan(input: &PlanInput) -> Result<Plan, ContextError> {
    let Some(window) = input.context_window.filter(|w| *w > 0) else {
        return Ok(keep_everything(input));
    };
    let reservation = input
        .output_reservation
        .unwrap_or(DEFAULT_OUTPUT_RESERVATION.min(window / 4));
    let available = window.saturating_sub(reservation);
    if input.fixed_tokens > available {
        return Err(ContextError::BudgetExceeded {
            needed: input.fixed_tokens,
            available,
        });
    }
    let free = available - input.fixed_tokens;
    let mut plan = Plan {
        input_budget: Some(available),
        tokens: input.fixed_tokens,
        ..Plan::default()
    };
    let mut extras_used = 0;
    for (band, items) in &input.extras {
        let cap = free * band.weight_percent() / 100;
        let mut used = 0;
        let mut kept = Vec::new();
        for item in items {
            if used + item.tokens <= cap {
                used += item.tokens;
                kept.push(item.id.clone());
            } else {
                plan.dropped_extras.push(item.id.clone());
            }
        }
        extras_used += used;
        plan.extras.push((*band, kept));
    }
    let mut history_room = free - extras_used;
    let mut first_kept = input.history.len();
    for (index, turn) in input.history.iter().enumerate().rev() {
        let size: u64 = turn.iter().map(|item| item.tokens).sum();
        if size > history_room {
            break;
        }
        history_room -= size;
        first_kept = index;
    }
    for (index, turn) in input.history.iter().enumerate() {
        let target = if index >= first_kept {
            &mut plan.history
        } else {
            &mut plan.dropped_history
        };
        target.extend(turn.iter().map(|item| item.id.clone()));
    }
    plan.tokens = available - history_room;
    Ok(plan)
}

fn keep_everything(input: &PlanInput) -> Plan {
    let history_tokens: u64 = input.history.iter().flatten().map(|i| i.tokens).sum();
    let extra_tokens: u64 = input
        .extras
        .iter()
        .flat_map(|(_, items)| items)
        .map(|i| i.tokens)
        .sum();
    Plan {
        input_budget: None,
        history: input
            .history
            .iter()
            .flatten()
            .map(|i| i.id.clone())
            .collect(),
        dropped_history: Vec::new(),
        extras: input
            .extras
            .iter()
            .map(|(band, items)| (*band, items.iter().map(|i| i.id.clone()).collect()))
            .collect(),
        dropped_extras: Vec::new(),
        tokens: input.fixed_tokens + history_tokens + extra_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, tokens: u64) -> Item {
        Item {
            id: id.into(),
            tokens,
        }
    }

    fn turn(user: (&str, u64), reply: (&str, u64)) -> Vec<Item> {
        vec![item(user.0, user.1), item(reply.0, reply.1)]
    }

    #[test]
    fn newest_turns_are_kept_whole_and_oldest_dropped_first() {
        // Neo Chat's acceptance case 36, in tokens: context 1200, output 200.
        let input = PlanInput {
            context_window: Some(1200),
            output_reservation: Some(200),
            fixed_tokens: 100,
            history: vec![
                turn(("old-user", 750), ("old-model", 750)),
                turn(("mid-user", 200), ("mid-model", 300)),
                turn(("new-user", 100), ("new-model", 200)),
            ],
            extras: vec![],
        };
        let plan = plan(&input).unwrap();
        assert_eq!(plan.input_budget, Some(1000));
        assert_eq!(
            plan.history,
            ["mid-user", "mid-model", "new-user", "new-model"]
        );
        assert_eq!(plan.dropped_history, ["old-user", "old-model"]);
        assert_eq!(plan.tokens, 100 + 800);
        assert!(plan.tokens <= 1000);
    }

    #[test]
    fn a_turn_that_does_not_fit_stops_history_even_if_older_ones_would() {
        let input = PlanInput {
            context_window: Some(1000),
            output_reservation: Some(0),
            fixed_tokens: 0,
            history: vec![
                turn(("tiny-u", 1), ("tiny-m", 1)),
                turn(("huge-u", 600), ("huge-m", 600)),
                turn(("new-u", 10), ("new-m", 10)),
            ],
            extras: vec![],
        };
        let plan = plan(&input).unwrap();
        assert_eq!(
            plan.history,
            ["new-u", "new-m"],
            "no gap in the conversation"
        );
        assert_eq!(plan.dropped_history.len(), 4);
    }

    #[test]
    fn a_message_that_alone_does_not_fit_is_a_recoverable_error() {
        let input = PlanInput {
            context_window: Some(1200),
            output_reservation: Some(200),
            fixed_tokens: 1001,
            ..PlanInput::default()
        };
        let error = plan(&input).unwrap_err();
        assert_eq!(
            error,
            ContextError::BudgetExceeded {
                needed: 1001,
                available: 1000
            }
        );
        assert_eq!(error.code(), "CONTEXT_BUDGET_EXCEEDED");
        assert!(error.recoverable());
        assert!(error.to_string().contains("larger context"));
    }

    #[test]
    fn every_band_together_fits_in_the_free_budget() {
        let total: u64 = Band::ALL.iter().map(|band| band.weight_percent()).sum();
        assert!(total <= 100, "the bands' weights add up to {total} %");
        // Each band full at once: history is left with the rest, never less than zero.
        let input = PlanInput {
            context_window: Some(10_000),
            output_reservation: Some(0),
            fixed_tokens: 0,
            history: vec![turn(("u", 10), ("m", 10))],
            extras: Band::ALL
                .iter()
                .map(|band| {
                    (
                        *band,
                        vec![item(
                            &format!("{band:?}"),
                            10_000 * band.weight_percent() / 100,
                        )],
                    )
                })
                .collect(),
        };
        let plan = plan(&input).unwrap();
        assert!(plan.dropped_extras.is_empty());
        assert!(plan.tokens <= 10_000);
    }

    #[test]
    fn bands_are_capped_by_weight_and_history_takes_the_rest() {
        let input = PlanInput {
            context_window: Some(10_000),
            output_reservation: Some(0),
            fixed_tokens: 0,
            history: vec![
                turn(("u", 3000), ("m", 3000)),
                turn(("u2", 100), ("m2", 100)),
            ],
            extras: vec![
                (
                    Band::Search,
                    vec![item("s1", 1000), item("s2", 500), item("s3", 400)],
                ),
                (Band::Tools, vec![item("t1", 900)]),
            ],
        };
        let plan = plan(&input).unwrap();
        // Search may use 14 % of 10 000 = 1400: s1 fits, s2 does not, s3 does.
        assert_eq!(
            plan.extras[0],
            (Band::Search, vec!["s1".to_string(), "s3".to_string()])
        );
        // Tools may use 8 % = 800: t1 does not fit.
        assert_eq!(plan.extras[1], (Band::Tools, vec![]));
        assert_eq!(plan.dropped_extras, ["s2", "t1"]);
        // History gets everything else: 10 000 − 1400 = 8600 ≥ 6200.
        assert_eq!(plan.history.len(), 4);
        assert_eq!(plan.tokens, 1400 + 6200);
    }

    #[test]
    fn an_unknown_window_trims_nothing() {
        let input = PlanInput {
            context_window: None,
            output_reservation: Some(100),
            fixed_tokens: 50,
            history: vec![turn(("u", 1_000_000), ("m", 1))],
            extras: vec![(Band::Rag, vec![item("r", 5)])],
        };
        let plan = plan(&input).unwrap();
        assert_eq!(plan.input_budget, None);
        assert_eq!(plan.history.len(), 2);
        assert_eq!(plan.tokens, 1_000_056);
        let zero = PlanInput {
            context_window: Some(0),
            ..input
        };
        assert_eq!(
            super::plan(&zero).unwrap().input_budget,
            None,
            "zero is unknown, not a limit"
        );
    }

    #[test]
    fn the_default_output_reservation_never_eats_a_small_window() {
        let input = PlanInput {
            context_window: Some(2048),
            fixed_tokens: 1000,
            ..PlanInput::default()
        };
        assert_eq!(plan(&input).unwrap().input_budget, Some(2048 - 512));
    }

    #[test]
    fn estimates_count_cjk_per_character_and_show_a_tilde() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("你好世界"), 4);
        let count = TokenCount {
            value: 12,
            estimated: true,
        };
        assert_eq!(count.to_string(), "~12");
        assert_eq!(
            TokenCount {
                value: 12,
                estimated: false
            }
            .to_string(),
            "12"
        );
    }
}
