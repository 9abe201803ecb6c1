//! Why a call through a plugin failed, in words the model and the user can read, and what
//! a failure asks of the user: the MCP server refused the credential (`serverAuth`: sign
//! in again), or needs a wider scope (`insufficientScope`: noted for the plugin's card).

use hearth_core::api::ServerRefusal;

use crate::edge::EdgeError;
use crate::envelope::EdgeKeyRefusal;

/// Why a call could not be made.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// The credential could not be read or sealed.
    Credential(CredentialError),
    /// The edge refused or failed.
    Edge(EdgeError),
    /// The OAuth grant is over (revoked, expired): sign in again.
    SignIn,
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Credential(why) => write!(f, "the plugin's credential is unavailable: {why}"),
            Self::Edge(EdgeError::Api(error)) => f.write_str(&error.error),
            Self::Edge(EdgeError::Unreachable) => {
                f.write_str("the Hearth server did not answer; tools need it running")
            }
            Self::Edge(EdgeError::Offline) => {
                f.write_str("this device is offline; tools need the network")
            }
            Self::Edge(other) => write!(f, "the Hearth server answered {other}"),
            Self::SignIn => f.write_str(
                "the sign-in to this server has ended; sign in again in Settings › Tools",
            ),
        }
    }
}

/// Why a plugin's credential could not be used. Its `Display` is in the user's language
/// (the storage, vault and sealing errors it wraps are).
#[derive(Debug, Clone, PartialEq)]
pub enum CredentialError {
    /// The browser storage could not be opened.
    Storage(crate::storage::StorageError),
    /// The vault failed (a lost key, WebCrypto refused).
    Vault(crate::vault::VaultError),
    /// It could not be sealed for the edge.
    Seal(crate::envelope::SealError),
}

impl std::fmt::Display for CredentialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Storage(error) => error.fmt(f),
            Self::Vault(error) => error.fmt(f),
            Self::Seal(error) => error.fmt(f),
        }
    }
}

impl EdgeKeyRefusal for CallError {
    fn edge_key_refused(&self) -> bool {
        matches!(self, Self::Edge(error) if error.edge_key_refused())
    }
}

/// Whether the MCP server itself refused the credential (`AUTH_ERROR` with reason
/// `serverAuth`), as opposed to the edge failing to open it.
pub fn refused_by_server(error: &CallError) -> bool {
    server_refusal(error) == Some(ServerRefusal::SignIn)
}

/// The refusal of the MCP server that `error` passes on, if it is one.
fn server_refusal(error: &CallError) -> Option<ServerRefusal> {
    match error {
        CallError::Edge(EdgeError::Api(api)) => ServerRefusal::of(api),
        _ => None,
    }
}

/// When `error` is a server saying a call needs more scope than the grant
/// (`insufficientScope`; refreshing cannot help, a sign-in asking for it can), notes it
/// for the plugin's card ([`super::more_access`]).
pub(super) fn note_wanted_scope(plugin_id: &str, error: &CallError) {
    if let Some(ServerRefusal::Scope(scope)) = server_refusal(error) {
        leptos::task::spawn_local(super::more_access::note(plugin_id.to_string(), scope));
    }
}
