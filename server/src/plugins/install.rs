//! Turning what the user gave into a plugin: an OpenAPI description (pasted, or fetched
//! through `safe_fetch` as a user-chosen target) imported by `core::plugin::openapi`, or
//! a remote MCP server, discovered through [`crate::mcp`] with its headers and
//! credential checked, whose tools become functions. Registering the plugin is the
//! service's ([`super::Plugins::install`]).

use std::collections::BTreeMap;

use hearth_core::api::{ApiError, ErrorCode, SkippedOperation};
use hearth_core::plugin::openapi::{self, MAX_SPEC_BYTES};
use hearth_core::plugin::{Auth, AuthPlacement, McpInfo, Plugin, Source, mcp};
use hearth_core::url_policy::Target;
use serde_json::json;

use crate::mcp::{Access, Discovered};
use crate::safe_fetch::{FetchError, Limits, OutboundRequest, SafeFetch};

/// A plugin and the operations that did not become functions, with the reasons.
pub type Installed = (Plugin, Vec<SkippedOperation>);

/// The refusal of a request that names no source, or more than one.
pub fn one_source() -> ApiError {
    ApiError::new(
        ErrorCode::BadRequest,
        "Give one of spec, manifestUrl or mcpUrl",
    )
}

/// A fresh plugin id from its title: `openapi-<slug>-<random>`.
fn new_id(title: &str) -> String {
    let slug: String = title
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|s| !s.is_empty())
        .take(4)
        .collect::<Vec<_>>()
        .join("-");
    let random: String = crate::signing::random_bytes()[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let slug = if slug.is_empty() {
        "plugin".into()
    } else {
        slug
    };
    format!("openapi-{slug}-{random}")
}

fn skipped(operations: Vec<openapi::Skipped>) -> Vec<SkippedOperation> {
    operations
        .into_iter()
        .map(|s| SkippedOperation {
            operation: s.operation,
            reason: s.reason,
        })
        .collect()
}

/// The OpenAPI plugin `spec` (pasted) or `manifest_url` (fetched) describes.
pub async fn openapi(
    fetch: &SafeFetch,
    spec: Option<String>,
    manifest_url: Option<String>,
) -> Result<Installed, ApiError> {
    let (text, manifest_url) = match (spec, manifest_url) {
        (Some(spec), None) => (spec, None),
        (None, Some(url)) => {
            let response = fetch
                .with_limits(Limits {
                    max_body_bytes: MAX_SPEC_BYTES,
                    ..fetch.limits()
                })
                .fetch(OutboundRequest::get(Target::UserConfigured, &url))
                .await
                .map_err(|e| e.to_api_error())?;
            if !response.status.is_success() {
                return Err(ApiError::new(
                    ErrorCode::UpstreamError,
                    format!(
                        "The description's URL answered HTTP {}",
                        response.status.as_u16()
                    ),
                ));
            }
            (
                String::from_utf8_lossy(&response.body).into_owned(),
                Some(response.url.to_string()),
            )
        }
        _ => return Err(one_source()),
    };
    let imported = openapi::import(&text, manifest_url.as_deref()).map_err(|error| {
        ApiError::new(
            ErrorCode::BadRequest,
            format!("This description cannot be a plugin: {error}"),
        )
        .with_details(json!({ "reason": error.to_string() }))
    })?;
    // Every call goes to this server: one the policy refuses (cloud metadata,
    // credentials in the URL, a private address when hosted) would install as if usable
    // and then fail on each call, so it is refused now, with the reason.
    fetch
        .check_url(Target::UserConfigured, &imported.server_url)
        .map_err(|error| {
            let reason = match &error {
                FetchError::UrlBlocked(why) => why.to_string(),
                other => other.to_string(),
            };
            ApiError::new(
                ErrorCode::UrlBlocked,
                format!("This plugin's server cannot be called from here: {reason}"),
            )
            .with_details(json!({ "serverUrl": imported.server_url, "reason": reason }))
        })?;
    let plugin = Plugin {
        description: imported.description,
        manifest_url,
        server_url: Some(imported.server_url),
        ..Plugin::new(
            new_id(&imported.title),
            imported.title,
            Source::Openapi,
            imported.auth,
            imported.functions,
        )
    };
    Ok((plugin, skipped(imported.skipped)))
}

/// The auth and plain headers an MCP server is given: the headers checked first, then
/// the credential's header (`Authorization: Bearer` unless `auth_header` names another).
pub fn mcp_access(
    has_credential: bool,
    oauth: bool,
    auth_header: Option<&str>,
    headers: &BTreeMap<String, String>,
) -> Result<(Auth, BTreeMap<String, String>), ApiError> {
    let bad_header =
        |error: mcp::HeaderError| ApiError::new(ErrorCode::BadRequest, format!("Headers: {error}"));
    let headers = mcp::check_headers(headers).map_err(bad_header)?;
    let auth = match (has_credential, auth_header) {
        (false, _) => Auth::None,
        (true, None) if oauth => Auth::Oauth2,
        (true, None) => Auth::Bearer,
        (true, Some(name)) => Auth::ApiKey {
            name: mcp::check_credential_header(name).map_err(bad_header)?,
            placement: AuthPlacement::Header,
        },
    };
    Ok((auth, headers))
}

/// Discovers the MCP server at `url`; one that offers nothing is refused.
pub async fn discover_mcp(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
) -> Result<Discovered, ApiError> {
    let discovered = crate::mcp::discover(fetch, url, access)
        .await
        .map_err(|e| e.to_api_error())?;
    if discovered.tools.is_empty() && !discovered.resources && !discovered.prompts {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            "This MCP server offers no tools, resources or prompts",
        ));
    }
    Ok(discovered)
}

/// The plugin of a discovered MCP server: its tools as functions, named apart from the
/// `taken` names of the scope's other plugins.
pub fn mcp_plugin(
    discovered: Discovered,
    url: &str,
    access: &Access<'_>,
    taken: Vec<String>,
) -> Installed {
    let (functions, skipped_tools) =
        mcp::functions(&discovered.server_name, &discovered.tools, taken);
    let id = new_id(&discovered.server_name).replacen("openapi-", "mcp-", 1);
    let plugin = Plugin {
        mcp: Some(McpInfo {
            server_url: url.to_string(),
            server_name: discovered.server_name.clone(),
            resources: discovered.resources,
            prompts: discovered.prompts,
            headers: access.headers.clone(),
            revision: discovered.revision.clone(),
            tools_listed_at: Some(crate::clock::now_ms()),
            tools_ttl_ms: discovered.tools_ttl_ms,
        }),
        ..Plugin::new(
            id,
            discovered.server_name,
            Source::Mcp,
            access.auth.clone(),
            functions,
        )
    };
    (plugin, skipped(skipped_tools))
}
