//! Gemini `streamGenerateContent?alt=sse`: each event is a whole `GenerateContentResponse`
//! chunk. Parts carry text (`thought: true` marks reasoning), whole `functionCall`s and
//! `inlineData` images; `usageMetadata` is cumulative; the chunk with a `finishReason`
//! ends the reply (there is no `[DONE]`). A prompt blocked before any candidate, or an
//! `{"error": …}` body, ends it with an error. A stream that fails partway may end with
//! that error body raw, outside any `data:` line (pretty-printed, or inside `[…]`): the
//! [`StreamDecoder`](crate::provider::StreamDecoder) hands it here as an `error` event, so the
//! reply ends with the error rather than with the finish reason seen before it.

use serde_json::Value;

use crate::provider::sse::SseEvent;
use crate::provider::tool_calls::MAX_SIGNATURE_BYTES;
use crate::provider::{
    FinishReason, ImageData, ProtocolParser, ProviderError, SourcesSeen, StreamError, StreamEvent,
    Usage, count, parse_json,
};

/// Parser state for one reply.
#[derive(Debug, Default)]
pub struct Parser {
    next_tool: u32,
    finish: Option<FinishReason>,
    ended: bool,
    sources: SourcesSeen,
}

fn finish_reason(reason: &str, called_tools: bool) -> FinishReason {
    match reason {
        "STOP" if called_tools => FinishReason::ToolCalls,
        "STOP" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            FinishReason::ContentFilter
        }
        other => FinishReason::Other(other.to_ascii_lowercase()),
    }
}

fn usage(value: &Value) -> Usage {
    let output = count(&value["candidatesTokenCount"]);
    let thoughts = count(&value["thoughtsTokenCount"]);
    Usage {
        input_tokens: count(&value["promptTokenCount"]),
        output_tokens: match (output, thoughts) {
            (Some(o), Some(t)) => Some(o + t),
            (o, t) => o.or(t),
        },
        reasoning_tokens: thoughts,
        cached_input_tokens: count(&value["cachedContentTokenCount"]),
        cache_write_input_tokens: None,
    }
}

