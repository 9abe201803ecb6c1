//! Conversations exported by other chat apps, read into Hearth's records: ChatGPT's
//! `conversations.json` (the current export and the older ones without conversation ids),
//! Claude's, LobeChat's (the config file and the database export), Open WebUI's and
//! NextChat's backup. [`read_records`] takes any file the Data tab's import is given and
//! says which it is; a Hearth export goes to [`super::archive`] unchanged.
//!
//! - Each source module reads its format into [`build::SourceConversation`]s and counts
//!   what it cannot carry ([`Omission`]); [`build`] turns those into conversations and
//!   messages with branches where the source has them, and the active path it had.
//! - Nothing of another app's settings is taken: keys and tokens in a NextChat backup are
//!   never read, and the report says its settings were left.
//! - Ids are derived from the source's ids ([`build::derived_id`]), so importing the same
//!   export twice writes nothing the second time (the archive's newer-wins rule), and two
//!   apps' ids never meet.
//! - ChatGPT and Claude export a ZIP: [`conversations_entry`] names the entry to read.
//! - Images and files the messages carry come in as their attachments: [`files`] finds
//!   their bytes in the ZIP (or the text the export holds); the app reads each as any
//!   attached file.
//! - A conversation the source holds damaged is left out and counted; the file as a whole
//!   is refused only when it is none of these formats.

mod build;
mod chatgpt;
mod claude;
pub mod files;
mod lobechat;
mod nextchat;
mod open_webui;
mod time;

use std::collections::BTreeMap;

use serde_json::Value;

use super::archive::{Archive, ArchiveError, FORMAT, MAX_ARCHIVE_BYTES};
use crate::zip_store::Entry;

/// The file of ChatGPT's and Claude's ZIP exports that holds the conversations.
pub const CONVERSATIONS_FILE: &str = "conversations.json";

/// The app a file was exported from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// OpenAI's ChatGPT.
    ChatGpt,
    /// Anthropic's Claude.
    Claude,
    /// LobeChat (LobeHub).
    LobeChat,
    /// Open WebUI.
    OpenWebUi,
    /// NextChat (ChatGPT Next Web).
    NextChat,
}

impl Source {
    /// The product's own name (never translated).
    pub fn name(self) -> &'static str {
        match self {
            Self::ChatGpt => "ChatGPT",
            Self::Claude => "Claude",
            Self::LobeChat => "LobeChat",
            Self::OpenWebUi => "Open WebUI",
            Self::NextChat => "NextChat",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Self::ChatGpt => "chatgpt",
            Self::Claude => "claude",
            Self::LobeChat => "lobechat",
            Self::OpenWebUi => "open-webui",
            Self::NextChat => "nextchat",
        }
    }
}

pub use files::{LocatedFile, PeerBytes, PeerFile, locate};

/// A kind of thing another app's export holds that Hearth does not import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Omission {
    /// Images in messages (uploaded or generated) whose bytes the export does not hold,
    /// or that are too large or cannot be read.
    Images,
    /// Files attached to messages, likewise.
    Files,
    /// Tool and plugin calls, code runs and their results.
    ToolCalls,
    /// System prompts, custom instructions and agent prompts.
    SystemPrompts,
    /// Web browsing and search results shown in the chat.
    WebResults,
    /// Message content of a kind Hearth does not know.
    UnknownContent,
    /// Conversations or messages the file holds damaged (missing fields, wrong types).
    Damaged,
    /// The other app's settings (with any keys in them): never read.
    Settings,
}

/// What a file from another app held that was not imported, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Omitted(BTreeMap<Omission, usize>);

impl Omitted {
    /// Counts `n` more of `kind`.
    pub fn add(&mut self, kind: Omission, n: usize) {
        if n > 0 {
            *self.0.entry(kind).or_default() += n;
        }
    }

    /// Each kind left out, with how many, in a stable order.
    pub fn kinds(&self) -> Vec<(Omission, usize)> {
        self.0.iter().map(|(k, n)| (*k, *n)).collect()
    }

    /// How many of `kind` were left out.
    pub fn count(&self, kind: Omission) -> usize {
        self.0.get(&kind).copied().unwrap_or(0)
    }

    /// Whether nothing was left out.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Where an import's records came from, when not from Hearth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerReport {
    /// The app.
    pub source: Source,
    /// What it held that was not imported.
    pub omitted: Omitted,
}

