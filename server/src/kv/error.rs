//! The one error of the store: the shared store did not answer (or answered nonsense).

/// The shared store did not answer.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the shared store is unavailable: {0}")]
pub struct KvError(pub String);
