//! The limits of the tool loop inside one reply, and what happens at them. A reply runs
//! at most [`MAX_ROUNDS`] rounds with tools and [`MAX_CALLS`] calls in all, executing at
//! most [`MAX_CONCURRENCY`] at a time and keeping results in the order the model asked
//! for them. Calls past the limit are not run but answered as skipped, so the model
//! sees why; then one last round runs without tools, so the reply always ends with an
//! answer, never silently.

/// Rounds with tools per reply.
pub const MAX_ROUNDS: u32 = 20;
/// Calls executed per reply.
pub const MAX_CALLS: usize = 30;
/// Calls executing at once.
pub const MAX_CONCURRENCY: usize = 4;
/// Tool calls accepted from one round of a model's stream.
pub const MAX_CALLS_PER_ROUND: usize = 100;
/// Tools offered to a model in one request.
pub const MAX_TOOLS_OFFERED: usize = 64;

/// What the next model round is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// A round that may call tools.
    WithTools,
    /// The last round: no tools, the model answers with what it has.
    Final,
}

/// What to do with the calls of one round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    /// How many of the round's calls run (the first ones, in order).
    pub run: usize,
    /// How many are answered as skipped.
    pub skipped: usize,
}

/// The count of one reply's rounds and calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Budget {
    rounds: u32,
    calls: usize,
}

impl Budget {
    /// A fresh reply.
    pub fn new() -> Self {
        Self::default()
    }

    /// The kind of the round about to start.
    pub fn next_round(&self) -> Round {
        if self.rounds >= MAX_ROUNDS || self.calls >= MAX_CALLS {
            Round::Final
        } else {
            Round::WithTools
        }
    }

    /// Takes a round that asked for `requested` calls: the first ones run while the
    /// reply's call limit allows, the rest are skipped.
    pub fn admit(&mut self, requested: usize) -> Admission {
        self.rounds += 1;
        let requested = requested.min(MAX_CALLS_PER_ROUND);
        let run = requested.min(MAX_CALLS.saturating_sub(self.calls));
        self.calls += run;
        Admission {
            run,
            skipped: requested - run,
        }
    }

    /// Rounds taken so far.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }
}

/// The tool result a skipped call gets.
pub fn skipped_result() -> String {
    format!(
        "[Tool Error] Not executed: this reply reached its limit of {MAX_CALLS} tool calls \
         or {MAX_ROUNDS} rounds. Answer with what you have."
    )
}

/// The instruction of the final round.
pub fn final_round_instruction() -> String {
    format!(
        "You have used this reply's tool budget ({MAX_ROUNDS} rounds, {MAX_CALLS} calls). \
         Do not call tools. Answer the user now with what the tool results so far show, \
         and say what is still missing."
    )
}

/// The calls `0..count` in groups of at most [`MAX_CONCURRENCY`], in order: each group
/// runs together, the next starts when it has finished.
pub fn batches(count: usize) -> Vec<std::ops::Range<usize>> {
    (0..count)
        .step_by(MAX_CONCURRENCY)
        .map(|start| start..(start + MAX_CONCURRENCY).min(count))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_of_105_calls_runs_30_and_skips_the_rest() {
        let mut budget = Budget::new();
        assert_eq!(budget.next_round(), Round::WithTools);
        assert_eq!(
            budget.admit(105),
            Admission {
                run: 30,
                skipped: 70
            },
            "at most 100 calls are taken from one round"
        );
        assert_eq!(budget.next_round(), Round::Final);
    }

    #[test]
    fn calls_are_counted_across_rounds() {
        let mut budget = Budget::new();
        assert_eq!(budget.admit(12).run, 12);
        assert_eq!(budget.admit(12).run, 12);
        assert_eq!(budget.admit(12), Admission { run: 6, skipped: 6 });
        assert_eq!(budget.admit(1), Admission { run: 0, skipped: 1 });
    }

    #[test]
    fn a_model_that_never_stops_calling_gets_a_final_round_after_twenty() {
        let mut budget = Budget::new();
        let mut requests = 0;
        while budget.next_round() == Round::WithTools {
            requests += 1;
            budget.admit(1);
        }
        requests += 1; // the final round without tools
        assert_eq!(budget.rounds(), MAX_ROUNDS);
        assert_eq!(requests, 21);
        assert!(final_round_instruction().contains("Do not call tools"));
        assert!(skipped_result().contains("30 tool calls"));
    }

    #[test]
    fn batches_keep_order_and_concurrency() {
        assert_eq!(batches(0), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(batches(3), vec![0..3]);
        assert_eq!(batches(12), vec![0..4, 4..8, 8..12]);
        assert_eq!(batches(9), vec![0..4, 4..8, 8..9]);
    }
}
