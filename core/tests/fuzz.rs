//! Fuzz targets for the parsers that read outside input: the SSE framer, the four
//! protocol stream decoders, the Markdown renderer, the export archive and its ZIP, token
//! limits, the search tokenizer and query parser, and search snapshots.
//!
//! They are [bolero](https://docs.rs/bolero) targets. `cargo test -p hearth-core --test
//! fuzz` runs each with bolero's random engine on stable Rust, as part of the test suite;
//! `cargo bolero test -p hearth-core --test fuzz <target>` runs the same target under
//! libFuzzer with coverage guidance (that needs a nightly toolchain, which this machine
//! does not have; see docs/NOTES.md).
//!
//! Streams are built from protocol-shaped fragments mixed with arbitrary bytes, so the
//! inputs reach the parsers' deep paths instead of stopping at the first brace. Every
//! target checks properties, not just "does not panic":
//! - a stream decodes to the same output however it is cut into chunks;
//! - the answer text is never longer than the bytes that carried it;
//! - rendered Markdown has no script-capable tag, event-handler attribute, inline style,
//!   `javascript:`/`data:` link or id without the renderer's prefix, whatever the input,
//!   and is not much larger than its source (TeX macros included);
//! - a text always matches the query it spells, and every token and highlight range falls
//!   on character boundaries;
//! - a search snapshot with any bytes changed (checksum fixed up, so the structural checks
//!   are reached) is refused with a typed error or reads back into an index that searches,
//!   takes changes, compacts and snapshots again without panicking;
//! - an export ZIP with any bytes changed reads only entries that lie in front of its
//!   directory and match their checksums, or is refused with a typed error.

use bolero::check;
use hearth_core::chat::archive::Archive;
use hearth_core::markdown::{ID_PREFIX, Labels, MAX_HTML_BYTES, render};
use hearth_core::preferences::{MAX_TOKEN_LIMIT, parse_token_limit};
use hearth_core::provider::sse::SseDecoder;
use hearth_core::provider::{Protocol, StreamDecoder, StreamEvent};

const COMMON: &[&str] = &[
    "data: ",
    "data:",
    "\n",
    "\r\n",
    "\r",
    "\n\n",
    ": keep-alive\n",
    "event: ",
    "id: 7\n",
    "retry: 10\n",
    "[DONE]",
    "\u{feff}",
    "{",
    "}",
    "\"",
    ",",
    "[",
    "]",
    "é",
    "\u{1f600}",
    "<think>",
    "</think>",
    "null",
    "\\u00e9",
    "\\\"",
    // A body that ends in a raw JSON error, outside any `data:` line.
    "{\"error\":{\"code\":503,\"message\":\"raw\",\"status\":\"UNAVAILABLE\"}}",
    "[{\n  \"error\": {\n    \"message\": \"raw\"\n  }\n}\n]\n",
];

const OPENAI_CHAT: &[&str] = &[
    r#"{"choices":[{"index":0,"delta":{"content":"Hello"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
    r#"{"choices":[{"delta":{"reasoning_content":"think"}}]}"#,
    r#"{"choices":[{"delta":{"reasoning":"also"}}]}"#,
    r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get","arguments":""}}]}}]}"#,
    r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\":"}}]}}]}"#,
    r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"1}"}}]}}]}"#,
    r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
    r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
    r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}"#,
    r#"{"error":{"message":"overloaded","type":"server_error"}}"#,
    // Whole events, so one step reaches the decoder. `n > 1`: other choices must never
    // reach the reply.
    concat!(
        "data: ",
        r#"{"choices":[{"index":1,"delta":{"content":"choice-one","reasoning_content":"choice-one","refusal":"choice-one"}}]}"#,
        "\n\n"
    ),
    concat!(
        "data: ",
        r#"{"choices":[{"index":1,"delta":{"tool_calls":[{"index":7,"id":"c1","function":{"name":"choice-one","arguments":"{}"}}]},"finish_reason":"length"}]}"#,
        "\n\n"
    ),
    concat!(
        "data: ",
        r#"{"choices":[{"index":1,"delta":{"content":"choice-one"}},{"index":0,"delta":{"content":"zero"}}]}"#,
        "\n\n"
    ),
    concat!(
        "data: ",
        r#"{"choices":[{"index":0,"delta":{"refusal":"no"}}]}"#,
        "\n\n"
    ),
    // Content as typed parts (Mistral reasoning models).
    concat!(
        "data: ",
        r#"{"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hm"}]},{"type":"text","text":"Hi"}]}}]}"#,
        "\n\n"
    ),
    concat!(
        "data: ",
        r#"{"choices":[{"delta":{"content":[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"u"}}]}}]}"#,
        "\n\n"
    ),
    concat!(
        "data: ",
        r#"{"choices":[{"delta":{"content":[{"type":"refusal","refusal":"no"},{"type":"reasoning","text":"r"}]}}]}"#,
        "\n\n"
    ),
];

const OPENAI_RESPONSES: &[&str] = &[
    "event: response.created\n",
    r#"{"type":"response.created","response":{"id":"r"}}"#,
    "event: response.output_text.delta\n",
    r#"{"type":"response.output_text.delta","delta":"Hi"}"#,
    r#"{"type":"response.reasoning_summary_text.delta","delta":"hmm"}"#,
    r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c","name":"f","arguments":""}}"#,
    r#"{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"a\":1}"}"#,
    r#"{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":2,"output_tokens":3}}}"#,
    r#"{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"}}}"#,
    r#"{"type":"error","message":"bad"}"#,
    "event: response.refusal.delta\n",
    concat!(
        "data: ",
        r#"{"type":"response.refusal.delta","delta":"no"}"#,
        "\n\n"
    ),
    r#"{"type":"response.failed","response":{"error":{"message":"no"}}}"#,
];

