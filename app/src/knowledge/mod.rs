//! The user's knowledge collections (`hearth_core::knowledge`): the library kept as one
//! document of the settings store (`crate::storage::document`), read the first time
//! Settings › Knowledge, the `@` menu or a turn needs it; each file's original and
//! extracted text in the private file system under `knowledge/<collection>/<file>/`.
//! Every change to the library is made by the core library on a copy (checked, bounded,
//! typed errors), stored, and only then shown; other tabs hear of it on
//! `hearth-knowledge`.
//!
//! - [`ingest`]: a file's way in, stage by stage (store the original, extract its text,
//!   index it), each stage resumable from what is stored, under a Web Lock per file so
//!   another tab never takes a file that is being worked on for interrupted.
//! - [`retrieval`]: the passages a turn's question finds in its conversation's
//!   collections, through an index kept while the files do not change.

pub mod ingest;
pub mod retrieval;

use std::cell::Cell;

use hearth_core::knowledge::transfer::{KnowledgePath, Merged};
use hearth_core::knowledge::{
    CollectionDraft, KnowledgeError, KnowledgeLibrary, Reconciled, Stage,
};
use leptos::prelude::*;

use crate::files::{self, FileError};
use crate::storage::document::{DocumentCell, DocumentError, SettingsDocument};

/// Why a knowledge operation did not happen (nothing changed).
pub type KnowledgeStoreError = DocumentError<KnowledgeError>;

thread_local! {
    /// The library, once read; owned by no component, so the first screen builds nothing.
    static LIBRARY: DocumentCell<KnowledgeLibrary> = DocumentCell::default();
    /// Whether this page looked for files a closed page left on their way in.
    static RESUMED: Cell<bool> = const { Cell::new(false) };
    /// The collections chosen in the new chat, before it has a conversation to keep
    /// them (the first message's conversation takes them).
    static NEW_CHAT: ArcRwSignal<Vec<String>> = ArcRwSignal::new(Vec::new());
}

/// The library's document: a stored record that breaks a rule is repaired when read.
static DOCUMENT: SettingsDocument<KnowledgeLibrary> = SettingsDocument {
    key: "knowledge",
    channel: "hearth-knowledge",
    cell: &LIBRARY,
    repair: KnowledgeLibrary::repaired,
};

/// The knowledge collections: a handle on the page's one library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Knowledge;

/// The app's knowledge collections.
pub fn use_knowledge() -> Knowledge {
    Knowledge
}

impl Knowledge {
    /// The library, once read (`None` until then); reading it in a view tracks it.
    pub fn library(&self) -> ArcRwSignal<Option<KnowledgeLibrary>> {
        DOCUMENT.value()
    }

    /// The library, read the first time. The first read of a page also picks up the
    /// files a closed page left on their way in: each resumes from what is stored, or is
    /// marked interrupted (`KnowledgeLibrary::interrupted`), unless another tab is
    /// working on it.
    pub async fn load(&self) -> Result<KnowledgeLibrary, KnowledgeStoreError> {
        let library = DOCUMENT.ensure_loaded().await?;
        if RESUMED.replace(true)
            || !library
                .collections
                .iter()
                .any(|c| c.files.iter().any(|f| f.in_flight()))
        {
            return Ok(library);
        }
        let busy = crate::locks::held(ingest::LOCK_PREFIX)
            .await
            .unwrap_or_default();
        let resume = DOCUMENT
            .change(move |library| {
                // The files another tab holds are its own.
                Ok::<_, KnowledgeError>(
                    library.interrupted(|file| busy.contains(&ingest::lock_name(file))),
                )
            })
            .await?;
        for (collection, file, stage) in resume {
            ingest::spawn_from(collection, file, stage);
        }
        DOCUMENT.ensure_loaded().await
    }

    /// Makes a collection; its id.
    pub async fn create(&self, draft: CollectionDraft) -> Result<String, KnowledgeStoreError> {
        let id = crate::browser::new_id();
        let now = crate::browser::now();
        DOCUMENT
            .change(move |library| library.create(id.clone(), &draft, now).map(|()| id))
            .await
    }

