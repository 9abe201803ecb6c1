use super::retrieve::{
    FileText, KnowledgeIndex, context_items, fingerprint, in_scope, passage_text,
};
use super::*;
use crate::filetype::FileKind;

fn draft(name: &str) -> CollectionDraft {
    CollectionDraft {
        name: name.into(),
        description: String::new(),
        colour: Colour::Green,
    }
}

fn library_with(names: &[&str]) -> KnowledgeLibrary {
    let mut library = KnowledgeLibrary::default();
    for (i, name) in names.iter().enumerate() {
        library.create(format!("c{i}"), &draft(name), 1.0).unwrap();
    }
    library
}

fn ready_file(library: &mut KnowledgeLibrary, collection: &str, id: &str, name: &str) {
    library
        .add_file(collection, id.into(), name, 10, 2.0)
        .unwrap();
    let source = transfer::KnowledgePath::new(collection, id, transfer::Part::Source).path();
    library
        .change_file(collection, id, |f| {
            f.kind = Some(FileKind::Markdown);
            f.source_path = source;
            f.content_path = f.source_path.clone();
            f.stage = Stage::Ready;
        })
        .unwrap();
}

#[test]
fn a_collection_needs_a_unique_bounded_name_and_nothing_changes_when_refused() {
    let mut library = library_with(&["Research"]);
    let before = library.clone();
    for (name, error) in [
        ("  ", KnowledgeError::EmptyName),
        ("rESEARCH", KnowledgeError::DuplicateName),
    ] {
        assert_eq!(library.create("x".into(), &draft(name), 1.0), Err(error));
    }
    let long = "n".repeat(MAX_NAME_CHARS + 1);
    assert_eq!(
        library.create("x".into(), &draft(&long), 1.0),
        Err(KnowledgeError::NameTooLong)
    );
    let mut wordy = draft("Fine");
    wordy.description = "d".repeat(MAX_DESCRIPTION_CHARS + 1);
    assert_eq!(
        library.create("x".into(), &wordy, 1.0),
        Err(KnowledgeError::DescriptionTooLong)
    );
    assert_eq!(library, before);
    library
        .create("c9".into(), &draft("  Team   notes "), 1.0)
        .unwrap();
    assert_eq!(library.collection("c9").unwrap().name, "Team notes");
    // Renaming to its own name (another case) is fine; to another's is not.
    library.update("c9", &draft("TEAM notes")).unwrap();
    assert_eq!(
        library.update("c9", &draft("research")),
        Err(KnowledgeError::DuplicateName)
    );
    assert_eq!(
        library.update("gone", &draft("x")),
        Err(KnowledgeError::NoCollection)
    );
    let removed = library.delete("c0").unwrap();
    assert_eq!(removed.folder(), "knowledge/c0");
    assert_eq!(library.delete("c0"), Err(KnowledgeError::NoCollection));
}

#[test]
fn collections_and_files_are_bounded() {
    let mut library = KnowledgeLibrary::default();
    for i in 0..MAX_COLLECTIONS {
        library
            .create(format!("c{i}"), &draft(&format!("n{i}")), 1.0)
            .unwrap();
    }
    assert_eq!(
        library.create("more".into(), &draft("more"), 1.0),
        Err(KnowledgeError::TooManyCollections)
    );
    for i in 0..MAX_FILES {
        library
            .add_file("c0", format!("f{i}"), "a.md", 1, 1.0)
            .unwrap();
    }
    assert_eq!(
        library.add_file("c0", "over".into(), "a.md", 1, 1.0),
        Err(KnowledgeError::TooManyFiles)
    );
    assert_eq!(
        library.add_file("nope", "f".into(), "a.md", 1, 1.0),
        Err(KnowledgeError::NoCollection)
    );
    assert_eq!(
        KnowledgeError::TooManyFiles.code(),
        "knowledge_too_many_files"
    );
}

