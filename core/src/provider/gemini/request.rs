//! The Gemini request (`models/<model>:streamGenerateContent?alt=sse`): `contents`
//! with `user` and `model` turns, `systemInstruction`, `generationConfig`.

use serde_json::{Map, Value, json};

use crate::provider::request::{
    ChatRequest, Context, Endpoint, Message, PartRef, assistant_text_with_calls, insert_common,
    push_turn, result_as_text,
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
            Message::Assistant { text, tool_calls } if tools => {
                let mut parts = Vec::new();
                if !text.is_empty() {
                    parts.push(json!({"text": text}));
                }
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
            Message::Assistant { text, tool_calls } => push(
                "model",
                vec![json!({"text": assistant_text_with_calls(text, tool_calls)})],
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
    if tools {
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": request.tools.iter().map(|t| json!({
                "name": t.name, "description": t.description, "parameters": t.parameters
            })).collect::<Vec<_>>()}]),
        );
    }
    Value::Object(body)
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
}
