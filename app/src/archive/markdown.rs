//! A message or a conversation saved as a Markdown file, in the user's language
//! (`hearth_core::chat::markdown_export` writes it): the images the model sent are read
//! from the private file system into the document as `data:` URLs, so it stands alone;
//! one that is no longer stored is named as missing. In lazily loaded chunks: nothing of
//! it is on the first load.

use std::collections::HashMap;

use hearth_core::chat::MessageRecord;
use hearth_core::chat::markdown_export::{self, Labels};
use hearth_core::chat::output_image::{KeptImage, OutputImage};
use leptos::prelude::*;

use crate::browser::{self, DownloadError};
use crate::chat::Chat;
use crate::files::{self, IMAGES};
use crate::i18n::{I18n, Key};
use crate::storage::{BY_CONVERSATION, MESSAGES, StorageError};
use crate::ui::toast::{ToastKind, Toasts};

/// Why a Markdown file was not saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkdownError {
    /// The conversation could not be read.
    Storage(StorageError),
    /// The browser would not save the file.
    Download(DownloadError),
}

/// What to save as Markdown.
pub enum Export {
    /// One message of the conversation with this title.
    Message(Box<MessageRecord>, String),
    /// A conversation's active path, by id.
    Conversation(String),
}

/// Saves `what` (a message, or a conversation of `chat`) as a Markdown file in the
/// background; a failure is an error toast.
pub fn offer(chat: Chat, what: Export, i18n: I18n, toasts: Toasts) {
    leptos::task::spawn_local(async move {
        if let Err(text) = save(chat, what, i18n).await {
            toasts.show(ToastKind::Error, text);
        }
    });
}

/// Saves `what` (a message, or a conversation of `chat`) as a Markdown file (one chunk
/// for both: their code is the same); a failure comes back worded in the user's
/// language, for a toast.
#[lazy]
pub async fn save(chat: Chat, what: Export, i18n: I18n) -> Result<(), String> {
    write(chat, what, i18n)
        .await
        .map_err(|error| failure_text(i18n, &error))
}

async fn write(chat: Chat, what: Export, i18n: I18n) -> Result<(), MarkdownError> {
    let (title, text) = match what {
        Export::Message(record, title) => {
            let urls = image_urls([record.as_ref()]).await;
            let text = markdown_export::message_markdown(&record, &labels(i18n), &|image| {
                url(&urls, image)
            });
            (title, text)
        }
        Export::Conversation(id) => conversation(chat, &id, i18n).await?,
    };
    download(&title, &text, i18n)
}

/// Conversation `id`'s title and active path as Markdown.
async fn conversation(chat: Chat, id: &str, i18n: I18n) -> Result<(String, String), MarkdownError> {
    let conversation = chat.list.find(id);
    let db = chat.store.wait().await.ok_or_else(|| {
        MarkdownError::Storage(
            chat.store
                .error()
                .unwrap_or(StorageError::Unavailable(String::new())),
        )
    })?;
    let records = db
        .records_by::<MessageRecord>(MESSAGES, BY_CONVERSATION, id)
        .await
        .map_err(MarkdownError::Storage)?;
    let active_root = conversation.as_ref().and_then(|c| c.active_root_id.clone());
    // Only the active path is written: only its images are read.
    let path = markdown_export::active_path(&records, active_root.as_deref());
    let urls = image_urls(path.iter().copied()).await;
    let title = conversation
        .as_ref()
        .map(|c| c.title.clone())
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| i18n.t(Key::ConversationUntitled));
    let text = markdown_export::conversation_markdown(&title, &path, &labels(i18n), &|image| {
        url(&urls, image)
    });
    Ok((title, text))
}

/// What to tell the user about a file that was not saved, in their language.
fn failure_text(i18n: I18n, error: &MarkdownError) -> String {
    match error {
        MarkdownError::Storage(StorageError::Replaced) => i18n.t(Key::StorageReplaced),
        MarkdownError::Storage(StorageError::Unavailable(_)) => i18n.t(Key::StorageUnavailable),
        MarkdownError::Storage(StorageError::QuotaExceeded) => i18n.t(Key::StorageFull),
        MarkdownError::Storage(_) | MarkdownError::Download(_) => i18n.t(Key::ExportMarkdownFailed),
    }
}

fn labels(i18n: I18n) -> Labels {
    Labels {
        you: i18n.t(Key::MessageYou),
        assistant: i18n.t(Key::MessageAssistant),
        image: i18n.t(Key::ReplyImageAlt),
        image_missing: i18n.t(Key::ExportImageMissing),
        attached: i18n.t(Key::ExportAttached),
        sources: i18n.t(Key::ReplySources),
    }
}

/// The `data:` URL of every stored image of `records` that can still be read, by file.
async fn image_urls(records: impl IntoIterator<Item = &MessageRecord>) -> HashMap<String, String> {
    use base64::Engine as _;
    let mut urls = HashMap::new();
    let stored = records
        .into_iter()
        .flat_map(|r| &r.images)
        .filter_map(|image| match &image.kept {
            KeptImage::Stored { file, mime_type } => Some((file, mime_type)),
            _ => None,
        });
    for (file, mime_type) in stored {
        if let Ok(bytes) = files::read(IMAGES, file).await {
            let data = base64::engine::general_purpose::STANDARD.encode(bytes);
            urls.insert(file.clone(), format!("data:{mime_type};base64,{data}"));
        }
    }
    urls
}

fn url(urls: &HashMap<String, String>, image: &OutputImage) -> Option<String> {
    match &image.kept {
        KeptImage::Stored { file, .. } => urls.get(file).cloned(),
        _ => None,
    }
}

fn download(title: &str, text: &str, i18n: I18n) -> Result<(), MarkdownError> {
    let fallback = i18n.t(Key::ConversationUntitled);
    let name = markdown_export::file_name(title, &fallback, "md");
    browser::download_bytes(&name, "text/markdown;charset=utf-8", text.as_bytes())
        .map_err(MarkdownError::Download)
}
