//! Voice through the edge: reading a reply aloud (`POST /api/voice/speech`) and turning
//! recorded speech into text (`POST /api/voice/transcriptions`), with the user's
//! OpenAI-compatible provider (its key sealed for `provider:<protocol>`, as the relay
//! takes it) or ElevenLabs (its key sealed for `voice:elevenlabs`).
//!
//! This module holds what both sides agree on without a network: the request bodies and
//! their bounds ([`SpeechRequest`], [`VoiceService`]), each service's documented wire
//! format (OpenAI's `audio/speech` and `audio/transcriptions`, ElevenLabs'
//! `text-to-speech/{voice_id}` and `speech-to-text`), and how an answer is read, its
//! failures typed ([`VoiceError`]) and never quoting the service's words (which may
//! quote a key).

pub mod settings;
pub mod speakable;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::api::relay_bounds::{BoundError, check_provider};
use crate::api::{RelayProvider, ServiceHealth, ServiceStatus};
use crate::byok::Envelope;
use crate::provider::Protocol;
use crate::provider::request::{Endpoint, api_base};

/// The longest text read aloud at once, in characters.
pub const MAX_SPEECH_CHARS: usize = 10_000;
/// The largest recording transcribed at once.
pub const MAX_AUDIO_BYTES: u64 = 25 * 1024 * 1024;
/// The largest spoken answer read from a service.
pub const MAX_SPEECH_ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// The longest transcription kept, in characters (a recording of 25 MiB is far less).
pub const MAX_TRANSCRIPT_CHARS: usize = 100_000;
/// The longest model, voice or language id.
pub const MAX_ID_CHARS: usize = 128;
/// ElevenLabs' API, unless the operator points elsewhere.
pub const ELEVENLABS_BASE: &str = "https://api.elevenlabs.io";
/// ElevenLabs' speech model when none is named.
pub const ELEVENLABS_SPEECH_MODEL: &str = "eleven_multilingual_v2";
/// ElevenLabs' transcription model when none is named.
pub const ELEVENLABS_TRANSCRIPTION_MODEL: &str = "scribe_v1";
/// OpenAI's voice when none is named.
pub const OPENAI_VOICE: &str = "alloy";

/// `/api/health`'s `voice` service. The edge speaks and listens with a key the browser
/// sealed for it (`sealed_keys`: its BYOK key is loaded) or with a provider its operator
/// configured (`operator_providers`); the browser's own speech needs no edge at all.
pub fn health(sealed_keys: bool, operator_providers: bool) -> ServiceHealth {
    let (status, code) = match (sealed_keys, operator_providers) {
        (true, _) => (ServiceStatus::Available, "VOICE_READY"),
        (false, true) => (ServiceStatus::Available, "VOICE_OPERATOR_PROVIDERS_ONLY"),
        (false, false) => (ServiceStatus::MissingKey, "VOICE_NEEDS_BYOK_KEY"),
    };
    ServiceHealth {
        status,
        code: code.into(),
    }
}

/// The vault and envelope context of an ElevenLabs key.
pub fn elevenlabs_key_context() -> String {
    "voice:elevenlabs".into()
}

/// Which service speaks or listens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum VoiceService {
    /// The user's OpenAI-compatible provider (or the deployment's), as the relay takes
    /// it.
    #[serde(rename = "provider", rename_all = "camelCase")]
    Provider {
        /// The provider.
        provider: RelayProvider,
        /// Its speech or transcription model (`gpt-4o-mini-tts`, `whisper-1`).
        model: String,
        /// The voice, for speech (`alloy`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        voice: Option<String>,
    },
    /// ElevenLabs.
    #[serde(rename = "elevenlabs", rename_all = "camelCase")]
    ElevenLabs {
        /// The key, sealed for `voice:elevenlabs`.
        api_key: Envelope,
        /// The voice, required for speech.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        voice_id: Option<String>,
        /// The model (default [`ELEVENLABS_SPEECH_MODEL`] or
        /// [`ELEVENLABS_TRANSCRIPTION_MODEL`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
}