/// The records of a file to import, with where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Records {
    /// The records, checked like a Hearth export's.
    pub archive: Archive,
    /// `None` for a Hearth export; the app and what was left out otherwise.
    pub from: Option<PeerReport>,
    /// The files the messages carry (another app's export only), to be found with
    /// [`locate`].
    pub files: Vec<PeerFile>,
}

/// Reads `text`: a Hearth export ([`Archive::parse`]'s rules) or another app's export.
/// `now` dates what the source leaves undated. A file that is neither is
/// [`ArchiveError::NotAnExport`]; nothing is ever half read.
pub fn read_records(text: &str, now: f64) -> Result<Records, ArchiveError> {
    if text.len() > MAX_ARCHIVE_BYTES {
        return Err(ArchiveError::TooLarge(text.len()));
    }
    let value: Value = serde_json::from_str(text).map_err(|_| ArchiveError::NotJson)?;
    if value.get("format").and_then(Value::as_str) == Some(FORMAT) {
        return Ok(Records {
            archive: Archive::from_value(value)?,
            from: None,
            files: Vec::new(),
        });
    }
    let source = recognise(&value).ok_or(ArchiveError::NotAnExport)?;
    let mut omitted = Omitted::default();
    let conversations = match source {
        Source::ChatGpt => chatgpt::read(&value, &mut omitted),
        Source::Claude => claude::read(&value, &mut omitted),
        Source::LobeChat => lobechat::read(&value, &mut omitted),
        Source::OpenWebUi => open_webui::read(&value, &mut omitted),
        Source::NextChat => nextchat::read(&value, &mut omitted),
    };
    drop(value);
    let (archive, files) = build::archive(source, conversations, now)?;
    Ok(Records {
        archive,
        from: Some(PeerReport { source, omitted }),
        files,
    })
}

/// The entry of another app's ZIP export to read: its [`CONVERSATIONS_FILE`], at the top
/// or in the shallowest folder. A ZIP without one is [`ArchiveError::NotAnExport`]; one
/// that expands past [`MAX_ARCHIVE_BYTES`] is refused before it is read.
pub fn conversations_entry(entries: &[Entry]) -> Result<&Entry, ArchiveError> {
    let entry = entries
        .iter()
        .filter(|e| {
            e.name == CONVERSATIONS_FILE || e.name.ends_with(&format!("/{CONVERSATIONS_FILE}"))
        })
        .min_by_key(|e| e.name.matches('/').count())
        .ok_or(ArchiveError::NotAnExport)?;
    if entry.size > MAX_ARCHIVE_BYTES as u64 {
        return Err(ArchiveError::TooLarge(
            usize::try_from(entry.size).unwrap_or(usize::MAX),
        ));
    }
    Ok(entry)
}

/// Which app wrote `value`, from the shape only its exports have.
fn recognise(value: &Value) -> Option<Source> {
    if nextchat::recognise(value) {
        return Some(Source::NextChat);
    }
    if lobechat::recognise(value) {
        return Some(Source::LobeChat);
    }
    // The three that export a list of conversations: the first one that reads as a
    // conversation at all says which (an empty list is nobody's).
    items(value).iter().find_map(|item| {
        if chatgpt::recognise(item) {
            Some(Source::ChatGpt)
        } else if claude::recognise(item) {
            Some(Source::Claude)
        } else if open_webui::recognise(item) {
            Some(Source::OpenWebUi)
        } else {
            None
        }
    })
}

/// The items of a list export (or a single conversation exported on its own).
fn items(value: &Value) -> &[Value] {
    match value {
        Value::Array(items) => items.as_slice(),
        Value::Object(_) => std::slice::from_ref(value),
        _ => &[],
    }
}

/// Each of `list` read by `conversation`; one that does not read is counted as damaged.
fn read_each(
    list: &[Value],
    omitted: &mut Omitted,
    conversation: impl Fn(&Value, &mut Omitted) -> Option<build::SourceConversation>,
) -> Vec<build::SourceConversation> {
    list.iter()
        .filter_map(|item| {
            let read = conversation(item, omitted);
            if read.is_none() {
                omitted.add(Omission::Damaged, 1);
            }
            read
        })
        .collect()
}

/// `value[key]` as text, or "".
fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests;
