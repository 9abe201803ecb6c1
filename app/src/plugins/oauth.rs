//! OAuth sign-in to a remote MCP server, run by the browser with the rules of
//! `hearth_core::plugin::oauth`: the edge discovers and registers (cross-origin fetches
//! a page cannot make), PKCE and `state` come from `crypto.getRandomValues`, the login
//! runs in a window this tab opened (the click opens it blank, so no pop-up blocker
//! stands in the way; then it goes to the authorization server) and comes back to
//! `/oauth/callback.html`, which hands the answer over on the `hearth-oauth` channel.
//! When the browser will not open a window, the tab itself goes ([`sign_in_here`]) and
//! the sign-in is finished when it is back ([`come_back`]).
//! The code is exchanged through the edge; the session (tokens, client, plan) is kept
//! in the vault in the place of a plain credential.
//!
//! [`fresh_token`] is how a call gets its bearer token: refreshed through the edge when
//! due (or when the server refused the last one), the refresh token and a client secret
//! sealed. Only lazy chunks reach it (a reply's tools, the composer's menus, Settings),
//! so it is never on the first screen's path.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use hearth_core::api::mcp_oauth::{
    OauthRegisterRequest, OauthRevokeRequest, OauthSecrets, OauthTokenGrant, OauthTokenRequest,
};
use hearth_core::api::{ApiError, ErrorCode};
use hearth_core::byok::context;
use hearth_core::plugin::oauth::away::{AfterSignIn, AwaySignIn};
use hearth_core::plugin::oauth::client::{self, Client, ClientSource, TokenAuth};
use hearth_core::plugin::oauth::flow::{self, Tokens};
use hearth_core::plugin::oauth::{OauthError, OauthSession, SignInPlan};
use leptos::prelude::window;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::{CallError, CredentialError};
use crate::edge::{self, EdgeError};
use crate::envelope::{self, EdgeKeyRefusal, SealError};

/// The channel the callback page answers on.
const CHANNEL: &str = "hearth-oauth";
/// How long the login window may take before the sign-in gives up (ms).
const SIGN_IN_TIMEOUT_MS: f64 = 10.0 * 60.0 * 1000.0;
/// How often the answer is looked for (ms).
const POLL_MS: i32 = 200;
/// Where this tab keeps the `state` of a sign-in it left for (`callback.js` reads it).
const AWAY_STATE: &str = "hearth-oauth-away";
/// Where `callback.js` leaves the answer to that sign-in for the tab to finish it.
const RETURNED: &str = "hearth-oauth-return";

/// Why a sign-in did not finish.
#[derive(Debug, Clone, PartialEq)]
pub enum SignInError {
    /// The browser did not open the login window.
    PopupBlocked,
    /// The user cancelled.
    Cancelled,
    /// No answer came back in time.
    TimedOut,
    /// A step's rules refused (the reason is `OauthError::reason`).
    Oauth(OauthError),
    /// The edge refused or failed (an `OAUTH_FAILED` answer is read into `Oauth`).
    Edge(EdgeError),
    /// A secret could not be sealed for the edge.
    Seal(SealError),
    /// The sign-in could not be kept in the vault while the tab is away, or read back.
    Credential(CredentialError),
    /// This browser lacks what a sign-in needs (WebCrypto, BroadcastChannel).
    Unsupported,
}

impl EdgeKeyRefusal for SignInError {
    fn edge_key_refused(&self) -> bool {
        matches!(self, Self::Edge(error) if error.edge_key_refused())
    }
}

/// This page's origin (`https://host[:port]`).
fn origin() -> String {
    window().location().origin().unwrap_or_default()
}

/// Where the login window comes back to.
pub fn redirect_uri() -> String {
    format!("{}{}", origin(), client::REDIRECT_PATH)
}

/// `N` random bytes.
fn random<const N: usize>() -> Result<[u8; N], SignInError> {
    let mut bytes = [0u8; N];
    window()
        .crypto()
        .and_then(|crypto| crypto.get_random_values_with_u8_array(&mut bytes))
        .map_err(|_| SignInError::Unsupported)?;
    Ok(bytes)
}

/// Opens the (blank) login window; call it from the click itself.
pub fn open_window() -> Result<web_sys::Window, SignInError> {
    window()
        .open_with_url_and_target_and_features(
            "about:blank",
            "hearth-oauth",
            "popup,width=520,height=720",
        )
        .ok()
        .flatten()
        .ok_or(SignInError::PopupBlocked)
}

