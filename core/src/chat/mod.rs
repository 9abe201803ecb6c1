//! Conversations: the message tree with its branches, the generation state machine,
//! the queue of messages sent while a reply streams, the errors stored on a message, the
//! stored records of conversations and messages, the export archive (and other chat
//! apps' exports read into it), how task models title a conversation and compress its
//! older turns, where `/clear` starts its context again, the tool calls a reply made and the images it sent,
//! and several models' answers to one question compared and merged.

pub mod archive;
pub mod attachment_context;
pub mod compare;
pub mod compression;
pub mod context_break;
pub mod context_note;
pub mod error;
pub mod export_file;
pub mod fallback;
pub mod generation;
pub mod markdown_export;
pub mod output_image;
pub mod peer_import;
pub mod queue;
pub mod record;
pub mod related;
pub mod request;
pub mod source;
pub mod title;
pub mod tools;
pub mod tree;

pub use error::{ErrorCode, GenerationError};
pub use generation::{Applied, Generation, GenerationEvent, Phase, RunId};
pub use queue::{Queue, QueuedMessage, RunOutcome};
pub use record::{ConversationRecord, MessageRecord, MessageStatus, Role, Timings};
pub use tree::{MessageTree, NodeRecord, RemovedSubtree, TreeError};
