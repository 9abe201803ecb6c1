//! Anthropic Messages streaming: `message_start` (input usage), content blocks
//! (`text`, `thinking`, `tool_use` with `input_json_delta` fragments), `message_delta`
//! (stop reason, output usage) and `message_stop`, the terminal event. `ping` is
//! ignored; an `error` event ends the reply. Tool calls are numbered in the order their
//! blocks start, whatever the block indexes. A `server_tool_use` block is a tool
//! Anthropic runs itself (its web search): never a call for the client to run; its
//! input is read when the block stops, for the query it searched.

use std::collections::HashMap;

use serde_json::Value;

use crate::provider::sse::SseEvent;
use crate::provider::{
    FinishReason, ProtocolParser, ProviderError, SourcesSeen, StreamError, StreamEvent, Usage,
    count, parse_json,
};

/// The most input kept of one server tool's block, in bytes.
const MAX_SERVER_INPUT_BYTES: usize = 16 * 1024;

/// Parser state for one reply.
#[derive(Debug, Default)]
pub struct Parser {
    tool_of_block: HashMap<u64, u32>,
    /// The input so far of each server tool's block (Anthropic runs those itself).
    server_input_of_block: HashMap<u64, String>,
    next_tool: u32,
    stop: Option<FinishReason>,
    done: bool,
    errored: bool,
    sources: SourcesSeen,
}

fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "tool_use" => FinishReason::ToolCalls,
        "refusal" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_string()),
    }
}

fn usage(value: &Value) -> Usage {
    Usage {
        input_tokens: count(&value["input_tokens"]).map(|input| {
            input
                + count(&value["cache_read_input_tokens"]).unwrap_or(0)
                + count(&value["cache_creation_input_tokens"]).unwrap_or(0)
        }),
        output_tokens: count(&value["output_tokens"]),
        reasoning_tokens: None,
        cached_input_tokens: count(&value["cache_read_input_tokens"]),
        cache_write_input_tokens: count(&value["cache_creation_input_tokens"]),
    }
}

