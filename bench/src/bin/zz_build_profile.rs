use hearth_bench::search_corpus;
use hearth_core::search::{SearchIndex, Source};
use std::time::Instant;
fn main() {
    let corpus = search_corpus::generate(2000, 50, 12);
    let t = Instant::now();
    let mut index = SearchIndex::new();
    for doc in &corpus.documents {
        index.upsert(doc).unwrap();
    }
    let b = t.elapsed();
    let t = Instant::now();
    index.compact(Source::Conversations);
    eprintln!("build {:?} compact {:?}", b, t.elapsed());
}
