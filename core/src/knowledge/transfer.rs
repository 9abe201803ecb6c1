//! The library in an export and an import. An export carries every collection, its files
//! still on their way in marked interrupted (so the importing browser can retry them
//! from what travelled), and the stored files its records refer to
//! ([`KnowledgeLibrary::stored_paths`], each a [`KnowledgePath`]). An import is untrusted
//! input: [`KnowledgeLibrary::merge`] takes only records whose ids are plain names and
//! whose paths are their own file's (a record can never be made to point at a message's
//! attachment or another file's text), keeps this browser's copy of a file it has, and
//! keeps the bounds, counting what it left out.

use std::collections::HashSet;

use super::{
    Failure, KnowledgeFile, KnowledgeLibrary, MAX_COLLECTIONS, MAX_FILE_NAME_CHARS, MAX_FILES, ROOT,
};
use crate::stored_file::is_safe_name;

/// Which of a file's two stored files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    /// The original as the user added it.
    Source,
    /// The extracted text (a text file has none: its original is its text).
    Content,
}

impl Part {
    /// The file's name in its folder.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Content => "content",
        }
    }
}

/// Where one stored file of a collection lives: `knowledge/<collection>/<file>/<part>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KnowledgePath {
    /// The collection's id.
    pub collection: String,
    /// The file's id.
    pub file: String,
    /// Which of its files.
    pub part: Part,
}

impl KnowledgePath {
    /// The path of `part` of file `file` in `collection`.
    pub fn new(collection: &str, file: &str, part: Part) -> Self {
        Self {
            collection: collection.into(),
            file: file.into(),
            part,
        }
    }

    /// The folder it is in.
    pub fn folder(&self) -> String {
        format!("{ROOT}/{}/{}", self.collection, self.file)
    }

    /// Its whole path.
    pub fn path(&self) -> String {
        format!("{}/{}", self.folder(), self.part.name())
    }

    /// Reads `path` back: `None` unless it is exactly a path Hearth makes, its ids plain
    /// names (no `..`, no separators, nothing hidden).
    pub fn parse(path: &str) -> Option<Self> {
        let mut parts = path.split('/');
        let (root, collection, file, part) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        let part = [Part::Source, Part::Content]
            .into_iter()
            .find(|p| p.name() == part)?;
        (root == ROOT && parts.next().is_none() && is_safe_name(collection) && is_safe_name(file))
            .then(|| Self::new(collection, file, part))
    }
}

/// What [`KnowledgeLibrary::merge`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Merged {
    /// Collections that came in.
    pub collections: usize,
    /// Files that came in (those of new collections included).
    pub files: usize,
    /// Files this browser has already (its copy is kept).
    pub present: usize,
    /// Collections and files left out: over a bound, or records that break the rules
    /// (an id that is not a plain name, a path that is not the file's own, an id twice).
    pub left_out: usize,
}

/// Marks `file` as interrupted where it is, when it is on its way in.
fn settle(file: &mut KnowledgeFile) {
    if file.in_flight() {
        file.failure = Some(Failure {
            stage: file.stage,
            code: "knowledge_interrupted".into(),
            detail: None,
        });
    }
}

/// Whether `file`'s stored paths are its own (in `collection`), or none.
fn owns_its_paths(collection: &str, file: &KnowledgeFile) -> bool {
    let own = |part| KnowledgePath::new(collection, &file.id, part).path();
    let source_ok = file.source_path.is_empty() || file.source_path == own(Part::Source);
    let shared = !file.content_path.is_empty()
        && file.content_path == file.source_path
        && file.kind.is_some_and(KnowledgeFile::text_is_source);
    let content_ok =
        file.content_path.is_empty() || file.content_path == own(Part::Content) || shared;
    source_ok && content_ok
}

impl KnowledgeLibrary {
    /// The library as an export carries it: every collection and file, those on their
    /// way in marked interrupted (their next step cannot run in the other browser
    /// until the user retries it).
    pub fn for_export(&self) -> Self {
        let mut copy = self.clone();
        copy.collections
            .iter_mut()
            .flat_map(|c| c.files.iter_mut())
            .for_each(settle);
        copy
    }

