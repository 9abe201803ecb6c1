//! The provider fixture against Hearth's own protocol code, over real sockets: requests
//! built by `hearth_core::provider::build::build`, bodies decoded by `StreamDecoder`,
//! listings read by `parse_list`. No browser: these pin the fixture's wire formats so that
//! browser tests built on it test the app, not the fixture.

use std::time::Duration;

use hearth_core::provider::build::build;
use hearth_core::provider::models::{list_url, parse_list};
use hearth_core::provider::request::{
    ChatRequest, Endpoint, Message, ModelCapabilities, Part, PastToolCall, ToolSpec, auth_headers,
};
use hearth_core::provider::tool_calls::{ToolCall, ToolCallAssembler};
use hearth_core::provider::{
    FinishReason, ImageData, Protocol, ProviderError, StreamDecoder, StreamError, StreamEvent,
    Usage,
};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply, STREAM_ERROR_MESSAGE};
use serde_json::{Value, json};

const PROTOCOLS: [Protocol; 4] = [
    Protocol::OpenAiChat,
    Protocol::OpenAiResponses,
    Protocol::Anthropic,
    Protocol::Gemini,
];
const KEY: &str = "sk-fixture-0123456789";
const WAIT: Duration = Duration::from_secs(10);
const CAPABILITIES: ModelCapabilities = ModelCapabilities {
    vision: false,
    tools: true,
    reasoning: true,
    context_window: None,
    max_output_tokens: None,
};

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client")
}

fn endpoint(fixture: &ProviderFixture, protocol: Protocol) -> Endpoint {
    Endpoint {
        protocol,
        base_url: fixture.base_url(protocol),
        compatible: true,
    }
}

/// A short conversation ending with `text` from the user, offering one tool.
fn conversation(text: &str) -> ChatRequest {
    ChatRequest {
        model: "fixture-small".into(),
        system: Some("Be brief.".into()),
        messages: vec![
            Message::User {
                parts: vec![Part::Text {
                    text: "An earlier question".into(),
                }],
            },
            Message::Assistant {
                text: "An earlier answer".into(),
                tool_calls: Vec::new(),
                images: Vec::new(),
            },
            Message::User {
                parts: vec![Part::Text { text: text.into() }],
            },
        ],
        tools: vec![ToolSpec {
            name: "weather".into(),
            description: "Current weather".into(),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        }],
        ..ChatRequest::default()
    }
}

/// Sends the streamed request `build` makes for `request`, with the key's headers.
async fn send(
    fixture: &ProviderFixture,
    protocol: Protocol,
    request: &ChatRequest,
) -> reqwest::Response {
    let built = build(&endpoint(fixture, protocol), request, &CAPABILITIES).expect("a request");
    let mut call = client().post(&built.url).body(built.body.to_string());
    let auth = auth_headers(protocol, KEY);
    for (name, value) in built.headers.iter().chain(&auth) {
        call = call.header(name, value);
    }
    tokio::time::timeout(WAIT, call.send())
        .await
        .expect("the fixture answers in time")
        .expect("the fixture answers")
}

/// What a stream decoded to.
#[derive(Debug, Default)]
struct Decoded {
    text: String,
    reasoning: String,
    usage: Usage,
    finish: Option<FinishReason>,
    error: Option<ProviderError>,
    /// Tool-call fragments as (index, arguments), in arrival order.
    fragments: Vec<(u32, String)>,
    calls: Vec<ToolCall>,
    /// Images as (the text's length in characters when it came, the image).
    images: Vec<(usize, ImageData)>,
    /// Pages named, as (url, title), in order.
    sources: Vec<(String, String)>,
    /// The length of every body chunk received.
    chunks: Vec<usize>,
    /// The body as received.
    raw: Vec<u8>,
    /// Why decoding failed, if it did.
    failure: Option<StreamError>,
}

