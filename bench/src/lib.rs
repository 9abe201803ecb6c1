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
//! - [`record`]: writes a figure table into its marked section of `docs/BENCHMARKS.md`.

pub mod bundle;
pub mod record;
