//! `ask`: a question as it travels to the search worker, the index kept between
//! questions, the bound on what one scope indexes, and which paths are ever read.

use super::*;
use crate::knowledge::ask;

/// The texts of `scope` among `texts` (collection, file, text).
fn texts_of<'a>(
    scope: &[(&'a Collection, &'a KnowledgeFile)],
    texts: &[(String, String, String)],
) -> Vec<FileText<'a>> {
    scope
        .iter()
        .filter_map(|(collection, file)| {
            let (_, _, text) = texts.iter().find(|(_, f, _)| *f == file.id)?;
            Some(FileText {
                collection,
                file,
                text: text.clone(),
            })
        })
        .collect()
}

#[test]
fn a_question_travels_as_json_with_only_the_files_in_scope() {
    let (library, _) = two_collections();
    let scope = in_scope(library.collections.iter(), &[]);
    let asked = ask::Asked::new(&scope, "prune roses");
    // Two collections, each with only its ready files (not the one on its way in).
    let files: Vec<Vec<&str>> = asked
        .collections
        .iter()
        .map(|c| c.files.iter().map(|f| f.id.as_str()).collect())
        .collect();
    assert_eq!(files, [vec!["roses", "soil"], vec!["bread"]]);
    let json = serde_json::to_string(&asked).unwrap();
    let back: ask::Asked = serde_json::from_str(&json).unwrap();
    assert_eq!(back, asked);
    assert_eq!(back.bounded().0.len(), 3);
}

#[test]
fn the_kept_index_is_reused_while_the_files_do_not_change_and_dropped_when_one_is_unreadable() {
    let (mut library, texts) = two_collections();
    let scope = in_scope(library.collections.iter(), &[]);
    let asked = ask::Asked::new(&scope, "When should I prune my roses?");
    let mut kept = ask::KeptIndex::default();
    let (bounded, over) = asked.bounded();
    assert!(over.is_empty());
    assert!(!kept.is_for(&bounded));
    let first = kept.answer(&asked, Some(texts_of(&bounded, &texts)), Vec::new());
    assert_eq!(first.passages[0].place.file, "roses");
    assert!(kept.is_for(&bounded));
    assert_eq!(kept.passages(), 3);
    // Asked again: no text is needed, the answer is the same; the JSON reads back.
    let again = kept.answer(&asked, None, Vec::new());
    assert_eq!(again, first);
    let json = serde_json::to_string(&again).unwrap();
    assert_eq!(serde_json::from_str::<ask::Answered>(&json).unwrap(), first);
    // A file whose text could not be read: said, and the index is not kept.
    let partial = texts_of(&bounded, &texts[1..]);
    let answered = kept.answer(&asked, Some(partial), vec!["roses.md".into()]);
    assert_eq!(answered.unreadable, ["roses.md"]);
    assert!(answered.passages.iter().all(|p| p.place.file != "roses"));
    assert!(!kept.is_for(&bounded));
    // A renamed file is another scope.
    let _ = kept.answer(&asked, Some(texts_of(&bounded, &texts)), Vec::new());
    library
        .change_file("c0", "soil", |f| f.name = "earth.md".into())
        .unwrap();
    let renamed = in_scope(library.collections.iter(), &[]);
    assert!(!kept.is_for(&renamed));
}

#[test]
fn a_scope_past_the_text_bound_indexes_what_fits_and_names_the_rest() {
    let (mut library, texts) = two_collections();
    for (collection, file) in [("c0", "roses"), ("c0", "soil"), ("c1", "bread")] {
        library
            .change_file(collection, file, |f| {
                f.chars = ask::MAX_INDEXED_CHARS / 2;
            })
            .unwrap();
    }
    let scope = in_scope(library.collections.iter(), &[]);
    let asked = ask::Asked::new(&scope, "sourdough starter");
    let (bounded, over) = asked.bounded();
    assert_eq!(bounded.len(), 2);
    assert_eq!(over, ["bread.md"]);
    let mut kept = ask::KeptIndex::default();
    let answered = kept.answer(&asked, Some(texts_of(&bounded, &texts)), Vec::new());
    assert_eq!(answered.over_budget, ["bread.md"]);
    assert!(answered.passages.iter().all(|p| p.place.file != "bread"));
}

/// The output of `future`, which must be ready at once (the readers here are).
fn ready_now<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut context) {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => panic!("the reader here never waits"),
    }
}

