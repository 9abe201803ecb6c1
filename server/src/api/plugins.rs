//! `POST /api/plugins/install`, `GET /api/plugins/list`, `POST /api/plugins/execute` and
//! `POST /api/plugins/uninstall` for OpenAPI plugins and remote MCP servers, and `POST
//! /api/mcp/resources` and `/api/mcp/prompts` for an installed MCP server's resources and
//! prompts.
//!
//! Install takes a pasted description or fetches it through `safe_fetch`, imports it
//! with `core::plugin::openapi` and registers the plugin in the caller's scope. Execute
//! finds the function in the caller's registry (never a definition from the browser),
//! recomputes its fingerprint and refuses a mismatch, checks the arguments, opens the
//! credential envelope for `plugin:<id>:auth`, builds the request with
//! `core::plugin::call` and sends it through `safe_fetch` (the URL policy, a deadline, a
//! response cap). An upstream's answer, error statuses included, comes back as a bounded
//! `ToolResult`; a refusal before anything was sent is an API error.

use std::time::Instant;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use hearth_core::api::{
    ApiError, DeploymentMode, ErrorCode, McpPromptsAction, McpPromptsRequest, McpResourcesAction,
    McpResourcesRequest, PluginExecuteRequest, PluginExecuteResponse, PluginInstallRequest,
    PluginInstallResponse, PluginListResponse, PluginUninstallRequest, RegisteredPlugin,
    SkippedOperation,
};
use hearth_core::byok::context;
use hearth_core::plugin::fingerprint::fingerprint;
use hearth_core::plugin::openapi::{self, MAX_SPEC_BYTES};
use hearth_core::plugin::result::ToolResult;
use hearth_core::plugin::{Plugin, Source, args, builtin, call, registry};
use hearth_core::url_policy::Target;
use serde_json::{Value, json};

use super::error::ApiErrorResponse;
use super::json::ApiJson;
use super::sealed::SealedJson;
use crate::mcp::Browse;
use crate::plugins::MAX_PLUGINS_PER_SCOPE;
use crate::rate_limit;
use crate::safe_fetch::{Limits, OutboundRequest};
use crate::state::AppState;

/// The largest tool response read, in bytes.
const MAX_TOOL_RESPONSE_BYTES: usize = 2 * 1024 * 1024;

fn refuse(code: ErrorCode, message: impl Into<String>) -> ApiErrorResponse {
    ApiErrorResponse(ApiError::new(code, message))
}

fn store_down(error: crate::kv::KvError) -> ApiErrorResponse {
    tracing::warn!("plugin registry: {error}");
    refuse(
        ErrorCode::ServiceUnavailable,
        "The plugin registry is unavailable; try again shortly",
    )
}

/// Whose plugins a request touches: everyone's single registry locally; the client's
/// own signed identity when hosted.
fn scope(state: &AppState, headers: &HeaderMap) -> Result<String, ApiErrorResponse> {
    if state.config.deployment.mode != DeploymentMode::Hosted {
        return Ok("local".into());
    }
    rate_limit::client_id(headers, &state.signer)
        .map(|id| format!("client:{id}"))
        .ok_or_else(|| {
            refuse(
                ErrorCode::BadRequest,
                "This browser has no client identity yet; reload the page and try again",
            )
        })
}

/// Opens a credential envelope sealed for `context` (none given: no credential).
fn open_credential(
    state: &AppState,
    envelope: Option<&hearth_core::byok::Envelope>,
    context: &str,
) -> Result<Option<String>, ApiErrorResponse> {
    match (envelope, &state.byok) {
        (None, _) => Ok(None),
        (Some(_), None) => Err(refuse(ErrorCode::AuthError, "This edge has no BYOK key")),
        (Some(envelope), Some(keys)) => keys.open(envelope, context).map(Some).map_err(|error| {
            ApiErrorResponse(
                ApiError::new(
                    ErrorCode::AuthError,
                    "The credential envelope could not be opened",
                )
                .with_details(json!({ "reason": error.to_string() })),
            )
        }),
    }
}

fn registered(plugin: Plugin) -> RegisteredPlugin {
    let fingerprints = plugin
        .functions
        .iter()
        .map(|f| (f.name.clone(), fingerprint(&plugin, f)))
        .collect();
    RegisteredPlugin {
        plugin,
        fingerprints,
    }
}

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

