//! MCP elicitation: an MCP server's questions to the user in the middle of a tool call.
//!
//! Under the stateless 2026-07-28 revision a server that needs the user answers
//! `tools/call` with an `input_required` result: `inputRequests` (each an
//! `elicitation/create` request, a form or a URL to open) and an opaque `requestState`.
//! The client asks the user, then calls the tool again with `inputResponses` (one
//! `{action, content?}` per request) and the state echoed as it came. Nothing waits on
//! the edge: the question travels to the browser, is stored with the call (so a reload
//! reopens it, fail closed), and the answer comes back on the next call.
//!
//! - [`read_input_required`]: the edge reads a server's `input_required` result into
//!   [`InputRequired`], bounded and checked (only primitive form fields, only `http(s)`
//!   URLs); anything else (sampling, roots, a nested schema) is a typed [`ElicitError`].
//! - [`answer`]: the user's replies checked against the form and made into
//!   `inputResponses`.
//! - [`Pending`]: what a call keeps while it waits (stored as JSON text on the call).
//!
//! Everything a server says here is untrusted: its messages and titles are shown as
//! plain text, its URL only as a link the user chooses to open (its host shown first).

pub mod answer;
mod schema;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chat::tools::{ToolCallRecord, ToolCallStatus};

pub use schema::{Choice, Field, FieldKind, TextFormat};

/// The most requests one `input_required` result may carry.
pub const MAX_REQUESTS: usize = 4;
/// The most fields one form may ask.
pub const MAX_FIELDS: usize = 24;
/// The most options of one choice.
pub const MAX_OPTIONS: usize = 32;
/// The longest message, title or description kept (characters); longer ones are cut.
pub const MAX_MESSAGE_CHARS: usize = 2_000;
/// The longest request key, field name or elicitation id (bytes).
pub const MAX_KEY_BYTES: usize = 200;
/// The longest URL a server may send the user to (bytes).
pub const MAX_URL_BYTES: usize = 2_048;
/// The largest `requestState` carried back and forth (bytes).
pub const MAX_STATE_BYTES: usize = 64 * 1024;
/// The most times one call may come back asking (then it fails: a server that asks
/// forever never keeps a reply waiting forever).
pub const MAX_ROUNDS: u32 = 5;

/// What a server needs before the call can finish.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequired {
    /// The questions, in the server's key order.
    pub requests: Vec<Request>,
    /// The state to send back unchanged with the answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// One question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// The server's key for it (the answer goes back under it).
    pub key: String,
    /// What the server says it needs and why (plain text).
    pub message: String,
    /// A form, or a page to open.
    pub ask: Ask,
}

/// How a question is answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "mode"
)]
pub enum Ask {
    /// Fields to fill in.
    Form {
        /// The fields, in name order (the MCP client library keeps the schema's
        /// properties sorted).
        fields: Vec<Field>,
    },
    /// A page the user opens themselves (a sign-in, a payment): accepting means
    /// consenting to open it; what happens there never passes through Hearth.
    Url {
        /// The page (an absolute `http(s)` URL).
        url: String,
        /// The server's id for this interaction (2025-11-25; the 2026-07-28 revision
        /// has none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        elicitation_id: Option<String>,
    },
}

/// Why a server's `input_required` result cannot be asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElicitError {
    /// The result is not an object with `inputRequests` or `requestState`.
    #[error("the server's request for input is malformed: {0}")]
    Malformed(String),
    /// A request Hearth does not offer (sampling, roots, or an unknown method).
    #[error("the server asked for {0}, which Hearth does not offer")]
    Unsupported(String),
    /// More requests than [`MAX_REQUESTS`].
    #[error("the server asked {0} questions at once; at most {MAX_REQUESTS} are shown")]
    TooMany(usize),
    /// A form Hearth cannot show (nested, too many fields, an unknown type).
    #[error("the server's form cannot be shown: {0}")]
    Schema(String),
    /// A URL that is not an absolute `http(s)` address.
    #[error("the server's page address is not a web address")]
    Url,
    /// The state is larger than [`MAX_STATE_BYTES`].
    #[error("the server's request state is too large")]
    StateTooLarge,
}

/// Cuts `text` to [`MAX_MESSAGE_CHARS`] characters.
pub(crate) fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

fn key_of(text: &str, what: &str) -> Result<String, ElicitError> {
    if text.is_empty() || text.len() > MAX_KEY_BYTES {
        return Err(ElicitError::Malformed(format!(
            "{what} must be 1 to {MAX_KEY_BYTES} bytes"
        )));
    }
    Ok(text.to_string())
}

/// Reads a server's `input_required` result (the whole `result` object).
pub fn read_input_required(result: &Value) -> Result<InputRequired, ElicitError> {
    let Some(object) = result.as_object() else {
        return Err(ElicitError::Malformed("not an object".into()));
    };
    let state = match object.get("requestState") {
        None | Some(Value::Null) => None,
        Some(Value::String(state)) if state.len() > MAX_STATE_BYTES => {
            return Err(ElicitError::StateTooLarge);
        }
        Some(Value::String(state)) => Some(state.clone()),
        Some(_) => return Err(ElicitError::Malformed("requestState is not text".into())),
    };
    let requests = match object.get("inputRequests") {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => {
            return Err(ElicitError::Malformed(
                "inputRequests is not an object".into(),
            ));
        }
    };
    if requests.is_empty() && state.is_none() {
        return Err(ElicitError::Malformed(
            "neither inputRequests nor requestState".into(),
        ));
    }
    if requests.len() > MAX_REQUESTS {
        return Err(ElicitError::TooMany(requests.len()));
    }
    let requests = requests
        .iter()
        .map(|(key, request)| read_request(key, request))
        .collect::<Result<_, _>>()?;
    Ok(InputRequired { requests, state })
}

