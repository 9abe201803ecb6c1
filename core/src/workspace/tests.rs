//! The workspace library's rules, the assembled system prompt and a workspace's scope.

use std::collections::BTreeSet;

use super::prompt::{AppliedPrompt, Instructions, PromptLevel, assemble, decode, encode};
use super::*;
use crate::attachment::Attachment;

fn draft(name: &str) -> WorkspaceDraft {
    WorkspaceDraft {
        name: name.into(),
        ..Default::default()
    }
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_workspace_is_added_changed_and_removed_with_its_times() {
    let mut library = WorkspaceLibrary::default();
    let mut d = draft("  Research  ");
    d.colour = Colour::Violet;
    d.icon = WorkspaceIcon::Book;
    d.system_prompt = "Cite sources.".into();
    d.model = Some(ModelRef {
        provider_id: "p".into(),
        model: "m".into(),
    });
    d.knowledge = vec!["k1".into(), "k1".into(), "".into(), "k2".into()];
    library.add("w1".into(), d, 10.0).unwrap();
    let w = library.get("w1").unwrap();
    assert_eq!(w.name, "Research", "the name is trimmed");
    assert_eq!(w.knowledge, ["k1", "k2"], "repeats and blanks dropped");
    assert_eq!((w.created_at, w.updated_at), (10.0, 10.0));
    assert_eq!(w.instructions(), Some("Cite sources."));

    let mut changed = w.draft();
    changed.name = "Study".into();
    changed.system_prompt = "  ".into();
    library.update("w1", changed, 20.0).unwrap();
    let w = library.get("w1").unwrap();
    assert_eq!(
        (w.name.as_str(), w.created_at, w.updated_at),
        ("Study", 10.0, 20.0)
    );
    assert_eq!(w.instructions(), None, "blank instructions are none");
    assert_eq!(w.colour, Colour::Violet, "what the draft kept stays");

    let removed = library.remove("w1").unwrap();
    assert!(library.workspaces.is_empty());
    assert_eq!(library.remove("w1"), Err(WorkspaceError::NotFound));
    library.put_back(removed.clone()).unwrap();
    assert_eq!(
        library.get("w1"),
        Some(&removed),
        "an Undo brings it back whole"
    );
    assert_eq!(
        library.update("nope", draft("x"), 1.0),
        Err(WorkspaceError::NotFound)
    );
}

#[test]
fn every_rule_refuses_and_leaves_the_library_as_it_was() {
    let mut library = WorkspaceLibrary::default();
    library.add("w1".into(), draft("Work"), 1.0).unwrap();
    let before = library.clone();
    let long = "x".repeat(MAX_NAME_CHARS + 1);
    let cases: Vec<(WorkspaceDraft, WorkspaceError)> = vec![
        (draft(""), WorkspaceError::BadName),
        (draft("   "), WorkspaceError::BadName),
        (draft(&long), WorkspaceError::BadName),
        (draft("WORK"), WorkspaceError::NameTaken("WORK".into())),
        (
            WorkspaceDraft {
                system_prompt: "p".repeat(MAX_SYSTEM_PROMPT_CHARS + 1),
                ..draft("Long")
            },
            WorkspaceError::PromptTooLong(MAX_SYSTEM_PROMPT_CHARS + 1),
        ),
        (
            WorkspaceDraft {
                plugins: Some((0..=MAX_NAMED).map(|i| format!("p{i}")).collect()),
                ..draft("Tools")
            },
            WorkspaceError::TooManyNamed,
        ),
        (
            WorkspaceDraft {
                skills: Some(
                    (0..=crate::skill::library::MAX_ACTIVE)
                        .map(|i| format!("s{i}"))
                        .collect(),
                ),
                ..draft("Skills")
            },
            WorkspaceError::TooManyNamed,
        ),
        (
            WorkspaceDraft {
                knowledge: (0..=crate::knowledge::MAX_ATTACHED)
                    .map(|i| format!("k{i}"))
                    .collect(),
                ..draft("Knowledge")
            },
            WorkspaceError::TooManyNamed,
        ),
    ];
    for (d, error) in cases {
        assert_eq!(library.add("w2".into(), d.clone(), 2.0), Err(error.clone()));
        // Its own name, in other letters, is not taken by itself.
        if !matches!(error, WorkspaceError::NameTaken(_)) {
            assert_eq!(library.update("w1", d, 2.0), Err(error.clone()));
        }
        assert_eq!(library, before, "{error:?} changed the library");
    }
    library.update("w1", draft("WORK"), 3.0).unwrap();
    library.add("w2".into(), draft("Play"), 3.0).unwrap();
    assert_eq!(
        library.update("w2", draft("work"), 4.0),
        Err(WorkspaceError::NameTaken("work".into()))
    );
    let mut full = WorkspaceLibrary::default();
    for i in 0..MAX_WORKSPACES {
        full.add(format!("w{i}"), draft(&format!("W{i}")), 1.0)
            .unwrap();
    }
    assert_eq!(
        full.add("x".into(), draft("X"), 1.0),
        Err(WorkspaceError::TooMany)
    );
    let spare = full.remove("w0").unwrap();
    full.add("y".into(), draft("Y"), 1.0).unwrap();
    assert_eq!(full.put_back(spare), Err(WorkspaceError::TooMany));
}

#[test]
fn a_model_without_a_provider_or_id_is_no_default() {
    let mut library = WorkspaceLibrary::default();
    let d = WorkspaceDraft {
        model: Some(ModelRef {
            provider_id: "p".into(),
            model: String::new(),
        }),
        ..draft("A")
    };
    library.add("a".into(), d, 1.0).unwrap();
    assert_eq!(library.get("a").unwrap().model, None);
}

#[test]
fn a_stored_record_is_repaired_and_an_older_one_reads() {
    let stored = serde_json::json!({"workspaces": [
        {"id": "a", "name": " Alpha ", "createdAt": 5.0, "updatedAt": 6.0, "knowledge": ["k", "k"]},
        {"id": "a", "name": "Again"},
        {"id": "b", "name": "ALPHA"},
        {"id": "", "name": "No id"},
        {"id": "c", "name": ""},
        {"id": "d", "name": "Delta", "systemPrompt": "x".repeat(MAX_SYSTEM_PROMPT_CHARS + 1)},
        {"id": "e", "name": "Echo", "colour": "green", "icon": "code", "plugins": ["", "t"]}
    ]});
    let library: WorkspaceLibrary = serde_json::from_value(stored).unwrap();
    let (repaired, dropped) = library.repaired();
    assert_eq!(dropped, 5);
    let names: Vec<_> = repaired
        .workspaces
        .iter()
        .map(|w| w.name.as_str())
        .collect();
    assert_eq!(names, ["Alpha", "Echo"]);
    let alpha = repaired.get("a").unwrap();
    assert_eq!((alpha.created_at, alpha.updated_at), (5.0, 6.0));
    assert_eq!(alpha.knowledge, ["k"]);
    let echo = repaired.get("e").unwrap();
    assert_eq!(
        (echo.colour, echo.icon),
        (Colour::Green, WorkspaceIcon::Code)
    );
    assert_eq!(echo.plugins, Some(set(&["t"])));
    // What is not set is not written, and reads back as not set.
    let text = serde_json::to_string(alpha).unwrap();
    for absent in ["model", "plugins", "skills"] {
        assert!(!text.contains(absent), "{text}");
    }
    let back: Workspace = serde_json::from_str(&text).unwrap();
    assert_eq!(&back, alpha);
}

#[test]
fn an_import_adds_only_what_is_not_here() {
    let mut here = WorkspaceLibrary::default();
    here.add("a".into(), draft("Alpha"), 1.0).unwrap();
    let mut other = WorkspaceLibrary::default();
    other.add("a".into(), draft("Other alpha"), 1.0).unwrap();
    other.add("b".into(), draft("alpha"), 1.0).unwrap();
    other.add("c".into(), draft("Gamma"), 1.0).unwrap();
    other.workspaces.push(Workspace {
        id: "d".into(),
        ..Default::default()
    });
    assert_eq!(here.merge(other.clone()), 1);
    let names: Vec<_> = here.workspaces.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["Alpha", "Gamma"], "this browser's copy wins");
    assert_eq!(here.merge(other), 0, "a second import adds nothing");
}

