#!/usr/bin/env bash
# Builds the release app and records the benchmark figures in docs/BENCHMARKS.md.
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$root"
trunk build --release --offline
export BENCH_LABEL="$(date -u +%Y-%m-%d), rustc $(rustc --version | awk '{print $2}'), $(nproc) cores"
cargo run --quiet --locked --release -p hearth-bench --bin bundle-size -- dist docs/BENCHMARKS.md
# The chat in headless Chromium (runs the server binary HEARTH_BIN names).
scripts/build-server.sh --quiet
# The benchmarks run the edge as it ships, in the browser users run: Chromium itself (the
# tests run its lighter headless shell).
export HEARTH_BIN="$HEARTH_TARGET_DIR/server-release/hearth"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
cargo run --quiet --locked --release -p hearth-bench --bin chat_bench -- docs/BENCHMARKS.md
# The search engine over 100,000 generated messages, natively (no browser needed).
cargo run --quiet --locked --release -p hearth-bench --bin search_bench -- docs/BENCHMARKS.md
# The same corpus in the browser: the search worker's build, queries and reopening.
cargo run --quiet --locked --release -p hearth-bench --bin search_browser -- docs/BENCHMARKS.md
# Reading another app's export into records, natively.
cargo run --quiet --locked --release -p hearth-bench --bin import_bench -- docs/BENCHMARKS.md
# What skills cost a turn with 1,000 installed, natively.
cargo run --quiet --locked --release -p hearth-bench --bin skills_bench -- docs/BENCHMARKS.md
# What memory costs a turn with the book full, natively.
cargo run --quiet --locked --release -p hearth-bench --bin memory_bench -- docs/BENCHMARKS.md
# What knowledge retrieval costs a turn (1,000 documents), natively.
cargo run --quiet --locked --release -p hearth-bench --bin knowledge_bench -- docs/BENCHMARKS.md
# The same library in the browser: the search worker reads and indexes it off the page.
cargo run --quiet --locked --release -p hearth-bench --bin knowledge_browser -- docs/BENCHMARKS.md
# What a resumable relay costs (the release server, a real Redis).
cargo run --quiet --locked --release -p hearth-bench --bin relay_bench -- docs/BENCHMARKS.md
# The sandboxes: a Mermaid diagram drawn (Mermaid's first start, then warm) and a 50 KB
# HTML artifact previewed, in headless Chromium.
cargo run --quiet --locked --release -p hearth-bench --bin sandbox_bench -- docs/BENCHMARKS.md
