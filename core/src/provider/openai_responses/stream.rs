//! OpenAI Responses streaming: typed events (`response.output_text.delta`,
//! `response.reasoning_summary_text.delta`, `response.output_item.added` for function
//! calls, `response.function_call_arguments.delta`, …) ending in `response.completed`,
//! `response.incomplete` or `response.failed`; a top-level `error` event also ends it.
//! `response.refusal.delta` is a [`StreamEvent::Refusal`], never answer text.
//! Function calls are numbered in the order their output items appear.

use std::collections::HashMap;

use serde_json::Value;

use crate::provider::sse::SseEvent;
use crate::provider::{
    FinishReason, ImageData, ProtocolParser, ProviderError, SourcesSeen, StreamError, StreamEvent,
    Usage, count, parse_json,
};

/// Parser state for one reply.
#[derive(Debug, Default)]
pub struct Parser {
    tool_of_output: HashMap<u64, u32>,
    next_tool: u32,
    done: bool,
    sources: SourcesSeen,
}

fn usage(value: &Value) -> Usage {
    Usage {
        input_tokens: count(&value["input_tokens"]),
        output_tokens: count(&value["output_tokens"]),
        reasoning_tokens: count(&value["output_tokens_details"]["reasoning_tokens"]),
        cached_input_tokens: count(&value["input_tokens_details"]["cached_tokens"]),
        cache_write_input_tokens: None,
    }
}

fn error_of(value: &Value) -> ProviderError {
    ProviderError {
        code: value["code"].as_str().map(str::to_string),
        message: value["message"]
            .as_str()
            .unwrap_or("the provider reported an error")
            .to_string(),
    }
}

impl Parser {
    fn end(&mut self, out: &mut Vec<StreamEvent>, response: &Value, reason: FinishReason) {
        self.done = true;
        let usage = usage(&response["usage"]);
        if !usage.is_empty() {
            out.push(StreamEvent::Usage { usage });
        }
        out.push(StreamEvent::Finish { reason });
    }
}

