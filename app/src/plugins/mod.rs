//! Plugins in the browser: the list the edge registered (installed plugins and Hearth's
//! built-ins, refreshed from `GET /api/plugins/list`), installing and uninstalling, each
//! plugin's credential in the vault (`local:plugin:<id>:auth`, sealed for the edge per
//! call as `plugin:<id>:auth`), executing one call, and the session's approvals of
//! confirmed calls (never stored: a reload starts clean).
//!
//! An MCP server signed in to with OAuth keeps its session (tokens, client, plan) in the
//! vault in the place of the credential; [`oauth`] signs in and gives each call a fresh
//! bearer token (refreshed when due, and once more when the server refuses one).
//!
//! What is asked of an MCP server beside its tools' calls is in [`mcp`]: its tools listed
//! again (`POST /api/plugins/refresh`) when [`tool_lists`] says the list is due (the
//! server's keeping time ran out, or the credential changed), its prompts and resources.
//!
//! Which plugins and functions a reply offers is the user's choice in the preferences
//! record (`hearth_core::plugin::selection`); this module holds what the edge knows.

use std::collections::{BTreeMap, BTreeSet};

use hearth_core::api::{
    PluginExecuteRequest, PluginExecuteResponse, PluginInstallRequest, PluginInstallResponse,
    RegisteredPlugin,
};
use hearth_core::byok::context;
use hearth_core::plugin::approval::{ApprovalKey, SessionApprovals};
use hearth_core::plugin::oauth::away::AwaySignIn;
use hearth_core::plugin::{Auth, Plugin, Risk};
use leptos::prelude::*;
use serde_json::Value;

use crate::edge::{self, EdgeError};
use crate::envelope;
use crate::i18n::Key;
use crate::storage::Db;
use crate::vault::Vault;

pub mod credential_changes;
mod errors;
mod mcp;
pub mod more_access;
pub mod oauth;
pub mod tool_lists;

use errors::note_wanted_scope;
pub use errors::{CallError, CredentialError, refused_by_server};

/// The vault context of a sign-in this tab left for ([`oauth::sign_in_here`]).
const AWAY_SIGN_IN: &str = "local:mcp-oauth:away";

/// The vault context of a plugin's credential.
pub fn credential_context(plugin_id: &str) -> String {
    format!("local:plugin:{plugin_id}:auth")
}

/// The key a waiting call's answer is filed under: its place in its reply (provider
/// call ids repeat across rounds).
pub fn answer_key(reply_id: &str, round: usize, index: usize) -> String {
    format!("{reply_id}/{round}/{index}")
}

/// Where the edge's list stands.
#[derive(Debug, Clone, PartialEq)]
pub enum ListState {
    /// Not asked yet, or asking.
    Loading,
    /// Listed.
    Ready,
    /// The edge could not list them.
    Failed(EdgeError),
}

/// The label of a risk level (a call waiting in a reply, and Settings › Tools).
pub fn risk_key(risk: Risk) -> Key {
    match risk {
        Risk::Read => Key::ToolRiskRead,
        Risk::Write => Key::ToolRiskWrite,
        Risk::External => Key::ToolRiskExternal,
        Risk::Destructive => Key::ToolRiskDestructive,
    }
}

/// What the user answered to a waiting call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Run this call.
    AllowOnce,
    /// Run it and every later call of this function (same risk and fingerprint) this
    /// session.
    AllowSession,
    /// Do not run it.
    Deny,
}

impl Answer {
    /// Its name on the tabs' channel.
    pub fn name(self) -> &'static str {
        match self {
            Self::AllowOnce => "once",
            Self::AllowSession => "session",
            Self::Deny => "deny",
        }
    }

    /// The answer named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::AllowOnce, Self::AllowSession, Self::Deny]
            .into_iter()
            .find(|a| a.name() == name)
    }
}

