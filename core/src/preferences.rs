//! The user's chat preferences and what they decide: the default model for new chats,
//! the task models (titles, compression), the global system prompt, and the per-model
//! metadata a user corrects (context and output limits, vision, tools, reasoning), laid
//! over what the provider's listing says. The browser keeps them as one record; these
//! rules decide what a valid record is and what a run uses.
//!
//! A limit the user leaves empty falls back to the listing's; a limit neither knows
//! stays unknown (`None`), never zero.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::provider::request::ModelCapabilities;

/// The longest global system prompt, in characters.
pub const MAX_SYSTEM_PROMPT_CHARS: usize = 32_000;

/// The largest token limit accepted (no model comes near it; a typo does).
pub const MAX_TOKEN_LIMIT: u64 = 100_000_000;

/// One model of one provider.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRef {
    /// The provider's id (`provider_id` in records written before this type existed).
    #[serde(alias = "provider_id")]
    pub provider_id: String,
    /// The model's id.
    pub model: String,
}

/// What the user says about a model, each field overriding the listing's when set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelOverrides {
    /// Accepts image input.
    pub vision: Option<bool>,
    /// Accepts tool definitions.
    pub tools: Option<bool>,
    /// Has a reasoning mode.
    pub reasoning: Option<bool>,
    /// Context window in tokens.
    pub context_window: Option<u64>,
    /// Maximum output tokens.
    pub max_output_tokens: Option<u64>,
}

impl ModelOverrides {
    /// True when nothing is overridden.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// `listed` with every set field replaced.
    pub fn apply(&self, listed: ModelCapabilities) -> ModelCapabilities {
        ModelCapabilities {
            vision: self.vision.unwrap_or(listed.vision),
            tools: self.tools.unwrap_or(listed.tools),
            reasoning: self.reasoning.unwrap_or(listed.reasoning),
            context_window: self.context_window.or(listed.context_window),
            max_output_tokens: self.max_output_tokens.or(listed.max_output_tokens),
        }
    }

    /// Checks the limits against each other once laid over `listed`: both positive and
    /// within [`MAX_TOKEN_LIMIT`], and the output reservation smaller than the window.
    pub fn validate(&self, listed: ModelCapabilities) -> Result<(), LimitError> {
        for limit in [self.context_window, self.max_output_tokens]
            .into_iter()
            .flatten()
        {
            check_limit(limit)?;
        }
        let effective = self.apply(listed);
        if let (Some(window), Some(output)) =
            (effective.context_window, effective.max_output_tokens)
            && output >= window
        {
            return Err(LimitError::OutputNotBelowContext { output, window });
        }
        Ok(())
    }
}

/// Why a token limit was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// Not a whole number.
    #[error("`{0}` is not a whole number of tokens")]
    NotANumber(String),
    /// Zero tokens.
    #[error("a limit of zero tokens leaves no room")]
    Zero,
    /// Past [`MAX_TOKEN_LIMIT`].
    #[error("{0} tokens is more than any model takes")]
    TooLarge(u64),
    /// The output reservation would take the whole window.
    #[error("the output limit ({output}) must be smaller than the context window ({window})")]
    OutputNotBelowContext {
        /// The output limit.
        output: u64,
        /// The context window.
        window: u64,
    },
}

fn check_limit(limit: u64) -> Result<u64, LimitError> {
    match limit {
        0 => Err(LimitError::Zero),
        n if n > MAX_TOKEN_LIMIT => Err(LimitError::TooLarge(n)),
        n => Ok(n),
    }
}

/// Reads a token limit as people write it: `128000`, `128,000`, `128 000`, `128k`,
/// `1M`, `1.5k`. Empty means "not set" (`Ok(None)`).
pub fn parse_token_limit(text: &str) -> Result<Option<u64>, LimitError> {
    let compact: String = text
        .trim()
        .chars()
        .filter(|c| !matches!(c, ',' | '_' | ' ' | '\u{a0}' | '\u{202f}'))
        .collect();
    if compact.is_empty() {
        return Ok(None);
    }
    let not_a_number = || LimitError::NotANumber(text.trim().to_string());
    let lower = compact.to_ascii_lowercase();
    let (number, scale) = match lower.strip_suffix('k') {
        Some(n) => (n, 1_000u64),
        None => match lower.strip_suffix('m') {
            Some(n) => (n, 1_000_000),
            None => (lower.as_str(), 1),
        },
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty()
        || !digits(whole)
        || !digits(fraction)
        || (scale == 1 && !fraction.is_empty())
    {
        return Err(not_a_number());
    }
    // Exact integer arithmetic: 1.5k is 1500, 0.0001k is not a whole number.
    let whole: u64 = whole.parse().map_err(|_| LimitError::TooLarge(u64::MAX))?;
    let mut value = whole
        .checked_mul(scale)
        .ok_or(LimitError::TooLarge(u64::MAX))?;
    let mut unit = scale;
    for digit in fraction.chars() {
        if unit % 10 != 0 {
            return Err(not_a_number());
        }
        unit /= 10;
        value += u64::from(digit.to_digit(10).unwrap_or(0)) * unit;
    }
    check_limit(value).map(Some)
}

/// Why a preferences record was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PreferencesError {
    /// The system prompt is too long.
    #[error("the system prompt has {0} characters; the most is {MAX_SYSTEM_PROMPT_CHARS}")]
    SystemPromptTooLong(usize),
    /// A model's limits are invalid.
    #[error("{model}: {error}")]
    Limit {
        /// The model.
        model: String,
        /// What is wrong.
        error: LimitError,
    },
}

