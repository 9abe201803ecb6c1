//! One tool call on a remote MCP server, with the server's questions to the user.
//!
//! The exchange runs in a task of its own and reports its steps to the request that
//! started it. A stateless (2026-07-28) server asks through an `input_required` result:
//! the call ends there, and the browser calls again with the replies and the server's
//! state (a result carrying only a state is sent back at once, at most `MAX_ROUNDS`
//! times). A handshake server asks in the middle of the call: the call is held on this
//! edge ([`super::held`]) and the browser's next call, carrying the held call's state,
//! hands the answer over. Either way the browser sees the same `input_required` answer.

use hearth_core::plugin::elicitation::{self, MAX_ROUNDS};
use rmcp::model::{CallToolRequestParams, CallToolResponse, ElicitResult, JsonObject};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::held::{HELD_PREFIX, HeldCalls};
use super::session::{self, Answered, HELD_FOR, Question};
use super::{Access, CALL_TIMEOUT, McpError, within};
use crate::safe_fetch::SafeFetch;

/// The user's replies to a server's questions (`inputResponses`, checked) and the
/// server's `requestState`, echoed.
pub type Replies = (JsonObject, Option<String>);

/// The key a held call's question goes under (its server asks one at a time).
const HELD_KEY: &str = "question";

/// One tool to call: its name on the server, the arguments, and whether its input schema
/// mirrors parameters into `Mcp-Param-*` headers (`core::plugin::mcp::mirrors_params_in_headers`).
#[derive(Debug, Clone)]
pub struct ToolCall<'a> {
    /// The tool's own name.
    pub tool: &'a str,
    /// The checked arguments.
    pub args: Value,
    /// Whether a parameter goes into a header as well.
    pub mirrors_headers: bool,
    /// The user's replies to the server's questions on the previous call, and its state.
    pub input: Option<Replies>,
    /// Who calls (`held::owner`: the scope and the plugin): a held call is theirs only.
    pub owner: String,
}

/// What a tool call got back.
#[derive(Debug)]
pub enum Called {
    /// The `tools/call` result as JSON.
    Done(Value),
    /// The server's `input_required` result as JSON: it asks the user first.
    InputRequired(Value),
}

/// What the request holding a call waits on: the server's next question, or the end.
#[derive(Debug)]
pub struct Waiting {
    questions: mpsc::Receiver<Question>,
    done: oneshot::Receiver<Result<Answered<Called>, McpError>>,
}

/// The calls held on this edge while their handshake server waits for the user.
pub type HeldToolCalls = HeldCalls<Waiting>;