impl ProtocolParser for Parser {
    fn on_event(&mut self, event: &SseEvent) -> Result<Vec<StreamEvent>, StreamError> {
        if self.ended || event.data.trim().is_empty() {
            return Ok(Vec::new());
        }
        let value = parse_json(&event.data)?;
        let mut out = Vec::new();
        if value.get("error").is_some_and(|e| !e.is_null()) {
            self.ended = true;
            let error = &value["error"];
            out.push(StreamEvent::Error {
                error: ProviderError {
                    code: error["status"]
                        .as_str()
                        .map(str::to_string)
                        .or_else(|| error["code"].as_i64().map(|c| c.to_string())),
                    message: error["message"]
                        .as_str()
                        .unwrap_or("the provider reported an error")
                        .to_string(),
                },
            });
            return Ok(out);
        }
        if let Some(reason) = value["promptFeedback"]["blockReason"].as_str() {
            self.ended = true;
            out.push(StreamEvent::Error {
                error: ProviderError {
                    code: Some(reason.to_string()),
                    message: format!("the prompt was blocked ({reason})"),
                },
            });
            return Ok(out);
        }
        let candidate = &value["candidates"][0];
        for part in candidate["content"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(text) = part["text"].as_str().filter(|t| !t.is_empty()) {
                let delta = text.to_string();
                out.push(if part["thought"].as_bool() == Some(true) {
                    StreamEvent::Reasoning { delta }
                } else {
                    StreamEvent::Text { delta }
                });
            }
            if let Some(call) = part.get("functionCall") {
                let index = self.next_tool;
                self.next_tool += 1;
                out.push(StreamEvent::ToolCall {
                    index,
                    id: call["id"].as_str().map(str::to_string),
                    name: call["name"].as_str().map(str::to_string),
                    arguments: call
                        .get("args")
                        .map(Value::to_string)
                        .unwrap_or_else(|| "{}".to_string()),
                    // Gemini 3 refuses a later request whose call lacks it.
                    signature: part["thoughtSignature"].as_str().map(str::to_string),
                });
            }
            if let Some(inline) = part.get("inlineData") {
                out.push(StreamEvent::Image {
                    image: ImageData::Base64 {
                        mime_type: inline["mimeType"]
                            .as_str()
                            .unwrap_or("application/octet-stream")
                            .to_string(),
                        data: inline["data"].as_str().unwrap_or_default().to_string(),
                    },
                    // Sent back with the image in later turns; a longer one than any call's
                    // is not kept (it would make every later request too large).
                    signature: part["thoughtSignature"]
                        .as_str()
                        .filter(|s| s.len() <= MAX_SIGNATURE_BYTES)
                        .map(str::to_string),
                });
            }
        }
        // Grounding with Google Search: what it searched for, and the pages the answer
        // drew on.
        for query in candidate["groundingMetadata"]["webSearchQueries"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            out.push(StreamEvent::SearchQuery {
                query: query.to_string(),
            });
        }
        for chunk in candidate["groundingMetadata"]["groundingChunks"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let web = &chunk["web"];
            self.sources.push(&mut out, &web["uri"], &web["title"]);
        }
        if value.get("usageMetadata").is_some_and(Value::is_object) {
            let usage = usage(&value["usageMetadata"]);
            if !usage.is_empty() {
                out.push(StreamEvent::Usage { usage });
            }
        }
        if let Some(reason) = candidate["finishReason"].as_str() {
            self.finish = Some(finish_reason(reason, self.next_tool > 0));
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, StreamError> {
        if self.ended {
            return Ok(Vec::new());
        }
        match self.finish.take() {
            Some(reason) => {
                self.ended = true;
                Ok(vec![StreamEvent::Finish { reason }])
            }
            None => Err(StreamError::Truncated),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::provider::replay::every_split;
    use crate::provider::tool_calls::MAX_SIGNATURE_BYTES;
    use crate::provider::{FinishReason, ImageData, Protocol, StreamError};

    #[test]
    fn grounding_chunks_arrive_as_sources() {
        let stream = concat!(
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Spain won Euro 2024.\"}],\"role\":\"model\"},\"index\":0}]}\r\n\r\n",
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0,\"groundingMetadata\":{\"webSearchQueries\":[\"euro 2024 winner\"],\"groundingChunks\":[{\"web\":{\"uri\":\"https://vertexaisearch.cloud.google.com/grounding-api-redirect/abc\",\"title\":\"uefa.com\"}},{\"web\":{\"uri\":\"https://vertexaisearch.cloud.google.com/grounding-api-redirect/def\",\"title\":\"bbc.com\"}}],\"groundingSupports\":[{\"segment\":{\"startIndex\":0,\"endIndex\":20,\"text\":\"Spain won Euro 2024.\"},\"groundingChunkIndices\":[0,1]}]}}]}\r\n\r\n",
        );
        let got = every_split(Protocol::Gemini, stream).unwrap();
        assert_eq!(got.text, "Spain won Euro 2024.");
        assert_eq!(got.queries, ["euro 2024 winner"]);
        assert_eq!(
            got.sources,
            vec![
                (
                    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/abc"
                        .to_string(),
                    "uefa.com".to_string()
                ),
                (
                    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/def"
                        .to_string(),
                    "bbc.com".to_string()
                ),
            ]
        );
    }

    const THOUGHTS_TEXT_CALL: &str = concat!(
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Thinking about **units**\", \"thought\": true}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 12,\"totalTokenCount\": 40,\"thoughtsTokenCount\": 28},\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\n",
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Converting \u{00B0}C\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 12,\"candidatesTokenCount\": 3,\"thoughtsTokenCount\": 28}}\r\n\r\n",
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"convert\",\"args\": {\"from\": \"C\", \"value\": 21.5}}, \"thoughtSignature\": \"Q2lnbmF0dXJl\"}, {\"functionCall\": {\"name\": \"convert\",\"args\": {\"from\": \"F\", \"value\": 70}}}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 12,\"candidatesTokenCount\": 30,\"thoughtsTokenCount\": 28,\"totalTokenCount\": 70}}\r\n\r\n",
    );

    #[test]
    fn thoughts_text_whole_function_calls_and_cumulative_usage() {
        let got = every_split(Protocol::Gemini, THOUGHTS_TEXT_CALL).unwrap();
        assert_eq!(got.reasoning, "Thinking about **units**");
        assert_eq!(got.text, "Converting \u{00B0}C");
        assert_eq!(got.calls.len(), 2);
        assert_eq!(got.calls[0].arguments.as_ref().unwrap()["value"], 21.5);
        assert_eq!(got.calls[1].arguments.as_ref().unwrap()["from"], "F");
        assert_eq!(got.calls[1].id, "call_1");
        // Gemini 3 signs the first of parallel calls; the signature stays with its call.
        assert_eq!(got.calls[0].signature, "Q2lnbmF0dXJl");
        assert_eq!(got.calls[1].signature, "");
        assert_eq!(got.usage.input_tokens, Some(12));
        assert_eq!(got.usage.output_tokens, Some(58));
        assert_eq!(got.usage.reasoning_tokens, Some(28));
        assert_eq!(got.finish, Some(FinishReason::ToolCalls));
        assert!(got.finish_was_last);
    }

    #[test]
    fn inline_images_and_max_tokens() {
        let stream = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Here:\"},{\"inlineData\":{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgo=\"}}]},\"finishReason\":\"MAX_TOKENS\"}]}\n\n";
        let got = every_split(Protocol::Gemini, stream).unwrap();
        assert_eq!(
            got.images,
            vec![ImageData::Base64 {
                mime_type: "image/png".into(),
                data: "iVBORw0KGgo=".into()
            }]
        );
        assert_eq!(got.finish, Some(FinishReason::Length));
        assert_eq!(got.image_signatures, vec![String::new()]);
    }

    #[test]
    fn an_images_signature_comes_with_it_unless_it_is_past_the_bound() {
        let part = |data: &str, signature: &str| {
            format!(
                "{{\"inlineData\":{{\"mimeType\":\"image/png\",\"data\":\"{data}\"}},\"thoughtSignature\":\"{signature}\"}}"
            )
        };
        let long = "A".repeat(MAX_SIGNATURE_BYTES + 1);
        let stream = format!(
            "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{},{},{{\"text\":\"Done\",\"thoughtSignature\":\"dGV4dA==\"}}]}},\"finishReason\":\"STOP\"}}]}}\n\n",
            part("iVBORw0KGgo=", "aW1hZ2Ux"),
            part("iVBORw0KGgp=", &long),
        );
        let got = every_split(Protocol::Gemini, &stream).unwrap();
        assert_eq!(got.images.len(), 2);
        assert_eq!(
            got.image_signatures,
            vec!["aW1hZ2Ux".to_string(), String::new()]
        );
        assert_eq!(got.text, "Done");
    }

    #[test]
    fn blocked_prompts_and_error_bodies_are_errors() {
        let blocked = "data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"},\"usageMetadata\":{\"promptTokenCount\":9}}\n\n";
        let got = every_split(Protocol::Gemini, blocked).unwrap();
        assert_eq!(got.error.unwrap().code.as_deref(), Some("SAFETY"));

        let error = "data: {\"error\":{\"code\":429,\"message\":\"Quota exceeded\",\"status\":\"RESOURCE_EXHAUSTED\"}}\n\n";
        let got = every_split(Protocol::Gemini, error).unwrap();
        let error = got.error.unwrap();
        assert_eq!(error.code.as_deref(), Some("RESOURCE_EXHAUSTED"));
        assert_eq!(error.message, "Quota exceeded");
    }

    #[test]
    fn without_a_finish_reason_the_reply_is_truncated() {
        let cut = &THOUGHTS_TEXT_CALL[..THOUGHTS_TEXT_CALL.rfind("data:").unwrap()];
        let (error, partial) = every_split(Protocol::Gemini, cut).unwrap_err();
        assert_eq!(error, StreamError::Truncated);
        assert_eq!(partial.text, "Converting \u{00B0}C");
    }

    /// When a stream fails partway, Gemini may end the body with its error object raw,
    /// outside any `data:` line: on one line, pretty-printed, or inside `[…]`. Whether or
    /// not a finish reason came before it, the reply ends as that provider error, with
    /// the partial text kept.
    #[test]
    fn a_raw_json_error_ending_the_body_is_a_provider_error() {
        const EVENTS: &str = concat!(
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Partial \u{00E9}\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n",
            "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"answer\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n",
        );
        const FINISHED: &str = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\"}]},\"finishReason\": \"STOP\",\"index\": 0}]}\r\n\r\n";
        const ONE_LINE: &str = "{\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}";
        const PRETTY: &str = "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"The model is overloaded.\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n";
        const WRAPPED: &str = "[{\r\n  \"error\": {\r\n    \"code\": 503,\r\n    \"message\": \"The model is overloaded.\",\r\n    \"status\": \"UNAVAILABLE\"\r\n  }\r\n}\r\n]";
        for finished in ["", FINISHED] {
            for raw in [ONE_LINE, PRETTY, WRAPPED] {
                let stream = format!("{EVENTS}{finished}{raw}");
                let got = every_split(Protocol::Gemini, &stream)
                    .unwrap_or_else(|e| panic!("{stream:?}: {e:?}"));
                assert_eq!(got.text, "Partial \u{00E9}answer", "{stream:?}");
                let error = got.error.unwrap_or_else(|| panic!("{stream:?}"));
                assert_eq!(error.code.as_deref(), Some("UNAVAILABLE"));
                assert_eq!(error.message, "The model is overloaded.");
                assert_eq!(got.finish, None, "an error, not a completed reply");
            }
        }
        // Raw text that is not an error object changes nothing.
        let noise = format!("{EVENTS}{FINISHED}[]\n{{\"note\": \"x\"}}\n");
        let got = every_split(Protocol::Gemini, &noise).unwrap();
        assert_eq!(got.finish, Some(FinishReason::Stop));
        assert_eq!(got.error, None);
    }
}
