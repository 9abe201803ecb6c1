//! Conversations: the message tree with its branches, the generation state machine,
//! the queue of messages sent while a reply streams, and the errors stored on a message.

pub mod generation;
pub mod queue;
pub mod tree;

pub use generation::{Generation, GenerationError, GenerationEvent, Phase, RunId};
pub use queue::{Queue, QueuedMessage, RunOutcome};
pub use tree::{MessageTree, NodeRecord, RemovedSubtree, TreeError};
