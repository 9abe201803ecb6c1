//! The tool calls of a reply as stored and as a model sees them again. A reply that used
//! tools is a list of [`ToolRound`]s (the text the model wrote in that round and the
//! calls it asked for, each with its status and result) followed by its final text.
//!
//! - [`ToolRound::messages`] turns the rounds back into the assistant and tool messages
//!   of the next request, with each result bounded ([`MAX_RESULT_CHARS_IN_CONTEXT`]; the
//!   stored result stays whole) and long past arguments summarised, always as valid JSON.
//! - A call still pending, waiting for the user or running when the page closed reopens
//!   as denied or failed (fail closed), never as something that might still run. A
//!   question the model asked the user (`crate::ask_user`) reopens still waiting: it
//!   runs nothing, and only the user's answer settles it.
//! - [`redact_arguments`] is how arguments are shown to the user: credential-like fields
//!   masked, pretty-printed.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::plugin::Risk;
use crate::plugin::approval::DENIED_RESULT;
use crate::plugin::tool_loop::skipped_result;
use crate::provider::request::{Message, PastToolCall};

/// The most characters of one result a model is given back; the stored result is whole.
pub const MAX_RESULT_CHARS_IN_CONTEXT: usize = 24_000;
/// Arguments of past calls longer than this are summarised in later requests.
pub const MAX_PAST_ARGUMENT_CHARS: usize = 2_000;
/// The most characters of arguments shown on a call's card.
pub const MAX_SHOWN_ARGUMENT_CHARS: usize = 20_000;

/// Where a call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolCallStatus {
    /// Not started yet.
    #[default]
    Pending,
    /// Waiting for the user's Allow or Deny.
    AwaitingApproval,
    /// An `ask_user` call waiting for the user's answer (`crate::ask_user`); it stays
    /// open across reloads, and the reply goes on once it is answered or declined.
    AwaitingAnswer,
    /// Sent to the edge.
    Running,
    /// It ran; `result` holds what it returned (which may be the tool's own error).
    Done,
    /// It could not run or failed on the way; `result` says why.
    Failed,
    /// The user denied it (or the card went away while it waited).
    Denied,
    /// Not run: the reply reached its tool limit.
    Skipped,
}

impl ToolCallStatus {
    /// Whether the call has its final state.
    pub fn is_settled(self) -> bool {
        matches!(
            self,
            Self::Done | Self::Failed | Self::Denied | Self::Skipped
        )
    }
}

/// One tool call of a reply.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolCallRecord {
    /// The provider's call id.
    pub id: String,
    /// The name the model called.
    pub name: String,
    /// The plugin it resolved to, if any.
    pub plugin_id: Option<String>,
    /// The plugin's title, for the card.
    pub plugin_title: Option<String>,
    /// The function's risk.
    pub risk: Option<Risk>,
    /// The fingerprint the call was made (and approved) with.
    pub fingerprint: Option<String>,
    /// The arguments as the model sent them.
    pub arguments: String,
    /// Where it stands.
    pub status: ToolCallStatus,
    /// What the model is told: the tool's text, or why it did not run.
    pub result: String,
    /// Whether the result is an error (the tool's own, or a refusal).
    pub is_error: bool,
    /// Whether the edge cut the result.
    pub truncated: bool,
    /// Images the tool returned that are not kept (counted).
    pub images: u32,
    /// Images kept in the browser's private file system (their file names), shown on
    /// the call's card.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// How long the call took.
    pub duration_ms: Option<u64>,
    /// The tool's structured content as JSON text (empty: none), kept only for a tool
    /// whose MCP App page shows it (bounded: `plugin::mcp_app::kept_structured`); never
    /// sent to the model. Text, not a JSON value: a value's own reader and writer would
    /// join the first load, where records are read.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub structured: String,
    /// The provider's opaque token for the call (Gemini's `thoughtSignature`), sent
    /// back with it in the following requests (empty: none).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub signature: String,
    /// An MCP server's questions to the user on this call
    /// (`crate::plugin::elicitation::Pending` as JSON text; empty: none). Text for the
    /// same reason as `structured`, and read only where the questions are shown or sent.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub elicitation: String,
    /// The user's replies to them until the call runs again (JSON text; empty: not
    /// answered).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub elicitation_replies: String,
}

impl ToolCallRecord {
    /// Settles the call with `result`.
    pub fn settle(&mut self, status: ToolCallStatus, result: impl Into<String>, is_error: bool) {
        self.status = status;
        self.result = result.into();
        self.is_error = is_error;
    }

    /// Settles the call as denied by the user.
    pub fn deny(&mut self) {
        self.settle(ToolCallStatus::Denied, DENIED_RESULT, true);
    }

