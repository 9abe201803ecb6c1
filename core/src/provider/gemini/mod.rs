//! Google Gemini (`streamGenerateContent`): [`request`] builds the body that starts a
//! stream, the parser ([`Parser`]) reads its chunks.

pub(crate) mod request;
mod stream;

pub use stream::*;
