//! Knowledge collections: the user's documents, kept in this browser, that a conversation
//! can draw passages from.
//!
//! - [`KnowledgeLibrary`]: every collection (name, description, colour) with its files.
//!   Each file keeps its original at [`KnowledgeFile::source_path`] and its extracted,
//!   editable text at [`KnowledgeFile::content_path`] (one path for a text file); where
//!   it is on its way in ([`Stage`]) and what failed there ([`Failure`]: storage, parsing
//!   and indexing failures apart). Every change is checked, bounded and all-or-nothing.
//! - The recovery rules of seed 000: [`KnowledgeLibrary::cancel`] (the record goes; what
//!   it alone referred to is the caller's to delete), [`KnowledgeLibrary::retry`] (the
//!   failed stage again, the stored files kept), [`KnowledgeLibrary::reconcile`]
//!   (records against the stored paths: orphans named, extracted text kept when only the
//!   original is gone), [`KnowledgeFile::reparse_needs_confirmation`] (an edited
//!   extraction is not overwritten unasked), and [`KnowledgeLibrary::interrupted`] (what
//!   a reload finds in flight).
//! - `edit`: [`KnowledgeLibrary::edit_text`], the record of a text the user edited (a
//!   new version at the file's own content path).
//! - [`transfer`]: the library in an export and an import (the stored files it carries,
//!   an imported library merged as untrusted input).
//! - [`ask`]: a question asked of a scope, as the page sends it to the search worker and
//!   the answer it gets back, and the index either side keeps (bounded in size).
//! - [`retrieve`]: the passages a question finds in the collections a conversation uses,
//!   through `crate::search`, as context items that carry their citation.

pub mod ask;
mod edit;
mod file;
pub mod retrieve;
pub mod saved;
pub mod transfer;

pub use file::{Failure, KnowledgeFile, Stage};

use serde::{Deserialize, Serialize};

/// The most collections kept.
pub const MAX_COLLECTIONS: usize = 100;
/// The most files in one collection.
pub const MAX_FILES: usize = 1_000;
/// The longest collection name, in characters.
pub const MAX_NAME_CHARS: usize = 80;
/// The longest file name kept, in characters (a longer one is cut).
pub const MAX_FILE_NAME_CHARS: usize = 255;
/// The longest description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 500;
/// The most collections one conversation uses.
pub const MAX_ATTACHED: usize = 8;
/// The OPFS folder every collection lives under.
pub const ROOT: &str = "knowledge";

/// A collection's colour, as a design token names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Colour {
    /// The accent colour.
    #[default]
    Accent,
    /// Green.
    Green,
    /// Amber.
    Amber,
    /// Red.
    Red,
    /// Violet.
    Violet,
    /// Grey.
    Grey,
}

impl Colour {
    /// Every colour, in the order they are offered.
    pub const ALL: [Colour; 6] = [
        Self::Accent,
        Self::Green,
        Self::Amber,
        Self::Red,
        Self::Violet,
        Self::Grey,
    ];

    /// Its stable name (storage, CSS class).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accent => "accent",
            Self::Green => "green",
            Self::Amber => "amber",
            Self::Red => "red",
            Self::Violet => "violet",
            Self::Grey => "grey",
        }
    }
}

/// A collection of files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Collection {
    /// Unique in the library.
    pub id: String,
    /// Its name (unique, ignoring case).
    pub name: String,
    /// What it holds, for the user.
    #[serde(default)]
    pub description: String,
    /// Its colour.
    #[serde(default)]
    pub colour: Colour,
    /// Its files, in the order they were added.
    #[serde(default)]
    pub files: Vec<KnowledgeFile>,
    /// When it was made (ms since the epoch).
    #[serde(default)]
    pub created_at: f64,
}

impl Collection {
    /// The folder its files live in.
    pub fn folder(&self) -> String {
        format!("{ROOT}/{}", self.id)
    }

    /// Its file `id`.
    pub fn file(&self, id: &str) -> Option<&KnowledgeFile> {
        self.files.iter().find(|f| f.id == id)
    }

    /// Its files ready to be found.
    pub fn ready(&self) -> impl Iterator<Item = &KnowledgeFile> {
        self.files.iter().filter(|f| f.is_ready())
    }

    /// What of it the search palette finds: its name as the title, its description and
    /// its files' names as the body (the files' texts are searched by a conversation's
    /// questions, in the search worker).
    pub fn search_document(&self) -> crate::search::local::LocalDocument {
        crate::search::local::LocalDocument::with_names(
            crate::search::Source::Knowledge,
            (&self.id, &self.name),
            &self.description,
            self.files.iter().map(|file| file.name.as_str()),
            self.created_at,
        )
    }
}