/// The client identity for `plan`: the one entered, Hearth's metadata document, or a
/// registration through the edge.
async fn client_for(
    server_url: &str,
    plan: &SignInPlan,
    entered: Option<Client>,
) -> Result<Client, SignInError> {
    let document = format!("{}{}", origin(), client::METADATA_DOCUMENT_PATH);
    match client::choose_client(plan, entered, &document).map_err(SignInError::Oauth)? {
        ClientSource::Entered(client) => Ok(Client {
            token_auth: client::entered_token_auth(plan, client.client_secret.is_some()),
            ..client
        }),
        ClientSource::MetadataDocument(client_id) => Ok(Client {
            client_id,
            client_secret: None,
            token_auth: TokenAuth::None,
        }),
        ClientSource::Register => {
            let request = OauthRegisterRequest {
                server_url: server_url.to_string(),
                registration_endpoint: plan.registration_endpoint.clone().unwrap_or_default(),
                redirect_uri: redirect_uri(),
                scope: plan.scope.clone(),
            };
            edge::oauth_register(&request).await.map_err(read_edge)
        }
    }
}

/// An edge error, with an `OAUTH_FAILED` answer read back into its reason.
fn read_edge(error: EdgeError) -> SignInError {
    match &error {
        EdgeError::Api(api) if api.code == ErrorCode::OauthFailed => {
            let field = |name: &str| {
                api.details
                    .as_ref()
                    .and_then(|d| d[name].as_str())
                    .unwrap_or_default()
                    .to_string()
            };
            let (reason, code) = (field("reason"), field("error"));
            SignInError::Oauth(OauthError::from_reason(&reason, code, api.error.clone()))
        }
        _ => SignInError::Edge(error),
    }
}

/// Waits for the callback page's answer to the sign-in with `state`: the redirect's
/// query. Answers to other sign-ins are ignored.
async fn wait_for_redirect(state: &str, cancelled: &Cell<bool>) -> Result<String, SignInError> {
    let channel = web_sys::BroadcastChannel::new(CHANNEL).map_err(|_| SignInError::Unsupported)?;
    let answer: Rc<RefCell<Option<String>>> = Rc::default();
    let wanted = format!("state={state}");
    let on_message = {
        let answer = answer.clone();
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let query = js_sys::Reflect::get(&event.data(), &"query".into())
                .ok()
                .and_then(|q| q.as_string());
            if let Some(query) = query.filter(|q| q.split('&').any(|pair| pair == wanted)) {
                *answer.borrow_mut() = Some(query);
            }
        })
    };
    channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let deadline = crate::browser::now() + SIGN_IN_TIMEOUT_MS;
    let outcome = loop {
        if let Some(query) = answer.borrow_mut().take() {
            break Ok(query);
        }
        if cancelled.get() {
            break Err(SignInError::Cancelled);
        }
        if crate::browser::now() > deadline {
            break Err(SignInError::TimedOut);
        }
        crate::browser::sleep_ms(POLL_MS).await;
    };
    channel.set_onmessage(None);
    channel.close();
    drop(on_message);
    outcome
}

/// The token request for `grant` by `client`, its secrets sealed.
async fn exchange(
    server_url: &str,
    plan: &SignInPlan,
    client: &Client,
    grant: OauthTokenGrant,
    refresh_token: Option<String>,
) -> Result<Tokens, SignInError> {
    envelope::with_sealed(async |sealer| {
        let secrets = OauthSecrets {
            refresh_token: refresh_token.clone(),
            client_secret: client.client_secret.clone(),
            access_token: None,
        };
        let sealed = if secrets == OauthSecrets::default() {
            None
        } else {
            let text = serde_json::to_string(&secrets).unwrap_or_default();
            Some(
                sealer
                    .seal(&context::mcp_oauth(), &text)
                    .await
                    .map_err(SignInError::Seal)?,
            )
        };
        let request = OauthTokenRequest {
            server_url: server_url.to_string(),
            token_endpoint: plan.token_endpoint.clone(),
            resource: plan.resource.clone(),
            client_id: client.client_id.clone(),
            token_auth: client.token_auth,
            grant: grant.clone(),
            secrets: sealed,
        };
        edge::oauth_token(&request).await.map_err(read_edge)
    })
    .await
}

/// Signs in to the MCP server at `server_url` (its plain `headers` sent with the
/// discovery probe) in `popup` (opened blank by the click, closed here whatever
/// happens), as `entered` if the user gave a client, asking for `extra_scope` on top of
/// the server's own (a call said it needs it); the session.
pub async fn sign_in(
    popup: web_sys::Window,
    server_url: String,
    headers: BTreeMap<String, String>,
    extra_scope: Option<String>,
    entered: Option<Client>,
    cancelled: Rc<Cell<bool>>,
) -> Result<OauthSession, SignInError> {
    let outcome = run_sign_in(
        &popup,
        &server_url,
        headers,
        extra_scope,
        entered,
        &cancelled,
    )
    .await;
    let _ = popup.close();
    outcome
}

