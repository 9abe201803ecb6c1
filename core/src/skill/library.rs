//! What this browser keeps of skills, as one record: the installed skills (built-ins as
//! installed or edited here, and the user's own), which are active, and whether the
//! model chooses among them. Every change is checked here (normalised text, at most
//! [`MAX_CUSTOM`] custom skills, [`MAX_ACTIVE`] active ones) and fails with a typed
//! [`LibraryError`] that leaves the library as it was.

use serde::{Deserialize, Serialize};

use super::meta::SkillMeta;
use super::normalise::{self, Refusal, TextSkill, is_valid_id};

/// The most custom (created or imported) skills.
pub const MAX_CUSTOM: usize = 100;
/// The most active skills.
pub const MAX_ACTIVE: usize = 20;
/// The most installed skills in all (built-ins included).
pub const MAX_INSTALLED: usize = 1_000;

/// Where an installed skill came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Origin {
    /// Hearth's catalogue.
    #[default]
    BuiltIn,
    /// Written by the user in Hearth.
    Custom,
    /// Imported from a `SKILL.md`.
    Imported,
}

/// One installed skill.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InstalledSkill {
    /// The skill.
    #[serde(flatten)]
    pub skill: TextSkill,
    /// Where it came from.
    pub origin: Origin,
    /// A built-in the user changed here (an update of the catalogue never overwrites it).
    pub edited: bool,
    /// The catalogue locale a built-in was installed from.
    pub locale: Option<String>,
    /// When it was installed, ms since the epoch.
    pub installed_at: f64,
    /// Its last change, ms since the epoch.
    pub updated_at: f64,
}

impl InstalledSkill {
    /// Its id.
    pub fn id(&self) -> &str {
        &self.skill.meta.id
    }

    /// Whether it counts against [`MAX_CUSTOM`].
    pub fn is_custom(&self) -> bool {
        self.origin != Origin::BuiltIn
    }
}

/// The library record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SkillLibrary {
    /// Installed skills, in the order installed.
    pub installed: Vec<InstalledSkill>,
    /// Ids of the active skills, in the order turned on.
    pub active: Vec<String>,
    /// The model chooses up to four of the active skills each turn; off: all active
    /// skills are applied.
    pub auto_select: bool,
}

/// Why a change of the library was refused (nothing changed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase", tag = "code")]
pub enum LibraryError {
    /// The skill breaks a rule.
    #[error("{0}")]
    Refused(Refusal),
    /// Already [`MAX_CUSTOM`] custom skills.
    #[error("at most {MAX_CUSTOM} custom skills can be kept")]
    TooManyCustom,
    /// Already [`MAX_ACTIVE`] active skills.
    #[error("at most {MAX_ACTIVE} skills can be active at once")]
    TooManyActive,
    /// Already [`MAX_INSTALLED`] skills.
    #[error("at most {MAX_INSTALLED} skills can be installed")]
    TooManyInstalled,
    /// No installed skill has that id.
    #[error("that skill is not installed")]
    NotInstalled,
    /// A built-in is already installed under that id.
    #[error("that skill is already installed")]
    AlreadyInstalled,
}

/// A title as an id: lower-case ASCII words joined by hyphens (`Meeting Notes!` →
/// `meeting-notes`); empty when the title has no ASCII letters or digits.
pub fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 48 {
            break;
        }
    }
    out.trim_end_matches('-').to_string()
}

impl SkillLibrary {
    /// The installed skill `id`.
    pub fn get(&self, id: &str) -> Option<&InstalledSkill> {
        self.installed.iter().find(|s| s.id() == id)
    }

    /// Whether `id` is active.
    pub fn is_active(&self, id: &str) -> bool {
        self.active.iter().any(|a| a == id)
    }

    /// The active skills, in the order turned on (an id no longer installed is skipped).
    pub fn active_skills(&self) -> Vec<&InstalledSkill> {
        self.active.iter().filter_map(|id| self.get(id)).collect()
    }

    fn custom_count(&self) -> usize {
        self.installed.iter().filter(|s| s.is_custom()).count()
    }

    fn room_for_one(&self) -> Result<(), LibraryError> {
        if self.installed.len() >= MAX_INSTALLED {
            return Err(LibraryError::TooManyInstalled);
        }
        Ok(())
    }