/// A new collection's name and words.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectionDraft {
    /// Its name.
    pub name: String,
    /// What it holds.
    pub description: String,
    /// Its colour.
    pub colour: Colour,
}

/// Why a change was refused (nothing changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KnowledgeError {
    /// A collection needs a name.
    #[error("a collection needs a name")]
    EmptyName,
    /// The name is longer than [`MAX_NAME_CHARS`].
    #[error("the name is longer than {MAX_NAME_CHARS} characters")]
    NameTooLong,
    /// The description is longer than [`MAX_DESCRIPTION_CHARS`].
    #[error("the description is longer than {MAX_DESCRIPTION_CHARS} characters")]
    DescriptionTooLong,
    /// Another collection has this name.
    #[error("another collection has this name")]
    DuplicateName,
    /// [`MAX_COLLECTIONS`] collections are kept already.
    #[error("at most {MAX_COLLECTIONS} collections are kept")]
    TooManyCollections,
    /// [`MAX_FILES`] files are in the collection already.
    #[error("a collection holds at most {MAX_FILES} files")]
    TooManyFiles,
    /// No such collection (deleted meanwhile, perhaps in another tab).
    #[error("the collection is gone")]
    NoCollection,
    /// No such file.
    #[error("the file is gone")]
    NoFile,
    /// The file cannot be retried from what is stored: it must be added again.
    #[error("the file must be added again")]
    NotRetryable,
    /// A conversation uses at most [`MAX_ATTACHED`] collections.
    #[error("a conversation uses at most {MAX_ATTACHED} collections")]
    TooManyAttached,
    /// Only a ready file's text can be edited (not one on its way in, or failed).
    #[error("only a ready file's text can be edited")]
    NotEditable,
    /// An edited text is longer than `attachment::MAX_TEXT_CHARS`.
    #[error(
        "the text is longer than {} characters",
        crate::attachment::MAX_TEXT_CHARS
    )]
    TextTooLong,
}

impl KnowledgeError {
    /// A stable code the app renders in the user's language.
    pub fn code(&self) -> &'static str {
        match self {
            Self::EmptyName => "knowledge_empty_name",
            Self::NameTooLong => "knowledge_name_too_long",
            Self::DescriptionTooLong => "knowledge_description_too_long",
            Self::DuplicateName => "knowledge_duplicate_name",
            Self::TooManyCollections => "knowledge_too_many_collections",
            Self::TooManyFiles => "knowledge_too_many_files",
            Self::NoCollection => "knowledge_no_collection",
            Self::NoFile => "knowledge_no_file",
            Self::NotRetryable => "knowledge_not_retryable",
            Self::TooManyAttached => "knowledge_too_many_attached",
            Self::NotEditable => "knowledge_not_editable",
            Self::TextTooLong => "knowledge_text_too_long",
        }
    }
}

/// What [`KnowledgeLibrary::reconcile`] found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reconciled {
    /// Stored paths no record refers to: to delete.
    pub orphans: Vec<String>,
    /// Files whose original is gone but whose text is kept.
    pub sources_missing: Vec<String>,
    /// Files whose text is gone: to extract again from the original.
    pub to_reparse: Vec<String>,
    /// Files with neither: failed, to be added again.
    pub lost: Vec<String>,
}

impl Reconciled {
    /// Whether everything matched.
    pub fn is_clean(&self) -> bool {
        self.orphans.is_empty()
            && self.sources_missing.is_empty()
            && self.to_reparse.is_empty()
            && self.lost.is_empty()
    }
}

/// Every collection.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct KnowledgeLibrary {
    /// The collections, in the order they were made.
    pub collections: Vec<Collection>,
}

fn checked(draft: &CollectionDraft) -> Result<CollectionDraft, KnowledgeError> {
    let name = draft.name.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return Err(KnowledgeError::EmptyName);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(KnowledgeError::NameTooLong);
    }
    let description = draft.description.trim().to_string();
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(KnowledgeError::DescriptionTooLong);
    }
    Ok(CollectionDraft {
        name,
        description,
        colour: draft.colour,
    })
}

impl KnowledgeLibrary {
    /// Collection `id`.
    pub fn collection(&self, id: &str) -> Option<&Collection> {
        self.collections.iter().find(|c| c.id == id)
    }

    fn collection_mut(&mut self, id: &str) -> Result<&mut Collection, KnowledgeError> {
        self.collections
            .iter_mut()
            .find(|c| c.id == id)
            .ok_or(KnowledgeError::NoCollection)
    }

