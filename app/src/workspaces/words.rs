//! How workspaces are put to the user: the icon a workspace's icon is drawn with, and
//! a failure to read or change them in the user's language (sentences left for later:
//! every view that shows one waits for them).

use hearth_core::preferences::MAX_SYSTEM_PROMPT_CHARS;
use hearth_core::workspace::{
    MAX_NAME_CHARS, MAX_WORKSPACES, WorkspaceError, WorkspaceIcon, files,
};

use super::WorkspacesError;
use crate::attachments::chips::size_label;
use crate::i18n::{I18n, Key};
use crate::ui::icon::Icon;

/// The icon a workspace's icon is drawn with.
pub fn icon_of(workspace_icon: WorkspaceIcon) -> Icon {
    match workspace_icon {
        WorkspaceIcon::Folder => Icon::Folder,
        WorkspaceIcon::Briefcase => Icon::Briefcase,
        WorkspaceIcon::Code => Icon::Code,
        WorkspaceIcon::Book => Icon::Book,
        WorkspaceIcon::Pen => Icon::Edit,
        WorkspaceIcon::Chat => Icon::Chat,
    }
}

/// Why a change of the workspaces did not happen, in the user's language.
pub fn error_text(error: &WorkspacesError, i18n: I18n) -> String {
    match error {
        WorkspacesError::Library(error) => match error {
            WorkspaceError::BadName => i18n.t_with(
                Key::WorkspacesErrorName,
                &[("max", &MAX_NAME_CHARS.to_string())],
            ),
            WorkspaceError::NameTaken(name) => {
                i18n.t_with(Key::WorkspacesErrorTaken, &[("name", name)])
            }
            WorkspaceError::PromptTooLong(count) => i18n.t_with(
                Key::SystemPromptTooLong,
                &[
                    ("count", &count.to_string()),
                    ("max", &MAX_SYSTEM_PROMPT_CHARS.to_string()),
                ],
            ),
            WorkspaceError::TooManyNamed => i18n.t(Key::WorkspacesErrorTooManyNamed),
            WorkspaceError::TooManyFiles => i18n.t_with(
                Key::WorkspacesErrorTooManyFiles,
                &[
                    ("max", &files::MAX_FILES.to_string()),
                    ("size", &size_label(files::MAX_TOTAL_BYTES)),
                ],
            ),
            WorkspaceError::TooMany => i18n.t_with(
                Key::WorkspacesErrorTooMany,
                &[("max", &MAX_WORKSPACES.to_string())],
            ),
            WorkspaceError::NotFound => i18n.t(Key::WorkspacesErrorGone),
        },
        WorkspacesError::Storage(reason) => {
            i18n.t_with(Key::WorkspacesStorageFailed, &[("reason", reason)])
        }
        WorkspacesError::Unreadable(reason) => {
            i18n.t_with(Key::WorkspacesReadFailed, &[("reason", reason)])
        }
    }
}
