use std::collections::BTreeSet;

use super::catalog::{CatalogError, SCHEMA_VERSION, read_catalog};
use super::*;

fn draft(name: &str) -> AssistantDraft {
    AssistantDraft {
        name: name.to_string(),
        prompt: format!("You are {name}."),
        ..Default::default()
    }
}

fn model(provider: &str, model: &str) -> ModelRef {
    ModelRef {
        provider_id: provider.to_string(),
        model: model.to_string(),
    }
}

#[test]
fn an_assistant_of_the_users_own_is_checked_and_mended() {
    let mut library = AssistantLibrary::default();
    let mut d = draft("  Editor  ");
    d.emoji = " ✍️ ".to_string();
    d.plugins = Some(BTreeSet::from([
        String::new(),
        "builtin:web-reader".to_string(),
    ]));
    d.model = Some(model("", "gpt"));
    library.add("a1".to_string(), d, 5.0).unwrap();
    let kept = library.get("a1").unwrap();
    assert_eq!(kept.name, "Editor");
    assert_eq!(kept.emoji, "✍️");
    assert_eq!(
        kept.plugins,
        Some(BTreeSet::from(["builtin:web-reader".to_string()]))
    );
    assert_eq!(kept.model, None, "a model without its provider is no model");
    assert!(!kept.builtin);
    assert_eq!(kept.updated_at, 5.0);
}

#[test]
fn every_broken_rule_is_refused_with_its_own_error_and_changes_nothing() {
    let mut library = AssistantLibrary::default();
    library.add("a1".to_string(), draft("One"), 1.0).unwrap();
    let before = library.clone();
    let long = |n: usize| "x".repeat(n);
    let cases: Vec<(String, AssistantDraft, AssistantError)> = vec![
        ("a2".into(), draft(" "), AssistantError::BadName),
        (
            "a2".into(),
            draft(&long(MAX_NAME_CHARS + 1)),
            AssistantError::BadName,
        ),
        (
            "a2".into(),
            AssistantDraft {
                prompt: "  \n".into(),
                ..draft("Two")
            },
            AssistantError::BadPrompt(3),
        ),
        (
            "a2".into(),
            AssistantDraft {
                prompt: long(MAX_SYSTEM_PROMPT_CHARS + 1),
                ..draft("Two")
            },
            AssistantError::BadPrompt(MAX_SYSTEM_PROMPT_CHARS + 1),
        ),
        (
            "a2".into(),
            AssistantDraft {
                opening: long(MAX_OPENING_CHARS + 1),
                ..draft("Two")
            },
            AssistantError::TooLong,
        ),
        (
            "a2".into(),
            AssistantDraft {
                description: long(MAX_DESCRIPTION_CHARS + 1),
                ..draft("Two")
            },
            AssistantError::TooLong,
        ),
        (
            "a2".into(),
            AssistantDraft {
                emoji: long(MAX_EMOJI_CHARS + 1),
                ..draft("Two")
            },
            AssistantError::TooLong,
        ),
        (
            "a2".into(),
            AssistantDraft {
                skills: Some(
                    (0..=crate::skill::library::MAX_ACTIVE)
                        .map(|i| format!("s{i}"))
                        .collect(),
                ),
                ..draft("Two")
            },
            AssistantError::TooManyNamed,
        ),
        (
            "a2".into(),
            AssistantDraft {
                plugins: Some((0..=MAX_NAMED).map(|i| format!("p{i}")).collect()),
                ..draft("Two")
            },
            AssistantError::TooManyNamed,
        ),
        ("a1".into(), draft("Two"), AssistantError::BadId),
        ("a 2".into(), draft("Two"), AssistantError::BadId),
        (String::new(), draft("Two"), AssistantError::BadId),
    ];
    for (id, d, error) in cases {
        assert_eq!(library.add(id.clone(), d, 2.0), Err(error), "{id}");
        assert_eq!(library, before);
    }
    assert_eq!(
        library.update("nope", draft("Two"), 2.0),
        Err(AssistantError::NotFound)
    );
    assert_eq!(library.remove("nope"), Err(AssistantError::NotFound));
    assert_eq!(library, before);
}

