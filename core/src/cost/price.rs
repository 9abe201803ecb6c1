//! The price table: what a model costs per million tokens (input, cached input, output)
//! and per image it sends. Hearth ships list prices for well-known models
//! ([`DEFAULTS`]); the user's own prices ([`Prices`], one settings document) win over
//! them and price any other model, a local one at zero for example.
//!
//! A model id is matched after normalising it ([`normalise`]): case folded, a vendor
//! or path prefix (`openai/`, `models/`) dropped and dots written as dashes, so
//! `anthropic/claude-3.5-sonnet` and `claude-3-5-sonnet-20241022` meet the same entry.
//! A default also prices its dated and preview versions (`gpt-4o-2024-08-06`), never a
//! different model that merely starts with its name (`gpt-4o-audio-preview`,
//! `o3-pro`). A user's entry ending in `*` prices every id that starts with it.

use serde::{Deserialize, Serialize};

/// The most prices a user can keep.
pub const MAX_ENTRIES: usize = 500;
/// The longest model id or pattern.
pub const MAX_MODEL_CHARS: usize = 200;
/// The highest price accepted, in dollars (per million tokens or per image).
pub const MAX_PRICE: f64 = 10_000.0;

/// What a model costs, in US dollars.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Price {
    /// Per million input tokens.
    pub input: f64,
    /// Per million input tokens read from a prompt cache (`None`: billed as input).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_input: Option<f64>,
    /// Per million output tokens (reasoning included).
    pub output: f64,
    /// Per image the model sends, beyond its tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_image: Option<f64>,
    /// Per million input tokens written to a prompt cache (`None`: billed as input).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    /// Per search the model's provider ran with its own web search tool, beyond tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_search: Option<f64>,
    /// Higher prices for a request whose prompt is longer than a threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub long_context: Option<LongContext>,
}

/// The prices of a request whose prompt is longer than `above` tokens (Gemini 2.5 Pro,
/// Claude with its long context window). Cached input and cache writes rise in the same
/// proportion as input, as both vendors price them.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LongContext {
    /// Above this many input tokens in one request.
    pub above: u64,
    /// Per million input tokens.
    pub input: f64,
    /// Per million output tokens.
    pub output: f64,
}

/// The longest prompt threshold accepted, in tokens.
pub const MAX_THRESHOLD: u64 = 100_000_000;

impl Price {
    /// A price per million tokens, input, cached input and output, with no other price.
    pub const fn tokens(input: f64, cached_input: f64, output: f64) -> Self {
        Self {
            input,
            cached_input: Some(cached_input),
            output,
            per_image: None,
            cache_write: None,
            per_search: None,
            long_context: None,
        }
    }

    /// This price with cache writes at `rate` per million tokens.
    const fn cache_writes(self, rate: f64) -> Self {
        Self {
            cache_write: Some(rate),
            ..self
        }
    }

    /// This price with each search of the provider's own tool at `fee`.
    const fn searches(self, fee: f64) -> Self {
        Self {
            per_search: Some(fee),
            ..self
        }
    }

    /// This price with `input` and `output` for prompts longer than `above` tokens.
    const fn above(self, above: u64, input: f64, output: f64) -> Self {
        Self {
            long_context: Some(LongContext {
                above,
                input,
                output,
            }),
            ..self
        }
    }

    /// Why it cannot be kept, if it cannot.
    pub fn check(&self) -> Result<(), PriceError> {
        let tier = self.long_context;
        let amounts = [
            Some(self.input),
            self.cached_input,
            Some(self.output),
            self.per_image,
            self.cache_write,
            self.per_search,
            tier.map(|t| t.input),
            tier.map(|t| t.output),
        ];
        if !amounts
            .into_iter()
            .flatten()
            .all(|v| v.is_finite() && (0.0..=MAX_PRICE).contains(&v))
        {
            return Err(PriceError::Amount);
        }
        if tier.is_some_and(|t| t.above == 0 || t.above > MAX_THRESHOLD) {
            return Err(PriceError::Threshold);
        }
        Ok(())
    }
}

/// One of the user's prices.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PriceEntry {
    /// A model id as the provider names it, or a prefix ending in `*`.
    pub model: String,
    /// Its price.
    #[serde(flatten)]
    pub price: Price,
}

/// Why a price cannot be kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceError {
    /// No model id.
    NoModel,
    /// A model id or pattern too long.
    ModelTooLong,
    /// An amount that is negative, not a number or above [`MAX_PRICE`].
    Amount,
    /// A long-context threshold of zero tokens or above [`MAX_THRESHOLD`].
    Threshold,
    /// [`MAX_ENTRIES`] prices are kept already.
    TooMany,
}