#[test]
fn one_set_of_instructions_is_sent_as_written() {
    assert_eq!(assemble(Instructions::default()), Default::default());
    let global = assemble(Instructions {
        global: Some("Be brief."),
        ..Default::default()
    });
    assert_eq!(global.system.as_deref(), Some("Be brief."));
    assert_eq!(
        global.applied,
        [AppliedPrompt {
            level: PromptLevel::Global,
            name: None
        }]
    );
    let workspace = assemble(Instructions {
        global: Some("  \n"),
        workspace: Some(("  Cite sources. ", "Research")),
        conversation: Some(""),
        ..Default::default()
    });
    assert_eq!(workspace.system.as_deref(), Some("Cite sources."));
    assert_eq!(
        workspace.applied,
        [AppliedPrompt {
            level: PromptLevel::Workspace,
            name: Some("Research".into())
        }]
    );
}

#[test]
fn the_more_particular_instructions_come_later_and_take_precedence() {
    let all = assemble(Instructions {
        global: Some("Be brief."),
        workspace: Some(("Answer in French.", "Paris")),
        conversation: Some("Answer in German."),
        ..Default::default()
    });
    let system = all.system.unwrap();
    let (g, w, c) = (
        system.find("Be brief.").unwrap(),
        system.find("Answer in French.").unwrap(),
        system.find("Answer in German.").unwrap(),
    );
    assert!(g < w && w < c, "{system}");
    assert!(
        system.starts_with("Be brief.\n\nInstructions for this workspace"),
        "{system}"
    );
    assert!(
        system.contains("Instructions for this conversation"),
        "{system}"
    );
    assert_eq!(system.matches("take precedence").count(), 2, "{system}");
    let levels: Vec<_> = all.applied.iter().map(|a| a.level).collect();
    assert_eq!(
        levels,
        [
            PromptLevel::Global,
            PromptLevel::Workspace,
            PromptLevel::Conversation
        ]
    );
    // Without the user's, the workspace's are first and need no heading.
    let two = assemble(Instructions {
        workspace: Some(("Answer in French.", "Paris")),
        conversation: Some("Answer in German."),
        ..Default::default()
    })
    .system
    .unwrap();
    assert!(
        two.starts_with("Answer in French.\n\nInstructions for this conversation"),
        "{two}"
    );
}

