//! `import_bench [BENCHMARKS.md]`: reading another app's export into Hearth's records
//! (`hearth_core::chat::peer_import::read_records`), natively, over a generated
//! ChatGPT `conversations.json` shaped like a heavy user's: 1,000 conversations of 60
//! steps (a hidden system message, a regenerated reply every tenth turn, a tool call and
//! its result every fifth, Markdown replies of about 1 KB). Also times a Hearth export of
//! the records it gives, read back through the same entry point. Records the
//! `peer-import` section of the benchmarks file.
//!
//! Native figures stand in for the browser's: the app runs the same code as wasm,
//! typically 1.5–3× slower.

use std::time::{Duration, Instant};

use hearth_bench::record;
use hearth_core::chat::peer_import::read_records;
use serde_json::{Value, json};

const CONVERSATIONS: usize = 1_000;
const TURNS: usize = 30;
const REPEATS: usize = 5;

fn message(role: &str, at: f64, text: &str) -> Value {
    json!({
        "id": format!("m-{at}"),
        "author": {"role": role, "metadata": {}},
        "create_time": at,
        "content": {"content_type": "text", "parts": [text]},
        "status": "finished_successfully",
        "metadata": {"model_slug": "gpt-4o"},
        "recipient": "all",
    })
}

fn node(id: &str, parent: Option<&str>, message: Value) -> Value {
    json!({"id": id, "parent": parent, "children": [], "message": message})
}

/// The export, as ChatGPT writes it.
fn export() -> String {
    let reply = "Here is how it works:\n\n1. **First**, the request is read.\n2. Then `parse()` runs.\n\n```rust\nfn main() { println!(\"hi\"); }\n```\n".repeat(5);
    let conversations: Vec<Value> = (0..CONVERSATIONS)
        .map(|c| {
            let base = 1_700_000_000.0 + (c * 10_000) as f64;
            let mut mapping = serde_json::Map::new();
            let mut hidden = message("system", base, "");
            hidden["metadata"]["is_visually_hidden_from_conversation"] = json!(true);
            mapping.insert("root".into(), node("root", None, Value::Null));
            mapping.insert("sys".into(), node("sys", Some("root"), hidden));
            let mut parent = "sys".to_string();
            let mut at = base;
            for t in 0..TURNS {
                at += 10.0;
                let q = format!("q{t}");
                let question = format!("Question {t} of conversation {c}: how does step {t} work?");
                mapping.insert(
                    q.clone(),
                    node(&q, Some(&parent), message("user", at, &question)),
                );
                let mut last = q.clone();
                if t % 5 == 0 {
                    let mut call = message("assistant", at + 1.0, "search(\"step\")");
                    call["recipient"] = json!("browser");
                    let result = message("tool", at + 2.0, "results");
                    mapping.insert(format!("c{t}"), node(&format!("c{t}"), Some(&last), call));
                    mapping.insert(
                        format!("r{t}"),
                        node(&format!("r{t}"), Some(&format!("c{t}")), result),
                    );
                    last = format!("r{t}");
                }
                if t % 10 == 9 {
                    let id = format!("b{t}");
                    mapping.insert(
                        id.clone(),
                        node(
                            &id,
                            Some(&q),
                            message("assistant", at + 3.0, "An older answer."),
                        ),
                    );
                }
                let a = format!("a{t}");
                mapping.insert(
                    a.clone(),
                    node(&a, Some(&last), message("assistant", at + 4.0, &reply)),
                );
                parent = a;
            }
            json!({
                "title": format!("Conversation {c}"),
                "create_time": base,
                "update_time": at,
                "mapping": mapping,
                "current_node": parent,
                "conversation_id": format!("conv-{c}"),
            })
        })
        .collect();
    Value::Array(conversations).to_string()
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn time<T>(f: impl Fn() -> T) -> (Duration, T) {
    let mut runs = Vec::new();
    let mut last = None;
    for _ in 0..REPEATS {
        let start = Instant::now();
        let out = f();
        runs.push(start.elapsed());
        last = Some(out);
    }
    (median(runs), last.expect("ran"))
}

fn main() {
    let out = record::out_file();
    let label = record::label();
    let text = export();
    let mib = text.len() as f64 / (1024.0 * 1024.0);
    let (peer, records) = time(|| read_records(&text, 0.0).expect("the export reads"));
    let conversations = records.archive.conversations.len();
    let messages = records.archive.messages.len();
    let hearth = serde_json::to_string(&records.archive).expect("serialises");
    let hearth_mib = hearth.len() as f64 / (1024.0 * 1024.0);
    let (own, again) = time(|| read_records(&hearth, 0.0).expect("the export reads"));
    assert_eq!(again.archive.messages.len(), messages);
    let rate = |d: Duration, size: f64| size / d.as_secs_f64();
    let body = format!(
        "### Importing another app's export\n\n\
         {label}. Measured by `bench/src/bin/import_bench.rs` (release, native; the app runs \
         the same `hearth_core::chat::peer_import` as wasm, typically 1.5–3× slower). A \
         generated ChatGPT `conversations.json` of {CONVERSATIONS} conversations, {TURNS} \
         turns each, with hidden system messages, tool calls and results, and regenerated \
         replies; median of {REPEATS} runs. The time is the JSON parse, the format's \
         reading and the tree's building, and the archive's check; not the file's read or \
         the database write.\n\n\
         | input | size | conversations | messages | read | throughput |\n\
         |---|---:|---:|---:|---:|---:|\n\
         | ChatGPT `conversations.json` | {mib:.1} MiB | {conversations} | {messages} | {:.0} ms | {:.0} MiB/s |\n\
         | the Hearth records it gives | {hearth_mib:.1} MiB | {conversations} | {messages} | {:.0} ms | {:.0} MiB/s |\n",
        peer.as_secs_f64() * 1e3,
        rate(peer, mib),
        own.as_secs_f64() * 1e3,
        rate(own, hearth_mib),
    );
    print!("{body}");
    record::write_section(&out, "peer-import", &body).expect("write the benchmarks file");
}