    /// Renames, redescribes or recolours collection `id`.
    pub async fn update(
        &self,
        id: String,
        draft: CollectionDraft,
    ) -> Result<(), KnowledgeStoreError> {
        DOCUMENT
            .change(move |library| library.update(&id, &draft))
            .await
    }

    /// Deletes collection `id` and its files.
    pub async fn delete(&self, id: String) -> Result<(), KnowledgeStoreError> {
        let removed = DOCUMENT.change(move |library| library.delete(&id)).await?;
        // The record is gone first: a failed delete of the files leaves orphans, which
        // nothing refers to, never a record without its files.
        let _ = files::remove_all(&removed.folder()).await;
        forget_saved_indexes().await;
        Ok(())
    }

    /// Adds `chosen` to collection `collection`, all or none (a full collection takes
    /// none, and says so); each then on its way in.
    pub async fn add_files(
        &self,
        collection: String,
        chosen: Vec<web_sys::File>,
    ) -> Result<(), KnowledgeStoreError> {
        let now = crate::browser::now();
        let entries: Vec<(String, String, u64)> = chosen
            .iter()
            .map(|f| (crate::browser::new_id(), f.name(), f.size() as u64))
            .collect();
        let (c, records) = (collection.clone(), entries.clone());
        DOCUMENT
            .change(move |library| {
                for (id, name, size) in records {
                    library.add_file(&c, id, &name, size, now)?;
                }
                Ok(())
            })
            .await?;
        for ((id, _, _), file) in entries.into_iter().zip(chosen) {
            ingest::spawn_upload(collection.clone(), id, file);
        }
        Ok(())
    }

    /// Cancels a file on its way in (or removes a file): its record goes, its work stops,
    /// and the stored files only it referred to are deleted.
    pub async fn remove_file(
        &self,
        collection: String,
        file: String,
    ) -> Result<(), KnowledgeStoreError> {
        let removed = DOCUMENT
            .change(move |library| library.cancel(&collection, &file))
            .await?;
        let library = DOCUMENT.ensure_loaded::<KnowledgeError>().await?;
        for path in removed.paths().filter(|p| !library.refers_to(p)) {
            let (dir, name) = files::split_path(path);
            let _ = files::remove(dir, name).await;
        }
        forget_saved_indexes().await;
        Ok(())
    }

    /// Runs a failed file's failed stage again, from what is stored.
    pub async fn retry(&self, collection: String, file: String) -> Result<(), KnowledgeStoreError> {
        let (c, f) = (collection.clone(), file.clone());
        let stage = DOCUMENT
            .change(move |library| library.retry(&c, &f))
            .await?;
        ingest::spawn_from(collection, file, stage);
        Ok(())
    }

    /// Extracts a file's text again from its original (a new version; an edit is
    /// dropped: the caller asked the user first, `KnowledgeFile::reparse_needs_confirmation`).
    /// A text file's edit, stored apart from its original, is deleted: its original is
    /// its text again.
    pub async fn reparse(
        &self,
        collection: String,
        file: String,
    ) -> Result<(), KnowledgeStoreError> {
        let edit = DOCUMENT.value().with_untracked(|library| {
            let file = library.as_ref()?.collection(&collection)?.file(&file)?;
            let text_is_source = file
                .kind
                .is_some_and(hearth_core::knowledge::KnowledgeFile::text_is_source);
            (text_is_source && file.edited && file.content_path != file.source_path)
                .then(|| file.content_path.clone())
        });
        let (c, f) = (collection.clone(), file.clone());
        DOCUMENT
            .change(move |library| library.reparse(&c, &f))
            .await?;
        if let Some(path) = edit {
            let (dir, name) = files::split_path(&path);
            let _ = files::remove(dir, name).await;
        }
        ingest::spawn_from(collection, file, Stage::Parse);
        Ok(())
    }