#[test]
fn cancelling_removes_the_record_and_says_which_paths_it_alone_held() {
    let mut library = library_with(&["A"]);
    ready_file(&mut library, "c0", "f1", "one.md");
    library
        .add_file("c0", "f2".into(), "two.pdf", 10, 3.0)
        .unwrap();
    library
        .change_file("c0", "f2", |f| {
            f.source_path = "knowledge/c0/f2/source".into();
            f.stage = Stage::Parse;
        })
        .unwrap();
    let gone = library.cancel("c0", "f2").unwrap();
    assert_eq!(
        gone.paths().collect::<Vec<_>>(),
        vec!["knowledge/c0/f2/source"]
    );
    assert!(!library.refers_to("knowledge/c0/f2/source"));
    assert!(library.refers_to("knowledge/c0/f1/source"));
    assert_eq!(library.cancel("c0", "f2"), Err(KnowledgeError::NoFile));
    assert_eq!(library.collection("c0").unwrap().files.len(), 1);
}

#[test]
fn a_retry_runs_the_failed_stage_again_from_what_is_stored() {
    let mut library = library_with(&["A"]);
    library
        .add_file("c0", "f".into(), "a.pdf", 10, 1.0)
        .unwrap();
    let fail = |library: &mut KnowledgeLibrary, stage: Stage, source: &str, content: &str| {
        library
            .change_file("c0", "f", |f| {
                f.stage = stage;
                f.source_path = source.into();
                f.content_path = content.into();
                f.failure = Some(Failure {
                    stage,
                    code: "x".into(),
                    detail: None,
                });
            })
            .unwrap();
    };
    // An upload that failed left no original: the file must be added again.
    fail(&mut library, Stage::Upload, "", "");
    let before = library.clone();
    assert_eq!(library.retry("c0", "f"), Err(KnowledgeError::NotRetryable));
    assert_eq!(library, before);
    fail(&mut library, Stage::Parse, "s", "");
    assert_eq!(library.retry("c0", "f"), Ok(Stage::Parse));
    let file = library.collection("c0").unwrap().file("f").unwrap().clone();
    assert!(file.failure.is_none() && file.in_flight());
    // The saved source is kept: only the stage runs again.
    assert_eq!(file.source_path, "s");
    fail(&mut library, Stage::Index, "s", "c");
    assert_eq!(library.retry("c0", "f"), Ok(Stage::Index));
    // An index failure without stored text parses again from the original.
    fail(&mut library, Stage::Index, "s", "");
    assert_eq!(library.retry("c0", "f"), Ok(Stage::Parse));
    fail(&mut library, Stage::Parse, "", "");
    assert_eq!(library.retry("c0", "f"), Err(KnowledgeError::NotRetryable));
}

#[test]
fn an_edited_text_is_a_new_version_at_its_own_path_indexed_again() {
    let mut library = library_with(&["A"]);
    ready_file(&mut library, "c0", "f", "a.md");
    library
        .change_file("c0", "f", |f| {
            f.page_starts = vec![0, 10];
            f.passages = 3;
        })
        .unwrap();
    let path = library.edit_text("c0", "f", 42).unwrap();
    assert_eq!(path, "knowledge/c0/f/content");
    let file = library.collection("c0").unwrap().file("f").unwrap();
    // The original (a text file's own text until now) stays where it was.
    assert_eq!(file.source_path, "knowledge/c0/f/source");
    assert_eq!(
        (
            file.content_path.as_str(),
            file.chars,
            file.version,
            file.stage
        ),
        (path.as_str(), 42, 2, Stage::Index)
    );
    assert!(file.edited && file.page_starts.is_empty() && file.passages == 0);
    assert!(file.reparse_needs_confirmation());
    // Such a record travels: an import takes it as its own paths.
    let mut other = KnowledgeLibrary::default();
    let merged = other.merge(library.clone());
    assert_eq!(
        other.collection("c0").map(|c| c.files.len()),
        Some(1),
        "{merged:?}"
    );

    // Only a ready file, and only within the text bound; nothing changes when refused.
    let before = library.clone();
    assert_eq!(
        library.edit_text("c0", "f", 1),
        Err(KnowledgeError::NotEditable)
    );
    assert_eq!(library, before);
    library
        .change_file("c0", "f", |f| f.stage = Stage::Ready)
        .unwrap();
    let before = library.clone();
    let over = crate::attachment::MAX_TEXT_CHARS as u64 + 1;
    assert_eq!(
        library.edit_text("c0", "f", over),
        Err(KnowledgeError::TextTooLong)
    );
    assert_eq!(library, before);
    assert_eq!(
        library.edit_text("c0", "nope", 1),
        Err(KnowledgeError::NoFile)
    );
}