/// Calls a tool on the server at `url`: its result, or the questions it asks the user
/// first.
///
/// A tool that mirrors parameters into headers (SEP-2243, 2026-07-28) is listed first on
/// the same connection: the transport writes `Mcp-Param-*` headers only for a tool whose
/// schema it has seen listed, and a server of that revision refuses a call without them.
pub async fn call(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
    call: ToolCall<'_>,
    held: &HeldToolCalls,
) -> Result<Answered<Called>, McpError> {
    // The answer to a question held on this edge: hand it over, wait for what follows.
    if let Some((responses, Some(state))) = &call.input
        && state.starts_with(HELD_PREFIX)
    {
        let Some(waiting) = held.take(state, &call.owner) else {
            return Err(McpError::Expired);
        };
        let _ = waiting.reply.send(held_answer(responses));
        return next_step(waiting.waiting, held, call.owner).await;
    }
    let (asks, questions) = mpsc::channel(1);
    let (finished, done) = oneshot::channel();
    let arguments: JsonObject = match call.args {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    let (tool, mirrors_headers) = (call.tool.to_string(), call.mirrors_headers);
    let input = call.input.clone();
    let (fetch, url, access) = (fetch.clone(), url.to_string(), access.to_owned());
    tokio::spawn(async move {
        // Bounded whatever the user does: each of the server's questions waits at most
        // HELD_FOR for its answer.
        let limit = CALL_TIMEOUT + HELD_FOR * MAX_ROUNDS;
        let ran = within(limit, async {
            session::exchange_asking(&fetch, &url, &access.access(), Some(&asks), |peer| {
                one_call(
                    peer,
                    tool.clone(),
                    arguments.clone(),
                    mirrors_headers,
                    input.clone(),
                )
            })
            .await
        })
        .await;
        let _ = finished.send(ran);
    });
    next_step(Waiting { questions, done }, held, call.owner).await
}

/// The tool's own exchange: listed first where its headers need it, then called, and
/// called again at once when the server answers with a state alone.
async fn one_call(
    peer: rmcp::service::Peer<rmcp::service::RoleClient>,
    tool: String,
    arguments: JsonObject,
    mirrors_headers: bool,
    input: Option<Replies>,
) -> Result<Called, rmcp::ServiceError> {
    let standard_headers = peer
        .peer_info()
        .is_some_and(|i| i.protocol_version >= rmcp::model::ProtocolVersion::STANDARD_HEADERS);
    if mirrors_headers && standard_headers {
        peer.list_all_tools().await?;
    }
    let (mut responses, state) = input.unzip();
    let mut state = state.flatten();
    for _ in 0..MAX_ROUNDS {
        let mut params = CallToolRequestParams::new(tool.clone()).with_arguments(arguments.clone());
        params.input_responses = responses.take().map(|r| r.into_iter().collect());
        params.request_state = state.take();
        let asking = match peer.call_tool_once(params).await? {
            CallToolResponse::Complete(result) => return Ok(Called::Done(serde_value(&result)?)),
            CallToolResponse::InputRequired(asking) => asking,
            _ => return Err(rmcp::ServiceError::UnexpectedResponse),
        };
        let questions = asking
            .input_requests
            .as_ref()
            .is_some_and(|r| !r.is_empty());
        if questions || asking.request_state.is_none() {
            return Ok(Called::InputRequired(serde_value(&asking)?));
        }
        // Only a state: the server wants the request again, nothing asked.
        state = asking.request_state;
    }
    Err(rmcp::ServiceError::McpError(
        rmcp::ErrorData::internal_error("the server kept asking for the call again", None),
    ))
}

/// Waits for the call's next step: its end, or a question to hold for the user.
async fn next_step(
    mut waiting: Waiting,
    held: &HeldToolCalls,
    owner: String,
) -> Result<Answered<Called>, McpError> {
    loop {
        let question = tokio::time::timeout(CALL_TIMEOUT, async {
            tokio::select! {
                // A call waiting on its server's question cannot end meanwhile, so a
                // question is always seen before the end.
                biased;
                Some(question) = waiting.questions.recv() => Ok(question),
                ran = &mut waiting.done => Err(ran),
            }
        })
        .await
        .map_err(|_| McpError::Timeout(CALL_TIMEOUT))?;
        let Question { params, reply } = match question {
            Ok(question) => question,
            Err(Ok(ran)) => return ran,
            Err(Err(_)) => return Err(McpError::Failed("the call ended without an answer".into())),
        };
        let mut value = json!({ "inputRequests": { HELD_KEY: {
            "method": "elicitation/create",
            "params": serde_value(&params).map_err(|e| McpError::Failed(e.to_string()))?,
        }}});
        // A question that cannot be shown goes back to the server as refused.
        if let Err(error) = elicitation::read_input_required(&value) {
            let _ = reply.send(Err(error.to_string()));
            continue;
        }
        let Some(state) = held.hold(owner.clone(), reply, waiting) else {
            return Err(McpError::Failed(
                "too many questions wait for an answer on this edge".into(),
            ));
        };
        value["requestState"] = json!(state);
        return Ok(Answered {
            value: Called::InputRequired(value),
            revision: None,
            server: None,
        });
    }
}

/// The user's reply to a held question, as its server gets it.
fn held_answer(responses: &JsonObject) -> session::Reply {
    let reply = responses
        .get(HELD_KEY)
        .ok_or_else(|| "the answer is not to this question".to_string())?;
    serde_json::from_value::<ElicitResult>(reply.clone()).map_err(|e| e.to_string())
}

/// `value` as JSON, or the service error a failed conversion is.
fn serde_value<T: serde::Serialize>(value: &T) -> Result<Value, rmcp::ServiceError> {
    serde_json::to_value(value).map_err(|e| {
        rmcp::ServiceError::McpError(rmcp::ErrorData::internal_error(e.to_string(), None))
    })
}