/// The plugins, shared through context.
#[derive(Clone, Copy)]
pub struct Plugins {
    /// The user's installed plugins, as the edge registered them.
    pub installed: RwSignal<Vec<RegisteredPlugin>>,
    /// Hearth's built-ins.
    pub builtins: RwSignal<Vec<RegisteredPlugin>>,
    /// Where the list stands.
    pub state: RwSignal<ListState>,
    /// Plugins with a credential saved.
    pub credentials: RwSignal<BTreeSet<String>>,
    /// This session's approvals.
    pub approvals: RwSignal<SessionApprovals>,
    /// Answers to waiting calls, by [`answer_key`], until the run takes them.
    pub answers: RwSignal<BTreeMap<String, Answer>>,
    vault: StoredValue<Option<Vault>, LocalStorage>,
}

impl Plugins {
    /// Nothing is read at start: the list is asked for on first use
    /// ([`Self::ensure_listed`]) and the vault opened when a credential is needed, so a
    /// page that never uses tools does no work for them.
    pub fn load() -> Self {
        Self {
            installed: RwSignal::new(Vec::new()),
            builtins: RwSignal::new(Vec::new()),
            state: RwSignal::new(ListState::Loading),
            credentials: RwSignal::new(BTreeSet::new()),
            approvals: RwSignal::new(SessionApprovals::default()),
            answers: RwSignal::new(BTreeMap::new()),
            vault: StoredValue::new_local(None),
        }
    }

    /// The vault, opened on first use; why not, when it cannot be (a lost key, no
    /// storage).
    async fn vault(&self) -> Result<Vault, CredentialError> {
        if let Some(vault) = self.vault.get_value() {
            return Ok(vault);
        }
        let db = Db::open().await.map_err(CredentialError::Storage)?;
        let vault = Vault::open(db).await.map_err(CredentialError::Vault)?;
        self.vault.set_value(Some(vault.clone()));
        Ok(vault)
    }

    /// Lists the plugins unless they were listed already.
    pub async fn ensure_listed(&self) {
        if self.state.get_untracked() != ListState::Ready {
            self.refresh().await;
        }
    }

    /// Asks the edge for the list again.
    pub async fn refresh(&self) {
        match edge::list_plugins().await {
            Ok(list) => {
                let now = crate::browser::now();
                for registered in &list.plugins {
                    tool_lists::note_listed(registered, now);
                }
                self.installed.set(list.plugins);
                self.builtins.set(list.builtins);
                self.state.set(ListState::Ready);
                self.refresh_credentials().await;
            }
            Err(error) => self.state.set(ListState::Failed(error)),
        }
    }

    /// Reads which installed plugins have a credential, one plugin at a time. A save or a
    /// forget of a plugin's credential while its read is under way is newer than what
    /// the read found: that plugin is left as the save or forget set it (replacing the
    /// whole set at the end brought back a credential forgotten meanwhile).
    async fn refresh_credentials(&self) {
        let Ok(vault) = self.vault().await else {
            // Credentials cannot be read; using one says why.
            return;
        };
        let installed = self.installed.get_untracked();
        for registered in &installed {
            let id = &registered.plugin.id;
            let before = credential_changes::count(id);
            let kept = matches!(vault.load(&credential_context(id)).await, Ok(Some(_)));
            if credential_changes::count(id) == before {
                self.credentials.update(|c| {
                    if kept {
                        c.insert(id.clone());
                    } else {
                        c.remove(id);
                    }
                });
            }
        }
        self.credentials
            .update(|c| c.retain(|id| installed.iter().any(|r| &r.plugin.id == id)));
    }

    /// One plugin by id, built-in or installed.
    pub fn find(&self, plugin_id: &str) -> Option<Plugin> {
        let find = |list: &Vec<RegisteredPlugin>| {
            list.iter()
                .find(|r| r.plugin.id == plugin_id)
                .map(|r| r.plugin.clone())
        };
        self.builtins
            .with_untracked(find)
            .or_else(|| self.installed.with_untracked(find))
    }

