//! OpenAI Chat Completions streaming (`data: {chunk}` … `data: [DONE]`), as sent by
//! OpenAI and by OpenAI-compatible servers (Ollama, llama.cpp, vLLM, LocalAI,
//! OpenRouter). Reasoning arrives as `delta.reasoning_content` (DeepSeek, vLLM,
//! llama.cpp) or `delta.reasoning` (OpenRouter, Ollama); usage in a final chunk with
//! empty `choices` when `stream_options.include_usage` is set. A stream that ends after a
//! `finish_reason` but without `[DONE]` is complete (some servers omit it); one with
//! neither is truncated.
//!
//! Only choice 0 is read: with `n > 1` the choices' chunks interleave (`choices[].index`),
//! and a choice without an `index` counts as 0. `delta.refusal` is a
//! [`StreamEvent::Refusal`]. Some servers (Mistral's reasoning models) send
//! `delta.content` as an array of typed parts: `text` parts are text, `thinking` /
//! `reasoning` parts reasoning, `refusal` parts refusal, other types are ignored.

use serde_json::Value;

use crate::provider::sse::SseEvent;
use crate::provider::{
    FinishReason, ImageData, ProtocolParser, ProviderError, SourcesSeen, StreamError, StreamEvent,
    Usage, count, parse_json,
};

/// Parser state for one reply.
#[derive(Debug, Default)]
pub struct Parser {
    finish: Option<FinishReason>,
    done: bool,
    errored: bool,
    sources: SourcesSeen,
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" | "end_turn" => FinishReason::Stop,
        "length" | "max_tokens" => FinishReason::Length,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_string()),
    }
}

/// Usage from an OpenAI-style `usage` object.
pub(crate) fn usage(value: &Value) -> Usage {
    Usage {
        input_tokens: count(&value["prompt_tokens"]),
        output_tokens: count(&value["completion_tokens"]),
        reasoning_tokens: count(&value["completion_tokens_details"]["reasoning_tokens"]),
        cached_input_tokens: count(&value["prompt_tokens_details"]["cached_tokens"]),
        cache_write_input_tokens: None,
    }
}

/// A provider error from an `{"error": …}` body (OpenAI's shape, used widely).
pub(crate) fn error(value: &Value) -> ProviderError {
    let error = &value["error"];
    let message = error["message"]
        .as_str()
        .or_else(|| error.as_str())
        .unwrap_or("the provider reported an error")
        .to_string();
    let code = error["code"]
        .as_str()
        .map(str::to_string)
        .or_else(|| error["code"].as_i64().map(|c| c.to_string()))
        .or_else(|| error["type"].as_str().map(str::to_string));
    ProviderError { code, message }
}

/// Whether a streamed choice is choice 0, the only one Hearth reads (`n > 1` streams
/// interleave several); a choice without an `index` is 0.
fn is_first_choice(choice: &Value) -> bool {
    match choice.get("index") {
        None | Some(Value::Null) => true,
        Some(index) => index.as_u64() == Some(0),
    }
}

/// Emits a message's `content`: a string of text, or an array of typed parts (`text`,
/// `thinking`/`reasoning`, `refusal`; other types are ignored).
fn content(content: &Value, out: &mut Vec<StreamEvent>) {
    let mut emit = |delta: String, event: fn(String) -> StreamEvent| {
        if !delta.is_empty() {
            out.push(event(delta));
        }
    };
    if let Some(text) = content.as_str() {
        return emit(text.to_string(), |delta| StreamEvent::Text { delta });
    }
    for part in content.as_array().into_iter().flatten() {
        match part["type"].as_str() {
            Some("text") => emit(part_text(&part["text"]), |delta| StreamEvent::Text {
                delta,
            }),
            Some(kind @ ("thinking" | "reasoning")) => {
                let mut text = part_text(&part[kind]);
                if text.is_empty() {
                    text = part_text(&part["text"]);
                }
                emit(text, |delta| StreamEvent::Reasoning { delta });
            }
            Some("refusal") => emit(part_text(&part["refusal"]), |delta| StreamEvent::Refusal {
                delta,
            }),
            _ => {}
        }
    }
}

/// The text of a part's field: a string, or an array of parts whose `text` fields join
/// (Mistral nests `thinking: [{"type": "text", "text": …}]`).
fn part_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|part| matches!(part["type"].as_str(), None | Some("text")))
            .filter_map(|part| part["text"].as_str())
            .collect(),
        _ => String::new(),
    }
}