const ANTHROPIC: &[&str] = &[
    "event: message_start\n",
    r#"{"type":"message_start","message":{"usage":{"input_tokens":4,"output_tokens":1}}}"#,
    "event: content_block_start\n",
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#,
    "event: content_block_delta\n",
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}"#,
    r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#,
    r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#,
    "event: message_stop\n",
    r#"{"type":"message_stop"}"#,
    r#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#,
    r#"{"type":"ping"}"#,
];

const GEMINI: &[&str] = &[
    r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"}}]}"#,
    r#"{"candidates":[{"content":{"parts":[{"text":"plan","thought":true}]}}]}"#,
    r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1}}}]}}]}"#,
    r#"{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}}]}"#,
    r#"{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":2,"candidatesTokenCount":3}}"#,
    r#"{"candidates":[{"finishReason":"MAX_TOKENS"}]}"#,
    r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#,
    r#"{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}"#,
    // A failed stream's raw error body, pretty-printed and wrapped, outside `data:`.
    "\n[{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"overloaded\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n]",
    "{\n  \"error\": {\n    \"code\": 500,\n    \"message\": \"internal\"\n  }\n}\n",
];

fn fragments(protocol: Protocol) -> &'static [&'static str] {
    match protocol {
        Protocol::OpenAiChat => OPENAI_CHAT,
        Protocol::OpenAiResponses => OPENAI_RESPONSES,
        Protocol::Anthropic => ANTHROPIC,
        Protocol::Gemini => GEMINI,
    }
}

/// Builds a stream from `(choice, bytes)` steps: a protocol fragment, a common fragment,
/// or the raw bytes themselves.
fn stream(protocol: Protocol, steps: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let own = fragments(protocol);
    let mut out = Vec::new();
    for (choice, bytes) in steps {
        match choice % 4 {
            0 | 1 => out.extend_from_slice(own[*choice as usize % own.len()].as_bytes()),
            2 => out.extend_from_slice(COMMON[*choice as usize % COMMON.len()].as_bytes()),
            _ => out.extend_from_slice(&bytes[..bytes.len().min(16)]),
        }
    }
    out
}

/// What a decoded stream amounts to, however its events were cut.
#[derive(Debug, Default, PartialEq)]
struct Outcome {
    text: String,
    reasoning: String,
    refusal: String,
    /// Per tool-call index: id, name and the joined argument fragments.
    tools: std::collections::BTreeMap<u32, (Option<String>, Option<String>, String)>,
    images: usize,
    sources: Vec<String>,
    usage: Option<hearth_core::provider::Usage>,
    finishes: Vec<String>,
    errors: Vec<String>,
    /// The decode error that stopped the stream, if any.
    failed: Option<String>,
}

fn decode(protocol: Protocol, chunks: &[&[u8]]) -> Outcome {
    let mut decoder = StreamDecoder::new(protocol);
    let mut outcome = Outcome::default();
    let fold = |events: Vec<StreamEvent>, outcome: &mut Outcome| {
        for event in events {
            match event {
                StreamEvent::Text { delta } => outcome.text.push_str(&delta),
                StreamEvent::Reasoning { delta } => outcome.reasoning.push_str(&delta),
                StreamEvent::Refusal { delta } => outcome.refusal.push_str(&delta),
                StreamEvent::ToolCall {
                    index,
                    id,
                    name,
                    arguments,
                    ..
                } => {
                    let slot = outcome.tools.entry(index).or_default();
                    if id.is_some() {
                        slot.0 = id;
                    }
                    if name.is_some() {
                        slot.1 = name;
                    }
                    slot.2.push_str(&arguments);
                }
                StreamEvent::Image { .. } => outcome.images += 1,
                StreamEvent::Source { url, .. } => outcome.sources.push(url),
                StreamEvent::SearchQuery { .. } => {}
                StreamEvent::Usage { usage } => {
                    let mut merged = outcome.usage.unwrap_or_default();
                    merged.merge(usage);
                    outcome.usage = Some(merged);
                }
                StreamEvent::Finish { reason } => outcome.finishes.push(format!("{reason:?}")),
                StreamEvent::Error { error } => outcome.errors.push(error.message),
            }
        }
    };
    for chunk in chunks {
        match decoder.push(chunk) {
            Ok(events) => fold(events, &mut outcome),
            Err(error) => {
                outcome.failed = Some(error.to_string());
                return outcome;
            }
        }
    }
    match decoder.finish() {
        Ok(events) => fold(events, &mut outcome),
        Err(error) => outcome.failed = Some(error.to_string()),
    }
    outcome
}

