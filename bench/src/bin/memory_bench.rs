//! `memory_bench [BENCHMARKS.md]`: what memory costs a turn, natively, with the book full
//! (500 memories of about 200 characters). Times the recall of a question's memories
//! (`hearth_core::memory::recall`: the question asked word by word, ranked and bounded)
//! with the system-prompt section, on the index the app keeps while the book does not
//! change, for a question that finds memories and one that finds none; building that
//! index (once per change of the book); and reading the stored book back (JSON, then
//! every memory checked again by `MemoryBook::repaired`, as the app does once per page).
//! Records the `memory` section of the benchmarks file; the budget is the skills' one,
//! 5 ms for a turn's assembly.
//!
//! Native figures stand in for the browser's: the app runs the same code as wasm,
//! typically 1.5–3× slower.

use std::time::{Duration, Instant};

use hearth_bench::record;
use hearth_core::memory::recall::{MemoryIndex, recall, with_memories};
use hearth_core::memory::{MAX_MEMORIES, MemoryBook, MemoryDraft, MemoryKind, MemorySource};

const RUNS: usize = 200;

const TOPICS: [&str; 10] = [
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
];

fn book() -> MemoryBook {
    let mut book = MemoryBook::default();
    for i in 0..MAX_MEMORIES {
        let topic = TOPICS[i % TOPICS.len()];
        let draft = MemoryDraft {
            kind: MemoryKind::ALL[i % MemoryKind::ALL.len()],
            content: format!(
                "Note {i} about the user's {topic}: they prefer concise answers with \
                 sources, work mornings, and keep a list of open questions about {topic} \
                 number {i} in a shared document."
            ),
            importance: (i % 4 + 1) as u8,
            tags: vec![topic.to_string(), format!("n{i}")],
        };
        book.add(format!("m{i:04}"), draft, MemorySource::Manual, i as f64)
            .expect("a memory");
    }
    book
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(mut work: impl FnMut() -> T) -> (Duration, Duration) {
    let samples: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(work());
            start.elapsed()
        })
        .collect();
    let worst = *samples.iter().max().expect("runs");
    (median(samples), worst)
}

fn main() {
    let out = record::out_file();
    let label = record::label();
    let book = book();
    let index = MemoryIndex::build(&book.memories);
    let turn = |question: &str| -> usize {
        let found = index.recall(&book.memories, question);
        with_memories(Some("Be brief.".into()), &found).map_or(0, |s| s.len())
    };
    let finds = "Can you help me plan my sourdough baking around the marathon training?";
    let none = "What is the capital of Australia, and why was it chosen?";
    assert!(
        turn(finds) > turn(none),
        "the first question finds memories"
    );
    assert_eq!(
        index.recall(&book.memories, finds),
        recall(&book.memories, finds),
        "the kept index answers as a fresh one"
    );
    let (found, found_worst) = time(|| turn(finds));
    let (empty, empty_worst) = time(|| turn(none));
    let (build, build_worst) = time(|| MemoryIndex::build(&book.memories));
    let (check, check_worst) = time(|| index.is_for(&book.memories));
    let stored = serde_json::to_string(&book).expect("serialises");
    let (reload, reload_worst) = time(|| {
        let read: MemoryBook = serde_json::from_str(&stored).expect("reads");
        read.repaired().0.memories.len()
    });
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let body = format!(
        "### Memory in a turn\n\n\
         {label}. Measured by `bench/src/bin/memory_bench.rs` (release, native; the app runs \
         the same `hearth_core::memory` as wasm, typically 1.5–3× slower). A full book: \
         {MAX_MEMORIES} memories of about 200 characters; median and worst of {RUNS} runs. \
         Budget: a turn's assembly ≤ 5 ms (as for skills).\n\n\
         | step | median | worst |\n\
         |---|---:|---:|\n\
         | recall for a question about two topics (ask, rank, section) | {:.3} ms | {:.3} ms |\n\
         | recall for a question about none of them | {:.3} ms | {:.3} ms |\n\
         | is the kept index still the book's (every turn) | {:.3} ms | {:.3} ms |\n\
         | building the index (after the book changed) | {:.3} ms | {:.3} ms |\n\
         | reading the book ({:.0} KiB) and checking every memory, once per page | {:.2} ms | {:.2} ms |\n",
        ms(found),
        ms(found_worst),
        ms(empty),
        ms(empty_worst),
        ms(check),
        ms(check_worst),
        ms(build),
        ms(build_worst),
        stored.len() as f64 / 1024.0,
        ms(reload),
        ms(reload_worst),
    );
    print!("{body}");
    record::write_section(&out, "memory", &body).expect("write the benchmarks file");
}
