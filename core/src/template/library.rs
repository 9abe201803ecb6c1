//! The user's prompt templates, as one record: each with a title, the command that
//! finds it after `/` in the composer, its text, and its earlier versions (a change of
//! the text keeps the one before, [`MAX_VERSIONS`] at most; Restore brings one back and
//! keeps the current one). Every change is checked here and fails with a typed
//! [`LibraryError`] that leaves the library as it was.

use serde::{Deserialize, Serialize};

use super::{TemplateError, parse};

/// The most templates kept.
pub const MAX_TEMPLATES: usize = 200;
/// The most earlier versions kept of one template.
pub const MAX_VERSIONS: usize = 20;
/// The most characters in a title.
pub const MAX_TITLE_CHARS: usize = 80;
/// The most characters in a command.
pub const MAX_COMMAND_CHARS: usize = 32;

/// The composer's own commands, which no template may take.
pub const RESERVED_COMMANDS: [&str; 4] = ["new", "search", "skills", "templates"];

/// An earlier text of a template.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TemplateVersion {
    /// The text.
    pub body: String,
    /// When it was saved, ms since the epoch.
    pub saved_at: f64,
}

/// One template.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PromptTemplate {
    /// Its id.
    pub id: String,
    /// What the user calls it.
    pub title: String,
    /// What follows `/` in the composer to find it (lower case, no spaces).
    pub command: String,
    /// Its text, with `{{variables}}`.
    pub body: String,
    /// Earlier texts, oldest first.
    pub versions: Vec<TemplateVersion>,
    /// When it was made, ms since the epoch.
    pub created_at: f64,
    /// When its text last changed, ms since the epoch.
    pub updated_at: f64,
}

/// A template as the editor hands it over.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TemplateDraft {
    /// The title.
    pub title: String,
    /// The command (`/` and case are ignored).
    pub command: String,
    /// The text.
    pub body: String,
}

/// The library record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TemplateLibrary {
    /// The templates, in the order made.
    pub templates: Vec<PromptTemplate>,
}

/// Why a change of the library was refused (nothing changed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase", tag = "code")]
pub enum LibraryError {
    /// The title is empty or over [`MAX_TITLE_CHARS`].
    #[error("a title needs 1 to {MAX_TITLE_CHARS} characters")]
    BadTitle,
    /// The command is empty, over [`MAX_COMMAND_CHARS`], or has a character other
    /// than letters, digits, `-` and `_`.
    #[error("a command needs 1 to {MAX_COMMAND_CHARS} letters, digits, - or _")]
    BadCommand,
    /// The composer uses that command itself.
    #[error("/{0} is the composer's own command")]
    ReservedCommand(String),
    /// Another template has that command.
    #[error("another template already uses /{0}")]
    CommandTaken(String),
    /// The text is not a template.
    #[error("{0}")]
    Body(TemplateError),
    /// Already [`MAX_TEMPLATES`] templates.
    #[error("at most {MAX_TEMPLATES} templates can be kept")]
    TooMany,
    /// No template has that id.
    #[error("that template does not exist")]
    NotFound,
    /// The template has no such earlier version.
    #[error("that version does not exist")]
    NoSuchVersion,
}

/// A command as the library keeps it: without a leading `/`, trimmed, lower case.
pub fn normalise_command(command: &str) -> Result<String, LibraryError> {
    let command = command.trim().trim_start_matches('/').to_lowercase();
    let fine = !command.is_empty()
        && command.chars().count() <= MAX_COMMAND_CHARS
        && command
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    if !fine {
        return Err(LibraryError::BadCommand);
    }
    if RESERVED_COMMANDS.contains(&command.as_str()) {
        return Err(LibraryError::ReservedCommand(command));
    }
    Ok(command)
}

/// A command made from a title: its letters and digits, words joined by `-`, lower case
/// (`Weekly Report` → `weekly-report`, `要約する` → `要約する`); empty when nothing fits.
pub fn command_from_title(title: &str) -> String {
    let mut out = String::new();
    for c in title.trim().chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.chars().count() >= MAX_COMMAND_CHARS {
            break;
        }
    }
    out.trim_end_matches('-').to_string()
}

