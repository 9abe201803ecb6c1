//! The plugin service behind `/api/plugins/*` and `/api/mcp/resources|prompts`: whose
//! plugins a request touches (its scope), installing, listing and uninstalling them,
//! running one function, and browsing an MCP plugin's resources and prompts.
//!
//! - [`registry`]: where each scope's plugins are kept.
//! - [`install`]: an OpenAPI description (pasted, or fetched through `safe_fetch`) or a
//!   remote MCP server turned into a plugin.
//! - [`dispatch`]: one call, run as a built-in, an MCP tool or a REST request.
//! - [`relist`]: an installed MCP server's tools listed again.
//!
//! A call runs only what the caller's registry holds (never a definition from the
//! browser): the fingerprint is recomputed and a mismatch refused, the arguments are
//! checked, and the credential is opened from its envelope for `plugin:<id>:auth`.
//! Refusals before anything was sent are [`ApiError`]s; an upstream's answer, error
//! statuses included, is a bounded `ToolResult`.

pub mod dispatch;
pub mod install;
pub mod registry;
pub mod relist;

use std::sync::Arc;

use axum::http::HeaderMap;
use hearth_core::api::{
    ApiError, DeploymentMode, ErrorCode, PluginExecuteRequest, PluginExecuteResponse,
    PluginInstallRequest, PluginInstallResponse, PluginListResponse, PluginRefreshRequest,
    PluginRefreshResponse, RegisteredPlugin,
};
use hearth_core::byok::{Envelope, context};
use hearth_core::plugin::fingerprint::fingerprint;
use hearth_core::plugin::{Plugin, args, builtin, registry as names};
use serde_json::{Value, json};

use self::registry::{MAX_PLUGINS_PER_SCOPE, PluginRegistry};
use crate::byok::ByokKeys;
use crate::kv::KvError;
use crate::mcp::{self, Access, Browse};
use crate::safe_fetch::SafeFetch;
use crate::signing::Signer;

/// The plugin service. Cheap to clone.
#[derive(Clone)]
pub struct Plugins {
    registry: PluginRegistry,
    fetch: SafeFetch,
    byok: Option<Arc<ByokKeys>>,
    signer: Signer,
    mode: DeploymentMode,
    /// Tool calls whose handshake server waits for the user's answer.
    held: mcp::HeldToolCalls,
}

fn store_down(error: KvError) -> ApiError {
    tracing::warn!("plugin registry: {error}");
    ApiError::new(
        ErrorCode::ServiceUnavailable,
        "The plugin registry is unavailable; try again shortly",
    )
}

/// The user's replies to an MCP server's questions that `request` carries, checked
/// (`None`: a first call). A state without replies, or replies past their bounds, is a
/// bad request: nothing is sent to the server.
fn replies(request: &PluginExecuteRequest) -> Result<Option<mcp::Replies>, ApiError> {
    use hearth_core::plugin::elicitation::{MAX_STATE_BYTES, answer::read_responses};
    let bad = |why: String| ApiError::new(ErrorCode::BadRequest, format!("Invalid answers: {why}"));
    if request
        .request_state
        .as_ref()
        .is_some_and(|s| s.len() > MAX_STATE_BYTES)
    {
        return Err(bad("the request state is too large".into()));
    }
    match &request.input_responses {
        None if request.request_state.is_some() => {
            Err(bad("a request state without answers".into()))
        }
        None => Ok(None),
        Some(responses) => {
            let responses = read_responses(responses).map_err(bad)?;
            Ok(Some((responses, request.request_state.clone())))
        }
    }
}

fn no_such_plugin() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "You have no plugin with this id")
}

/// A plugin with the fingerprint of each function, as the browser lists it, and for an
/// MCP server how much longer its tool list keeps.
fn registered(plugin: Plugin) -> RegisteredPlugin {
    let fingerprints = plugin
        .functions
        .iter()
        .map(|f| (f.name.clone(), fingerprint(&plugin, f)))
        .collect();
    let tools_fresh_for_ms = plugin
        .mcp
        .as_ref()
        .and_then(|m| m.tools_fresh_for(crate::clock::now_ms()));
    RegisteredPlugin {
        plugin,
        fingerprints,
        tools_fresh_for_ms,
    }
}

impl Plugins {
    /// The service over `registry`, calling out through `fetch` and opening credentials
    /// with `byok`; `signer` and `mode` decide scopes.
    pub fn new(
        registry: PluginRegistry,
        fetch: SafeFetch,
        byok: Option<Arc<ByokKeys>>,
        signer: Signer,
        mode: DeploymentMode,
    ) -> Self {
        Self {
            registry,
            fetch,
            byok,
            signer,
            mode,
            held: mcp::HeldToolCalls::default(),
        }
    }

    /// Whose plugins a request touches: everyone's single registry locally; the client's
    /// own signed identity when hosted.
    pub fn scope(&self, headers: &HeaderMap) -> Result<String, ApiError> {
        crate::client_scope::scope(self.mode, headers, &self.signer)
    }

