//! The user's memory (`hearth_core::memory`): the book (every memory, whether memory is
//! used, whether the model may propose memories and whether its proposals are kept
//! without asking) kept as one document of the settings store
//! (`crate::storage::document`), read the first time Settings › Memory or a turn needs
//! it. Every change is made by the core book on a copy (checked, bounded, typed errors),
//! stored, and only then shown; other tabs hear of it on `hearth-memory`.
//!
//! Settings, a reply being written and a reply being read all use the book and a
//! reply's `memory` record: every operation goes through one function, [`run`], with an
//! [`Op`] in and an [`Answer`] out, so the typed book and record are decoded in one
//! place (the chunk the three share, never the first load); a reply's record stays JSON
//! outside it.

use hearth_core::memory::proposal::{
    MemoryProposal, PROPOSED_RESULT, ProposalState, SAVED_RESULT, draft_of,
};
use hearth_core::memory::recall::{MemoryIndex, recorded, with_memories};
use hearth_core::memory::{MemoryBook, MemoryDraft, MemoryError, MemorySource, ReplyMemory};
use leptos::prelude::*;
use serde_json::{Map, Value};

use crate::storage::document::{DocumentCell, DocumentError, SettingsDocument};

/// Why a memory operation did not happen (nothing changed).
pub type MemoryStoreError = DocumentError<MemoryError>;

thread_local! {
    /// The book, once read; owned by no component, so the first screen builds nothing.
    static BOOK: DocumentCell<MemoryBook> = DocumentCell::default();
    /// The book indexed for recall, kept while it does not change (building it is the
    /// costly part of a recall: `docs/BENCHMARKS.md`, "Memory in a turn").
    static INDEX: std::cell::RefCell<Option<MemoryIndex>> = const { std::cell::RefCell::new(None) };
}

/// The book's document: a stored record that breaks a rule is repaired when read.
static DOCUMENT: SettingsDocument<MemoryBook> = SettingsDocument {
    key: "memory",
    channel: "hearth-memory",
    cell: &BOOK,
    repair: |book| book.repaired().0,
};

/// A switch of the book.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    /// Memories are recalled into replies.
    Enabled,
    /// The model is offered the tool that proposes memories.
    Propose,
    /// The model's proposals are kept without asking.
    AutoRecord,
}

/// One memory operation.
pub enum Op {
    /// Read the book (it then shows in [`Memories::book`]).
    Load,
    /// Remember a draft, written by someone.
    Add(MemoryDraft, MemorySource),
    /// Change what a memory says.
    Update(String, MemoryDraft),
    /// Forget a memory.
    Remove(String),
    /// Turn a switch on or off.
    Set(Switch, bool),
    /// The book for an export (`None` when nothing is remembered).
    Export,
    /// Merge an exported book.
    Merge(Value),
    /// What a reply to `question` takes from memory: its system prompt with the
    /// memories it is about, its record, whether the model may propose.
    Recall {
        /// The system prompt so far.
        system: Option<String>,
        /// The question.
        question: String,
    },
    /// The model's `propose_memory` call with these arguments and id.
    Propose(Map<String, Value>, String),
    /// The user's answer to proposal `id` in a reply's `memory` record: saved (with the
    /// content as edited, when given) or dismissed.
    Review {
        /// The reply's record.
        memory: Option<String>,
        /// The proposal.
        id: String,
        /// `Some` to save (with this content when edited), `None` to dismiss.
        save: Option<Option<String>>,
    },
}

/// What an operation answers.
pub enum Answer {
    /// Done.
    Done,
    /// A new memory's id.
    Added(String),
    /// The exported book.
    Exported(Option<Value>),
    /// What a reply takes from memory.
    Recalled {
        /// Its system prompt.
        system: Option<String>,
        /// Its `memory` record.
        memory: Option<String>,
        /// Whether the model may propose memories.
        propose: bool,
    },
    /// A call's outcome: the proposal (to add to the reply's record), or `None` when
    /// the arguments could not be used; and what the model reads.
    Proposed(Option<Value>, String),
    /// The reply's new `memory` record.
    Reviewed(Option<String>),
}

