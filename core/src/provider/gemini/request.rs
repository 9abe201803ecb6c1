//! The Gemini request (`models/<model>:streamGenerateContent?alt=sse`): `contents`
//! with `user` and `model` turns, `systemInstruction`, `generationConfig`.

use serde_json::{Map, Value, json};

use crate::provider::request::{
    ANSWER_IMAGE_NOT_SENT, AnswerPiece, ChatRequest, Context, Endpoint, Message, Part, PartRef,
    PastImage, answer_pieces, assistant_text_with_calls, insert_common, push_turn, result_as_text,
};

/// The URL and body of a streamed request on `endpoint`, whose API root is `base`.
pub(crate) fn build(
    context: &mut Context,
    base: &str,
    _endpoint: &Endpoint,
    request: &ChatRequest,
) -> (String, Value) {
    let model = request.model.trim();
    let model = model.strip_prefix("models/").unwrap_or(model);
    (
        format!("{base}/models/{model}:streamGenerateContent?alt=sse"),
        body(context, request),
    )
}

fn body(context: &mut Context, request: &ChatRequest) -> Value {
    let tools = context.tools_on(request);
    let mut contents: Vec<Value> = Vec::new();
    let mut push = |role: &str, parts: Vec<Value>| push_turn(&mut contents, "parts", role, parts);
    for message in &request.messages {
        match message {
            Message::User { parts } => {
                let parts = context
                    .user_parts(parts)
                    .iter()
                    .map(|p| match p {
                        PartRef::Text(text) => json!({"text": text}),
                        PartRef::Image { mime_type, data } => {
                            json!({"inlineData": {"mimeType": mime_type, "data": data}})
                        }
                    })
                    .collect();
                push("user", parts);
            }
            Message::Assistant {
                text,
                tool_calls,
                images,
            } if tools => {
                let mut parts = answer_parts(context, text, images);
                for call in tool_calls {
                    let args: Value = serde_json::from_str(&call.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    let mut part = json!({"functionCall": {"name": call.name, "args": args}});
                    if !call.signature.is_empty() {
                        part["thoughtSignature"] = json!(call.signature);
                    }
                    parts.push(part);
                }
                push("model", parts);
            }
            Message::Assistant {
                text,
                tool_calls,
                images,
            } if tool_calls.is_empty() => push("model", answer_parts(context, text, images)),
            Message::Assistant {
                text,
                tool_calls,
                images,
            } => push(
                "model",
                vec![json!({"text": assistant_text_with_calls(text, images, tool_calls)})],
            ),
            Message::Tool { name, content, .. } if tools => push(
                "user",
                vec![json!({"functionResponse": {"name": name, "response": {"content": content}}})],
            ),
            Message::Tool { name, content, .. } => {
                push("user", vec![json!({"text": result_as_text(name, content)})])
            }
        }
    }
    let mut generation = Map::new();
    insert_common(&mut generation, request, "maxOutputTokens");
    if let Some(effort) = context.effort(request) {
        generation.insert(
            "thinkingConfig".into(),
            json!({"thinkingBudget": effort.budget_tokens(), "includeThoughts": true}),
        );
    }
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents));
    if let Some(system) = request.system.as_ref().filter(|s| !s.trim().is_empty()) {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}]}),
        );
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    let mut offered: Vec<Value> = Vec::new();
    if tools {
        offered.push(
            json!({"functionDeclarations": request.tools.iter().map(|t| json!({
            "name": t.name, "description": t.description, "parameters": t.parameters
        })).collect::<Vec<_>>()}),
        );
    }
    if request.web_search {
        offered.push(json!({"google_search": {}}));
    }
    if !offered.is_empty() {
        body.insert("tools".into(), Value::Array(offered));
    }
    Value::Object(body)
}

