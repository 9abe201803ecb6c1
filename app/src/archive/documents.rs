//! The settings documents that travel with an export beside the conversations: the
//! skill library, the memory book and the prompt templates. For an export each is read
//! and added, or left out and said when it cannot be read (the rest still goes); for an
//! import each is merged by its own rules, and a failure is said beside the
//! conversations that did come in.

use hearth_core::chat::archive::Archive;

use super::PartialImport;

/// Which documents an export had to leave out (unreadable).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct LeftOut {
    pub skills: bool,
    pub memory: bool,
    pub templates: bool,
}

/// Adds the documents to `archive`; which were left out.
pub(super) async fn add_to(archive: &mut Archive, skills: crate::skills::Skills) -> LeftOut {
    let library = skills.ensure_loaded().await;
    let mut left_out = LeftOut {
        skills: library.is_err(),
        ..LeftOut::default()
    };
    archive.skills = library
        .ok()
        .filter(|library| *library != Default::default())
        .and_then(|library| serde_json::to_value(&library).ok());
    let memory = crate::memory::run(crate::memory::Op::Export).await;
    left_out.memory = memory.is_err();
    if let Ok(crate::memory::Answer::Exported(value)) = memory {
        archive.memory = value;
    }
    let templates = crate::templates::use_templates().ensure_loaded().await;
    left_out.templates = templates.is_err();
    archive.templates = templates
        .ok()
        .filter(|templates| !templates.templates.is_empty())
        .and_then(|templates| serde_json::to_value(&templates).ok());
    left_out
}

/// Merges the documents of `archive` into this browser's; each failure joins `partial`.
pub(super) async fn merge_from(
    archive: &Archive,
    skills: crate::skills::Skills,
    partial: &mut Vec<PartialImport>,
) {
    // Skills: those not installed here come in (within the bounds); a skill this
    // browser has keeps its local version.
    if let Some(value) = archive.skills.clone() {
        let merged = match serde_json::from_value(value) {
            Ok(library) => skills.change(move |l| Ok(l.merge(library))).await,
            // Said, not dropped: the rest of the import stands.
            Err(_) => Err(crate::skills::SkillsError::Import(
                hearth_core::skill::skill_md::SkillMdError::Unreadable,
            )),
        };
        if let Err(reason) = merged {
            partial.push(PartialImport::Skills(reason));
        }
    }
    // Memories: newer copies win, the switches stay this browser's.
    if let Some(value) = archive.memory.clone() {
        let merged = crate::memory::run(crate::memory::Op::Merge(value)).await;
        if let Err(reason) = merged {
            partial.push(PartialImport::Memory(reason));
        }
    }
    // Templates: those whose id and command are free here come in.
    if let Some(value) = archive.templates.clone() {
        let merged = match serde_json::from_value::<hearth_core::template::library::TemplateLibrary>(
            value,
        ) {
            Ok(library) => {
                crate::templates::use_templates()
                    .change(move |l| Ok(l.merge(library)))
                    .await
            }
            Err(error) => Err(crate::templates::TemplatesError::Unreadable(
                error.to_string(),
            )),
        };
        if let Err(reason) = merged {
            partial.push(PartialImport::Templates(reason));
        }
    }
}
