//! A reply's stored failure (`hearth_core::chat::GenerationError`) in the user's
//! language: its code's sentence from the catalog with the code's parameters filled in.
//! A record written before codes were typed shows the English sentence it stored.

use hearth_core::chat::{ErrorCode, GenerationError};

use super::{I18n, Key};

/// The catalog sentence of `code`.
pub fn key_of(code: &ErrorCode) -> Key {
    match code {
        ErrorCode::Internal => Key::ErrorInternal,
        ErrorCode::NoMessages => Key::ErrorNoMessages,
        ErrorCode::ProviderMissing => Key::ErrorProviderMissing,
        ErrorCode::KeyUnreadable => Key::ErrorKeyUnreadable,
        ErrorCode::SealFailed => Key::ErrorSealFailed,
        ErrorCode::InvalidRequest => Key::ErrorInvalidRequest,
        ErrorCode::ProviderUnreachable => Key::ErrorProviderUnreachable,
        ErrorCode::AuthFailed => Key::ErrorAuthFailed,
        ErrorCode::ModelNotFound => Key::ErrorModelNotFound,
        ErrorCode::Timeout => Key::ErrorTimeout,
        ErrorCode::RequestTooLarge => Key::ErrorRequestTooLarge,
        ErrorCode::RateLimited => Key::ErrorRateLimited,
        ErrorCode::BadRequest => Key::ErrorBadRequest,
        ErrorCode::ProviderUnavailable => Key::ErrorProviderUnavailable,
        ErrorCode::ProviderError => Key::ErrorProviderError,
        ErrorCode::StreamInterrupted => Key::ErrorStreamInterrupted,
        ErrorCode::StreamTruncated => Key::ErrorStreamTruncated,
        ErrorCode::StreamMalformed => Key::ErrorStreamMalformed,
        ErrorCode::ResponseTimeout => Key::ErrorResponseTimeout,
        ErrorCode::ResponseSizeLimit => Key::ErrorResponseSizeLimit,
        ErrorCode::ContextBudgetExceeded => Key::ErrorContextBudgetExceeded,
        ErrorCode::Offline => Key::ErrorOffline,
        ErrorCode::KnowledgeUnavailable => Key::ErrorKnowledgeUnavailable,
        ErrorCode::Edge(_) => Key::ErrorEdge,
        ErrorCode::Other(_) => Key::ErrorOther,
    }
}

/// What the status block of a failed reply says: the sentence, and the provider's or
/// the edge's own words when there are any (shown as they are).
pub fn describe(i18n: &I18n, error: &GenerationError) -> (String, Option<String>) {
    if error.is_legacy() {
        return (error.message.clone(), error.detail.clone());
    }
    let values: Vec<(&str, &str)> = error
        .params
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let mut sentence = i18n.t_with(key_of(&error.code), &values);
    if error.browser_blocked() {
        sentence = format!("{} {sentence}", i18n.t(Key::ErrorBrowserBlocked));
    }
    (sentence, error.detail.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Locale, translate};

    #[test]
    fn every_code_has_its_own_sentence() {
        let mut keys: Vec<Key> = ErrorCode::OWN.iter().map(key_of).collect();
        keys.sort_by_key(|k| k.id());
        keys.dedup();
        assert_eq!(keys.len(), ErrorCode::OWN.len());
        for code in ErrorCode::OWN {
            for locale in Locale::ALL {
                assert!(
                    !translate(locale, key_of(code)).is_empty(),
                    "{code} {locale:?}"
                );
            }
        }
    }

    #[test]
    fn a_sentence_names_the_parameters_its_constructor_gives() {
        // Every placeholder of a code's sentence is a parameter its constructor sets.
        let made = [
            GenerationError::response_timeout(30),
            GenerationError::response_size_limit(8),
            GenerationError::from_http_status(503, None),
            GenerationError::context(&hearth_core::context::ContextError::BudgetExceeded {
                needed: 9,
                available: 3,
            }),
        ];
        for error in made {
            let english = translate(Locale::En, key_of(&error.code));
            let values: Vec<(&str, &str)> = error
                .params
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect();
            let filled = crate::i18n::interpolate(&english, &values);
            assert!(!filled.contains('{'), "{filled}");
            for locale in Locale::ALL {
                let other =
                    crate::i18n::interpolate(&translate(locale, key_of(&error.code)), &values);
                assert!(!other.contains('{'), "{locale:?}: {other}");
            }
        }
    }
}
