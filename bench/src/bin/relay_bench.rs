//! `relay_bench [BENCHMARKS.md]`: what making a relayed reply resumable costs. The real
//! `hearth` as it ships (`server-release`, run from `HEARTH_BIN`) relays one reply of
//! 2,000 events (the provider fixture, OpenAI chat, as fast as it can write) three ways,
//! in one run, alternating: unnamed (the plain stream), named with the batches kept in
//! this process (local mode), and named with the batches kept in a real Redis
//! (`REDIS_URL`, as every hosted instance does). Then a named reply is cut mid-stream and
//! resumed, and the time from the resume request to the first resumed byte is taken.
//! Last, what a long answer costs on the wire: 200 KiB of mixed English, Chinese and
//! Japanese prose in 4,000 events, relayed to a client that takes gzip and to one that
//! does not (the edge flushes its gzip after every chunk). Records the `relay` section of
//! the benchmarks file.
//!
//! The client is a plain HTTP/1.1 socket reading to the end, so the figures are the
//! edge's, not a browser's.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hearth_bench::record;
use hearth_core::provider::Protocol;
use hearth_e2e::process::{Hearth, free_port};
use hearth_e2e::provider_fixture::{ProviderFixture, Reply};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const EVENTS: usize = 2_000;
const CHARS: usize = 16;
const REPEATS: usize = 15;
/// The long answer measured on the wire: its bytes and its events.
const LONG_BYTES: usize = 200 * 1024;
const LONG_EVENTS: usize = 4_000;

struct Redis(Child);

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_redis() -> (Redis, u16) {
    let port = free_port();
    let child =
        Command::new(std::env::var("REDIS_SERVER").unwrap_or_else(|_| "redis-server".into()))
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server (scripts/setup.sh test installs it)");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    (Redis(child), port)
}

fn body(base_url: &str) -> String {
    json!({
        "provider": {"protocol": "openai-chat", "baseUrl": base_url, "compatible": true},
        "request": {"model": "fixture-small", "messages": [{"role": "user", "parts": [{"type": "text", "text": "Go"}]}], "tools": []},
        "capabilities": {"vision": false, "tools": false, "reasoning": false}
    })
    .to_string()
}

fn relay_id(n: usize) -> String {
    format!("bench-{:016x}-{n:06}", std::process::id())
}

/// Sends `request` raw and reads until the connection closes (or `stop_after` bytes);
/// the bytes and the time to the first and last of them.
async fn exchange(
    port: u16,
    request: &str,
    stop_after: Option<usize>,
) -> (Vec<u8>, Duration, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut all = Vec::new();
    let mut first = None;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = stream.read(&mut buffer).await.expect("read");
        if n == 0 {
            break;
        }
        first.get_or_insert_with(|| started.elapsed());
        all.extend_from_slice(&buffer[..n]);
        if stop_after.is_some_and(|limit| all.len() >= limit) {
            break;
        }
    }
    (all, first.unwrap_or_default(), started.elapsed())
}

fn post(port: u16, body: &str, id: Option<&str>) -> String {
    post_with(port, body, id, "")
}

/// The relay request with `extra` header lines (each ending in CRLF).
fn post_with(port: u16, body: &str, id: Option<&str>, extra: &str) -> String {
    let named = id
        .map(|id| format!("hearth-relay-id: {id}\r\n"))
        .unwrap_or_default();
    format!(
        "POST /api/chat/relay HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n{named}{extra}Connection: close\r\n\r\n{body}",
        body.len()
    )
}

