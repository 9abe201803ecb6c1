//! MCP Apps (the `io.modelcontextprotocol/ui` extension, revision 2026-01-26): a tool
//! whose `_meta.ui.resourceUri` names a `ui://` resource has its result shown by that
//! resource, an HTML page the host runs in a sandbox. The rules without I/O live here:
//!
//! - [`AppLink`] (`link`): what a tool's `_meta.ui` says (its page, and whether the
//!   model, the page, or both may call it), read once at install and kept on the
//!   function (`PluginFunction::offered_to_model`, `callable_by_app`, `app_page`);
//! - [`read_app_resource`]: a `resources/read` answer turned into the page's HTML
//!   (the MCP Apps type only, bounded), and the network origins it asked for (never
//!   granted: the sandbox has no network);
//! - [`app_call_target`]: which function a page's `tools/call` runs (its own server's
//!   tools that apps may call, under the user's switches), so that it is confirmed and
//!   fingerprinted exactly as a model's call;
//! - [`bridge`]: the JSON-RPC messages between the page and the host, read and written.

pub mod bridge;
pub mod link;

pub use link::{AppLink, MAX_RESOURCE_URI_CHARS};

use base64::Engine;
use serde_json::Value;

use super::model::Plugin;
use super::selection::{ToolPreferences, ToolTarget};
use crate::api::RegisteredPlugin;

/// The only type of page an app may have.
pub const APP_MIME: &str = "text/html;profile=mcp-app";
/// The most bytes of a page's HTML.
pub const MAX_APP_HTML_BYTES: usize = 1024 * 1024;
/// The most origins kept of those a page asked for (they are shown, never granted).
pub const MAX_ASKED_ORIGINS: usize = 12;
/// The most characters of a call's structured content kept with the call for its page
/// (as JSON); larger content is not kept, and the page gets the text alone.
pub const MAX_KEPT_STRUCTURED_CHARS: usize = 64 * 1024;
/// The most characters of one asked origin.
const MAX_ORIGIN_CHARS: usize = 200;

/// The structured content of a call, as kept with the call for its page: JSON text of
/// at most [`MAX_KEPT_STRUCTURED_CHARS`], else empty (none, or too large).
pub fn kept_structured(structured: Option<&Value>) -> String {
    structured
        .map(Value::to_string)
        .filter(|text| text.len() <= MAX_KEPT_STRUCTURED_CHARS)
        .unwrap_or_default()
}

/// The structured content a call kept ([`kept_structured`]), read back.
pub fn stored_structured(kept: &str) -> Option<Value> {
    serde_json::from_str(kept).ok()
}

/// A page ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppResource {
    /// Its HTML.
    pub html: String,
    /// Whether it asked for a border (`_meta.ui.prefersBorder`); the host decides when
    /// it said nothing.
    pub prefers_border: Option<bool>,
    /// The origins it asked to reach (`_meta.ui.csp`), bounded: shown to the user as
    /// refused, since a page in Hearth's sandbox reaches no network.
    pub asked_origins: Vec<String>,
}

/// Why a page cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppResourceError {
    /// No content for the page (or several, none with its URI).
    #[error("the server sent no content for {0}")]
    Missing(String),
    /// Not an MCP App page.
    #[error("the page has type {0:?}, not {APP_MIME}")]
    WrongType(String),
    /// Past [`MAX_APP_HTML_BYTES`].
    #[error("the page is larger than {} KiB", MAX_APP_HTML_BYTES / 1024)]
    TooLarge,
    /// A blob that is not base64 of UTF-8.
    #[error("the page is not UTF-8 text")]
    NotText,
}

