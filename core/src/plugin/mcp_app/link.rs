//! What a tool's `_meta.ui` says of MCP Apps: its `ui://` page and who may call it.
//! Plain data, read once at install and kept on the function.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The scheme of an app's page.
pub const UI_SCHEME: &str = "ui://";
/// The most characters of a page's URI.
pub const MAX_RESOURCE_URI_CHARS: usize = 2_048;

/// What a tool's `_meta.ui` says. Stored as `{"resourceUri"?, "forModel", "forApp"}`,
/// read through `serde_json::Value` (whose reader every module has already: a derived
/// reader of its own would grow the first load).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Value", into = "Value")]
pub struct AppLink {
    /// The `ui://` page that shows the tool's results, if it has one.
    pub resource_uri: Option<String>,
    /// Whether the model is offered the tool.
    pub for_model: bool,
    /// Whether a page of the same server may call it.
    pub for_app: bool,
}

impl From<Value> for AppLink {
    fn from(stored: Value) -> Self {
        let said = |name: &str| stored.get(name).and_then(Value::as_bool).unwrap_or(true);
        Self {
            resource_uri: stored
                .get("resourceUri")
                .and_then(Value::as_str)
                .filter(|uri| is_ui_uri(uri))
                .map(str::to_string),
            for_model: said("forModel"),
            for_app: said("forApp"),
        }
    }
}

impl From<AppLink> for Value {
    fn from(link: AppLink) -> Self {
        let mut stored = serde_json::json!({"forModel": link.for_model, "forApp": link.for_app});
        if let Some(uri) = link.resource_uri {
            stored["resourceUri"] = Value::String(uri);
        }
        stored
    }
}

impl AppLink {
    /// The link of an MCP `tools/list` entry, if its `_meta` says anything of MCP Apps:
    /// `_meta.ui.resourceUri` (or the deprecated `_meta["ui/resourceUri"]`) when it is a
    /// `ui://` URI, and `_meta.ui.visibility` (both when absent; unknown entries ignored).
    pub fn of_tool(tool: &Value) -> Option<Self> {
        let meta = tool.get("_meta")?;
        let ui = meta.get("ui");
        let resource_uri = ui
            .and_then(|ui| ui.get("resourceUri"))
            .or_else(|| meta.get("ui/resourceUri"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|uri| is_ui_uri(uri))
            .map(str::to_string);
        let visibility = ui
            .and_then(|ui| ui.get("visibility"))
            .and_then(Value::as_array);
        if resource_uri.is_none() && visibility.is_none() {
            return None;
        }
        let said =
            |who: &str| visibility.is_none_or(|list| list.iter().any(|v| v.as_str() == Some(who)));
        Some(Self {
            resource_uri,
            for_model: said("model"),
            for_app: said("app"),
        })
    }
}

/// Whether `uri` is a usable `ui://` URI.
pub fn is_ui_uri(uri: &str) -> bool {
    uri.len() > UI_SCHEME.len()
        && uri
            .get(..UI_SCHEME.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(UI_SCHEME))
        && uri.chars().count() <= MAX_RESOURCE_URI_CHARS
        && !uri.chars().any(|c| c.is_control() || c.is_whitespace())
}