impl PriceError {
    /// Its stable code.
    pub fn code(self) -> &'static str {
        match self {
            Self::NoModel => "PRICE_NO_MODEL",
            Self::ModelTooLong => "PRICE_MODEL_TOO_LONG",
            Self::Amount => "PRICE_AMOUNT_INVALID",
            Self::Threshold => "PRICE_THRESHOLD_INVALID",
            Self::TooMany => "PRICE_TOO_MANY",
        }
    }
}

/// Where a model's price comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceOrigin {
    /// Hearth's list price.
    Default,
    /// The user's.
    User,
}

/// The user's prices (the settings document `prices`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Prices {
    /// The user's prices, each model once.
    pub entries: Vec<PriceEntry>,
}

impl Prices {
    /// The prices as they may be kept: entries that cannot be kept are dropped, a model
    /// priced twice keeps its last price, and at most [`MAX_ENTRIES`] remain.
    pub fn repaired(self) -> Self {
        let mut entries: Vec<PriceEntry> = Vec::new();
        for mut entry in self.entries {
            entry.model = entry.model.trim().to_string();
            if check_model(&entry.model).is_err() || entry.price.check().is_err() {
                continue;
            }
            let key = normalise(&entry.model);
            entries.retain(|kept| normalise(&kept.model) != key);
            entries.push(entry);
        }
        let excess = entries.len().saturating_sub(MAX_ENTRIES);
        entries.drain(..excess);
        Self { entries }
    }

    /// Sets `entry` (replacing the same model's price), or says why it cannot.
    pub fn set(&mut self, mut entry: PriceEntry) -> Result<(), PriceError> {
        entry.model = entry.model.trim().to_string();
        check_model(&entry.model)?;
        entry.price.check()?;
        let key = normalise(&entry.model);
        let replaced = self.entries.iter().position(|e| normalise(&e.model) == key);
        match replaced {
            Some(index) => self.entries[index] = entry,
            None if self.entries.len() >= MAX_ENTRIES => return Err(PriceError::TooMany),
            None => self.entries.push(entry),
        }
        Ok(())
    }

    /// Removes the user's price for `model`; whether there was one.
    pub fn remove(&mut self, model: &str) -> bool {
        let key = normalise(model);
        let before = self.entries.len();
        self.entries.retain(|e| normalise(&e.model) != key);
        self.entries.len() != before
    }

    /// `model`'s price and where it comes from: the user's exact price, then the user's
    /// longest matching pattern, then Hearth's default; `None` when nothing prices it.
    pub fn lookup(&self, model: &str) -> Option<(Price, PriceOrigin)> {
        let id = normalise(model);
        let exact = self.entries.iter().find(|e| normalise(&e.model) == id);
        let pattern = || {
            self.entries
                .iter()
                .filter_map(|e| {
                    let prefix = normalise(e.model.strip_suffix('*')?);
                    id.starts_with(&prefix).then_some((prefix.len(), e))
                })
                .max_by_key(|(length, _)| *length)
                .map(|(_, e)| e)
        };
        if let Some(entry) = exact.or_else(pattern) {
            return Some((entry.price, PriceOrigin::User));
        }
        default_price(&id).map(|price| (price, PriceOrigin::Default))
    }
}

fn check_model(model: &str) -> Result<(), PriceError> {
    if model.trim_end_matches('*').trim().is_empty() {
        Err(PriceError::NoModel)
    } else if model.chars().count() > MAX_MODEL_CHARS {
        Err(PriceError::ModelTooLong)
    } else {
        Ok(())
    }
}

/// `model` as prices match it: lower case, without a vendor or path prefix, dots as
/// dashes.
pub fn normalise(model: &str) -> String {
    let model = model.trim();
    let bare = model.rsplit('/').next().unwrap_or(model);
    bare.to_lowercase().replace('.', "-")
}

/// The default that prices the normalised `id`: the longest default name it starts
/// with, followed by nothing or only date, version and preview parts.
fn default_price(id: &str) -> Option<Price> {
    DEFAULTS
        .iter()
        .filter(|(name, _)| {
            let name = normalise(name);
            id.strip_prefix(name.as_str())
                .is_some_and(|rest| rest.is_empty() || only_version_parts(rest))
        })
        .max_by_key(|(name, _)| name.len())
        .map(|(_, price)| *price)
}

