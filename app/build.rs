//! Compiles the English catalog (`locales/en.json`) into the app as its sentences alone,
//! separated by NUL, in the order of `Key` (`src/i18n/keys.rs`): the key ids are already
//! in `Key::id`, so the critical path does not carry them twice, and nothing is parsed at
//! start. The catalog tests check the result against the file.
//!
//! A sentence whose key only the settings dialog, the composer's command menu, the search
//! palette, the diagrams, MCP Apps or a reply's picture use
//! (every `Key::Name` of it is under [`LATER_DIRS`]) is left empty here: their lazily
//! loaded chunks fetch `locales/en.json` before they show
//! (`crate::i18n::load_later_english`), so those sentences are not on the first screen's
//! path.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Where the code that may use a later sentence lives.
const LATER_DIRS: [&str; 26] = [
    "src/assistants/words.rs",
    "src/conversation/comparison.rs",
    "src/conversation/merged.rs",
    "src/conversation/passage.rs",
    "src/conversation/question_card.rs",
    "src/conversation/search_block.rs",
    "src/conversation/server_question.rs",
    "src/diagram/",
    "src/knowledge/",
    "src/mcp_app/",
    "src/picture.rs",
    "src/settings/",
    "src/shell/collections.rs",
    "src/shell/commands/",
    "src/shell/compare_picker.rs",
    "src/shell/dictation.rs",
    "src/shell/search_switch.rs",
    "src/shell/shortcuts_dialog.rs",
    "src/search/palette.rs",
    "src/usage/",
    "src/voice/",
    "src/web_search/",
    "src/workspaces/placement.rs",
    "src/workspaces/placement_fallback.rs",
    "src/workspaces/switch.rs",
    "src/workspaces/words.rs",
];

fn main() {
    println!("cargo::rerun-if-changed=locales/en.json");
    println!("cargo::rerun-if-changed=src");
    let keys = std::fs::read_to_string("src/i18n/keys.rs").expect("read src/i18n/keys.rs");
    let english = std::fs::read_to_string("locales/en.json").expect("read locales/en.json");
    let english: HashMap<String, String> =
        serde_json::from_str(&english).expect("locales/en.json is a JSON object of strings");
    // `Variant => "id",` lines, in declaration order.
    let declared: Vec<(&str, &str)> = keys
        .lines()
        .filter_map(|line| {
            let (variant, rest) = line.trim().split_once(" => \"")?;
            Some((variant, rest.strip_suffix("\",")?))
        })
        .collect();
    let outside = used_outside_later_dirs(Path::new("src"));
    let sentences: Vec<&str> = declared
        .iter()
        .map(|(variant, id)| {
            if outside.contains(*variant) {
                english.get(*id).map_or("", String::as_str)
            } else {
                ""
            }
        })
        .collect();
    assert!(
        sentences.iter().all(|text| !text.contains('\0')),
        "an English sentence contains NUL"
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("en.values");
    std::fs::write(out, sentences.join("\0")).expect("write en.values");
}

/// The `Key` variants named anywhere under `dir` outside [`LATER_DIRS`] (the key list
/// itself aside).
fn used_outside_later_dirs(dir: &Path) -> HashSet<String> {
    let mut found = HashSet::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read the source tree") {
            let path = entry.expect("a source entry").path();
            let name = path.to_string_lossy().replace('\\', "/");
            if path.is_dir() {
                pending.push(path);
            } else if name.ends_with(".rs")
                && !LATER_DIRS.iter().any(|later| name.starts_with(later))
                && !name.ends_with("i18n/keys.rs")
            {
                let text = std::fs::read_to_string(&path).expect("read a source file");
                found.extend(variants_named(&text));
            }
        }
    }
    found
}

/// Every `Name` of a `Key::Name` in `text`.
fn variants_named(text: &str) -> impl Iterator<Item = String> + '_ {
    text.match_indices("Key::").map(move |(at, _)| {
        text[at + 5..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    })
}