fn protocol_target(protocol: Protocol) {
    check!()
        .with_type::<(Vec<(u8, Vec<u8>)>, u16, u16)>()
        .for_each(|(steps, a, b)| {
            let bytes = stream(protocol, steps);
            let whole = decode(protocol, &[&bytes]);
            let len = bytes.len();
            let (mut a, mut b) = (*a as usize % (len + 1), *b as usize % (len + 1));
            if a > b {
                std::mem::swap(&mut a, &mut b);
            }
            let cut = decode(protocol, &[&bytes[..a], &bytes[a..b], &bytes[b..]]);
            assert_eq!(
                whole,
                cut,
                "cut at {a} and {b}: {:?}",
                String::from_utf8_lossy(&bytes)
            );
            assert!(
                whole.text.chars().count() <= len,
                "text longer than its stream"
            );
            assert!(
                whole.refusal.chars().count() <= len,
                "refusal longer than its stream"
            );
            assert!(
                whole.finishes.len() + whole.errors.len() <= 1,
                "a reply ends once, as a finish or an error: {whole:?}"
            );
            if protocol == Protocol::OpenAiChat {
                let other = "choice-one";
                assert!(
                    !whole.text.contains(other)
                        && !whole.reasoning.contains(other)
                        && !whole.refusal.contains(other)
                        && !whole.tools.values().any(|t| t.1.as_deref() == Some(other)),
                    "choice 1 leaked into the reply: {whole:?}"
                );
            }
            let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
            assert_eq!(whole, decode(protocol, &bytewise), "one byte at a time");
        });
}

#[test]
fn openai_chat_stream() {
    protocol_target(Protocol::OpenAiChat);
}

#[test]
fn openai_responses_stream() {
    protocol_target(Protocol::OpenAiResponses);
}

#[test]
fn anthropic_stream() {
    protocol_target(Protocol::Anthropic);
}

#[test]
fn gemini_stream() {
    protocol_target(Protocol::Gemini);
}

#[test]
fn sse_framer() {
    check!()
        .with_type::<(Vec<(u8, Vec<u8>)>, u16)>()
        .for_each(|(steps, at)| {
            let bytes = stream(Protocol::OpenAiChat, steps);
            let frame = |chunks: &[&[u8]]| {
                let mut decoder = SseDecoder::new();
                let mut events = Vec::new();
                for chunk in chunks {
                    match decoder.push(chunk) {
                        Ok(more) => events.extend(more),
                        Err(error) => return (events, Some(error)),
                    }
                }
                events.extend(decoder.finish());
                (events, None)
            };
            let at = *at as usize % (bytes.len() + 1);
            let whole = frame(&[&bytes]);
            assert_eq!(whole, frame(&[&bytes[..at], &bytes[at..]]), "cut at {at}");
            // Invalid UTF-8 becomes U+FFFD (three bytes for one), so count characters.
            for event in &whole.0 {
                assert!(
                    event.data.chars().count() <= bytes.len(),
                    "{event:?} from {:?}",
                    String::from_utf8_lossy(&bytes)
                );
            }
        });
}

/// The tags and attributes of `html`, as `(tag, [(name, value)])`.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let end = rest.find('>').unwrap_or(rest.len());
        let inside = &rest[name.len()..end];
        let mut attributes = Vec::new();
        let mut attrs = inside;
        while let Some(eq) = attrs.find('=') {
            let attr_name = attrs[..eq]
                .rsplit(|c: char| c.is_whitespace())
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            let after = &attrs[eq + 1..];
            let (value, next) = match after.strip_prefix('"') {
                Some(quoted) => {
                    let close = quoted.find('"').unwrap_or(quoted.len());
                    (&quoted[..close], &quoted[(close + 1).min(quoted.len())..])
                }
                None => {
                    let close = after.find(char::is_whitespace).unwrap_or(after.len());
                    (&after[..close], &after[close..])
                }
            };
            attributes.push((attr_name, value.to_string()));
            attrs = next;
        }
        out.push((name.to_ascii_lowercase(), attributes));
        rest = &rest[end.min(rest.len())..];
    }
    out
}

const MARKDOWN: &[&str] = &[
    "<script>alert(1)</script>",
    "<kbd>",
    "</kbd>",
    "<b><i>",
    "</b>",
    "<br/>",
    "<sup onclick=x>",
    "<img src=x onerror=alert(1)>",
    "[a](javascript:alert(1))",
    "[a](JaVaScRiPt:alert(1))",
    "[a](data:text/html,<script>)",
    "![i](data:image/png;base64,AA)",
    "![i](https://example.com/t.png)",
    "<iframe src=x>",
    "<a href=\"javascript:x\">",
    "```",
    "```html\n",
    "$x^2$",
    "$$\\frac{1}{2}$$",
    "\\(",
    "| a | b |\n|---|---|\n| 1 | 2 |\n",
    "- [x] done\n",
    "~~s~~",
    "[^1]\n\n[^1]: note\n",
    "<style>*{}</style>",
    "<svg onload=x>",
    "\n\n",
    "> quote\n",
    "# h\n",
    "**",
    "_",
    "`",
    "<",
    ">",
    "&",
    "\"",
    "'",
    "\u{0}",
    "[x](<javascript:a>)",
    "[x]: javascript:y\n[x]\n",
    "<https://a.b>",
    "<javascript:x>",
    "\\",
    "&#106;avascript:",
    "[a](&#x6A;avascript:x)",
    "<math><mi>x</mi></math>",
    "$\\def\\a{\\a\\a}\\a$",
    "$\\def\\b#1{#1#1}\\b{\\b{\\b{\\b{x}}}}$",
    "$a\\,b\\quad c\\!d \\sin x \\hspace{2em}$",
    "$\\nosuch$",
    "<mspace width=\"1em\" />",
    "[^__proto__]",
    "[^cookie]",
    "[^cookie]: note\n",
    "[^a \"b' <c>]: note\n",
    "[^ünï]",
    "# h {#id}\n",
];