/// A draft that keeps the rules: the title trimmed, the command normalised, the text a
/// template.
fn checked(draft: TemplateDraft) -> Result<TemplateDraft, LibraryError> {
    let title = draft.title.trim().to_string();
    if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS {
        return Err(LibraryError::BadTitle);
    }
    let command = normalise_command(&draft.command)?;
    parse(&draft.body).map_err(LibraryError::Body)?;
    Ok(TemplateDraft {
        title,
        command,
        body: draft.body,
    })
}

impl TemplateLibrary {
    /// The template `id`.
    pub fn get(&self, id: &str) -> Option<&PromptTemplate> {
        self.templates.iter().find(|t| t.id == id)
    }

    /// The template whose command is `command` (normalised first).
    pub fn by_command(&self, command: &str) -> Option<&PromptTemplate> {
        let command = command.trim().trim_start_matches('/').to_lowercase();
        self.templates.iter().find(|t| t.command == command)
    }

    fn taken_by_another(&self, command: &str, id: &str) -> bool {
        self.templates
            .iter()
            .any(|t| t.command == command && t.id != id)
    }

    /// Adds a template under `id` (made by the caller, unique).
    pub fn add(&mut self, id: String, draft: TemplateDraft, now: f64) -> Result<(), LibraryError> {
        let draft = checked(draft)?;
        if self.templates.len() >= MAX_TEMPLATES {
            return Err(LibraryError::TooMany);
        }
        if self.taken_by_another(&draft.command, &id) {
            return Err(LibraryError::CommandTaken(draft.command));
        }
        self.templates.push(PromptTemplate {
            id,
            title: draft.title,
            command: draft.command,
            body: draft.body,
            versions: Vec::new(),
            created_at: now,
            updated_at: now,
        });
        Ok(())
    }

    /// Changes the template `id`; a changed text keeps the one before as a version.
    pub fn update(&mut self, id: &str, draft: TemplateDraft, now: f64) -> Result<(), LibraryError> {
        let draft = checked(draft)?;
        if self.taken_by_another(&draft.command, id) {
            return Err(LibraryError::CommandTaken(draft.command));
        }
        let template = self
            .templates
            .iter_mut()
            .find(|t| t.id == id)
            .ok_or(LibraryError::NotFound)?;
        template.title = draft.title;
        template.command = draft.command;
        if template.body != draft.body {
            keep_version(template, draft.body, now);
        }
        Ok(())
    }

    /// Makes the earlier version at `index` the text again; the current text becomes a
    /// version.
    pub fn restore(&mut self, id: &str, index: usize, now: f64) -> Result<(), LibraryError> {
        let template = self
            .templates
            .iter_mut()
            .find(|t| t.id == id)
            .ok_or(LibraryError::NotFound)?;
        let version = template
            .versions
            .get(index)
            .ok_or(LibraryError::NoSuchVersion)?;
        parse(&version.body).map_err(LibraryError::Body)?;
        let body = template.versions.remove(index).body;
        keep_version(template, body, now);
        Ok(())
    }

    /// Removes the template `id`; it, for an Undo.
    pub fn remove(&mut self, id: &str) -> Result<PromptTemplate, LibraryError> {
        let index = self
            .templates
            .iter()
            .position(|t| t.id == id)
            .ok_or(LibraryError::NotFound)?;
        Ok(self.templates.remove(index))
    }

    /// Puts back a removed template (an Undo), unless its id or command came back
    /// meanwhile or the library is full.
    pub fn put_back(&mut self, template: PromptTemplate) -> Result<(), LibraryError> {
        if self.templates.len() >= MAX_TEMPLATES {
            return Err(LibraryError::TooMany);
        }
        if self.taken_by_another(&template.command, &template.id)
            || self.get(&template.id).is_some()
        {
            return Err(LibraryError::CommandTaken(template.command));
        }
        self.templates.push(template);
        Ok(())
    }

    /// The library with everything that breaks a rule dropped (a stored or imported
    /// record), and how many templates were dropped.
    pub fn repaired(mut self) -> (Self, usize) {
        let before = self.templates.len();
        let mut ids = std::collections::HashSet::new();
        let mut commands = std::collections::HashSet::new();
        self.templates.retain_mut(|t| {
            let Ok(draft) = checked(TemplateDraft {
                title: t.title.clone(),
                command: t.command.clone(),
                body: t.body.clone(),
            }) else {
                return false;
            };
            t.title = draft.title;
            t.command = draft.command;
            t.versions.retain(|v| parse(&v.body).is_ok());
            let drop = t.versions.len().saturating_sub(MAX_VERSIONS);
            t.versions.drain(..drop);
            !t.id.is_empty() && ids.insert(t.id.clone()) && commands.insert(t.command.clone())
        });
        self.templates.truncate(MAX_TEMPLATES);
        let dropped = before - self.templates.len();
        (self, dropped)
    }

