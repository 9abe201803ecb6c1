//! The chat's handle on IndexedDB: opening it, writing a `Batch` (and announcing it to
//! other tabs), the storage problem to show, and the app-wide owner the chat's tasks run
//! under. Every chat write goes through [`ChatDb::write`].

use leptos::prelude::*;

use super::broadcast;
use crate::storage::{Batch, Db, StorageError};

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

    /// Writes `batch`; a failure is shown to the user and returned.
    pub async fn write(&self, batch: &Batch) -> Result<(), StorageError> {
        let Some(db) = self.get() else {
            let error = StorageError::Unavailable("not open".into());
            self.error.set(Some(error.clone()));
            return Err(error);
        };
        match db.apply(batch).await {
            Ok(()) => {
                broadcast::announce(batch);
                self.note_change();
                Ok(())
            }
            Err(error) => {
                self.error.set(Some(error.clone()));
                Err(error)
            }
        }
    }
}
