//! A failure of a call to the Hearth server (`crate::edge::EdgeError`) in the user's
//! language: no answer, offline, an answer this version does not expect, or the edge's
//! error code's sentence (`hearth_core::api::ErrorCode`). The English text the edge sends
//! is for logs and programs; the screen shows the code's sentence.

use hearth_core::api::ErrorCode;

use super::{I18n, Key};
use crate::edge::EdgeError;

/// The catalog sentence of the edge's error `code`.
pub fn key_of(code: ErrorCode) -> Key {
    match code {
        ErrorCode::BadRequest => Key::EdgeBadRequest,
        ErrorCode::NotFound => Key::EdgeNotFound,
        ErrorCode::MethodNotAllowed => Key::EdgeMethodNotAllowed,
        ErrorCode::PayloadTooLarge => Key::EdgePayloadTooLarge,
        ErrorCode::UnsupportedMediaType => Key::EdgeUnsupportedMediaType,
        ErrorCode::HostNotAllowed => Key::EdgeHostNotAllowed,
        ErrorCode::AccessRequired => Key::EdgeAccessRequired,
        ErrorCode::AccessPasswordInvalid => Key::EdgeAccessPasswordInvalid,
        ErrorCode::AccessPasswordLocked => Key::EdgeAccessPasswordLocked,
        ErrorCode::CsrfOriginBlocked => Key::EdgeCsrfOriginBlocked,
        ErrorCode::AuthError => Key::EdgeAuthError,
        ErrorCode::PlaintextSecretRefused => Key::EdgePlaintextSecretRefused,
        ErrorCode::UrlBlocked => Key::EdgeUrlBlocked,
        ErrorCode::ResponseTimeout => Key::EdgeResponseTimeout,
        ErrorCode::ResponseSizeLimit => Key::EdgeResponseSizeLimit,
        ErrorCode::TooManyRedirects => Key::EdgeTooManyRedirects,
        ErrorCode::UpstreamUnreachable => Key::EdgeUpstreamUnreachable,
        ErrorCode::UpstreamError => Key::EdgeUpstreamError,
        ErrorCode::FingerprintMismatch => Key::EdgeFingerprintMismatch,
        ErrorCode::RateLimited => Key::EdgeRateLimited,
        ErrorCode::DocumentJobForbidden => Key::EdgeDocumentJobForbidden,
        ErrorCode::FileTypeUnsupported => Key::EdgeFileTypeUnsupported,
        ErrorCode::DocumentJobsFull => Key::EdgeDocumentJobsFull,
        ErrorCode::OauthFailed => Key::EdgeOauthFailed,
        ErrorCode::ServiceUnavailable => Key::EdgeServiceUnavailable,
        ErrorCode::Internal => Key::EdgeInternal,
    }
}

/// `error` as a sentence in the user's language.
pub fn describe(i18n: &I18n, error: &EdgeError) -> String {
    match error {
        EdgeError::Unreachable => i18n.t(Key::EdgeUnreachable),
        EdgeError::Offline => i18n.t(Key::EdgeOffline),
        EdgeError::Unexpected(status) => {
            i18n.t_with(Key::EdgeUnexpected, &[("status", &status.to_string())])
        }
        EdgeError::Api(api) => i18n.t(key_of(api.code)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Locale, translate};

    #[test]
    fn every_edge_code_has_its_own_sentence_in_every_locale() {
        let mut keys: Vec<Key> = ErrorCode::ALL.into_iter().map(key_of).collect();
        keys.sort_by_key(|k| k.id());
        keys.dedup();
        assert_eq!(keys.len(), ErrorCode::ALL.len());
        for code in ErrorCode::ALL {
            let english = translate(Locale::En, key_of(code));
            for locale in Locale::ALL {
                let sentence = translate(locale, key_of(code));
                assert!(!sentence.is_empty(), "{code:?} {locale:?}");
                assert!(!sentence.contains('{'), "{code:?} {locale:?}: {sentence}");
                if locale != Locale::En {
                    assert_ne!(
                        sentence, english,
                        "{code:?} is not translated to {locale:?}"
                    );
                }
            }
        }
    }
}