#[test]
fn markdown_render_stays_inert() {
    const SCRIPTABLE: &[&str] = &[
        "script", "iframe", "object", "embed", "style", "link", "meta", "svg", "form", "base",
        "frame", "frameset", "template", "noscript", "audio", "video", "source",
    ];
    check!().with_type::<Vec<(u8, String)>>().for_each(|steps| {
        let mut source = String::new();
        for (choice, text) in steps {
            if choice % 2 == 0 {
                source.push_str(MARKDOWN[*choice as usize % MARKDOWN.len()]);
            } else {
                source.extend(text.chars().take(12));
            }
        }
        let html = render(&source, &Labels::default());
        // No construct amplifies much: a formula gets 1 KiB plus 64 bytes per source byte.
        assert!(
            html.len() <= MAX_HTML_BYTES + 1024 && html.len() <= 4096 + 256 * source.len(),
            "{} bytes from {source:?}",
            html.len()
        );
        for (tag, attributes) in tags(&html) {
            assert!(
                !SCRIPTABLE.contains(&tag.as_str()),
                "<{tag}> from {source:?}: {html}"
            );
            for (name, value) in attributes {
                assert!(!name.starts_with("on"), "{name}= from {source:?}: {html}");
                assert_ne!(name, "style", "inline style from {source:?}: {html}");
                if matches!(name.as_str(), "id" | "name") {
                    assert!(
                        value.starts_with(ID_PREFIX),
                        "{name}={value} from {source:?}: {html}"
                    );
                }
                if matches!(name.as_str(), "href" | "src" | "action" | "formaction") {
                    let value = value.trim().to_ascii_lowercase();
                    assert!(
                        !value.starts_with("javascript:")
                            && !value.starts_with("vbscript:")
                            && !value.starts_with("data:text"),
                        "{name}={value} from {source:?}: {html}"
                    );
                }
            }
        }
    });
}

#[test]
fn archive_parse_never_panics_and_accepts_what_it_writes() {
    check!().with_type::<String>().for_each(|text| {
        if let Ok(archive) = Archive::parse(text) {
            let again = serde_json::to_string(&archive).expect("an archive serialises");
            assert_eq!(Archive::parse(&again).expect("reads back"), archive);
        }
    });
}

/// `valid` with `edits` applied: each sets, inserts or removes the byte at a position,
/// or cuts the rest.
fn mutate(valid: &[u8], edits: &[(u16, u8, u8)]) -> Vec<u8> {
    let mut bytes = valid.to_vec();
    for &(at, op, value) in edits {
        let at = at as usize % (bytes.len() + 1);
        match op % 4 {
            0 if at < bytes.len() => bytes[at] = value,
            1 => bytes.insert(at, value),
            2 if at < bytes.len() => {
                bytes.remove(at);
            }
            _ => bytes.truncate(at),
        }
    }
    bytes
}

#[test]
fn export_zip_reading_is_bounded_and_checked() {
    use hearth_core::chat::export_file::{RECORDS_ENTRY, contents};
    use hearth_core::zip_store::{
        DosTime, TAIL_BYTES, find_directory, read_all, read_directory, write_all,
    };
    let entries: [(&str, &[u8]); 4] = [
        (
            RECORDS_ENTRY,
            br#"{"format":"hearth-export","version":2,"exportedAt":0}"#,
        ),
        ("files/images/0a1b.png", b"\x89PNG not really"),
        ("files/attachments/0a1b.md", b"# notes"),
        ("files/knowledge/c1/f1/source", b"# a collection's file"),
    ];
    let valid = write_all(&entries, DosTime::from_unix_ms(0.0)).unwrap();
    assert_eq!(read_all(&valid).unwrap().len(), 4);
    check!()
        .with_type::<Vec<(u16, u8, u8)>>()
        .for_each(|edits| {
            let bytes = mutate(&valid, edits);
            // Whatever the damage, reading ends in entries that lie in front of the
            // directory and match their checksums, or in a typed error; never a panic
            // or a read out of bounds.
            let read = read_all(&bytes);
            let len = bytes.len() as u64;
            let tail = &bytes[bytes.len() - TAIL_BYTES.min(len) as usize..];
            let Ok(at) = find_directory(tail, len) else {
                assert!(read.is_err());
                return;
            };
            if let Ok(read) = read {
                let total: u64 = read.iter().map(|(_, b)| b.len() as u64).sum();
                assert!(
                    total <= at.range.start,
                    "the entries lie before the directory"
                );
            }
            // Sorting what the directory lists never panics either.
            if let Ok(listed) =
                read_directory(&bytes[at.range.start as usize..at.range.end as usize], &at)
            {
                let _ = contents(listed);
            }
        });
}

#[test]
fn a_knowledge_path_reads_back_only_as_hearth_writes_it() {
    use hearth_core::knowledge::transfer::KnowledgePath;
    check!().with_type::<String>().for_each(|text| {
        if let Some(at) = KnowledgePath::parse(text) {
            // Exactly what it names, inside `knowledge/`, never climbing out.
            assert_eq!(&at.path(), text);
            let climbs = text
                .split('/')
                .any(|part| part.is_empty() || part.starts_with('.'));
            assert!(text.starts_with("knowledge/") && !climbs, "{text:?}");
        }
    });
}

#[test]
fn token_limits_are_in_range_or_refused() {
    check!().with_type::<String>().for_each(|text| {
        if let Ok(Some(limit)) = parse_token_limit(text) {
            assert!(limit > 0 && limit <= MAX_TOKEN_LIMIT, "{text:?} → {limit}");
        }
    });
}

