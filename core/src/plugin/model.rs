//! What a plugin is: its identity, where it came from, how it authenticates, and the
//! functions it offers, each with the contract the edge executes (method and path for
//! REST, the tool's own name for MCP) and its effective risk.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::method::HttpMethod;
use super::risk::Risk;

/// Where a plugin came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Shipped with Hearth; its id is reserved.
    Builtin,
    /// Imported from an OpenAPI 3.x or Swagger 2.0 description.
    Openapi,
    /// A remote MCP server over streamable HTTP.
    Mcp,
}

/// Where an API key goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuthPlacement {
    /// A request header.
    Header,
    /// A query parameter.
    Query,
}

/// How a plugin authenticates. The secret itself never lives here: the browser keeps it
/// sealed in its vault and sends it to the edge as an envelope per call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Auth {
    /// No credentials.
    None,
    /// `Authorization: Bearer <secret>`.
    Bearer,
    /// A key in a named header or query parameter.
    ApiKey {
        /// The header or parameter name.
        name: String,
        /// Where it goes.
        #[serde(rename = "in")]
        placement: AuthPlacement,
    },
    /// `Authorization: Basic base64(user:password)`; the secret is `user:password`.
    Basic,
    /// An OAuth 2 access token the user obtained, sent as a bearer token.
    Oauth2,
}

/// What Hearth knows of an MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpInfo {
    /// The streamable-HTTP endpoint.
    pub server_url: String,
    /// The server's own name, as `initialize` reported it.
    pub server_name: String,
    /// Whether it offers resources.
    #[serde(default)]
    pub resources: bool,
    /// Whether it offers prompts.
    #[serde(default)]
    pub prompts: bool,
    /// Plain headers sent with every request (lower-case names; never credentials).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub headers: std::collections::BTreeMap<String, String>,
    /// The protocol revision the server speaks (`2026-07-28`, the stateless one, or a
    /// handshake revision such as `2025-11-25`), found at install and updated when the
    /// server changes; absent for servers installed before it was kept (negotiated anew).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// When its tools were last listed, in ms since the epoch on the edge's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_listed_at: Option<u64>,
    /// How long that list keeps, as the server said (`ttlMs` of 2026-07-28, at most
    /// [`super::mcp_list::MAX_LIST_TTL_MS`]); none said: until it is listed again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_ttl_ms: Option<u64>,
}

impl McpInfo {
    /// How much longer its tool list keeps at `now_ms` (0: stale, list again), or `None`
    /// when the server gave no hint.
    pub fn tools_fresh_for(&self, now_ms: u64) -> Option<u64> {
        let ttl = self.tools_ttl_ms?.min(super::mcp_list::MAX_LIST_TTL_MS);
        let listed_at = self.tools_listed_at.unwrap_or(0);
        Some(listed_at.saturating_add(ttl).saturating_sub(now_ms))
    }
}

/// One function a model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginFunction {
    /// The name the model sees (model-safe, unique within the plugin).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments (an object schema).
    pub parameters: Value,
    /// REST: the method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<HttpMethod>,
    /// REST: the path template under the plugin's server URL (`/items/{id}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// MCP: the tool's name on its server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The effective risk (never below the transport's floor).
    pub risk: Risk,
    /// Whether the user has it switched on.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// MCP Apps: the page that shows its results and who may call it
    /// ([`super::mcp_app`]); none: the model and the server's pages may.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<super::mcp_app::link::AppLink>,
}

impl PluginFunction {
    /// Whether the model may be offered it (a tool only MCP Apps' pages may call is not).
    pub fn offered_to_model(&self) -> bool {
        self.app.as_ref().is_none_or(|link| link.for_model)
    }

    /// Whether a page of its server may call it.
    pub fn callable_by_app(&self) -> bool {
        self.app.as_ref().is_none_or(|link| link.for_app)
    }

    /// The MCP App page that shows its results, if any.
    pub fn app_page(&self) -> Option<&str> {
        self.app.as_ref()?.resource_uri.as_deref()
    }
}

fn yes() -> bool {
    true
}