    /// Installs a plugin. An MCP server's token is sealed for the install, and kept in
    /// the vault for the plugin's calls once it has an id.
    pub async fn install(
        &self,
        request: PluginInstallRequest,
        token: Option<String>,
    ) -> Result<PluginInstallResponse, CallError> {
        let token = token.filter(|t| !t.trim().is_empty());
        let kept = token.clone();
        self.install_keeping(request, token, kept).await
    }

    /// Installs an MCP server signed in to: its access token is sealed for the install,
    /// the whole session kept in the vault.
    pub async fn install_signed_in(
        &self,
        mut request: PluginInstallRequest,
        session: &hearth_core::plugin::oauth::OauthSession,
    ) -> Result<PluginInstallResponse, CallError> {
        request.oauth = true;
        let token = Some(session.tokens.access_token.clone());
        self.install_keeping(request, token, Some(session.to_stored()))
            .await
    }

    /// Installs with `token` sealed for the install, and `kept` as the credential.
    async fn install_keeping(
        &self,
        mut request: PluginInstallRequest,
        token: Option<String>,
        kept: Option<String>,
    ) -> Result<PluginInstallResponse, CallError> {
        let response = envelope::with_sealed(async |sealer| {
            if let Some(token) = &token {
                request.auth = Some(
                    sealer
                        .seal(&context::mcp_install(), token.trim())
                        .await
                        .map_err(|e| CallError::Credential(CredentialError::Seal(e)))?,
                );
            }
            edge::install_plugin(&request)
                .await
                .map_err(CallError::Edge)
        })
        .await?;
        if let Some(kept) = &kept {
            self.set_credential(&response.registered.plugin.id, kept)
                .await
                .map_err(CallError::Credential)?;
        }
        self.refresh().await;
        Ok(response)
    }

    /// Uninstalls a plugin and forgets its credential.
    pub async fn uninstall(&self, plugin_id: &str) -> Result<(), CallError> {
        edge::uninstall_plugin(plugin_id)
            .await
            .map_err(CallError::Edge)?;
        self.approvals.update(|a| a.revoke_plugin(plugin_id));
        self.refresh().await;
        // The plugin is gone either way; a credential that could not be forgotten is
        // reported, not left behind silently.
        self.clear_credential(plugin_id)
            .await
            .map_err(CallError::Credential)
    }

    /// Saves a plugin's credential in the vault.
    pub async fn set_credential(
        &self,
        plugin_id: &str,
        secret: &str,
    ) -> Result<(), CredentialError> {
        self.vault()
            .await?
            .store(&credential_context(plugin_id), secret.trim())
            .await
            .map_err(CredentialError::Vault)?;
        credential_changes::note(plugin_id);
        self.credentials.update(|c| {
            let _ = c.insert(plugin_id.to_string());
        });
        Ok(())
    }

    /// Keeps a sign-in this tab leaves for (the tab goes to the authorization server):
    /// in the vault, since it holds the PKCE verifier and perhaps a client secret.
    pub async fn keep_away_sign_in(&self, away: &AwaySignIn) -> Result<(), CredentialError> {
        self.vault()
            .await?
            .store(AWAY_SIGN_IN, &away.to_stored())
            .await
            .map_err(CredentialError::Vault)
    }

    /// Takes back the sign-in this tab left for: it is forgotten whatever follows, so an
    /// answer is used once.
    pub async fn take_away_sign_in(&self) -> Result<Option<AwaySignIn>, CredentialError> {
        let vault = self.vault().await?;
        let kept = vault
            .load(AWAY_SIGN_IN)
            .await
            .map_err(CredentialError::Vault)?;
        vault
            .remove(AWAY_SIGN_IN)
            .await
            .map_err(CredentialError::Vault)?;
        Ok(kept.as_deref().and_then(AwaySignIn::from_stored))
    }