    /// Settles the call as skipped at the reply's limit.
    pub fn skip(&mut self) {
        self.settle(ToolCallStatus::Skipped, skipped_result(), true);
    }

    /// What the model reads for this call.
    pub fn model_text(&self) -> String {
        let text = match self.status {
            ToolCallStatus::Done if self.is_error => format!("[Tool Error] {}", self.result),
            ToolCallStatus::Done => self.result.clone(),
            ToolCallStatus::Failed => format!("[Tool Error] {}", self.result),
            ToolCallStatus::Denied => DENIED_RESULT.to_string(),
            ToolCallStatus::Skipped => skipped_result(),
            ToolCallStatus::AwaitingAnswer => {
                "[Tool Error] The user has not answered these questions.".to_string()
            }
            ToolCallStatus::Pending
            | ToolCallStatus::AwaitingApproval
            | ToolCallStatus::Running => {
                "[Tool Error] The call did not finish (the page closed or the reply stopped)."
                    .to_string()
            }
        };
        bound_result(&self.name, &self.arguments, &text)
    }

    /// The call as it reopens after a reload: anything unsettled is settled, fail closed.
    pub fn reopened(mut self) -> Self {
        match self.status {
            // Answered, but the page closed before the server had the answer: the
            // question opens again rather than being sent or lost.
            ToolCallStatus::Pending if !self.elicitation.is_empty() => {
                self.elicitation_replies.clear();
                self.status = ToolCallStatus::AwaitingAnswer;
            }
            ToolCallStatus::Pending | ToolCallStatus::AwaitingApproval => self.deny(),
            // Nothing runs: the question stays for the user to answer.
            ToolCallStatus::AwaitingAnswer => {}
            ToolCallStatus::Running => self.settle(
                ToolCallStatus::Failed,
                "The page closed while the call ran; whether it took effect is unknown.",
                true,
            ),
            _ => {}
        }
        self
    }
}

/// One round of a reply: what the model wrote, then the calls it asked for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolRound {
    /// The text the model wrote before calling.
    pub text: String,
    /// The reasoning it showed in that round.
    pub reasoning: String,
    /// Its calls, in the order it asked for them.
    pub calls: Vec<ToolCallRecord>,
}

/// The tools `rounds` called, each once with how many times, in the order first called
/// (a reply's receipt).
pub fn tools_used(rounds: &[ToolRound]) -> Vec<(String, u32)> {
    let mut used: Vec<(String, u32)> = Vec::new();
    for call in rounds.iter().flat_map(|round| &round.calls) {
        match used.iter_mut().find(|(name, _)| *name == call.name) {
            Some((_, count)) => *count += 1,
            None => used.push((call.name.clone(), 1)),
        }
    }
    used
}

impl ToolRound {
    /// The assistant message and the tool messages of this round, as the next request
    /// sends them.
    pub fn messages(&self) -> Vec<Message> {
        let mut out = vec![Message::Assistant {
            text: self.text.clone(),
            tool_calls: self
                .calls
                .iter()
                .map(|call| PastToolCall {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: past_arguments(&call.arguments),
                    signature: call.signature.clone(),
                })
                .collect(),
            images: Vec::new(),
        }];
        out.extend(self.calls.iter().map(|call| Message::Tool {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: call.model_text(),
        }));
        out
    }

    /// The round reopened after a reload.
    pub fn reopened(mut self) -> Self {
        self.calls = self
            .calls
            .into_iter()
            .map(ToolCallRecord::reopened)
            .collect();
        self
    }

    /// Characters this round adds to a request, for the context planner.
    pub fn context_chars(&self) -> usize {
        self.text.len()
            + self
                .calls
                .iter()
                .map(|c| c.name.len() + past_arguments(&c.arguments).len() + c.model_text().len())
                .sum::<usize>()
    }
}

/// Every message of `rounds`, in order.
pub fn messages(rounds: &[ToolRound]) -> Vec<Message> {
    rounds.iter().flat_map(ToolRound::messages).collect()
}

/// Arguments as a later request carries them: valid JSON always (providers parse them),
/// summarised when long.
fn past_arguments(raw: &str) -> String {
    let valid = serde_json::from_str::<Value>(raw).is_ok_and(|v| v.is_object());
    if valid && raw.len() <= MAX_PAST_ARGUMENT_CHARS {
        return raw.to_string();
    }
    let summary: String = raw.chars().take(260).collect();
    serde_json::json!({ "summary": summary, "truncated": true }).to_string()
}

