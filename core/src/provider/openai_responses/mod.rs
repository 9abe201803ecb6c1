//! OpenAI Responses: [`request`] builds the body that starts a stream, the parser
//! ([`Parser`]) reads its typed events.

pub(crate) mod request;
mod stream;

pub use stream::*;
