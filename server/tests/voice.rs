//! `POST /api/voice/speech` and `POST /api/voice/transcriptions` through the real binary,
//! against a stand-in served here on 127.0.0.1 that speaks the services' documented
//! APIs: an OpenAI-compatible provider's `/v1/audio/speech` and
//! `/v1/audio/transcriptions` (bearer key), and ElevenLabs' `/v1/text-to-speech/{voice}`
//! and `/v1/speech-to-text` (`xi-api-key`; the operator points
//! `HEARTH_ELEVENLABS_BASE_URL` at the stand-in, as for a proxy). Every request is
//! recorded, so the tests check each key went in its header and nowhere else, and that
//! a refused request reached no service.

mod support;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode as Status;
use axum::response::{IntoResponse, Response};
use hearth_core::byok::context;
use hearth_server::byok::ByokKeys;
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::{Server, post_json};

const OPENAI_KEY: &str = "sk-voice-key-3b91d0";
const ELEVEN_KEY: &str = "xi-eleven-key-77a2c4";
const VOICE_ID: &str = "21m00Tcm4TlvDq8ikWAM";

/// One request the stand-in received.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    query: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Whether `secret` appears anywhere but in header `allowed`.
    fn leaks(&self, secret: &str, allowed: &str) -> bool {
        self.path.contains(secret)
            || self.query.contains(secret)
            || self.text().contains(secret)
            || self
                .headers
                .iter()
                .any(|(name, value)| name != allowed && value.contains(secret))
    }
}

#[derive(Clone, Default)]
struct StandIn(Arc<Mutex<Vec<Seen>>>);

impl StandIn {
    async fn start() -> (Self, String) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let stand_in = StandIn::default();
        let app = Router::new().fallback(answer).with_state(stand_in.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (stand_in, base)
    }

    fn seen(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }
}

fn mp3(words: &str) -> Response {
    (
        Status::OK,
        [("content-type", "audio/mpeg")],
        format!("ID3-spoken:{words}"),
    )
        .into_response()
}

/// Answers as the service the path names.
async fn answer(State(stand_in): State<StandIn>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 32 << 20)
        .await
        .unwrap_or_default();
    let seen = Seen {
        path: parts.uri.path().to_string(),
        query: parts.uri.query().unwrap_or_default().to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or_default().to_string()))
            .collect(),
        body: body.to_vec(),
    };
    stand_in.0.lock().unwrap().push(seen.clone());
    let text = seen.text();
    // The service quotes the key it refused, as some do: the edge must not pass it on.
    let refuse = |key: Option<&str>| {
        (
            Status::UNAUTHORIZED,
            axum::Json(json!({"error": {"message": format!("invalid key {}", key.unwrap_or(""))}})),
        )
            .into_response()
    };
    match seen.path.as_str() {
        "/v1/audio/speech" => {
            let key = seen.header("authorization");
            if key != Some(format!("Bearer {OPENAI_KEY}").as_str()) {
                return refuse(key);
            }
            let asked: Value = serde_json::from_str(&text).unwrap_or_default();
            if asked["input"] == "slow down" {
                return (Status::TOO_MANY_REQUESTS, "{}").into_response();
            }
            mp3(asked["input"].as_str().unwrap_or_default())
        }
        "/v1/audio/transcriptions" => {
            let key = seen.header("authorization");
            if key != Some(format!("Bearer {OPENAI_KEY}").as_str()) {
                return refuse(key);
            }
            (
                Status::OK,
                axum::Json(json!({"text": " Bonjour tout le monde. "})),
            )
                .into_response()
        }
        path if path.starts_with("/v1/text-to-speech/") => {
            let key = seen.header("xi-api-key");
            if key != Some(ELEVEN_KEY) {
                return refuse(key);
            }
            let asked: Value = serde_json::from_str(&text).unwrap_or_default();
            mp3(asked["text"].as_str().unwrap_or_default())
        }
        "/v1/speech-to-text" => {
            let key = seen.header("xi-api-key");
            if key != Some(ELEVEN_KEY) {
                return refuse(key);
            }
            (
                Status::OK,
                axum::Json(json!({"language_code": "en", "language_probability": 0.98,
                    "text": "Hello from ElevenLabs.", "words": []})),
            )
                .into_response()
        }
        _ => (Status::NOT_FOUND, "unknown").into_response(),
    }
}

fn edge(base: &str) -> Server {
    Server::start(&[("HEARTH_ELEVENLABS_BASE_URL", base)])
}

/// `secret` sealed for `ctx` with the edge's own key (as a browser would).
fn sealed(server: &Server, ctx: &str, secret: &str) -> Value {
    let keys = ByokKeys::load_or_create(server.data.path()).unwrap();
    serde_json::to_value(keys.seal(ctx, secret).unwrap()).unwrap()
}

/// The user's OpenAI-compatible provider at `base`, its key sealed.
fn provider_service(server: &Server, base: &str, key: &str, model: &str) -> Value {
    json!({"kind": "provider", "model": model, "provider": {
        "protocol": "openai-chat", "baseUrl": format!("{base}/v1"), "compatible": true,
        "apiKey": sealed(server, &context::provider("openai-chat"), key)}})
}