    /// Opens a credential envelope sealed for `context` (none given: no credential).
    fn open_credential(
        &self,
        envelope: Option<&Envelope>,
        context: &str,
    ) -> Result<Option<String>, ApiError> {
        match (envelope, &self.byok) {
            (None, _) => Ok(None),
            (Some(_), None) => Err(ApiError::new(
                ErrorCode::AuthError,
                "This edge has no BYOK key",
            )),
            (Some(envelope), Some(keys)) => {
                keys.open(envelope, context).map(Some).map_err(|error| {
                    ApiError::new(
                        ErrorCode::AuthError,
                        "The credential envelope could not be opened",
                    )
                    .with_details(json!({ "reason": error.to_string() }))
                })
            }
        }
    }

    /// Installs what `request` names (an MCP server, a pasted description or one at a
    /// URL) into `scope`.
    pub async fn install(
        &self,
        scope: &str,
        request: PluginInstallRequest,
    ) -> Result<PluginInstallResponse, ApiError> {
        let (plugin, skipped) = if let Some(url) = request.mcp_url {
            if request.spec.is_some() || request.manifest_url.is_some() {
                return Err(install::one_source());
            }
            let token = self.open_credential(request.auth.as_ref(), &context::mcp_install())?;
            let (auth, headers) = install::mcp_access(
                token.is_some(),
                request.oauth,
                request.auth_header.as_deref(),
                &request.mcp_headers,
            )?;
            let access = Access {
                auth: &auth,
                secret: token.as_deref(),
                headers: &headers,
                revision: None,
            };
            let discovered = install::discover_mcp(&self.fetch, &url, &access).await?;
            let taken = self
                .registry
                .list(scope)
                .await
                .map_err(store_down)?
                .iter()
                .flat_map(|p| p.functions.iter().map(|f| f.name.clone()))
                .collect();
            install::mcp_plugin(discovered, &url, &access, taken)
        } else {
            install::openapi(&self.fetch, request.spec, request.manifest_url).await?
        };
        self.register(scope, &plugin).await?;
        Ok(PluginInstallResponse {
            registered: registered(plugin),
            skipped,
        })
    }