/// Reads a streamed reply chunk by chunk into a [`StreamDecoder`].
struct Reader {
    response: reqwest::Response,
    decoder: StreamDecoder,
    assembler: ToolCallAssembler,
    got: Decoded,
    ended: bool,
}

impl Reader {
    fn new(protocol: Protocol, response: reqwest::Response) -> Self {
        assert_eq!(response.status(), 200, "{protocol:?}");
        assert_eq!(
            response.headers()["content-type"],
            "text/event-stream",
            "{protocol:?}"
        );
        Self {
            response,
            decoder: StreamDecoder::new(protocol),
            assembler: ToolCallAssembler::new(),
            got: Decoded::default(),
            ended: false,
        }
    }

    fn apply(&mut self, events: Vec<StreamEvent>) {
        for event in events {
            self.assembler.apply(&event);
            match event {
                StreamEvent::Text { delta } => self.got.text.push_str(&delta),
                StreamEvent::Reasoning { delta } => self.got.reasoning.push_str(&delta),
                StreamEvent::Refusal { delta } => self.got.text.push_str(&delta),
                StreamEvent::ToolCall {
                    index, arguments, ..
                } => self.got.fragments.push((index, arguments)),
                StreamEvent::Usage { usage } => self.got.usage.merge(usage),
                StreamEvent::Source { url, title } => self.got.sources.push((url, title)),
                StreamEvent::SearchQuery { .. } => {}
                StreamEvent::Finish { reason } => self.got.finish = Some(reason),
                StreamEvent::Error { error } => self.got.error = Some(error),
                StreamEvent::Image { image, .. } => {
                    self.got.images.push((self.got.text.chars().count(), image));
                }
            }
        }
    }

    /// Reads one chunk: `Some(true)` if one came, `Some(false)` at the end of the body,
    /// `None` if nothing came `within`.
    async fn step(&mut self, within: Duration) -> Option<bool> {
        if self.ended {
            return Some(false);
        }
        let chunk = tokio::time::timeout(within, self.response.chunk())
            .await
            .ok()?
            .expect("a body chunk");
        let Some(chunk) = chunk else {
            self.ended = true;
            match self.decoder.finish() {
                Ok(events) => self.apply(events),
                Err(error) => self.got.failure = Some(error),
            }
            return Some(false);
        };
        self.got.chunks.push(chunk.len());
        self.got.raw.extend_from_slice(&chunk);
        match self.decoder.push(&chunk) {
            Ok(events) => self.apply(events),
            Err(error) => {
                self.got.failure = Some(error);
                self.ended = true;
            }
        }
        Some(true)
    }

    /// Reads until `done` holds.
    async fn until(&mut self, done: impl Fn(&Decoded) -> bool) {
        while !done(&self.got) {
            let more = self.step(WAIT).await.expect("the stream stalled");
            assert!(more, "the body ended first: {:?}", self.got);
        }
    }

    /// Reads to the end of the body.
    async fn finish(mut self) -> Decoded {
        while self.step(WAIT).await.expect("the stream stalled") {}
        self.got.calls = self.assembler.finish();
        self.got
    }
}

async fn decode(protocol: Protocol, response: reqwest::Response) -> Decoded {
    Reader::new(protocol, response).finish().await
}

