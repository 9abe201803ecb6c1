//! The JSON-RPC 2.0 messages between an MCP App's page and the host (MCP Apps
//! 2026-01-26, "Communication Protocol"). Everything a page sends is read by
//! [`read_from_view`] into a closed set of [`FromView`] messages, bounded, with typed
//! errors: the host acts on nothing else. The host's answers and notifications are
//! built here too, so the shapes a page receives are tested natively.
//!
//! What the host offers a page: calling its own server's tools (`serverTools`),
//! reading its server's resources (`serverResources`), logging (`logging`), and
//! offering a chat message (`ui/message`), which the host puts in the composer for the
//! user to send or not (at most [`MAX_MESSAGES_PER_PAGE`], each within
//! [`MAX_OFFERED_MESSAGE_CHARS`]). It does not offer opening links or updating the
//! model's context (refused with [`METHOD_NOT_FOUND`]), and it grants no network origin.

use serde_json::{Map, Value, json};

use crate::plugin::result::ToolResult;

/// The MCP Apps revision the host speaks.
pub const PROTOCOL_VERSION: &str = "2026-01-26";
/// The most characters of a page's message, as JSON.
pub const MAX_MESSAGE_CHARS: usize = 512 * 1024;
/// The most characters of a request id.
const MAX_ID_CHARS: usize = 100;
/// The most characters of a method name.
const MAX_METHOD_CHARS: usize = 100;
/// The most messages one page may offer while it is shown.
pub const MAX_MESSAGES_PER_PAGE: u32 = 5;
/// The most characters of a message a page offers.
pub const MAX_OFFERED_MESSAGE_CHARS: usize = 8_000;
/// The most resource reads one page may ask for while it is shown.
pub const MAX_READS_PER_PAGE: u32 = 50;
/// The most bytes of the call's text sent to its page with its result: even with every
/// character escaped six times over in JSON, and the structured content (at most
/// 64 KiB), the notification stays within [`MAX_MESSAGE_CHARS`].
pub const MAX_RESULT_TEXT_BYTES: usize = 64 * 1024;
/// The most tool calls one page may make while it is shown.
pub const MAX_CALLS_PER_PAGE: u32 = 50;
/// The smallest and largest height, in CSS pixels, a page may ask for.
pub const MIN_HEIGHT_PX: u32 = 80;
/// See [`MIN_HEIGHT_PX`].
pub const MAX_HEIGHT_PX: u32 = 720;

/// JSON-RPC: the method is not offered.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the parameters are not usable.
pub const INVALID_PARAMS: i64 = -32602;
/// MCP Apps: the host refused or failed (implementation-defined).
pub const REFUSED: i64 = -32000;

/// A request's id: a string or an integer, as the page sent it.
pub type RequestId = Value;

/// What a page sent.
#[derive(Debug, Clone, PartialEq)]
pub enum FromView {
    /// A request the host answers with `id`.
    Request {
        /// Its id.
        id: RequestId,
        /// What it asks.
        request: ViewRequest,
    },
    /// A notification.
    Notification(ViewNotification),
    /// An answer to a request of the host's (`ui/resource-teardown`).
    Answer {
        /// The id of the host's request.
        id: RequestId,
    },
}

/// A page's request.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewRequest {
    /// `ui/initialize`.
    Initialize,
    /// `tools/call` of its server's tool `name`.
    CallTool {
        /// The tool's name on the server.
        name: String,
        /// Its arguments.
        arguments: Map<String, Value>,
    },
    /// `resources/read` of its server's resource `uri`.
    ReadResource {
        /// The resource.
        uri: String,
    },
    /// `ui/request-display-mode`.
    DisplayMode,
    /// `ui/message`: a user message's text, offered for the composer.
    Message {
        /// The text (non-empty, within [`MAX_OFFERED_MESSAGE_CHARS`]).
        text: String,
    },
    /// `ping`.
    Ping,
    /// Anything else (`ui/open-link`, `ui/message`, `ui/update-model-context`, …):
    /// answered with [`METHOD_NOT_FOUND`].
    Unsupported {
        /// The method, bounded.
        method: String,
    },
    /// A known method whose parameters cannot be used.
    Invalid {
        /// What is wrong.
        reason: String,
    },
}