/// A long answer of mixed prose, about `bytes` long (the search benchmark's generated
/// messages: a 30,000-word vocabulary, Chinese and Japanese among them).
fn long_answer(bytes: usize) -> String {
    let corpus = hearth_bench::search_corpus::generate(40, 20, 7);
    let mut text = String::new();
    for document in corpus.documents.iter().cycle() {
        if text.len() >= bytes {
            break;
        }
        text.push_str(&document.body);
        text.push_str("\n\n");
    }
    text
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let out = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("docs/BENCHMARKS.md"));
    let label = std::env::var("BENCH_LABEL").unwrap_or_else(|_| "unlabelled run".into());
    let fixture = ProviderFixture::start().await;
    let base = fixture.base_url(Protocol::OpenAiChat);
    let text = "abcdefghijklmnop".repeat(EVENTS * CHARS / 16);
    let reply = || Reply::text(text.clone()).text_chunk_chars(CHARS);
    let dist = hearth_e2e::paths::dist_dir();
    let (_redis, redis_port) = start_redis();
    let redis_url = format!("redis://127.0.0.1:{redis_port}/");
    let local = Hearth::start(&dist, &[]);
    let shared = Hearth::start(&dist, &[("REDIS_URL", &redis_url)]);
    let body = body(&base);

    let ways: [(&str, u16, bool); 3] = [
        ("unnamed (a plain stream)", local.port(), false),
        ("named, batches in this process", local.port(), true),
        ("named, batches in Redis", shared.port(), true),
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); ways.len()];
    let mut sizes = vec![0usize; ways.len()];
    let mut n = 0;
    for round in 0..=REPEATS {
        for (i, (_, port, named)) in ways.iter().enumerate() {
            fixture.enqueue(reply());
            n += 1;
            let id = relay_id(n);
            let (bytes, _, total) = exchange(
                *port,
                &post(*port, &body, named.then_some(id.as_str())),
                None,
            )
            .await;
            let answer = String::from_utf8_lossy(&bytes);
            assert!(
                answer.starts_with("HTTP/1.1 200"),
                "{}",
                &answer[..answer.len().min(300)]
            );
            assert!(
                answer.contains("[DONE]"),
                "the whole reply came: {}",
                &answer[answer.len().saturating_sub(600)..]
            );
            // The first round warms up the connection pools and the caches.
            if round > 0 {
                times[i].push(total);
                sizes[i] = bytes.len();
            }
        }
    }
    let medians: Vec<Duration> = times.into_iter().map(median).collect();

    // A named reply, slowed so it is still running, cut after its first events; then the
    // resume's first byte.
    let mut first_bytes = Vec::new();
    for _ in 0..REPEATS {
        fixture.enqueue(
            Reply::text("tick ".repeat(400))
                .text_chunk_chars(5)
                .delay_ms(2),
        );
        n += 1;
        let id = relay_id(n);
        let port = shared.port();
        let (cut, _, _) = exchange(port, &post(port, &body, Some(&id)), Some(2_000)).await;
        assert!(
            String::from_utf8_lossy(&cut).contains("id: "),
            "batches are numbered"
        );
        let resume = format!(
            "GET /api/chat/relay/{id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nLast-Event-ID: 1\r\nConnection: close\r\n\r\n"
        );
        let (rest, first, _) = exchange(port, &resume, None).await;
        assert!(String::from_utf8_lossy(&rest).contains(": hearth-relay-end"));
        first_bytes.push(first);
    }
    let resume_first = median(first_bytes);

    // A long answer on the wire, to a client that takes gzip and to one that does not.
    let long = long_answer(LONG_BYTES);
    let chunk_chars = long.chars().count().div_ceil(LONG_EVENTS);
    // An instance of its own: the relay's rate limit counts per client.
    let wire_edge = Hearth::start(&dist, &[]);
    let port = wire_edge.port();
    let mut wire = [0usize; 2];
    let mut wire_times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for round in 0..=REPEATS {
        for (i, extra) in ["", "Accept-Encoding: gzip, deflate, br\r\n"]
            .iter()
            .enumerate()
        {
            fixture.enqueue(Reply::text(long.clone()).text_chunk_chars(chunk_chars));
            let (bytes, _, total) =
                exchange(port, &post_with(port, &body, None, extra), None).await;
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(600)]).to_lowercase();
            assert!(head.starts_with("http/1.1 200"), "{head}");
            assert_eq!(
                head.contains("content-encoding: gzip"),
                i == 1,
                "gzip only when taken: {head}"
            );
            if round > 0 {
                wire[i] = bytes.len();
                wire_times[i].push(total);
            }
        }
    }
    let [plain_wire, gzip_wire] = wire;
    let [plain_time, gzip_time] = wire_times.map(median);

    let base_time = medians[0].as_secs_f64();
    let mut table =
        String::from("| relayed | answer | median | vs unnamed |\n|---|---:|---:|---:|\n");
    for (i, (name, _, _)) in ways.iter().enumerate() {
        table.push_str(&format!(
            "| {name} | {:.0} KiB | {} | {:.2}× |\n",
            sizes[i] as f64 / 1024.0,
            ms(medians[i]),
            medians[i].as_secs_f64() / base_time
        ));
    }
    let body = format!(
        "### Relayed replies, resumable\n\n{label}. Measured by `bench/src/bin/relay_bench.rs` \
         (`hearth` as it ships, profile `server-release`; a raw HTTP/1.1 client on loopback; the provider fixture writing \
         as fast as it can): one reply of {EVENTS} events of {CHARS} characters, relayed each way \
         in turn, median of {REPEATS} runs after a warm-up.\n\n{table}\n\
         A named reply on Redis cut mid-stream, then resumed (`Last-Event-ID: 1`) on the same \
         instance: the first resumed byte after **{}** (median of {REPEATS}; the resume polls the \
         buffer every 100 ms).\n\n\
         A long answer on the wire: {:.0} KiB of generated prose (English, Chinese and Japanese) in \
         {LONG_EVENTS} OpenAI events, unnamed, on loopback:\n\n\
         | client | bytes received | median | vs plain |\n|---|---:|---:|---:|\n\
         | says nothing of gzip | {:.0} KiB | {} | 1.00× |\n\
         | takes gzip (flushed per chunk) | {:.0} KiB | {} | {:.2}× time, {:.2}× bytes |\n",
        ms(resume_first),
        long.len() as f64 / 1024.0,
        plain_wire as f64 / 1024.0,
        ms(plain_time),
        gzip_wire as f64 / 1024.0,
        ms(gzip_time),
        gzip_time.as_secs_f64() / plain_time.as_secs_f64(),
        gzip_wire as f64 / plain_wire as f64,
    );
    record::write_section(&out, "relay", &body).expect("write the benchmarks file");
    println!("{body}");
}
