//! Agent Skills files: a `SKILL.md` (YAML front matter with `name` and `description`,
//! then Markdown instructions), alone or in its folder with `references/`, `scripts/` and
//! `assets/`. Importing keeps what a text skill can use: the body, and the folder's text
//! files appended as references. A script is never kept: a skill whose instructions name
//! one, or whose `allowed-tools` lists tools, is refused by that rule; scripts it does not
//! name and binary files are left out and reported. Exporting writes a `SKILL.md` that
//! imports back to the same skill (Hearth's own fields travel in `metadata`).
//!
//! The front matter reader is a small YAML subset (plain, quoted and block scalars, one
//! nested map, lists), enough for the specification's fields; anything else is ignored.

use serde::Serialize;

use super::meta::{Activation, Category, SkillMeta, SkillRisk};
use super::normalise::{MAX_CONTENT_CHARS, Refusal, TextSkill, normalise};

/// The largest `SKILL.md` read, in bytes.
pub const MAX_SKILL_MD_BYTES: usize = 256 * 1024;
/// The most files a skill folder may hold.
pub const MAX_FOLDER_FILES: usize = 200;
/// What separates the items of a list kept in `metadata` (`use-when` and the others).
const LIST_SEPARATOR: &str = " | ";

/// One file of a skill folder as the app read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderFile {
    /// Its path inside the upload (`my-skill/references/api.md`).
    pub path: String,
    /// Its text, or `None` when it is not UTF-8 text.
    pub text: Option<String>,
}

/// Why a file of the folder was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum LeftOutReason {
    /// A script: Hearth runs none.
    Script,
    /// Not text.
    Binary,
    /// The instructions would pass their bound with it.
    TooLarge,
}

/// A file of the folder that was not kept, for the user to see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftOut {
    /// Its path, relative to the skill's folder.
    pub path: String,
    /// Why.
    pub reason: LeftOutReason,
}

/// A skill read from its files.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The skill (normalised).
    pub skill: TextSkill,
    /// The text files appended as references, relative paths.
    pub references: Vec<String>,
    /// What was not kept, and why.
    pub left_out: Vec<LeftOut>,
}

/// Why a `SKILL.md` could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkillMdError {
    /// No `SKILL.md` among the files.
    #[error("no SKILL.md was found")]
    NoSkillFile,
    /// Over [`MAX_SKILL_MD_BYTES`] or [`MAX_FOLDER_FILES`].
    #[error("the skill is too large to import")]
    TooLarge,
    /// No front matter, or no `name`/`description` in it.
    #[error("SKILL.md needs front matter with a name and a description")]
    NoFrontMatter,
    /// The skill breaks a rule.
    #[error("{0}")]
    Refused(Refusal),
    /// The instructions name a script (`scripts/…`) Hearth would have to run.
    #[error("the skill's instructions run {0}; only text skills are kept")]
    NamesScript(String),
    /// A `.zip` that cannot be read.
    #[error("the skill's ZIP cannot be read")]
    Unreadable,
}

impl SkillMdError {
    /// The rule behind it, when it is one of [`Refusal`]'s.
    pub fn refusal(&self) -> Option<Refusal> {
        match self {
            Self::Refused(refusal) => Some(*refusal),
            Self::NamesScript(_) => Some(Refusal::ScriptRequired),
            _ => None,
        }
    }
}

/// The front matter's fields Hearth reads.
#[derive(Debug, Default, PartialEq)]
struct FrontMatter {
    name: String,
    description: String,
    compatibility: String,
    allowed_tools: Vec<String>,
    metadata: Vec<(String, String)>,
}

