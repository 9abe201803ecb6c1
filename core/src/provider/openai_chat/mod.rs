//! OpenAI Chat Completions, as spoken by OpenAI and by OpenAI-compatible servers:
//! [`request`] builds the body that starts a stream, the parser ([`Parser`]) reads what
//! it streams back.

pub(crate) mod request;
mod stream;

pub use stream::*;