/// A page's notification.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewNotification {
    /// `ui/notifications/initialized`: the host may now send it the tool's data.
    Initialized,
    /// `ui/notifications/size-changed`: the height it wants, already within
    /// [`MIN_HEIGHT_PX`]..=[`MAX_HEIGHT_PX`].
    SizeChanged {
        /// The height, if it said one.
        height: Option<u32>,
    },
    /// `notifications/message`, or one the host ignores.
    Ignored,
}

/// Why a message was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BridgeError {
    /// Not a JSON-RPC 2.0 request, notification or answer.
    #[error("the message is not JSON-RPC 2.0")]
    NotJsonRpc,
    /// Past [`MAX_MESSAGE_CHARS`].
    #[error("the message is larger than {} KiB", MAX_MESSAGE_CHARS / 1024)]
    TooLarge,
    /// An id the host cannot echo.
    #[error("the request id is not a short string or an integer")]
    BadId,
}

/// Reads one message of a page, given as JSON text (as the page posted it, serialised).
pub fn read_from_view(text: &str) -> Result<FromView, BridgeError> {
    if text.len() > MAX_MESSAGE_CHARS {
        return Err(BridgeError::TooLarge);
    }
    let message: Value = serde_json::from_str(text).map_err(|_| BridgeError::NotJsonRpc)?;
    let object = message.as_object().ok_or(BridgeError::NotJsonRpc)?;
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(BridgeError::NotJsonRpc);
    }
    let id = match object.get("id") {
        None | Some(Value::Null) => None,
        Some(id) if usable_id(id) => Some(id.clone()),
        Some(_) => return Err(BridgeError::BadId),
    };
    let Some(method) = object.get("method").and_then(Value::as_str) else {
        return match (
            id,
            object.contains_key("result") || object.contains_key("error"),
        ) {
            (Some(id), true) => Ok(FromView::Answer { id }),
            _ => Err(BridgeError::NotJsonRpc),
        };
    };
    if method.is_empty() || method.len() > MAX_METHOD_CHARS {
        return Err(BridgeError::NotJsonRpc);
    }
    let params = object.get("params").cloned().unwrap_or(Value::Null);
    Ok(match id {
        Some(id) => FromView::Request {
            id,
            request: request(method, &params),
        },
        None => FromView::Notification(notification(method, &params)),
    })
}

fn usable_id(id: &Value) -> bool {
    match id {
        Value::String(s) => !s.is_empty() && s.chars().count() <= MAX_ID_CHARS,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

fn request(method: &str, params: &Value) -> ViewRequest {
    let invalid = |reason: &str| ViewRequest::Invalid {
        reason: reason.to_string(),
    };
    match method {
        "ui/initialize" => ViewRequest::Initialize,
        "ping" => ViewRequest::Ping,
        "ui/request-display-mode" => ViewRequest::DisplayMode,
        "ui/message" => offered_message(params).map_or_else(
            || invalid("ui/message needs a user message with text"),
            |text| ViewRequest::Message { text },
        ),
        "tools/call" => {
            let Some(name) = params
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty() && n.len() <= 128)
            else {
                return invalid("tools/call needs the tool's name");
            };
            let arguments = match params.get("arguments") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(map)) => map.clone(),
                Some(_) => return invalid("tools/call arguments must be an object"),
            };
            ViewRequest::CallTool {
                name: name.to_string(),
                arguments,
            }
        }
        "resources/read" => match params.get("uri").and_then(Value::as_str) {
            Some(uri)
                if !uri.is_empty()
                    && uri.chars().count() <= super::MAX_RESOURCE_URI_CHARS
                    && !uri.chars().any(char::is_control) =>
            {
                ViewRequest::ReadResource {
                    uri: uri.to_string(),
                }
            }
            _ => invalid("resources/read needs a resource URI"),
        },
        other => ViewRequest::Unsupported {
            method: other.chars().take(MAX_METHOD_CHARS).collect(),
        },
    }
}

/// The text of a `ui/message`: role `user`, content a text block (or a list of them,
/// joined), non-empty and within [`MAX_OFFERED_MESSAGE_CHARS`].
fn offered_message(params: &Value) -> Option<String> {
    if params.get("role").and_then(Value::as_str) != Some("user") {
        return None;
    }
    let content = params.get("content")?;
    let blocks: Vec<&Value> = match content {
        Value::Array(blocks) => blocks.iter().collect(),
        block => vec![block],
    };
    let mut texts = Vec::new();
    for block in blocks {
        if block.get("type").and_then(Value::as_str) != Some("text") {
            return None;
        }
        texts.push(block.get("text").and_then(Value::as_str)?);
    }
    let text = texts.join("\n\n");
    (!text.trim().is_empty() && text.chars().count() <= MAX_OFFERED_MESSAGE_CHARS)
        .then(|| text.trim().to_string())
}