/// The body of `POST /api/voice/speech`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SpeechRequest {
    /// Who speaks.
    pub service: VoiceService,
    /// What to say (1 to [`MAX_SPEECH_CHARS`] characters).
    pub text: String,
}

/// The answer of `POST /api/voice/transcriptions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptionResponse {
    /// What was said.
    pub text: String,
}

fn bound(field: &str, problem: impl Into<String>) -> BoundError {
    BoundError {
        field: field.into(),
        problem: problem.into(),
    }
}

fn id_bound(field: &str, value: Option<&str>) -> Result<(), BoundError> {
    match value {
        Some(v) if v.chars().count() > MAX_ID_CHARS => Err(bound(
            field,
            format!("is longer than {MAX_ID_CHARS} characters"),
        )),
        Some(v) if v.chars().any(char::is_control) => Err(bound(field, "has control characters")),
        _ => Ok(()),
    }
}

impl VoiceService {
    /// Checks its bounds, for `speech` (which needs a voice for ElevenLabs) or
    /// transcription.
    pub fn check_bounds(&self, speech: bool) -> Result<(), BoundError> {
        match self {
            Self::Provider {
                provider,
                model,
                voice,
            } => {
                check_provider(provider)?;
                if model.trim().is_empty() {
                    return Err(bound("service.model", "is empty"));
                }
                id_bound("service.model", Some(model))?;
                id_bound("service.voice", voice.as_deref())
            }
            Self::ElevenLabs {
                voice_id, model, ..
            } => {
                if speech && voice_id.as_deref().is_none_or(|v| v.trim().is_empty()) {
                    return Err(bound("service.voiceId", "is required to speak"));
                }
                if voice_id.as_deref().is_some_and(|v| {
                    !v.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                }) {
                    return Err(bound("service.voiceId", "must be letters, digits, - or _"));
                }
                id_bound("service.voiceId", voice_id.as_deref())?;
                id_bound("service.model", model.as_deref())
            }
        }
    }
}

impl SpeechRequest {
    /// Checks every bound; the first field past its limit is the error.
    pub fn check_bounds(&self) -> Result<(), BoundError> {
        self.service.check_bounds(true)?;
        if self.text.trim().is_empty() {
            return Err(bound("text", "is empty"));
        }
        if self.text.chars().count() > MAX_SPEECH_CHARS {
            return Err(bound(
                "text",
                format!("is longer than {MAX_SPEECH_CHARS} characters"),
            ));
        }
        Ok(())
    }
}

/// Why a voice service did not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VoiceError {
    /// The provider speaks no OpenAI-compatible audio API (Anthropic, Gemini).
    #[error("this provider has no speech or transcription API here")]
    Unsupported,
    /// The service refused the key (401, 403).
    #[error("the voice service refused the key")]
    KeyRefused(u16),
    /// Too many requests.
    #[error("the voice service is rate limiting")]
    RateLimited,
    /// Any other failure status.
    #[error("the voice service failed")]
    Upstream(u16),
    /// An answer that is not what the service documents.
    #[error("the voice service's answer is unreadable")]
    Malformed(String),
}

impl VoiceError {
    /// Its stable reason code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unsupported => "VOICE_UNSUPPORTED_PROVIDER",
            Self::KeyRefused(_) => "VOICE_KEY_REFUSED",
            Self::RateLimited => "VOICE_RATE_LIMITED",
            Self::Upstream(_) => "VOICE_UPSTREAM_FAILED",
            Self::Malformed(_) => "VOICE_MALFORMED_ANSWER",
        }
    }

    /// The status the service answered, if any.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::KeyRefused(status) | Self::Upstream(status) => Some(*status),
            Self::RateLimited => Some(429),
            Self::Unsupported | Self::Malformed(_) => None,
        }
    }
}

fn status_error(status: u16) -> VoiceError {
    match status {
        401 | 403 => VoiceError::KeyRefused(status),
        429 => VoiceError::RateLimited,
        _ => VoiceError::Upstream(status),
    }
}