#[test]
fn a_reparse_makes_a_new_version_and_asks_first_over_an_edited_text() {
    let mut library = library_with(&["A"]);
    ready_file(&mut library, "c0", "f", "a.md");
    library.change_file("c0", "f", |f| f.edited = true).unwrap();
    let file = library.collection("c0").unwrap().file("f").unwrap();
    assert!(file.reparse_needs_confirmation());
    library.reparse("c0", "f").unwrap();
    let file = library.collection("c0").unwrap().file("f").unwrap();
    assert_eq!(
        (file.version, file.stage, file.edited),
        (2, Stage::Parse, false)
    );
    assert!(!file.reparse_needs_confirmation());
    library
        .change_file("c0", "f", |f| f.source_missing = true)
        .unwrap();
    assert_eq!(
        library.reparse("c0", "f"),
        Err(KnowledgeError::NotRetryable)
    );
}

#[test]
fn after_a_reload_what_can_resume_resumes_and_the_rest_is_marked() {
    let mut library = library_with(&["A"]);
    ready_file(&mut library, "c0", "done", "done.md");
    for (id, stage, source, content) in [
        ("uploading", Stage::Upload, "", ""),
        ("parsing", Stage::Parse, "s", ""),
        ("indexing", Stage::Index, "s", "c"),
        ("parse-no-source", Stage::Parse, "", ""),
    ] {
        library.add_file("c0", id.into(), "x.pdf", 1, 1.0).unwrap();
        library
            .change_file("c0", id, |f| {
                f.stage = stage;
                f.source_path = source.into();
                f.content_path = content.into();
            })
            .unwrap();
    }
    // A file another page is working on is left to it.
    let before = library.clone();
    let resume = library.interrupted(|id| id != "parse-no-source");
    assert!(resume.is_empty());
    let left = library
        .collection("c0")
        .unwrap()
        .file("parse-no-source")
        .unwrap();
    assert_eq!(left.failure.as_ref().unwrap().code, "knowledge_interrupted");
    library = before;
    let resume = library.interrupted(|_| false);
    assert_eq!(
        resume,
        vec![
            ("c0".to_string(), "parsing".to_string(), Stage::Parse),
            ("c0".to_string(), "indexing".to_string(), Stage::Index),
        ]
    );
    let collection = library.collection("c0").unwrap();
    for id in ["uploading", "parse-no-source"] {
        let failure = collection.file(id).unwrap().failure.clone().unwrap();
        assert_eq!(failure.code, "knowledge_interrupted", "{id}");
    }
    assert!(collection.file("done").unwrap().is_ready());
    // Asked again, nothing new is found.
    assert_eq!(library.interrupted(|_| false), resume);
}

