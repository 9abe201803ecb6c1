//! The conversation list of the sidebar: every conversation's record, pinned first, then
//! most recent first; renaming, pinning, archiving, titles, compression summaries and
//! context breaks (`/clear`). Deleting (with
//! Undo) crosses into the open conversation and the runs, so it is the chat's
//! (`actions`); this store only holds and writes the records.

use hearth_core::chat::ConversationRecord;
use hearth_core::chat::compression::Compression;
use hearth_core::chat::context_break;
use leptos::prelude::*;
use serde_json::json;

use super::store::ChatDb;
use crate::storage::{Batch, CONVERSATIONS, StorageError};

/// The longest title kept, in characters.
const MAX_TITLE_CHARS: usize = 120;

/// The conversation list.
#[derive(Clone, Copy)]
pub struct Conversations {
    records: RwSignal<Vec<ConversationRecord>>,
    store: ChatDb,
}

fn sort(list: &mut [ConversationRecord]) {
    list.sort_by(|a, b| {
        b.pinned
            .cmp(&a.pinned)
            .then(b.updated_at.total_cmp(&a.updated_at))
    });
}

impl Conversations {
    /// An empty list written through `store`.
    pub fn new(store: ChatDb) -> Self {
        Self {
            records: RwSignal::new(Vec::new()),
            store,
        }
    }

    /// Reads `f` of the list (tracked).
    pub fn with<R>(&self, f: impl FnOnce(&[ConversationRecord]) -> R) -> R {
        self.records.with(|list| f(list))
    }

    /// Conversation `id`'s record (untracked).
    pub fn find(&self, id: &str) -> Option<ConversationRecord> {
        self.records
            .with_untracked(|list| list.iter().find(|c| c.id == id).cloned())
    }

    /// Conversation `id`'s title (tracked; empty when untitled or gone).
    pub fn title(&self, id: &str) -> String {
        self.records.with(|list| {
            list.iter()
                .find(|c| c.id == id)
                .map(|c| c.title.clone())
                .unwrap_or_default()
        })
    }

    /// Replaces the whole list of stored conversations (the first load, a bulk change);
    /// the temporary chats, never stored, stay.
    pub fn replace_all(&self, mut list: Vec<ConversationRecord>) {
        self.records.update(|shown| {
            list.extend(shown.drain(..).filter(|c| c.temporary));
            sort(&mut list);
            *shown = list;
        });
    }

    /// Reads every conversation from the database.
    pub async fn load(&self) -> Result<(), StorageError> {
        let Some(db) = self.store.wait().await else {
            return Ok(());
        };
        let list = db.all_records::<ConversationRecord>(CONVERSATIONS).await?;
        self.replace_all(list);
        Ok(())
    }

    /// Shows a record that was written (new, or restored by Undo).
    pub fn add(&self, record: ConversationRecord) {
        self.records.update(|list| {
            list.retain(|c| c.id != record.id);
            list.push(record);
            sort(list);
        });
    }

    /// Stops showing conversation `id`.
    pub fn forget(&self, id: &str) {
        self.records.update(|list| list.retain(|c| c.id != id));
    }

    /// Applies `change` to the shown record of conversation `id`.
    pub fn touch(&self, id: &str, change: impl FnOnce(&mut ConversationRecord)) {
        self.records.update(|list| {
            if let Some(record) = list.iter_mut().find(|c| c.id == id) {
                change(record);
            }
            sort(list);
        });
    }

    /// Shows another tab's version of a record when it differs from ours; whether its
    /// active root moved (the open conversation then reloads).
    pub fn apply_stored(&self, record: ConversationRecord) -> bool {
        let mut root_changed = true;
        self.records.update(|list| {
            match list.iter_mut().find(|c| c.id == record.id) {
                Some(current) => {
                    root_changed = current.active_root_id != record.active_root_id;
                    if hearth_core::chat::record::newer(
                        record.rev,
                        record.updated_at,
                        current.rev,
                        current.updated_at,
                    ) || record != *current
                    {
                        *current = record;
                    }
                }
                None => list.push(record),
            }
            sort(list);
        });
        root_changed
    }

    /// Writes `fields` of conversation `id` and, once stored, shows `change`.
    async fn merge(
        &self,
        id: &str,
        fields: serde_json::Value,
        change: impl FnOnce(&mut ConversationRecord),
    ) -> Result<(), StorageError> {
        let mut batch = Batch::new();
        batch.merge(CONVERSATIONS, id, fields);
        self.store.write(batch).await?;
        self.touch(id, change);
        Ok(())
    }

    /// Renames a conversation (an empty title returns to the automatic one).
    pub fn rename(&self, id: String, title: String) {
        let title = title
            .trim()
            .chars()
            .take(MAX_TITLE_CHARS)
            .collect::<String>();
        let by_user = !title.is_empty();
        let list = *self;
        self.store.spawn(async move {
            let fields = json!({ "title": title, "titleByUser": by_user });
            let _ = list
                .merge(&id, fields, |c| {
                    c.title = title.clone();
                    c.title_by_user = by_user;
                })
                .await;
        });
    }

    /// Pins or unpins a conversation.
    pub fn set_pinned(&self, id: String, pinned: bool) {
        let list = *self;
        self.store.spawn(async move {
            let _ = list
                .merge(&id, json!({ "pinned": pinned }), |c| c.pinned = pinned)
                .await;
        });
    }