/// A sign-in made ready to go to the authorization server.
struct Ready {
    plan: SignInPlan,
    client: Client,
    verifier: String,
    state: String,
    redirect: String,
    /// The authorization request.
    url: String,
}

/// Discovers how to sign in to `server_url`, chooses the client and makes the
/// authorization request (PKCE and `state` fresh).
async fn prepare(
    server_url: &str,
    headers: BTreeMap<String, String>,
    extra_scope: Option<String>,
    entered: Option<Client>,
) -> Result<Ready, SignInError> {
    let mut plan = edge::oauth_discover(server_url, headers)
        .await
        .map_err(read_edge)?;
    if let Some(extra) = extra_scope {
        plan.scope = Some(flow::widened_scope(plan.scope.as_deref(), &extra));
    }
    let client = client_for(server_url, &plan, entered).await?;
    let pkce = flow::pkce(&random::<32>()?);
    let state = flow::state(&random::<16>()?);
    let redirect = redirect_uri();
    let url = flow::authorization_url(&plan, &client.client_id, &redirect, &pkce.challenge, &state)
        .map_err(SignInError::Oauth)?;
    Ok(Ready {
        plan,
        client,
        verifier: pkce.verifier,
        state,
        redirect,
        url: url.into(),
    })
}

/// Exchanges the authorization `code` of a sign-in for its session.
async fn session_for(
    server_url: &str,
    plan: SignInPlan,
    client: Client,
    code: String,
    verifier: String,
    redirect_uri: String,
) -> Result<OauthSession, SignInError> {
    let grant = OauthTokenGrant::Code {
        code,
        verifier,
        redirect_uri,
    };
    let tokens = exchange(server_url, &plan, &client, grant, None).await?;
    Ok(OauthSession {
        plan,
        client,
        tokens,
    })
}

async fn run_sign_in(
    popup: &web_sys::Window,
    server_url: &str,
    headers: BTreeMap<String, String>,
    extra_scope: Option<String>,
    entered: Option<Client>,
    cancelled: &Cell<bool>,
) -> Result<OauthSession, SignInError> {
    let ready = prepare(server_url, headers, extra_scope, entered).await?;
    // A sign-in this tab once left for is not the one this window answers.
    forget_away_state();
    popup
        .location()
        .set_href(&ready.url)
        .map_err(|_| SignInError::PopupBlocked)?;
    let query = wait_for_redirect(&ready.state, cancelled).await?;
    let code =
        flow::read_redirect(&query, &ready.state, &ready.plan).map_err(SignInError::Oauth)?;
    session_for(
        server_url,
        ready.plan,
        ready.client,
        code,
        ready.verifier,
        ready.redirect,
    )
    .await
}

/// This tab's session storage (it survives the journey to the authorization server and
/// back, and no other tab sees it).
fn session_storage() -> Option<web_sys::Storage> {
    window().session_storage().ok().flatten()
}

fn forget_away_state() {
    if let Some(storage) = session_storage() {
        let _ = storage.remove_item(AWAY_STATE);
    }
}

/// Signs in to the MCP server at `server_url` in this tab, for a browser that will not
/// open a login window: the sign-in is kept in the vault (`then` says what the session
/// is for), its `state` in the tab's session storage for the callback page to
/// recognise, and the tab goes to the authorization server. Returns only when it could
/// not leave; [`come_back`] finishes the sign-in when the tab is back.
pub async fn sign_in_here(
    plugins: super::Plugins,
    server_url: String,
    headers: BTreeMap<String, String>,
    extra_scope: Option<String>,
    entered: Option<Client>,
    then: AfterSignIn,
) -> SignInError {
    let ready = match prepare(&server_url, headers, extra_scope, entered).await {
        Ok(ready) => ready,
        Err(problem) => return problem,
    };
    let Some(storage) = session_storage() else {
        return SignInError::Unsupported;
    };
    let away = AwaySignIn {
        server_url,
        plan: ready.plan,
        client: ready.client,
        verifier: ready.verifier,
        state: ready.state,
        redirect_uri: ready.redirect,
        left_at: crate::browser::now() as u64,
        then,
    };
    if let Err(problem) = plugins.keep_away_sign_in(&away).await {
        return SignInError::Credential(problem);
    }
    if storage.set_item(AWAY_STATE, &away.state).is_err()
        || window().location().assign(&ready.url).is_err()
    {
        return SignInError::Unsupported;
    }
    // The page is leaving; the caller's waiting state stays until it has.
    std::future::pending::<()>().await;
    SignInError::Cancelled
}