#[test]
fn texts_are_read_only_from_a_collections_own_paths_and_only_when_the_files_changed() {
    let (mut library, texts) = two_collections();
    // A record pointing at a message's attachment: never read, named unreadable.
    library
        .change_file("c0", "soil", |f| {
            f.content_path = "attachments/0a1b.md".into()
        })
        .unwrap();
    let scope = in_scope(library.collections.iter(), &[]);
    let asked = ask::Asked::new(&scope, "prune roses");
    let reads = std::cell::RefCell::new(Vec::new());
    let read = |path: String| {
        reads.borrow_mut().push(path.clone());
        let text = texts
            .iter()
            .find(|(c, f, _)| path == format!("knowledge/{c}/{f}/source"))
            .map(|(_, _, text)| text.clone());
        std::future::ready(text)
    };
    let mut kept = ask::KeptIndex::default();
    assert_eq!(
        kept.paths_to_read(&asked),
        ["knowledge/c0/roses/source", "knowledge/c1/bread/source"]
    );
    let answered = ready_now(kept.answer_reading(&asked, read));
    assert_eq!(answered.unreadable, ["soil.md"]);
    assert_eq!(answered.passages[0].place.file, "roses");
    assert_eq!(
        *reads.borrow(),
        ["knowledge/c0/roses/source", "knowledge/c1/bread/source"]
    );
    // Not kept (a file was unreadable): read again; once all read, kept and not read.
    library
        .change_file("c0", "soil", |f| {
            f.content_path = "knowledge/c0/soil/source".into()
        })
        .unwrap();
    let scope = in_scope(library.collections.iter(), &[]);
    let asked = ask::Asked::new(&scope, "prune roses");
    reads.borrow_mut().clear();
    let _ = ready_now(kept.answer_reading(&asked, read));
    assert_eq!(reads.borrow().len(), 3);
    assert!(kept.paths_to_read(&asked).is_empty());
    let again = ready_now(kept.answer_reading(&asked, read));
    assert_eq!(reads.borrow().len(), 3, "the kept index answered");
    assert!(again.unreadable.is_empty());
    assert_eq!(again.passages[0].place.file, "roses");
}

#[test]
fn a_saved_index_answers_after_a_reload_as_the_kept_one_did_and_a_bad_save_is_ignored() {
    let (mut library, texts) = two_collections();
    let scope = in_scope(library.collections.iter(), &[]);
    let asked = ask::Asked::new(&scope, "When should I prune my roses?");
    let (bounded, _) = asked.bounded();
    let mut kept = ask::KeptIndex::default();
    assert_eq!(kept.saved(), None, "nothing kept, nothing to save");
    let first = kept.answer(&asked, Some(texts_of(&bounded, &texts)), Vec::new());
    let bytes = kept.saved().expect("saved");
    assert!(bytes.starts_with(crate::knowledge::saved::MAGIC));

    // A new worker: restored, it answers with no text read, the same passages.
    let mut reloaded = ask::KeptIndex::default();
    assert!(reloaded.restore(&bytes));
    assert!(reloaded.is_for(&bounded));
    assert_eq!(reloaded.passages(), kept.passages());
    assert!(reloaded.paths_to_read(&asked).is_empty());
    assert_eq!(reloaded.answer(&asked, None, Vec::new()), first);
    assert_eq!(
        reloaded.saved(),
        Some(bytes.clone()),
        "saving again gives the same bytes"
    );
    // A kept index is never replaced by a saved one.
    assert!(!reloaded.restore(&bytes));

    // Saves that do not read: nothing restored, the next question builds.
    let mut torn = bytes.clone();
    torn.truncate(bytes.len() / 2);
    let mut flipped = bytes.clone();
    flipped[40] ^= 0xff;
    let mut other = bytes.clone();
    other[7] = b'9';
    for bad in [&b""[..], &bytes[..20], &torn, &flipped, &other] {
        let mut fresh = ask::KeptIndex::default();
        assert!(!fresh.restore(bad), "{} bytes", bad.len());
        assert_eq!(fresh.passages(), 0);
    }

    // Files that changed since the save: it is not for them, so their texts are read.
    library
        .change_file("c0", "soil", |f| f.version += 1)
        .unwrap();
    let changed = in_scope(library.collections.iter(), &[]);
    let asked = ask::Asked::new(&changed, "prune roses");
    assert!(!reloaded.paths_to_read(&asked).is_empty());
}
