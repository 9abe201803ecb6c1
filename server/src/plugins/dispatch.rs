//! Running one checked call: a built-in (the web page reader; the image generator runs in
//! the browser), an MCP tool through [`crate::mcp`], or a REST request built by
//! `core::plugin::call` and sent through `safe_fetch` to the server the user installed
//! (the URL policy, a deadline, a response cap). The credential is sent only as a
//! secret header (never on to another origin by a redirect) and removed from what comes
//! back. Each answer carries how long the call took.

use std::time::Instant;

use axum::http::{HeaderName, HeaderValue, Method, header};
use bytes::Bytes;
use hearth_core::api::{ApiError, ErrorCode, PluginExecuteResponse};
use hearth_core::plugin::result::{MAX_RESPONSE_BYTES, ToolResult};
use hearth_core::plugin::{Auth, Plugin, PluginFunction, Source, builtin, call, elicitation};
use hearth_core::url_policy::Target;
use serde_json::Value;

use crate::mcp::{self, Access};
use crate::safe_fetch::{Limits, OutboundRequest, SafeFetch};

fn answer(result: ToolResult, started: Instant) -> PluginExecuteResponse {
    PluginExecuteResponse {
        result,
        duration_ms: started.elapsed().as_millis() as u64,
        input_required: None,
    }
}

/// An MCP tool's answer for the browser: its result, or the questions its server asks
/// the user first, read and bounded (a question Hearth cannot ask is the tool's error,
/// which the model reads).
fn mcp_answer(called: mcp::Called, started: Instant) -> PluginExecuteResponse {
    match called {
        mcp::Called::Done(value) => answer(ToolResult::from_mcp(&value), started),
        mcp::Called::InputRequired(value) => match elicitation::read_input_required(&value) {
            Ok(asked) => PluginExecuteResponse {
                input_required: Some(asked),
                ..answer(ToolResult::default(), started)
            },
            Err(error) => answer(ToolResult::error(&error.to_string()), started),
        },
    }
}

/// What one call gave: its answer, and for an MCP tool the protocol revision the server
/// spoke (which the registry remembers when it changed).
#[derive(Debug)]
pub struct Ran {
    /// The answer for the browser.
    pub response: PluginExecuteResponse,
    /// The MCP server's revision, for an MCP tool.
    pub revision: Option<String>,
}

impl From<PluginExecuteResponse> for Ran {
    fn from(response: PluginExecuteResponse) -> Self {
        Self {
            response,
            revision: None,
        }
    }
}

/// Runs `function` of `plugin` with checked `args` and the opened credential `secret`.
pub async fn run(
    fetch: &SafeFetch,
    plugin: &Plugin,
    function: &PluginFunction,
    args: Value,
    secret: Option<&str>,
    input: Option<mcp::Replies>,
    held: (&mcp::HeldToolCalls, &str),
) -> Result<Ran, ApiError> {
    if plugin.source == Source::Builtin {
        return run_builtin(fetch, plugin, function, &args)
            .await
            .map(Ran::from);
    }
    if let (Some(server), Some(tool)) = (&plugin.mcp, &function.tool) {
        if plugin.auth != Auth::None && secret.is_none() {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                "this plugin needs a credential; add it in its settings",
            ));
        }
        let started = Instant::now();
        let access = Access {
            auth: &plugin.auth,
            secret,
            headers: &server.headers,
            revision: server.revision.as_deref(),
        };
        let call = mcp::ToolCall {
            tool,
            args,
            mirrors_headers: hearth_core::plugin::mcp::mirrors_params_in_headers(
                &function.parameters,
            ),
            input,
            owner: mcp::held::owner(held.1, &plugin.id),
        };
        let answered = mcp::call(fetch, &server.server_url, &access, call, held.0)
            .await
            .map_err(|e| e.to_api_error())?;
        return Ok(Ran {
            response: mcp_answer(answered.value, started),
            revision: answered.revision,
        });
    }
    run_rest(fetch, plugin, function, &args, secret)
        .await
        .map(Ran::from)
}

async fn run_builtin(
    fetch: &SafeFetch,
    plugin: &Plugin,
    function: &PluginFunction,
    args: &Value,
) -> Result<PluginExecuteResponse, ApiError> {
    let started = Instant::now();
    let result = match (plugin.id.as_str(), function.name.as_str()) {
        (builtin::WEB_READER_ID, builtin::READ_WEB_PAGE) => {
            crate::web_reader::read_web_page(fetch, args)
                .await
                .map_err(|e| e.to_api_error())?
        }
        (builtin::IMAGE_GENERATOR_ID, _) => ToolResult::error(
            "the image generator runs in the browser with the user's own key, not on the edge",
        ),
        _ => ToolResult::error("this built-in function is not available here"),
    };
    Ok(answer(result, started))
}

async fn run_rest(
    fetch: &SafeFetch,
    plugin: &Plugin,
    function: &PluginFunction,
    args: &Value,
    secret: Option<&str>,
) -> Result<PluginExecuteResponse, ApiError> {
    let built = call::build(plugin, function, args, secret)
        .map_err(|e| ApiError::new(ErrorCode::BadRequest, e.to_string()))?;
    // The plugin's server is the one the user installed; `call::build` keeps the
    // request on it.
    let mut outbound = OutboundRequest::get(Target::UserConfigured, &built.url);
    outbound.method = Method::from_bytes(built.method.as_str().as_bytes()).unwrap_or(Method::GET);
    for (name, value) in built.headers {
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) else {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                "A header of this call is invalid",
            ));
        };
        if name == header::CONTENT_TYPE {
            outbound.headers.push((name, value));
        } else {
            // Credentials: never sent on to another origin by a redirect.
            outbound.secret_headers.push((name, value));
        }
    }
    outbound.body = built.body.map(Bytes::from);
    let started = Instant::now();
    let response = fetch
        .with_limits(Limits {
            max_body_bytes: MAX_RESPONSE_BYTES,
            ..fetch.limits()
        })
        .fetch(outbound)
        .await
        .map_err(|e| {
            let mut error = e.to_api_error();
            if let Some(secret) = secret {
                error.error = error.error.replace(secret, "[redacted]");
            }
            error
        })?;
    let mut text = String::from_utf8_lossy(&response.body).into_owned();
    if let Some(secret) = secret {
        text = text.replace(secret, "[redacted]");
    }
    Ok(answer(
        ToolResult::from_http(response.status.as_u16(), &text),
        started,
    ))
}
