//! The data service: what Settings › Data does with the stored conversations, behind
//! methods, so the tab only asks and shows. The rules of the export file (its shape, its
//! checks, which copy of a record wins) are `hearth_core::chat::archive`'s; this module
//! does the I/O around them.
//!
//! - [`DataService::export`]: every conversation, message, preference and user provider
//!   (never a key, never an operator's provider) as one JSON file.
//! - [`DataService::prepare_import`] then [`DataService::import`]: the chosen file
//!   checked whole and planned against what is stored, then written in one transaction
//!   (a full disk leaves nothing half-written), keeping whichever copy of a record is
//!   newer; providers and preferences follow, and what did not is reported, not dropped.
//! - [`DataService::delete_all`]: every conversation, message and generated image, never
//!   while a reply is streaming.
//!
//! The service opens its own connection to the database on first use (as the vault and
//! the preferences do) and tells the chat store to reload after a bulk change.

use std::cell::RefCell;
use std::collections::HashMap;

use hearth_core::chat::archive::{Archive, ArchiveError, ImportPlan, MAX_ARCHIVE_BYTES};
use hearth_core::chat::{ConversationRecord, MessageRecord};
use hearth_core::preferences::Preferences;
use leptos::prelude::GetUntracked;

use crate::browser;
use crate::chat::{Chat, use_chat};
use crate::files::{self, FileError};
use crate::preferences::{Prefs, SaveError, use_prefs};
use crate::providers::{Provider, Providers, use_providers};
use crate::storage::{Batch, CONVERSATIONS, Db, MESSAGES, StorageError};

/// Why a data action did not happen. Nothing was changed when one is returned, except
/// where a variant says otherwise.
#[derive(Debug, Clone, PartialEq)]
pub enum DataError {
    /// The database cannot be opened in this browser (private mode, blocked storage).
    Unavailable(StorageError),
    /// A read or the write failed (a full quota among them).
    Storage(StorageError),
    /// The chosen file is not an export this Hearth can read.
    Archive(ArchiveError),
    /// The export could not be written as JSON.
    Encode(String),
    /// The browser refused to save the file.
    Download(crate::browser::DownloadError),
    /// The conversations are deleted but their images could not all be removed.
    Files(FileError),
    /// A reply is streaming; deleting everything under it is refused.
    Streaming,
}

/// What an import could not bring in, beside the conversations (which are in).
#[derive(Debug, Clone, PartialEq)]
pub enum PartialImport {
    /// The providers were not stored.
    Providers(crate::providers::ProvidersError),
    /// The preferences were not stored.
    Preferences(SaveError),
}

/// How many records a database holds, or an action touched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Conversations.
    pub conversations: usize,
    /// Messages.
    pub messages: usize,
}

/// A chosen export, read, checked and planned, waiting for the user's go-ahead.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingImport {
    /// The file's name.
    pub file: String,
    archive: Archive,
    /// What importing it writes.
    pub plan: ImportPlan,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// Conversations and messages written.
    pub written: Counts,
    /// Records left alone because the stored copy is as new or newer.
    pub skipped: usize,
    /// What else did not come in.
    pub partial: Vec<PartialImport>,
}

thread_local! {
    static DATABASE: RefCell<Option<Db>> = const { RefCell::new(None) };
}

/// The database, opened on first use.
async fn database() -> Result<Db, DataError> {
    if let Some(db) = DATABASE.with(|d| d.borrow().clone()) {
        return Ok(db);
    }
    let db = Db::open().await.map_err(DataError::Unavailable)?;
    DATABASE.with(|d| *d.borrow_mut() = Some(db.clone()));
    Ok(db)
}

/// Every stored conversation and message.
async fn everything(db: &Db) -> Result<(Vec<ConversationRecord>, Vec<MessageRecord>), DataError> {
    let conversations = db
        .all_records::<ConversationRecord>(CONVERSATIONS)
        .await
        .map_err(DataError::Storage)?;
    let messages = db
        .all_records::<MessageRecord>(MESSAGES)
        .await
        .map_err(DataError::Storage)?;
    Ok((conversations, messages))
}

/// Today as `YYYY-MM-DD`, for the export's file name.
fn today() -> String {
    let date = js_sys::Date::new_0();
    format!(
        "{:04}-{:02}-{:02}",
        date.get_full_year(),
        date.get_month() + 1,
        date.get_date()
    )
}

/// The export's file name for `date`.
fn export_file_name(date: &str) -> String {
    format!("hearth-export-{date}.json")
}

/// The Data tab's service, built from the stores it works with.
#[derive(Clone, Copy)]
pub struct DataService {
    chat: Chat,
    providers: Providers,
    prefs: Prefs,
}

/// The data service over the app's stores (from context).
pub fn use_data() -> DataService {
    DataService {
        chat: use_chat(),
        providers: use_providers(),
        prefs: use_prefs(),
    }
}