    /// Installs a built-in from its catalogue `locale` (its text fetched on install).
    pub fn install_builtin(
        &mut self,
        meta: SkillMeta,
        content: &str,
        locale: &str,
        now: f64,
    ) -> Result<(), LibraryError> {
        let skill = normalise::normalise(meta, content).map_err(LibraryError::Refused)?;
        if self.get(&skill.meta.id).is_some() {
            return Err(LibraryError::AlreadyInstalled);
        }
        self.room_for_one()?;
        self.installed.push(InstalledSkill {
            skill,
            origin: Origin::BuiltIn,
            edited: false,
            locale: Some(locale.to_string()),
            installed_at: now,
            updated_at: now,
        });
        Ok(())
    }

    /// An id for a new custom skill titled `title`, free in this library.
    pub fn free_id(&self, title: &str) -> String {
        let base = match slug(title) {
            s if s.is_empty() => "custom-skill".to_string(),
            s if s.starts_with("custom-") => s,
            s => format!("custom-{s}"),
        };
        let base: String = base.chars().take(56).collect();
        let base = base.trim_end_matches('-').to_string();
        if self.get(&base).is_none() {
            return base;
        }
        (2..)
            .map(|n| format!("{base}-{n}"))
            .find(|id| self.get(id).is_none())
            .unwrap_or(base)
    }

    /// Adds the user's own skill (written here, or imported from a `SKILL.md`); its id.
    /// A skill imported under an id already installed gets a free one.
    pub fn add_custom(
        &mut self,
        mut meta: SkillMeta,
        content: &str,
        origin: Origin,
        now: f64,
    ) -> Result<String, LibraryError> {
        if meta.id.is_empty() || !is_valid_id(&meta.id) || self.get(&meta.id).is_some() {
            meta.id = self.free_id(if meta.id.is_empty() {
                &meta.title
            } else {
                &meta.id
            });
        }
        let skill = normalise::normalise(meta, content).map_err(LibraryError::Refused)?;
        if self.custom_count() >= MAX_CUSTOM {
            return Err(LibraryError::TooManyCustom);
        }
        self.room_for_one()?;
        let id = skill.meta.id.clone();
        self.installed.push(InstalledSkill {
            skill,
            origin: if origin == Origin::BuiltIn {
                Origin::Custom
            } else {
                origin
            },
            edited: false,
            locale: None,
            installed_at: now,
            updated_at: now,
        });
        Ok(id)
    }

    /// Replaces an installed skill's metadata and text (its id and origin stay); a
    /// built-in becomes edited.
    pub fn update(
        &mut self,
        id: &str,
        mut meta: SkillMeta,
        content: &str,
        now: f64,
    ) -> Result<(), LibraryError> {
        meta.id = id.to_string();
        let skill = normalise::normalise(meta, content).map_err(LibraryError::Refused)?;
        let installed = self
            .installed
            .iter_mut()
            .find(|s| s.id() == id)
            .ok_or(LibraryError::NotInstalled)?;
        if installed.skill == skill {
            return Ok(());
        }
        installed.edited |= installed.origin == Origin::BuiltIn;
        installed.skill = skill;
        installed.updated_at = now;
        Ok(())
    }

    /// Puts a built-in back to its catalogue text (`meta`, `content`): no longer edited.
    pub fn reset_builtin(
        &mut self,
        meta: SkillMeta,
        content: &str,
        now: f64,
    ) -> Result<(), LibraryError> {
        let skill = normalise::normalise(meta, content).map_err(LibraryError::Refused)?;
        let installed = self
            .installed
            .iter_mut()
            .find(|s| s.id() == skill.meta.id && s.origin == Origin::BuiltIn)
            .ok_or(LibraryError::NotInstalled)?;
        installed.skill = skill;
        installed.edited = false;
        installed.updated_at = now;
        Ok(())
    }

    /// Removes a skill (and turns it off).
    pub fn remove(&mut self, id: &str) -> Result<(), LibraryError> {
        let before = self.installed.len();
        self.installed.retain(|s| s.id() != id);
        if self.installed.len() == before {
            return Err(LibraryError::NotInstalled);
        }
        self.active.retain(|a| a != id);
        Ok(())
    }

