//! A workspace's files: documents every conversation in it is answered from, kept in
//! their own folder of the browser's file store ([`FOLDER`], apart from the messages'
//! attachments, so that deleting every conversation never takes them), read as text only
//! ([`BOUNDS`]). What a stored or imported list may hold ([`kept`]), which stored files a
//! workspace owns ([`stored_names`]), and which of them a change or a removal leaves
//! behind ([`left_behind`]), so that saving, cancelling, deleting and importing agree.

use std::collections::{BTreeSet, HashSet};

use crate::attachment::{Attachment, Bounds};
use crate::stored_file::{attachment_text_name, is_safe_name};

/// The folder of the browser's file store the files live in: the original as `<id>`,
/// its text as `<id>.md` (the names of a message's attachment).
pub const FOLDER: &str = "workspace-files";
/// The most files one workspace keeps.
pub const MAX_FILES: usize = 20;
/// The most bytes of one workspace's files together.
pub const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;
/// What a workspace takes: [`MAX_FILES`], [`MAX_TOTAL_BYTES`], no images (every turn
/// reads its files as text).
pub const BOUNDS: Bounds = Bounds {
    max_files: MAX_FILES,
    max_total: MAX_TOTAL_BYTES,
    images: false,
};

/// Why a list of files was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilesOver {
    /// More than [`MAX_FILES`].
    Count,
    /// More than [`MAX_TOTAL_BYTES`] together.
    Bytes,
}

/// `files` without what no workspace may hold (an image, an id that could not name a
/// stored file, a repeat), or why the rest is over the bounds.
pub fn kept(files: Vec<Attachment>) -> Result<Vec<Attachment>, FilesOver> {
    let files = usable(files);
    if files.len() > MAX_FILES {
        return Err(FilesOver::Count);
    }
    if files.iter().map(|file| file.size).sum::<u64>() > MAX_TOTAL_BYTES {
        return Err(FilesOver::Bytes);
    }
    Ok(files)
}

/// The first of `files` that [`kept`] keeps, within the bounds (a stored or imported
/// record is mended, not dropped).
pub fn fitting(files: Vec<Attachment>) -> Vec<Attachment> {
    let mut files = usable(files);
    let mut total = 0;
    files.retain(|file| {
        total += file.size;
        total <= MAX_TOTAL_BYTES
    });
    files.truncate(MAX_FILES);
    files
}

/// `files` without images, ids that could not name a stored file, and repeats.
fn usable(mut files: Vec<Attachment>) -> Vec<Attachment> {
    let mut seen = HashSet::new();
    files.retain(|file| !file.is_image() && is_stored_id(&file.id) && seen.insert(file.id.clone()));
    files
}

/// Whether `id` can name a workspace file's stored original (its text adds `.md`).
fn is_stored_id(id: &str) -> bool {
    is_safe_name(id) && !id.contains('.')
}

/// The stored files of `files`: each one's original and text, in [`FOLDER`].
pub fn stored_names<'a>(files: impl IntoIterator<Item = &'a Attachment>) -> BTreeSet<String> {
    files
        .into_iter()
        .flat_map(|file| [file.id.clone(), attachment_text_name(&file.id)])
        .collect()
}

/// The stored files of `before` that `after` no longer refers to (a saved change's
/// removed files, a cancelled editor's added ones, a deleted workspace's all).
pub fn left_behind(before: &[Attachment], after: &[Attachment]) -> BTreeSet<String> {
    let kept = stored_names(after);
    stored_names(before)
        .into_iter()
        .filter(|name| !kept.contains(name))
        .collect()
}

/// Whether `name` may be a stored file of a workspace brought in from outside (an
/// export): an id Hearth makes, or its text.
pub fn is_stored_name(name: &str) -> bool {
    is_stored_id(name.strip_suffix(".md").unwrap_or(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filetype::FileKind;

    fn file(id: &str, kind: FileKind) -> Attachment {
        Attachment::test_file(id, kind, 1)
    }

    #[test]
    fn a_change_leaves_behind_exactly_the_stored_files_no_longer_referred_to() {
        use FileKind::{Pdf, Text};
        let before = [file("a1", Text), file("b2", Pdf)];
        let after = [file("b2", Pdf), file("c3", Text)];
        let names =
            |list: &[&str]| -> BTreeSet<String> { list.iter().map(|s| s.to_string()).collect() };
        assert_eq!(left_behind(&before, &after), names(&["a1", "a1.md"]));
        assert_eq!(
            left_behind(&after, &before),
            names(&["c3", "c3.md"]),
            "a cancelled editor's added files"
        );
        assert_eq!(
            left_behind(&before, &[]),
            names(&["a1", "a1.md", "b2", "b2.md"]),
            "a deleted workspace's all"
        );
        assert!(left_behind(&before, &before).is_empty());
        for name in ["a1", "a1.md", "0f3e_9"] {
            assert!(is_stored_name(name), "{name}");
        }
        for name in ["", ".md", "a.b", "a.thumb", "../a", "a/b", "a.md.md"] {
            assert!(!is_stored_name(name), "{name}");
        }
    }
}
