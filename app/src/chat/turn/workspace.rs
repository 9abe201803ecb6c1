//! The workspace a reply's conversation belongs to, read once as the reply starts, and
//! the system prompt it makes with the user's and the conversation's instructions
//! (`hearth_core::workspace::prompt`). Its tools, skills and collections are applied by
//! the phases that own them (`tools`, `skills`, the knowledge producer) through
//! `hearth_core::workspace::scope`. A library that cannot be read is said in a toast
//! and the reply goes ahead as in no workspace.

use hearth_core::chat::ConversationRecord;
use hearth_core::workspace::Workspace;
use hearth_core::workspace::prompt::{Instructions, assemble, encode};

use super::TurnContext;
use super::prepare::Prepared;
use crate::i18n::Key;
use crate::ui::toast::ToastKind;

/// The workspace of `conversation` (`None`: none, one deleted since, or the library
/// could not be read, which is said).
pub(super) async fn of(
    context: TurnContext,
    conversation: Option<&ConversationRecord>,
) -> Option<Workspace> {
    let id = conversation?.workspace_id.as_deref()?;
    let workspaces = crate::workspaces::use_workspaces();
    match workspaces.ensure_loaded().await {
        Ok(library) => library.get(id).cloned(),
        Err(error) => {
            let reason = crate::workspaces::reason(&error);
            context.toasts.show(
                ToastKind::Error,
                context
                    .i18n
                    .t_with(Key::WorkspacesTurnUnreadable, &[("reason", &reason)]),
            );
            None
        }
    }
}

/// Makes `prepared`'s system prompt from the user's instructions (already there), the
/// workspace's and the conversation's (named after `assistant` while they are its); the
/// record of which applied (JSON text).
pub(super) fn instruct(
    prepared: &mut Prepared,
    workspace: Option<&Workspace>,
    assistant: Option<&hearth_core::assistant::Assistant>,
    conversation: Option<&ConversationRecord>,
) -> Option<String> {
    let global = prepared.turn.system.take();
    let assembled = assemble(Instructions {
        global: global.as_deref(),
        workspace: workspace.map(|w| (w.system_prompt.as_str(), w.name.as_str())),
        conversation: conversation.map(|c| c.system_prompt.as_str()),
        assistant: assistant.map(|a| (a.prompt.as_str(), a.name.as_str())),
    });
    prepared.turn.system = assembled.system;
    encode(&assembled.applied)
}