impl ProtocolParser for Parser {
    fn on_event(&mut self, event: &SseEvent) -> Result<Vec<StreamEvent>, StreamError> {
        if self.done || event.data.trim().is_empty() || event.data.trim() == "[DONE]" {
            return Ok(Vec::new());
        }
        let value = parse_json(&event.data)?;
        let kind = value["type"].as_str().unwrap_or(event.event.as_str());
        let mut out = Vec::new();
        let text = |field: &str| value[field].as_str().unwrap_or_default().to_string();
        match kind {
            "response.output_text.delta" => out.push(StreamEvent::Text {
                delta: text("delta"),
            }),
            "response.refusal.delta" => out.push(StreamEvent::Refusal {
                delta: text("delta"),
            }),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                out.push(StreamEvent::Reasoning {
                    delta: text("delta"),
                })
            }
            // The web search tool's citations, as the text that cites them streams.
            "response.output_text.annotation.added" => {
                let annotation = &value["annotation"];
                if annotation["type"].as_str() == Some("url_citation") {
                    self.sources
                        .push(&mut out, &annotation["url"], &annotation["title"]);
                }
            }
            "response.reasoning_summary_part.done" => {
                // Separate summary paragraphs, as the provider's own UI does.
                out.push(StreamEvent::Reasoning {
                    delta: "\n\n".to_string(),
                });
            }
            "response.output_item.added" => {
                let item = &value["item"];
                if item["type"].as_str() == Some("function_call") {
                    let output = value["output_index"].as_u64().unwrap_or(u64::MAX);
                    let tool = self.next_tool;
                    self.next_tool += 1;
                    self.tool_of_output.insert(output, tool);
                    out.push(StreamEvent::ToolCall {
                        index: tool,
                        id: item["call_id"].as_str().map(str::to_string),
                        name: item["name"].as_str().map(str::to_string),
                        arguments: item["arguments"].as_str().unwrap_or_default().to_string(),
                        signature: None,
                    });
                }
            }
            "response.function_call_arguments.delta" => {
                let output = value["output_index"].as_u64().unwrap_or(u64::MAX);
                let Some(&tool) = self.tool_of_output.get(&output) else {
                    return Err(StreamError::malformed(
                        "arguments for an output that is not a function call",
                        &event.data,
                    ));
                };
                out.push(StreamEvent::ToolCall {
                    index: tool,
                    id: None,
                    name: None,
                    arguments: text("delta"),
                    signature: None,
                });
            }
            "response.output_item.done" => {
                let item = &value["item"];
                // The provider's own web search: what it searched for.
                if item["type"].as_str() == Some("web_search_call")
                    && let Some(query) = item["action"]["query"].as_str()
                {
                    out.push(StreamEvent::SearchQuery {
                        query: query.to_string(),
                    });
                }
                if item["type"].as_str() == Some("image_generation_call")
                    && let Some(data) = item["result"].as_str()
                {
                    out.push(StreamEvent::Image {
                        image: ImageData::Base64 {
                            mime_type: format!(
                                "image/{}",
                                item["output_format"].as_str().unwrap_or("png")
                            ),
                            data: data.to_string(),
                        },
                        signature: None,
                    });
                }
            }
            "response.completed" => {
                let reason = if self.next_tool > 0 {
                    FinishReason::ToolCalls
                } else {
                    FinishReason::Stop
                };
                self.end(&mut out, &value["response"], reason);
            }
            "response.incomplete" => {
                let response = &value["response"];
                let reason = match response["incomplete_details"]["reason"].as_str() {
                    Some("max_output_tokens") => FinishReason::Length,
                    Some("content_filter") => FinishReason::ContentFilter,
                    Some(other) => FinishReason::Other(other.to_string()),
                    None => FinishReason::Other("incomplete".to_string()),
                };
                self.end(&mut out, response, reason);
            }
            "response.failed" => {
                self.done = true;
                out.push(StreamEvent::Error {
                    error: error_of(&value["response"]["error"]),
                });
            }
            "error" => {
                self.done = true;
                // `{"type": "error", "message": …}`, or a raw `{"error": {…}}` body.
                let error = match value.get("error") {
                    Some(nested) if value.get("message").is_none() && nested.is_object() => {
                        error_of(nested)
                    }
                    _ => error_of(&value),
                };
                out.push(StreamEvent::Error { error });
            }
            _ => {}
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, StreamError> {
        if self.done {
            Ok(Vec::new())
        } else {
            Err(StreamError::Truncated)
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::provider::replay::every_split;
    use crate::provider::{FinishReason, Protocol, StreamError};

    #[test]
    fn web_search_citations_arrive_as_sources() {
        let stream = concat!(
            "event: response.output_item.done\n",
            "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"id\":\"ws_1\",\"type\":\"web_search_call\",\"status\":\"completed\",\"action\":{\"type\":\"search\",\"query\":\"weather today\"}}}\n\n",
            "event: response.output_text.delta\n",
            "data: {\"type\":\"response.output_text.delta\",\"output_index\":1,\"content_index\":0,\"delta\":\"Rain today.\"}\n\n",
            "event: response.output_text.annotation.added\n",
            "data: {\"type\":\"response.output_text.annotation.added\",\"output_index\":1,\"content_index\":0,\"annotation_index\":0,\"annotation\":{\"type\":\"url_citation\",\"start_index\":0,\"end_index\":10,\"title\":\"Forecast\",\"url\":\"https://weather.example/today\"}}\n\n",
            "event: response.output_text.annotation.added\n",
            "data: {\"type\":\"response.output_text.annotation.added\",\"annotation\":{\"type\":\"file_citation\",\"file_id\":\"file_1\",\"filename\":\"a.pdf\"}}\n\n",
            "event: response.completed\n",
            "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":5,\"output_tokens\":3}}}\n\n",
        );
        let got = every_split(Protocol::OpenAiResponses, stream).unwrap();
        assert_eq!(got.text, "Rain today.");
        assert_eq!(got.queries, ["weather today"]);
        assert_eq!(
            got.sources,
            vec![(
                "https://weather.example/today".to_string(),
                "Forecast".to_string()
            )]
        );
    }

    const REASONING_TEXT_AND_CALL: &str = concat!(
        "event: response.created\n",
        "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\"}}\n\n",
        "event: response.output_item.added\n",
        "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"rs_1\",\"type\":\"reasoning\",\"summary\":[]}}\n\n",
        "event: response.reasoning_summary_text.delta\n",
        "data: {\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,\"delta\":\"**Plan** look up\"}\n\n",
        "event: response.reasoning_summary_text.delta\n",
        "data: {\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,\"delta\":\" the time.\"}\n\n",
        "event: response.output_item.added\n",
        "data: {\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n",
        "event: response.output_text.delta\n",
        "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":1,\"content_index\":0,\"delta\":\"Let me check \"}\n\n",
        "event: response.output_text.delta\n",
        "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":1,\"content_index\":0,\"delta\":\"the clock.\"}\n\n",
        "event: response.output_item.added\n",
        "data: {\"type\":\"response.output_item.added\",\"output_index\":2,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_time\",\"name\":\"now\",\"arguments\":\"\"}}\n\n",
        "event: response.function_call_arguments.delta\n",
        "data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":2,\"delta\":\"{\\\"tz\\\":\"}\n\n",
        "event: response.function_call_arguments.delta\n",
        "data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":2,\"delta\":\"\\\"Asia/Tokyo\\\"}\"}\n\n",
        "event: response.function_call_arguments.done\n",
        "data: {\"type\":\"response.function_call_arguments.done\",\"item_id\":\"fc_1\",\"output_index\":2,\"arguments\":\"{\\\"tz\\\":\\\"Asia/Tokyo\\\"}\"}\n\n",
        "event: response.completed\n",
        "data: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"usage\":{\"input_tokens\":81,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":45,\"output_tokens_details\":{\"reasoning_tokens\":20},\"total_tokens\":126}}}\n\n",
    );

    #[test]
    fn reasoning_summary_text_function_call_and_usage() {
        let got = every_split(Protocol::OpenAiResponses, REASONING_TEXT_AND_CALL).unwrap();
        assert_eq!(got.reasoning, "**Plan** look up the time.");
        assert_eq!(got.text, "Let me check the clock.");
        assert_eq!(got.calls.len(), 1);
        assert_eq!(got.calls[0].id, "call_time");
        assert_eq!(got.calls[0].name, "now");
        assert_eq!(got.calls[0].arguments.as_ref().unwrap()["tz"], "Asia/Tokyo");
        assert_eq!(got.usage.input_tokens, Some(81));
        assert_eq!(got.usage.output_tokens, Some(45));
        assert_eq!(got.usage.reasoning_tokens, Some(20));
        assert_eq!(got.finish, Some(FinishReason::ToolCalls));
        assert!(got.finish_was_last);
    }

    #[test]
    fn incomplete_and_failed_responses() {
        let incomplete = concat!(
            "event: response.output_text.delta\n",
            "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"Long\"}\n\n",
            "event: response.incomplete\n",
            "data: {\"type\":\"response.incomplete\",\"response\":{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"usage\":{\"input_tokens\":5,\"output_tokens\":16}}}\n\n",
        );
        let got = every_split(Protocol::OpenAiResponses, incomplete).unwrap();
        assert_eq!(got.finish, Some(FinishReason::Length));
        assert_eq!(got.usage.output_tokens, Some(16));

        let failed = concat!(
            "event: response.failed\n",
            "data: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"The model crashed\"}}}\n\n",
        );
        let got = every_split(Protocol::OpenAiResponses, failed).unwrap();
        assert_eq!(got.error.unwrap().code.as_deref(), Some("server_error"));

        let error = "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"Slow down\",\"param\":null}\n\n";
        let got = every_split(Protocol::OpenAiResponses, error).unwrap();
        assert_eq!(got.error.unwrap().message, "Slow down");
    }

    #[test]
    fn without_a_terminal_event_the_reply_is_truncated() {
        let cut = &REASONING_TEXT_AND_CALL[..REASONING_TEXT_AND_CALL
            .find("event: response.completed")
            .unwrap()];
        let (error, partial) = every_split(Protocol::OpenAiResponses, cut).unwrap_err();
        assert_eq!(error, StreamError::Truncated);
        assert_eq!(partial.text, "Let me check the clock.");
    }

    #[test]
    fn refusal_deltas_are_a_refusal_not_answer_text() {
        let stream = concat!(
            "event: response.output_item.added\n",
            "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n",
            "event: response.content_part.added\n",
            "data: {\"type\":\"response.content_part.added\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"part\":{\"type\":\"refusal\",\"refusal\":\"\"}}\n\n",
            "event: response.refusal.delta\n",
            "data: {\"type\":\"response.refusal.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"I can\u{2019}t \"}\n\n",
            "event: response.refusal.delta\n",
            "data: {\"type\":\"response.refusal.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"help with that.\"}\n\n",
            "event: response.refusal.done\n",
            "data: {\"type\":\"response.refusal.done\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"refusal\":\"I can\u{2019}t help with that.\"}\n\n",
            "event: response.completed\n",
            "data: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_2\",\"status\":\"completed\"}}\n\n",
        );
        let got = every_split(Protocol::OpenAiResponses, stream).unwrap();
        assert_eq!(got.refusal, "I can\u{2019}t help with that.");
        assert_eq!(got.text, "");
        assert_eq!(got.finish, Some(FinishReason::Stop));
    }
}