fn notification(method: &str, params: &Value) -> ViewNotification {
    match method {
        "ui/notifications/initialized" => ViewNotification::Initialized,
        "ui/notifications/size-changed" => ViewNotification::SizeChanged {
            height: params
                .get("height")
                .and_then(Value::as_f64)
                .filter(|h| h.is_finite())
                .map(|h| (h.ceil().max(0.0) as u32).clamp(MIN_HEIGHT_PX, MAX_HEIGHT_PX)),
        },
        _ => ViewNotification::Ignored,
    }
}

/// A request's answer.
pub fn result(id: &RequestId, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A request's error.
pub fn error(id: &RequestId, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A notification of the host's.
pub fn notification_to_view(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// The answer to a request the host does not offer.
pub fn unsupported(id: &RequestId, method: &str) -> Value {
    error(
        id,
        METHOD_NOT_FOUND,
        &format!("{method} is not offered by this host"),
    )
}

/// The light or dark scheme the page is shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    /// Light.
    Light,
    /// Dark.
    Dark,
}

/// What the host tells a page about where it is shown.
#[derive(Debug, Clone, PartialEq)]
pub struct HostContext {
    /// The scheme.
    pub theme: Theme,
    /// The user's language (BCP 47).
    pub locale: String,
    /// The call that made the page: its id, and the tool's name, description and
    /// input schema.
    pub call_id: String,
    /// See `call_id`.
    pub tool_name: String,
    /// See `call_id`.
    pub tool_description: String,
    /// See `call_id`.
    pub input_schema: Value,
}

/// The host's answer to `ui/initialize`: its capabilities (no network origin granted,
/// no permission), and the context.
pub fn initialize_result(id: &RequestId, context: &HostContext, version: &str) -> Value {
    result(
        id,
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "hostInfo": {"name": "Hearth", "version": version},
            "hostCapabilities": {
                "serverTools": {},
                "serverResources": {},
                "logging": {},
                "sandbox": {"permissions": {}, "csp": {}},
            },
            "hostContext": {
                "toolInfo": {
                    "id": context.call_id,
                    "tool": {
                        "name": context.tool_name,
                        "description": context.tool_description,
                        "inputSchema": context.input_schema,
                    },
                },
                "theme": theme_name(context.theme),
                "styles": {"variables": style_variables()},
                "displayMode": "inline",
                "availableDisplayModes": ["inline"],
                "containerDimensions": {"maxHeight": MAX_HEIGHT_PX},
                "locale": context.locale,
                "platform": "web",
            },
        }),
    )
}

fn theme_name(theme: Theme) -> &'static str {
    match theme {
        Theme::Light => "light",
        Theme::Dark => "dark",
    }
}

/// `ui/notifications/host-context-changed` after a theme switch.
pub fn theme_changed(theme: Theme) -> Value {
    notification_to_view(
        "ui/notifications/host-context-changed",
        json!({"theme": theme_name(theme)}),
    )
}

/// The theme's colours and fonts as the extension's standard variables, each the value
/// of a Hearth token in `style/tokens.css` (a test keeps them equal): colours as
/// `light-dark()` pairs, so a page that sets its `color-scheme` from the theme follows it.
pub const STYLE_VARIABLES: [(&str, &str, &str); 13] = [
    (
        "--color-background-primary",
        "--color-surface",
        "light-dark(#ffffff, #1c1a17)",
    ),
    (
        "--color-background-secondary",
        "--color-bg",
        "light-dark(#fbfaf8, #141210)",
    ),
    (
        "--color-background-tertiary",
        "--color-hover",
        "light-dark(#ebe7e0, #2a2622)",
    ),
    (
        "--color-background-danger",
        "--color-danger-soft",
        "light-dark(#fef2f2, #3b1717)",
    ),
    (
        "--color-text-primary",
        "--color-text",
        "light-dark(#1c1917, #f3efe9)",
    ),
    (
        "--color-text-secondary",
        "--color-text-muted",
        "light-dark(#6b645c, #a39b91)",
    ),
    (
        "--color-text-danger",
        "--color-danger",
        "light-dark(#b91c1c, #fca5a5)",
    ),
    (
        "--color-text-success",
        "--color-success",
        "light-dark(#15803d, #86efac)",
    ),
    (
        "--color-border-primary",
        "--color-border",
        "light-dark(#e4dfd7, #302c27)",
    ),
    (
        "--color-border-secondary",
        "--color-border-strong",
        "light-dark(#cfc8bd, #48423b)",
    ),
    (
        "--color-ring-primary",
        "--color-focus",
        "light-dark(#2563eb, #93c5fd)",
    ),
    (
        "--font-sans",
        "--font-sans",
        "system-ui, -apple-system, \"Segoe UI\", Roboto, \"Noto Sans\", \"PingFang SC\", \"Hiragino Sans\", \"Noto Sans CJK SC\", \"Noto Sans CJK JP\", sans-serif",
    ),
    (
        "--font-mono",
        "--font-mono",
        "ui-monospace, \"SFMono-Regular\", Menlo, Consolas, \"Liberation Mono\", monospace",
    ),
];