    /// Adds `plugin` to the registry of `scope`.
    async fn register(&self, scope: &str, plugin: &Plugin) -> Result<(), ApiError> {
        names::check_installable(plugin)
            .map_err(|e| ApiError::new(ErrorCode::BadRequest, e.to_string()))?;
        let mut plugins = self.registry.list(scope).await.map_err(store_down)?;
        if plugins.len() >= MAX_PLUGINS_PER_SCOPE {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                format!("You have {MAX_PLUGINS_PER_SCOPE} plugins; remove one first"),
            ));
        }
        plugins.push(plugin.clone());
        self.registry
            .save(scope, &plugins)
            .await
            .map_err(store_down)
    }

    /// The plugins of `scope` and the built-ins.
    pub async fn list(&self, scope: &str) -> Result<PluginListResponse, ApiError> {
        let plugins = self.registry.list(scope).await.map_err(store_down)?;
        Ok(PluginListResponse {
            plugins: plugins.into_iter().map(registered).collect(),
            builtins: builtin::all().into_iter().map(registered).collect(),
        })
    }

    /// Lists the tools of the MCP plugin `request` names again, with its credential, and
    /// keeps the result in the registry of `scope`.
    pub async fn refresh_tools(
        &self,
        scope: &str,
        request: PluginRefreshRequest,
    ) -> Result<PluginRefreshResponse, ApiError> {
        let (plugin, server) = self.mcp_plugin(scope, &request.plugin_id).await?;
        let secret =
            self.open_credential(request.auth.as_ref(), &context::plugin_auth(&plugin.id))?;
        let access = Access {
            auth: &plugin.auth,
            secret: secret.as_deref(),
            headers: &server.headers,
            revision: server.revision.as_deref(),
        };
        let discovered = mcp::discover(&self.fetch, &server.server_url, &access)
            .await
            .map_err(|e| e.to_api_error())?;
        // Read again after the server answered: another request may have changed the
        // registry meanwhile (a revision noted, another plugin installed, this one
        // removed), and only this plugin's list is replaced, on what it is now.
        let mut plugins = self.registry.list(scope).await.map_err(store_down)?;
        let taken = plugins
            .iter()
            .filter(|p| p.id != plugin.id)
            .flat_map(|p| p.functions.iter().map(|f| f.name.clone()))
            .collect();
        let Some(slot) = plugins.iter_mut().find(|p| p.id == plugin.id) else {
            return Err(no_such_plugin());
        };
        let current = slot.mcp.clone().unwrap_or(server);
        let relisted = relist::relisted(slot, &current, discovered, taken, crate::clock::now_ms());
        *slot = relisted.plugin.clone();
        self.registry
            .save(scope, &plugins)
            .await
            .map_err(store_down)?;
        Ok(PluginRefreshResponse {
            registered: registered(relisted.plugin),
            skipped: relisted.skipped,
            added: relisted.added,
            removed: relisted.removed,
        })
    }

    /// The MCP plugin `plugin_id` of `scope`, with its MCP part.
    async fn mcp_plugin(
        &self,
        scope: &str,
        plugin_id: &str,
    ) -> Result<(Plugin, hearth_core::plugin::McpInfo), ApiError> {
        let plugins = self.registry.list(scope).await.map_err(store_down)?;
        plugins
            .into_iter()
            .find(|p| p.id == plugin_id)
            .and_then(|p| p.mcp.clone().map(|m| (p, m)))
            .ok_or_else(|| {
                ApiError::new(ErrorCode::NotFound, "You have no MCP plugin with this id")
            })
    }

    /// Removes the plugin `plugin_id` from `scope`.
    pub async fn uninstall(&self, scope: &str, plugin_id: &str) -> Result<(), ApiError> {
        let mut plugins = self.registry.list(scope).await.map_err(store_down)?;
        let before = plugins.len();
        plugins.retain(|p| p.id != plugin_id);
        if plugins.len() == before {
            return Err(no_such_plugin());
        }
        self.registry
            .save(scope, &plugins)
            .await
            .map_err(store_down)
    }

    /// Runs the function `request` names, as the registry of `scope` defines it.
    pub async fn execute(
        &self,
        scope: &str,
        request: PluginExecuteRequest,
    ) -> Result<PluginExecuteResponse, ApiError> {
        let plugins = self.registry.list(scope).await.map_err(store_down)?;
        let builtins = builtin::all();
        let active = names::active(&builtins, &plugins);
        let Some(plugin) = active.iter().find(|p| p.id == request.plugin_id) else {
            return Err(no_such_plugin());
        };
        let Some(function) = plugin
            .functions
            .iter()
            .find(|f| f.name == request.function && f.enabled)
        else {
            return Err(ApiError::new(
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
            return Err(ApiError::new(
                ErrorCode::FingerprintMismatch,
                "This function changed since it was listed; list the plugins again",
            )
            .with_details(json!({ "fingerprint": current })));
        }
        let input = replies(&request)?;
        let args = if request.args.is_null() {
            json!({})
        } else {
            request.args
        };
        args::check(&args, &function.parameters).map_err(|error| {
            ApiError::new(ErrorCode::BadRequest, format!("Invalid arguments: {error}"))
                .with_details(json!({ "reason": error.to_string() }))
        })?;
        let secret =
            self.open_credential(request.auth.as_ref(), &context::plugin_auth(&plugin.id))?;
        let ran = dispatch::run(
            &self.fetch,
            plugin,
            function,
            args,
            secret.as_deref(),
            input,
            (&self.held, scope),
        )
        .await?;
        self.remember_revision(scope, plugin, ran.revision).await;
        Ok(ran.response)
    }

    /// Keeps the revision an MCP plugin's server spoke when it is not the one remembered
    /// (the server was upgraded or replaced since install). A registry that cannot be
    /// written only means the next call negotiates again: logged, not failed.
    async fn remember_revision(&self, scope: &str, plugin: &Plugin, revision: Option<String>) {
        let Some(server) = &plugin.mcp else { return };
        if revision.is_none() || server.revision == revision {
            return;
        }
        let saved = async {
            let mut plugins = self.registry.list(scope).await?;
            let Some(mcp) = plugins
                .iter_mut()
                .find(|p| p.id == plugin.id)
                .and_then(|p| p.mcp.as_mut())
            else {
                return Ok(());
            };
            mcp.revision.clone_from(&revision);
            self.registry.save(scope, &plugins).await
        };
        match saved.await {
            Ok(()) => tracing::info!(
                "MCP plugin {} now speaks revision {:?}",
                plugin.id,
                revision
            ),
            Err(error) => tracing::warn!("plugin registry: revision not kept: {error}"),
        }
    }

    /// Runs one resources or prompts request on the MCP plugin `plugin_id` of `scope`,
    /// with its credential opened from `envelope` and its headers.
    pub async fn browse(
        &self,
        scope: &str,
        plugin_id: &str,
        envelope: Option<&Envelope>,
        what: Browse,
    ) -> Result<Value, ApiError> {
        let (plugin, server) = self.mcp_plugin(scope, plugin_id).await?;
        let secret = self.open_credential(envelope, &context::plugin_auth(&plugin.id))?;
        let access = Access {
            auth: &plugin.auth,
            secret: secret.as_deref(),
            headers: &server.headers,
            revision: server.revision.as_deref(),
        };
        let answer = mcp::browse(&self.fetch, &server.server_url, &access, what)
            .await
            .map_err(|e| e.to_api_error())?;
        self.remember_revision(scope, &plugin, answer.revision)
            .await;
        Ok(answer.value)
    }
}
