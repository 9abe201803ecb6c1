//! Markdown rendering off the main thread. The renderer (pulldown-cmark, pulldown-latex)
//! lives in its own wasm module (crate `hearth-render-worker` in `app/render-worker`,
//! which answers with `hearth_core::markdown::render`, the one sanitising Markdown → HTML
//! path) running in a dedicated Web Worker, so it costs nothing on the first load and
//! never blocks the page while a reply streams.
//!
//! - [`client`]: the page's side: starts the worker on first use, matches answers to
//!   requests, and replaces a worker that dies or hangs.
//! - [`supervisor`]: the client's bookkeeping (what to post again, what to blame, when to
//!   give up), kept free of browser types so it is tested natively.
//! - [`html_blocks`]: a reply's inline HTML blocks, sanitised by a second worker that
//!   starts (with its lazily loaded page side) only when a reply first holds one.
//! - [`view`]: the `MarkdownBody` component, which renders finished blocks once and
//!   re-renders only the open tail of a streaming reply.

pub mod client;
pub mod html_blocks;
pub mod supervisor;
pub mod view;