/// The user's chat preferences, stored as one record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Preferences {
    /// The global system prompt; empty for none.
    pub system_prompt: String,
    /// The model a new chat starts with; `None` for the first listed.
    pub default_model: Option<ModelRef>,
    /// The model that titles new conversations; `None` titles them from the first
    /// exchange without a model call.
    pub title_model: Option<ModelRef>,
    /// The model that summarises a long conversation's older turns; `None` leaves them
    /// to the context planner, which drops the oldest when the window fills.
    pub compression_model: Option<ModelRef>,
    /// The model that suggests related questions under each answer; `None` (the
    /// default) suggests none.
    pub related_model: Option<ModelRef>,
    /// Per provider id, per model id: what the user corrected.
    pub models: BTreeMap<String, BTreeMap<String, ModelOverrides>>,
    /// Which plugins and functions are offered, and whether calls wait for the user.
    pub tools: crate::plugin::selection::ToolPreferences,
    /// The model the built-in image generator draws with (an OpenAI-compatible Images
    /// API); `None` until the user chooses one.
    pub image_model: Option<ModelRef>,
}

impl Preferences {
    /// What the user corrected about `model`, if anything.
    pub fn overrides(&self, model: &ModelRef) -> ModelOverrides {
        self.models
            .get(&model.provider_id)
            .and_then(|models| models.get(&model.model))
            .copied()
            .unwrap_or_default()
    }

    /// Records `overrides` for `model`; empty overrides remove the entry.
    pub fn set_overrides(&mut self, model: &ModelRef, overrides: ModelOverrides) {
        if overrides.is_empty() {
            if let Some(models) = self.models.get_mut(&model.provider_id) {
                models.remove(&model.model);
                if models.is_empty() {
                    self.models.remove(&model.provider_id);
                }
            }
        } else {
            self.models
                .entry(model.provider_id.clone())
                .or_default()
                .insert(model.model.clone(), overrides);
        }
    }

    /// The capabilities a run of `model` uses: the listing's with the user's laid over.
    pub fn capabilities(&self, model: &ModelRef, listed: ModelCapabilities) -> ModelCapabilities {
        self.overrides(model).apply(listed)
    }

    /// Forgets everything that names `provider_id` (the provider was removed).
    pub fn forget_provider(&mut self, provider_id: &str) {
        self.models.remove(provider_id);
        for slot in [
            &mut self.default_model,
            &mut self.title_model,
            &mut self.compression_model,
            &mut self.related_model,
            &mut self.image_model,
        ] {
            if slot.as_ref().is_some_and(|m| m.provider_id == provider_id) {
                *slot = None;
            }
        }
    }