    /// Replaces a ready file's extracted text with `text` (the user's edit): stored at
    /// the file's own content path (a text file's original is kept), a new version
    /// marked edited, indexed again. Checked before anything is written
    /// (`KnowledgeLibrary::edit_text`).
    pub async fn edit_text(
        &self,
        collection: String,
        file: String,
        text: String,
    ) -> Result<(), KnowledgeStoreError> {
        let chars = text.chars().count() as u64;
        let mut check = self.load().await?;
        let path = check
            .edit_text(&collection, &file, chars)
            .map_err(DocumentError::Refused)?;
        let (dir, name) = files::split_path(&path);
        files::save(dir, name, text.as_bytes())
            .await
            .map_err(|e| DocumentError::Storage(e.to_string()))?;
        let (c, f) = (collection.clone(), file.clone());
        DOCUMENT
            .change(move |library| library.edit_text(&c, &f, chars))
            .await?;
        ingest::spawn_from(collection, file, Stage::Index);
        Ok(())
    }

    /// Checks collection `collection`'s records against its folder: orphans deleted,
    /// lost text extracted again, lost files marked (`KnowledgeLibrary::reconcile`).
    pub async fn reconcile(&self, collection: String) -> Result<Reconciled, KnowledgeStoreError> {
        let folder = DOCUMENT
            .ensure_loaded::<KnowledgeError>()
            .await?
            .collection(&collection)
            .map(|c| c.folder())
            .ok_or(DocumentError::Refused(KnowledgeError::NoCollection))?;
        let stored = files::list_all(&folder)
            .await
            .map_err(|e| DocumentError::Storage(e.to_string()))?;
        let c = collection.clone();
        let found = DOCUMENT
            .change(move |library| library.reconcile(&c, &stored))
            .await?;
        for path in &found.orphans {
            let (dir, name) = files::split_path(path);
            let _ = files::remove(dir, name).await;
        }
        for file in &found.to_reparse {
            ingest::spawn_from(collection.clone(), file.clone(), Stage::Parse);
        }
        Ok(found)
    }

    /// The library as an export carries it (files on their way in marked interrupted:
    /// `KnowledgeLibrary::for_export`), with the stored files its records refer to.
    pub async fn for_export(
        &self,
    ) -> Result<(KnowledgeLibrary, Vec<KnowledgePath>), KnowledgeStoreError> {
        let library = self.load().await?.for_export();
        let paths = library.stored_paths();
        Ok((library, paths))
    }

    /// Brings an import's library in (`KnowledgeLibrary::merge`: untrusted, checked,
    /// bounded).
    pub async fn merge(&self, incoming: KnowledgeLibrary) -> Result<Merged, KnowledgeStoreError> {
        self.load().await?;
        DOCUMENT
            .change(move |library| Ok::<_, KnowledgeError>(library.merge(incoming)))
            .await
    }

    /// Deletes those of `written` (files an import wrote) that no record refers to: the
    /// files of what a merge left out, or of everything when it failed.
    pub async fn remove_unreferenced(&self, written: &[KnowledgePath]) {
        if written.is_empty() {
            return;
        }
        // A record stored here may refer to a file that was lost and came back.
        let _ = self.load().await;
        let strays: Vec<&KnowledgePath> = DOCUMENT.value().with_untracked(|library| {
            written
                .iter()
                .filter(|at| !library.as_ref().is_some_and(|l| l.refers_to(&at.path())))
                .collect()
        });
        for stray in strays {
            let _ = files::remove(&stray.folder(), stray.part.name()).await;
        }
    }

    /// The extracted text of file `file` of `collection`.
    pub async fn text(&self, collection: &str, file: &str) -> Result<String, FileError> {
        let library = DOCUMENT
            .ensure_loaded::<KnowledgeError>()
            .await
            .map_err(|_| FileError::Missing)?;
        let path = library
            .collection(collection)
            .and_then(|c| c.file(file))
            .map(|f| f.content_path.clone())
            .filter(|p| !p.is_empty())
            .ok_or(FileError::Missing)?;
        read_text(&path).await
    }

    /// The collections chosen in the new chat, handed to its first conversation.
    pub fn take_new_chat(&self) -> Vec<String> {
        NEW_CHAT.with(|chosen| chosen.try_update(std::mem::take).unwrap_or_default())
    }

    /// Sets the collections of the new chat.
    pub fn set_new_chat(&self, ids: Vec<String>) {
        NEW_CHAT.with(|chosen| chosen.set(ids));
    }