const OPENAPI: &[&str] = &[
    r#"{"openapi":"3.0.0","servers":[{"url":"https://api.example.com"}],"paths":{"#,
    r#"{"swagger":"2.0","host":"api.example.com","paths":{"#,
    r#"{"swagger":"2.0","host":"api.example.com/x@127.0.0.1","schemes":["ws"],"paths":{"#,
    r#"{"swagger":"2.0","host":"user@api.example.com","basePath":"v1","schemes":["wss","ftp"],"paths":{"#,
    r#""schemes":["http","ws"],"#,
    r#""basePath":"/v1","#,
    r#""host":"a\b","#,
    r#""/items/{id}":{"get":{"operationId":"getItem","parameters":[{"name":"id","in":"path"}]}}"#,
    r#""//evil":{"get":{}}"#,
    r#""/x":{"trace":{}}"#,
    r#""/y":{"delete":{"x-risk":"read"}}"#,
    r##""/z":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}"##,
    r##""components":{"schemas":{"A":{"$ref":"#/components/schemas/A"}}}"##,
    "}",
    "},",
    ",",
    "\"",
    "openapi: 3.0.0\nservers:\n  - url: https://a.example\npaths:\n  /a:\n    get: {}\n",
    "a: &a [*a]\n",
    "- &x 1\n- *x\n",
];

#[test]
fn openapi_import_keeps_its_caps() {
    use hearth_core::plugin::openapi::{MAX_FUNCTIONS, import};
    use hearth_core::plugin::{HttpMethod, Risk};
    check!().with_type::<Vec<(u8, String)>>().for_each(|steps| {
        let mut text = String::new();
        for (choice, raw) in steps {
            if choice % 3 == 0 {
                text.extend(raw.chars().take(8));
            } else {
                text.push_str(OPENAPI[*choice as usize % OPENAPI.len()]);
            }
        }
        if let Ok(imported) = import(&text, None) {
            assert!(imported.functions.len() <= MAX_FUNCTIONS);
            for function in &imported.functions {
                let path = function.path.as_deref().unwrap_or_default();
                assert!(path.starts_with('/') && !path.starts_with("//"), "{path}");
                assert!(function.name.len() <= 64, "{}", function.name);
                let floor = Risk::floor_for_method(function.method.unwrap_or(HttpMethod::Get));
                assert!(function.risk >= floor, "{text:?}");
            }
            assert!(
                imported.server_url.starts_with("http"),
                "{}",
                imported.server_url
            );
            // Whatever a Swagger host said, the URL names one host and no userinfo.
            let url = url::Url::parse(&imported.server_url).expect("an absolute URL");
            assert!(
                url.username().is_empty() && url.password().is_none(),
                "{url}"
            );
            assert!(matches!(url.scheme(), "http" | "https"), "{url}");
        }
    });
}

const URL_PARTS: &[&str] = &[
    "http://",
    "https://",
    "http:/",
    "https:",
    "HTTPS://",
    "ftp://",
    "127.0.0.1",
    "0x7f.1",
    "2130706433",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "[64:ff9b::7f00:1]",
    "[2002:7f00:1::]",
    "[fe80::1]",
    "169.254.169.254",
    "168.63.129.16",
    "10.0.0.1",
    "8.8.8.8",
    "example.com",
    "localhost",
    "127.0.0.1.nip.io",
    "app-10-0-0-1.sslip.io",
    "7f000001.nip.io",
    "--1.sslip.io",
    "bücher.example",
    ".",
    ":8080",
    ":",
    "/",
    "\\",
    "@",
    "?",
    "#",
    "%2f",
    "%40",
    "user:pw@",
    "\t",
    "\n",
    " ",
];

#[test]
fn url_policy_verdicts_nest_and_never_let_blocked_addresses_through() {
    use hearth_core::url_policy::{AddressClass, UrlPolicy, classify};
    use std::net::IpAddr;
    let remote = UrlPolicy::remote_chosen();
    let hosted = UrlPolicy::hosted();
    let local = UrlPolicy::local();
    check!().with_type::<Vec<(u8, String)>>().for_each(|steps| {
        let mut text = String::new();
        for (choice, raw) in steps {
            if choice % 4 == 0 {
                text.extend(raw.chars().take(6));
            } else {
                text.push_str(URL_PARTS[*choice as usize % URL_PARTS.len()]);
            }
        }
        // Each policy is stricter than the next: remote-chosen ⊆ hosted ⊆ local.
        let by_remote = remote.check_url(&text);
        let by_hosted = hosted.check_url(&text);
        let by_local = local.check_url(&text);
        if by_remote.is_ok() {
            assert!(by_hosted.is_ok(), "{text:?}: {by_hosted:?}");
        }
        if by_hosted.is_ok() {
            assert!(by_local.is_ok(), "{text:?}: {by_local:?}");
        }
        if let Ok(url) = &by_local {
            assert!(matches!(url.scheme(), "http" | "https"), "{text:?}");
            assert!(
                url.username().is_empty() && url.password().is_none(),
                "{text:?}"
            );
            assert!(!text.contains('\\'), "a backslash got through: {text:?}");
            let host = url.host_str().unwrap_or_default().trim_matches(['[', ']']);
            if let Ok(ip) = host.parse::<IpAddr>() {
                let class = classify(ip);
                assert!(
                    !matches!(class, AddressClass::CloudMetadata | AddressClass::LinkLocal),
                    "{text:?} reached {ip} ({class:?})"
                );
                if by_remote.is_ok() {
                    assert_eq!(class, AddressClass::Public, "{text:?}");
                }
            }
        }
    });
}