impl ProtocolParser for Parser {
    fn on_event(&mut self, event: &SseEvent) -> Result<Vec<StreamEvent>, StreamError> {
        if self.done || self.errored || event.data.trim().is_empty() {
            return Ok(Vec::new());
        }
        let value = parse_json(&event.data)?;
        let kind = value["type"].as_str().unwrap_or(event.event.as_str());
        let mut out = Vec::new();
        match kind {
            "message_start" => {
                let usage = usage(&value["message"]["usage"]);
                if !usage.is_empty() {
                    out.push(StreamEvent::Usage { usage });
                }
            }
            "content_block_start" => {
                let block = &value["content_block"];
                match block["type"].as_str() {
                    // Anthropic's own tool (its web search): not the client's to run.
                    Some("server_tool_use") => {
                        let index = value["index"].as_u64().unwrap_or(u64::MAX);
                        self.server_input_of_block.insert(index, String::new());
                    }
                    Some("tool_use") => {
                        let index = value["index"].as_u64().unwrap_or(u64::MAX);
                        let tool = self.next_tool;
                        self.next_tool += 1;
                        self.tool_of_block.insert(index, tool);
                        out.push(StreamEvent::ToolCall {
                            index: tool,
                            id: block["id"].as_str().map(str::to_string),
                            name: block["name"].as_str().map(str::to_string),
                            arguments: String::new(),
                            signature: None,
                        });
                    }
                    // The web search tool's results: the pages the answer may cite.
                    Some("web_search_tool_result") => {
                        for result in block["content"].as_array().into_iter().flatten() {
                            self.sources
                                .push(&mut out, &result["url"], &result["title"]);
                        }
                    }
                    Some("text") => push_text(&mut out, block["text"].as_str(), false),
                    Some("thinking") => push_text(&mut out, block["thinking"].as_str(), true),
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = &value["delta"];
                match delta["type"].as_str() {
                    Some("text_delta") => push_text(&mut out, delta["text"].as_str(), false),
                    Some("thinking_delta") => push_text(&mut out, delta["thinking"].as_str(), true),
                    Some("citations_delta") => {
                        let citation = &delta["citation"];
                        self.sources
                            .push(&mut out, &citation["url"], &citation["title"]);
                    }
                    Some("input_json_delta") => {
                        let block = value["index"].as_u64().unwrap_or(u64::MAX);
                        if let Some(input) = self.server_input_of_block.get_mut(&block) {
                            // Bounded: a query, not a document.
                            if input.len() < MAX_SERVER_INPUT_BYTES {
                                input.push_str(delta["partial_json"].as_str().unwrap_or_default());
                            }
                            return Ok(out);
                        }
                        let Some(&tool) = self.tool_of_block.get(&block) else {
                            return Err(StreamError::malformed(
                                "arguments for a block that is not a tool call",
                                &event.data,
                            ));
                        };
                        out.push(StreamEvent::ToolCall {
                            index: tool,
                            id: None,
                            name: None,
                            arguments: delta["partial_json"]
                                .as_str()
                                .unwrap_or_default()
                                .to_string(),
                            signature: None,
                        });
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let block = value["index"].as_u64().unwrap_or(u64::MAX);
                if let Some(input) = self.server_input_of_block.remove(&block)
                    && let Ok(input) = serde_json::from_str::<Value>(&input)
                    && let Some(query) = input["query"].as_str()
                {
                    out.push(StreamEvent::SearchQuery {
                        query: query.to_string(),
                    });
                }
            }
            "message_delta" => {
                if let Some(reason) = value["delta"]["stop_reason"].as_str() {
                    self.stop = Some(stop_reason(reason));
                }
                let usage = usage(&value["usage"]);
                if !usage.is_empty() {
                    out.push(StreamEvent::Usage { usage });
                }
            }
            "message_stop" => {
                self.done = true;
                out.push(StreamEvent::Finish {
                    reason: self.stop.take().unwrap_or(FinishReason::Stop),
                });
            }
            "error" => {
                self.errored = true;
                out.push(StreamEvent::Error {
                    error: ProviderError {
                        code: value["error"]["type"].as_str().map(str::to_string),
                        message: value["error"]["message"]
                            .as_str()
                            .unwrap_or("the provider reported an error")
                            .to_string(),
                    },
                });
            }
            _ => {}
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, StreamError> {
        if self.done || self.errored {
            Ok(Vec::new())
        } else {
            Err(StreamError::Truncated)
        }
    }
}

fn push_text(out: &mut Vec<StreamEvent>, text: Option<&str>, reasoning: bool) {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return;
    };
    let delta = text.to_string();
    out.push(if reasoning {
        StreamEvent::Reasoning { delta }
    } else {
        StreamEvent::Text { delta }
    });
}

#[cfg(test)]
mod tests {
    use crate::provider::replay::every_split;
    use crate::provider::{FinishReason, Protocol, StreamError};

    #[test]
    fn web_search_results_and_citations_arrive_as_sources() {
        let stream = concat!(
            "event: message_start\n",
            "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n",
            "event: content_block_start\n",
            "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{}}}\n\n",
            "event: content_block_delta\n",
            "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"query\\\": \\\"tides\"}}\n\n",
            "event: content_block_delta\n",
            "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\" brest\\\"}\"}}\n\n",
            "event: content_block_stop\n",
            "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
            "event: content_block_start\n",
            "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"web_search_tool_result\",\"tool_use_id\":\"srvtoolu_1\",\"content\":[{\"type\":\"web_search_result\",\"title\":\"Tides\",\"url\":\"https://sea.example/tides\",\"encrypted_content\":\"x\"},{\"type\":\"web_search_result\",\"title\":\"Moon\",\"url\":\"https://moon.example/\",\"encrypted_content\":\"y\"}]}}\n\n",
            "event: content_block_stop\n",
            "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
            "event: content_block_start\n",
            "data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"text\",\"text\":\"\",\"citations\":[]}}\n\n",
            "event: content_block_delta\n",
            "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"citations_delta\",\"citation\":{\"type\":\"web_search_result_location\",\"cited_text\":\"High tide at noon\",\"url\":\"https://sea.example/tides\",\"title\":\"Tides\",\"encrypted_index\":\"z\"}}}\n\n",
            "event: content_block_delta\n",
            "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"text_delta\",\"text\":\"High tide is at noon.\"}}\n\n",
            "event: message_delta\n",
            "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n\n",
            "event: message_stop\n",
            "data: {\"type\":\"message_stop\"}\n\n",
        );
        let got = every_split(Protocol::Anthropic, stream).unwrap();
        assert_eq!(got.text, "High tide is at noon.");
        // Anthropic ran its search itself: nothing for the client to run, the query read.
        assert!(got.calls.is_empty(), "{:?}", got.calls);
        assert_eq!(got.queries, ["tides brest"]);
        assert_eq!(got.finish, Some(FinishReason::Stop));
        assert_eq!(
            got.sources,
            vec![
                ("https://sea.example/tides".to_string(), "Tides".to_string()),
                ("https://moon.example/".to_string(), "Moon".to_string()),
            ]
        );
    }

    const THINKING_AND_TOOLS: &str = concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"usage\":{\"input_tokens\":472,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":30,\"output_tokens\":2}}}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
        "event: ping\n",
        "data: {\"type\": \"ping\"}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Two lookups \u{2014} \"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"in parallel.\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Looking up both.\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"weather\",\"input\":{}}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"Par\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"is\\\"}\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":2}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_02\",\"name\":\"weather\",\"input\":{}}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"Oslo\\\"}\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":3}\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}\n\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"}\n\n",
    );