    /// Forgets a plugin's credential.
    pub async fn clear_credential(&self, plugin_id: &str) -> Result<(), CredentialError> {
        self.vault()
            .await?
            .remove(&credential_context(plugin_id))
            .await
            .map_err(CredentialError::Vault)?;
        credential_changes::note(plugin_id);
        self.credentials.update(|c| {
            let _ = c.remove(plugin_id);
        });
        Ok(())
    }

    /// Signs an MCP server out: its grant revoked at the authorization server where it
    /// offers that, and the session forgotten whatever the server answers. A revocation
    /// that failed is returned (`Ok(Some(why))`) for the user to be told: the tokens
    /// may still be valid at the server until they expire.
    pub async fn sign_out(
        &self,
        plugin_id: &str,
    ) -> Result<Option<oauth::SignInError>, CredentialError> {
        let stored = self
            .vault()
            .await?
            .load(&credential_context(plugin_id))
            .await
            .map_err(CredentialError::Vault)?;
        let server_url = self
            .find(plugin_id)
            .and_then(|p| p.mcp)
            .map(|m| m.server_url)
            .unwrap_or_default();
        let refused = match stored {
            Some(stored) => oauth::revoke(&stored, &server_url).await.err(),
            None => None,
        };
        self.clear_credential(plugin_id).await?;
        Ok(refused)
    }

    /// The plugin's stored credential, when it has one and needs it; for an OAuth
    /// session its access token, refreshed first when due or when `renew`.
    async fn credential(&self, plugin_id: &str, renew: bool) -> Result<Option<String>, CallError> {
        let Some(plugin) = self.find(plugin_id).filter(|p| p.auth != Auth::None) else {
            return Ok(None);
        };
        let vault = self.vault().await.map_err(CallError::Credential)?;
        let context = credential_context(plugin_id);
        let load = async || {
            vault
                .load(&context)
                .await
                .map_err(|e| CallError::Credential(CredentialError::Vault(e)))
        };
        if plugin.auth != Auth::Oauth2 {
            return load().await;
        }
        // One tab at a time refreshes a session (a rotated refresh token works once): the
        // others wait, then read what it stored.
        let _held = crate::locks::wait_for(&format!("hearth-oauth:{plugin_id}"), 15_000.0).await;
        let stored = match load().await? {
            // A pasted token (an OpenAPI `oauth2` plugin's) is used as it is.
            Some(session) if session.trim_start().starts_with('{') => session,
            // An MCP server signed in to has no session left (signed out, or the grant
            // ended on an earlier request): the way on is a new sign-in, not the edge's
            // "add a credential".
            None if plugin.mcp.is_some() => return Err(CallError::SignIn),
            other => return Ok(other),
        };
        let server_url = plugin.mcp.map(|m| m.server_url).unwrap_or_default();
        let now = crate::browser::now() as u64;
        let fresh = match oauth::fresh_token(stored, server_url, now, renew).await {
            Ok(fresh) => fresh,
            // The grant is over (revoked, expired): the session is useless; forget it,
            // so Settings offers a new sign-in.
            Err(CallError::SignIn) => {
                self.clear_credential(plugin_id)
                    .await
                    .map_err(CallError::Credential)?;
                return Err(CallError::SignIn);
            }
            Err(other) => return Err(other),
        };
        if let Some(renewed) = &fresh.renewed {
            vault
                .store(&context, renewed)
                .await
                .map_err(|e| CallError::Credential(CredentialError::Vault(e)))?;
        }
        Ok(Some(fresh.token))
    }