/// The relay forwards a provider's stream up to `last_event_boundary` and may end it
/// there with an error frame. The boundary must close every event before it, be the end
/// of the last complete event (unless a later blank line mixes its line breaks, which
/// the boundary does not see: all such spellings contain `\n\r`), and an error frame
/// after it must arrive as one more event.
#[test]
fn sse_event_boundary() {
    use hearth_core::provider::relay_error_frame;
    use hearth_core::provider::sse::last_event_boundary;
    check!()
        .with_type::<Vec<(u8, Vec<u8>)>>()
        .for_each(|steps| {
            let bytes = stream(Protocol::OpenAiChat, steps);
            let end = last_event_boundary(&bytes).unwrap_or(0);
            assert!(end <= bytes.len());
            let complete = |bytes: &[u8]| SseDecoder::new().push(bytes).ok();
            let mut decoder = SseDecoder::new();
            let Ok(before) = decoder.push(&bytes[..end]) else {
                return;
            };
            assert_eq!(decoder.finish(), None, "an event is open at {end}");
            let Some(whole) = complete(&bytes) else {
                return;
            };
            // Exactly the last complete event: nothing completes after it.
            assert_eq!(
                before,
                whole,
                "an event completes after {end} in {:?}",
                String::from_utf8_lossy(&bytes)
            );
            let mut ended = bytes[..end].to_vec();
            ended.extend_from_slice(relay_error_frame("RESPONSE_TIMEOUT", "late").as_bytes());
            let Some(mut events) = complete(&ended) else {
                return;
            };
            assert_eq!(events.pop().map(|e| e.event), Some("error".to_string()));
            assert_eq!(events, before);
        });
}

const SEARCH_PARTS: &[&str] = &[
    " ",
    "\"",
    "rust",
    "Borrow",
    "checker",
    "lifetimes",
    "snake_case_name",
    "CamelCase",
    "v1.2.3",
    "3.14",
    ".",
    "1.",
    "_",
    "-",
    "é",
    "ß",
    "Ｒｕｓｔ",
    "e\u{301}",
    "İ",
    "机器",
    "学习",
    "学",
    "東京",
    "で",
    "カタカナ",
    "ー",
    "々",
    "ｶﾀｶﾅ",
    "\u{1f600}",
    "\u{20000}",
    "\n",
    "\t",
    "'",
    "ﬁ",
    "ǅ",
];

fn search_text(steps: &[(u8, String)]) -> String {
    let mut text = String::new();
    for (choice, raw) in steps {
        if choice % 5 == 0 {
            text.extend(raw.chars().take(4));
        } else {
            text.push_str(SEARCH_PARTS[*choice as usize % SEARCH_PARTS.len()]);
        }
    }
    text
}

#[test]
fn search_tokenizer_and_query_parser() {
    use hearth_core::search::token::{MAX_TERM_BYTES, tokenize};
    use hearth_core::search::{
        Document, MAX_QUERY_BYTES, Query, SearchIndex, SearchOptions, Source, highlights, snippet,
    };
    check!().with_type::<Vec<(u8, String)>>().for_each(|steps| {
        let text = search_text(steps);
        let mut next = 3;
        tokenize(&text, 3, |t| {
            assert_eq!(t.pos, next);
            next += 1;
            assert!(t.start < t.end && t.end <= text.len(), "{t:?}");
            assert!(text.is_char_boundary(t.start) && text.is_char_boundary(t.end));
            assert!(
                !t.term.is_empty() && t.term.len() <= MAX_TERM_BYTES,
                "{t:?}"
            );
        });
        let Ok(query) = Query::parse(&text) else {
            return;
        };
        assert!(text.len() <= MAX_QUERY_BYTES);
        // The text the query spells always matches it.
        let mut index = SearchIndex::new();
        index
            .upsert(&Document {
                id: "d".into(),
                source: Source::Conversations,
                parent: "p".into(),
                position: "d".into(),
                title: String::new(),
                body: text.clone(),
                timestamp: 0,
            })
            .unwrap();
        let found = index.search(&query, &SearchOptions::default());
        assert_eq!(found.total, 1, "{text:?} does not match {query:?}");
        for (start, end) in highlights(&query, &text) {
            assert!(start < end && text.is_char_boundary(start) && text.is_char_boundary(end));
        }
        let cut = snippet(&query, &text, 40);
        assert!(cut.text.len() <= 40.max(text.len()));
        for (start, end) in cut.highlights {
            assert!(end <= cut.text.len() && cut.text.is_char_boundary(start));
            assert!(cut.text.is_char_boundary(end));
        }
    });
}

