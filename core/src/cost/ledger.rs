//! Usage summed over many replies (the Usage view): tokens and cost per day, per model
//! and per conversation, and in all, for the replies since a chosen day. Each reply is
//! priced by the table given ([`super::Prices`]); a reply no price covers still counts
//! its tokens, and is counted as unpriced so the view can say its cost is missing.

use std::collections::{BTreeMap, HashMap};

use super::{Consumption, Cost, Price, Prices};

/// One reply, as the Usage view reads it from storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyUse {
    /// The local calendar day it was written, as days since 1970-01-01.
    pub day: i64,
    /// The model that wrote it ("" when the record does not say).
    pub model: String,
    /// Its conversation.
    pub conversation_id: String,
    /// What it used.
    pub consumption: Consumption,
}

/// What a set of replies used.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spend {
    /// How many replies.
    pub replies: u32,
    /// Input tokens (cached ones included).
    pub input: u64,
    /// Of the input, tokens read from a prompt cache.
    pub cached_input: u64,
    /// Output tokens.
    pub output: u64,
    /// Whether a token count was estimated.
    pub estimated_tokens: bool,
    /// The cost of the priced replies.
    pub cost: Cost,
    /// Replies no price covers (their cost is not in [`Self::cost`]).
    pub unpriced: u32,
}

impl Spend {
    fn add(&mut self, consumption: &Consumption, cost: Option<Cost>) {
        self.replies += 1;
        self.input += consumption.input.unwrap_or(0);
        self.cached_input += consumption.cached_input.unwrap_or(0);
        self.output += consumption.output.value;
        self.estimated_tokens |= consumption.input.is_none() || consumption.output.estimated;
        match cost {
            Some(cost) => self.cost.add(cost),
            None => self.unpriced += 1,
        }
    }

    /// All tokens, in and out.
    pub fn tokens(&self) -> u64 {
        self.input.saturating_add(self.output)
    }
}

/// Replies summed since a day.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    prices: Prices,
    since: Option<i64>,
    priced: HashMap<String, Option<Price>>,
    total: Spend,
    days: BTreeMap<i64, Spend>,
    models: HashMap<String, Spend>,
    conversations: HashMap<String, Spend>,
}

impl Ledger {
    /// An empty ledger pricing with `prices`, counting replies from day `since` on
    /// (`None`: all of them).
    pub fn new(prices: Prices, since: Option<i64>) -> Self {
        Self {
            prices,
            since,
            ..Self::default()
        }
    }

    /// Counts `reply`, unless it is older than the ledger's first day.
    pub fn add(&mut self, reply: &ReplyUse) {
        if self.since.is_some_and(|since| reply.day < since) {
            return;
        }
        let prices = &self.prices;
        let price = *self
            .priced
            .entry(reply.model.clone())
            .or_insert_with(|| prices.lookup(&reply.model).map(|(price, _)| price));
        let cost = price.map(|price| reply.consumption.cost(&price));
        let consumption = &reply.consumption;
        self.total.add(consumption, cost);
        self.days
            .entry(reply.day)
            .or_default()
            .add(consumption, cost);
        self.models
            .entry(reply.model.clone())
            .or_default()
            .add(consumption, cost);
        self.conversations
            .entry(reply.conversation_id.clone())
            .or_default()
            .add(consumption, cost);
    }

    /// Everything counted.
    pub fn total(&self) -> Spend {
        self.total
    }

    /// Each day from the ledger's first day (or the first day counted) to `today`, days
    /// without a reply included as empty.
    pub fn days(&self, today: i64) -> Vec<(i64, Spend)> {
        let first = self
            .since
            .or_else(|| self.days.keys().next().copied())
            .unwrap_or(today);
        (first..=today.max(first))
            .map(|day| (day, self.days.get(&day).copied().unwrap_or_default()))
            .collect()
    }

    /// Each model's spend, the costliest first (then the most tokens, then by name).
    pub fn models(&self) -> Vec<(String, Spend)> {
        ranked(&self.models, usize::MAX)
    }

    /// The `limit` conversations that cost most (then used the most tokens).
    pub fn conversations(&self, limit: usize) -> Vec<(String, Spend)> {
        ranked(&self.conversations, limit)
    }
}

fn ranked(spends: &HashMap<String, Spend>, limit: usize) -> Vec<(String, Spend)> {
    let mut ranked: Vec<(String, Spend)> = spends
        .iter()
        .map(|(key, spend)| (key.clone(), *spend))
        .collect();
    ranked.sort_by(|(a_key, a), (b_key, b)| {
        b.cost
            .usd
            .total_cmp(&a.cost.usd)
            .then(b.tokens().cmp(&a.tokens()))
            .then(a_key.cmp(b_key))
    });
    ranked.truncate(limit);
    ranked
}