#[test]
fn reconciling_cleans_orphans_and_keeps_text_whose_original_is_gone() {
    let mut library = library_with(&["A"]);
    let record = |library: &mut KnowledgeLibrary, id: &str, source: &str, content: &str| {
        library.add_file("c0", id.into(), "x.pdf", 1, 1.0).unwrap();
        library
            .change_file("c0", id, |f| {
                f.source_path = source.into();
                f.content_path = content.into();
                f.stage = Stage::Ready;
            })
            .unwrap();
    };
    record(&mut library, "whole", "k/whole/source", "k/whole/content");
    record(
        &mut library,
        "no-source",
        "k/no-source/source",
        "k/no-source/content",
    );
    record(
        &mut library,
        "no-text",
        "k/no-text/source",
        "k/no-text/content",
    );
    record(&mut library, "lost", "k/lost/source", "k/lost/content");
    record(
        &mut library,
        "text-file",
        "k/text-file/source",
        "k/text-file/source",
    );
    library
        .add_file("c0", "flying".into(), "y.pdf", 1, 1.0)
        .unwrap();
    let stored: Vec<String> = [
        "k/whole/source",
        "k/whole/content",
        "k/no-source/content",
        "k/no-text/source",
        "k/old/source",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let found = library.reconcile("c0", &stored).unwrap();
    assert_eq!(found.orphans, vec!["k/old/source"]);
    assert_eq!(found.sources_missing, vec!["no-source"]);
    assert_eq!(found.to_reparse, vec!["no-text"]);
    assert_eq!(found.lost, vec!["lost", "text-file"]);
    let collection = library.collection("c0").unwrap();
    let kept = collection.file("no-source").unwrap();
    assert!(kept.source_missing && kept.is_ready());
    assert_eq!(kept.content_path, "k/no-source/content");
    let again = collection.file("no-text").unwrap();
    assert_eq!((again.stage, again.version), (Stage::Parse, 2));
    assert_eq!(again.retry_stage(), None);
    let lost = collection.file("lost").unwrap();
    assert_eq!(
        lost.failure.as_ref().unwrap().code,
        "knowledge_file_missing"
    );
    assert!(collection.file("whole").unwrap().is_ready());
    assert!(collection.file("flying").unwrap().in_flight());
    // Clean once the orphan is gone and the records say what is there.
    let stored: Vec<String> = stored.into_iter().filter(|p| p != "k/old/source").collect();
    let again = library.reconcile("c0", &stored).unwrap();
    assert!(again.orphans.is_empty());
    assert_eq!(
        library.reconcile("gone", &stored),
        Err(KnowledgeError::NoCollection)
    );
}

#[test]
fn a_stored_library_is_repaired_and_a_conversation_keeps_known_collections_only() {
    let mut library = library_with(&["A", "B"]);
    library.collections[1].name = " a ".into();
    library.collections[0].description = "d".repeat(MAX_DESCRIPTION_CHARS + 9);
    let repaired = library.repaired();
    assert_eq!(repaired.collections[0].name, "A");
    assert_eq!(repaired.collections[1].name, "a (2)");
    assert_eq!(
        repaired.collections[0].description.chars().count(),
        MAX_DESCRIPTION_CHARS
    );
    let ids: Vec<String> = ["c1", "gone", "c1", "c0"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(attached(&repaired, &ids), vec!["c1", "c0"]);
    let record = serde_json::to_value(&repaired.collections[0]).unwrap();
    assert_eq!(record["colour"], "green");
    let back: KnowledgeLibrary = serde_json::from_value(serde_json::json!({
        "collections": [{"id": "x", "name": "X", "files": [{"id": "f", "name": "f.md"}]}]
    }))
    .unwrap();
    assert_eq!(back.collections[0].files[0].version, 1);
}

fn two_collections() -> (KnowledgeLibrary, Vec<(String, String, String)>) {
    let mut library = library_with(&["Garden", "Kitchen"]);
    ready_file(&mut library, "c0", "roses", "roses.md");
    ready_file(&mut library, "c0", "soil", "soil.md");
    ready_file(&mut library, "c1", "bread", "bread.md");
    library
        .add_file("c1", "pending".into(), "later.md", 1, 1.0)
        .unwrap();
    let texts = vec![
        (
            "c0".to_string(),
            "roses".to_string(),
            "# Pruning\n\nPrune roses in late winter, just above an outward bud.".to_string(),
        ),
        (
            "c0".to_string(),
            "soil".to_string(),
            "# Soil\n\nRoses like loam with a pH of 6.5.".to_string(),
        ),
        (
            "c1".to_string(),
            "bread".to_string(),
            "# Sourdough\n\nFeed the starter twice a day before baking bread.".to_string(),
        ),
    ];
    (library, texts)
}

fn index_of(library: &KnowledgeLibrary, texts: &[(String, String, String)]) -> KnowledgeIndex {
    let entries: Vec<FileText> = texts
        .iter()
        .map(|(c, f, text)| {
            let collection = library.collection(c).unwrap();
            FileText {
                collection,
                file: collection.file(f).unwrap(),
                text: text.clone(),
            }
        })
        .collect();
    KnowledgeIndex::build(&entries)
}

#[test]
fn a_question_finds_the_passages_of_the_files_in_scope_with_their_citations() {
    let (library, texts) = two_collections();
    let index = index_of(&library, &texts);
    assert_eq!(index.len(), 3);
    let scope = in_scope(library.collections.iter(), &[]);
    // The file still on its way in is not in scope.
    assert_eq!(scope.len(), 3);
    let allowed = scope.iter().map(|(_, f)| f.id.as_str()).collect();
    let found = index.retrieve("When should I prune my roses?", &allowed);
    assert_eq!(found[0].place.file, "roses");
    assert!(found.iter().all(|p| p.place.file != "bread"));
    assert_eq!(found[0].label(), "Garden › roses.md — Pruning");
    let items = context_items(&found);
    let cite = items[0].cite.clone().unwrap();
    let place = cite.passage.clone().unwrap();
    assert_eq!((place.collection.as_str(), place.version), ("c0", 1));
    assert_eq!(cite.site(), "Garden");
    let text = &texts[0].2;
    assert!(passage_text(text, &place).unwrap().contains("outward bud"));
    // One collection's files only: the other's are never returned.
    let kitchen = in_scope(library.collection("c1"), &[]);
    let allowed = kitchen.iter().map(|(_, f)| f.id.as_str()).collect();
    assert!(index.retrieve("prune roses", &allowed).is_empty());
    assert_eq!(
        index.retrieve("sourdough starter", &allowed)[0].place.file,
        "bread"
    );
    // Single files of a collection.
    let soil_only = in_scope(library.collection("c0"), &["soil".to_string()]);
    let allowed = soil_only.iter().map(|(_, f)| f.id.as_str()).collect();
    let found = index.retrieve("roses", &allowed);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].place.file, "soil");
}