#[test]
fn the_users_own_are_bounded() {
    let mut library = AssistantLibrary::default();
    for i in 0..MAX_CUSTOM {
        library
            .add(format!("a{i}"), draft(&format!("A{i}")), 0.0)
            .unwrap();
    }
    assert_eq!(
        library.add("one-more".into(), draft("More"), 0.0),
        Err(AssistantError::TooMany)
    );
    let removed = library.remove("a0").unwrap();
    assert_eq!(library.custom.len(), MAX_CUSTOM - 1);
    library.put_back(removed.clone()).unwrap();
    assert_eq!(library.put_back(removed), Err(AssistantError::TooMany));
}

#[test]
fn a_used_assistant_goes_first_among_the_recent_ones_once_and_the_oldest_go() {
    let mut library = AssistantLibrary::default();
    let builtin = |i: usize| Assistant {
        id: format!("b{i}"),
        name: format!("B{i}"),
        prompt: "Be brief.".into(),
        builtin: true,
        ..Default::default()
    };
    for i in 0..MAX_RECENT + 5 {
        library.used(&builtin(i), i as f64).unwrap();
    }
    assert_eq!(library.recent.len(), MAX_RECENT);
    assert_eq!(library.recent[0].id, format!("b{}", MAX_RECENT + 4));
    assert!(library.get("b0").is_none(), "the oldest went");
    library.used(&builtin(30), 100.0).unwrap();
    assert_eq!(library.recent[0].id, "b30");
    assert_eq!(library.recent[0].updated_at, 100.0);
    assert_eq!(library.recent.iter().filter(|a| a.id == "b30").count(), 1);
    assert_eq!(library.recent.len(), MAX_RECENT);
    // A copy is what a conversation started with it finds at reply time.
    assert_eq!(library.get("b30").unwrap().prompt, "Be brief.");
    assert!(library.get("b30").unwrap().builtin);
}

#[test]
fn the_users_own_wins_over_a_recent_copy_and_a_change_reaches_the_copy() {
    let mut library = AssistantLibrary::default();
    library.add("mine".into(), draft("Mine"), 1.0).unwrap();
    let mine = library.get("mine").unwrap().clone();
    library.used(&mine, 2.0).unwrap();
    library
        .update(
            "mine",
            AssistantDraft {
                prompt: "Changed.".into(),
                ..draft("Mine")
            },
            3.0,
        )
        .unwrap();
    assert_eq!(library.get("mine").unwrap().prompt, "Changed.");
    assert_eq!(library.recent[0].prompt, "Changed.");
    assert_eq!(library.recent[0].updated_at, 2.0, "when it was used stays");
    library.remove("mine").unwrap();
    assert!(library.get("mine").is_none());
    assert!(library.recent.is_empty());
}

#[test]
fn a_stored_library_loses_only_what_breaks_a_rule() {
    let good = Assistant {
        id: "good".into(),
        name: "Good".into(),
        prompt: "Fine.".into(),
        ..Default::default()
    };
    let library = AssistantLibrary {
        custom: vec![
            good.clone(),
            Assistant {
                name: "Twin".into(),
                ..good.clone()
            },
            Assistant {
                id: "no-prompt".into(),
                prompt: String::new(),
                ..good.clone()
            },
            Assistant {
                id: "posing".into(),
                builtin: true,
                ..good.clone()
            },
        ],
        recent: vec![
            Assistant {
                id: "bad id!".into(),
                ..good.clone()
            },
            good.clone(),
        ],
    };
    let (repaired, dropped) = library.repaired();
    assert_eq!(dropped, 3);
    assert_eq!(
        repaired
            .custom
            .iter()
            .map(|a| &a.id[..])
            .collect::<Vec<_>>(),
        ["good", "posing"]
    );
    assert!(
        !repaired.custom[1].builtin,
        "the user's own are never built in"
    );
    assert_eq!(repaired.recent.len(), 1);
}

#[test]
fn an_import_adds_what_is_new_and_keeps_the_bounds() {
    let mut here = AssistantLibrary::default();
    here.add("same".into(), draft("Here"), 1.0).unwrap();
    let mut other = AssistantLibrary::default();
    other.add("same".into(), draft("There"), 1.0).unwrap();
    other.add("new".into(), draft("New"), 1.0).unwrap();
    let new = other.get("new").unwrap().clone();
    other.used(&new, 2.0).unwrap();
    assert_eq!(here.merge(other.clone()), 1);
    assert_eq!(here.get("same").unwrap().name, "Here");
    assert_eq!(here.get("new").unwrap().name, "New");
    assert_eq!(here.recent.len(), 1);
    assert_eq!(here.merge(other), 0, "a second import adds nothing");
    assert_eq!(here.recent.len(), 1);
}