impl FrontMatter {
    fn meta(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Splits a `SKILL.md` into its front matter and its body.
fn split(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    None
}

/// A scalar's value: quotes removed (with a double-quoted string's escapes).
fn scalar(raw: &str) -> String {
    let raw = raw.trim();
    if let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        }
        return out;
    }
    if let Some(inner) = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    // A plain scalar ends at a comment.
    match raw.find(" #") {
        Some(at) => raw[..at].trim_end().to_string(),
        None => raw.to_string(),
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The lines of a block scalar (`|` keeps line breaks, `>` folds them) or of a nested
/// block, those indented deeper than `parent`; how many lines they took.
fn block(lines: &[&str], parent: usize) -> (Vec<String>, usize) {
    let mut taken = 0;
    let mut out = Vec::new();
    let mut base = None;
    for line in lines {
        if line.trim().is_empty() {
            out.push(String::new());
            taken += 1;
            continue;
        }
        let depth = indent(line);
        if depth <= parent {
            break;
        }
        let base = *base.get_or_insert(depth);
        out.push(line.get(base.min(depth)..).unwrap_or_default().to_string());
        taken += 1;
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
        taken -= 1;
    }
    (out, taken)
}

fn block_scalar(style: &str, lines: Vec<String>) -> String {
    if style.starts_with('|') {
        return lines.join("\n");
    }
    // Folded: lines join with spaces, blank lines stay as line breaks.
    let mut out = String::new();
    for line in lines {
        if line.is_empty() {
            out.push('\n');
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push(' ');
            }
            out.push_str(line.trim());
        }
    }
    out
}

/// Reads the front matter's fields (unknown keys ignored).
fn front_matter(text: &str) -> FrontMatter {
    let lines: Vec<&str> = text.lines().collect();
    let mut fm = FrontMatter::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.trim().is_empty() || line.trim_start().starts_with('#') || indent(line) > 0 {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        let rest = rest.trim();
        let (nested, taken) = block(&lines[i..], 0);
        let value = if rest.starts_with('|') || rest.starts_with('>') {
            i += taken;
            block_scalar(rest, nested)
        } else if rest.is_empty() && taken > 0 {
            i += taken;
            if key == "metadata" {
                fm.metadata = map(&nested);
                continue;
            }
            // A list of items (`- a`).
            nested
                .iter()
                .filter_map(|l| l.trim().strip_prefix("- ").map(scalar))
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            scalar(rest)
        };
        match key {
            "name" => fm.name = value,
            "description" => fm.description = value,
            "compatibility" => fm.compatibility = value,
            "allowed-tools" => {
                fm.allowed_tools = value
                    .trim_matches(['[', ']'])
                    .split([' ', ','])
                    .map(scalar)
                    .filter(|tool| !tool.is_empty())
                    .collect();
            }
            _ => {}
        }
    }
    fm
}

/// A nested map's `key: value` pairs (block scalars inside it are read too).
fn map(lines: &[String]) -> Vec<(String, String)> {
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < refs.len() {
        let line = refs[i];
        i += 1;
        if indent(line) > 0 {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let rest = rest.trim();
        let value = if rest.starts_with('|') || rest.starts_with('>') {
            let (nested, taken) = block(&refs[i..], 0);
            i += taken;
            block_scalar(rest, nested)
        } else {
            scalar(rest)
        };
        out.push((key.trim().to_string(), value));
    }
    out
}

fn list(value: Option<&str>) -> Vec<String> {
    value
        .map(|v| {
            v.split(LIST_SEPARATOR.trim())
                .map(|item| item.trim().to_string())
                .filter(|item| !item.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// A name turned into a title: `code-review` → `Code review`.
fn title_from(name: &str) -> String {
    let words = name.replace('-', " ");
    let mut chars = words.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

const SCRIPT_EXTENSIONS: &[&str] = &[
    "py", "sh", "bash", "zsh", "js", "mjs", "cjs", "ts", "rb", "pl", "ps1", "bat", "cmd", "exe",
    "php", "lua", "go", "rs", "jar", "bin",
];
const TEXT_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "csv", "tsv", "json", "yaml", "yml", "toml", "xml", "html", "rst",
];

fn extension(path: &str) -> String {
    path.rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default()
}

fn is_script(path: &str) -> bool {
    path.starts_with("scripts/") || SCRIPT_EXTENSIONS.contains(&extension(path).as_str())
}

/// The first file under `scripts/` the instructions name, if any.
fn named_script(body: &str) -> Option<String> {
    body.match_indices("scripts/").find_map(|(at, _)| {
        let starts_path = body[..at]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || "`'\"(./[".contains(c));
        let path: String = body[at..]
            .chars()
            .take_while(|c| !c.is_whitespace() && !"`'\")],".contains(*c))
            .collect();
        let path = path.trim_end_matches(['.', ':', ';']);
        let file = &path["scripts/".len()..];
        // A file (it has an extension), not prose such as "scripts/treatments".
        (starts_path && file.contains('.')).then(|| path.to_string())
    })
}

/// Whether the compatibility text says the skill needs the network.
fn needs_network(compatibility: &str) -> bool {
    let text = compatibility.to_lowercase();
    [
        "internet",
        "network access",
        "online access",
        "web access",
        "http",
    ]
    .iter()
    .any(|word| text.contains(word))
}

/// Imports a skill folder (or a lone `SKILL.md`): the shallowest `SKILL.md` is the skill,
/// the files under its folder its resources.
pub fn import(files: &[FolderFile]) -> Result<Imported, SkillMdError> {
    if files.len() > MAX_FOLDER_FILES {
        return Err(SkillMdError::TooLarge);
    }
    let skill_file = files
        .iter()
        .filter(|f| {
            f.path
                .rsplit('/')
                .next()
                .is_some_and(|name| name.eq_ignore_ascii_case("SKILL.md"))
        })
        .min_by_key(|f| f.path.matches('/').count())
        .ok_or(SkillMdError::NoSkillFile)?;
    let text = skill_file
        .text
        .as_deref()
        .ok_or(SkillMdError::NoFrontMatter)?;
    if text.len() > MAX_SKILL_MD_BYTES {
        return Err(SkillMdError::TooLarge);
    }
    let root = skill_file
        .path
        .rsplit_once('/')
        .map(|(dir, _)| format!("{dir}/"))
        .unwrap_or_default();
    let (head, body) = split(text).ok_or(SkillMdError::NoFrontMatter)?;
    let fm = front_matter(head);
    if fm.name.trim().is_empty() || fm.description.trim().is_empty() {
        return Err(SkillMdError::NoFrontMatter);
    }
    let risk = SkillRisk {
        external_tool_required: !fm.allowed_tools.is_empty(),
        network_required: needs_network(&fm.compatibility),
        ..SkillRisk::default()
    };
    let meta = SkillMeta {
        id: fm.name.trim().to_string(),
        title: fm
            .meta("title")
            .map(str::to_string)
            .unwrap_or_else(|| title_from(fm.name.trim())),
        description: fm.description.clone(),
        category: fm
            .meta("category")
            .map(Category::from_code)
            .unwrap_or_default(),
        tags: fm
            .meta("tags")
            .map(|t| t.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default(),
        risk,
        activation: Activation {
            use_when: list(fm.meta("use-when")),
            avoid_when: list(fm.meta("avoid-when")),
            example_queries: list(fm.meta("example-queries")),
        },
    };
    // The requirements the front matter declares are refused before the files are read.
    super::normalise::check_meta(meta.clone()).map_err(SkillMdError::Refused)?;

    // Instructions that run a bundled script need it, whether or not it came along.
    if let Some(script) = named_script(body) {
        return Err(SkillMdError::NamesScript(script));
    }
    let mut resources: Vec<&FolderFile> = files
        .iter()
        .filter(|f| !std::ptr::eq(*f, skill_file) && f.path.starts_with(&root))
        .collect();
    resources.sort_by(|a, b| a.path.cmp(&b.path));
    let mut content = body.trim().to_string();
    let mut references = Vec::new();
    let mut left_out = Vec::new();
    for file in resources {
        let path = file.path[root.len()..].to_string();
        if is_script(&path) {
            if body.contains(&path) {
                return Err(SkillMdError::NamesScript(path));
            }
            left_out.push(LeftOut {
                path,
                reason: LeftOutReason::Script,
            });
            continue;
        }
        let text = match &file.text {
            Some(text) if TEXT_EXTENSIONS.contains(&extension(&path).as_str()) => text,
            _ => {
                left_out.push(LeftOut {
                    path,
                    reason: LeftOutReason::Binary,
                });
                continue;
            }
        };
        let section = format!("\n\n---\n\n## Reference: {path}\n\n{}", text.trim());
        if content.chars().count() + section.chars().count() > MAX_CONTENT_CHARS {
            left_out.push(LeftOut {
                path,
                reason: LeftOutReason::TooLarge,
            });
            continue;
        }
        content.push_str(&section);
        references.push(path);
    }
    let skill = normalise(meta, &content).map_err(SkillMdError::Refused)?;
    Ok(Imported {
        skill,
        references,
        left_out,
    })
}

/// The largest skill ZIP read, in bytes.
pub const MAX_ZIP_BYTES: usize = 8 * 1024 * 1024;
/// The largest file of a skill ZIP expanded, in bytes (a larger one is listed as not
/// text, and left out).
const MAX_ZIP_ENTRY_BYTES: u64 = 1024 * 1024;

/// The files of a skill folder sent as a ZIP (stored or deflated entries; folders
/// skipped), each expanded no further than its declared size.
pub fn folder_from_zip(zip: &[u8]) -> Result<Vec<FolderFile>, SkillMdError> {
    use crate::zip_store;
    if zip.len() > MAX_ZIP_BYTES {
        return Err(SkillMdError::TooLarge);
    }
    let len = zip.len() as u64;
    let tail = &zip[zip.len() - zip_store::TAIL_BYTES.min(len) as usize..];
    let at = zip_store::find_directory(tail, len).map_err(|_| SkillMdError::Unreadable)?;
    let directory = zip
        .get(at.range.start as usize..at.range.end as usize)
        .ok_or(SkillMdError::Unreadable)?;
    let entries =
        zip_store::read_foreign_directory(directory, &at).map_err(|_| SkillMdError::Unreadable)?;
    if entries.len() > MAX_FOLDER_FILES {
        return Err(SkillMdError::TooLarge);
    }
    let mut files = Vec::new();
    for entry in entries.iter().filter(|e| !e.name.ends_with('/')) {
        if entry.name.starts_with("__MACOSX/") {
            continue;
        }
        let text = if entry.size > MAX_ZIP_ENTRY_BYTES {
            None
        } else {
            let start = entry.header_offset as usize;
            let header = zip
                .get(start..(start + zip_store::LOCAL_HEADER_BYTES as usize).min(zip.len()))
                .unwrap_or_default();
            let range =
                zip_store::data_range(entry, header).map_err(|_| SkillMdError::Unreadable)?;
            let kept = zip
                .get(range.start as usize..range.end as usize)
                .ok_or(SkillMdError::Unreadable)?;
            let bytes = zip_store::inflate(entry, kept).map_err(|_| SkillMdError::Unreadable)?;
            String::from_utf8(bytes).ok()
        };
        files.push(FolderFile {
            path: entry.name.clone(),
            text,
        });
    }
    Ok(files)
}

/// A double-quoted YAML scalar.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The `SKILL.md` of `skill`: it imports back to the same skill.
pub fn export(skill: &TextSkill) -> String {
    let meta = &skill.meta;
    let mut out = format!(
        "---\nname: {}\ndescription: {}\nmetadata:\n  title: {}\n  category: {}\n",
        meta.id,
        quoted(&meta.description),
        quoted(&meta.title),
        meta.category.code()
    );
    let lists = [
        ("tags", meta.tags.join(", ")),
        ("use-when", meta.activation.use_when.join(LIST_SEPARATOR)),
        (
            "avoid-when",
            meta.activation.avoid_when.join(LIST_SEPARATOR),
        ),
        (
            "example-queries",
            meta.activation.example_queries.join(LIST_SEPARATOR),
        ),
    ];
    for (key, value) in lists {
        if !value.is_empty() {
            out.push_str(&format!("  {key}: {}\n", quoted(&value)));
        }
    }
    out.push_str("---\n\n");
    out.push_str(&skill.content);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> FolderFile {
        FolderFile {
            path: path.into(),
            text: Some(text.into()),
        }
    }

    const PLAIN: &str = "---\nname: pdf-notes\ndescription: >\n  Turns notes into\n  tidy summaries.\nlicense: MIT\nmetadata:\n  author: someone\n  category: writing\n---\n\n# PDF notes\n\nSummarise the user's notes.\n";

    #[test]
    fn a_plain_skill_md_becomes_a_text_skill() {
        let imported = import(&[file("SKILL.md", PLAIN)]).unwrap();
        let skill = imported.skill;
        assert_eq!(skill.meta.id, "pdf-notes");
        assert_eq!(skill.meta.title, "Pdf notes");
        assert_eq!(skill.meta.description, "Turns notes into tidy summaries.");
        assert_eq!(skill.meta.category, Category::Writing);
        assert_eq!(skill.content, "# PDF notes\n\nSummarise the user's notes.");
        assert!(imported.left_out.is_empty());
    }

    #[test]
    fn references_are_appended_and_unnamed_scripts_and_binaries_reported() {
        let files = [
            file("my-skill/SKILL.md", PLAIN),
            file("my-skill/references/style.md", "Use short sentences."),
            file("my-skill/scripts/tidy.py", "print(1)"),
            FolderFile {
                path: "my-skill/assets/logo.png".into(),
                text: None,
            },
            file("elsewhere/other.md", "not part of the skill"),
        ];
        let imported = import(&files).unwrap();
        assert_eq!(imported.references, ["references/style.md"]);
        assert!(
            imported
                .skill
                .content
                .ends_with("## Reference: references/style.md\n\nUse short sentences.")
        );
        assert!(!imported.skill.content.contains("not part"));
        assert_eq!(
            imported.left_out,
            vec![
                LeftOut {
                    path: "assets/logo.png".into(),
                    reason: LeftOutReason::Binary
                },
                LeftOut {
                    path: "scripts/tidy.py".into(),
                    reason: LeftOutReason::Script
                },
            ]
        );
    }

    #[test]
    fn a_skill_that_runs_a_script_or_lists_tools_is_refused_by_its_rule() {
        let scripted = "---\nname: fill-form\ndescription: Fills PDF forms.\n---\nRun `python scripts/fill.py input.pdf` first.\n";
        let error = import(&[
            file("SKILL.md", scripted),
            file("scripts/fill.py", "import sys"),
        ])
        .unwrap_err();
        assert_eq!(error, SkillMdError::NamesScript("scripts/fill.py".into()));
        assert_eq!(error.refusal(), Some(Refusal::ScriptRequired));

        // Named but not sent along: still a script it needs.
        let lone = import(&[file("SKILL.md", scripted)]).unwrap_err();
        assert_eq!(lone, SkillMdError::NamesScript("scripts/fill.py".into()));
        // A folder merely called scripts in prose is not a script.
        let prose = "---\nname: notes\ndescription: d\n---\nKeep film scripts/treatments apart.\n";
        assert!(import(&[file("SKILL.md", prose)]).is_ok());

        let tools = "---\nname: git-helper\ndescription: Uses git.\nallowed-tools: Bash(git:*) Read\n---\nbody\n";
        assert_eq!(
            import(&[file("SKILL.md", tools)]).unwrap_err().refusal(),
            Some(Refusal::ExternalToolRequired)
        );
        let online = "---\nname: fetcher\ndescription: Looks things up.\ncompatibility: Requires internet access\n---\nbody\n";
        assert_eq!(
            import(&[file("SKILL.md", online)]).unwrap_err().refusal(),
            Some(Refusal::NetworkRequired)
        );
    }

    #[test]
    fn malformed_files_get_typed_errors() {
        assert_eq!(import(&[]), Err(SkillMdError::NoSkillFile));
        assert_eq!(
            import(&[file("SKILL.md", "# no front matter")]),
            Err(SkillMdError::NoFrontMatter)
        );
        assert_eq!(
            import(&[file("SKILL.md", "---\nname: x\n---\nbody")]),
            Err(SkillMdError::NoFrontMatter)
        );
        assert_eq!(
            import(&[file(
                "SKILL.md",
                "---\nname: Bad Name\ndescription: d\n---\nbody"
            )])
            .unwrap_err()
            .refusal(),
            Some(Refusal::BadId)
        );
        let huge = format!(
            "---\nname: x\ndescription: d\n---\n{}",
            "a".repeat(MAX_SKILL_MD_BYTES)
        );
        assert_eq!(
            import(&[file("SKILL.md", &huge)]),
            Err(SkillMdError::TooLarge)
        );
    }

    #[test]
    fn export_then_import_gives_the_same_skill() {
        let skill = TextSkill {
            meta: SkillMeta {
                id: "code-review".into(),
                title: "Code \"review\" \\ 検査".into(),
                description: "Reviews code.\nTwo lines.".into(),
                category: Category::Coding,
                tags: vec!["review".into(), "bugs".into()],
                risk: SkillRisk::default(),
                activation: Activation {
                    use_when: vec!["a diff".into(), "a PR: big".into()],
                    avoid_when: vec!["prose".into()],
                    example_queries: vec!["Review this".into()],
                },
            },
            content: "# Code review\n\n---\nNot front matter.".into(),
        };
        let text = export(&skill);
        let back = import(&[file("code-review/SKILL.md", &text)]).unwrap();
        assert_eq!(back.skill, skill);
    }

    #[test]
    fn a_zipped_folder_reads_like_its_files() {
        let zip = crate::zip_store::write_all(
            &[
                ("pdf-notes/SKILL.md", PLAIN.as_bytes()),
                ("pdf-notes/references/style.md", b"Short sentences."),
                (
                    "pdf-notes/assets/logo.png",
                    &[0x89, b'P', b'N', b'G', 0xff, 0xfe],
                ),
            ],
            crate::zip_store::DosTime::from_unix_ms(0.0),
        )
        .unwrap();
        let files = folder_from_zip(&zip).unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(files[2].text, None, "not UTF-8");
        let imported = import(&files).unwrap();
        assert_eq!(imported.references, ["references/style.md"]);
        assert_eq!(folder_from_zip(b"not a zip"), Err(SkillMdError::Unreadable));
        assert_eq!(
            folder_from_zip(&vec![0; MAX_ZIP_BYTES + 1]),
            Err(SkillMdError::TooLarge)
        );
    }

    #[test]
    fn hostile_front_matter_never_panics() {
        let pieces = [
            "---\n",
            "name:",
            " x",
            "\n",
            "description: |",
            "\n  ",
            "'",
            "\"",
            "\\",
            ">",
            "metadata:",
            "  a: b",
            "- ",
            "#",
            "\r\n",
            "題",
        ];
        let mut seed = 7u64;
        for _ in 0..3_000 {
            let mut text = String::new();
            for _ in 0..12 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            let _ = import(&[file("SKILL.md", &text)]);
        }
    }
}
