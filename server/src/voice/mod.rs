//! Voice on the edge: `POST /api/voice/speech` (text read aloud, answered as MP3) and
//! `POST /api/voice/transcriptions` (a recording turned into text), with the user's
//! OpenAI-compatible provider or ElevenLabs, through `safe_fetch`.
//!
//! - A user's provider is resolved as the relay resolves it (its URL under the URL
//!   policy: private targets only in local mode; its key opened from the envelope for
//!   `provider:<protocol>`), so hosted mode never calls a private address for a voice.
//! - An ElevenLabs key arrives sealed for `voice:elevenlabs` and goes out as the
//!   `xi-api-key` secret header; ElevenLabs' base is the operator's.
//! - The services' documented wire formats live in `hearth_core::voice`; a failure is a
//!   fixed text with a reason code and the service's status, never the service's words.

pub mod settings;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hearth_core::api::{ApiError, ErrorCode};
use hearth_core::provider::request::{Endpoint, auth_headers};
use hearth_core::url_policy::Target;
use hearth_core::voice::{
    self, ELEVENLABS_TRANSCRIPTION_MODEL, MAX_SPEECH_ANSWER_BYTES, SpeechRequest,
    TranscriptionResponse, VoiceCall, VoiceError, VoiceService,
};
use reqwest::Method;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use serde_json::json;

use self::settings::VoiceSettings;
use crate::byok::ByokKeys;
use crate::providers::configured::ConfiguredProvider;
use crate::providers::resolve::resolve;
use crate::safe_fetch::{Limits, OutboundRequest, SafeFetch};

/// Deadline of one call.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The voice service of the edge. Cheap to clone.
#[derive(Clone)]
pub struct Voice {
    fetch: SafeFetch,
    byok: Option<Arc<ByokKeys>>,
    configured: Arc<Vec<ConfiguredProvider>>,
    elevenlabs_base: Arc<str>,
}

/// A recording to transcribe.
pub struct Recording {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its file name, as the browser named it (`speech.webm`).
    pub file_name: String,
    /// Its type (`audio/webm`).
    pub content_type: String,
    /// The speaker's language (`en`), when known.
    pub language: Option<String>,
}

/// Audio a service spoke.
pub struct Spoken {
    /// Its type (`audio/mpeg`).
    pub content_type: String,
    /// Its bytes.
    pub bytes: Bytes,
}

/// One call, ready: where, who chose the URL, and the secret headers.
struct Prepared {
    call: VoiceCall,
    target: Target,
    secrets: Vec<(HeaderName, HeaderValue)>,
    /// The form fields a transcription sends beside the file.
    fields: Vec<(&'static str, String)>,
}

/// The 502 (or 400 for an unsupported provider) for a service's failure.
fn failure(error: &VoiceError) -> ApiError {
    let code = match error {
        VoiceError::Unsupported => ErrorCode::BadRequest,
        _ => ErrorCode::UpstreamError,
    };
    ApiError::new(code, error.to_string()).with_details(json!({
        "reason": error.code(),
        "upstreamStatus": error.status(),
    }))
}

fn header(value: &str) -> Result<HeaderValue, ApiError> {
    HeaderValue::from_str(value).map_err(|_| {
        ApiError::new(
            ErrorCode::BadRequest,
            "The key has characters a header cannot carry",
        )
    })
}

impl Voice {
    /// The service.
    pub fn new(
        settings: &VoiceSettings,
        fetch: SafeFetch,
        byok: Option<Arc<ByokKeys>>,
        configured: Arc<Vec<ConfiguredProvider>>,
    ) -> Self {
        Self {
            fetch: fetch.with_limits(Limits {
                timeout: TIMEOUT,
                max_body_bytes: MAX_SPEECH_ANSWER_BYTES,
                ..fetch.limits()
            }),
            byok,
            configured,
            elevenlabs_base: settings.elevenlabs_base().into(),
        }
    }

    /// Reads `request.text` aloud (its bounds already checked).
    pub async fn speak(&self, request: SpeechRequest) -> Result<Spoken, ApiError> {
        let prepared = self.prepare(&request.service, Some(&request.text))?;
        let mut outbound = OutboundRequest::get(prepared.target, prepared.call.url);
        outbound.method = Method::POST;
        outbound
            .headers
            .push((ACCEPT, HeaderValue::from_static("audio/mpeg")));
        outbound
            .headers
            .push((CONTENT_TYPE, HeaderValue::from_static("application/json")));
        outbound.body = prepared.call.body.map(|body| Bytes::from(body.to_string()));
        outbound.secret_headers = prepared.secrets;
        let answer = self
            .fetch
            .fetch(outbound)
            .await
            .map_err(|error| error.to_api_error())?;
        let content_type = answer
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        voice::check_speech(answer.status.as_u16(), content_type.as_deref())
            .map_err(|error| failure(&error))?;
        Ok(Spoken {
            content_type: content_type.unwrap_or_else(|| "audio/mpeg".into()),
            bytes: answer.body,
        })
    }