    /// Archives a conversation (or brings it back to the sidebar's list).
    pub async fn set_archived(&self, id: &str, archived: bool) -> Result<(), StorageError> {
        self.merge(id, json!({ "archived": archived }), |c| {
            c.archived = archived
        })
        .await
    }

    /// Whether conversation `id` is archived (tracked).
    pub fn archived(&self, id: &str) -> bool {
        self.records
            .with(|list| list.iter().any(|c| c.id == id && c.archived))
    }

    /// Whether conversation `id` is a temporary chat (tracked).
    pub fn temporary(&self, id: &str) -> bool {
        self.records
            .with(|list| list.iter().any(|c| c.id == id && c.temporary))
    }

    /// Whether memory is off in conversation `id` (tracked).
    pub fn memory_off(&self, id: &str) -> bool {
        self.records
            .with(|list| list.iter().any(|c| c.id == id && c.memory_off))
    }

    /// Turns memory off (or back on) in conversation `id`.
    pub async fn set_memory_off(&self, id: &str, off: bool) -> Result<(), StorageError> {
        self.merge(id, json!({ "memoryOff": off }), |c| c.memory_off = off)
            .await
    }

    /// Sets conversation `id`'s model fallback setting, as kept
    /// (`hearth_core::chat::fallback::Fallback::encode`; `None`: pinned, the default).
    pub async fn set_fallback(&self, id: &str, kept: Option<String>) -> Result<(), StorageError> {
        let fields = json!({ "fallback": kept });
        self.merge(id, fields, move |c| c.fallback = kept).await
    }

    /// What `read` takes from conversation `id`'s record (tracked; the default without
    /// one).
    fn read<T: Default>(&self, id: &str, read: impl Fn(&ConversationRecord) -> T) -> T {
        self.records.with(|list| {
            list.iter()
                .find(|c| c.id == id)
                .map(read)
                .unwrap_or_default()
        })
    }

    /// The knowledge collections of conversation `id` (tracked).
    pub fn knowledge(&self, id: &str) -> Vec<String> {
        self.read(id, |c| c.knowledge.clone())
    }

    /// Sets the knowledge collections of conversation `id`.
    pub async fn set_knowledge(&self, id: &str, ids: Vec<String>) -> Result<(), StorageError> {
        self.merge(id, json!({ "knowledge": ids }), |c| {
            c.knowledge = ids.clone()
        })
        .await
    }

    /// Moves conversation `id` to `workspace_id` (`None`: no workspace) and gives it
    /// `system_prompt` as its own instructions, in one write.
    pub async fn set_placement(
        &self,
        id: &str,
        workspace_id: Option<String>,
        system_prompt: String,
    ) -> Result<(), StorageError> {
        let fields = json!({ "workspaceId": workspace_id, "systemPrompt": system_prompt });
        self.merge(id, fields, |c| {
            c.workspace_id = workspace_id.clone();
            c.system_prompt = system_prompt.clone();
        })
        .await
    }

    /// The assistant and the own instructions of conversation `id` (untracked; `None`
    /// when it is not listed).
    pub fn assistant_and_prompt(&self, id: &str) -> Option<(Option<String>, String)> {
        self.records.with_untracked(|list| {
            list.iter()
                .find(|c| c.id == id)
                .map(|c| (c.assistant_id.clone(), c.system_prompt.clone()))
        })
    }

    /// Hands conversation `id` to `assistant_id` (`None`: to no assistant) with
    /// `system_prompt` as its own instructions, in one write.
    pub async fn set_assistant(
        &self,
        id: &str,
        assistant_id: Option<String>,
        system_prompt: String,
    ) -> Result<(), StorageError> {
        let fields = json!({ "assistantId": assistant_id, "systemPrompt": system_prompt });
        self.merge(id, fields, |c| {
            c.assistant_id = assistant_id.clone();
            c.system_prompt = system_prompt.clone();
        })
        .await
    }

    /// Whether conversation `id` still has no title, neither automatic nor the user's.
    pub fn is_untitled(&self, id: &str) -> bool {
        self.records.with_untracked(|list| {
            list.iter()
                .any(|c| c.id == id && c.title.is_empty() && !c.title_by_user)
        })
    }

    /// Stores an automatic title.
    pub async fn set_auto_title(&self, id: &str, title: String) -> Result<(), StorageError> {
        let fields = json!({ "title": title });
        self.merge(id, fields, |c| c.title = title).await
    }

    /// The messages of conversation `id` after which its context starts again (tracked).
    pub fn context_breaks(&self, id: &str) -> Vec<String> {
        self.read(id, |c| c.context_breaks.clone())
    }

    /// Starts conversation `id`'s context again after message `after_id` (`on`), or
    /// takes that break back.
    pub async fn set_context_break(
        &self,
        id: &str,
        after_id: &str,
        on: bool,
    ) -> Result<(), StorageError> {
        let current = untrack(|| self.context_breaks(id));
        let breaks = if on {
            context_break::add(current, after_id)
        } else {
            context_break::remove(current, after_id)
        };
        let fields = json!({ "contextBreaks": breaks });
        self.merge(id, fields, |c| c.context_breaks = breaks).await
    }

    /// Stores the summary of a conversation's older turns.
    pub async fn set_compression(
        &self,
        id: &str,
        compression: Compression,
    ) -> Result<(), StorageError> {
        let fields = json!({ "compression": compression });
        self.merge(id, fields, |c| c.compression = Some(compression))
            .await
    }
}
