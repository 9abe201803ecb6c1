//! What replies cost: a price table per model ([`price`]: defaults for well-known models
//! and the user's own prices, which win), the cost of one reply from what its provider
//! reported ([`Cost`], marked as an estimate where a count had to be guessed), and the
//! usage of many replies summed per day, model and conversation ([`ledger`]).
//!
//! Prices are in US dollars: per million tokens for input, cached input and output,
//! per image for images a model sends.

pub mod ledger;
pub mod price;

use crate::context::TokenCount;
use crate::provider::Usage;
pub use price::{LongContext, Price, PriceEntry, PriceOrigin, Prices};

/// One reply's cost in US dollars.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cost {
    /// The amount.
    pub usd: f64,
    /// Whether a count it rests on was estimated (shown with `~`).
    pub estimated: bool,
}

impl Cost {
    /// Adds another cost; the sum is an estimate if either part is.
    pub fn add(&mut self, other: Cost) {
        self.usd += other.usd;
        self.estimated |= other.estimated;
    }
}

impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.estimated {
            f.write_str("~")?;
        }
        f.write_str(&format_usd(self.usd))
    }
}

/// What one reply used, as its record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Consumption {
    /// Input tokens as reported (including cached ones); `None` when not reported.
    pub input: Option<u64>,
    /// Of the input, tokens read from a prompt cache.
    pub cached_input: Option<u64>,
    /// Of the input, tokens written to a prompt cache.
    pub cache_write: Option<u64>,
    /// Output tokens, reported or estimated from the stored text.
    pub output: TokenCount,
    /// Images the model sent.
    pub images: u32,
    /// Searches the model's provider ran with its own tool.
    pub searches: u32,
    /// Requests the reply made (one, and one more per round of tool calls); its counts
    /// are their sums.
    pub requests: u32,
}

impl Consumption {
    /// A reply's consumption from its reported usage, its output count (reported or
    /// estimated), the images it sent, the provider's own searches it ran and the
    /// requests it made.
    pub fn of(
        usage: &Usage,
        output: TokenCount,
        images: u32,
        searches: u32,
        requests: u32,
    ) -> Self {
        Self {
            input: usage.input_tokens,
            cached_input: usage.cached_input_tokens,
            cache_write: usage.cache_write_input_tokens,
            output,
            images,
            searches,
            requests: requests.max(1),
        }
    }

    /// What it costs at `price`. Input the provider did not report counts as none and
    /// marks the cost as an estimate (the prompt is not stored with the reply, so it
    /// cannot be counted afterwards).
    ///
    /// A long-context price applies to a request whose prompt is longer than its
    /// threshold. The counts of a reply of several requests are sums, so when they pass
    /// the threshold it is not known which requests did: the requests are taken as
    /// equally long, and the cost is marked as an estimate.
    pub fn cost(&self, price: &Price) -> Cost {
        const MILLION: f64 = 1_000_000.0;
        let input = self.input.unwrap_or(0);
        let cached = self.cached_input.unwrap_or(0).min(input);
        let written = self.cache_write.unwrap_or(0).min(input - cached);
        let requests = u64::from(self.requests.max(1));
        let tier = price.long_context.filter(|tier| input > tier.above);
        // Sums of several requests are taken as requests of equal length.
        let long = tier.filter(|tier| input / requests > tier.above);
        let guessed = tier.is_some() && requests > 1;
        let (input_rate, output_rate, scale) = match long {
            Some(tier) if price.input > 0.0 => (tier.input, tier.output, tier.input / price.input),
            Some(tier) => (tier.input, tier.output, 1.0),
            None => (price.input, price.output, 1.0),
        };
        let cached_rate = price.cached_input.unwrap_or(price.input) * scale;
        let write_rate = price.cache_write.unwrap_or(price.input) * scale;
        let usd = (input - cached - written) as f64 * input_rate / MILLION
            + cached as f64 * cached_rate / MILLION
            + written as f64 * write_rate / MILLION
            + self.output.value as f64 * output_rate / MILLION
            + f64::from(self.images) * price.per_image.unwrap_or(0.0)
            + f64::from(self.searches) * price.per_search.unwrap_or(0.0);
        Cost {
            usd,
            estimated: self.input.is_none() || self.output.estimated || guessed,
        }
    }
}

/// `usd` for people: whole cents from a dollar up, two significant digits below a
/// cent (`$0.00042`), and `<$0.000001` for less.
pub fn format_usd(usd: f64) -> String {
    let usd = if usd.is_finite() { usd.max(0.0) } else { 0.0 };
    if usd == 0.0 {
        "$0".into()
    } else if usd >= 1.0 {
        format!("${usd:.2}")
    } else if usd >= 0.01 {
        let text = format!("{usd:.4}");
        format!("${}", text.trim_end_matches('0'))
    } else if usd < 0.000_001 {
        "<$0.000001".into()
    } else {
        // Two significant digits: the position of the first one decides the decimals.
        let decimals = (-usd.log10()).floor() as usize + 2;
        let text = format!("{usd:.decimals$}");
        let text = text.trim_end_matches('0');
        format!("${text}")
    }
}

/// A count for a table: as is below 10,000, then with `k`, `M` or `B` and at most three
/// significant digits (`12.3k`, `4.56M`).
pub fn compact_count(count: u64) -> String {
    if count < 10_000 {
        return count.to_string();
    }
    let (value, unit) = match count {
        c if c >= 1_000_000_000 => (c as f64 / 1e9, "B"),
        c if c >= 1_000_000 => (c as f64 / 1e6, "M"),
        c => (c as f64 / 1e3, "k"),
    };
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text}{unit}")
}

#[cfg(test)]
mod tests;