    #[test]
    fn thinking_text_two_calls_of_one_tool_and_usage() {
        let got = every_split(Protocol::Anthropic, THINKING_AND_TOOLS).unwrap();
        assert_eq!(got.reasoning, "Two lookups \u{2014} in parallel.");
        assert_eq!(got.text, "Looking up both.");
        assert_eq!(got.calls.len(), 2);
        assert_eq!(
            (got.calls[0].index, got.calls[0].id.as_str()),
            (0, "toolu_01")
        );
        assert_eq!(got.calls[0].arguments.as_ref().unwrap()["city"], "Paris");
        assert_eq!(
            (got.calls[1].index, got.calls[1].id.as_str()),
            (1, "toolu_02")
        );
        assert_eq!(got.calls[1].arguments.as_ref().unwrap()["city"], "Oslo");
        // Input is every prompt token: plain, read from the cache and written to it.
        assert_eq!(got.usage.input_tokens, Some(602));
        assert_eq!(got.usage.cached_input_tokens, Some(100));
        assert_eq!(got.usage.cache_write_input_tokens, Some(30));
        assert_eq!(got.usage.output_tokens, Some(89));
        assert_eq!(got.finish, Some(FinishReason::ToolCalls));
        assert!(got.finish_was_last);
    }

    #[test]
    fn an_overloaded_error_mid_stream_keeps_the_partial_text() {
        let stream = concat!(
            "event: content_block_delta\n",
            "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hal\"}}\n\n",
            "event: error\n",
            "data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
        );
        let got = every_split(Protocol::Anthropic, stream).unwrap();
        assert_eq!(got.text, "Hal");
        assert_eq!(got.error.unwrap().code.as_deref(), Some("overloaded_error"));
    }

    #[test]
    fn without_message_stop_the_reply_is_truncated() {
        let cut = &THINKING_AND_TOOLS[..THINKING_AND_TOOLS.find("event: message_stop").unwrap()];
        let (error, partial) = every_split(Protocol::Anthropic, cut).unwrap_err();
        assert_eq!(error, StreamError::Truncated);
        assert_eq!(partial.text, "Looking up both.");
        assert_eq!(partial.calls.len(), 2, "what arrived is kept");
    }

    #[test]
    fn arguments_for_an_unknown_block_are_malformed() {
        let stream = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":5,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n";
        assert!(matches!(
            every_split(Protocol::Anthropic, stream),
            Err((StreamError::Malformed { .. }, _))
        ));
    }
}
