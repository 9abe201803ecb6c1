//! A failure to read or change the assistants, in the user's language (sentences left
//! for later: every view that shows one waits for them).

use hearth_core::assistant::{
    AssistantError, MAX_CUSTOM, MAX_DESCRIPTION_CHARS, MAX_EMOJI_CHARS, MAX_NAME_CHARS,
    MAX_OPENING_CHARS,
};
use hearth_core::preferences::MAX_SYSTEM_PROMPT_CHARS;

use super::AssistantsError;
use crate::i18n::{I18n, Key};

/// Why a change of the assistants did not happen, in the user's language.
pub fn error_text(error: &AssistantsError, i18n: I18n) -> String {
    match error {
        AssistantsError::Library(error) => match error {
            AssistantError::BadName => i18n.t_with(
                Key::AssistantsErrorName,
                &[("max", &MAX_NAME_CHARS.to_string())],
            ),
            AssistantError::BadPrompt(count) => i18n.t_with(
                Key::AssistantsErrorPrompt,
                &[
                    ("count", &count.to_string()),
                    ("max", &MAX_SYSTEM_PROMPT_CHARS.to_string()),
                ],
            ),
            AssistantError::TooLong => i18n.t_with(
                Key::AssistantsErrorTooLong,
                &[
                    ("description", &MAX_DESCRIPTION_CHARS.to_string()),
                    ("opening", &MAX_OPENING_CHARS.to_string()),
                    ("emoji", &MAX_EMOJI_CHARS.to_string()),
                ],
            ),
            AssistantError::TooManyNamed => i18n.t(Key::AssistantsErrorTooManyNamed),
            AssistantError::TooMany => i18n.t_with(
                Key::AssistantsErrorTooMany,
                &[("max", &MAX_CUSTOM.to_string())],
            ),
            AssistantError::BadId | AssistantError::NotFound => i18n.t(Key::AssistantsErrorGone),
        },
        AssistantsError::Storage(reason) => {
            i18n.t_with(Key::AssistantsStorageFailed, &[("reason", reason)])
        }
        AssistantsError::Unreadable(reason) => {
            i18n.t_with(Key::AssistantsReadFailed, &[("reason", reason)])
        }
    }
}
