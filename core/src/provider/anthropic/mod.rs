//! Anthropic Messages: [`request`] builds the body that starts a stream, the parser
//! ([`Parser`]) reads its content-block events.

pub(crate) mod request;
mod stream;

pub use request::ANTHROPIC_DEFAULT_MAX_TOKENS;
pub use stream::*;
