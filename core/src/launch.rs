//! What a launch of the installed app asks for, read from the query of the URL it opened
//! at (the web app manifest's shortcuts, share target and file handler point there), and
//! the draft a share becomes.
//!
//! The query comes from outside (a shortcut, another app, a link anyone can write): it
//! only ever selects one of these actions, and a share's id is checked before it names a
//! cache entry.

use serde::Deserialize;

/// What the page was opened to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// An ordinary start.
    Start,
    /// The "New chat" shortcut.
    NewChat,
    /// The "Search" shortcut.
    Search,
    /// An export file opened with Hearth (the file comes through the launch queue).
    OpenFile,
    /// Something shared into Hearth, kept by the service worker under this id.
    Share(String),
    /// A share the service worker could not read (or no worker received it).
    ShareFailed,
}

impl Launch {
    /// Reads `query` (`location.search`, with or without its `?`). Unknown actions and
    /// malformed share ids start the app normally, or say the share failed.
    pub fn parse(query: &str) -> Self {
        let query = query.strip_prefix('?').unwrap_or(query);
        let mut action = None;
        let mut share = None;
        for pair in query.split('&') {
            match pair.split_once('=') {
                Some(("action", value)) => action = Some(value),
                Some(("share", value)) => share = Some(value),
                _ => {}
            }
        }
        if let Some(id) = share {
            return if is_share_id(id) {
                Self::Share(id.to_string())
            } else {
                Self::ShareFailed
            };
        }
        match action {
            Some("new-chat") => Self::NewChat,
            Some("search") => Self::Search,
            Some("open-file") => Self::OpenFile,
            _ => Self::Start,
        }
    }

    /// Whether the query asked for anything (and should leave the address bar).
    pub fn is_start(&self) -> bool {
        *self == Self::Start
    }
}

/// A share's id as the service worker makes it (`crypto.randomUUID()`): 36 characters of
/// lowercase hex digits and dashes in the 8-4-4-4-12 pattern.
pub fn is_share_id(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(group, len)| {
            group.len() == len
                && group
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
}

/// What the service worker kept of a share (`/__share/<id>/meta`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ShareMeta {
    /// The shared page's or item's title.
    #[serde(default)]
    pub title: String,
    /// The shared text.
    #[serde(default)]
    pub text: String,
    /// The shared link.
    #[serde(default)]
    pub url: String,
    /// The shared files, in order (each kept as `/__share/<id>/<index>`).
    #[serde(default)]
    pub files: Vec<SharedFile>,
}

/// One shared file's name and type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct SharedFile {
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Its MIME type as the sharing app gave it (Hearth decides the kind from the bytes).
    #[serde(default, rename = "type")]
    pub mime: String,
}

/// The most shared files taken into one draft: as many as a message holds (the service
/// worker keeps as many, `public/sw.js`).
pub const MAX_SHARED_FILES: usize = crate::attachment::MAX_ATTACHMENTS;
/// The longest shared text taken, in characters (the rest is cut, not refused).
pub const MAX_SHARED_TEXT_CHARS: usize = 100_000;

impl ShareMeta {
    /// The composer draft: title, text and link, each once and in that order. A link the
    /// text already holds (apps put it in both) is not repeated; a title the text begins
    /// with neither.
    pub fn draft(&self) -> String {
        let title = self.title.trim();
        let text = self.text.trim();
        let url = self.url.trim();
        let mut parts = Vec::new();
        if !title.is_empty() && !text.starts_with(title) {
            parts.push(title);
        }
        if !text.is_empty() {
            parts.push(text);
        }
        if !url.is_empty() && !text.contains(url) {
            parts.push(url);
        }
        let draft = parts.join("\n\n");
        match draft.char_indices().nth(MAX_SHARED_TEXT_CHARS) {
            Some((cut, _)) => draft[..cut].to_string(),
            None => draft,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "3f2b8c1e-9a4d-4e6f-8b7a-0c1d2e3f4a5b";

    #[test]
    fn shortcuts_and_handlers_select_their_action() {
        assert_eq!(Launch::parse(""), Launch::Start);
        assert_eq!(Launch::parse("?"), Launch::Start);
        assert_eq!(Launch::parse("?action=new-chat"), Launch::NewChat);
        assert_eq!(Launch::parse("action=search"), Launch::Search);
        assert_eq!(Launch::parse("?utm=x&action=open-file"), Launch::OpenFile);
        assert_eq!(Launch::parse("?action=delete-all"), Launch::Start);
        assert_eq!(Launch::parse("?action"), Launch::Start);
        assert!(Launch::parse("?other=1").is_start());
    }

    #[test]
    fn a_share_needs_an_id_the_worker_could_have_made() {
        assert_eq!(
            Launch::parse(&format!("?share={ID}")),
            Launch::Share(ID.into())
        );
        // The share wins over an action beside it.
        assert_eq!(
            Launch::parse(&format!("?action=search&share={ID}")),
            Launch::Share(ID.into())
        );
        for bad in [
            "failed",
            "",
            "../../api/x",
            "3F2B8C1E-9A4D-4E6F-8B7A-0C1D2E3F4A5B",
            "3f2b8c1e-9a4d-4e6f-8b7a-0c1d2e3f4a5",
            "3f2b8c1e-9a4d-4e6f-8b7a0c1d2e3f4a5b",
            "3f2b8c1e-9a4d-4e6f-8b7a-0c1d2e3f4a5g",
            "3f2b8c1e-9a4d-4e6f-8b7a-0c1d2e3f4a5b/meta",
        ] {
            assert_eq!(
                Launch::parse(&format!("?share={bad}")),
                Launch::ShareFailed,
                "{bad}"
            );
        }
    }

    #[test]
    fn a_share_becomes_one_draft_without_repeats() {
        let meta = |title: &str, text: &str, url: &str| ShareMeta {
            title: title.into(),
            text: text.into(),
            url: url.into(),
            files: Vec::new(),
        };
        assert_eq!(
            meta("Rust 2024", "Read this", "https://example.com/a").draft(),
            "Rust 2024\n\nRead this\n\nhttps://example.com/a"
        );
        assert_eq!(
            meta(
                "",
                "Read this https://example.com/a",
                "https://example.com/a"
            )
            .draft(),
            "Read this https://example.com/a"
        );
        assert_eq!(
            meta("Title", "Title: and more", "").draft(),
            "Title: and more"
        );
        assert_eq!(meta("  ", " \n", "").draft(), "");
        assert_eq!(
            meta("", "", "https://example.com").draft(),
            "https://example.com"
        );
    }

    #[test]
    fn a_long_share_is_cut_on_a_character_boundary() {
        let text = "語".repeat(MAX_SHARED_TEXT_CHARS + 10);
        let draft = ShareMeta {
            text,
            ..ShareMeta::default()
        }
        .draft();
        assert_eq!(draft.chars().count(), MAX_SHARED_TEXT_CHARS);
    }

    #[test]
    fn the_workers_record_reads_with_missing_fields() {
        let meta: ShareMeta = serde_json::from_str(
            r#"{"at":1,"title":"t","files":[{"name":"a.png","type":"image/png"},{}]}"#,
        )
        .unwrap();
        assert_eq!(meta.title, "t");
        assert_eq!(meta.text, "");
        assert_eq!(meta.files.len(), 2);
        assert_eq!(meta.files[0].mime, "image/png");
        assert_eq!(meta.files[1], SharedFile::default());
    }
}