#[test]
fn a_repeat_is_left_out_whatever_its_spacing() {
    let repeated = assemble(Instructions {
        global: Some("Be  brief.\nAlways."),
        workspace: Some(("Be brief. Always.", "W")),
        conversation: Some(" Be brief.   Always. "),
        ..Default::default()
    });
    assert_eq!(repeated.system.as_deref(), Some("Be  brief.\nAlways."));
    assert_eq!(repeated.applied.len(), 1);
    let partly = assemble(Instructions {
        global: Some("A"),
        workspace: Some(("B", "W")),
        conversation: Some("B"),
        ..Default::default()
    });
    assert_eq!(partly.applied.len(), 2);
    assert!(!partly.system.unwrap().contains("this conversation"));
}

#[test]
fn what_applied_is_kept_as_text_and_read_back() {
    let applied = assemble(Instructions {
        global: Some("A"),
        workspace: Some(("B", "Work")),
        conversation: Some("C"),
        ..Default::default()
    })
    .applied;
    let text = encode(&applied).unwrap();
    assert_eq!(decode(Some(&text)), applied);
    assert_eq!(encode(&[]), None);
    assert!(decode(None).is_empty());
    assert!(decode(Some("not json")).is_empty());
}

#[test]
fn a_workspace_that_names_its_tools_offers_only_those() {
    use crate::plugin::selection::ToolPreferences;
    let mut prefs = ToolPreferences::default();
    prefs.set_plugin("web", false);
    prefs.set_function("files", "delete", false);
    let ids = ["web", "files", "mail"];
    let unchanged = scope::tool_preferences(&prefs, scope::limits(None, None), ids);
    assert_eq!(unchanged, prefs);
    let open = Workspace::default();
    assert_eq!(
        scope::tool_preferences(&prefs, scope::limits(None, Some(&open)), ids),
        prefs
    );
    let named = Workspace {
        plugins: Some(set(&["web", "files"])),
        ..Default::default()
    };
    let scoped = scope::tool_preferences(&prefs, scope::limits(None, Some(&named)), ids);
    assert_eq!(scoped.plugins.get("web"), Some(&true), "named turns on");
    assert_eq!(scoped.plugins.get("files"), Some(&true));
    assert_eq!(
        scoped.plugins.get("mail"),
        Some(&false),
        "unnamed turns off"
    );
    assert!(
        !scoped.function_on("files", "delete"),
        "function switches stay"
    );
    assert_eq!(scoped.confirm, prefs.confirm);
}