/// `POST /api/plugins/install`.
pub async fn install(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<PluginInstallRequest>,
) -> Result<Response, ApiErrorResponse> {
    let scope = scope(&state, &headers)?;
    if let Some(url) = request.mcp_url {
        if request.spec.is_some() || request.manifest_url.is_some() {
            return Err(refuse(
                ErrorCode::BadRequest,
                "Give one of spec, manifestUrl or mcpUrl",
            ));
        }
        let token = open_credential(&state, request.auth.as_ref(), &context::mcp_install())?;
        let bad_header = |error: hearth_core::plugin::mcp::HeaderError| {
            refuse(ErrorCode::BadRequest, format!("Headers: {error}"))
        };
        let headers =
            hearth_core::plugin::mcp::check_headers(&request.mcp_headers).map_err(bad_header)?;
        let auth = match (&token, request.auth_header.as_deref()) {
            (None, _) => hearth_core::plugin::Auth::None,
            (Some(_), None) => hearth_core::plugin::Auth::Bearer,
            (Some(_), Some(name)) => hearth_core::plugin::Auth::ApiKey {
                name: hearth_core::plugin::mcp::check_credential_header(name)
                    .map_err(bad_header)?,
                placement: hearth_core::plugin::AuthPlacement::Header,
            },
        };
        let access = crate::mcp::Access {
            auth: &auth,
            secret: token.as_deref(),
            headers: &headers,
        };
        return install_mcp(&state, &scope, &url, &access).await;
    }
    let (text, manifest_url) = match (request.spec, request.manifest_url) {
        (Some(spec), None) => (spec, None),
        (None, Some(url)) => {
            let response = state
                .fetch
                .with_limits(Limits {
                    max_body_bytes: MAX_SPEC_BYTES,
                    ..state.fetch.limits()
                })
                .fetch(OutboundRequest::get(Target::UserConfigured, &url))
                .await
                .map_err(|e| ApiErrorResponse(e.to_api_error()))?;
            if !response.status.is_success() {
                return Err(refuse(
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
        _ => {
            return Err(refuse(
                ErrorCode::BadRequest,
                "Give one of spec, manifestUrl or mcpUrl",
            ));
        }
    };
    let imported = openapi::import(&text, manifest_url.as_deref()).map_err(|error| {
        ApiErrorResponse(
            ApiError::new(
                ErrorCode::BadRequest,
                format!("This description cannot be a plugin: {error}"),
            )
            .with_details(json!({ "reason": error.to_string() })),
        )
    })?;
    // Every call goes to this server: one the policy refuses (cloud metadata,
    // credentials in the URL, a private address when hosted) would install as if usable
    // and then fail on each call, so it is refused now, with the reason.
    state
        .fetch
        .check_url(Target::UserConfigured, &imported.server_url)
        .map_err(|error| {
            let reason = match &error {
                crate::safe_fetch::FetchError::UrlBlocked(why) => why.to_string(),
                other => other.to_string(),
            };
            ApiErrorResponse(
                ApiError::new(
                    ErrorCode::UrlBlocked,
                    format!("This plugin's server cannot be called from here: {reason}"),
                )
                .with_details(json!({ "serverUrl": imported.server_url, "reason": reason })),
            )
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
    register(&state, &scope, &plugin).await?;
    let skipped = imported
        .skipped
        .into_iter()
        .map(|s| SkippedOperation {
            operation: s.operation,
            reason: s.reason,
        })
        .collect();
    Ok(axum::Json(PluginInstallResponse {
        registered: registered(plugin),
        skipped,
    })
    .into_response())
}

/// Adds `plugin` to the caller's registry.
async fn register(state: &AppState, scope: &str, plugin: &Plugin) -> Result<(), ApiErrorResponse> {
    registry::check_installable(plugin)
        .map_err(|e| refuse(ErrorCode::BadRequest, e.to_string()))?;
    let mut plugins = state.plugins.list(scope).await.map_err(store_down)?;
    if plugins.len() >= MAX_PLUGINS_PER_SCOPE {
        return Err(refuse(
            ErrorCode::BadRequest,
            format!("You have {MAX_PLUGINS_PER_SCOPE} plugins; remove one first"),
        ));
    }
    plugins.push(plugin.clone());
    state
        .plugins
        .save(scope, &plugins)
        .await
        .map_err(store_down)
}

/// Installs the MCP server at `url`: discovery, then its tools as functions.
async fn install_mcp(
    state: &AppState,
    scope: &str,
    url: &str,
    access: &crate::mcp::Access<'_>,
) -> Result<Response, ApiErrorResponse> {
    let discovered = crate::mcp::discover(&state.fetch, url, access)
        .await
        .map_err(|e| ApiErrorResponse(e.to_api_error()))?;
    if discovered.tools.is_empty() && !discovered.resources && !discovered.prompts {
        return Err(refuse(
            ErrorCode::BadRequest,
            "This MCP server offers no tools, resources or prompts",
        ));
    }
    let taken: Vec<String> = state
        .plugins
        .list(scope)
        .await
        .map_err(store_down)?
        .iter()
        .flat_map(|p| p.functions.iter().map(|f| f.name.clone()))
        .collect();
    let (functions, skipped) =
        hearth_core::plugin::mcp::functions(&discovered.server_name, &discovered.tools, taken);
    let id = new_id(&discovered.server_name).replacen("openapi-", "mcp-", 1);
    let plugin = Plugin {
        mcp: Some(hearth_core::plugin::McpInfo {
            server_url: url.to_string(),
            server_name: discovered.server_name.clone(),
            resources: discovered.resources,
            prompts: discovered.prompts,
            headers: access.headers.clone(),
        }),
        ..Plugin::new(
            id,
            discovered.server_name,
            Source::Mcp,
            access.auth.clone(),
            functions,
        )
    };
    register(state, scope, &plugin).await?;
    Ok(axum::Json(PluginInstallResponse {
        registered: registered(plugin),
        skipped: skipped
            .into_iter()
            .map(|s| SkippedOperation {
                operation: s.operation,
                reason: s.reason,
            })
            .collect(),
    })
    .into_response())
}

/// `GET /api/plugins/list`.
pub async fn list(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiErrorResponse> {
    let scope = scope(&state, &headers)?;
    let plugins = state.plugins.list(&scope).await.map_err(store_down)?;
    Ok(axum::Json(PluginListResponse {
        plugins: plugins.into_iter().map(registered).collect(),
        builtins: builtin::all().into_iter().map(registered).collect(),
    })
    .into_response())
}

/// `POST /api/plugins/uninstall`.
pub async fn uninstall(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<PluginUninstallRequest>,
) -> Result<Response, ApiErrorResponse> {
    let scope = scope(&state, &headers)?;
    let mut plugins = state.plugins.list(&scope).await.map_err(store_down)?;
    let before = plugins.len();
    plugins.retain(|p| p.id != request.plugin_id);
    if plugins.len() == before {
        return Err(refuse(
            ErrorCode::NotFound,
            "You have no plugin with this id",
        ));
    }
    state
        .plugins
        .save(&scope, &plugins)
        .await
        .map_err(store_down)?;
    Ok(axum::Json(json!({ "removed": request.plugin_id })).into_response())
}

/// `POST /api/plugins/execute`.
pub async fn execute(
    State(state): State<AppState>,
    headers: HeaderMap,
    SealedJson(request): SealedJson<PluginExecuteRequest>,
) -> Result<Response, ApiErrorResponse> {
    let scope = scope(&state, &headers)?;
    let plugins = state.plugins.list(&scope).await.map_err(store_down)?;
    let builtins = builtin::all();
    let active = registry::active(&builtins, &plugins);
    let Some(plugin) = active.iter().find(|p| p.id == request.plugin_id) else {
        return Err(refuse(
            ErrorCode::NotFound,
            "You have no plugin with this id",
        ));
    };
    let Some(function) = plugin
        .functions
        .iter()
        .find(|f| f.name == request.function && f.enabled)
    else {
        return Err(refuse(
            ErrorCode::NotFound,
            format!(
                "{} has no enabled function {}",
                plugin.title, request.function
            ),
        ));
    };
    // The contract the browser saw must be the one about to run.
    let current = fingerprint(plugin, function);
    if current != request.fingerprint {
        return Err(ApiErrorResponse(
            ApiError::new(
                ErrorCode::FingerprintMismatch,
                "This function changed since it was listed; list the plugins again",
            )
            .with_details(json!({ "fingerprint": current })),
        ));
    }
    let args = if request.args.is_null() {
        json!({})
    } else {
        request.args
    };
    args::check(&args, &function.parameters).map_err(|error| {
        ApiErrorResponse(
            ApiError::new(ErrorCode::BadRequest, format!("Invalid arguments: {error}"))
                .with_details(json!({ "reason": error.to_string() })),
        )
    })?;
    let secret = open_credential(
        &state,
        request.auth.as_ref(),
        &context::plugin_auth(&plugin.id),
    )?;
    if plugin.source == Source::Builtin {
        let started = Instant::now();
        let result = match (plugin.id.as_str(), function.name.as_str()) {
            (builtin::WEB_READER_ID, builtin::READ_WEB_PAGE) => {
                crate::web_reader::read_web_page(&state.fetch, &args)
                    .await
                    .map_err(|e| ApiErrorResponse(e.to_api_error()))?
            }
            (builtin::IMAGE_GENERATOR_ID, _) => ToolResult::error(
                "the image generator runs in the browser with the user's own key, not on the edge",
            ),
            _ => ToolResult::error("this built-in function is not available here"),
        };
        return Ok(axum::Json(PluginExecuteResponse {
            result,
            duration_ms: started.elapsed().as_millis() as u64,
        })
        .into_response());
    }
    if let (Some(mcp), Some(tool)) = (&plugin.mcp, &function.tool) {
        if plugin.auth != hearth_core::plugin::Auth::None && secret.is_none() {
            return Err(refuse(
                ErrorCode::BadRequest,
                "this plugin needs a credential; add it in its settings",
            ));
        }
        let started = Instant::now();
        let access = crate::mcp::Access {
            auth: &plugin.auth,
            secret: secret.as_deref(),
            headers: &mcp.headers,
        };
        let result = crate::mcp::call(&state.fetch, &mcp.server_url, &access, tool, args)
            .await
            .map_err(|e| ApiErrorResponse(e.to_api_error()))?;
        return Ok(axum::Json(PluginExecuteResponse {
            result: ToolResult::from_mcp(&result),
            duration_ms: started.elapsed().as_millis() as u64,
        })
        .into_response());
    }
    let built = call::build(plugin, function, &args, secret.as_deref())
        .map_err(|e| refuse(ErrorCode::BadRequest, e.to_string()))?;
    // The plugin's server is the one the user installed; `call::build` keeps the
    // request on it.
    let mut outbound = OutboundRequest::get(Target::UserConfigured, &built.url);
    outbound.method = Method::from_bytes(built.method.as_str().as_bytes()).unwrap_or(Method::GET);
    for (name, value) in built.headers {
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) else {
            return Err(refuse(
                ErrorCode::BadRequest,
                "A header of this call is invalid",
            ));
        };
        if name == axum::http::header::CONTENT_TYPE {
            outbound.headers.push((name, value));
        } else {
            // Credentials: never sent on to another origin by a redirect.
            outbound.secret_headers.push((name, value));
        }
    }
    outbound.body = built.body.map(Bytes::from);
    let started = Instant::now();
    let response = state
        .fetch
        .with_limits(Limits {
            max_body_bytes: MAX_TOOL_RESPONSE_BYTES,
            ..state.fetch.limits()
        })
        .fetch(outbound)
        .await
        .map_err(|e| {
            let mut error = e.to_api_error();
            if let Some(secret) = &secret {
                error.error = error.error.replace(secret.as_str(), "[redacted]");
            }
            ApiErrorResponse(error)
        })?;
    let mut text = String::from_utf8_lossy(&response.body).into_owned();
    if let Some(secret) = &secret {
        text = text.replace(secret.as_str(), "[redacted]");
    }
    Ok(axum::Json(PluginExecuteResponse {
        result: ToolResult::from_http(response.status.as_u16(), &text),
        duration_ms: started.elapsed().as_millis() as u64,
    })
    .into_response())
}

/// Runs one resources or prompts request on the caller's MCP plugin `plugin_id`, with
/// its credential opened from `envelope` and its headers.
async fn browse_plugin(
    state: &AppState,
    headers: &HeaderMap,
    plugin_id: &str,
    envelope: Option<&hearth_core::byok::Envelope>,
    what: Browse,
) -> Result<Response, ApiErrorResponse> {
    let scope = scope(state, headers)?;
    let plugins = state.plugins.list(&scope).await.map_err(store_down)?;
    let (plugin, mcp) = plugins
        .into_iter()
        .find(|p| p.id == plugin_id)
        .and_then(|p| p.mcp.clone().map(|m| (p, m)))
        .ok_or_else(|| refuse(ErrorCode::NotFound, "You have no MCP plugin with this id"))?;
    let secret = open_credential(state, envelope, &context::plugin_auth(&plugin.id))?;
    let access = crate::mcp::Access {
        auth: &plugin.auth,
        secret: secret.as_deref(),
        headers: &mcp.headers,
    };
    let result = crate::mcp::browse(&state.fetch, &mcp.server_url, &access, what)
        .await
        .map_err(|e| ApiErrorResponse(e.to_api_error()))?;
    Ok(axum::Json(result).into_response())
}

/// `POST /api/mcp/resources`: list a server's resources, or read one.
pub async fn mcp_resources(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<McpResourcesRequest>,
) -> Result<Response, ApiErrorResponse> {
    let what = match request.action {
        McpResourcesAction::List => Browse::Resources,
        McpResourcesAction::Read { uri } => Browse::ReadResource(uri),
    };
    browse_plugin(
        &state,
        &headers,
        &request.plugin_id,
        request.auth.as_ref(),
        what,
    )
    .await
}

/// `POST /api/mcp/prompts`: list a server's prompts, or get one with its arguments.
pub async fn mcp_prompts(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<McpPromptsRequest>,
) -> Result<Response, ApiErrorResponse> {
    let what = match request.action {
        McpPromptsAction::List => Browse::Prompts,
        McpPromptsAction::Get { name, args } => Browse::GetPrompt(
            name,
            args.into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
        ),
    };
    browse_plugin(
        &state,
        &headers,
        &request.plugin_id,
        request.auth.as_ref(),
        what,
    )
    .await
}
