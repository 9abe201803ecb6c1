//! One exchange with a remote MCP server, in the protocol revision it speaks: the
//! stateless 2026-07-28 revision (no `initialize`, no session id, every request carrying
//! its own protocol version, client info and capabilities) or the 2025-11-25 handshake.
//!
//! A server never seen before is probed with `server/discover` and, when it answers as a
//! handshake server, given `initialize` on the same connection (rmcp's `Auto` lifecycle).
//! A server whose revision is remembered is spoken to in it at once: `server/discover`
//! then the request for a stateless server, `initialize` then the request for a handshake
//! one, so a handshake server is never probed in vain. When the server refuses the
//! remembered start (it was upgraded, or replaced by one that speaks only the other
//! revision), the exchange is run once more from the probe, and the revision it found is
//! reported so the caller can remember it. Only a refused start is retried: nothing has
//! been asked of the server yet, so a tool never runs twice. A failed request, a timeout,
//! a dropped connection or an authorization challenge is never retried.
//!
//! The discovery request is kept for the stateless revision even though it could be left
//! out: a request sent without it that fails (a 401 above all) reaches rmcp's caller only
//! as a closed transport, and Hearth must tell "sign in again" from "the server is down".

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    FormElicitationCapability, Implementation, ProtocolVersion, ServerPeerInfo,
    UrlElicitationCapability,
};
use rmcp::service::RequestContext;
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, Peer, RoleClient, RunningService,
    ServiceError,
};
use rmcp::transport::StreamableHttpClientTransport;

use tokio::sync::{mpsc, oneshot};

use super::{Access, McpError, classify, connection};
use crate::safe_fetch::SafeFetch;

/// The revision a server is first asked for.
pub const PREFERRED: ProtocolVersion = ProtocolVersion::V_2026_07_28;
/// The handshake revision offered when a server does not speak the preferred one.
pub const HANDSHAKE: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// How an exchange begins.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Start {
    /// Probe with `server/discover`, else `initialize`.
    Negotiate,
    /// The remembered stateless revision: `server/discover` for it, then the request.
    Stateless(ProtocolVersion),
    /// The remembered handshake revision: `initialize`, then the request.
    Handshake(ProtocolVersion),
}

/// `revision` if it is one rmcp knows (a server's own string is never kept as it is).
fn known(revision: &str) -> Option<ProtocolVersion> {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|known| known.as_str() == revision)
        .cloned()
}

impl Start {
    fn remembered(revision: Option<&str>) -> Self {
        let Some(version) = revision.and_then(known) else {
            return Self::Negotiate;
        };
        if version.has_initialize() {
            Self::Handshake(version)
        } else {
            Self::Stateless(version)
        }
    }
}

/// An answer and the revision it was given in.
#[derive(Debug)]
pub struct Answered<T> {
    /// The answer.
    pub value: T,
    /// The revision the server spoke (`2026-07-28`, `2025-11-25`, …), when it is a known
    /// one (a handshake may name any string; only known revisions are remembered).
    pub revision: Option<String>,
    /// What the server said of itself: its name and capabilities.
    pub server: Option<ServerPeerInfo>,
}

/// Why one attempt failed.
enum Failure {
    /// The server refused how the exchange began: nothing was asked of it yet; another
    /// revision may work.
    Refused(McpError),
    /// Anything else (not retried).
    Other(McpError),
}

impl Failure {
    fn into_error(self) -> McpError {
        match self {
            Self::Refused(error) | Self::Other(error) => error,
        }
    }

    fn starting(error: ClientInitializeError) -> Self {
        if let Some(challenge) = error.auth_challenge() {
            return Self::Other(refused_access(challenge));
        }
        if error.is_authorization_required() {
            return Self::Other(McpError::AuthRequired);
        }
        match error {
            ClientInitializeError::JsonRpcError(_)
            | ClientInitializeError::ExpectedInitResult(_)
            | ClientInitializeError::NoCompatibleProtocolVersion { .. }
            | ClientInitializeError::LegacyFallbackFailed { .. } => {
                Self::Refused(McpError::Failed(error.to_string()))
            }
            other => Self::Other(classify(other.to_string())),
        }
    }

    fn asking(error: ServiceError) -> Self {
        if let Some(challenge) = error.auth_challenge() {
            return Self::Other(refused_access(challenge));
        }
        Self::Other(classify(error.to_string()))
    }
}

/// What a 401's or 403's Bearer challenge says: sign in (again), or ask for more scope.
fn refused_access(challenge: &str) -> McpError {
    match hearth_core::plugin::oauth::challenge::read_challenge(challenge) {
        Some(read) if read.error.as_deref() == Some("insufficient_scope") => {
            McpError::InsufficientScope(read.scope)
        }
        _ => McpError::AuthRequired,
    }
}

/// Who Hearth says it is, and what it offers: elicitation (forms and pages), in every
/// exchange alike (some servers list other tools to a client that offers it, so a list
/// must not depend on how the exchange began).
fn client_info() -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(
        ElicitationCapability::new()
            .with_form(FormElicitationCapability::default())
            .with_url(UrlElicitationCapability::new()),
    );
    ClientConfig::new(
        capabilities,
        Implementation::new("hearth", env!("CARGO_PKG_VERSION")),
    )
}

/// How long a server's question in the middle of a call waits for the user's answer.
pub const HELD_FOR: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// The user's answer as the asking server gets it, or why it cannot be given.
pub type Reply = Result<ElicitResult, String>;

/// A question a server asks in the middle of a call, for whoever runs the call.
#[derive(Debug)]
pub struct Question {
    /// The server's request.
    pub params: ElicitRequestParams,
    /// Where the answer goes.
    pub reply: oneshot::Sender<Reply>,
}