/// Whether `rest` (`-2024-08-06`, `-preview-05-20`, `-001`, `-latest`) names only a
/// dated or preview version of the same model. A single digit is a new model's version
/// (`gpt-5-2` is GPT-5.2 once dots are dashes), never a date part.
fn only_version_parts(rest: &str) -> bool {
    rest.strip_prefix('-').is_some_and(|parts| {
        parts.split('-').all(|part| {
            part.len() >= 2 && part.bytes().all(|b| b.is_ascii_digit())
                || matches!(part, "latest" | "preview" | "exp")
        })
    })
}

/// Hearth's list prices for well-known models: standard tier, prompts under 200,000
/// tokens, in dollars per million tokens (input, cached input, output).
pub const DEFAULTS: &[(&str, Price)] = &[
    // OpenAI (searches: calls of the web search tool)
    ("gpt-5", Price::tokens(1.25, 0.125, 10.0).searches(0.01)),
    ("gpt-5.1", Price::tokens(1.25, 0.125, 10.0).searches(0.01)),
    ("gpt-5-mini", Price::tokens(0.25, 0.025, 2.0).searches(0.01)),
    ("gpt-5-nano", Price::tokens(0.05, 0.005, 0.4).searches(0.01)),
    ("gpt-4.1", Price::tokens(2.0, 0.5, 8.0).searches(0.025)),
    ("gpt-4.1-mini", Price::tokens(0.4, 0.1, 1.6).searches(0.025)),
    ("gpt-4.1-nano", Price::tokens(0.1, 0.025, 0.4)),
    ("gpt-4o", Price::tokens(2.5, 1.25, 10.0).searches(0.025)),
    (
        "gpt-4o-mini",
        Price::tokens(0.15, 0.075, 0.6).searches(0.025),
    ),
    ("o1", Price::tokens(15.0, 7.5, 60.0)),
    ("o3", Price::tokens(2.0, 0.5, 8.0).searches(0.01)),
    ("o3-mini", Price::tokens(1.1, 0.55, 4.4)),
    ("o4-mini", Price::tokens(1.1, 0.275, 4.4).searches(0.01)),
    // Anthropic (cached input: cache reads; cache writes of five minutes; searches of
    // its web search tool; Sonnet's long context window above 200k tokens)
    ("claude-opus-4-5", anthropic(5.0, 25.0)),
    ("claude-opus-4-1", anthropic(15.0, 75.0)),
    ("claude-opus-4", anthropic(15.0, 75.0)),
    (
        "claude-sonnet-4-5",
        anthropic(3.0, 15.0).above(200_000, 6.0, 22.5),
    ),
    (
        "claude-sonnet-4",
        anthropic(3.0, 15.0).above(200_000, 6.0, 22.5),
    ),
    ("claude-3-7-sonnet", anthropic(3.0, 15.0)),
    ("claude-3-5-sonnet", anthropic(3.0, 15.0)),
    ("claude-haiku-4-5", anthropic(1.0, 5.0)),
    ("claude-3-5-haiku", anthropic(0.8, 4.0)),
    (
        "claude-3-haiku",
        Price::tokens(0.25, 0.03, 1.25).cache_writes(0.3),
    ),
    // Google (searches: Gemini 3's queries with Google Search; Gemini 2.5 bills a grounded
    // prompt once however many queries it ran, which a reply does not say, so no fee;
    // prompts above 200k tokens)
    (
        "gemini-3-pro",
        Price::tokens(2.0, 0.2, 12.0)
            .searches(0.014)
            .above(200_000, 4.0, 18.0),
    ),
    (
        "gemini-2.5-pro",
        Price::tokens(1.25, 0.125, 10.0).above(200_000, 2.5, 15.0),
    ),
    ("gemini-2.5-flash", Price::tokens(0.3, 0.03, 2.5)),
    ("gemini-2.5-flash-lite", Price::tokens(0.1, 0.01, 0.4)),
    ("gemini-2.0-flash", Price::tokens(0.1, 0.025, 0.4)),
    // DeepSeek (cached input: cache hits)
    ("deepseek-chat", Price::tokens(0.28, 0.028, 0.42)),
    ("deepseek-reasoner", Price::tokens(0.28, 0.028, 0.42)),
    // xAI (its live search is billed per source used, which replies do not report)
    ("grok-4", Price::tokens(3.0, 0.75, 15.0)),
    ("grok-3", Price::tokens(3.0, 0.75, 15.0)),
    ("grok-3-mini", Price::tokens(0.3, 0.075, 0.5)),
];

/// An Anthropic model's price from its input and output prices: cache reads at a tenth of
/// input, cache writes at a quarter above it, a cent per web search.
const fn anthropic(input: f64, output: f64) -> Price {
    Price::tokens(input, input / 10.0, output)
        .cache_writes(input * 1.25)
        .searches(0.01)
}
