//! The deterministic knowledge library of the knowledge benchmarks (native:
//! `src/bin/knowledge_bench.rs`; in the browser: `src/bin/knowledge_browser.rs`): Markdown
//! documents of headed sections, each of sentences drawn from a 48-word vocabulary (about
//! 5 KB each), as ready files of a library whose paths are the ones the app stores them at.

use hearth_core::knowledge::transfer::{KnowledgePath, Part};
use hearth_core::knowledge::{CollectionDraft, KnowledgeLibrary, Stage};

const WORDS: [&str; 48] = [
    "garden",
    "invoice",
    "marathon",
    "violin",
    "kubernetes",
    "sourdough",
    "mortgage",
    "kyoto",
    "chemistry",
    "podcast",
    "pruning",
    "compost",
    "ledger",
    "tempo",
    "cluster",
    "starter",
    "interest",
    "temple",
    "reaction",
    "episode",
    "shears",
    "budget",
    "interval",
    "bow",
    "container",
    "oven",
    "principal",
    "shrine",
    "catalyst",
    "microphone",
    "soil",
    "receipt",
    "stretch",
    "string",
    "deployment",
    "crust",
    "refinance",
    "lantern",
    "molecule",
    "guest",
    "season",
    "audit",
    "recovery",
    "rosin",
    "ingress",
    "hydration",
    "escrow",
    "pagoda",
];

/// Document `n`: headed sections of sentences drawn from the vocabulary.
pub fn document(n: usize) -> String {
    let mut out = format!("# Document {n}\n\n");
    let mut seed = n as u64 * 2_654_435_761 + 1;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % WORDS.len() as u64) as usize
    };
    for section in 0..10 {
        out.push_str(&format!("## Section {section} on {}\n\n", WORDS[next()]));
        for _ in 0..4 {
            let sentence: Vec<&str> = (0..12).map(|_| WORDS[next()]).collect();
            out.push_str(&format!(
                "The {} notes: {}.\n\n",
                WORDS[next()],
                sentence.join(" ")
            ));
        }
    }
    out
}

/// A library of `documents` ready Markdown files (`doc-<n>.md`, ids `f<n>`) spread over
/// `collections` collections (`c<k>`, "Collection k"), each file its own text.
pub fn library(documents: usize, collections: usize) -> KnowledgeLibrary {
    let mut library = KnowledgeLibrary::default();
    for c in 0..collections {
        let draft = CollectionDraft {
            name: format!("Collection {c}"),
            ..CollectionDraft::default()
        };
        library
            .create(format!("c{c}"), &draft, 0.0)
            .expect("a collection");
    }
    for n in 0..documents {
        let collection = format!("c{}", n % collections);
        let id = format!("f{n}");
        let chars = document(n).chars().count() as u64;
        library
            .add_file(
                &collection,
                id.clone(),
                &format!("doc-{n}.md"),
                chars,
                n as f64,
            )
            .expect("a file");
        let path = KnowledgePath::new(&collection, &id, Part::Source).path();
        library
            .change_file(&collection, &id, |f| {
                f.kind = Some(hearth_core::filetype::FileKind::Markdown);
                f.source_path = path.clone();
                f.content_path = path;
                f.chars = chars;
                f.stage = Stage::Ready;
            })
            .expect("ready");
    }
    library
}

/// The document file `id` (`f<n>`) holds.
pub fn document_of(id: &str) -> String {
    document(id[1..].parse().expect("an index"))
}