/// Hearth as an MCP client. A question a server asks in the middle of a call (the
/// handshake revision's `elicitation/create`) goes to whoever runs the call through
/// `asks`, and the server gets the user's answer when it comes (at most [`HELD_FOR`]
/// later); with nobody to ask (a listing), or no answer in time, it gets an error:
/// declining on the user's behalf would be a lie.
struct Client {
    info: ClientConfig,
    asks: Option<mpsc::Sender<Question>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let unanswered = |why: &str| {
            rmcp::ErrorData::new(
                rmcp::model::ErrorCode::INTERNAL_ERROR,
                why.to_string(),
                None,
            )
        };
        let Some(asks) = &self.asks else {
            return Err(unanswered(
                "Hearth can ask its user only during a tool call",
            ));
        };
        let (reply, answer) = oneshot::channel();
        asks.send(Question {
            params: request,
            reply,
        })
        .await
        .map_err(|_| unanswered("nobody waits for this call any more"))?;
        match tokio::time::timeout(HELD_FOR, answer).await {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(why))) => Err(rmcp::ErrorData::invalid_params(why, None)),
            _ => Err(unanswered("the user did not answer in time")),
        }
    }
}

async fn open(
    transport: StreamableHttpClientTransport<reqwest::Client>,
    start: &Start,
    asks: Option<&mpsc::Sender<Question>>,
) -> Result<RunningService<RoleClient, Client>, Failure> {
    let info = Client {
        info: client_info(),
        asks: asks.cloned(),
    };
    let lifecycle = match start {
        Start::Stateless(version) => ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        },
        Start::Handshake(version) => {
            return Client {
                info: info.info.with_protocol_version(version.clone()),
                ..info
            }
            .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
            .await
            .map_err(Failure::starting);
        }
        Start::Negotiate => ClientLifecycleMode::Auto {
            preferred_versions: vec![PREFERRED],
            legacy_version: Some(HANDSHAKE),
        },
    };
    info.serve_with_lifecycle(transport, lifecycle)
        .await
        .map_err(Failure::starting)
}

async fn attempt<T, F, Fut>(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
    start: &Start,
    asks: Option<&mpsc::Sender<Question>>,
    work: &F,
) -> Result<Answered<T>, Failure>
where
    F: Fn(Peer<RoleClient>) -> Fut,
    Fut: Future<Output = Result<T, ServiceError>>,
{
    let transport = connection(fetch, url, access).map_err(Failure::Other)?;
    let service = open(transport, start, asks).await?;
    let server = service.peer_info().map(|i| (*i).clone());
    let result = work(service.peer().clone()).await;
    let _ = service.cancel().await;
    let revision = server
        .as_ref()
        .and_then(|i| known(i.protocol_version.as_str()))
        .map(|v| v.to_string());
    Ok(Answered {
        value: result.map_err(Failure::asking)?,
        revision,
        server,
    })
}

/// Runs `work` on the server at `url` in the revision remembered in `access` (else the
/// one negotiated), falling back to negotiating once when the server refuses it.
pub async fn exchange<T, F, Fut>(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
    work: F,
) -> Result<Answered<T>, McpError>
where
    F: Fn(Peer<RoleClient>) -> Fut,
    Fut: Future<Output = Result<T, ServiceError>>,
{
    exchange_asking(fetch, url, access, None, work).await
}

/// [`exchange`], with the server's questions to the user in the middle of it sent
/// through `asks` (a tool call's).
pub async fn exchange_asking<T, F, Fut>(
    fetch: &SafeFetch,
    url: &str,
    access: &Access<'_>,
    asks: Option<&mpsc::Sender<Question>>,
    work: F,
) -> Result<Answered<T>, McpError>
where
    F: Fn(Peer<RoleClient>) -> Fut,
    Fut: Future<Output = Result<T, ServiceError>>,
{
    let start = Start::remembered(access.revision);
    match attempt(fetch, url, access, &start, asks, &work).await {
        Ok(answered) => Ok(answered),
        Err(Failure::Refused(error)) if start != Start::Negotiate => {
            tracing::info!(
                "MCP server {url} refused revision {:?} ({error}); negotiating again",
                access.revision
            );
            attempt(fetch, url, access, &Start::Negotiate, asks, &work)
                .await
                .map_err(Failure::into_error)
        }
        Err(failure) => Err(failure.into_error()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_revision_decides_how_the_exchange_begins() {
        assert_eq!(Start::remembered(None), Start::Negotiate);
        assert_eq!(Start::remembered(Some("not a date")), Start::Negotiate);
        assert_eq!(
            Start::remembered(Some("2026-07-28")),
            Start::Stateless(ProtocolVersion::V_2026_07_28)
        );
        assert_eq!(
            Start::remembered(Some("2025-06-18")),
            Start::Handshake(ProtocolVersion::V_2025_06_18)
        );
    }

    #[test]
    fn only_a_known_revision_is_kept() {
        assert_eq!(known("2026-07-28"), Some(ProtocolVersion::V_2026_07_28));
        assert_eq!(known("2024-11-05"), Some(ProtocolVersion::V_2024_11_05));
        assert_eq!(known(&"9".repeat(10_000)), None);
        assert_eq!(known(""), None);
    }

    #[test]
    fn a_challenge_says_whether_to_sign_in_again_or_to_ask_for_more() {
        assert!(matches!(
            refused_access(r#"Bearer error="invalid_token""#),
            McpError::AuthRequired
        ));
        assert!(matches!(
            refused_access("Basic realm=x"),
            McpError::AuthRequired
        ));
        match refused_access(r#"Bearer error="insufficient_scope", scope="a b""#) {
            McpError::InsufficientScope(scope) => assert_eq!(scope.as_deref(), Some("a b")),
            other => panic!("{other:?}"),
        }
    }
}