    /// Every stored file the records refer to, each once, in a stable order; a path that
    /// is not one Hearth makes is not listed.
    pub fn stored_paths(&self) -> Vec<KnowledgePath> {
        let mut paths: Vec<KnowledgePath> = self
            .collections
            .iter()
            .flat_map(|c| &c.files)
            .flat_map(KnowledgeFile::paths)
            .filter_map(KnowledgePath::parse)
            .collect();
        paths.sort();
        paths.dedup();
        paths
    }

    /// Brings `incoming` (an import's library) into this one: a collection this library
    /// lacks comes in whole (renamed with a number when its name is taken), a collection
    /// it has takes the files it lacks; a file this library has anywhere keeps its copy.
    /// The bounds hold ([`MAX_COLLECTIONS`], [`MAX_FILES`]); files on their way in come
    /// in interrupted; a record that breaks the rules is left out. What is left out is
    /// counted, never half-taken.
    pub fn merge(&mut self, incoming: KnowledgeLibrary) -> Merged {
        let mut merged = Merged::default();
        let mut files_here: HashSet<String> = self
            .collections
            .iter()
            .flat_map(|c| c.files.iter().map(|f| f.id.clone()))
            .collect();
        let mut collections_seen = HashSet::new();
        for mut collection in incoming.collections {
            let id = collection.id.clone();
            if !is_safe_name(&id) || !collections_seen.insert(id.clone()) {
                merged.left_out += 1 + collection.files.len();
                continue;
            }
            let mut files = Vec::new();
            for mut file in std::mem::take(&mut collection.files) {
                if !is_safe_name(&file.id) || !owns_its_paths(&id, &file) {
                    merged.left_out += 1;
                } else if files_here.contains(&file.id) {
                    merged.present += 1;
                } else {
                    files_here.insert(file.id.clone());
                    settle(&mut file);
                    file.name = file.name.chars().take(MAX_FILE_NAME_CHARS).collect();
                    files.push(file);
                }
            }
            let target = match self.collections.iter().position(|c| c.id == id) {
                Some(at) => at,
                None if self.collections.len() >= MAX_COLLECTIONS => {
                    merged.left_out += 1 + files.len();
                    continue;
                }
                None => {
                    collection.name = self.free_name(&collection.name, &id);
                    collection.description = collection
                        .description
                        .chars()
                        .take(super::MAX_DESCRIPTION_CHARS)
                        .collect();
                    self.collections.push(collection);
                    merged.collections += 1;
                    self.collections.len() - 1
                }
            };
            let room = MAX_FILES.saturating_sub(self.collections[target].files.len());
            merged.left_out += files.len().saturating_sub(room);
            files.truncate(room);
            merged.files += files.len();
            self.collections[target].files.extend(files);
        }
        merged
    }