#[test]
fn search_snapshot_decoding() {
    use hearth_core::search::{Document, Query, SearchIndex, SearchOptions, Source, checksum};
    let mut index = SearchIndex::new();
    for (i, body) in [
        "the borrow checker rejects this",
        "机器学习 and 東京 カタカナ",
        "snake_case_name v1.2.3 Crème",
    ]
    .iter()
    .enumerate()
    {
        index
            .upsert(&Document {
                id: format!("m{i}"),
                source: Source::Knowledge,
                parent: format!("c{}", i % 2),
                position: format!("m{i}"),
                title: if i == 1 {
                    "title".into()
                } else {
                    String::new()
                },
                body: body.to_string(),
                timestamp: i as i64 - 1,
            })
            .unwrap();
    }
    let valid = index.snapshot(Source::Knowledge);
    let queries: Vec<Query> = ["borrow", "机器学习", "学", "\"borrow checker\"", "chekcer "]
        .iter()
        .map(|q| Query::parse(q).unwrap())
        .collect();
    check!()
        .with_type::<(Vec<(u16, u8, u8)>, bool)>()
        .for_each(|(edits, fix_checksum)| {
            let mut bytes = mutate(&valid, edits);
            if *fix_checksum && bytes.len() >= 24 {
                let len = (bytes.len() - 24) as u64;
                let sum = checksum(&bytes[24..]);
                bytes[8..16].copy_from_slice(&len.to_le_bytes());
                bytes[16..24].copy_from_slice(&sum.to_le_bytes());
            }
            let mut restored = SearchIndex::new();
            let Ok(source) = restored.restore(&bytes) else {
                return;
            };
            let titles = SearchOptions {
                title_only: true,
                ..SearchOptions::default()
            };
            let search_all = |index: &SearchIndex| {
                for query in &queries {
                    let found = index.search(query, &SearchOptions::default());
                    assert!(found.hits.len() <= found.total);
                    index.search_grouped(query, &SearchOptions::default());
                    index.search(query, &titles);
                }
            };
            search_all(&restored);
            // Changes on top of it, and a compaction that reads every list, stay safe.
            let mut changed = restored.clone();
            changed
                .upsert(&Document {
                    id: "m1".into(),
                    source,
                    parent: "c9".into(),
                    position: String::new(),
                    title: "borrow 机器".into(),
                    body: "学习 checker".into(),
                    timestamp: 9,
                })
                .unwrap();
            changed.remove(source, "m0");
            changed.remove_parent(source, "c0");
            search_all(&changed);
            changed.compact(source);
            search_all(&changed);
            let again = restored.snapshot(source);
            let mut twice = SearchIndex::new();
            twice
                .restore(&again)
                .expect("a re-written snapshot reads back");
            assert_eq!(twice, restored);
        });
}

/// Fragments a `SKILL.md` is built of: front matter keys, YAML scalar styles, script
/// paths and the tricks a hostile file might try.
const SKILL_MD: &[&str] = &[
    "---\n",
    "name: ",
    "description: ",
    "allowed-tools: ",
    "compatibility: ",
    "metadata:\n",
    "  title: ",
    "  category: coding\n",
    "  tags: \"a, b\"\n",
    "  use-when: \"x | y\"\n",
    "code-review",
    "Bad Name",
    "|\n",
    ">-\n",
    "  folded line\n",
    "'single ''quoted'''",
    "\"double \\\" \\n quoted\"",
    "# comment\n",
    "- item\n",
    "scripts/run.py",
    "scripts/notes",
    "`scripts/x.sh`",
    "\n",
    "\r\n",
    "題",
    "\u{feff}",
];

#[test]
fn skill_files_import_as_text_skills_or_typed_errors() {
    use hearth_core::skill::normalise::{MAX_CONTENT_CHARS, is_valid_id};
    use hearth_core::skill::skill_md::{FolderFile, export, import};
    // The fragments spell a valid skill, so the properties below are reached.
    let valid: String = [0, 1, 10, 22, 2, 15, 22, 0, 24]
        .iter()
        .map(|&i| SKILL_MD[i])
        .collect();
    assert!(
        import(&[FolderFile {
            path: "SKILL.md".into(),
            text: Some(valid.clone()),
        }])
        .is_ok(),
        "{valid:?}"
    );
    check!()
        .with_type::<(Vec<u8>, Vec<(u8, String)>)>()
        .for_each(|(pieces, extra)| {
            let mut text: String = pieces
                .iter()
                .map(|p| SKILL_MD[*p as usize % SKILL_MD.len()])
                .collect();
            for (at, piece) in extra.iter().take(4) {
                let at = (*at as usize).min(text.len());
                if text.is_char_boundary(at) {
                    text.insert_str(at, piece);
                }
            }
            let files = [FolderFile {
                path: "skill/SKILL.md".into(),
                text: Some(text),
            }];
            // A skill that imports is a normalised text skill: a valid id, bounded text,
            // no declared requirement, and no script named in its instructions; and it
            // exports to a file that imports back to itself.
            if let Ok(imported) = import(&files) {
                let skill = imported.skill;
                assert!(is_valid_id(&skill.meta.id));
                assert!(skill.content.chars().count() <= MAX_CONTENT_CHARS);
                assert!(skill.meta.risk.text_only && !skill.meta.risk.script_required);
                let again = import(&[FolderFile {
                    path: "SKILL.md".into(),
                    text: Some(export(&skill)),
                }])
                .expect("an exported skill imports");
                assert_eq!(again.skill, skill);
            }
        });
}

#[test]
fn skill_catalogues_and_zips_are_bounded() {
    use hearth_core::skill::catalog::read_catalog;
    use hearth_core::skill::skill_md::folder_from_zip;
    use hearth_core::zip_store::{DosTime, write_all};
    check!().with_type::<String>().for_each(|text| {
        if let Ok(read) = read_catalog(text) {
            let mut ids = std::collections::HashSet::new();
            assert!(read.catalog.skills.iter().all(|s| ids.insert(s.id.clone())));
        }
    });
    let valid = write_all(
        &[
            ("s/SKILL.md", b"---\nname: s\ndescription: d\n---\nbody"),
            ("s/references/r.md", b"ref"),
        ],
        DosTime::from_unix_ms(0.0),
    )
    .unwrap();
    check!()
        .with_type::<Vec<(u16, u8, u8)>>()
        .for_each(|edits| {
            let _ = folder_from_zip(&mutate(&valid, edits));
        });
}