    /// Turns `recording` into text with `service` (its bounds already checked).
    pub async fn transcribe(
        &self,
        service: &VoiceService,
        recording: Recording,
    ) -> Result<TranscriptionResponse, ApiError> {
        let prepared = self.prepare(service, None)?;
        let mut fields = prepared.fields;
        if let Some(language) = recording.language.clone().filter(|l| !l.trim().is_empty()) {
            fields.push(("language", language));
        }
        let boundary = boundary();
        let body = form(&boundary, &fields, &recording);
        let mut outbound = OutboundRequest::get(prepared.target, prepared.call.url);
        outbound.method = Method::POST;
        outbound
            .headers
            .push((ACCEPT, HeaderValue::from_static("application/json")));
        outbound.headers.push((
            CONTENT_TYPE,
            header(&format!("multipart/form-data; boundary={boundary}"))?,
        ));
        outbound.body = Some(body);
        outbound.secret_headers = prepared.secrets;
        let answer = self
            .fetch
            .fetch(outbound)
            .await
            .map_err(|error| error.to_api_error())?;
        let text = voice::read_transcription(answer.status.as_u16(), &answer.body)
            .map_err(|error| failure(&error))?;
        Ok(TranscriptionResponse { text })
    }

    /// The call for `service`: speech of `text`, or a transcription (`None`).
    fn prepare(&self, service: &VoiceService, text: Option<&str>) -> Result<Prepared, ApiError> {
        match service {
            VoiceService::Provider {
                provider,
                model,
                voice: chosen,
            } => {
                let resolved = resolve(&self.configured, self.byok.as_deref(), provider)?;
                let endpoint: Endpoint = resolved.endpoint;
                let call = match text {
                    Some(text) => voice::openai_speech(&endpoint, model, chosen.as_deref(), text),
                    None => voice::openai_transcription(&endpoint),
                }
                .map_err(|error| failure(&error))?;
                let mut secrets = Vec::new();
                if let Some(key) = resolved.key.as_deref() {
                    for (name, value) in auth_headers(endpoint.protocol, key) {
                        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                            ApiError::new(ErrorCode::BadRequest, "A header name is invalid")
                        })?;
                        secrets.push((name, header(&value)?));
                    }
                }
                Ok(Prepared {
                    call,
                    target: resolved.target,
                    secrets,
                    fields: vec![("model", model.trim().to_string())],
                })
            }
            VoiceService::ElevenLabs {
                api_key,
                voice_id,
                model,
            } => {
                let keys = self.byok.as_ref().ok_or_else(|| {
                    ApiError::new(ErrorCode::AuthError, "This edge has no BYOK key")
                })?;
                let key = keys
                    .open(api_key, &voice::elevenlabs_key_context())
                    .map_err(|error| {
                        ApiError::new(ErrorCode::AuthError, "The key envelope could not be opened")
                            .with_details(json!({ "reason": error.to_string() }))
                    })?;
                let call = match text {
                    Some(text) => voice::elevenlabs_speech(
                        &self.elevenlabs_base,
                        voice_id.as_deref().unwrap_or_default(),
                        model.as_deref(),
                        text,
                    ),
                    None => voice::elevenlabs_transcription(&self.elevenlabs_base),
                };
                let model_id = model
                    .as_deref()
                    .map(str::trim)
                    .filter(|m| !m.is_empty())
                    .unwrap_or(ELEVENLABS_TRANSCRIPTION_MODEL)
                    .to_string();
                Ok(Prepared {
                    call,
                    target: Target::OperatorConfigured,
                    secrets: vec![(HeaderName::from_static("xi-api-key"), header(&key)?)],
                    fields: vec![("model_id", model_id)],
                })
            }
        }
    }
}

/// A boundary no recording contains (random, checked against the bytes by the caller's
/// odds: 128 random bits).
fn boundary() -> String {
    let mut bytes = [0_u8; 16];
    let _ = getrandom::fill(&mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("hearth-voice-{hex}")
}

/// A `multipart/form-data` body: `fields`, then the recording as `file`.
fn form(boundary: &str, fields: &[(&'static str, String)], recording: &Recording) -> Bytes {
    let mut body = Vec::with_capacity(recording.bytes.len() + 1024);
    for (name, value) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    let file_name: String = recording
        .file_name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        .take(64)
        .collect();
    let file_name = if file_name.is_empty() {
        "speech.webm".into()
    } else {
        file_name
    };
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\nContent-Type: {}\r\n\r\n",
            recording.content_type
        )
        .as_bytes(),
    );
    body.extend_from_slice(&recording.bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    Bytes::from(body)
}