impl DataService {
    /// How many conversations and messages are stored.
    pub async fn counts(&self) -> Result<Counts, DataError> {
        let db = database().await?;
        let conversations = db.count(CONVERSATIONS).await.map_err(DataError::Storage)?;
        let messages = db.count(MESSAGES).await.map_err(DataError::Storage)?;
        Ok(Counts {
            conversations: conversations as usize,
            messages: messages as usize,
        })
    }

    /// Writes the export file and hands it to the browser's download; returns what it
    /// holds.
    pub async fn export(&self) -> Result<Counts, DataError> {
        let db = database().await?;
        let (conversations, messages) = everything(&db).await?;
        let providers: Vec<serde_json::Value> = self
            .providers
            .user_providers()
            .iter()
            .filter_map(|p| serde_json::to_value(p).ok())
            .collect();
        let archive = Archive::new(
            conversations,
            messages,
            Some(self.prefs.value.get_untracked()),
            providers,
            js_sys::Date::now(),
        );
        let text = serde_json::to_string(&archive).map_err(|e| DataError::Encode(e.to_string()))?;
        browser::download(&export_file_name(&today()), &text, "application/json")
            .map_err(DataError::Download)?;
        Ok(Counts {
            conversations: archive.conversations.len(),
            messages: archive.messages.len(),
        })
    }

    /// Reads the file chosen in `input`, checks it and plans it against what is stored;
    /// `None` when no file was chosen. Nothing is written. The input is emptied, so the
    /// same file can be chosen again.
    pub async fn prepare_import(
        &self,
        input: &web_sys::HtmlInputElement,
    ) -> Result<Option<PendingImport>, DataError> {
        let outcome = Self::plan(input).await;
        input.set_value("");
        outcome
    }

    async fn plan(input: &web_sys::HtmlInputElement) -> Result<Option<PendingImport>, DataError> {
        let (file, text) = match browser::read_chosen_file(input, MAX_ARCHIVE_BYTES).await {
            Ok(Some(chosen)) => chosen,
            Ok(None) => return Ok(None),
            Err(size) => return Err(DataError::Archive(ArchiveError::TooLarge(size))),
        };
        let archive = Archive::parse(&text).map_err(DataError::Archive)?;
        let db = database().await?;
        let (stored, stored_messages) = everything(&db).await?;
        let stored_messages: HashMap<String, (u64, f64)> = stored_messages
            .into_iter()
            .map(|m| (m.id, (m.rev, m.updated_at)))
            .collect();
        let plan = archive.plan(&stored, &stored_messages);
        Ok(Some(PendingImport {
            file,
            archive,
            plan,
        }))
    }

    /// Writes a planned import: the conversations and messages in one transaction, then
    /// the providers, then the preferences when this browser still has the defaults.
    pub async fn import(&self, pending: PendingImport) -> Result<Imported, DataError> {
        let db = database().await?;
        let mut batch = Batch::new();
        for conversation in &pending.plan.conversations {
            batch.put(CONVERSATIONS, conversation);
        }
        for message in &pending.plan.messages {
            batch.put(MESSAGES, message);
        }
        // One transaction: a full quota or any failure leaves nothing half-written.
        db.apply(&batch).await.map_err(DataError::Storage)?;
        let incoming: Vec<Provider> = pending
            .archive
            .providers
            .iter()
            .filter_map(|v| serde_json::from_value(v.clone()).ok())
            .collect();
        // The conversations are in; what did not follow is reported, not dropped.
        let mut partial = Vec::new();
        if let Err(reason) = self.providers.import(incoming).await {
            partial.push(PartialImport::Providers(reason));
        }
        if let Some(imported) = pending.archive.preferences.clone()
            && self.prefs.value.get_untracked() == Preferences::default()
            && let Err(reason) = self.prefs.save(imported).await
        {
            partial.push(PartialImport::Preferences(reason));
        }
        self.chat.after_bulk_change().await;
        Ok(Imported {
            written: Counts {
                conversations: pending.plan.conversations.len(),
                messages: pending.plan.messages.len(),
            },
            skipped: pending.plan.skipped,
            partial,
        })
    }

    /// Deletes every conversation, message and generated image, and the saved search
    /// index, and opens a new chat. Refused while a reply streams.
    pub async fn delete_all(&self) -> Result<(), DataError> {
        if self.chat.any_streaming() {
            return Err(DataError::Streaming);
        }
        let db = database().await?;
        db.clear(&[CONVERSATIONS, MESSAGES])
            .await
            .map_err(DataError::Storage)?;
        // The images the conversations referred to go with them.
        let images = files::remove_all(files::IMAGES).await;
        // The saved search index holds words of every conversation. (Were it left, the
        // journal's "everything changed" entry would still keep it from being used.)
        let index = files::remove_all(files::SEARCH).await;
        let files = images.and(index).map_err(DataError::Files);
        self.chat.after_bulk_change().await;
        self.chat.new_chat();
        files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_export_is_named_by_its_day() {
        assert_eq!(
            export_file_name("2026-12-01"),
            "hearth-export-2026-12-01.json"
        );
    }
}