fn catalogue(entries: serde_json::Value) -> String {
    serde_json::json!({
        "schemaVersion": SCHEMA_VERSION,
        "locale": "en",
        "assistants": entries,
    })
    .to_string()
}

#[test]
fn a_catalogue_keeps_good_entries_marks_them_built_in_and_drops_the_rest() {
    let text = catalogue(serde_json::json!([
        { "id": "tutor", "name": "Tutor", "prompt": "Teach.", "skills": ["study-plan"],
          "model": { "providerId": "p", "model": "m" } },
        { "id": "tutor", "name": "Twin", "prompt": "Again." },
        { "id": "no-prompt", "name": "Nothing" },
        { "id": "bad id", "name": "Bad", "prompt": "x" },
    ]));
    let read = read_catalog(&text).unwrap();
    assert_eq!(read.catalog.assistants.len(), 1);
    let tutor = &read.catalog.assistants[0];
    assert!(tutor.builtin);
    assert_eq!(
        tutor.model, None,
        "a catalogue cannot choose the user's model"
    );
    assert_eq!(
        tutor.skills,
        Some(BTreeSet::from(["study-plan".to_string()]))
    );
    assert_eq!(read.dropped, ["tutor", "no-prompt", "bad id"]);
}

#[test]
fn a_catalogue_that_cannot_be_read_says_why() {
    assert!(matches!(
        read_catalog("{\"schemaVersion\": 3"),
        Err(CatalogError::Malformed(_))
    ));
    assert_eq!(
        read_catalog(&serde_json::json!({"schemaVersion": "skills-v1"}).to_string()),
        Err(CatalogError::Schema("skills-v1".into()))
    );
    let many: Vec<_> = (0..=catalog::MAX_CATALOG_ASSISTANTS)
        .map(|i| serde_json::json!({"id": format!("a{i}"), "name": "A", "prompt": "x"}))
        .collect();
    assert_eq!(
        read_catalog(&catalogue(serde_json::Value::Array(many))),
        Err(CatalogError::TooMany)
    );
    let huge = " ".repeat(catalog::MAX_CATALOG_BYTES + 1);
    assert_eq!(read_catalog(&huge), Err(CatalogError::TooLarge));
}

/// The shipped catalogues: each reads with nothing dropped, and the three locales hold
/// the same assistants, naming the same tools and skills.
#[test]
fn the_shipped_catalogues_read_whole_and_hold_the_same_assistants() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../public/data/assistants");
    let read = |locale: &str| {
        let text = std::fs::read_to_string(format!("{root}/{locale}.json")).unwrap();
        let read = read_catalog(&text).unwrap();
        assert!(read.dropped.is_empty(), "{locale}: {:?}", read.dropped);
        assert_eq!(read.catalog.locale, locale);
        read.catalog
    };
    let en = read("en");
    assert!(en.assistants.len() >= 8, "a small built-in set");
    let shape = |c: &catalog::Catalog| {
        c.assistants
            .iter()
            .map(|a| (a.id.clone(), a.skills.clone(), a.plugins.clone()))
            .collect::<Vec<_>>()
    };
    for locale in ["zh-CN", "ja"] {
        let other = read(locale);
        assert_eq!(shape(&other), shape(&en), "{locale}");
        for (a, b) in other.assistants.iter().zip(&en.assistants) {
            assert_ne!(a.name, b.name, "{locale}: {} is not translated", a.id);
            assert!(
                !a.opening.is_empty() && !a.description.is_empty(),
                "{}",
                a.id
            );
        }
    }
    // Every skill an assistant names is a shipped built-in skill.
    let skills = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../public/data/skills/en/catalog.json"
    ))
    .unwrap();
    let skills = crate::skill::catalog::read_catalog(&skills)
        .unwrap()
        .catalog;
    for assistant in &en.assistants {
        for id in assistant.skills.iter().flatten() {
            assert!(
                skills.skills.iter().any(|s| &s.id == id),
                "{}: no built-in skill {id}",
                assistant.id
            );
        }
    }
}
