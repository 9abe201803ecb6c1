//! The data service: what Settings › Data does with the stored conversations, behind
//! methods, so the tab only asks and shows. The rules of the export file (its shape, its
//! checks, which copy of a record wins, which files travel with it) are
//! `hearth_core::chat::archive`'s and `hearth_core::chat::export_file`'s; this module does
//! the I/O around them.
//!
//! - [`DataService::export`]: every conversation, message, preference, user provider
//!   (never a key, never an operator's provider), skill, memory, template and knowledge
//!   collection, every file the messages refer to (images, attachments, their texts and
//!   thumbnails), every stored file of the collections (originals and extracted texts)
//!   and of the workspaces, as one ZIP; the file is built in the browser's blob storage one file at a
//!   time, never whole in memory.
//! - [`DataService::prepare_import`] then [`DataService::import`]: the chosen file (a ZIP,
//!   or a records-only JSON export of version 1, or another app's export: ChatGPT's or
//!   Claude's ZIP or `conversations.json`, LobeChat's, Open WebUI's or NextChat's JSON,
//!   read by `hearth_core::chat::peer_import`) checked and planned against what is
//!   stored, reading only its directory and records; then the files that are not stored
//!   yet are written, each checked against its checksum, then the records in one
//!   transaction. Another app's images and files (found by
//!   `hearth_core::chat::peer_import::files`) are read as attached files are
//!   (`crate::attachments::read`) and join their messages as attachments; one that cannot
//!   be read is left out and counted. A failure anywhere else (a full disk among them)
//!   removes the files this import wrote, so a failed import changes nothing. Providers
//!   and preferences follow, then the settings documents (skills, memory, templates,
//!   workspaces, assistants and the knowledge library, whose files written for what it
//!   left out are deleted again: [`documents`]), and what did not is reported, not
//!   dropped.
//! - [`markdown`]: one message or one conversation as a Markdown file, with its images.
//! - [`outcome`]: what the actions end in (errors, counts, what an export or import did).
//! - [`DataService::delete_all`]: every conversation, message and file they hold, never
//!   while a reply is streaming.
//!
//! The service opens its own connection to the database on first use (as the vault and
//! the preferences do) and tells the chat store to reload after a bulk change.

mod documents;
pub mod markdown;
mod outcome;
mod read;

pub use outcome::{Counts, DataError, Exported, Imported, PartialImport};

use self::read::{Package, read_entry, read_json, read_package, read_peer_file, read_range};

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use hearth_core::chat::archive::{Archive, ImportPlan};
use hearth_core::chat::export_file::{self, CarriedFile, RECORDS_ENTRY};
use hearth_core::chat::peer_import::{self, LocatedFile, Omitted, PeerReport, Records};
use hearth_core::chat::{ConversationRecord, MessageRecord};
use hearth_core::preferences::Preferences;
use hearth_core::stored_file::FileDir;
use hearth_core::zip_store::{self, DosTime, Entry, ZipWriter};
use leptos::prelude::GetUntracked;
use send_wrapper::SendWrapper;

use crate::browser::{self, BlobBuilder};
use crate::chat::{Chat, use_chat};
use crate::files::{self, FileError};
use crate::preferences::{Prefs, use_prefs};
use crate::providers::{Provider, Providers, use_providers};
use crate::storage::{Batch, CONVERSATIONS, Db, MESSAGES};

/// A chosen export, read, checked and planned, waiting for the user's go-ahead.
#[derive(Debug, Clone)]
pub struct PendingImport {
    /// The file's name.
    pub file: String,
    archive: Archive,
    /// What importing it writes.
    pub plan: ImportPlan,
    /// The files it carries that are not stored here yet, with their entries.
    files: Vec<(CarriedFile, Entry)>,
    /// The files it carries that are stored here already.
    pub files_present: usize,
    /// The knowledge collections it holds, and their files (records).
    pub knowledge: Option<(usize, usize)>,
    /// Another app's images and files its messages carry, to be read as attachments.
    peer_files: Vec<LocatedFile>,
    /// The app it was exported from and what it held that is not imported, when it is
    /// not a Hearth export.
    pub from: Option<PeerReport>,
    /// The chosen file, read again for the files' bytes.
    source: SendWrapper<web_sys::File>,
}