/// The base of an OpenAI-compatible provider's audio API (`…/v1`).
fn openai_base(endpoint: &Endpoint) -> Result<String, VoiceError> {
    match endpoint.protocol {
        Protocol::OpenAiChat | Protocol::OpenAiResponses => {
            api_base(endpoint).map_err(|e| VoiceError::Malformed(e.to_string()))
        }
        Protocol::Anthropic | Protocol::Gemini => Err(VoiceError::Unsupported),
    }
}

/// One request to a voice service: where, and (for speech) the JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceCall {
    /// The URL.
    pub url: String,
    /// The JSON body (speech); transcription sends a form instead.
    pub body: Option<Value>,
}

/// OpenAI's speech request (`POST {base}/audio/speech`), answered with MP3 bytes.
pub fn openai_speech(
    endpoint: &Endpoint,
    model: &str,
    voice: Option<&str>,
    text: &str,
) -> Result<VoiceCall, VoiceError> {
    Ok(VoiceCall {
        url: format!("{}/audio/speech", openai_base(endpoint)?),
        body: Some(json!({
            "model": model.trim(),
            "voice": voice.map(str::trim).filter(|v| !v.is_empty()).unwrap_or(OPENAI_VOICE),
            "input": text,
            "response_format": "mp3",
        })),
    })
}

/// OpenAI's transcription request (`POST {base}/audio/transcriptions`, a form with
/// `file`, `model` and, when known, `language`), answered with `{"text": …}`.
pub fn openai_transcription(endpoint: &Endpoint) -> Result<VoiceCall, VoiceError> {
    Ok(VoiceCall {
        url: format!("{}/audio/transcriptions", openai_base(endpoint)?),
        body: None,
    })
}

/// ElevenLabs' speech request (`POST {base}/v1/text-to-speech/{voice_id}`), answered
/// with MP3 bytes; the key goes in `xi-api-key`.
pub fn elevenlabs_speech(base: &str, voice_id: &str, model: Option<&str>, text: &str) -> VoiceCall {
    VoiceCall {
        url: format!(
            "{}/v1/text-to-speech/{}?output_format=mp3_44100_128",
            base.trim_end_matches('/'),
            voice_id.trim()
        ),
        body: Some(json!({
            "text": text,
            "model_id": model.map(str::trim).filter(|m| !m.is_empty()).unwrap_or(ELEVENLABS_SPEECH_MODEL),
        })),
    }
}

/// ElevenLabs' transcription request (`POST {base}/v1/speech-to-text`, a form with
/// `file` and `model_id`), answered with `{"text": …}`.
pub fn elevenlabs_transcription(base: &str) -> VoiceCall {
    VoiceCall {
        url: format!("{}/v1/speech-to-text", base.trim_end_matches('/')),
        body: None,
    }
}

/// Whether a speech answer (`status`, `content_type`) is audio.
pub fn check_speech(status: u16, content_type: Option<&str>) -> Result<(), VoiceError> {
    if !(200..300).contains(&status) {
        return Err(status_error(status));
    }
    let audio = content_type.is_some_and(|t| {
        let t = t.to_ascii_lowercase();
        t.starts_with("audio/") || t.starts_with("application/octet-stream")
    });
    if audio {
        Ok(())
    } else {
        Err(VoiceError::Malformed("the answer is not audio".into()))
    }
}

/// The text of a transcription answer (`status`, `body`), trimmed.
pub fn read_transcription(status: u16, body: &[u8]) -> Result<String, VoiceError> {
    if !(200..300).contains(&status) {
        return Err(status_error(status));
    }
    let value: Value = serde_json::from_slice(body)
        .map_err(|_| VoiceError::Malformed("the answer is not JSON".into()))?;
    let text = value["text"]
        .as_str()
        .ok_or_else(|| VoiceError::Malformed("the answer has no `text`".into()))?
        .trim();
    if text.chars().count() > MAX_TRANSCRIPT_CHARS {
        return Err(VoiceError::Malformed(
            "the transcription is too long".into(),
        ));
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests;
