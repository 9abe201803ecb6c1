use super::*;

fn endpoint(protocol: Protocol, base: &str) -> Endpoint {
    Endpoint {
        protocol,
        base_url: base.into(),
        compatible: true,
    }
}

fn envelope() -> Envelope {
    Envelope {
        v: 1,
        kid: "k".into(),
        alg: crate::byok::ALGORITHM.into(),
        iv: "aaaa".into(),
        wrapped_key: "aaaa".into(),
        ciphertext: "aaaa".into(),
        context: elevenlabs_key_context(),
    }
}

fn provider(base: &str) -> RelayProvider {
    RelayProvider {
        server_provider_id: None,
        protocol: Protocol::OpenAiChat,
        base_url: base.into(),
        compatible: true,
        api_key: None,
    }
}

#[test]
fn openai_speech_and_transcription_follow_its_documented_routes() {
    let local = endpoint(Protocol::OpenAiChat, "http://127.0.0.1:8080/v1");
    let speech = openai_speech(&local, " gpt-4o-mini-tts ", None, "Hello there").unwrap();
    assert_eq!(speech.url, "http://127.0.0.1:8080/v1/audio/speech");
    assert_eq!(
        speech.body.unwrap(),
        json!({"model": "gpt-4o-mini-tts", "voice": "alloy", "input": "Hello there", "response_format": "mp3"})
    );
    let with_voice = openai_speech(&local, "tts-1", Some("nova"), "Hi").unwrap();
    assert_eq!(with_voice.body.unwrap()["voice"], "nova");
    assert_eq!(
        openai_transcription(&local).unwrap().url,
        "http://127.0.0.1:8080/v1/audio/transcriptions"
    );
    // Anthropic and Gemini have no such API here: a typed refusal, not a wrong call.
    for protocol in [Protocol::Anthropic, Protocol::Gemini] {
        let other = endpoint(protocol, "https://example.com");
        assert_eq!(openai_transcription(&other), Err(VoiceError::Unsupported));
        assert_eq!(
            openai_speech(&other, "m", None, "t").map(|_| ()),
            Err(VoiceError::Unsupported)
        );
    }
}

#[test]
fn elevenlabs_speech_and_transcription_follow_its_documented_routes() {
    let speech = elevenlabs_speech(
        "https://api.elevenlabs.io/",
        "21m00Tcm4TlvDq8ikWAM",
        None,
        "Hi",
    );
    assert_eq!(
        speech.url,
        "https://api.elevenlabs.io/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM?output_format=mp3_44100_128"
    );
    assert_eq!(
        speech.body.unwrap(),
        json!({"text": "Hi", "model_id": "eleven_multilingual_v2"})
    );
    assert_eq!(
        elevenlabs_transcription(ELEVENLABS_BASE).url,
        "https://api.elevenlabs.io/v1/speech-to-text"
    );
}

#[test]
fn answers_are_read_as_documented_and_failures_are_typed() {
    assert_eq!(check_speech(200, Some("audio/mpeg")), Ok(()));
    assert_eq!(check_speech(200, Some("application/octet-stream")), Ok(()));
    assert!(matches!(
        check_speech(200, Some("application/json")),
        Err(VoiceError::Malformed(_))
    ));
    assert_eq!(check_speech(401, None), Err(VoiceError::KeyRefused(401)));
    assert_eq!(check_speech(429, None), Err(VoiceError::RateLimited));
    assert_eq!(check_speech(500, None), Err(VoiceError::Upstream(500)));
    assert_eq!(
        read_transcription(200, br#"{"text": "  Hello world. "}"#),
        Ok("Hello world.".into())
    );
    assert!(matches!(
        read_transcription(200, b"<html>"),
        Err(VoiceError::Malformed(_))
    ));
    assert!(matches!(
        read_transcription(200, b"{}"),
        Err(VoiceError::Malformed(_))
    ));
    let endless = json!({"text": "word ".repeat(MAX_TRANSCRIPT_CHARS)}).to_string();
    assert!(matches!(
        read_transcription(200, endless.as_bytes()),
        Err(VoiceError::Malformed(_))
    ));
    let refused = read_transcription(403, br#"{"error": "bad key sk-123"}"#).unwrap_err();
    assert_eq!(
        (refused.code(), refused.status()),
        ("VOICE_KEY_REFUSED", Some(403))
    );
    // The message is fixed: never the service's words.
    assert!(!refused.to_string().contains("sk-123"));
}

#[test]
fn requests_are_bounded_and_elevenlabs_speech_needs_a_safe_voice_id() {
    let good = SpeechRequest {
        service: VoiceService::Provider {
            provider: provider("http://127.0.0.1:8080/v1"),
            model: "tts-1".into(),
            voice: None,
        },
        text: "Read this.".into(),
    };
    assert_eq!(good.check_bounds(), Ok(()));
    let mut long = good.clone();
    long.text = "x".repeat(MAX_SPEECH_CHARS + 1);
    assert_eq!(long.check_bounds().unwrap_err().field, "text");
    let mut empty = good.clone();
    empty.text = "  ".into();
    assert_eq!(empty.check_bounds().unwrap_err().field, "text");
    let mut no_model = good.clone();
    no_model.service = VoiceService::Provider {
        provider: provider("http://x"),
        model: " ".into(),
        voice: None,
    };
    assert_eq!(no_model.check_bounds().unwrap_err().field, "service.model");
    let eleven = |voice_id: Option<&str>| VoiceService::ElevenLabs {
        api_key: envelope(),
        voice_id: voice_id.map(str::to_string),
        model: None,
    };
    assert_eq!(
        eleven(None).check_bounds(true).unwrap_err().field,
        "service.voiceId"
    );
    assert_eq!(eleven(None).check_bounds(false), Ok(()));
    assert_eq!(
        eleven(Some("../../v1/user"))
            .check_bounds(true)
            .unwrap_err()
            .field,
        "service.voiceId"
    );
    assert_eq!(
        eleven(Some("21m00Tcm4TlvDq8ikWAM")).check_bounds(true),
        Ok(())
    );
    // Unknown fields are refused; the service is tagged.
    let unknown = json!({"service": {"kind": "provider", "provider": {"protocol": "openai-chat"}, "model": "m", "extra": 1}, "text": "t"});
    assert!(serde_json::from_value::<SpeechRequest>(unknown).is_err());
}

#[test]
fn health_says_voice_is_ready_with_sealed_keys_or_the_operators_providers_only() {
    use crate::api::ServiceStatus;
    assert_eq!(health(true, false).status, ServiceStatus::Available);
    assert_eq!(health(true, true).code, "VOICE_READY");
    let operators = health(false, true);
    assert_eq!(
        (operators.status, operators.code.as_str()),
        (ServiceStatus::Available, "VOICE_OPERATOR_PROVIDERS_ONLY")
    );
    let neither = health(false, false);
    assert_eq!(
        (neither.status, neither.code.as_str()),
        (ServiceStatus::MissingKey, "VOICE_NEEDS_BYOK_KEY")
    );
}