/// `POST /api/voice/speech`: the status, the content type and the body.
async fn speak(server: &Server, body: Value) -> (StatusCode, String, Vec<u8>) {
    let response = reqwest::Client::new()
        .post(server.url("/api/voice/speech"))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let kind = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (status, kind, response.bytes().await.unwrap().to_vec())
}

/// A multipart body: `fields` (name, value), then `audio` of `audio_type` when given.
fn form(fields: &[(&str, String)], audio: Option<(&str, &[u8])>) -> (String, Vec<u8>) {
    let boundary = "test-boundary-5c1a";
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    if let Some((kind, bytes)) = audio {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"audio\"; filename=\"speech.webm\"\r\nContent-Type: {kind}\r\n\r\n")
                .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

async fn transcribe(server: &Server, kind: String, body: Vec<u8>) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .post(server.url("/api/voice/transcriptions"))
        .header("content-type", kind)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

const RECORDING: &[u8] = b"\x1aE\xdf\xa3webm-opus-frames";

#[tokio::test]
async fn an_openai_compatible_provider_speaks_and_listens_as_documented_with_its_key_in_its_header_only()
 {
    let (stand_in, base) = StandIn::start().await;
    let server = edge(&base);
    let service = provider_service(&server, &base, OPENAI_KEY, "gpt-4o-mini-tts");
    let (status, kind, audio) = speak(
        &server,
        json!({"service": service, "text": "Read this aloud."}),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&audio)
    );
    assert_eq!(kind, "audio/mpeg");
    assert_eq!(audio, b"ID3-spoken:Read this aloud.");
    let asked = stand_in.seen().pop().unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&asked.body).unwrap(),
        json!({"model": "gpt-4o-mini-tts", "voice": "alloy", "input": "Read this aloud.",
            "response_format": "mp3"})
    );
    assert!(!asked.leaks(OPENAI_KEY, "authorization"), "{asked:?}");

    let service = provider_service(&server, &base, OPENAI_KEY, "whisper-1");
    let (kind, body) = form(
        &[("service", service.to_string()), ("language", "fr".into())],
        Some(("audio/webm;codecs=opus", RECORDING)),
    );
    let (status, answer) = transcribe(&server, kind, body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer, json!({"text": "Bonjour tout le monde."}));
    let asked = stand_in.seen().pop().unwrap();
    assert_eq!(asked.path, "/v1/audio/transcriptions");
    assert!(!asked.leaks(OPENAI_KEY, "authorization"), "{asked:?}");
    let sent = asked.text();
    assert!(
        asked
            .header("content-type")
            .unwrap()
            .starts_with("multipart/form-data; boundary=")
    );
    assert!(
        sent.contains("name=\"model\"\r\n\r\nwhisper-1\r\n"),
        "{sent}"
    );
    assert!(sent.contains("name=\"language\"\r\n\r\nfr\r\n"), "{sent}");
    assert!(
        sent.contains("name=\"file\"; filename=\"speech.webm\"\r\nContent-Type: audio/webm\r\n"),
        "{sent}"
    );
    assert!(asked.body.windows(RECORDING.len()).any(|w| w == RECORDING));
}

#[tokio::test]
async fn elevenlabs_speaks_with_a_voice_and_listens_with_its_sealed_key() {
    let (stand_in, base) = StandIn::start().await;
    let server = edge(&base);
    let key = sealed(&server, "voice:elevenlabs", ELEVEN_KEY);
    let service = json!({"kind": "elevenlabs", "apiKey": key, "voiceId": VOICE_ID});
    let (status, kind, audio) = speak(&server, json!({"service": service, "text": "Hi."})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(kind, "audio/mpeg");
    assert_eq!(audio, b"ID3-spoken:Hi.");
    let asked = stand_in.seen().pop().unwrap();
    assert_eq!(asked.path, format!("/v1/text-to-speech/{VOICE_ID}"));
    assert_eq!(asked.query, "output_format=mp3_44100_128");
    assert_eq!(
        serde_json::from_slice::<Value>(&asked.body).unwrap(),
        json!({"text": "Hi.", "model_id": "eleven_multilingual_v2"})
    );
    assert!(!asked.leaks(ELEVEN_KEY, "xi-api-key"), "{asked:?}");

    // Speech needs a voice: refused before any call.
    let before = stand_in.seen().len();
    let service = json!({"kind": "elevenlabs", "apiKey": key});
    let (status, _, body) = speak(&server, json!({"service": service, "text": "Hi."})).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "{}",
        String::from_utf8_lossy(&body)
    );
    assert_eq!(stand_in.seen().len(), before);

    let service = json!({"kind": "elevenlabs", "apiKey": key});
    let (kind, body) = form(
        &[("service", service.to_string())],
        Some(("audio/ogg", RECORDING)),
    );
    let (status, answer) = transcribe(&server, kind, body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["text"], "Hello from ElevenLabs.");
    let asked = stand_in.seen().pop().unwrap();
    assert_eq!(asked.path, "/v1/speech-to-text");
    assert!(
        asked
            .text()
            .contains("name=\"model_id\"\r\n\r\nscribe_v1\r\n")
    );
    assert!(!asked.leaks(ELEVEN_KEY, "xi-api-key"), "{asked:?}");
}