/// Whether this tab has just come back from a sign-in it left for: the callback page
/// left the answer in its session storage.
pub fn has_come_back() -> bool {
    session_storage().is_some_and(|s| s.get_item(RETURNED).ok().flatten().is_some())
}

/// Finishes the sign-in this tab came back from: the answer (taken from the session
/// storage) checked against the sign-in kept in the vault (taken too: an answer is
/// used once), the code exchanged. `None` when the tab did not come back from one.
pub async fn come_back(
    plugins: super::Plugins,
) -> Option<Result<(AfterSignIn, OauthSession), SignInError>> {
    let storage = session_storage()?;
    let query = storage.get_item(RETURNED).ok().flatten()?;
    let _ = storage.remove_item(RETURNED);
    forget_away_state();
    let away = match plugins.take_away_sign_in().await {
        Ok(Some(away)) => away,
        // Nothing kept: an answer this tab never asked for.
        Ok(None) => return Some(Err(SignInError::Oauth(OauthError::StateMismatch))),
        Err(problem) => return Some(Err(SignInError::Credential(problem))),
    };
    if away.is_too_late(crate::browser::now() as u64) {
        return Some(Err(SignInError::TimedOut));
    }
    let code = match away.code(&query) {
        Ok(code) => code,
        Err(refused) => return Some(Err(SignInError::Oauth(refused))),
    };
    let session = session_for(
        &away.server_url,
        away.plan,
        away.client,
        code,
        away.verifier,
        away.redirect_uri,
    )
    .await;
    Some(session.map(|session| (away.then, session)))
}

/// Signs the session stored as `stored` out at its authorization server (RFC 7009), when
/// the server offers revocation: its refresh token, else its access token.
pub async fn revoke(stored: &str, server_url: &str) -> Result<(), SignInError> {
    let Some(session) = OauthSession::from_stored(stored) else {
        return Ok(());
    };
    let Some(endpoint) = session.plan.revocation_endpoint.clone() else {
        return Ok(());
    };
    envelope::with_sealed(async |sealer| {
        let secrets = OauthSecrets {
            refresh_token: session.tokens.refresh_token.clone(),
            client_secret: session.client.client_secret.clone(),
            access_token: Some(session.tokens.access_token.clone()),
        };
        let text = serde_json::to_string(&secrets).unwrap_or_default();
        let request = OauthRevokeRequest {
            server_url: server_url.to_string(),
            revocation_endpoint: endpoint.clone(),
            client_id: session.client.client_id.clone(),
            token_auth: session.client.token_auth,
            secrets: sealer
                .seal(&context::mcp_oauth(), &text)
                .await
                .map_err(SignInError::Seal)?,
        };
        edge::oauth_revoke(&request).await.map_err(read_edge)
    })
    .await
}

/// A call's bearer token from a stored session.
#[derive(Debug, Clone, PartialEq)]
pub struct Fresh {
    /// The access token to send.
    pub token: String,
    /// The session to store again, when it was refreshed.
    pub renewed: Option<String>,
}

/// The bearer token of the session stored as `stored` for the server at `server_url`:
/// refreshed first when due at `now` or when `renew` (the server refused the last one).
/// A grant that is over (`invalid_grant`) is [`CallError::SignIn`].
pub async fn fresh_token(
    stored: String,
    server_url: String,
    now: u64,
    renew: bool,
) -> Result<Fresh, CallError> {
    let Some(session) = OauthSession::from_stored(&stored) else {
        return Ok(Fresh {
            token: stored,
            renewed: None,
        });
    };
    let due =
        session.tokens.due_for_refresh(now) || (renew && session.tokens.refresh_token.is_some());
    if !due {
        return Ok(Fresh {
            token: session.tokens.access_token,
            renewed: None,
        });
    }
    let refreshed = exchange(
        &server_url,
        &session.plan,
        &session.client,
        OauthTokenGrant::Refresh,
        session.tokens.refresh_token.clone(),
    )
    .await
    .map_err(|error| match error {
        SignInError::Oauth(refused) if refused.needs_sign_in() => CallError::SignIn,
        SignInError::Oauth(other) => CallError::Edge(EdgeError::Api(ApiError::new(
            ErrorCode::OauthFailed,
            other.to_string(),
        ))),
        SignInError::Edge(edge) => CallError::Edge(edge),
        SignInError::Seal(seal) => CallError::Credential(CredentialError::Seal(seal)),
        _ => CallError::SignIn,
    })?;
    let session = OauthSession {
        tokens: refreshed.after_refresh(&session.tokens),
        ..session
    };
    Ok(Fresh {
        token: session.tokens.access_token.clone(),
        renewed: Some(session.to_stored()),
    })
}