/// An earlier answer as Gemini's model parts: its text, and the images it sent in their
/// places as inline data with their signatures (a note instead for a model without
/// vision, or where the bytes were not kept).
fn answer_parts(context: &Context, text: &str, images: &[PastImage]) -> Vec<Value> {
    answer_pieces(text, images)
        .into_iter()
        .map(|piece| match piece {
            AnswerPiece::Text(stretch) => json!({"text": stretch}),
            AnswerPiece::Image(image) => {
                match &image.part {
                    Part::Image { mime_type, data } if context.capabilities.vision => {
                        let mut part = json!({"inlineData": {"mimeType": mime_type, "data": data}});
                        // The signature belongs to the image as sent, never to a note.
                        if !image.signature.is_empty() {
                            part["thoughtSignature"] = json!(image.signature);
                        }
                        part
                    }
                    Part::Image { .. } => json!({"text": ANSWER_IMAGE_NOT_SENT}),
                    Part::Text { text } => json!({"text": text}),
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::provider::Protocol;
    use crate::provider::build::build;
    use crate::provider::request::fixtures::*;

    #[test]
    fn gemini_shape() {
        let mut request = conversation();
        request.model = "models/gemini-2.5-flash".into();
        let built = build(
            &endpoint(
                Protocol::Gemini,
                "https://generativelanguage.googleapis.com/v1beta",
                false,
            ),
            &request,
            &FULL,
        )
        .unwrap();
        assert_eq!(
            built.url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert!(!built.url.contains("key="), "keys never go in URLs");
        let body = &built.body;
        assert_eq!(body["systemInstruction"]["parts"][0]["text"], "Be brief.");
        assert_eq!(
            body["contents"][0]["parts"][1]["inlineData"]["mimeType"],
            "image/png"
        );
        assert_eq!(body["contents"][1]["role"], "model");
        assert_eq!(
            body["contents"][1]["parts"][1]["functionCall"]["args"]["city"],
            "Paris"
        );
        // The call's signature goes back on its part, as Gemini 3 requires.
        assert_eq!(
            body["contents"][1]["parts"][1]["thoughtSignature"],
            "c2lnLTE="
        );
        assert_eq!(
            body["contents"][2]["parts"][0]["functionResponse"]["name"],
            "weather"
        );
        assert_eq!(
            body["generationConfig"]["thinkingConfig"]["includeThoughts"],
            true
        );
        assert_eq!(
            body["tools"][0]["functionDeclarations"][0]["name"],
            "weather"
        );
    }

    #[test]
    fn a_call_without_a_signature_sends_none_and_no_other_protocol_sends_one() {
        let mut request = conversation();
        if let crate::provider::request::Message::Assistant { tool_calls, .. } =
            &mut request.messages[1]
        {
            tool_calls[0].signature.clear();
        }
        let built = build(
            &endpoint(Protocol::Gemini, "https://g.example/v1beta", false),
            &request,
            &FULL,
        )
        .unwrap();
        let part = &built.body["contents"][1]["parts"][1];
        assert_eq!(part["functionCall"]["name"], "weather");
        assert!(part.get("thoughtSignature").is_none(), "{part}");
        let signed = conversation();
        for protocol in [
            Protocol::OpenAiChat,
            Protocol::OpenAiResponses,
            Protocol::Anthropic,
        ] {
            let built = build(
                &endpoint(protocol, "https://p.example/v1", false),
                &signed,
                &FULL,
            )
            .unwrap();
            assert!(
                !built.body.to_string().contains("c2lnLTE="),
                "{protocol:?} sent Gemini's signature"
            );
        }
    }

    fn drawing() -> crate::provider::request::ChatRequest {
        use crate::provider::request::{Message, Part, PastImage};
        let text = |text: &str| Part::Text { text: text.into() };
        crate::provider::request::ChatRequest {
            model: "gemini-3-pro-image-preview".into(),
            messages: vec![
                Message::User {
                    parts: vec![text("Draw a cat.")],
                },
                Message::Assistant {
                    text: "A cat: here. 猫.".into(),
                    tool_calls: Vec::new(),
                    images: vec![
                        // Past the end, and inside a character: each moves back to a
                        // boundary; the order is the places', not the list's.
                        PastImage {
                            at: 99,
                            part: text("[image: https://img.example/2.png]"),
                            signature: "bm90ZS1zaWc=".into(),
                        },
                        PastImage {
                            at: 7,
                            part: Part::Image {
                                mime_type: "image/png".into(),
                                data: "Q0FUUE5H".into(),
                            },
                            signature: "aW1hZ2Utc2ln".into(),
                        },
                        PastImage {
                            at: 15,
                            part: Part::Image {
                                mime_type: "image/png".into(),
                                data: "U0VDT05E".into(),
                            },
                            signature: String::new(),
                        },
                    ],
                },
                Message::User {
                    parts: vec![text("Make it blue.")],
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn an_answer_goes_back_with_its_images_in_place_and_their_signatures() {
        let built = build(
            &endpoint(Protocol::Gemini, "https://g.example/v1beta", false),
            &drawing(),
            &FULL,
        )
        .unwrap();
        let model = &built.body["contents"][1];
        assert_eq!(model["role"], "model");
        assert_eq!(
            model["parts"],
            serde_json::json!([
                {"text": "A cat: "},
                {"inlineData": {"mimeType": "image/png", "data": "Q0FUUE5H"},
                 "thoughtSignature": "aW1hZ2Utc2ln"},
                {"text": "here. "},
                {"inlineData": {"mimeType": "image/png", "data": "U0VDT05E"}},
                {"text": "猫."},
                {"text": "[image: https://img.example/2.png]"},
            ])
        );
        assert_eq!(
            built.body["contents"][2]["parts"][0]["text"],
            "Make it blue."
        );
    }

    #[test]
    fn without_vision_or_outside_gemini_an_answers_images_are_notes_and_no_bytes_go() {
        use crate::provider::request::ANSWER_IMAGE_NOT_SENT;
        let plain = build(
            &endpoint(Protocol::Gemini, "https://g.example/v1beta", false),
            &drawing(),
            &PLAIN,
        )
        .unwrap();
        let parts = &plain.body["contents"][1]["parts"];
        assert_eq!(parts[1], serde_json::json!({"text": ANSWER_IMAGE_NOT_SENT}));
        for protocol in [
            Protocol::OpenAiChat,
            Protocol::OpenAiResponses,
            Protocol::Anthropic,
        ] {
            let built = build(
                &endpoint(protocol, "https://p.example/v1", false),
                &drawing(),
                &FULL,
            )
            .unwrap();
            let body = built.body.to_string();
            let expected = format!(
                "A cat: \\n{ANSWER_IMAGE_NOT_SENT}\\nhere. \\n{ANSWER_IMAGE_NOT_SENT}\\n猫.\\n[image: https://img.example/2.png]\\n"
            );
            assert!(body.contains(&expected), "{protocol:?}: {body}");
            for secret in ["Q0FUUE5H", "U0VDT05E", "aW1hZ2Utc2ln", "bm90ZS1zaWc="] {
                assert!(!body.contains(secret), "{protocol:?} sent {secret}");
            }
        }
        assert!(!plain.body.to_string().contains("Q0FUUE5H"));
    }
}