#[tokio::test]
async fn refusals_are_typed_and_never_quote_the_key() {
    let (_stand_in, base) = StandIn::start().await;
    let server = edge(&base);
    let wrong = "sk-wrong-voice-key-0000";
    let service = provider_service(&server, &base, wrong, "tts-1");
    let (status, _, body) = speak(&server, json!({"service": service, "text": "Hello"})).await;
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{answer}");
    assert_eq!(answer["details"]["reason"], "VOICE_KEY_REFUSED");
    assert_eq!(answer["details"]["upstreamStatus"], 401);
    assert!(!answer.to_string().contains(wrong), "{answer}");

    let service = provider_service(&server, &base, OPENAI_KEY, "tts-1");
    let (status, _, body) = speak(&server, json!({"service": service, "text": "slow down"})).await;
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert_eq!(answer["details"]["reason"], "VOICE_RATE_LIMITED");
}

#[tokio::test]
async fn plain_keys_foreign_envelopes_bad_audio_and_blocked_targets_reach_no_service() {
    let (stand_in, base) = StandIn::start().await;
    let server = edge(&base);
    // A key in plaintext, in the JSON route and in the form.
    let plain = json!({"kind": "provider", "model": "tts-1", "provider": {
        "protocol": "openai-chat", "baseUrl": format!("{base}/v1"), "apiKey": OPENAI_KEY}});
    let (status, answer) = post_json(
        &server,
        "/api/voice/speech",
        json!({"service": plain, "text": "Hello"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["code"], "PLAINTEXT_SECRET_REFUSED");
    let eleven_plain = json!({"kind": "elevenlabs", "apiKey": ELEVEN_KEY});
    let (kind, body) = form(
        &[("service", eleven_plain.to_string())],
        Some(("audio/webm", RECORDING)),
    );
    let (status, answer) = transcribe(&server, kind, body).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["code"], "PLAINTEXT_SECRET_REFUSED");
    // A key sealed for something else is not opened.
    let foreign = json!({"kind": "elevenlabs", "voiceId": VOICE_ID,
        "apiKey": sealed(&server, &context::search("brave"), ELEVEN_KEY)});
    let (status, answer) = post_json(
        &server,
        "/api/voice/speech",
        json!({"service": foreign, "text": "Hello"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{answer}");
    assert_eq!(answer["code"], "AUTH_ERROR");
    // Bounds and shapes.
    let good = provider_service(&server, &base, OPENAI_KEY, "tts-1");
    for body in [
        json!({"service": good, "text": "x".repeat(10_001)}),
        json!({"service": good, "text": "   "}),
        json!({"service": good, "text": "Hello", "extra": 1}),
        json!({"service": {"kind": "elevenlabs", "voiceId": "../../v1/user",
            "apiKey": sealed(&server, "voice:elevenlabs", ELEVEN_KEY)}, "text": "Hello"}),
    ] {
        let (status, answer) = post_json(&server, "/api/voice/speech", body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    }
    // A recording that is not audio, none at all, or an empty one.
    let service = provider_service(&server, &base, OPENAI_KEY, "whisper-1").to_string();
    let cases = [
        (
            Some(("text/html", RECORDING)),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (None, StatusCode::BAD_REQUEST),
        (Some(("audio/webm", &b""[..])), StatusCode::BAD_REQUEST),
    ];
    for (audio, expected) in cases {
        let (kind, body) = form(&[("service", service.clone())], audio);
        let (status, answer) = transcribe(&server, kind, body).await;
        assert_eq!(status, expected, "{answer}");
    }
    // Over 25 MiB: refused by its declared length, before it is read.
    let big = vec![0_u8; 25 * 1024 * 1024 + 1];
    let (kind, body) = form(&[("service", service.clone())], Some(("audio/webm", &big)));
    let (status, answer) = transcribe(&server, kind, body).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{answer}");
    // A provider that is no voice service, and an address that is not the web.
    let anthropic = json!({"kind": "provider", "model": "m", "provider": {
        "protocol": "anthropic", "baseUrl": base,
        "apiKey": sealed(&server, &context::provider("anthropic"), OPENAI_KEY)}});
    let (status, answer) = post_json(
        &server,
        "/api/voice/speech",
        json!({"service": anthropic, "text": "Hello"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["details"]["reason"], "VOICE_UNSUPPORTED_PROVIDER");
    let metadata = json!({"kind": "provider", "model": "tts-1", "provider": {
        "protocol": "openai-chat", "baseUrl": "http://169.254.169.254/v1"}});
    let (status, answer) = post_json(
        &server,
        "/api/voice/speech",
        json!({"service": metadata, "text": "Hello"}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert_eq!(answer["code"], "URL_BLOCKED");
    assert!(stand_in.seen().is_empty(), "{:?}", stand_in.seen());
}
