//! The wire types of the plugin routes: `POST /api/plugins/install`, `GET
//! /api/plugins/list`, `POST /api/plugins/refresh`, `POST /api/plugins/execute` and
//! `POST /api/plugins/uninstall`.
//! A plugin travels with the fingerprint of each function, which the browser sends back
//! with every call. An MCP server's refusal of the credential is passed on as an
//! `AUTH_ERROR` whose reason says what it asks of the user ([`ServerRefusal`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::byok::Envelope;
use crate::plugin::Plugin;
use crate::plugin::result::ToolResult;

/// `POST /api/plugins/install`: an OpenAPI description, pasted or at a URL, or a remote
/// MCP server's streamable-HTTP endpoint. Exactly one is given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PluginInstallRequest {
    /// The description's text (JSON or YAML), when pasted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// Where to fetch the description, when not pasted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_url: Option<String>,
    /// An MCP server's endpoint (`https://…/mcp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_url: Option<String>,
    /// The MCP server's credential, sealed for `mcp:install:auth`; later calls send it
    /// sealed for `plugin:<id>:auth`. A bearer token unless `auth_header` names another
    /// header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Envelope>,
    /// The header that carries the MCP server's credential (`X-Api-Key`, …), when it is
    /// not `Authorization: Bearer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_header: Option<String>,
    /// Plain headers the MCP server is given with every request (never credentials).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_headers: BTreeMap<String, String>,
    /// The credential is an OAuth access token from a sign-in (the browser refreshes it),
    /// sent as a bearer token: the plugin's auth is `oauth2`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub oauth: bool,
}

/// A plugin as the edge registered it, with each function's fingerprint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegisteredPlugin {
    /// The plugin.
    pub plugin: Plugin,
    /// Function name → `sha256:…` of its execution contract.
    pub fingerprints: BTreeMap<String, String>,
    /// For an MCP server whose tool list has a caching hint: how many more ms the list
    /// keeps from this answer (0: list it again, `POST /api/plugins/refresh`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_fresh_for_ms: Option<u64>,
}

/// `POST /api/plugins/refresh`: list an installed MCP server's tools again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PluginRefreshRequest {
    /// The MCP plugin.
    pub plugin_id: String,
    /// The plugin's credential, sealed for `plugin:<id>:auth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Envelope>,
}

/// The answer to a refresh: the plugin as now registered (a tool it had keeps its
/// function's name), the tools left out, and what changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginRefreshResponse {
    /// The plugin.
    pub registered: RegisteredPlugin,
    /// Tools left out, and why.
    pub skipped: Vec<SkippedOperation>,
    /// Function names that are new.
    pub added: Vec<String>,
    /// Function names that are gone.
    pub removed: Vec<String>,
}

/// An operation the import left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedOperation {
    /// `METHOD /path`.
    pub operation: String,
    /// Why.
    pub reason: String,
}

/// The answer to an install.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginInstallResponse {
    /// What was registered.
    pub registered: RegisteredPlugin,
    /// What was left out, and why.
    pub skipped: Vec<SkippedOperation>,
}

/// `GET /api/plugins/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginListResponse {
    /// This client's plugins.
    pub plugins: Vec<RegisteredPlugin>,
    /// Hearth's own plugins, always present.
    #[serde(default)]
    pub builtins: Vec<RegisteredPlugin>,
}

/// `POST /api/plugins/execute`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PluginExecuteRequest {
    /// The plugin.
    pub plugin_id: String,
    /// The function's name.
    pub function: String,
    /// The arguments the model produced.
    #[serde(default)]
    pub args: Value,
    /// The fingerprint the browser saw (and the user approved, where asked).
    pub fingerprint: String,
    /// The plugin's credential, sealed for `plugin:<id>:auth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Envelope>,
    /// The user's replies to the questions an MCP server asked on the previous call
    /// (`inputResponses`, checked by `plugin::elicitation::answer::read_responses`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Value>,
    /// The server's `requestState` from that call, echoed unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// The answer to a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginExecuteResponse {
    /// What the tool returned, bounded.
    pub result: ToolResult,
    /// How long the call took.
    pub duration_ms: u64,
    /// The MCP server needs the user's answers before the call can finish (`result` is
    /// then empty): ask, and call again with the replies and the state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_required: Option<crate::plugin::elicitation::InputRequired>,
}