    /// Turns an installed skill on or off.
    pub fn set_active(&mut self, id: &str, on: bool) -> Result<(), LibraryError> {
        if self.get(id).is_none() {
            return Err(LibraryError::NotInstalled);
        }
        match (on, self.is_active(id)) {
            (true, false) => {
                if self.active.len() >= MAX_ACTIVE {
                    return Err(LibraryError::TooManyActive);
                }
                self.active.push(id.to_string());
            }
            (false, true) => self.active.retain(|a| a != id),
            _ => {}
        }
        Ok(())
    }

    /// The library with anything a stored or imported record should not hold dropped:
    /// skills that fail normalisation, repeated ids, custom skills past the bound, active
    /// ids that are not installed or past the bound. How many skills were dropped.
    pub fn repaired(mut self) -> (Self, usize) {
        let mut seen = std::collections::HashSet::new();
        let mut custom = 0;
        let before = self.installed.len();
        self.installed.retain_mut(|s| {
            let Ok(skill) = normalise::normalise(s.skill.meta.clone(), &s.skill.content) else {
                return false;
            };
            s.skill = skill;
            if s.is_custom() {
                custom += 1;
            }
            seen.insert(s.id().to_string())
                && !(s.is_custom() && custom > MAX_CUSTOM)
                && seen.len() <= MAX_INSTALLED
        });
        let dropped = before - self.installed.len();
        let mut active_seen = std::collections::HashSet::new();
        let installed: std::collections::HashSet<String> =
            self.installed.iter().map(|s| s.id().to_string()).collect();
        self.active
            .retain(|id| installed.contains(id) && active_seen.insert(id.clone()));
        self.active.truncate(MAX_ACTIVE);
        (self, dropped)
    }