    /// `name` (`fallback` when empty), normalised and bounded, numbered until no
    /// collection has it.
    fn free_name(&self, name: &str, fallback: &str) -> String {
        let taken: Vec<String> = self
            .collections
            .iter()
            .map(|c| c.name.to_lowercase())
            .collect();
        super::unique_name(name, fallback, &taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filetype::FileKind;
    use crate::knowledge::{CollectionDraft, Colour, Stage};

    fn draft(name: &str) -> CollectionDraft {
        CollectionDraft {
            name: name.into(),
            description: String::new(),
            colour: Colour::Green,
        }
    }

    fn path(collection: &str, file: &str, part: Part) -> String {
        KnowledgePath::new(collection, file, part).path()
    }

    /// Adds file `id` to `collection` at `stage`: a Markdown file is its own text, a PDF
    /// has a text of its own once parsed.
    fn file(
        library: &mut KnowledgeLibrary,
        collection: &str,
        id: &str,
        kind: FileKind,
        stage: Stage,
    ) {
        library
            .add_file(collection, id.into(), "f", 10, 1.0)
            .unwrap();
        let (source, content) = (
            path(collection, id, Part::Source),
            path(collection, id, Part::Content),
        );
        library
            .change_file(collection, id, |f| {
                f.kind = Some(kind);
                f.stage = stage;
                f.source_path = source.clone();
                if KnowledgeFile::text_is_source(kind) {
                    f.content_path = source;
                } else if matches!(stage, Stage::Index | Stage::Ready) {
                    f.content_path = content;
                }
            })
            .unwrap();
    }

    /// A library of two collections: a Markdown file and a PDF ready, a PDF half-way.
    fn exported() -> KnowledgeLibrary {
        let mut library = KnowledgeLibrary::default();
        library
            .create("c1".into(), &draft("Research"), 1.0)
            .unwrap();
        library.create("c2".into(), &draft("Team"), 1.0).unwrap();
        file(&mut library, "c1", "f1", FileKind::Markdown, Stage::Ready);
        file(&mut library, "c1", "f2", FileKind::Pdf, Stage::Ready);
        file(&mut library, "c2", "f3", FileKind::Pdf, Stage::Parse);
        library.for_export()
    }

    #[test]
    fn only_paths_hearth_makes_read_back() {
        let at = KnowledgePath::new("c1", "f1", Part::Content);
        assert_eq!(at.path(), "knowledge/c1/f1/content");
        assert_eq!(at.folder(), "knowledge/c1/f1");
        assert_eq!(KnowledgePath::parse(&at.path()), Some(at));
        for bad in [
            "knowledge/c1/f1",
            "knowledge/c1/f1/source/more",
            "knowledge/c1/f1/other",
            "knowledge/../f1/source",
            "knowledge/c1/.f1/source",
            "knowledge/c1//source",
            "attachments/c1/f1/source",
            "/knowledge/c1/f1/source",
            "",
        ] {
            assert_eq!(KnowledgePath::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_export_marks_files_in_flight_and_lists_each_stored_file_once() {
        let library = exported();
        let half_way = library.collection("c2").unwrap().file("f3").unwrap();
        let failure = half_way.failure.as_ref().expect("marked");
        assert_eq!(
            (failure.stage, failure.code.as_str()),
            (Stage::Parse, "knowledge_interrupted")
        );
        assert_eq!(
            half_way.retry_stage(),
            Some(Stage::Parse),
            "retried from its original"
        );
        let ready = library.collection("c1").unwrap().file("f2").unwrap();
        assert!(ready.is_ready() && ready.failure.is_none());
        let listed: Vec<String> = library
            .stored_paths()
            .iter()
            .map(KnowledgePath::path)
            .collect();
        assert_eq!(
            listed,
            [
                "knowledge/c1/f1/source",
                "knowledge/c1/f2/source",
                "knowledge/c1/f2/content",
                "knowledge/c2/f3/source",
            ]
        );
        // A path Hearth would not make is never listed (so never read or written).
        let mut odd = library.clone();
        odd.collections[0].files[0].source_path = "attachments/secret".into();
        assert!(!odd.stored_paths().iter().any(|p| p.file == "secret"));
    }

    #[test]
    fn an_import_brings_in_what_is_missing_and_a_second_one_changes_nothing() {
        let incoming = exported();
        let mut library = KnowledgeLibrary::default();
        let merged = library.merge(incoming.clone());
        assert_eq!(
            merged,
            Merged {
                collections: 2,
                files: 3,
                present: 0,
                left_out: 0
            }
        );
        assert_eq!(library, incoming);
        let again = library.merge(incoming.clone());
        assert_eq!(
            again,
            Merged {
                present: 3,
                ..Merged::default()
            }
        );
        assert_eq!(library, incoming);
        // A collection this browser has takes the files it lacks; its own copy of a
        // file (renamed here) is kept.
        let mut here = KnowledgeLibrary::default();
        here.create("c1".into(), &draft("Research, mine"), 1.0)
            .unwrap();
        file(&mut here, "c1", "f1", FileKind::Markdown, Stage::Ready);
        here.change_file("c1", "f1", |f| f.name = "renamed.md".into())
            .unwrap();
        let merged = here.merge(incoming);
        assert_eq!(
            merged,
            Merged {
                collections: 1,
                files: 2,
                present: 1,
                left_out: 0
            }
        );
        let c1 = here.collection("c1").unwrap();
        assert_eq!(c1.name, "Research, mine");
        assert_eq!(
            c1.files.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
            ["f1", "f2"]
        );
        assert_eq!(c1.file("f1").unwrap().name, "renamed.md");
    }

    #[test]
    fn an_imported_record_that_points_elsewhere_or_repeats_an_id_is_left_out() {
        let mut incoming = exported();
        let c1 = &mut incoming.collections[0];
        // Another file's text, a message's attachment, a PDF claiming its original is
        // its text, and a path out of the folder.
        c1.files[0].source_path = path("c1", "f2", Part::Source);
        c1.files[1].content_path = "attachments/0a1b.md".into();
        let mut pdf_as_text = c1.files[1].clone();
        pdf_as_text.id = "f4".into();
        pdf_as_text.source_path = path("c1", "f4", Part::Source);
        pdf_as_text.content_path = pdf_as_text.source_path.clone();
        let mut climbing = pdf_as_text.clone();
        climbing.id = "../f5".into();
        climbing.source_path = "knowledge/c1/../f5/source".into();
        climbing.content_path = String::new();
        c1.files.extend([pdf_as_text, climbing]);
        let repeated = incoming.collections[1].clone();
        let mut unsafe_id = repeated.clone();
        unsafe_id.id = "c/2".into();
        unsafe_id.files.clear();
        incoming.collections.extend([repeated, unsafe_id]);
        let mut library = KnowledgeLibrary::default();
        let merged = library.merge(incoming);
        // Kept: the two collections and c2's one file; left out: four files of c1, the
        // repeated collection with its file, the collection with a path in its id.
        assert_eq!(
            merged,
            Merged {
                collections: 2,
                files: 1,
                present: 0,
                left_out: 7
            }
        );
        assert!(library.collection("c1").unwrap().files.is_empty());
        assert!(library.stored_paths().iter().all(|p| p.collection == "c2"));
    }

    #[test]
    fn an_import_keeps_the_bounds_and_makes_taken_names_unique() {
        let mut library = KnowledgeLibrary::default();
        library
            .create("c1".into(), &draft("Research"), 1.0)
            .unwrap();
        library.create("mine".into(), &draft("team"), 1.0).unwrap();
        for i in 0..MAX_FILES - 1 {
            library
                .add_file("c1", format!("x{i}"), "x", 1, 1.0)
                .unwrap();
        }
        let merged = library.merge(exported());
        // c1 has room for one of its two; Team comes in as "Team (2)".
        assert_eq!(
            merged,
            Merged {
                collections: 1,
                files: 2,
                present: 0,
                left_out: 1
            }
        );
        assert_eq!(library.collection("c1").unwrap().files.len(), MAX_FILES);
        assert_eq!(library.collection("c2").unwrap().name, "Team (2)");

        let mut full = KnowledgeLibrary::default();
        for i in 0..MAX_COLLECTIONS {
            full.create(format!("k{i}"), &draft(&format!("n{i}")), 1.0)
                .unwrap();
        }
        let before = full.clone();
        let merged = full.merge(exported());
        assert_eq!(
            merged,
            Merged {
                left_out: 5,
                ..Merged::default()
            }
        );
        assert_eq!(full, before);
    }

    #[test]
    fn an_imported_file_name_is_bounded() {
        let mut incoming = exported();
        incoming.collections[0].files[0].name = "n".repeat(10_000);
        let mut library = KnowledgeLibrary::default();
        library.merge(incoming);
        let name = &library.collection("c1").unwrap().file("f1").unwrap().name;
        assert_eq!(name.chars().count(), MAX_FILE_NAME_CHARS);
    }

    #[test]
    fn files_on_their_way_in_come_in_interrupted() {
        let mut incoming = KnowledgeLibrary::default();
        incoming.create("c1".into(), &draft("A"), 1.0).unwrap();
        file(&mut incoming, "c1", "f1", FileKind::Pdf, Stage::Index);
        let mut library = KnowledgeLibrary::default();
        library.merge(incoming);
        let f1 = library.collection("c1").unwrap().file("f1").unwrap();
        assert!(!f1.in_flight());
        assert_eq!(f1.failure.as_ref().map(|f| f.stage), Some(Stage::Index));
        assert_eq!(f1.retry_stage(), Some(Stage::Index));
    }
}