/// Polls `condition` until it holds, failing after [`WAIT`].
async fn eventually(what: &str, condition: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !condition() {
        assert!(tokio::time::Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn every_protocol_streams_reasoning_text_and_usage_in_small_chunks() {
    const TEXT: &str = "Héllo — 東京 is sunny 🌦, 18°C.";
    const REASONING: &str = "Weigh it — carefully, ünits too.";
    let fixture = ProviderFixture::start().await;
    for protocol in PROTOCOLS {
        fixture.enqueue(
            Reply::text(TEXT)
                .reasoning(REASONING)
                .usage(31, 12)
                .chunk_bytes(7)
                .text_chunk_chars(3),
        );
        let got = decode(
            protocol,
            send(&fixture, protocol, &conversation("Hi")).await,
        )
        .await;
        assert_eq!(got.failure, None, "{protocol:?}");
        assert_eq!(got.text, TEXT, "{protocol:?}");
        // The Responses parser closes each reasoning summary part with a blank line.
        let reasoning = match protocol {
            Protocol::OpenAiResponses => format!("{REASONING}\n\n"),
            _ => REASONING.to_string(),
        };
        assert_eq!(got.reasoning, reasoning, "{protocol:?}");
        assert_eq!(got.usage.input_tokens, Some(31), "{protocol:?}");
        assert_eq!(got.usage.output_tokens, Some(12), "{protocol:?}");
        assert_eq!(got.finish, Some(FinishReason::Stop), "{protocol:?}");
        assert_eq!(got.error, None, "{protocol:?}");
        assert!(
            got.chunks.len() > 20 && got.chunks.iter().all(|&n| n <= 7),
            "{protocol:?}: chunks {:?}",
            got.chunks
        );
        // Each protocol's own terminal event ends the body (the parsers would also accept
        // some endings real providers do not send).
        let raw = String::from_utf8(got.raw).expect("UTF-8 once reassembled");
        let last_frame = match protocol {
            Protocol::Gemini => raw.strip_suffix("\r\n\r\n"),
            _ => raw.strip_suffix("\n\n"),
        }
        .and_then(|body| {
            body.rsplit(['\n', '\r'])
                .find(|line| line.starts_with("data: "))
        })
        .unwrap_or_else(|| panic!("{protocol:?}: no final frame in {raw}"));
        let ends = match protocol {
            Protocol::OpenAiChat => last_frame == "data: [DONE]",
            Protocol::OpenAiResponses => last_frame.contains("\"type\":\"response.completed\""),
            Protocol::Anthropic => last_frame == "data: {\"type\":\"message_stop\"}",
            Protocol::Gemini => last_frame.contains("\"finishReason\":\"STOP\""),
        };
        assert!(ends, "{protocol:?} ends with {last_frame}");
        // The 7-byte writes split lines and characters.
        let cuts: Vec<usize> = got
            .chunks
            .iter()
            .scan(0, |offset, len| {
                *offset += len;
                Some(*offset)
            })
            .filter(|&offset| offset < raw.len())
            .collect();
        assert!(
            cuts.iter().any(|&cut| !raw.is_char_boundary(cut)),
            "{protocol:?}: no write splits a character"
        );
        assert!(
            cuts.iter().any(|&cut| raw.as_bytes()[cut - 1] != b'\n'),
            "{protocol:?}: no write splits a line"
        );
        eventually("the finished stream is closed", || {
            fixture.open_streams() == 0
        })
        .await;
    }
}

#[tokio::test]
async fn without_a_queued_reply_the_last_user_message_is_echoed_and_requests_are_recorded() {
    let fixture = ProviderFixture::start().await;
    for protocol in PROTOCOLS {
        let got = decode(
            protocol,
            send(&fixture, protocol, &conversation("What is 2 + 2?")).await,
        )
        .await;
        assert_eq!(got.text, "Echo: What is 2 + 2?", "{protocol:?}");
        assert_eq!(got.reasoning, "", "{protocol:?}");
        assert!(got.usage.is_empty(), "{protocol:?}: {:?}", got.usage);
        assert_eq!(got.finish, Some(FinishReason::Stop), "{protocol:?}");
        assert_eq!(got.failure, None, "{protocol:?}");
    }
    let requests = fixture.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/v1/chat/completions",
            "/v1/responses",
            "/v1/messages",
            "/v1beta/models/fixture-small:streamGenerateContent?alt=sse",
        ]
    );
    assert!(requests.iter().all(|r| r.method == "POST"));
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(
        requests[1].header("Authorization").map(str::len),
        Some(KEY.len() + 7)
    );
    assert_eq!(requests[2].header("x-api-key"), Some(KEY));
    assert_eq!(requests[2].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(requests[3].header("x-goog-api-key"), Some(KEY));
    for request in &requests {
        assert!(
            request
                .headers
                .iter()
                .all(|(name, _)| *name == name.to_ascii_lowercase())
        );
        assert_eq!(request.header("content-type"), Some("application/json"));
    }
    assert_eq!(requests[0].json()["model"], "fixture-small");
    assert_eq!(requests[2].json()["system"], "Be brief.");
    assert!(requests[3].body.contains("What is 2 + 2?"));
}

#[tokio::test]
async fn parallel_tool_calls_arrive_in_fragments_and_reassemble_by_index() {
    let fixture = ProviderFixture::start().await;
    for protocol in PROTOCOLS {
        fixture.enqueue(
            Reply::text("Checking both.")
                .tool_call("weather", r#"{"city":"Paris"}"#)
                .tool_call("weather", r#"{"city":"東京","days":2}"#)
                .usage(40, 9),
        );
        let got = decode(
            protocol,
            send(&fixture, protocol, &conversation("Weather?")).await,
        )
        .await;
        assert_eq!(got.failure, None, "{protocol:?}");
        assert_eq!(got.text, "Checking both.", "{protocol:?}");
        assert_eq!(got.finish, Some(FinishReason::ToolCalls), "{protocol:?}");
        assert_eq!(got.calls.len(), 2, "{protocol:?}: {:?}", got.calls);
        for (call, city) in got.calls.iter().zip(["Paris", "東京"]) {
            assert_eq!(call.name, "weather", "{protocol:?}");
            let arguments = call.arguments.as_ref().expect("JSON arguments");
            assert_eq!(arguments["city"], city, "{protocol:?}");
        }
        assert_eq!(
            got.calls[1].arguments.as_ref().unwrap()["days"],
            2,
            "{protocol:?}"
        );
        assert_ne!(got.calls[0].id, got.calls[1].id, "{protocol:?}");
        if protocol != Protocol::Gemini {
            // Gemini sends whole calls; the others stream arguments in pieces.
            for index in 0..2 {
                let pieces = got
                    .fragments
                    .iter()
                    .filter(|(i, arguments)| *i == index && !arguments.is_empty())
                    .count();
                assert!(pieces >= 3, "{protocol:?}: {:?}", got.fragments);
            }
        }
        if protocol == Protocol::OpenAiChat {
            let order: Vec<u32> = got
                .fragments
                .iter()
                .filter(|(_, arguments)| !arguments.is_empty())
                .map(|(index, _)| *index)
                .collect();
            assert!(
                order.windows(2).any(|pair| pair[0] > pair[1]),
                "parallel calls interleave: {order:?}"
            );
        }
    }
}

#[tokio::test]
async fn gemini_signs_its_first_call_and_refuses_the_call_sent_back_unsigned() {
    let fixture = ProviderFixture::start().await;
    fixture.enqueue(
        Reply::text("Checking both.")
            .tool_call("weather", r#"{"city":"Paris"}"#)
            .tool_call("weather", r#"{"city":"Rome"}"#),
    );
    let got = decode(
        Protocol::Gemini,
        send(&fixture, Protocol::Gemini, &conversation("Weather?")).await,
    )
    .await;
    let signatures: Vec<&str> = got.calls.iter().map(|c| c.signature.as_str()).collect();
    assert_eq!(signatures, ["Zml4dHVyZS1zaWduYXR1cmU=", ""]);

    // The next round sends the calls back with their results: as the core builds it
    // (signed), it is answered; without the signature, Gemini's 400.
    let next_round = |signed: bool| {
        let mut request = conversation("Weather?");
        request.messages.push(Message::Assistant {
            images: Vec::new(),
            text: "Checking both.".into(),
            tool_calls: got
                .calls
                .iter()
                .map(|call| PastToolCall {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.raw_arguments.clone(),
                    signature: if signed {
                        call.signature.clone()
                    } else {
                        String::new()
                    },
                })
                .collect(),
        });
        for call in &got.calls {
            request.messages.push(Message::Tool {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: "Sunny".into(),
            });
        }
        request
    };
    let refused = send(&fixture, Protocol::Gemini, &next_round(false)).await;
    assert_eq!(refused.status(), 400);
    let body: Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["status"], "INVALID_ARGUMENT", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("missing a thought_signature"),
        "{body}"
    );
    fixture.enqueue(Reply::text("Sunny in both."));
    let answered = decode(
        Protocol::Gemini,
        send(&fixture, Protocol::Gemini, &next_round(true)).await,
    )
    .await;
    assert_eq!(answered.text, "Sunny in both.");
    // An earlier turn's calls are not checked (a new user question starts a turn).
    let mut later = next_round(false);
    later.messages.push(Message::User {
        parts: vec![Part::Text {
            text: "And tomorrow?".into(),
        }],
    });
    let got = decode(
        Protocol::Gemini,
        send(&fixture, Protocol::Gemini, &later).await,
    )
    .await;
    assert_eq!(got.text, "Echo: And tomorrow?");
}

#[tokio::test]
async fn images_arrive_between_the_text_in_each_protocols_shape() {
    use base64::Engine as _;
    let first = base64::engine::general_purpose::STANDARD.encode(b"first image bytes");
    let second = base64::engine::general_purpose::STANDARD.encode(b"second");
    let fixture = ProviderFixture::start().await;
    // Responses sends images as their own items: before the message or after it.
    let cases = [
        (Protocol::Gemini, [4, 9]),
        (Protocol::OpenAiChat, [4, 9]),
        (Protocol::OpenAiResponses, [0, 13]),
    ];
    for (protocol, places) in cases {
        fixture.enqueue(
            Reply::text("One. Two. End")
                .text_chunk_chars(3)
                .image(places[0], "image/png", first.clone())
                .image(places[1], "image/jpeg", second.clone()),
        );
        let got = decode(
            protocol,
            send(&fixture, protocol, &conversation("Draw")).await,
        )
        .await;
        assert_eq!(got.failure, None, "{protocol:?}");
        assert_eq!(got.text, "One. Two. End", "{protocol:?}");
        let at: Vec<usize> = got.images.iter().map(|(at, _)| *at).collect();
        assert_eq!(at, places, "{protocol:?}");
        let data: Vec<(String, String)> = got
            .images
            .iter()
            .map(|(_, image)| match image {
                ImageData::Base64 { mime_type, data } => (mime_type.clone(), data.clone()),
                ImageData::Url { url } => {
                    let (header, data) = url.split_once(',').expect("a data URL");
                    let mime = header
                        .trim_start_matches("data:")
                        .trim_end_matches(";base64");
                    (mime.to_string(), data.to_string())
                }
            })
            .collect();
        assert_eq!(
            data,
            [
                ("image/png".to_string(), first.clone()),
                ("image/jpeg".to_string(), second.clone())
            ],
            "{protocol:?}"
        );
    }
}

#[tokio::test]
async fn sources_arrive_as_perplexity_and_gemini_grounding_name_them() {
    let fixture = ProviderFixture::start().await;
    let expected = vec![
        ("https://a.example/".to_string(), "A page".to_string()),
        ("https://b.example/x".to_string(), String::new()),
    ];
    for protocol in [Protocol::OpenAiChat, Protocol::Gemini] {
        fixture.enqueue(
            Reply::text("Cited [1] and [2].")
                .text_chunk_chars(4)
                .source("https://a.example/", "A page")
                .source("https://b.example/x", ""),
        );
        let got = decode(
            protocol,
            send(&fixture, protocol, &conversation("Cite")).await,
        )
        .await;
        assert_eq!(got.failure, None, "{protocol:?}");
        assert_eq!(got.text, "Cited [1] and [2].", "{protocol:?}");
        // Each page once, although Perplexity repeats the list in every chunk.
        assert_eq!(got.sources, expected, "{protocol:?}");
        let raw = String::from_utf8_lossy(&got.raw);
        let named = match protocol {
            Protocol::Gemini => "groundingChunks",
            _ => "search_results",
        };
        assert!(raw.contains(named), "{protocol:?}: {raw}");
    }
}

#[tokio::test]
async fn an_in_stream_error_ends_the_reply_and_keeps_the_partial_text() {
    let fixture = ProviderFixture::start().await;
    for (protocol, code) in PROTOCOLS.into_iter().zip([
        "server_error",
        "server_error",
        "overloaded_error",
        "INTERNAL",
    ]) {
        fixture.enqueue(
            Reply::text("abcdefgh")
                .text_chunk_chars(2)
                .error_after(2)
                .usage(3, 4),
        );
        let got = decode(
            protocol,
            send(&fixture, protocol, &conversation("Hi")).await,
        )
        .await;
        assert_eq!(
            got.failure, None,
            "{protocol:?}: an error ends a reply cleanly"
        );
        assert_eq!(got.text, "abcd", "{protocol:?}");
        assert_eq!(got.finish, None, "{protocol:?}");
        let error = got.error.expect("a provider error");
        assert_eq!(error.message, STREAM_ERROR_MESSAGE, "{protocol:?}");
        assert_eq!(error.code.as_deref(), Some(code), "{protocol:?}");
    }
}

#[tokio::test]
async fn a_truncated_stream_decodes_as_truncated_not_finished() {
    let fixture = ProviderFixture::start().await;
    for protocol in PROTOCOLS {
        fixture.enqueue(
            Reply::text("abcdefgh")
                .text_chunk_chars(2)
                .truncate_after(2)
                .chunk_bytes(5),
        );
        let got = decode(
            protocol,
            send(&fixture, protocol, &conversation("Hi")).await,
        )
        .await;
        assert_eq!(got.failure, Some(StreamError::Truncated), "{protocol:?}");
        assert_eq!(got.text, "abcd", "{protocol:?}");
        assert_eq!(got.finish, None, "{protocol:?}");

        // Cut after more deltas than there are: everything but the ending arrives.
        fixture.enqueue(Reply::text("abcdefgh").truncate_after(99).usage(1, 2));
        let got = decode(
            protocol,
            send(&fixture, protocol, &conversation("Hi")).await,
        )
        .await;
        assert_eq!(got.failure, Some(StreamError::Truncated), "{protocol:?}");
        assert_eq!(got.text, "abcdefgh", "{protocol:?}");
    }
}

#[tokio::test]
async fn http_errors_carry_each_protocols_error_body() {
    let fixture = ProviderFixture::start().await;
    for protocol in PROTOCOLS {
        fixture.enqueue(Reply::text("never sent").status(429, "Slow down"));
        let response = send(&fixture, protocol, &conversation("Hi")).await;
        assert_eq!(response.status(), 429, "{protocol:?}");
        assert_eq!(response.headers()["content-type"], "application/json");
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        match protocol {
            Protocol::OpenAiChat | Protocol::OpenAiResponses => {
                assert_eq!(body["error"]["message"], "Slow down", "{body}");
                assert_eq!(body["error"]["code"], "rate_limit_exceeded", "{body}");
            }
            Protocol::Anthropic => {
                assert_eq!(body["type"], "error", "{body}");
                assert_eq!(body["error"]["type"], "rate_limit_error", "{body}");
                assert_eq!(body["error"]["message"], "Slow down", "{body}");
            }
            Protocol::Gemini => {
                assert_eq!(body["error"]["code"], 429, "{body}");
                assert_eq!(body["error"]["status"], "RESOURCE_EXHAUSTED", "{body}");
                assert_eq!(body["error"]["message"], "Slow down", "{body}");
            }
        }
        // The error used up its reply: the next request streams the echo.
        let got = decode(
            protocol,
            send(&fixture, protocol, &conversation("Hi")).await,
        )
        .await;
        assert_eq!(got.text, "Echo: Hi", "{protocol:?}");
    }
}

#[tokio::test]
async fn cors_answers_preflights_until_it_is_switched_off() {
    let fixture = ProviderFixture::start().await;
    let url = format!(
        "{}/chat/completions",
        fixture.base_url(Protocol::OpenAiChat)
    );
    let preflight = || {
        client()
            .request(reqwest::Method::OPTIONS, &url)
            .header("origin", "http://127.0.0.1:9")
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization,content-type,x-api-key",
            )
            .send()
    };
    let response = preflight().await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let headers = response.headers();
    assert_eq!(headers["access-control-allow-origin"], "*");
    assert!(
        headers["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .contains("POST")
    );
    let allowed: Vec<String> = headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .split(',')
        .map(|name| name.trim().to_string())
        .collect();
    for name in [
        "authorization",
        "content-type",
        "x-api-key",
        "anthropic-version",
        "anthropic-dangerous-direct-browser-access",
        "x-goog-api-key",
    ] {
        assert!(allowed.iter().any(|a| a == name), "{name} in {allowed:?}");
    }
    assert!(headers.get("access-control-expose-headers").is_none());
    let response = send(&fixture, Protocol::OpenAiChat, &conversation("Hi")).await;
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
    decode(Protocol::OpenAiChat, response).await;

    fixture.set_cors(false);
    let no_cors = |headers: &reqwest::header::HeaderMap| {
        headers
            .keys()
            .all(|name| !name.as_str().starts_with("access-control-"))
    };
    let response = preflight().await.unwrap();
    assert!(no_cors(response.headers()), "{:?}", response.headers());
    let response = send(&fixture, Protocol::OpenAiChat, &conversation("Hi")).await;
    assert!(no_cors(response.headers()), "{:?}", response.headers());
    assert_eq!(
        decode(Protocol::OpenAiChat, response).await.text,
        "Echo: Hi"
    );
    let listing = client()
        .get(format!("{}/models", fixture.base_url(Protocol::Gemini)))
        .send()
        .await
        .unwrap();
    assert!(no_cors(listing.headers()), "{:?}", listing.headers());

    fixture.set_cors(true);
    let response = preflight().await.unwrap();
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
    let recorded = fixture.requests();
    assert_eq!(
        recorded.iter().filter(|r| r.method == "OPTIONS").count(),
        3,
        "preflights are recorded too"
    );
}

async fn list(fixture: &ProviderFixture, protocol: Protocol) -> String {
    let url = list_url(&endpoint(fixture, protocol)).expect("a listing URL");
    let mut call = client().get(url);
    for (name, value) in auth_headers(protocol, KEY) {
        call = call.header(name, value);
    }
    let response = call.send().await.expect("a listing");
    assert_eq!(response.status(), 200, "{protocol:?}");
    response.text().await.expect("a listing body")
}

#[tokio::test]
async fn model_listings_parse_in_each_protocols_shape() {
    let fixture = ProviderFixture::start().await;
    for protocol in PROTOCOLS {
        let body = list(&fixture, protocol).await;
        let models = parse_list(protocol, &body).expect("a listing");
        let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["fixture-large", "fixture-small"], "{protocol:?}");
        let named = models[1].display_name.as_deref();
        match protocol {
            Protocol::OpenAiChat | Protocol::OpenAiResponses => {
                assert_eq!(named, None, "{body}");
                assert!(body.contains("\"object\":\"list\""), "{body}");
            }
            Protocol::Anthropic => {
                assert_eq!(named, Some("Fixture Small"), "{body}");
                assert!(body.contains("\"has_more\":false"), "{body}");
            }
            Protocol::Gemini => {
                assert_eq!(named, Some("Fixture Small"), "{body}");
                assert_eq!(models[1].capabilities.context_window, Some(32768));
            }
        }
    }
    fixture.set_models(vec!["m-3".into(), "m-1".into(), "m-2".into()]);
    for protocol in PROTOCOLS {
        let models = parse_list(protocol, &list(&fixture, protocol).await).unwrap();
        let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["m-1", "m-2", "m-3"], "{protocol:?}");
    }
    let paths: Vec<String> = fixture.requests().into_iter().map(|r| r.path).collect();
    assert!(
        paths.contains(&"/v1/models?limit=1000".to_string()),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"/v1beta/models?pageSize=1000".to_string()),
        "{paths:?}"
    );
}

#[tokio::test]
async fn a_stalled_reply_waits_for_release_then_completes() {
    let fixture = ProviderFixture::start().await;
    for protocol in PROTOCOLS {
        fixture.enqueue(
            Reply::text("abcdef")
                .text_chunk_chars(1)
                .stall_after(2)
                .chunk_bytes(4),
        );
        let mut reader = Reader::new(
            protocol,
            send(&fixture, protocol, &conversation("Hi")).await,
        );
        reader.until(|got| got.text == "ab").await;
        assert_eq!(
            reader.step(Duration::from_millis(300)).await,
            None,
            "{protocol:?}: nothing arrives while stalled"
        );
        assert_eq!(reader.got.text, "ab", "{protocol:?}");
        assert_eq!(fixture.open_streams(), 1, "{protocol:?}");
        fixture.release();
        let got = reader.finish().await;
        assert_eq!(got.failure, None, "{protocol:?}");
        assert_eq!(got.text, "abcdef", "{protocol:?}");
        assert_eq!(got.finish, Some(FinishReason::Stop), "{protocol:?}");
    }
    // A release before the stall is reached still lets that stream through.
    fixture.enqueue(
        Reply::text("abcdef")
            .text_chunk_chars(1)
            .stall_after(3)
            .delay_ms(50),
    );
    let response = send(&fixture, Protocol::Anthropic, &conversation("Hi")).await;
    fixture.release();
    let got = decode(Protocol::Anthropic, response).await;
    assert_eq!(got.text, "abcdef");
}

#[tokio::test]
async fn a_client_that_disconnects_closes_its_stream() {
    let fixture = ProviderFixture::start().await;
    // Mid-stream, between paced writes.
    fixture.enqueue(
        Reply::text("x".repeat(200))
            .text_chunk_chars(1)
            .delay_ms(20),
    );
    let mut reader = Reader::new(
        Protocol::OpenAiChat,
        send(&fixture, Protocol::OpenAiChat, &conversation("Hi")).await,
    );
    reader.until(|got| got.text.len() >= 3).await;
    assert_eq!(fixture.open_streams(), 1);
    drop(reader);
    eventually("the aborted stream is closed", || {
        fixture.open_streams() == 0
    })
    .await;

    // While stalled: nothing is being written, the closed connection is noticed anyway.
    for protocol in PROTOCOLS {
        fixture.enqueue(Reply::text("abc").text_chunk_chars(1).stall_after(1));
        let mut reader = Reader::new(
            protocol,
            send(&fixture, protocol, &conversation("Hi")).await,
        );
        reader.until(|got| got.text == "a").await;
        assert_eq!(fixture.open_streams(), 1, "{protocol:?}");
        drop(reader);
        eventually("the stalled, aborted stream is closed", || {
            fixture.open_streams() == 0
        })
        .await;
    }
}

#[tokio::test]
async fn unknown_routes_and_non_streaming_gemini_calls_are_errors() {
    let fixture = ProviderFixture::start().await;
    let response = client()
        .post(format!("{}/v1/completions", fixture.url()))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let response = client()
        .post(format!(
            "{}/models/fixture-small:streamGenerateContent",
            fixture.base_url(Protocol::Gemini)
        ))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["status"], "INVALID_ARGUMENT");
    let response = client()
        .post(format!(
            "{}/chat/completions",
            fixture.base_url(Protocol::OpenAiChat)
        ))
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}