/// The page `uri` in a `resources/read` answer (`{"contents": [...]}`): the content with
/// that URI (or the only one), of type [`APP_MIME`] (parameters compared without case
/// or spaces), as `text` or a base64 `blob`, at most [`MAX_APP_HTML_BYTES`].
pub fn read_app_resource(result: &Value, uri: &str) -> Result<AppResource, AppResourceError> {
    let contents = result
        .get("contents")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let content = contents
        .iter()
        .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri))
        .or(match contents {
            [only] => Some(only),
            _ => None,
        })
        .ok_or_else(|| AppResourceError::Missing(uri.to_string()))?;
    let mime = content
        .get("mimeType")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let normalised: String = mime
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    if normalised != APP_MIME {
        return Err(AppResourceError::WrongType(mime.chars().take(80).collect()));
    }
    let html = if let Some(text) = content.get("text").and_then(Value::as_str) {
        if text.len() > MAX_APP_HTML_BYTES {
            return Err(AppResourceError::TooLarge);
        }
        text.to_string()
    } else if let Some(blob) = content.get("blob").and_then(Value::as_str) {
        if blob.len() > MAX_APP_HTML_BYTES.div_ceil(3) * 4 + 4 {
            return Err(AppResourceError::TooLarge);
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob.trim())
            .map_err(|_| AppResourceError::NotText)?;
        if bytes.len() > MAX_APP_HTML_BYTES {
            return Err(AppResourceError::TooLarge);
        }
        String::from_utf8(bytes).map_err(|_| AppResourceError::NotText)?
    } else {
        return Err(AppResourceError::Missing(uri.to_string()));
    };
    let ui = content.get("_meta").and_then(|m| m.get("ui"));
    let prefers_border = ui
        .and_then(|ui| ui.get("prefersBorder"))
        .and_then(Value::as_bool);
    let mut asked_origins: Vec<String> = Vec::new();
    let csp = ui.and_then(|ui| ui.get("csp"));
    for list in [
        "connectDomains",
        "resourceDomains",
        "frameDomains",
        "baseUriDomains",
    ] {
        for origin in csp
            .and_then(|csp| csp.get(list))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let origin: String = origin
                .trim()
                .chars()
                .filter(|c| !c.is_control())
                .take(MAX_ORIGIN_CHARS)
                .collect();
            if !origin.is_empty()
                && !asked_origins.contains(&origin)
                && asked_origins.len() < MAX_ASKED_ORIGINS
            {
                asked_origins.push(origin);
            }
        }
    }
    Ok(AppResource {
        html,
        prefers_border,
        asked_origins,
    })
}

/// Why a page's `tools/call` is refused before it could run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppCallRefused {
    /// Not a tool of the page's own server (or not listed).
    #[error("the server of this app has no tool named {0}")]
    NoSuchTool(String),
    /// Its visibility leaves apps out.
    #[error("the tool {0} may not be called by an app")]
    NotForApps(String),
    /// The user switched the plugin or the tool off.
    #[error("the user has switched the tool {0} off")]
    SwitchedOff(String),
}

/// What a page of plugin `plugin_id` calling the server's tool `tool` runs: the plugin's
/// function for that tool (never another plugin's), when apps may call it and the user's
/// switches leave it on, with the fingerprint it is listed with; its confirmation then
/// follows the same rules as a model's call.
pub fn app_call_target(
    installed: &[RegisteredPlugin],
    prefs: &ToolPreferences,
    plugin_id: &str,
    tool: &str,
) -> Result<ToolTarget, AppCallRefused> {
    let no_such = || AppCallRefused::NoSuchTool(tool.chars().take(100).collect());
    let registered = installed
        .iter()
        .find(|r| r.plugin.id == plugin_id && r.plugin.mcp.is_some())
        .ok_or_else(no_such)?;
    let plugin: &Plugin = &registered.plugin;
    let function = plugin
        .functions
        .iter()
        .find(|f| f.tool.as_deref() == Some(tool))
        .ok_or_else(no_such)?;
    if !function.callable_by_app() {
        return Err(AppCallRefused::NotForApps(tool.to_string()));
    }
    if !prefs.plugin_on(plugin)
        || !function.enabled
        || !prefs.function_on(&plugin.id, &function.name)
    {
        return Err(AppCallRefused::SwitchedOff(tool.to_string()));
    }
    let fingerprint = registered
        .fingerprints
        .get(&function.name)
        .ok_or_else(no_such)?
        .clone();
    Ok(ToolTarget::new(plugin, function, fingerprint))
}

#[cfg(test)]
mod tests;