/// A plugin: a named set of functions with one server and one way to authenticate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plugin {
    /// Its id (`builtin:*` ids are reserved).
    pub id: String,
    /// Its display title.
    pub title: String,
    /// What it is for.
    #[serde(default)]
    pub description: String,
    /// An icon URL, shown through the safe image path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo_url: Option<String>,
    /// Where its description came from, if fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_url: Option<String>,
    /// The REST base URL (OpenAPI plugins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_url: Option<String>,
    /// Where it came from.
    pub source: Source,
    /// How it authenticates.
    pub auth: Auth,
    /// MCP details, for MCP plugins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpInfo>,
    /// Its functions.
    pub functions: Vec<PluginFunction>,
}

impl Plugin {
    /// A plugin with what every plugin has; description, logo, URLs and MCP details
    /// empty (set them with struct update syntax).
    pub fn new(
        id: impl Into<String>,
        title: impl Into<String>,
        source: Source,
        auth: Auth,
        functions: Vec<PluginFunction>,
    ) -> Self {
        Self {
            id: id.into(),
            title: title.into(),
            description: String::new(),
            logo_url: None,
            manifest_url: None,
            server_url: None,
            source,
            auth,
            mcp: None,
            functions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plugin_round_trips_in_its_wire_shape() {
        let plugin = Plugin {
            id: "petstore".into(),
            title: "Petstore".into(),
            description: "Pets".into(),
            logo_url: None,
            manifest_url: Some("https://petstore3.swagger.io/api/v3/openapi.json".into()),
            server_url: Some("https://petstore3.swagger.io/api/v3".into()),
            source: Source::Openapi,
            auth: Auth::ApiKey {
                name: "api_key".into(),
                placement: AuthPlacement::Header,
            },
            mcp: None,
            functions: vec![PluginFunction {
                name: "getPetById".into(),
                description: "Find pet by ID".into(),
                parameters: json!({"type": "object", "properties": {"petId": {"type": "integer"}}, "required": ["petId"]}),
                method: Some(HttpMethod::Get),
                path: Some("/pet/{petId}".into()),
                tool: None,
                risk: Risk::Read,
                enabled: true,
                app: None,
            }],
        };
        let value = serde_json::to_value(&plugin).unwrap();
        assert_eq!(
            value["auth"],
            json!({"type": "apiKey", "name": "api_key", "in": "header"})
        );
        assert_eq!(value["functions"][0]["method"], json!("GET"));
        assert_eq!(value["source"], json!("openapi"));
        assert_eq!(serde_json::from_value::<Plugin>(value).unwrap(), plugin);
    }

    #[test]
    fn a_tool_list_keeps_as_long_as_the_server_said_and_no_longer() {
        let mut info: McpInfo = serde_json::from_value(
            json!({"serverUrl": "https://mcp.example/mcp", "serverName": "x"}),
        )
        .unwrap();
        // No hint (a handshake server, or installed before hints were kept).
        assert_eq!(info.tools_fresh_for(5_000), None);
        info.tools_listed_at = Some(1_000);
        info.tools_ttl_ms = Some(60_000);
        assert_eq!(info.tools_fresh_for(1_000), Some(60_000));
        assert_eq!(info.tools_fresh_for(31_000), Some(30_000));
        assert_eq!(info.tools_fresh_for(61_000), Some(0));
        assert_eq!(info.tools_fresh_for(u64::MAX), Some(0));
        // `ttlMs: 0` is stale at once; a hint past the cap keeps a day.
        info.tools_ttl_ms = Some(0);
        assert_eq!(info.tools_fresh_for(1_000), Some(0));
        info.tools_ttl_ms = Some(u64::MAX);
        assert_eq!(
            info.tools_fresh_for(1_000),
            Some(crate::plugin::mcp_list::MAX_LIST_TTL_MS)
        );
        let wire = serde_json::to_value(&info).unwrap();
        assert_eq!(wire["toolsListedAt"], 1_000);
        assert_eq!(serde_json::from_value::<McpInfo>(wire).unwrap(), info);
    }
}