#[test]
fn a_workspace_that_names_its_skills_applies_only_installed_ones() {
    use crate::skill::{InstalledSkill, SkillLibrary};
    let skill = |id: &str| {
        let mut s = InstalledSkill::default();
        s.skill.meta.id = id.into();
        s
    };
    let library = SkillLibrary {
        installed: vec![skill("a"), skill("b"), skill("c")],
        active: vec!["a".into()],
        auto_select: true,
    };
    let ids = |skills: Vec<&InstalledSkill>| -> Vec<String> {
        skills.iter().map(|s| s.id().to_string()).collect()
    };
    assert_eq!(
        ids(scope::active_skills(&library, scope::limits(None, None))),
        ["a"]
    );
    let named = Workspace {
        skills: Some(set(&["c", "b", "not-installed"])),
        ..Default::default()
    };
    assert_eq!(
        ids(scope::active_skills(
            &library,
            scope::limits(None, Some(&named))
        )),
        ["b", "c"],
        "installed ones, in installed order"
    );
    let none = Workspace {
        skills: Some(BTreeSet::new()),
        ..Default::default()
    };
    assert!(scope::active_skills(&library, scope::limits(None, Some(&none))).is_empty());
    // Auto-selection stays the user's: the model chooses among the workspace's.
    let scoped = scope::active_skills(&library, scope::limits(None, Some(&named)));
    assert!(matches!(
        crate::skill::turn::plan_of(scoped, &library, true),
        crate::skill::turn::SkillPlan::Choose(c) if c.len() == 2
    ));
}

#[test]
fn a_turn_searches_the_workspaces_collections_then_its_own() {
    let w = Workspace {
        knowledge: vec!["k1".into(), "k2".into()],
        ..Default::default()
    };
    let own = vec!["k2".to_string(), "k3".to_string()];
    assert_eq!(scope::collections(Some(&w), &own), ["k1", "k2", "k3"]);
    assert_eq!(scope::collections(None, &own), ["k2", "k3"]);
}

#[test]
fn an_assistant_that_names_its_tools_or_skills_wins_over_the_workspace() {
    use crate::assistant::Assistant;
    let workspace = Workspace {
        plugins: Some(set(&["web"])),
        skills: Some(set(&["a"])),
        ..Default::default()
    };
    let tools_only = Assistant {
        plugins: Some(set(&["files"])),
        ..Default::default()
    };
    let limits = scope::limits(Some(&tools_only), Some(&workspace));
    assert_eq!(
        limits.plugins,
        Some(&set(&["files"])),
        "the assistant's tools"
    );
    assert_eq!(limits.skills, Some(&set(&["a"])), "the workspace's skills");
    let neither = Assistant::default();
    assert_eq!(
        scope::limits(Some(&neither), Some(&workspace)),
        scope::limits(None, Some(&workspace))
    );
    assert_eq!(
        scope::limits(Some(&neither), None),
        scope::Limits::default()
    );
    let no_skills = Assistant {
        skills: Some(BTreeSet::new()),
        ..Default::default()
    };
    assert_eq!(
        scope::limits(Some(&no_skills), Some(&workspace)).skills,
        Some(&BTreeSet::new()),
        "an assistant that names no skills applies none"
    );
}

