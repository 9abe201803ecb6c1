//! Compiles the English catalog (`locales/en.json`) into the app as its sentences alone,
//! separated by NUL, in the order of `Key` (`src/i18n/keys.rs`): the key ids are already
//! in `Key::id`, so the critical path does not carry them twice, and nothing is parsed at
//! start. The catalog tests check the result against the file.

use std::collections::HashMap;
use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=locales/en.json");
    println!("cargo::rerun-if-changed=src/i18n/keys.rs");
    let keys = std::fs::read_to_string("src/i18n/keys.rs").expect("read src/i18n/keys.rs");
    let english = std::fs::read_to_string("locales/en.json").expect("read locales/en.json");
    let english: HashMap<String, String> =
        serde_json::from_str(&english).expect("locales/en.json is a JSON object of strings");
    // `Variant => "id",` lines, in declaration order.
    let sentences: Vec<&str> = keys
        .lines()
        .filter_map(|line| line.trim().split_once(" => \"")?.1.strip_suffix("\","))
        .map(|id| english.get(id).map_or("", String::as_str))
        .collect();
    assert!(
        sentences.iter().all(|text| !text.contains('\0')),
        "an English sentence contains NUL"
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("en.values");
    std::fs::write(out, sentences.join("\0")).expect("write en.values");
}
