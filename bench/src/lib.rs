//! # hearth-bench
//!
//! Measurements of Hearth's budgets (DESIGN.md, "Performance budgets"). Figures are
//! recorded in `docs/BENCHMARKS.md` by the binaries here; tests may check sizes (bytes are
//! deterministic) but never timings.
//!
//! ## Layout
//!
//! - [`bundle`]: the critical-path transfer size of the release app: every script,
//!   stylesheet and wasm file `index.html` loads before the app can start.
//! - [`knowledge_corpus`]: the deterministic library of the knowledge benchmarks.
//! - [`page`]: scripts the browser benchmarks run in the page (main-thread gaps).
//! - [`record`]: writes a figure table into its marked section of `docs/BENCHMARKS.md`.
//! - [`search_corpus`]: the deterministic messages and queries of the search benchmark
//!   (`src/bin/search_bench.rs`, `search_bench`).
//! - `src/bin/bundle_size.rs` (`bundle-size`) and `src/bin/chat_bench.rs` (`chat_bench`,
//!   the chat in headless Chromium through the end-to-end harness of `hearth-e2e`) write
//!   their sections; `tests/bundle_budget.rs` fails past the shell's gzip budget.

pub mod bundle;
pub mod knowledge_corpus;
pub mod page;
pub mod record;
pub mod search_corpus;