    /// The system prompt a request carries: `None` when blank.
    pub fn system_prompt(&self) -> Option<String> {
        let trimmed = self.system_prompt.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_string())
    }

    /// Checks the record as a whole (limits are checked without the listing, which the
    /// settings form checks against when the user saves).
    pub fn validate(&self) -> Result<(), PreferencesError> {
        let length = self.system_prompt.chars().count();
        if length > MAX_SYSTEM_PROMPT_CHARS {
            return Err(PreferencesError::SystemPromptTooLong(length));
        }
        for models in self.models.values() {
            for (model, overrides) in models {
                overrides
                    .validate(ModelCapabilities::default())
                    .map_err(|error| PreferencesError::Limit {
                        model: model.clone(),
                        error,
                    })?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed() -> ModelCapabilities {
        ModelCapabilities {
            vision: true,
            tools: false,
            reasoning: false,
            context_window: Some(128_000),
            max_output_tokens: None,
        }
    }

    #[test]
    fn limits_parse_as_people_write_them() {
        for (text, expected) in [
            ("128000", 128_000),
            ("128,000", 128_000),
            (" 128 000 ", 128_000),
            ("128k", 128_000),
            ("128K", 128_000),
            ("1.5k", 1_500),
            ("1M", 1_000_000),
            ("2.25m", 2_250_000),
            ("1_048_576", 1_048_576),
        ] {
            assert_eq!(parse_token_limit(text), Ok(Some(expected)), "{text}");
        }
        assert_eq!(parse_token_limit(""), Ok(None));
        assert_eq!(parse_token_limit("   "), Ok(None));
    }

    #[test]
    fn bad_limits_are_typed_errors() {
        for text in [
            "abc", "-5", "1.5", "k", "12kk", "0x10", "1e6", "1.0001k", "½k",
        ] {
            assert!(
                matches!(parse_token_limit(text), Err(LimitError::NotANumber(_))),
                "{text}: {:?}",
                parse_token_limit(text)
            );
        }
        assert_eq!(parse_token_limit("0"), Err(LimitError::Zero));
        assert_eq!(parse_token_limit("0k"), Err(LimitError::Zero));
        assert!(matches!(
            parse_token_limit("200m"),
            Err(LimitError::TooLarge(200_000_000))
        ));
        assert!(matches!(
            parse_token_limit("99999999999999999999999"),
            Err(LimitError::TooLarge(_))
        ));
    }

    #[test]
    fn overrides_replace_only_what_they_set() {
        let overrides = ModelOverrides {
            tools: Some(true),
            max_output_tokens: Some(8_000),
            ..Default::default()
        };
        let effective = overrides.apply(listed());
        assert!(effective.vision, "kept from the listing");
        assert!(effective.tools, "overridden");
        assert_eq!(effective.context_window, Some(128_000));
        assert_eq!(effective.max_output_tokens, Some(8_000));
        // Saying "no" is an override too, not an absence.
        let no_vision = ModelOverrides {
            vision: Some(false),
            ..Default::default()
        };
        assert!(!no_vision.apply(listed()).vision);
        // Unknown stays unknown.
        assert_eq!(
            ModelOverrides::default()
                .apply(ModelCapabilities::default())
                .context_window,
            None
        );
    }

    #[test]
    fn the_output_limit_must_fit_the_window_the_model_ends_up_with() {
        let too_big = ModelOverrides {
            max_output_tokens: Some(128_000),
            ..Default::default()
        };
        assert_eq!(
            too_big.validate(listed()),
            Err(LimitError::OutputNotBelowContext {
                output: 128_000,
                window: 128_000
            })
        );
        let with_window = ModelOverrides {
            context_window: Some(200_000),
            ..too_big
        };
        assert_eq!(with_window.validate(listed()), Ok(()));
        let zero = ModelOverrides {
            context_window: Some(0),
            ..Default::default()
        };
        assert_eq!(zero.validate(listed()), Err(LimitError::Zero));
    }

    #[test]
    fn empty_overrides_leave_no_entry_and_removed_providers_leave_nothing() {
        let model = ModelRef {
            provider_id: "p".into(),
            model: "m".into(),
        };
        let mut preferences = Preferences {
            default_model: Some(model.clone()),
            title_model: Some(model.clone()),
            compression_model: Some(model.clone()),
            ..Default::default()
        };
        preferences.set_overrides(
            &model,
            ModelOverrides {
                vision: Some(true),
                ..Default::default()
            },
        );
        assert_eq!(preferences.overrides(&model).vision, Some(true));
        preferences.set_overrides(&model, ModelOverrides::default());
        assert!(preferences.models.is_empty());
        preferences.set_overrides(
            &model,
            ModelOverrides {
                tools: Some(false),
                ..Default::default()
            },
        );
        preferences.image_model = Some(model.clone());
        preferences.forget_provider("p");
        assert_eq!(preferences, Preferences::default());
    }

    #[test]
    fn records_round_trip_and_old_records_read_with_defaults() {
        let mut preferences = Preferences {
            system_prompt: "Be brief.".into(),
            ..Default::default()
        };
        preferences.set_overrides(
            &ModelRef {
                provider_id: "p".into(),
                model: "m".into(),
            },
            ModelOverrides {
                context_window: Some(32_000),
                ..Default::default()
            },
        );
        let json = serde_json::to_string(&preferences).unwrap();
        assert!(json.contains("\"contextWindow\":32000"), "{json}");
        assert_eq!(
            serde_json::from_str::<Preferences>(&json).unwrap(),
            preferences
        );
        let old: Preferences = serde_json::from_str(r#"{"systemPrompt":"x"}"#).unwrap();
        assert_eq!(old.system_prompt, "x");
        assert!(old.default_model.is_none());
    }

    #[test]
    fn validation_names_what_is_wrong() {
        let long = Preferences {
            system_prompt: "x".repeat(MAX_SYSTEM_PROMPT_CHARS + 1),
            ..Default::default()
        };
        assert_eq!(
            long.validate(),
            Err(PreferencesError::SystemPromptTooLong(
                MAX_SYSTEM_PROMPT_CHARS + 1
            ))
        );
        let mut bad = Preferences::default();
        bad.set_overrides(
            &ModelRef {
                provider_id: "p".into(),
                model: "m".into(),
            },
            ModelOverrides {
                context_window: Some(1_000),
                max_output_tokens: Some(4_000),
                ..Default::default()
            },
        );
        assert!(matches!(
            bad.validate(),
            Err(PreferencesError::Limit { ref model, .. }) if model == "m"
        ));
        assert_eq!(
            Preferences {
                system_prompt: "  \n".into(),
                ..Default::default()
            }
            .system_prompt(),
            None
        );
    }
}
