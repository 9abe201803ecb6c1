//! Markdown rendering off the main thread. The renderer (pulldown-cmark, pulldown-latex)
//! lives in its own wasm module (crate `hearth-render-worker` in `app/render-worker`,
//! which answers with `hearth_core::markdown::render`, the one sanitising Markdown → HTML
//! path) running in a dedicated Web Worker, so it costs nothing on the first load and
//! never blocks the page while a reply streams.
//!
//! - [`client`]: the page's side: starts the worker on first use and matches answers to
//!   requests.
//! - [`view`]: the `MarkdownBody` component, which renders finished blocks once and
//!   re-renders only the open tail of a streaming reply.

pub mod client;
pub mod view;