fn read_request(key: &str, request: &Value) -> Result<Request, ElicitError> {
    let key = key_of(key, "a request's key")?;
    let method = request["method"].as_str().unwrap_or_default();
    match method {
        "elicitation/create" => {}
        "sampling/createMessage" => return Err(ElicitError::Unsupported("sampling".into())),
        "roots/list" => return Err(ElicitError::Unsupported("its roots".into())),
        other => {
            let shown: String = other.chars().take(60).collect();
            return Err(ElicitError::Unsupported(format!("\"{shown}\"")));
        }
    }
    let params = &request["params"];
    let message = bounded(params["message"].as_str().unwrap_or_default());
    let ask = match params["mode"].as_str().unwrap_or("form") {
        "form" => Ask::Form {
            fields: schema::read_form(&params["requestedSchema"])?,
        },
        "url" => {
            let url = params["url"].as_str().unwrap_or_default();
            let web = crate::safe_url::web_host(url).is_some()
                && crate::safe_url::is_safe_link_href(url)
                && url.len() <= MAX_URL_BYTES
                && !url.chars().any(char::is_control);
            if !web {
                return Err(ElicitError::Url);
            }
            Ask::Url {
                url: url.to_string(),
                elicitation_id: match params["elicitationId"].as_str() {
                    None | Some("") => None,
                    Some(id) => Some(key_of(id, "elicitationId")?),
                },
            }
        }
        other => {
            let shown: String = other.chars().take(40).collect();
            return Err(ElicitError::Unsupported(format!("the \"{shown}\" mode")));
        }
    };
    Ok(Request { key, message, ask })
}

/// What a call keeps while its server waits for the user: stored on the call
/// (`ToolCallRecord::elicitation`) as JSON text; the replies, once given, beside it
/// (`ToolCallRecord::elicitation_replies`), so neither is read where the call is only
/// listed or reopened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pending {
    /// The questions.
    pub asked: InputRequired,
    /// How many times this call came back asking.
    pub rounds: u32,
}

impl Pending {
    /// The text stored on the call.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The pending state stored as `text` (`None`: empty or unreadable).
    pub fn decode(text: &str) -> Option<Self> {
        if text.is_empty() {
            return None;
        }
        serde_json::from_str(text).ok()
    }

    /// The `inputResponses` and `requestState` to call the tool again with, given the
    /// user's `replies` (`None`: they do not answer these questions).
    pub fn retry(&self, replies: &[answer::Reply]) -> Option<(Value, Option<String>)> {
        let responses = answer::responses(&self.asked, replies).ok()?;
        Some((responses, self.asked.state.clone()))
    }
}

/// Whether `call` waits for the user's answer to its server's questions (read without
/// decoding them: for lists and cards that only need to know).
pub fn is_waiting(call: &ToolCallRecord) -> bool {
    call.status == ToolCallStatus::AwaitingAnswer
        && !call.elicitation.is_empty()
        && call.elicitation_replies.is_empty()
}

/// The questions `call` waits on for the user (`None`: it waits on no server, or they
/// cannot be read).
pub fn waiting(call: &ToolCallRecord) -> Option<Pending> {
    if !is_waiting(call) {
        return None;
    }
    Pending::decode(&call.elicitation)
}

/// A server's questions on `call`: it waits for the user (stored, across reloads), or,
/// past [`MAX_ROUNDS`] of asking, fails.
pub fn ask(call: &mut ToolCallRecord, asked: InputRequired) {
    let rounds = Pending::decode(&call.elicitation).map_or(0, |p| p.rounds) + 1;
    if rounds > MAX_ROUNDS {
        call.elicitation.clear();
        call.settle(
            ToolCallStatus::Failed,
            format!(
                "The tool's server asked the user {MAX_ROUNDS} times and still did not finish."
            ),
            true,
        );
        return;
    }
    call.elicitation = Pending { asked, rounds }.encode();
    call.elicitation_replies.clear();
    call.status = ToolCallStatus::AwaitingAnswer;
}

/// Takes the user's `replies` to the questions `call` waits on: checked first (nothing
/// changes when refused), then kept on the call, which is ready to run again.
pub fn take_replies(
    call: &mut ToolCallRecord,
    replies: Vec<answer::Reply>,
) -> Result<(), answer::AnswerError> {
    let Some(pending) = waiting(call) else {
        return Err(answer::AnswerError::NotWaiting);
    };
    answer::responses(&pending.asked, &replies)?;
    call.elicitation_replies = serde_json::to_string(&replies).unwrap_or_default();
    call.status = ToolCallStatus::Pending;
    Ok(())
}

/// The replies and state to run `call` again with, once it was answered.
pub fn ready(call: &ToolCallRecord) -> Option<(Value, Option<String>)> {
    if call.status != ToolCallStatus::Pending || call.elicitation_replies.is_empty() {
        return None;
    }
    let replies: Vec<answer::Reply> = serde_json::from_str(&call.elicitation_replies).ok()?;
    Pending::decode(&call.elicitation)?.retry(&replies)
}

/// Forgets the questions and replies of a call that finished (or failed).
pub fn settled(call: &mut ToolCallRecord) {
    call.elicitation.clear();
    call.elicitation_replies.clear();
}

#[cfg(test)]
mod tests;