    /// Adds another library's skills (an import): those whose id is not installed here,
    /// within the bounds; active ids follow. How many were added.
    pub fn merge(&mut self, other: SkillLibrary) -> usize {
        let (other, _) = other.repaired();
        let mut added = 0;
        for skill in other.installed {
            if self.get(skill.id()).is_some()
                || self.installed.len() >= MAX_INSTALLED
                || (skill.is_custom() && self.custom_count() >= MAX_CUSTOM)
            {
                continue;
            }
            let id = skill.id().to_string();
            self.installed.push(skill);
            added += 1;
            if other.active.contains(&id) {
                let _ = self.set_active(&id, true);
            }
        }
        added
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(id: &str, title: &str) -> SkillMeta {
        SkillMeta {
            id: id.into(),
            title: title.into(),
            description: "d".into(),
            ..Default::default()
        }
    }

    #[test]
    fn built_ins_install_once_and_edits_are_remembered() {
        let mut lib = SkillLibrary::default();
        lib.install_builtin(meta("proofread", "Proofread"), "Fix typos.", "en", 1.0)
            .unwrap();
        assert_eq!(
            lib.install_builtin(meta("proofread", "Proofread"), "x", "en", 2.0),
            Err(LibraryError::AlreadyInstalled)
        );
        lib.update(
            "proofread",
            meta("ignored", "Proofread (mine)"),
            "Fix typos gently.",
            3.0,
        )
        .unwrap();
        let skill = lib.get("proofread").unwrap();
        assert!(skill.edited);
        assert_eq!(skill.skill.meta.id, "proofread");
        assert_eq!(skill.skill.content, "Fix typos gently.");
        lib.reset_builtin(meta("proofread", "Proofread"), "Fix typos.", 4.0)
            .unwrap();
        assert!(!lib.get("proofread").unwrap().edited);
        assert_eq!(lib.get("proofread").unwrap().skill.content, "Fix typos.");
    }

    #[test]
    fn a_refused_change_leaves_the_library_as_it_was() {
        let mut lib = SkillLibrary::default();
        lib.install_builtin(meta("proofread", "Proofread"), "Fix typos.", "en", 1.0)
            .unwrap();
        let before = lib.clone();
        let mut scripted = meta("proofread", "P");
        scripted.risk.script_required = true;
        assert_eq!(
            lib.update("proofread", scripted, "run it", 2.0),
            Err(LibraryError::Refused(Refusal::ScriptRequired))
        );
        assert_eq!(
            lib.update("proofread", meta("p", "P"), " ", 2.0),
            Err(LibraryError::Refused(Refusal::MissingContent))
        );
        assert_eq!(
            lib.update("nope", meta("p", "P"), "x", 2.0),
            Err(LibraryError::NotInstalled)
        );
        assert_eq!(lib, before);
    }

    #[test]
    fn custom_skills_get_free_ids_and_are_bounded() {
        let mut lib = SkillLibrary::default();
        let first = lib
            .add_custom(meta("", "Meeting Notes!"), "x", Origin::Custom, 1.0)
            .unwrap();
        let second = lib
            .add_custom(meta("", "Meeting notes"), "x", Origin::Custom, 1.0)
            .unwrap();
        let japanese = lib
            .add_custom(meta("", "議事録"), "x", Origin::Custom, 1.0)
            .unwrap();
        assert_eq!(
            [first.as_str(), second.as_str(), japanese.as_str()],
            [
                "custom-meeting-notes",
                "custom-meeting-notes-2",
                "custom-skill"
            ]
        );
        // An import keeps its own id unless it is taken.
        let imported = lib
            .add_custom(meta("pdf-notes", "PDF"), "x", Origin::Imported, 1.0)
            .unwrap();
        assert_eq!(imported, "pdf-notes");
        let again = lib
            .add_custom(meta("pdf-notes", "PDF"), "x", Origin::Imported, 1.0)
            .unwrap();
        assert_eq!(again, "custom-pdf-notes");
        while lib.installed.len() < MAX_CUSTOM {
            lib.add_custom(meta("", "More"), "x", Origin::Custom, 1.0)
                .unwrap();
        }
        assert_eq!(
            lib.add_custom(meta("", "One too many"), "x", Origin::Custom, 1.0),
            Err(LibraryError::TooManyCustom)
        );
        // Built-ins do not count against the custom bound.
        lib.install_builtin(meta("proofread", "P"), "x", "en", 1.0)
            .unwrap();
    }

    #[test]
    fn at_most_twenty_active_and_only_installed_ones() {
        let mut lib = SkillLibrary::default();
        assert_eq!(lib.set_active("x", true), Err(LibraryError::NotInstalled));
        for i in 0..=MAX_ACTIVE {
            lib.install_builtin(meta(&format!("s{i}"), "S"), "x", "en", 1.0)
                .unwrap();
        }
        for i in 0..MAX_ACTIVE {
            lib.set_active(&format!("s{i}"), true).unwrap();
        }
        lib.set_active("s0", true).unwrap();
        assert_eq!(lib.active.len(), MAX_ACTIVE);
        assert_eq!(
            lib.set_active("s20", true),
            Err(LibraryError::TooManyActive)
        );
        lib.remove("s3").unwrap();
        assert!(!lib.is_active("s3"));
        lib.set_active("s20", true).unwrap();
        assert_eq!(lib.active_skills().last().unwrap().id(), "s20");
    }

    #[test]
    fn a_stored_record_is_repaired_and_an_import_merges() {
        let mut lib = SkillLibrary::default();
        lib.install_builtin(meta("proofread", "P"), "x", "en", 1.0)
            .unwrap();
        let mut stored = lib.clone();
        let mut bad = stored.installed[0].clone();
        bad.skill.meta.risk.network_required = true;
        bad.skill.meta.id = "bad".into();
        stored.installed.push(bad);
        stored.installed.push(stored.installed[0].clone());
        stored.active = vec![
            "proofread".into(),
            "bad".into(),
            "gone".into(),
            "proofread".into(),
        ];
        let (repaired, dropped) = stored.repaired();
        assert_eq!(dropped, 2);
        assert_eq!(repaired.active, ["proofread"]);

        let mut other = SkillLibrary::default();
        other
            .install_builtin(meta("proofread", "Other"), "y", "ja", 1.0)
            .unwrap();
        other
            .install_builtin(meta("translate", "T"), "y", "ja", 1.0)
            .unwrap();
        other.active = vec!["translate".into()];
        assert_eq!(lib.merge(other), 1);
        assert_eq!(
            lib.get("proofread").unwrap().skill.content,
            "x",
            "a local skill wins"
        );
        assert!(lib.is_active("translate"));
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("  Hello, World! 2 "), "hello-world-2");
        assert_eq!(slug("翻訳"), "");
        assert!(slug(&"ab ".repeat(40)).len() <= 48);
    }
}
