//! The files a stored message refers to in the browser's private file system (OPFS):
//! the directories they live in, the names of an attachment's parts, the list of files
//! one message holds (so deleting, undoing and exporting agree on it), and the names a
//! file brought in from outside (an export being imported) may have.

use crate::chat::MessageRecord;
use crate::chat::output_image::KeptImage;

/// A directory of the private file system that holds a message's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileDir {
    /// Images a tool, the image generator or the model itself made, named in the call's
    /// or the reply's record.
    Images,
    /// Files attached to messages: the original (an image as scaled down to be sent), a
    /// document's extracted text, an image's thumbnail.
    Attachments,
}

impl FileDir {
    /// Every directory a message's files live in.
    pub const ALL: [FileDir; 2] = [FileDir::Images, FileDir::Attachments];

    /// The directory's name in the private file system.
    pub const fn name(self) -> &'static str {
        match self {
            FileDir::Images => "images",
            FileDir::Attachments => "attachments",
        }
    }

    /// The directory called `name`, if it is one of these.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|dir| dir.name() == name)
    }
}

/// One file of the private file system.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StoredFile {
    /// Its directory.
    pub dir: FileDir,
    /// Its name in that directory.
    pub name: String,
}

impl StoredFile {
    /// The file `name` in `dir`.
    pub fn new(dir: FileDir, name: impl Into<String>) -> Self {
        Self {
            dir,
            name: name.into(),
        }
    }
}

/// The longest file name a file brought in from outside may have.
pub const MAX_NAME_CHARS: usize = 100;

/// The name of an attachment's extracted text (a document's, in Markdown).
pub fn attachment_text_name(id: &str) -> String {
    format!("{id}.md")
}

/// The name of an image attachment's thumbnail.
pub fn attachment_thumbnail_name(id: &str) -> String {
    format!("{id}.thumb")
}

/// Whether `name` may name a file written from outside input: the names Hearth makes
/// (hex with an extension) pass; a path, a hidden file, an empty or overlong name, or
/// anything beyond ASCII letters, digits, `.`, `-` and `_` does not.
pub fn is_safe_name(name: &str) -> bool {
    let first = name.bytes().next();
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && first.is_some_and(|b| b.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// The files `message` refers to, each once, in a stable order: the images its tool
/// calls made, the images its model sent, and for each attachment its original and, as its kind has one, its text
/// or its thumbnail. A listed file may be missing (removed, or never written because
/// attaching failed); whoever reads them treats that as such.
pub fn message_files(message: &MessageRecord) -> Vec<StoredFile> {
    let mut files = Vec::new();
    let calls = message.tool_rounds.iter().flat_map(|round| &round.calls);
    for name in calls.flat_map(|call| &call.files) {
        files.push(StoredFile::new(FileDir::Images, name.clone()));
    }
    for image in &message.images {
        if let KeptImage::Stored { file, .. } = &image.kept {
            files.push(StoredFile::new(FileDir::Images, file.clone()));
        }
    }
    for attachment in &message.attachments {
        let id = &attachment.id;
        files.push(StoredFile::new(FileDir::Attachments, id.clone()));
        let companion = if attachment.is_image() {
            attachment_thumbnail_name(id)
        } else {
            attachment_text_name(id)
        };
        files.push(StoredFile::new(FileDir::Attachments, companion));
    }
    let mut seen = std::collections::HashSet::new();
    files.retain(|file| seen.insert(file.clone()));
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachment::Attachment;
    use crate::chat::output_image::OutputImage;
    use crate::chat::tools::{ToolCallRecord, ToolRound};
    use crate::filetype::FileKind;

    #[test]
    fn directories_read_back_from_their_names() {
        for dir in FileDir::ALL {
            assert_eq!(FileDir::from_name(dir.name()), Some(dir));
        }
        assert_eq!(FileDir::from_name("search"), None);
        assert_eq!(FileDir::from_name("Images"), None);
    }

    #[test]
    fn only_plain_names_are_safe() {
        for good in [
            "3f9a0c1d2e4b5a6978c0d1e2.png",
            "3f9a0c1d2e4b5a6978c0d1e2",
            "a.thumb",
            "a_b-c.md",
        ] {
            assert!(is_safe_name(good), "{good}");
        }
        for bad in [
            "",
            ".hidden",
            "..",
            "../escape",
            "a/b",
            "a\\b",
            "-leading",
            "ü.png",
            "a b",
            "a\0b",
            &"x".repeat(MAX_NAME_CHARS + 1),
        ] {
            assert!(!is_safe_name(bad), "{bad:?}");
        }
        assert!(is_safe_name(&"x".repeat(MAX_NAME_CHARS)));
    }

    fn attachment(id: &str, kind: FileKind) -> Attachment {
        Attachment {
            id: id.into(),
            name: format!("{id}.file"),
            kind,
            size: 10,
            text_chars: 0,
            notes: Vec::new(),
            pixels: None,
        }
    }

    #[test]
    fn a_message_lists_every_file_it_refers_to_once() {
        let call = |files: &[&str]| ToolCallRecord {
            files: files.iter().map(|f| f.to_string()).collect(),
            ..Default::default()
        };
        let message = MessageRecord {
            tool_rounds: vec![
                ToolRound {
                    calls: vec![call(&["g1.png"]), call(&[])],
                    ..Default::default()
                },
                ToolRound {
                    calls: vec![call(&["g2.webp", "g1.png"])],
                    ..Default::default()
                },
            ],
            images: vec![
                OutputImage {
                    round: 0,
                    at: 0,
                    kept: KeptImage::Stored {
                        file: "m1.png".into(),
                        mime_type: "image/png".into(),
                    },
                    signature: String::new(),
                },
                OutputImage {
                    round: 1,
                    at: 0,
                    kept: KeptImage::Remote {
                        url: "https://example.com/i.png".into(),
                    },
                    signature: String::new(),
                },
                OutputImage {
                    round: 1,
                    at: 0,
                    kept: KeptImage::Stored {
                        file: "g1.png".into(),
                        mime_type: "image/png".into(),
                    },
                    signature: String::new(),
                },
            ],
            attachments: vec![
                attachment("doc", FileKind::Pdf),
                attachment("pic", FileKind::Png),
            ],
            ..Default::default()
        };
        let expected = [
            (FileDir::Images, "g1.png"),
            (FileDir::Images, "g2.webp"),
            (FileDir::Images, "m1.png"),
            (FileDir::Attachments, "doc"),
            (FileDir::Attachments, "doc.md"),
            (FileDir::Attachments, "pic"),
            (FileDir::Attachments, "pic.thumb"),
        ]
        .map(|(dir, name)| StoredFile::new(dir, name));
        assert_eq!(message_files(&message), expected);
        assert!(message_files(&MessageRecord::default()).is_empty());
    }
}