    fn file_mut(
        &mut self,
        collection: &str,
        file: &str,
    ) -> Result<&mut KnowledgeFile, KnowledgeError> {
        self.collection_mut(collection)?
            .files
            .iter_mut()
            .find(|f| f.id == file)
            .ok_or(KnowledgeError::NoFile)
    }

    fn name_taken(&self, name: &str, except: Option<&str>) -> bool {
        self.collections
            .iter()
            .any(|c| Some(c.id.as_str()) != except && c.name.to_lowercase() == name.to_lowercase())
    }

    /// Makes collection `id` from `draft`.
    pub fn create(
        &mut self,
        id: String,
        draft: &CollectionDraft,
        now: f64,
    ) -> Result<(), KnowledgeError> {
        let draft = checked(draft)?;
        if self.collections.len() >= MAX_COLLECTIONS {
            return Err(KnowledgeError::TooManyCollections);
        }
        if self.name_taken(&draft.name, None) {
            return Err(KnowledgeError::DuplicateName);
        }
        self.collections.push(Collection {
            id,
            name: draft.name,
            description: draft.description,
            colour: draft.colour,
            files: Vec::new(),
            created_at: now,
        });
        Ok(())
    }

    /// Renames, redescribes or recolours collection `id`.
    pub fn update(&mut self, id: &str, draft: &CollectionDraft) -> Result<(), KnowledgeError> {
        let draft = checked(draft)?;
        if self.name_taken(&draft.name, Some(id)) {
            return Err(KnowledgeError::DuplicateName);
        }
        let collection = self.collection_mut(id)?;
        collection.name = draft.name;
        collection.description = draft.description;
        collection.colour = draft.colour;
        Ok(())
    }

    /// Removes collection `id`; it is returned so its folder can be deleted.
    pub fn delete(&mut self, id: &str) -> Result<Collection, KnowledgeError> {
        let at = self
            .collections
            .iter()
            .position(|c| c.id == id)
            .ok_or(KnowledgeError::NoCollection)?;
        Ok(self.collections.remove(at))
    }

    /// Adds file `id` named `name` of `size` bytes to `collection`, about to be stored.
    pub fn add_file(
        &mut self,
        collection: &str,
        id: String,
        name: &str,
        size: u64,
        now: f64,
    ) -> Result<(), KnowledgeError> {
        let collection = self.collection_mut(collection)?;
        if collection.files.len() >= MAX_FILES {
            return Err(KnowledgeError::TooManyFiles);
        }
        collection.files.push(KnowledgeFile {
            id,
            name: name.chars().take(MAX_FILE_NAME_CHARS).collect(),
            kind: None,
            size,
            version: 1,
            stage: Stage::Upload,
            failure: None,
            source_path: String::new(),
            content_path: String::new(),
            page_starts: Vec::new(),
            chars: 0,
            passages: 0,
            edited: false,
            source_missing: false,
            notes: Vec::new(),
            added_at: now,
        });
        Ok(())
    }

    /// Changes file `file` of `collection` with `change` (a stage reached, a failure).
    pub fn change_file(
        &mut self,
        collection: &str,
        file: &str,
        change: impl FnOnce(&mut KnowledgeFile),
    ) -> Result<(), KnowledgeError> {
        change(self.file_mut(collection, file)?);
        Ok(())
    }

    /// Cancels file `file`'s way in (or removes a file): its record goes, and is returned
    /// so that the paths no other record refers to can be deleted.
    pub fn cancel(
        &mut self,
        collection: &str,
        file: &str,
    ) -> Result<KnowledgeFile, KnowledgeError> {
        let collection = self.collection_mut(collection)?;
        let at = collection
            .files
            .iter()
            .position(|f| f.id == file)
            .ok_or(KnowledgeError::NoFile)?;
        Ok(collection.files.remove(at))
    }

    /// Whether any record refers to `path`.
    pub fn refers_to(&self, path: &str) -> bool {
        self.collections
            .iter()
            .flat_map(|c| &c.files)
            .any(|f| f.paths().any(|p| p == path))
    }

    /// Prepares file `file` to run its failed stage again; the stage to run.
    pub fn retry(&mut self, collection: &str, file: &str) -> Result<Stage, KnowledgeError> {
        let file = self.file_mut(collection, file)?;
        let stage = file.retry_stage().ok_or(KnowledgeError::NotRetryable)?;
        file.failure = None;
        file.stage = stage;
        Ok(stage)
    }

    /// Prepares file `file` for a new extraction (a new version; the edit is dropped).
    pub fn reparse(&mut self, collection: &str, file: &str) -> Result<(), KnowledgeError> {
        let file = self.file_mut(collection, file)?;
        if file.source_path.is_empty() || file.source_missing {
            return Err(KnowledgeError::NotRetryable);
        }
        file.stage = Stage::Parse;
        file.failure = None;
        file.edited = false;
        file.version = file.version.saturating_add(1);
        Ok(())
    }

