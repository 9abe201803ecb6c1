//! The assistant a reply's conversation was started with, read once as the reply
//! starts from the user's library (their own, or the copy kept when it was last used):
//! its tools and skills limit the turn (`hearth_core::workspace::scope::limits`), and its
//! name labels the conversation's instructions while they are still its own. A library
//! that cannot be read is said in a toast; the reply goes ahead with the conversation's
//! own instructions (which it keeps whatever happens to the assistant).

use hearth_core::assistant::Assistant;
use hearth_core::chat::ConversationRecord;

use super::TurnContext;
use crate::i18n::Key;
use crate::ui::toast::ToastKind;

/// The assistant of `conversation` (`None`: none, one deleted since, or the library
/// could not be read, which is said).
pub(super) async fn of(
    context: TurnContext,
    conversation: Option<&ConversationRecord>,
) -> Option<Assistant> {
    let id = conversation?.assistant_id.as_deref()?;
    match crate::assistants::use_assistants().ensure_loaded().await {
        Ok(library) => library.get(id).cloned(),
        Err(error) => {
            let reason = crate::assistants::reason(&error);
            context.toasts.show(
                ToastKind::Error,
                context
                    .i18n
                    .t_with(Key::AssistantsTurnUnreadable, &[("reason", &reason)]),
            );
            None
        }
    }
}