impl ProtocolParser for Parser {
    fn on_event(&mut self, event: &SseEvent) -> Result<Vec<StreamEvent>, StreamError> {
        if self.done || self.errored {
            return Ok(Vec::new());
        }
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(self
                .finish
                .take()
                .map(|reason| vec![StreamEvent::Finish { reason }])
                .unwrap_or_else(|| {
                    vec![StreamEvent::Finish {
                        reason: FinishReason::Stop,
                    }]
                }));
        }
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let chunk = parse_json(data)?;
        let mut out = Vec::new();
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            self.errored = true;
            out.push(StreamEvent::Error {
                error: error(&chunk),
            });
            return Ok(out);
        }
        // Perplexity names its sources beside the choices, in every chunk: the search
        // results with titles, and `citations` (the URLs its `[n]` count).
        for result in chunk["search_results"].as_array().into_iter().flatten() {
            self.sources
                .push(&mut out, &result["url"], &result["title"]);
        }
        for url in chunk["citations"].as_array().into_iter().flatten() {
            self.sources.push(&mut out, url, &Value::Null);
        }
        let first_choice = chunk["choices"]
            .as_array()
            .and_then(|choices| choices.iter().find(|choice| is_first_choice(choice)));
        if let Some(choice) = first_choice {
            let delta = &choice["delta"];
            for field in ["reasoning_content", "reasoning"] {
                if let Some(text) = delta[field].as_str().filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::Reasoning {
                        delta: text.to_string(),
                    });
                }
            }
            content(&delta["content"], &mut out);
            if let Some(text) = delta["refusal"].as_str().filter(|t| !t.is_empty()) {
                out.push(StreamEvent::Refusal {
                    delta: text.to_string(),
                });
            }
            for call in delta["tool_calls"].as_array().into_iter().flatten() {
                let index = call["index"].as_u64().and_then(|i| u32::try_from(i).ok());
                let Some(index) = index else {
                    return Err(StreamError::malformed("tool call without an index", data));
                };
                out.push(StreamEvent::ToolCall {
                    index,
                    id: call["id"].as_str().map(str::to_string),
                    name: call["function"]["name"].as_str().map(str::to_string),
                    arguments: call["function"]["arguments"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    signature: None,
                });
            }
            for image in delta["images"].as_array().into_iter().flatten() {
                if let Some(url) = image["image_url"]["url"].as_str() {
                    out.push(StreamEvent::Image {
                        image: ImageData::Url {
                            url: url.to_string(),
                        },
                        signature: None,
                    });
                }
            }
            // OpenAI's search models and OpenRouter's web plugin: `url_citation`s.
            for annotation in delta["annotations"].as_array().into_iter().flatten() {
                let cited = &annotation["url_citation"];
                self.sources.push(&mut out, &cited["url"], &cited["title"]);
            }
            if let Some(reason) = choice["finish_reason"].as_str() {
                self.finish = Some(finish_reason(reason));
            }
        }
        if chunk.get("usage").is_some_and(Value::is_object) {
            let usage = usage(&chunk["usage"]);
            if !usage.is_empty() {
                out.push(StreamEvent::Usage { usage });
            }
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, StreamError> {
        if self.done || self.errored {
            return Ok(Vec::new());
        }
        match self.finish.take() {
            Some(reason) => {
                self.done = true;
                Ok(vec![StreamEvent::Finish { reason }])
            }
            None => Err(StreamError::Truncated),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::provider::replay::{Collected, every_split};
    use crate::provider::{FinishReason, Protocol, StreamError};

    #[test]
    fn perplexitys_repeated_citations_and_openais_annotations_are_each_source_once() {
        let stream = concat!(
            "data: {\"id\":\"p1\",\"model\":\"sonar\",\"citations\":[\"https://a.example/1\",\"https://b.example/2\"],\"search_results\":[{\"title\":\"A one\",\"url\":\"https://a.example/1\",\"date\":\"2025-01-01\"}],\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Cats sleep [1]\"}}]}\n\n",
            "data: {\"id\":\"p1\",\"model\":\"sonar\",\"citations\":[\"https://a.example/1\",\"https://b.example/2\"],\"choices\":[{\"index\":0,\"delta\":{\"content\":\" and purr [2].\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"annotations\":[{\"type\":\"url_citation\",\"url_citation\":{\"start_index\":0,\"end_index\":4,\"title\":\"C page\",\"url\":\"https://c.example/\"}},{\"type\":\"url_citation\",\"url_citation\":{\"title\":\"again\",\"url\":\"https://b.example/2\"}}]},\"finish_reason\":\"stop\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let got = every_split(Protocol::OpenAiChat, stream).unwrap();
        assert_eq!(got.text, "Cats sleep [1] and purr [2].");
        assert_eq!(
            got.sources,
            vec![
                ("https://a.example/1".to_string(), "A one".to_string()),
                ("https://b.example/2".to_string(), String::new()),
                ("https://c.example/".to_string(), "C page".to_string()),
            ]
        );
    }

    const TOOLS_AND_REASONING: &str = concat!(
        "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Weather needs \"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"a tool.\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Checking \u{1F326}\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"city\\\":\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"\\\"東京\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":31,\"completion_tokens\":12,\"total_tokens\":43,\"completion_tokens_details\":{\"reasoning_tokens\":5},\"prompt_tokens_details\":{\"cached_tokens\":8}}}\n\n",
        "data: [DONE]\n\n",
    );

    #[test]
    fn text_reasoning_parallel_tool_calls_and_usage() {
        let got = every_split(Protocol::OpenAiChat, TOOLS_AND_REASONING).unwrap();
        assert_eq!(got.reasoning, "Weather needs a tool.");
        assert_eq!(got.text, "Checking \u{1F326}");
        assert_eq!(got.calls.len(), 2);
        assert_eq!(got.calls[0].id, "call_a");
        assert_eq!(got.calls[0].arguments.as_ref().unwrap()["city"], "Paris");
        assert_eq!(got.calls[1].id, "call_b");
        assert_eq!(got.calls[1].arguments.as_ref().unwrap()["city"], "東京");
        assert_eq!(got.usage.input_tokens, Some(31));
        assert_eq!(got.usage.output_tokens, Some(12));
        assert_eq!(got.usage.reasoning_tokens, Some(5));
        assert_eq!(got.usage.cached_input_tokens, Some(8));
        assert_eq!(got.finish, Some(FinishReason::ToolCalls));
        assert!(got.finish_was_last);
    }

    #[test]
    fn inline_think_tags_from_local_servers_become_reasoning() {
        let stream = concat!(
            "data: {\"choices\":[{\"delta\":{\"content\":\"<th\"}}]}\r\n\r\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"ink>Plan: add.</thi\"}}]}\r\n\r\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"nk>\\n2 + 2 = 4\"}}]}\r\n\r\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n",
            "data: [DONE]\r\n\r\n",
        );
        let got = every_split(Protocol::OpenAiChat, stream).unwrap();
        assert_eq!(got.reasoning, "Plan: add.");
        assert_eq!(got.text, "2 + 2 = 4");
        assert!(got.usage.is_empty(), "no usage reported: the app estimates");
        assert_eq!(got.finish, Some(FinishReason::Stop));
    }

    #[test]
    fn openrouter_reasoning_field_and_missing_done_after_finish() {
        let stream = concat!(
            ": OPENROUTER PROCESSING\n\n",
            "data: {\"choices\":[{\"delta\":{\"reasoning\":\"hmm\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"length\"}]}\n\n",
        );
        let got = every_split(Protocol::OpenAiChat, stream).unwrap();
        assert_eq!(got.reasoning, "hmm");
        assert_eq!(got.text, "ok");
        assert_eq!(got.finish, Some(FinishReason::Length));
    }

    #[test]
    fn an_error_chunk_ends_the_reply_and_keeps_the_partial_text() {
        let stream = concat!(
            "data: {\"choices\":[{\"delta\":{\"content\":\"Part\"}}]}\n\n",
            "data: {\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}\n\n",
        );
        let got = every_split(Protocol::OpenAiChat, stream).unwrap();
        assert_eq!(got.text, "Part");
        let error = got.error.unwrap();
        assert_eq!(error.code.as_deref(), Some("rate_limit_exceeded"));
        assert_eq!(error.message, "Rate limit reached");
        assert_eq!(got.finish, None);
    }

    #[test]
    fn a_stream_cut_mid_reply_is_truncated_not_finished() {
        let stream = "data: {\"choices\":[{\"delta\":{\"content\":\"Half an ans\"}}]}\n\n";
        let outcome = every_split(Protocol::OpenAiChat, stream);
        assert_eq!(
            outcome.err(),
            Some((StreamError::Truncated, partial("Half an ans")))
        );
        let cut = &TOOLS_AND_REASONING[..TOOLS_AND_REASONING.find("[DONE]").unwrap() - 20];
        assert!(matches!(
            every_split(Protocol::OpenAiChat, cut),
            Err((StreamError::Malformed { .. } | StreamError::Truncated, _))
        ));
    }

    #[test]
    fn malformed_json_is_a_typed_error() {
        let outcome = every_split(Protocol::OpenAiChat, "data: {not json}\n\n");
        assert!(matches!(outcome, Err((StreamError::Malformed { .. }, _))));
    }

    /// `n = 2`: the choices' chunks interleave, and choice 1 has its own text, tool call
    /// and an earlier finish reason. Only choice 0 counts (a choice without an `index`
    /// is 0), never a mix; a chunk may also carry both choices at once.
    #[test]
    fn only_choice_zero_of_an_n_greater_than_one_stream_is_read() {
        let stream = concat!(
            "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"Par\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":1,\"delta\":{\"role\":\"assistant\",\"content\":\"Lon\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"zero\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":1,\"delta\":{\"reasoning_content\":\"one\",\"refusal\":\"no\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"don\"}},{\"index\":0,\"delta\":{\"content\":\"is\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":1,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_x\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\".\"},\"finish_reason\":null}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"},{\"index\":1,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":9}}\n\n",
            "data: [DONE]\n\n",
        );
        let got = every_split(Protocol::OpenAiChat, stream).unwrap();
        assert_eq!(got.text, "Paris.");
        assert_eq!(got.reasoning, "zero");
        assert_eq!(got.refusal, "");
        assert!(got.calls.is_empty(), "{:?}", got.calls);
        assert_eq!(got.finish, Some(FinishReason::Length));
        assert_eq!(got.usage.output_tokens, Some(9));
        assert!(got.finish_was_last);

        // Choice 1 finishing first does not end (or complete) choice 0's reply.
        let cut = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Half\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":1,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        );
        let (error, partial) = every_split(Protocol::OpenAiChat, cut).unwrap_err();
        assert_eq!(error, StreamError::Truncated);
        assert_eq!(partial.text, "Half");
    }

    #[test]
    fn a_refusal_is_surfaced_as_a_refusal_not_dropped() {
        let stream = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"refusal\":\"\"},\"finish_reason\":null}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I can\u{2019}t \"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"help with that.\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[{\"type\":\"refusal\",\"refusal\":\" Sorry.\"}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let got = every_split(Protocol::OpenAiChat, stream).unwrap();
        assert_eq!(got.refusal, "I can\u{2019}t help with that. Sorry.");
        assert_eq!(got.text, "");
        assert_eq!(got.finish, Some(FinishReason::Stop));
    }

    /// Mistral's reasoning models (and other OpenAI-compatible servers) stream
    /// `delta.content` as typed parts; strings and arrays may alternate in one reply.
    #[test]
    fn content_part_arrays_become_text_and_reasoning() {
        let stream = concat!(
            "data: {\"id\":\"m1\",\"object\":\"chat.completion.chunk\",\"model\":\"magistral-medium-2506\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"Okay, \"}]}]},\"finish_reason\":null}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"2 + 2.\"}]}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\" Done\"}]},{\"type\":\"text\",\"text\":\"2 + 2 \"}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"= \"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[{\"type\":\"text\",\"text\":\"4 \u{2705}\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}},{\"type\":\"audio\",\"text\":\"ignored\"}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[{\"type\":\"reasoning\",\"text\":\" (checked)\"}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[]},\"finish_reason\":\"stop\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let got = every_split(Protocol::OpenAiChat, stream).unwrap();
        assert_eq!(got.reasoning, "Okay, 2 + 2. Done (checked)");
        assert_eq!(got.text, "2 + 2 = 4 \u{2705}");
        assert_eq!(got.finish, Some(FinishReason::Stop));

        let plain = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[{\"type\":\"text\",\"text\":\"Hello\"}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[{\"type\":\"text\",\"text\":\" there\"}]},\"finish_reason\":\"stop\"}]}\n\n",
        );
        let got = every_split(Protocol::OpenAiChat, plain).unwrap();
        assert_eq!(got.text, "Hello there");
        assert_eq!(got.reasoning, "");
    }

    fn partial(text: &str) -> Collected {
        Collected {
            text: text.to_string(),
            ..Collected::default()
        }
    }
}