/// Fragments an HTML block is built from: the sanitiser's allowed and refused tags,
/// attributes, URLs and styles, quotes and entities, cut and mixed at random.
#[cfg(feature = "html-blocks")]
const HTML: &[&str] = &[
    "<div style=\"",
    "display:flex;gap:8px",
    "color:#16a34a",
    "background:rgba(1,2,3,.5)",
    "position:fixed;inset:0",
    "background:url(javascript:x)",
    "border:1px solid red",
    "\">",
    "<span ",
    "style='",
    "'",
    "\"",
    ">",
    "<",
    "</div>",
    "</span>",
    "<p>",
    "<table><tr><td>",
    "<script>",
    "</script>",
    "<style>",
    "<svg><a xlink:href=x>",
    "<math>",
    "<iframe ",
    "srcdoc=\"",
    "<img src=",
    "data:image/png;base64,AAAA",
    "https://e.test/p.png",
    " onerror=",
    "<a href=",
    "javascript:alert(1)",
    "https://example.com",
    "mailto:a@b.c",
    "/rel",
    "#frag",
    "<!--",
    "-->",
    "<template>",
    "<noscript>",
    "<textarea>",
    "<form action=x>",
    "<details open>",
    "&lt;",
    "&quot;",
    "&#x6a;avascript:",
    " id=x class=y",
    " title=\"",
    " data-hb-style=\"",
    "<br>",
    "<![CDATA[",
    "<xmp>",
    "</p>",
    "\n",
    " ",
];

#[cfg(feature = "html-blocks")]
#[test]
fn html_blocks_stay_inert_and_clean_once() {
    use hearth_core::markdown::html_block::{clean, sanitise};
    use hearth_core::markdown::html_css::{STYLE_ATTRIBUTE, declarations, sanitise as style};

    const SCRIPTABLE: &[&str] = &[
        "script", "iframe", "object", "embed", "style", "link", "meta", "svg", "math", "form",
        "base", "frame", "frameset", "template", "noscript", "audio", "video", "source", "input",
        "textarea", "button", "select",
    ];
    check!().with_type::<Vec<(u8, String)>>().for_each(|steps| {
        let mut source = String::new();
        for (choice, text) in steps {
            if choice % 3 != 0 {
                source.push_str(HTML[*choice as usize % HTML.len()]);
            } else {
                source.extend(text.chars().take(8));
            }
        }
        // Idempotent as a document: the same elements, attributes and text (ammonia may
        // write an element's attributes in another order when it drops one).
        let once = clean(&source);
        let twice = clean(&once);
        let shape = |html: &str| {
            let mut tags = tags(html);
            for (_, attributes) in &mut tags {
                attributes.sort();
            }
            let text: String = html
                .split('<')
                .map(|piece| piece.split_once('>').map_or(piece, |(_, t)| t))
                .collect();
            (tags, text)
        };
        assert_eq!(
            shape(&twice),
            shape(&once),
            "not idempotent for {source:?}: {once}"
        );
        let html = sanitise(&source).expect("small blocks are sanitised");
        for (tag, attributes) in tags(&html) {
            assert!(
                !SCRIPTABLE.contains(&tag.as_str()),
                "<{tag}> from {source:?}: {html}"
            );
            for (name, value) in attributes {
                assert!(!name.starts_with("on"), "{name}= from {source:?}: {html}");
                assert!(
                    !matches!(name.as_str(), "style" | "id" | "class" | "name" | "srcdoc"),
                    "{name}= from {source:?}: {html}"
                );
                let lower = value.trim().to_ascii_lowercase();
                match name.as_str() {
                    "href" => assert!(
                        ["http:", "https:", "mailto:"]
                            .iter()
                            .any(|s| lower.starts_with(s)),
                        "href={value} from {source:?}"
                    ),
                    "src" => assert!(
                        lower.starts_with("data:image/"),
                        "src={value} from {source:?}"
                    ),
                    _ => {}
                }
                if name == STYLE_ATTRIBUTE {
                    // Every declaration written is one the page applies.
                    let html_value = value.replace("&amp;", "&");
                    let written = html_value.split(';').count();
                    assert_eq!(
                        declarations(&html_value).len(),
                        written,
                        "{value} from {source:?}"
                    );
                    assert!(
                        !lower.contains("url(") && !lower.contains("position"),
                        "{value}"
                    );
                }
            }
        }
    });
    // A style on its own: what it keeps is applied whole, and sanitising it again keeps it.
    check!().with_type::<Vec<(u8, String)>>().for_each(|steps| {
        let mut text = String::new();
        for (choice, piece) in steps {
            match choice % 4 {
                0 => text.extend(piece.chars().take(8)),
                1 => text.push_str(
                    ["color:", "background:", "border:", "width:", "gap:"][*choice as usize % 5],
                ),
                2 => text.push_str(
                    [
                        "#abc",
                        "rgb(1 2 3)",
                        "red",
                        "1px solid",
                        "calc(1px + 2%)",
                        "-3px",
                        "var(--x)",
                    ][*choice as usize % 7],
                ),
                _ => text.push(';'),
            }
        }
        if let Some(kept) = style(&text) {
            assert_eq!(
                declarations(&kept).len(),
                kept.split(';').count(),
                "{kept} from {text:?}"
            );
            assert_eq!(style(&kept).as_deref(), Some(kept.as_str()), "{text:?}");
        }
    });
}