/// [`STYLE_VARIABLES`] as the `styles.variables` object of the host context.
pub fn style_variables() -> Map<String, Value> {
    STYLE_VARIABLES
        .iter()
        .map(|(name, _, value)| (name.to_string(), Value::String(value.to_string())))
        .collect()
}

/// The answer to `ui/request-display-mode`: the page stays inline.
pub fn display_mode(id: &RequestId) -> Value {
    result(id, json!({"mode": "inline"}))
}

/// `ui/notifications/tool-input` with the call's arguments (an object; anything else,
/// such as arguments that were not JSON, is sent as `{}`).
pub fn tool_input(arguments: &str) -> Value {
    let arguments = serde_json::from_str::<Value>(arguments)
        .ok()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    notification_to_view(
        "ui/notifications/tool-input",
        json!({"arguments": arguments}),
    )
}

/// A tool's outcome as an MCP `CallToolResult`: its text, its structured content (for
/// the page; the model reads the text) and whether it is an error.
pub fn call_tool_result(text: &str, structured: Option<&Value>, is_error: bool) -> Value {
    let mut result = json!({
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
    });
    if let Some(structured) = structured {
        result["structuredContent"] = structured.clone();
    }
    result
}

/// `ui/notifications/tool-result`, its text cut to [`MAX_RESULT_TEXT_BYTES`] (marked
/// with `…`).
pub fn tool_result(text: &str, structured: Option<&Value>, is_error: bool) -> Value {
    let cut = if text.len() > MAX_RESULT_TEXT_BYTES {
        let at = (0..=MAX_RESULT_TEXT_BYTES)
            .rev()
            .find(|at| text.is_char_boundary(*at))
            .unwrap_or(0);
        format!("{}…", &text[..at])
    } else {
        text.to_string()
    };
    notification_to_view(
        "ui/notifications/tool-result",
        call_tool_result(&cut, structured, is_error),
    )
}

/// `message` as it may be posted to a page: within [`MAX_MESSAGE_CHARS`] (the proxy
/// drops a larger one, and the page would wait for its answer for ever). An answer too
/// large becomes an error saying so; a notification too large is not sent.
pub fn fit(message: Value) -> Option<Value> {
    if message.to_string().len() <= MAX_MESSAGE_CHARS {
        return Some(message);
    }
    match (message.get("id"), message.get("method")) {
        (Some(id), None) => Some(error(
            id,
            REFUSED,
            &format!(
                "The answer is larger than the {} KiB a page may be sent.",
                MAX_MESSAGE_CHARS / 1024
            ),
        )),
        _ => None,
    }
}

/// The answer to a page's `tools/call` that ran: what the edge returned (images as
/// image blocks).
pub fn call_answer(id: &RequestId, outcome: &ToolResult) -> Value {
    let mut answer = call_tool_result(&outcome.text, outcome.structured.as_ref(), outcome.is_error);
    if let Some(content) = answer["content"].as_array_mut() {
        for image in &outcome.images {
            content.push(json!({"type": "image", "mimeType": image.mime_type, "data": image.data}));
        }
    }
    result(id, answer)
}

/// The answer to a page's `tools/call` that did not run (refused, denied, failed): an
/// error result, as the model would read it, so the page can say so.
pub fn call_not_run(id: &RequestId, why: &str) -> Value {
    result(id, call_tool_result(why, None, true))
}

/// `ui/resource-teardown`, sent before the host removes the page.
pub fn teardown(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "ui/resource-teardown", "params": {"reason": "closed"}})
}