    /// Adds another library's templates (an import): those whose id and command are not
    /// here, within the bounds. How many were added.
    pub fn merge(&mut self, other: TemplateLibrary) -> usize {
        let (other, _) = other.repaired();
        let mut added = 0;
        for template in other.templates {
            if self.put_back(template).is_ok() {
                added += 1;
            }
        }
        added
    }
}

/// Makes `body` the template's text and keeps the one before as its newest version.
fn keep_version(template: &mut PromptTemplate, body: String, now: f64) {
    let before = std::mem::replace(&mut template.body, body);
    template.versions.push(TemplateVersion {
        body: before,
        saved_at: template.updated_at,
    });
    let drop = template.versions.len().saturating_sub(MAX_VERSIONS);
    template.versions.drain(..drop);
    template.updated_at = now;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(title: &str, command: &str, body: &str) -> TemplateDraft {
        TemplateDraft {
            title: title.into(),
            command: command.into(),
            body: body.into(),
        }
    }

    #[test]
    fn commands_are_normalised_and_checked() {
        assert_eq!(
            normalise_command(" /Weekly-Report "),
            Ok("weekly-report".into())
        );
        assert_eq!(normalise_command("要約"), Ok("要約".into()));
        assert_eq!(normalise_command("a_b2"), Ok("a_b2".into()));
        for bad in ["", "/", "two words", "semi;colon", &"x".repeat(33)] {
            assert_eq!(
                normalise_command(bad),
                Err(LibraryError::BadCommand),
                "{bad:?}"
            );
        }
        assert_eq!(
            normalise_command("x".repeat(32).as_str()).map(|c| c.len()),
            Ok(32)
        );
        for reserved in RESERVED_COMMANDS {
            assert_eq!(
                normalise_command(&format!("/{}", reserved.to_uppercase())),
                Err(LibraryError::ReservedCommand(reserved.into()))
            );
        }
        assert_eq!(command_from_title("Weekly Report: Q3!"), "weekly-report-q3");
        assert_eq!(command_from_title("  要約 する "), "要約-する");
        assert_eq!(command_from_title("!!"), "");
    }

    #[test]
    fn adding_checks_every_rule_and_leaves_the_library_as_it_was() {
        let mut lib = TemplateLibrary::default();
        lib.add(
            "a".into(),
            draft("Translate", "translate", "To {{lang}}"),
            1.0,
        )
        .unwrap();
        let before = lib.clone();
        let refusals = [
            (draft(" ", "x", "b"), LibraryError::BadTitle),
            (draft(&"t".repeat(81), "x", "b"), LibraryError::BadTitle),
            (draft("T", "no way", "b"), LibraryError::BadCommand),
            (
                draft("T", "new", "b"),
                LibraryError::ReservedCommand("new".into()),
            ),
            (
                draft("T", "/Translate", "b"),
                LibraryError::CommandTaken("translate".into()),
            ),
            (
                draft("T", "x", "  "),
                LibraryError::Body(TemplateError::Empty),
            ),
            (
                draft("T", "x", "{{oops"),
                LibraryError::Body(TemplateError::Unclosed { line: 1 }),
            ),
        ];
        for (bad, error) in refusals {
            assert_eq!(lib.add("b".into(), bad, 2.0), Err(error));
            assert_eq!(lib, before);
        }
        for i in 1..MAX_TEMPLATES {
            lib.add(format!("t{i}"), draft("T", &format!("c{i}"), "b"), 2.0)
                .unwrap();
        }
        assert_eq!(
            lib.add("over".into(), draft("T", "over", "b"), 3.0),
            Err(LibraryError::TooMany)
        );
        assert_eq!(lib.by_command("/C7").map(|t| t.id.as_str()), Some("t7"));
    }

    #[test]
    fn a_changed_text_keeps_the_one_before_and_restore_swaps_them() {
        let mut lib = TemplateLibrary::default();
        lib.add("a".into(), draft("T", "t", "one"), 1.0).unwrap();
        // A new title alone keeps no version.
        lib.update("a", draft("T2", "t", "one"), 2.0).unwrap();
        assert!(lib.get("a").unwrap().versions.is_empty());
        lib.update("a", draft("T2", "t", "two"), 3.0).unwrap();
        lib.update("a", draft("T2", "t", "three"), 4.0).unwrap();
        let t = lib.get("a").unwrap();
        assert_eq!(t.body, "three");
        let earlier: Vec<(&str, f64)> = t
            .versions
            .iter()
            .map(|v| (v.body.as_str(), v.saved_at))
            .collect();
        assert_eq!(earlier, vec![("one", 1.0), ("two", 3.0)]);
        lib.restore("a", 0, 5.0).unwrap();
        let t = lib.get("a").unwrap();
        assert_eq!(t.body, "one");
        let earlier: Vec<&str> = t.versions.iter().map(|v| v.body.as_str()).collect();
        assert_eq!(earlier, vec!["two", "three"]);
        assert_eq!(lib.restore("a", 9, 6.0), Err(LibraryError::NoSuchVersion));
        assert_eq!(lib.restore("zz", 0, 6.0), Err(LibraryError::NotFound));
        for i in 0..(MAX_VERSIONS + 5) {
            lib.update("a", draft("T", "t", &format!("v{i}")), 10.0 + i as f64)
                .unwrap();
        }
        let t = lib.get("a").unwrap();
        assert_eq!(t.versions.len(), MAX_VERSIONS);
        assert_eq!(
            t.versions.last().unwrap().body,
            format!("v{}", MAX_VERSIONS + 3)
        );
    }

    #[test]
    fn a_command_can_move_between_templates_only_once_free() {
        let mut lib = TemplateLibrary::default();
        lib.add("a".into(), draft("A", "a", "x"), 1.0).unwrap();
        lib.add("b".into(), draft("B", "b", "x"), 1.0).unwrap();
        assert_eq!(
            lib.update("b", draft("B", "a", "x"), 2.0),
            Err(LibraryError::CommandTaken("a".into()))
        );
        let removed = lib.remove("a").unwrap();
        lib.update("b", draft("B", "a", "x"), 2.0).unwrap();
        assert_eq!(
            lib.put_back(removed.clone()),
            Err(LibraryError::CommandTaken("a".into()))
        );
        lib.update("b", draft("B", "b", "x"), 3.0).unwrap();
        lib.put_back(removed).unwrap();
        assert_eq!(lib.by_command("a").map(|t| t.id.as_str()), Some("a"));
        assert_eq!(lib.remove("zz"), Err(LibraryError::NotFound));
    }

    #[test]
    fn a_stored_record_is_repaired_and_an_import_merges() {
        let stored = serde_json::json!({"templates": [
            {"id": "ok", "title": " Fine ", "command": "/Fine", "body": "b {{x}}",
             "versions": [{"body": "{{broken", "savedAt": 1.0}, {"body": "old", "savedAt": 2.0}]},
            {"id": "ok", "title": "Twin", "command": "twin", "body": "b"},
            {"id": "bad", "title": "Bad", "command": "has space", "body": "b"},
            {"id": "same", "title": "Same", "command": "fine", "body": "b"},
            {"id": "", "title": "No id", "command": "noid", "body": "b"}
        ]});
        let lib: TemplateLibrary = serde_json::from_value(stored).unwrap();
        let (lib, dropped) = lib.repaired();
        assert_eq!(dropped, 4);
        let t = &lib.templates[0];
        assert_eq!((t.title.as_str(), t.command.as_str()), ("Fine", "fine"));
        assert_eq!(t.versions.len(), 1);

        let mut here = TemplateLibrary::default();
        here.add("mine".into(), draft("Mine", "fine", "b"), 1.0)
            .unwrap();
        here.add("other".into(), draft("Other", "other", "b"), 1.0)
            .unwrap();
        let mut incoming = TemplateLibrary::default();
        incoming
            .add("new".into(), draft("New", "new-one", "b"), 1.0)
            .unwrap();
        incoming.templates.push(lib.templates[0].clone());
        incoming
            .add("other".into(), draft("O", "o2", "b"), 1.0)
            .unwrap();
        assert_eq!(here.merge(incoming), 1);
        assert_eq!(here.templates.len(), 3);
        assert!(here.get("new").is_some());
    }
}
