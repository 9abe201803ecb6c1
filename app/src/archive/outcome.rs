//! What the data service's actions end in: why one did not happen ([`DataError`]), the
//! counts it reports, what an export holds ([`Exported`]) and what an import did
//! ([`Imported`], with what did not come in: [`PartialImport`]).

use hearth_core::chat::archive::ArchiveError;
use hearth_core::chat::peer_import::Omitted;
use hearth_core::knowledge::transfer::Merged;
use hearth_core::zip_store;

use crate::files::FileError;
use crate::preferences::SaveError;
use crate::storage::StorageError;

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
    /// The chosen file could not be read (it changed or went away since it was chosen).
    Unreadable,
    /// The export could not be written.
    Encode(String),
    /// The browser refused to save the file.
    Download(crate::browser::DownloadError),
    /// A file the messages refer to could not be read for the export.
    ReadFile(FileError),
    /// A file of the import could not be written (the ones written are removed again).
    WriteFile(FileError),
    /// The conversations are deleted but their files could not all be removed.
    DeleteFiles(FileError),
    /// A reply is streaming; deleting everything under it is refused.
    Streaming,
}

impl From<ArchiveError> for DataError {
    fn from(error: ArchiveError) -> Self {
        Self::Archive(error)
    }
}

impl From<zip_store::ZipError> for DataError {
    fn from(error: zip_store::ZipError) -> Self {
        Self::Archive(error.into())
    }
}

/// What an import could not bring in, beside the conversations (which are in).
#[derive(Debug, Clone, PartialEq)]
pub enum PartialImport {
    /// The providers were not stored.
    Providers(crate::providers::ProvidersError),
    /// The preferences were not stored.
    Preferences(SaveError),
    /// The skills were not stored.
    Skills(crate::skills::SkillsError),
    /// The memories were not stored.
    Memory(crate::memory::MemoryStoreError),
    /// The templates were not stored.
    Templates(crate::templates::TemplatesError),
    /// The workspaces were not stored.
    Workspaces(crate::workspaces::WorkspacesError),
    /// The assistants were not stored.
    Assistants(crate::assistants::AssistantsError),
    /// The knowledge collections were not stored (nor their files).
    Knowledge(crate::knowledge::KnowledgeStoreError),
    /// The web search settings were not stored.
    WebSearch(String),
    /// The prices were not stored.
    Prices(String),
}

/// How many records a database holds, or an action touched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Conversations.
    pub conversations: usize,
    /// Messages.
    pub messages: usize,
}

/// What an export holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Exported {
    /// Its records.
    pub records: Counts,
    /// The files it carries.
    pub files: usize,
    /// Files the messages refer to that were no longer stored, so are not in it.
    pub missing: usize,
    /// The skills could not be read, so are not in it.
    pub skills_left_out: bool,
    /// The memory could not be read, so is not in it.
    pub memory_left_out: bool,
    /// The templates could not be read, so are not in it.
    pub templates_left_out: bool,
    /// The workspaces could not be read, so are not in it.
    pub workspaces_left_out: bool,
    /// The assistants could not be read, so are not in it.
    pub assistants_left_out: bool,
    /// The knowledge collections could not be read, so are not in it.
    pub knowledge_left_out: bool,
    /// The web search settings could not be read, so are not in it.
    pub web_search_left_out: bool,
    /// The user's prices could not be read, so are not in it.
    pub prices_left_out: bool,
    /// The knowledge collections it holds.
    pub collections: usize,
    /// The files (records) of those collections.
    pub knowledge_files: usize,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// Conversations and messages written.
    pub written: Counts,
    /// Files written (of another app's export: attachments, each with its text or
    /// thumbnail).
    pub files: usize,
    /// Records left alone because the stored copy is as new or newer.
    pub skipped: usize,
    /// Another app's images and files that could not be read after all.
    pub left_out: Omitted,
    /// What else did not come in.
    pub partial: Vec<PartialImport>,
    /// What the knowledge collections' merge did, when the export had some.
    pub knowledge: Option<Merged>,
}