    /// The collections of the new chat (tracked).
    pub fn new_chat(&self) -> Vec<String> {
        NEW_CHAT.with(|chosen| chosen.get())
    }
}

/// The text stored at `path` (UTF-8, without a byte-order mark).
pub(crate) async fn read_text(path: &str) -> Result<String, FileError> {
    let (dir, name) = files::split_path(path);
    let bytes = files::read(dir, name).await?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string())
}

/// A change of file `file` of `collection` (a stage reached, a failure), stored; a file
/// removed meanwhile is not an error (its work just stops).
async fn change_file(
    collection: &str,
    file: &str,
    change: impl FnOnce(&mut hearth_core::knowledge::KnowledgeFile) + 'static,
) -> Result<(), KnowledgeStoreError> {
    let (collection, file) = (collection.to_string(), file.to_string());
    DOCUMENT
        .change(move |library| library.change_file(&collection, &file, change))
        .await
}

/// Whether file `file` of `collection` is still in the library (not cancelled).
fn still_there(collection: &str, file: &str) -> bool {
    DOCUMENT.value().with_untracked(|library| {
        library
            .as_ref()
            .and_then(|l| l.collection(collection))
            .is_some_and(|c| c.file(file).is_some())
    })
}

/// What to tell the user about a knowledge operation that did not happen, in their
/// language.
pub fn error_text(error: &KnowledgeStoreError, i18n: crate::i18n::I18n) -> String {
    use crate::i18n::Key;
    use hearth_core::knowledge::{
        MAX_ATTACHED, MAX_COLLECTIONS, MAX_DESCRIPTION_CHARS, MAX_FILES, MAX_NAME_CHARS,
    };
    match error {
        DocumentError::Refused(refused) => match refused {
            KnowledgeError::EmptyName => i18n.t(Key::KnowledgeErrorEmptyName),
            KnowledgeError::NameTooLong => i18n.t_with(
                Key::KnowledgeErrorNameTooLong,
                &[("max", &MAX_NAME_CHARS.to_string())],
            ),
            KnowledgeError::DescriptionTooLong => i18n.t_with(
                Key::KnowledgeErrorDescriptionTooLong,
                &[("max", &MAX_DESCRIPTION_CHARS.to_string())],
            ),
            KnowledgeError::DuplicateName => i18n.t(Key::KnowledgeErrorDuplicateName),
            KnowledgeError::TooManyCollections => i18n.t_with(
                Key::KnowledgeErrorTooManyCollections,
                &[("max", &MAX_COLLECTIONS.to_string())],
            ),
            KnowledgeError::TooManyFiles => i18n.t_with(
                Key::KnowledgeErrorTooManyFiles,
                &[("max", &MAX_FILES.to_string())],
            ),
            KnowledgeError::NoCollection | KnowledgeError::NoFile => {
                i18n.t(Key::KnowledgeErrorGone)
            }
            KnowledgeError::NotRetryable => i18n.t(Key::KnowledgeErrorAddAgain),
            KnowledgeError::TooManyAttached => i18n.t_with(
                Key::KnowledgeErrorTooManyAttached,
                &[("max", &MAX_ATTACHED.to_string())],
            ),
            KnowledgeError::NotEditable => i18n.t(Key::KnowledgeErrorNotEditable),
            KnowledgeError::TextTooLong => i18n.t_with(
                Key::KnowledgeErrorTextTooLong,
                &[("max", &hearth_core::attachment::MAX_TEXT_CHARS.to_string())],
            ),
        },
        DocumentError::Storage(reason) | DocumentError::Unreadable(reason) => {
            i18n.t_with(Key::KnowledgeErrorStorage, &[("reason", reason)])
        }
    }
}

/// Deletes the knowledge indexes the search worker saved (`hearth_core::knowledge::saved`):
/// they hold the passages of every file they index, so a removed file's text must not
/// outlive it there. The next question builds them again.
async fn forget_saved_indexes() {
    for name in hearth_core::knowledge::saved::SAVED_FILES {
        let _ = files::remove(files::SEARCH, name).await;
    }
}
