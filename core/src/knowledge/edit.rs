//! Editing a file's extracted text: the record's side of it (the app writes the text to
//! the path this returns).

use super::transfer::{KnowledgePath, Part};
use super::{KnowledgeError, KnowledgeLibrary, Stage};

impl KnowledgeLibrary {
    /// Records that file `file`'s extracted text was edited to `chars` characters: a new
    /// version (the old one's passages are never found again), marked edited, to be
    /// indexed again; its pages and the parser's notes no longer describe it. The text
    /// lives at the file's own content path, so a text file's original stays as added.
    /// The path to write the text to.
    pub fn edit_text(
        &mut self,
        collection: &str,
        file: &str,
        chars: u64,
    ) -> Result<String, KnowledgeError> {
        let path = KnowledgePath::new(collection, file, Part::Content).path();
        let file = self.file_mut(collection, file)?;
        if !file.is_ready() {
            return Err(KnowledgeError::NotEditable);
        }
        if chars > crate::attachment::MAX_TEXT_CHARS as u64 {
            return Err(KnowledgeError::TextTooLong);
        }
        file.content_path = path.clone();
        file.chars = chars;
        file.page_starts.clear();
        file.notes.clear();
        file.edited = true;
        file.passages = 0;
        file.version = file.version.saturating_add(1);
        file.stage = Stage::Index;
        Ok(path)
    }
}