    /// Marks every file of every collection that was on its way in when its page went,
    /// except those `busy` says another page is working on: a file whose next step can
    /// start from what is stored is named to resume, others fail with
    /// `knowledge_interrupted`. The files to resume, as (collection, file, stage).
    pub fn interrupted(&mut self, busy: impl Fn(&str) -> bool) -> Vec<(String, String, Stage)> {
        let mut resume = Vec::new();
        for collection in &mut self.collections {
            for file in collection
                .files
                .iter_mut()
                .filter(|f| f.in_flight() && !busy(&f.id))
            {
                let from_stored = match file.stage {
                    Stage::Parse => !file.source_path.is_empty(),
                    Stage::Index => !file.content_path.is_empty(),
                    Stage::Upload | Stage::Ready => false,
                };
                if from_stored {
                    resume.push((collection.id.clone(), file.id.clone(), file.stage));
                } else {
                    file.failure = Some(Failure {
                        stage: file.stage,
                        code: "knowledge_interrupted".into(),
                        detail: None,
                    });
                }
            }
        }
        resume
    }

    /// Checks `collection`'s records against `stored`, the paths its folder holds:
    /// a path no record refers to is an orphan; a file whose original is gone keeps its
    /// text; a file whose text is gone is extracted again from its original; a file
    /// with neither fails. Files still on their way in are left alone.
    pub fn reconcile(
        &mut self,
        collection: &str,
        stored: &[String],
    ) -> Result<Reconciled, KnowledgeError> {
        let collection = self.collection_mut(collection)?;
        let has = |path: &str| !path.is_empty() && stored.iter().any(|s| s == path);
        let mut found = Reconciled::default();
        for file in collection.files.iter_mut().filter(|f| !f.in_flight()) {
            let source = has(&file.source_path);
            let content = has(&file.content_path);
            let shared = file.source_path == file.content_path;
            if !file.source_path.is_empty() && !source && content && !shared {
                file.source_missing = true;
                found.sources_missing.push(file.id.clone());
            } else if !file.content_path.is_empty() && !content && source {
                file.content_path.clear();
                file.edited = false;
                file.stage = Stage::Parse;
                file.failure = None;
                file.version = file.version.saturating_add(1);
                found.to_reparse.push(file.id.clone());
            } else if (!file.content_path.is_empty() || !file.source_path.is_empty())
                && !content
                && !source
            {
                file.source_path.clear();
                file.content_path.clear();
                file.failure = Some(Failure {
                    stage: Stage::Upload,
                    code: "knowledge_file_missing".into(),
                    detail: None,
                });
                found.lost.push(file.id.clone());
            }
        }
        let referred: Vec<&str> = collection
            .files
            .iter()
            .flat_map(KnowledgeFile::paths)
            .collect();
        found.orphans = stored
            .iter()
            .filter(|path| !referred.contains(&path.as_str()))
            .cloned()
            .collect();
        Ok(found)
    }

    /// The library made to keep the rules (a record from storage or an import): names
    /// made unique and bounded, the counts bounded.
    pub fn repaired(mut self) -> Self {
        self.collections.truncate(MAX_COLLECTIONS);
        let mut names: Vec<String> = Vec::new();
        for collection in &mut self.collections {
            let name = unique_name(&collection.name, &collection.id, &names);
            names.push(name.to_lowercase());
            collection.name = name;
            collection.description = collection
                .description
                .chars()
                .take(MAX_DESCRIPTION_CHARS)
                .collect();
            collection.files.truncate(MAX_FILES);
        }
        self
    }
}

/// `name` with its spaces normalised and bounded (`fallback` when that leaves nothing),
/// numbered until it is none of `taken` (lower-case names).
fn unique_name(name: &str, fallback: &str, taken: &[String]) -> String {
    let bounded = |text: &str| -> String {
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        words.chars().take(MAX_NAME_CHARS).collect()
    };
    let mut base = bounded(name);
    if base.is_empty() {
        base = bounded(fallback);
    }
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name.to_lowercase()) {
        let suffix = format!(" ({n})");
        let room = MAX_NAME_CHARS - suffix.chars().count();
        name = format!("{}{suffix}", base.chars().take(room).collect::<String>());
        n += 1;
    }
    name
}

/// The collections a conversation uses, as stored on it: known ids only, each once,
/// at most [`MAX_ATTACHED`].
pub fn attached(library: &KnowledgeLibrary, ids: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in ids {
        if library.collection(id).is_some() && !out.contains(id) && out.len() < MAX_ATTACHED {
            out.push(id.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests;
