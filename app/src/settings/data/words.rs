//! What the Data tab says, in the user's language: sizes as browsers show them, why an
//! export, import or delete failed, what another app's export held that is not
//! imported, and what of an import did not come in.

use hearth_core::chat::archive::{ArchiveError, MAX_ARCHIVE_BYTES};
use hearth_core::chat::peer_import::{Omission, Omitted};
use hearth_core::knowledge::transfer::Merged;

use crate::archive::{DataError, PartialImport};
use crate::files::FileError;
use crate::i18n::{I18n, Key};
use crate::storage::StorageError;

/// `1536` as `1.5 KB`, in the units people read (1000-based, as browsers show quota).
pub(super) fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = n.max(0.0);
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 || value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn archive_message(i18n: I18n, error: &ArchiveError) -> String {
    match error {
        ArchiveError::TooLarge(_) => i18n.t_with(
            Key::DataImportTooLarge,
            &[("max", &bytes(MAX_ARCHIVE_BYTES as f64))],
        ),
        ArchiveError::NotJson | ArchiveError::NotAnExport => i18n.t(Key::DataImportNotAnExport),
        ArchiveError::NewerVersion(_) => i18n.t(Key::DataImportNewer),
        ArchiveError::Damaged(why) | ArchiveError::Inconsistent(why) => {
            i18n.t_with(Key::DataImportDamaged, &[("reason", why)])
        }
        ArchiveError::Package(why) => {
            i18n.t_with(Key::DataImportDamaged, &[("reason", &why.to_string())])
        }
    }
}

/// What to tell the user about a failed action.
pub(super) fn data_message(i18n: I18n, error: &DataError) -> String {
    let failed = |reason: &str| i18n.t_with(Key::DataFailed, &[("reason", reason)]);
    match error {
        DataError::Unavailable(StorageError::Replaced)
        | DataError::Storage(StorageError::Replaced) => i18n.t(Key::StorageReplaced),
        DataError::Unavailable(_) => i18n.t(Key::StorageUnavailable),
        DataError::Storage(StorageError::QuotaExceeded) => i18n.t(Key::StorageFull),
        DataError::Storage(other) => failed(&other.to_string()),
        DataError::Archive(error) => archive_message(i18n, error),
        DataError::Unreadable => i18n.t(Key::DataImportUnreadable),
        DataError::Encode(why) => failed(why),
        DataError::Download(why) => failed(&why.to_string()),
        DataError::ReadFile(why) => failed(&why.to_string()),
        DataError::WriteFile(FileError::QuotaExceeded) => i18n.t(Key::StorageFull),
        DataError::WriteFile(other) => failed(&other.to_string()),
        DataError::DeleteFiles(other) => i18n.t_with(
            Key::DataDeleteFilesFailed,
            &[("reason", &other.to_string())],
        ),
        DataError::Streaming => i18n.t(Key::DataDeleteStreaming),
    }
}

/// What an export from another app held that is not imported, in one line ("" when
/// nothing was left out).
pub(super) fn left_out_message(i18n: I18n, omitted: &Omitted) -> String {
    let items: Vec<String> = omitted
        .kinds()
        .into_iter()
        .map(|(kind, count)| {
            let key = match kind {
                Omission::Images => Key::DataOmittedImages,
                Omission::Files => Key::DataOmittedFiles,
                Omission::ToolCalls => Key::DataOmittedToolCalls,
                Omission::SystemPrompts => Key::DataOmittedSystemPrompts,
                Omission::WebResults => Key::DataOmittedWebResults,
                Omission::UnknownContent => Key::DataOmittedUnknown,
                Omission::Damaged => Key::DataOmittedDamaged,
                Omission::Settings => Key::DataOmittedSettings,
            };
            i18n.t_with(key, &[("count", &count.to_string())])
        })
        .collect();
    if items.is_empty() {
        return String::new();
    }
    i18n.t_with(Key::DataImportLeftOut, &[("items", &items.join(" · "))])
}

/// What an import did with the knowledge collections, in a sentence or two.
pub(super) fn knowledge_message(i18n: I18n, merged: &Merged) -> String {
    let done = i18n.t_with(
        Key::DataImportedKnowledge,
        &[
            ("collections", &merged.collections.to_string()),
            ("files", &merged.files.to_string()),
            ("present", &merged.present.to_string()),
        ],
    );
    if merged.left_out == 0 {
        return done;
    }
    let left_out = i18n.t_with(
        Key::DataImportKnowledgeLeftOut,
        &[("count", &merged.left_out.to_string())],
    );
    format!("{done} {left_out}")
}

/// What to tell the user about the parts of an import that did not come in.
pub(super) fn partial_message(i18n: I18n, partial: &[PartialImport]) -> String {
    let reasons: Vec<String> = partial
        .iter()
        .map(|part| match part {
            PartialImport::Providers(why) => i18n.t_with(
                Key::DataImportProvidersFailed,
                &[("reason", &why.to_string())],
            ),
            PartialImport::Preferences(why) => i18n.t_with(
                Key::DataImportPreferencesFailed,
                &[("reason", &why.to_string())],
            ),
            PartialImport::Memory(why) => i18n.t_with(
                Key::DataImportMemoryFailed,
                &[("reason", &crate::memory::error_text(why, i18n))],
            ),
            PartialImport::Skills(why) => i18n.t_with(
                Key::DataImportSkillsFailed,
                &[("reason", &super::super::skills::error_text(why, i18n))],
            ),
            PartialImport::Templates(why) => i18n.t_with(
                Key::DataImportTemplatesFailed,
                &[("reason", &super::super::templates::error_text(why, i18n))],
            ),
            PartialImport::Workspaces(why) => i18n.t_with(
                Key::DataImportWorkspacesFailed,
                &[("reason", &crate::workspaces::words::error_text(why, i18n))],
            ),
            PartialImport::Assistants(why) => i18n.t_with(
                Key::DataImportAssistantsFailed,
                &[("reason", &crate::assistants::words::error_text(why, i18n))],
            ),
            PartialImport::Knowledge(why) => i18n.t_with(
                Key::DataImportKnowledgeFailed,
                &[("reason", &crate::knowledge::error_text(why, i18n))],
            ),
            PartialImport::WebSearch(why) => {
                i18n.t_with(Key::DataImportWebSearchFailed, &[("reason", why)])
            }
            PartialImport::Prices(why) => {
                i18n.t_with(Key::DataImportPricesFailed, &[("reason", why)])
            }
        })
        .collect();
    i18n.t_with(Key::DataImportPartial, &[("reason", &reasons.join(" "))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_browsers_show_them() {
        assert_eq!(bytes(0.0), "0 B");
        assert_eq!(bytes(999.0), "999 B");
        assert_eq!(bytes(1_536.0), "1.5 KB");
        assert_eq!(bytes(12_345_678.0), "12.3 MB");
        assert_eq!(bytes(256.0 * 1024.0 * 1024.0), "268 MB");
        assert_eq!(bytes(10e12), "10.0 TB");
    }
}
