//! The chat's handle on IndexedDB: opening it, writing a `Batch` (and announcing it to
//! other tabs), the storage problem to show, and the app-wide owner the chat's tasks run
//! under. Every chat write goes through [`ChatDb::write`]. The records of temporary chats
//! are split off every write into this tab's memory ([`MemoryRecords`], handled by
//! `super::temporary`) and read back from there: they never reach the database, another
//! tab or the search index.

use leptos::prelude::*;

use hearth_core::chat::{ConversationRecord, MessageRecord};

use super::{broadcast, temporary};
use crate::storage::memory::MemoryRecords;
use crate::storage::{Batch, CONVERSATIONS, Db, StorageError};

/// The chat's database handle.
#[derive(Clone, Copy)]
pub struct ChatDb {
    db: StoredValue<Option<Db>, LocalStorage>,
    loaded: RwSignal<bool>,
    error: RwSignal<Option<StorageError>>,
    /// The app-wide owner the chat was created under: tasks run, and the toasts' Undo
    /// callbacks live, under it, not under the view that asked (a deleted message's view
    /// is disposed before its Undo is clicked).
    root: StoredValue<Option<Owner>, LocalStorage>,
    /// Counts the chat changes this tab saw (its own writes, other tabs' announcements,
    /// bulk changes): what keeps derived views such as the search index current.
    changes: RwSignal<u64>,
    /// The temporary chats' records.
    memory: StoredValue<MemoryRecords, LocalStorage>,
}

impl Default for ChatDb {
    fn default() -> Self {
        Self::new()
    }
}

impl ChatDb {
    /// A handle whose database is not open yet.
    pub fn new() -> Self {
        Self {
            db: StoredValue::new_local(None),
            loaded: RwSignal::new(false),
            error: RwSignal::new(None),
            root: StoredValue::new_local(Owner::current()),
            changes: RwSignal::new(0),
            memory: StoredValue::new_local(MemoryRecords::default()),
        }
    }

    /// Opens the database; `None` (with the problem shown) when it cannot be opened. A
    /// newer version taking it over later is shown the moment it happens.
    pub async fn open(&self) -> Option<Db> {
        match Db::open().await {
            Ok(db) => {
                let error = self.error;
                gloo_events::EventListener::new(
                    &window(),
                    crate::storage::REPLACED_EVENT,
                    move |_| {
                        error.set(Some(StorageError::Replaced));
                    },
                )
                .forget();
                if let Some(why) = &db.upgrade_failed {
                    self.error
                        .set(Some(StorageError::UpgradeFailed(why.clone())));
                }
                self.db.set_value(Some(db.clone()));
                Some(db)
            }
            Err(error) => {
                self.error.set(Some(error));
                None
            }
        }
    }

    /// Marks the first load as over (whether or not the database opened).
    pub fn mark_loaded(&self) {
        self.loaded.set(true);
    }

    /// Whether the first load is over.
    pub fn loaded(&self) -> bool {
        self.loaded.get()
    }

    /// The storage problem to show (quota full, unavailable), tracked.
    pub fn error(&self) -> Option<StorageError> {
        self.error.get()
    }

    /// Shows a storage problem.
    pub fn show_error(&self, error: StorageError) {
        self.error.set(Some(error));
    }

    /// Hides the storage problem.
    pub fn dismiss_error(&self) {
        self.error.set(None);
    }

    /// How many chat changes this tab has seen (tracked): a derived view re-reads what it
    /// shows when this moves.
    pub fn changes(&self) -> u64 {
        self.changes.get()
    }

    /// Notes a chat change this tab did not write through [`ChatDb::write`] (another
    /// tab's, an import, a delete-all).
    pub fn note_change(&self) {
        self.changes.update(|n| *n += 1);
    }

    /// Runs `task` under the chat's own owner (see `root`).
    pub fn spawn(&self, task: impl std::future::Future<Output = ()> + 'static) {
        match self.root.get_value() {
            Some(root) => root.with(|| crate::browser::spawn_scoped(task)),
            None => crate::browser::spawn_scoped(task),
        }
    }

    /// Runs `make` under the chat's own owner.
    pub fn under_root<T>(&self, make: impl FnOnce() -> T) -> T {
        match self.root.get_value() {
            Some(root) => root.with(make),
            None => make(),
        }
    }

    /// The database once opening it has finished (however long a busy machine takes);
    /// `None` if it could not be opened.
    pub async fn wait(&self) -> Option<Db> {
        loop {
            if let Some(db) = self.db.get_value() {
                return Some(db);
            }
            if self.loaded.get_untracked() {
                return None;
            }
            crate::browser::sleep_ms(20).await;
        }
    }

    /// The database, if open.
    pub fn get(&self) -> Option<Db> {
        self.db.get_value()
    }

    /// Writes `batch`; a failure is shown to the user and returned. Writes to temporary
    /// chats go to this tab's memory instead, after the rest was stored.
    pub async fn write(&self, batch: Batch) -> Result<(), StorageError> {
        // Without a temporary chat, nothing to split (and none of its code is loaded).
        if !batch.puts_marked(CONVERSATIONS, "temporary") && !self.has_temporary() {
            return self.store(batch).await;
        }
        let (stored, kept) = temporary::split(self.memory, batch).await;
        self.store(stored).await?;
        temporary::apply(self.memory, kept).await;
        Ok(())
    }

    /// Writes `batch` to the database and announces it to other tabs; a failure is
    /// shown to the user and returned.
    async fn store(&self, batch: Batch) -> Result<(), StorageError> {
        if batch.is_empty() {
            return Ok(());
        }
        let Some(db) = self.get() else {
            let error = StorageError::Unavailable("not open".into());
            self.error.set(Some(error.clone()));
            return Err(error);
        };
        if let Err(error) = db.apply(&batch).await {
            self.error.set(Some(error.clone()));
            return Err(error);
        }
        broadcast::announce(&batch);
        self.note_change();
        Ok(())
    }

    /// Whether this tab holds a temporary chat.
    pub fn has_temporary(&self) -> bool {
        self.memory.with_value(|memory| !memory.is_empty())
    }

    /// Every message of conversation `id` (from memory for a temporary chat).
    pub async fn messages_of(&self, id: &str) -> Result<Vec<MessageRecord>, StorageError> {
        let Some(db) = self.wait().await else {
            return Err(StorageError::Unavailable("not open".into()));
        };
        super::records::of_conversation(db, self.memory, id.to_string()).await
    }

    /// Stores temporary chat `id` as any other conversation, messages and all, and
    /// returns its record; `None` (it stays temporary) when it is not one or the write
    /// failed.
    pub async fn keep(&self, id: &str) -> Option<ConversationRecord> {
        let (record, keep, back) = temporary::take(self.memory, id.to_string()).await?;
        if self.store(keep).await.is_ok() {
            return Some(record);
        }
        temporary::apply(self.memory, back).await;
        None
    }
}