    /// Sends one edge call with the plugin's credential sealed for it (`send` gets the
    /// envelope); when the server refused an OAuth token, once more with a refreshed one.
    async fn sealed_call<T>(
        &self,
        plugin_id: &str,
        send: impl AsyncFn(Option<hearth_core::byok::Envelope>) -> Result<T, EdgeError>,
    ) -> Result<T, CallError> {
        let (mut secret, mut retried) = (self.credential(plugin_id, false).await?, false);
        loop {
            let outcome = envelope::with_sealed(async |sealer| {
                let auth = seal_credential(&sealer, plugin_id, secret.as_deref()).await?;
                send(auth).await.map_err(CallError::Edge)
            })
            .await;
            match self
                .renewal(plugin_id, outcome.as_ref().err(), &mut retried)
                .await
            {
                Some(renewed) => secret = renewed?,
                None => {
                    if let Err(error) = &outcome {
                        note_wanted_scope(plugin_id, error);
                    }
                    return outcome;
                }
            }
        }
    }

    /// After a call ended with `error`: when that is the server refusing this plugin's
    /// OAuth token, the first time (`retried`), a refreshed credential to try once more.
    async fn renewal(
        &self,
        plugin_id: &str,
        error: Option<&CallError>,
        retried: &mut bool,
    ) -> Option<Result<Option<String>, CallError>> {
        if *retried || !error.is_some_and(refused_by_server) || !self.signed_in(plugin_id) {
            return None;
        }
        *retried = true;
        Some(self.credential(plugin_id, true).await)
    }

    /// Whether the plugin's credential comes from an OAuth sign-in.
    fn signed_in(&self, plugin_id: &str) -> bool {
        self.find(plugin_id)
            .is_some_and(|p| p.auth == Auth::Oauth2 && p.mcp.is_some())
    }

    /// Runs one call through the edge, with the plugin's credential sealed for it, and
    /// the user's `replies` to the questions its server asked on the previous call
    /// (`inputResponses` and the state to echo); aborting `signal` cancels it.
    pub async fn execute(
        &self,
        plugin_id: &str,
        function: &str,
        fingerprint: &str,
        args: Value,
        replies: Option<(Value, Option<String>)>,
        signal: Option<&web_sys::AbortSignal>,
    ) -> Result<PluginExecuteResponse, CallError> {
        let (input_responses, request_state) = replies.unzip();
        let request_state = request_state.flatten();
        self.sealed_call(plugin_id, async |auth| {
            let request = PluginExecuteRequest {
                plugin_id: plugin_id.to_string(),
                function: function.to_string(),
                args: args.clone(),
                fingerprint: fingerprint.to_string(),
                auth,
                input_responses: input_responses.clone(),
                request_state: request_state.clone(),
            };
            edge::execute_plugin(&request, signal).await
        })
        .await
    }

    /// Remembers a session approval.
    pub fn approve(&self, key: ApprovalKey) {
        self.approvals.update(|a| {
            let _ = a.approve(key);
        });
    }

    /// Forgets a session approval.
    pub fn revoke(&self, key: &ApprovalKey) {
        self.approvals.update(|a| {
            let _ = a.revoke(key);
        });
    }

    /// Answers the waiting call filed under `key` ([`answer_key`]).
    pub fn answer(&self, key: &str, answer: Answer) {
        self.answers.update(|a| {
            let _ = a.insert(key.to_string(), answer);
        });
    }

    /// Takes the answer to the waiting call filed under `key`, if there is one.
    pub fn take_answer(&self, key: &str) -> Option<Answer> {
        if !self.answers.with_untracked(|a| a.contains_key(key)) {
            return None;
        }
        self.answers.try_update(|a| a.remove(key)).flatten()
    }
}

/// `secret` sealed for the plugin's own calls (`plugin:<id>:auth`), if there is one.
async fn seal_credential(
    sealer: &envelope::Sealer,
    plugin_id: &str,
    secret: Option<&str>,
) -> Result<Option<hearth_core::byok::Envelope>, CallError> {
    match secret {
        Some(secret) => sealer
            .seal(&context::plugin_auth(plugin_id), secret)
            .await
            .map(Some)
            .map_err(|e| CallError::Credential(CredentialError::Seal(e))),
        None => Ok(None),
    }
}

/// The app's plugins.
pub fn use_plugins() -> Plugins {
    expect_context::<Plugins>()
}