#[test]
fn a_conversations_instructions_are_named_after_its_assistant_while_they_are_its_own() {
    let started = assemble(Instructions {
        global: Some("Be brief."),
        conversation: Some("You are a tutor.\n"),
        assistant: Some(("You are  a tutor.", "Tutor")),
        ..Default::default()
    });
    assert_eq!(
        started.applied[1],
        AppliedPrompt {
            level: PromptLevel::Conversation,
            name: Some("Tutor".into())
        }
    );
    let edited = assemble(Instructions {
        conversation: Some("You are a strict tutor."),
        assistant: Some(("You are a tutor.", "Tutor")),
        ..Default::default()
    });
    assert_eq!(edited.applied[0].name, None, "no longer the assistant's");
    let cleared = assemble(Instructions {
        conversation: Some(" "),
        assistant: Some(("You are a tutor.", "Tutor")),
        ..Default::default()
    });
    assert!(cleared.applied.is_empty());
}

fn file(id: &str, kind: crate::filetype::FileKind, size: u64) -> Attachment {
    Attachment::test_file(id, kind, size)
}

#[test]
fn a_workspaces_files_are_documents_within_their_bounds() {
    use crate::filetype::FileKind::{Markdown, Pdf, Png, Text};
    use files::{MAX_FILES, MAX_TOTAL_BYTES};
    let mut library = WorkspaceLibrary::default();
    let mut d = draft("Docs");
    d.files = vec![
        file("a1", Text, 10),
        file("a1", Text, 10),
        file("p1", Png, 10),
        file("../x", Text, 10),
        file("b.md", Markdown, 10),
        file("c2", Pdf, 20),
    ];
    library.add("w1".into(), d, 1.0).unwrap();
    let ids: Vec<&str> = library.workspaces[0]
        .files
        .iter()
        .map(|f| f.id.as_str())
        .collect();
    assert_eq!(
        ids,
        ["a1", "c2"],
        "repeats, images and ids that cannot name a stored file are not kept"
    );

    let mut many = draft("Many");
    many.files = (0..=MAX_FILES)
        .map(|i| file(&format!("f{i}"), Text, 1))
        .collect();
    assert_eq!(
        library.add("w2".into(), many.clone(), 1.0),
        Err(WorkspaceError::TooManyFiles)
    );
    many.files.pop();
    library.add("w2".into(), many, 1.0).unwrap();

    let mut heavy = draft("Heavy");
    heavy.files = vec![
        file("h1", Pdf, MAX_TOTAL_BYTES / 2),
        file("h2", Pdf, MAX_TOTAL_BYTES / 2 + 1),
    ];
    let before = library.clone();
    assert_eq!(
        library.add("w3".into(), heavy, 1.0),
        Err(WorkspaceError::TooManyFiles)
    );
    assert_eq!(library, before, "a refused change changes nothing");
}

#[test]
fn a_stored_workspace_over_its_file_bounds_is_mended_not_dropped() {
    use crate::filetype::FileKind::Text;
    let mut workspace = Workspace {
        id: "w1".into(),
        name: "Crowded".into(),
        ..Default::default()
    };
    workspace.files = (0..30).map(|i| file(&format!("f{i}"), Text, 1)).collect();
    workspace
        .files
        .push(file("huge", Text, files::MAX_TOTAL_BYTES));
    let (library, dropped) = WorkspaceLibrary {
        workspaces: vec![workspace],
    }
    .repaired();
    assert_eq!(dropped, 0);
    let kept = &library.workspaces[0].files;
    assert_eq!(kept.len(), files::MAX_FILES);
    assert_eq!(kept[0].id, "f0", "the first ones are kept");
    assert!(kept.iter().all(|f| f.id != "huge"));
}

#[test]
fn a_workspace_is_found_by_its_files_names() {
    let mut workspace = Workspace {
        id: "w1".into(),
        name: "Legal".into(),
        system_prompt: "Be precise.".into(),
        ..Default::default()
    };
    workspace
        .files
        .push(file("contract", crate::filetype::FileKind::Pdf, 1));
    let document = workspace.search_document();
    assert!(document.body.contains("Be precise."));
    assert!(document.body.contains("contract.txt"));
}