/// `text` cut to [`MAX_RESULT_CHARS_IN_CONTEXT`] with a header saying so.
fn bound_result(name: &str, arguments: &str, text: &str) -> String {
    if text.chars().count() <= MAX_RESULT_CHARS_IN_CONTEXT {
        return text.to_string();
    }
    let arguments: String = arguments.chars().take(300).collect();
    let header = format!(
        "[Tool result truncated to context budget]\nTool: {name}\nArguments: {arguments}\n\n"
    );
    let keep = MAX_RESULT_CHARS_IN_CONTEXT.saturating_sub(header.chars().count());
    let mut out = header;
    out.extend(text.chars().take(keep));
    out
}

/// Whether a field name looks like it holds a credential.
fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace(['-', '_'], "");
    [
        "password",
        "passwd",
        "secret",
        "token",
        "apikey",
        "authorization",
        "cookie",
        "credential",
        "privatekey",
        "sessionid",
    ]
    .iter()
    .any(|needle| name.contains(needle))
}

fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if is_secret_name(key) && !value.is_null() {
                    *value = Value::String("••••••".into());
                } else {
                    redact(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

/// Arguments as a call's card shows them: pretty JSON with credential-like fields masked
/// (or the raw text, bounded, when it is not JSON).
pub fn redact_arguments(raw: &str) -> String {
    let shown = match serde_json::from_str::<Value>(raw) {
        Ok(mut value) => {
            redact(&mut value);
            serde_json::to_string_pretty(&value).unwrap_or_default()
        }
        Err(_) => raw.to_string(),
    };
    if shown.chars().count() <= MAX_SHOWN_ARGUMENT_CHARS {
        shown
    } else {
        let mut cut: String = shown.chars().take(MAX_SHOWN_ARGUMENT_CHARS).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, status: ToolCallStatus, result: &str) -> ToolCallRecord {
        ToolCallRecord {
            id: id.into(),
            name: "get_item".into(),
            arguments: r#"{"id":7}"#.into(),
            status,
            result: result.into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_tools_used_are_counted_once_each_in_the_order_first_called() {
        let named = |name: &str| ToolCallRecord {
            name: name.into(),
            ..call("x", ToolCallStatus::Done, "")
        };
        let rounds = [
            ToolRound {
                text: String::new(),
                reasoning: String::new(),
                calls: vec![named("web_search"), named("read_web_page")],
            },
            ToolRound {
                text: String::new(),
                reasoning: String::new(),
                calls: vec![named("web_search")],
            },
        ];
        assert_eq!(
            tools_used(&rounds),
            [
                ("web_search".to_string(), 2),
                ("read_web_page".to_string(), 1)
            ]
        );
        assert!(tools_used(&[]).is_empty());
    }

    #[test]
    fn a_round_becomes_the_assistant_call_then_one_result_per_call_in_order() {
        let round = ToolRound {
            text: "Looking".into(),
            reasoning: String::new(),
            calls: vec![
                call("a", ToolCallStatus::Done, "seven"),
                call("b", ToolCallStatus::Denied, ""),
                call("c", ToolCallStatus::Skipped, ""),
                call("d", ToolCallStatus::Failed, "timed out"),
            ],
        };
        let messages = round.messages();
        assert_eq!(messages.len(), 5);
        let Message::Assistant {
            text, tool_calls, ..
        } = &messages[0]
        else {
            panic!("{messages:?}")
        };
        assert_eq!(text, "Looking");
        let ids: Vec<&str> = tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c", "d"]);
        let contents: Vec<String> = messages[1..]
            .iter()
            .map(|m| match m {
                Message::Tool { content, .. } => content.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(contents[0], "seven");
        assert_eq!(contents[1], DENIED_RESULT);
        assert!(contents[2].contains("limit"), "{}", contents[2]);
        assert_eq!(contents[3], "[Tool Error] timed out");
    }

    #[test]
    fn unsettled_calls_reopen_denied_or_failed_never_runnable() {
        let round = ToolRound {
            calls: vec![
                call("a", ToolCallStatus::AwaitingApproval, ""),
                call("b", ToolCallStatus::Pending, ""),
                call("c", ToolCallStatus::Running, ""),
                call("d", ToolCallStatus::Done, "ok"),
            ],
            ..Default::default()
        }
        .reopened();
        let statuses: Vec<_> = round.calls.iter().map(|c| c.status).collect();
        assert_eq!(
            statuses,
            [
                ToolCallStatus::Denied,
                ToolCallStatus::Denied,
                ToolCallStatus::Failed,
                ToolCallStatus::Done
            ]
        );
        assert!(round.calls.iter().all(|c| c.status.is_settled()));
        assert_eq!(round.calls[0].model_text(), DENIED_RESULT);
    }

    #[test]
    fn an_mcp_question_answered_but_not_yet_sent_reopens_unanswered() {
        use crate::plugin::elicitation::{Pending, answer::Reply, read_input_required};
        let asked = read_input_required(&serde_json::json!({"inputRequests": {"k": {
            "method": "elicitation/create",
            "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}
        }}}))
        .expect("readable");
        let mut answered = call("q", ToolCallStatus::AwaitingAnswer, "");
        crate::plugin::elicitation::ask(&mut answered, asked);
        crate::plugin::elicitation::take_replies(&mut answered, vec![Reply::Decline])
            .expect("taken");
        assert_eq!(answered.status, ToolCallStatus::Pending);
        let reopened = answered.clone().reopened();
        assert_eq!(reopened.status, ToolCallStatus::AwaitingAnswer);
        assert_eq!(
            reopened.elicitation, answered.elicitation,
            "the questions are kept"
        );
        assert!(
            reopened.elicitation_replies.is_empty(),
            "the reply is asked again, never sent blind"
        );
        let pending = Pending::decode(&reopened.elicitation).expect("kept");
        assert_eq!(
            crate::plugin::elicitation::waiting(&reopened),
            Some(pending)
        );
        // Still waiting: it stays open as it is.
        assert_eq!(reopened.clone().reopened(), reopened);
    }

    #[test]
    fn long_results_are_bounded_for_the_model_with_a_header() {
        let long = "x".repeat(MAX_RESULT_CHARS_IN_CONTEXT * 3);
        let record = call("a", ToolCallStatus::Done, &long);
        let text = record.model_text();
        assert!(text.starts_with("[Tool result truncated to context budget]\nTool: get_item"));
        assert_eq!(text.chars().count(), MAX_RESULT_CHARS_IN_CONTEXT);
        assert_eq!(
            record.result.len(),
            long.len(),
            "the stored result stays whole"
        );
    }

    #[test]
    fn past_arguments_are_always_valid_json_objects() {
        for raw in [
            "",
            "{not json",
            "[1,2]",
            &format!(r#"{{"q":"{}"}}"#, "y".repeat(5000)),
        ] {
            let round = ToolRound {
                calls: vec![ToolCallRecord {
                    arguments: raw.to_string(),
                    ..call("a", ToolCallStatus::Failed, "bad")
                }],
                ..Default::default()
            };
            let Message::Assistant { tool_calls, .. } = &round.messages()[0] else {
                panic!()
            };
            let parsed: Value = serde_json::from_str(&tool_calls[0].arguments).unwrap();
            assert!(parsed.is_object(), "{raw:?} -> {parsed}");
            assert!(tool_calls[0].arguments.len() <= MAX_PAST_ARGUMENT_CHARS);
        }
        assert_eq!(past_arguments(r#"{"id":7}"#), r#"{"id":7}"#);
    }

    #[test]
    fn a_calls_signature_is_stored_only_when_given_and_sent_back_with_it() {
        let signed = ToolCallRecord {
            signature: "c2ln".into(),
            ..call("a", ToolCallStatus::Done, "ok")
        };
        let unsigned = call("b", ToolCallStatus::Done, "ok");
        let stored = serde_json::to_value(&signed).unwrap();
        assert_eq!(stored["signature"], "c2ln");
        assert!(
            serde_json::to_value(&unsigned)
                .unwrap()
                .get("signature")
                .is_none()
        );
        // A record stored before signatures were kept reads as unsigned.
        let mut older = serde_json::to_value(&unsigned).unwrap();
        older.as_object_mut().unwrap().remove("signature");
        let read: ToolCallRecord = serde_json::from_value(older).unwrap();
        assert_eq!(read, unsigned);
        let round = ToolRound {
            calls: vec![signed, unsigned],
            ..Default::default()
        };
        let Message::Assistant { tool_calls, .. } = &round.messages()[0] else {
            panic!()
        };
        let signatures: Vec<&str> = tool_calls.iter().map(|c| c.signature.as_str()).collect();
        assert_eq!(signatures, ["c2ln", ""]);
    }

    #[test]
    fn shown_arguments_mask_credentials_at_any_depth() {
        let raw = json!({
            "query": "cats",
            "apiKey": "sk-live-123",
            "nested": {"Authorization": "Bearer abc", "items": [{"password": "hunter2"}]},
            "access_token": "t",
            "tokens": null,
        })
        .to_string();
        let shown = redact_arguments(&raw);
        for secret in ["sk-live-123", "Bearer abc", "hunter2", "\"t\""] {
            assert!(!shown.contains(secret), "{secret} leaked: {shown}");
        }
        assert!(shown.contains("cats"));
        assert!(shown.contains('\n'), "pretty-printed");
        assert_eq!(redact_arguments("not json"), "not json");
    }

    #[test]
    fn records_read_back_from_partial_json() {
        let record: ToolCallRecord =
            serde_json::from_value(json!({"id": "a", "name": "n", "status": "running"})).unwrap();
        assert_eq!(record.status, ToolCallStatus::Running);
        assert_eq!(record.arguments, "");
    }
}
