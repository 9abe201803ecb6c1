//! Importing an Agent Skills file chosen by the user: a `SKILL.md` alone, or a `.zip` of
//! its folder (told apart by the bytes, not the name). The core reader decides what is
//! kept; the skill becomes a custom one (a free id when its own is taken) and is turned
//! on when there is room.

use hearth_core::skill::library::Origin;
use hearth_core::skill::skill_md::{
    self, FolderFile, LeftOut, MAX_SKILL_MD_BYTES, MAX_ZIP_BYTES, SkillMdError,
};

use super::{Skills, SkillsError};

/// What an import brought in.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportOutcome {
    /// The new skill's title.
    pub title: String,
    /// The files not kept, and why.
    pub left_out: Vec<LeftOut>,
}

impl Skills {
    /// Imports the chosen `file`.
    pub async fn import(&self, file: web_sys::File) -> Result<ImportOutcome, SkillsError> {
        let size = file.size() as u64;
        if size > MAX_ZIP_BYTES as u64 {
            return Err(SkillsError::Import(SkillMdError::TooLarge));
        }
        let bytes = crate::browser::read_range(&file, 0..size)
            .await
            .ok_or(SkillsError::Import(SkillMdError::Unreadable))?;
        let files = if bytes.starts_with(b"PK\x03\x04") {
            skill_md::folder_from_zip(&bytes).map_err(SkillsError::Import)?
        } else {
            if bytes.len() > MAX_SKILL_MD_BYTES {
                return Err(SkillsError::Import(SkillMdError::TooLarge));
            }
            vec![FolderFile {
                path: "SKILL.md".to_string(),
                text: String::from_utf8(bytes).ok(),
            }]
        };
        let imported = skill_md::import(&files).map_err(SkillsError::Import)?;
        let title = imported.skill.meta.title.clone();
        let skill = imported.skill;
        let now = crate::browser::now();
        self.change(move |library| {
            let id = library.add_custom(skill.meta, &skill.content, Origin::Imported, now)?;
            let _ = library.set_active(&id, true);
            Ok(())
        })
        .await?;
        Ok(ImportOutcome {
            title,
            left_out: imported.left_out,
        })
    }
}