/// Runs `op` on the book.
pub async fn run(op: Op) -> Result<Answer, MemoryStoreError> {
    let now = crate::browser::now();
    let set = |change: fn(&mut MemoryBook, bool), on: bool| {
        DOCUMENT.change(move |book| {
            change(book, on);
            Ok(())
        })
    };
    match op {
        Op::Load => DOCUMENT.ensure_loaded().await.map(|_| Answer::Done),
        Op::Add(draft, source) => add(draft, source).await.map(Answer::Added),
        Op::Update(id, draft) => DOCUMENT
            .change(move |book| book.update(&id, draft, now))
            .await
            .map(|()| Answer::Done),
        Op::Remove(id) => DOCUMENT
            .change(move |book| book.remove(&id).map(|_| ()))
            .await
            .map(|()| Answer::Done),
        Op::Set(switch, on) => {
            let change: fn(&mut MemoryBook, bool) = match switch {
                Switch::Enabled => |b, on| b.enabled = on,
                Switch::Propose => |b, on| b.propose = on,
                Switch::AutoRecord => |b, on| b.auto_record = on,
            };
            set(change, on).await.map(|()| Answer::Done)
        }
        Op::Export => {
            let book = DOCUMENT.ensure_loaded().await?;
            let value = (!book.memories.is_empty())
                .then(|| serde_json::to_value(&book).ok())
                .flatten();
            Ok(Answer::Exported(value))
        }
        Op::Merge(value) => {
            let incoming: MemoryBook = serde_json::from_value(value)
                .map_err(|e| DocumentError::Unreadable(e.to_string()))?;
            DOCUMENT
                .change(move |book| Ok(book.merge(incoming)))
                .await
                .map(|_| Answer::Done)
        }
        Op::Recall { system, question } => {
            let book = DOCUMENT.ensure_loaded().await?;
            if !book.enabled {
                return Ok(Answer::Recalled {
                    system,
                    memory: None,
                    propose: false,
                });
            }
            let (system, recalled) = INDEX.with(|kept| {
                let mut kept = kept.borrow_mut();
                if !kept.as_ref().is_some_and(|i| i.is_for(&book.memories)) {
                    *kept = Some(MemoryIndex::build(&book.memories));
                }
                let found = kept
                    .as_ref()
                    .map(|index| index.recall(&book.memories, &question))
                    .unwrap_or_default();
                (with_memories(system, &found), recorded(&found))
            });
            let memory = ReplyMemory {
                recalled,
                proposals: Vec::new(),
            };
            Ok(Answer::Recalled {
                system,
                memory: memory.to_text(),
                propose: book.propose,
            })
        }
        Op::Propose(arguments, id) => {
            let draft = match draft_of(&arguments) {
                Ok(draft) => draft,
                Err(reason) => return Ok(Answer::Proposed(None, reason)),
            };
            let auto = DOCUMENT.ensure_loaded().await?.auto_record;
            // With auto-record, kept at once; a refused save (a repeat, a full book)
            // waits for the user instead.
            let memory_id = match auto {
                true => add(draft.clone(), MemorySource::Model).await.ok(),
                false => None,
            };
            let (state, result) = match memory_id {
                Some(_) => (ProposalState::Saved, SAVED_RESULT),
                None => (ProposalState::Pending, PROPOSED_RESULT),
            };
            let proposal = MemoryProposal {
                id,
                draft,
                state,
                memory_id,
            };
            Ok(Answer::Proposed(
                serde_json::to_value(proposal).ok(),
                result.to_string(),
            ))
        }
        Op::Review { memory, id, save } => {
            let mut reply = ReplyMemory::from_text(memory.as_deref());
            let Some(proposal) = reply.proposals.iter_mut().find(|p| p.id == id) else {
                return Err(DocumentError::Refused(MemoryError::NotFound));
            };
            match save {
                Some(edited) => {
                    let mut draft = proposal.draft.clone();
                    if let Some(content) = edited {
                        draft.content = content;
                    }
                    proposal.memory_id = Some(add(draft, MemorySource::Model).await?);
                    proposal.state = ProposalState::Saved;
                }
                None => proposal.state = ProposalState::Dismissed,
            }
            Ok(Answer::Reviewed(reply.to_text()))
        }
    }
}

async fn add(draft: MemoryDraft, source: MemorySource) -> Result<String, MemoryStoreError> {
    let id = crate::browser::new_id();
    let now = crate::browser::now();
    DOCUMENT
        .change(move |book| book.add(id, draft, source, now).map(|m| m.id.clone()))
        .await
}

/// The memory: a handle on the page's one book.
#[derive(Clone, Copy, Debug, Default)]
pub struct Memories;

impl Memories {
    /// The book, once read (`None` until then); reading it in a view tracks it.
    pub fn book(&self) -> ArcRwSignal<Option<MemoryBook>> {
        DOCUMENT.value()
    }
}

/// The app's memory.
pub fn use_memories() -> Memories {
    Memories
}

/// What to tell the user about a memory operation that did not happen, in their
/// language.
pub fn error_text(error: &MemoryStoreError, i18n: crate::i18n::I18n) -> String {
    use crate::i18n::Key;
    match error {
        DocumentError::Refused(refused) => match refused {
            MemoryError::Empty => i18n.t(Key::MemoryErrorEmpty),
            MemoryError::TooLong { max } => {
                i18n.t_with(Key::MemoryErrorTooLong, &[("max", &max.to_string())])
            }
            MemoryError::Full { max } => {
                i18n.t_with(Key::MemoryErrorFull, &[("max", &max.to_string())])
            }
            MemoryError::NotFound => i18n.t(Key::MemoryErrorNotFound),
            MemoryError::Duplicate => i18n.t(Key::MemoryErrorDuplicate),
        },
        DocumentError::Storage(reason) | DocumentError::Unreadable(reason) => {
            i18n.t_with(Key::MemoryErrorStorage, &[("reason", reason)])
        }
    }
}