impl PendingImport {
    /// How many files importing it writes.
    pub fn files_to_write(&self) -> usize {
        self.files.len() + self.peer_files.len()
    }
}

impl PartialEq for PendingImport {
    fn eq(&self, other: &Self) -> bool {
        // The same plan from the same file is the same import.
        self.file == other.file
            && self.plan == other.plan
            && self.files == other.files
            && self.peer_files == other.peer_files
            && self.files_present == other.files_present
            && self.knowledge == other.knowledge
            && self.from == other.from
    }
}

/// How far a long action has come: files done, of files in all.
pub type Progress<'a> = &'a dyn Fn(usize, usize);

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

/// Removes files an import wrote before it failed.
async fn remove_files(written: &[CarriedFile]) {
    for file in written {
        let _ = files::remove(&file.folder(), file.name()).await;
    }
}

/// The Data tab's service, built from the stores it works with.
#[derive(Clone, Copy)]
pub struct DataService {
    chat: Chat,
    providers: Providers,
    prefs: Prefs,
    skills: crate::skills::Skills,
}

/// The data service over the app's stores (from context).
pub fn use_data() -> DataService {
    DataService {
        chat: use_chat(),
        providers: use_providers(),
        prefs: use_prefs(),
        skills: crate::skills::use_skills(),
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
    /// holds. `progress` hears of each file.
    pub async fn export(&self, progress: Progress<'_>) -> Result<Exported, DataError> {
        let db = database().await?;
        let (conversations, messages) = everything(&db).await?;
        let referenced = export_file::referenced_files(&messages);
        let providers: Vec<serde_json::Value> = self
            .providers
            .user_providers()
            .iter()
            .filter_map(|p| serde_json::to_value(p).ok())
            .collect();
        let now = js_sys::Date::now();
        let mut archive = Archive::new(
            conversations,
            messages,
            Some(self.prefs.value.get_untracked()),
            providers,
            now,
        );
        // A document that cannot be read does not stop the export of everything else;
        // the toast says it is not in it.
        let added = documents::add_to(&mut archive, self.skills).await;
        let left_out = added.left_out;
        let records = serde_json::to_vec(&archive).map_err(|e| DataError::Encode(e.to_string()))?;
        let mut exported = Exported {
            records: Counts {
                conversations: archive.conversations.len(),
                messages: archive.messages.len(),
            },
            skills_left_out: left_out.skills,
            memory_left_out: left_out.memory,
            templates_left_out: left_out.templates,
            workspaces_left_out: left_out.workspaces,
            assistants_left_out: left_out.assistants,
            knowledge_left_out: left_out.knowledge,
            web_search_left_out: left_out.web_search,
            prices_left_out: left_out.prices,
            collections: added.collections,
            knowledge_files: added.knowledge_files,
            ..Exported::default()
        };
        drop(archive);
        let mut writer = ZipWriter::new(DosTime::from_unix_ms(now));
        let mut out = BlobBuilder::new();
        let mut add = |name: &str, bytes: &[u8]| -> Result<(), DataError> {
            let header = writer
                .entry(name, bytes.len() as u64, zip_store::crc32(bytes))
                .map_err(|e| DataError::Encode(e.to_string()))?;
            out.push(&header).map_err(DataError::Download)?;
            out.push(bytes).map_err(DataError::Download)
        };
        add(RECORDS_ENTRY, &records)?;
        drop(records);
        let referenced: Vec<CarriedFile> = referenced
            .into_iter()
            .map(CarriedFile::Message)
            .chain(
                added
                    .knowledge_paths
                    .into_iter()
                    .map(CarriedFile::Knowledge),
            )
            .chain(
                added
                    .workspace_files
                    .into_iter()
                    .map(CarriedFile::Workspace),
            )
            .collect();
        for (done, file) in referenced.iter().enumerate() {
            progress(done, referenced.len());
            match files::read(&file.folder(), file.name()).await {
                Ok(bytes) => {
                    add(&file.entry_name(), &bytes)?;
                    exported.files += 1;
                }
                Err(FileError::Missing) => exported.missing += 1,
                Err(other) => return Err(DataError::ReadFile(other)),
            }
        }
        progress(referenced.len(), referenced.len());
        let end = writer
            .finish()
            .map_err(|e| DataError::Encode(e.to_string()))?;
        out.push(&end).map_err(DataError::Download)?;
        let blob = out.finish("application/zip").map_err(DataError::Download)?;
        browser::download(&export_file::file_name(&today()), &blob).map_err(DataError::Download)?;
        Ok(exported)
    }

    /// Reads the file chosen in `input`, checks it and plans it against what is stored;
    /// `None` when no file was chosen. Nothing is written. The input is emptied, so the
    /// same file can be chosen again.
    pub async fn prepare_import(
        &self,
        input: &web_sys::HtmlInputElement,
    ) -> Result<Option<PendingImport>, DataError> {
        let chosen = browser::chosen_file(input);
        input.set_value("");
        match chosen {
            Some(file) => Self::plan(file).await.map(Some),
            None => Ok(None),
        }
    }

    /// Reads `file` (an export opened with Hearth) and plans its import, as
    /// [`DataService::prepare_import`] does for a chosen one.
    pub async fn prepare_file_import(
        &self,
        file: web_sys::File,
    ) -> Result<PendingImport, DataError> {
        Self::plan(file).await
    }

    async fn plan(source: web_sys::File) -> Result<PendingImport, DataError> {
        let size = source.size() as u64;
        let head = read_range(&source, 0..size.min(4)).await?;
        let Package {
            records:
                Records {
                    archive,
                    mut from,
                    files: peer_files,
                },
            files: carried,
            foreign,
        } = if export_file::is_zip(&head) {
            read_package(&source, size).await?
        } else {
            Package {
                records: read_json(&source, size).await?,
                files: Vec::new(),
                foreign: Vec::new(),
            }
        };
        let db = database().await?;
        let (stored, stored_messages) = everything(&db).await?;
        let stored_messages: HashMap<String, (u64, f64)> = stored_messages
            .into_iter()
            .map(|m| (m.id, (m.rev, m.updated_at)))
            .collect();
        let plan = archive.plan(&stored, &stored_messages);
        let peer_files = match from.as_mut() {
            Some(report) => {
                let writing: HashSet<&str> = plan.messages.iter().map(|m| m.id.as_str()).collect();
                peer_import::locate(peer_files, &foreign, &writing, &mut report.omitted)
            }
            None => Vec::new(),
        };
        // A file stored here already is the same file (names are random): it stays.
        let mut files = Vec::new();
        let mut files_present = 0;
        for (file, entry) in carried {
            match files::exists(&file.folder(), file.name()).await {
                Ok(true) => files_present += 1,
                Ok(false) => files.push((file, entry)),
                Err(error) => return Err(DataError::WriteFile(error)),
            }
        }
        Ok(PendingImport {
            file: source.name(),
            knowledge: documents::knowledge_counts(&archive),
            archive,
            plan,
            files,
            files_present,
            peer_files,
            from,
            source: SendWrapper::new(source),
        })
    }

    /// Writes a planned import: the files not stored yet (each checked), then the
    /// conversations and messages in one transaction, then the providers, then the
    /// preferences when this browser still has the defaults. A failure before the
    /// records are in removes the files it wrote. `progress` hears of each file.
    pub async fn import(
        &self,
        pending: PendingImport,
        progress: Progress<'_>,
    ) -> Result<Imported, DataError> {
        let db = database().await?;
        let mut written: Vec<CarriedFile> = Vec::new();
        let total = pending.files.len();
        for (done, (file, entry)) in pending.files.iter().enumerate() {
            progress(done, total);
            let dir = file.folder();
            let outcome = async {
                if files::exists(&dir, file.name())
                    .await
                    .map_err(DataError::WriteFile)?
                {
                    return Ok(false);
                }
                let bytes = read_entry(&pending.source, entry).await?;
                files::save(&dir, file.name(), &bytes)
                    .await
                    .map_err(DataError::WriteFile)?;
                Ok(true)
            }
            .await;
            match outcome {
                Ok(true) => written.push(file.clone()),
                Ok(false) => {}
                Err(error) => {
                    remove_files(&written).await;
                    return Err(error);
                }
            }
        }
        let mut plan = pending.plan.clone();
        let all = total + pending.peer_files.len();
        let mut left_out = Omitted::default();
        // Counted as the summary counts them: a file of a Hearth export, an attachment
        // of another app's.
        let mut files_in = written.len();
        for (done, located) in pending.peer_files.iter().enumerate() {
            progress(total + done, all);
            match read_peer_file(&pending.source, located, &plan).await {
                Ok(Some((attachment, stored))) => {
                    written.extend(stored.into_iter().map(CarriedFile::Message));
                    files_in += 1;
                    if let Some(message) = plan
                        .messages
                        .iter_mut()
                        .find(|m| m.id == located.message_id)
                    {
                        message.attachments.push(attachment);
                    }
                }
                Ok(None) => left_out.add(located.omission, 1),
                Err(error) => {
                    remove_files(&written).await;
                    return Err(error);
                }
            }
        }
        progress(all, all);
        let mut batch = Batch::new();
        for conversation in &plan.conversations {
            batch.put(CONVERSATIONS, conversation);
        }
        for message in &plan.messages {
            batch.put(MESSAGES, message);
        }
        // One transaction: a full quota or any failure leaves nothing half-written.
        if let Err(error) = db.apply(&batch).await {
            remove_files(&written).await;
            return Err(DataError::Storage(error));
        }
        let incoming: Vec<Provider> = pending
            .archive
            .providers
            .iter()
            .filter_map(|v| serde_json::from_value(v.clone()).ok())
            .collect();
        // The conversations are in; what did not follow is reported, not dropped.
        let mut partial = Vec::new();
        if !incoming.is_empty()
            && let Err(reason) = self.providers.import(incoming).await
        {
            partial.push(PartialImport::Providers(reason));
        }
        if let Some(imported) = pending.archive.preferences.clone()
            && self.prefs.value.get_untracked() == Preferences::default()
            && let Err(reason) = self.prefs.save(imported).await
        {
            partial.push(PartialImport::Preferences(reason));
        }
        let knowledge = documents::merge_from(
            &pending.archive,
            (self.skills, self.chat.workspace),
            &written,
            &mut partial,
        )
        .await;
        self.chat.after_bulk_change().await;
        Ok(Imported {
            written: Counts {
                conversations: pending.plan.conversations.len(),
                messages: pending.plan.messages.len(),
            },
            files: files_in,
            skipped: pending.plan.skipped,
            left_out,
            partial,
            knowledge,
        })
    }

    /// Deletes every conversation, message and file they hold (images, attachments),
    /// and the saved search index, and opens a new chat. Refused while a reply streams.
    pub async fn delete_all(&self) -> Result<(), DataError> {
        if self.chat.any_streaming() {
            return Err(DataError::Streaming);
        }
        let db = database().await?;
        db.clear(&[CONVERSATIONS, MESSAGES])
            .await
            .map_err(DataError::Storage)?;
        // The files the conversations referred to go with them. The saved search index
        // holds words of every conversation (were it left, the journal's "everything
        // changed" entry would still keep it from being used).
        let mut outcome = Ok(());
        for dir in FileDir::ALL
            .map(FileDir::name)
            .into_iter()
            .chain([files::SEARCH])
        {
            let removed = files::remove_all(dir).await;
            outcome = outcome.and(removed);
        }
        self.chat.after_bulk_change().await;
        self.chat.new_chat();
        outcome.map_err(DataError::DeleteFiles)
    }
}