#[test]
fn a_new_version_of_a_file_is_a_new_index_and_its_old_passages_are_gone() {
    let (mut library, mut texts) = two_collections();
    let first = index_of(&library, &texts);
    let fingerprint_of =
        |library: &KnowledgeLibrary| fingerprint(in_scope(library.collections.iter(), &[]));
    assert!(first.is_for(fingerprint_of(&library)));
    library.reparse("c0", "roses").unwrap();
    library
        .change_file("c0", "roses", |f| f.stage = Stage::Ready)
        .unwrap();
    assert!(!first.is_for(fingerprint_of(&library)));
    texts[0].2 = "# Pruning\n\nCut tulips after they flower.".to_string();
    let second = index_of(&library, &texts);
    let scope = in_scope(library.collections.iter(), &[]);
    let allowed = scope.iter().map(|(_, f)| f.id.as_str()).collect();
    assert!(second.retrieve("outward bud", &allowed).is_empty());
    let found = second.retrieve("tulips", &allowed);
    assert_eq!(found[0].id, "roses@2#0");
    // Renaming the collection changes what passages carry: a new index too.
    library.update("c0", &draft("Yard")).unwrap();
    assert!(!second.is_for(fingerprint_of(&library)));
}

#[test]
fn a_passage_knows_its_page() {
    let mut library = library_with(&["Manuals"]);
    ready_file(&mut library, "c0", "m", "manual.pdf");
    let text = "Intro page.\n\nThe reset button is under the lid.".to_string();
    let second_page = text.find("The reset").unwrap() as u64;
    library
        .change_file("c0", "m", |f| f.page_starts = vec![0, second_page])
        .unwrap();
    let index = index_of(&library, &[("c0".into(), "m".into(), text)]);
    let allowed = ["m"].into_iter().collect();
    let found = index.retrieve("reset button", &allowed);
    assert!(!found.is_empty());
    assert!(found.iter().any(|p| p.place.page.is_some()));
}

mod ask;

#[test]
fn the_palette_finds_a_collection_by_its_name_description_and_files() {
    let mut library = library_with(&["Tax papers"]);
    library.collections[0].description = "Receipts for the accountant".into();
    ready_file(&mut library, "c0", "f1", "invoice-march.pdf");
    let documents: Vec<_> = library
        .collections
        .iter()
        .map(Collection::search_document)
        .collect();
    assert_eq!(documents[0].source, crate::search::Source::Knowledge);
    assert_eq!(documents[0].title, "Tax papers");
    for query in ["tax", "accountant", "invoice"] {
        let hits = crate::search::local::search_local(&documents, query, 5).unwrap();
        assert_eq!(hits.len(), 1, "{query}");
        assert_eq!(hits[0].id, "c0");
    }
    let none = crate::search::local::search_local(&documents, "volcano", 5).unwrap();
    assert!(none.is_empty());
}