/// `POST /api/plugins/uninstall`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PluginUninstallRequest {
    /// The plugin.
    pub plugin_id: String,
}

/// What to do with an MCP server's resources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "action")]
pub enum McpResourcesAction {
    /// `resources/list`.
    List,
    /// `resources/read` of one URI.
    Read {
        /// The resource.
        uri: String,
    },
}

/// `POST /api/mcp/resources`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpResourcesRequest {
    /// The MCP plugin.
    pub plugin_id: String,
    /// The plugin's credential, sealed for `plugin:<id>:auth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Envelope>,
    /// What to do.
    #[serde(flatten)]
    pub action: McpResourcesAction,
}

/// What to do with an MCP server's prompts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "action")]
pub enum McpPromptsAction {
    /// `prompts/list`.
    List,
    /// `prompts/get` of one prompt.
    Get {
        /// The prompt's name.
        name: String,
        /// Its arguments (strings).
        #[serde(default)]
        args: BTreeMap<String, String>,
    },
}

/// `POST /api/mcp/prompts`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpPromptsRequest {
    /// The MCP plugin.
    pub plugin_id: String,
    /// The plugin's credential, sealed for `plugin:<id>:auth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Envelope>,
    /// What to do.
    #[serde(flatten)]
    pub action: McpPromptsAction,
}

/// `details.reason` of an `AUTH_ERROR` that passes on an MCP server's refusal of the
/// credential (sign in again), as opposed to the edge failing to open its envelope.
pub const REASON_SERVER_AUTH: &str = "serverAuth";
/// `details.reason` of an `AUTH_ERROR` that passes on an MCP server's 403
/// `insufficient_scope` (`details.scope`: what it wants).
pub const REASON_INSUFFICIENT_SCOPE: &str = "insufficientScope";

/// What an MCP server's refusal, passed on by the edge, asks of the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerRefusal {
    /// The credential is refused: sign in again (after one refresh).
    SignIn,
    /// The credential does not reach far enough: sign in for this scope.
    Scope(String),
}

impl ServerRefusal {
    /// The refusal `error` passes on, if it is one (an `AUTH_ERROR` with either reason).
    pub fn of(error: &super::ApiError) -> Option<Self> {
        if error.code != super::ErrorCode::AuthError {
            return None;
        }
        let details = error.details.as_ref()?;
        match details["reason"].as_str()? {
            REASON_SERVER_AUTH => Some(Self::SignIn),
            REASON_INSUFFICIENT_SCOPE => Some(Self::Scope(
                details["scope"].as_str().unwrap_or_default().to_string(),
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod refusal_tests {
    use super::*;
    use crate::api::{ApiError, ErrorCode};
    use serde_json::json;

    #[test]
    fn a_server_refusal_is_read_from_its_reason_and_nothing_else_is_one() {
        let with = |code, details: Value| ApiError::new(code, "x").with_details(details);
        assert_eq!(
            ServerRefusal::of(&with(ErrorCode::AuthError, json!({"reason": "serverAuth"}))),
            Some(ServerRefusal::SignIn)
        );
        assert_eq!(
            ServerRefusal::of(&with(
                ErrorCode::AuthError,
                json!({"reason": "insufficientScope", "scope": "a b"})
            )),
            Some(ServerRefusal::Scope("a b".into()))
        );
        // The edge's own refusal of an envelope, and the same reason under another code.
        assert_eq!(
            ServerRefusal::of(&with(
                ErrorCode::AuthError,
                json!({"reason": "decryption failed"})
            )),
            None
        );
        assert_eq!(
            ServerRefusal::of(&with(
                ErrorCode::BadRequest,
                json!({"reason": "serverAuth"})
            )),
            None
        );
        assert_eq!(
            ServerRefusal::of(&ApiError::new(ErrorCode::AuthError, "x")),
            None
        );
    }
}
