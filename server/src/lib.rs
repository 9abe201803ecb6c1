//! # hearth-server
//!
//! The edge of Hearth: a thin axum server that serves the browser app and, as later issues
//! land, does what a browser cannot or must not do alone (plugin tools, MCP, relayed model
//! calls, document-parse jobs). It stores nothing about a user's conversations.
//!
//! ## Layout
//!
//! In layers, each importing only the ones below it:
//!
//! - [`app`]: assembles the router and the layers every response passes; [`guard`]: the
//!   host check before any route, then same-origin checks on state-changing `/api`
//!   requests, rate limits, and the gate's session requirement.
//! - [`api`]: the `/api/*` handlers (parse, call a service, answer), the one JSON error
//!   response and the body extractors.
//! - [`state`]: the state every handler and layer shares, built from the configuration.
//! - Services: [`providers`] (the relay and model listings, the operator's providers),
//!   [`plugins`] (installing, listing and running plugins), [`mcp`] (remote MCP
//!   servers), [`mcp_oauth`] (OAuth sign-in to them: discovery, registration, tokens), [`mcp_registry`] (the MCP registry client, over HTTPS through
//!   `safe_fetch`), [`web_reader`] (the built-in web page reader, a model-chosen target:
//!   public HTTPS only), [`access`] (the deployment password gate: signed expiring
//!   session cookies, constant-time comparison, lockout per client kept in the store),
//!   [`rate_limit`] (per-family limits per client, counted in the store), [`doc_parse`]
//!   (document-parse jobs: stored beside the rate limits, run under a lease by a worker
//!   process with memory, CPU and time limits, taken over when an instance dies),
//!   [`relays`] (resumable relayed replies: numbered batches buffered beside the other
//!   shared state, resumed on any instance), [`client_scope`] (whose edge state a request
//!   touches), [`operations`] (named edge mutations: a repeat answers the recorded
//!   answer, a lost answer can be looked up), [`web_search`] (one web search with the
//!   deployment's service or the user's, through `safe_fetch`).
//! - Foundations: [`config`] (command-line flags and environment variables, and the
//!   checks that refuse an unsafe configuration before anything binds; [`operator_url`]
//!   checks the base URLs the operator points services at), [`kv`] (the
//!   store for the edge's small shared state: memory, Redis or Upstash), [`safe_fetch`]
//!   (the one outbound HTTP client for URLs from outside: URL policy on every hop and
//!   every resolved address, manual redirects, one deadline, capped bodies), [`byok`]
//!   (the envelope key pair and the opening of BYOK envelopes), [`signing`] (the HMAC
//!   key for session and client tokens), [`allowed_hosts`] (the host names every route
//!   answers for and the origins that count as the edge's own), [`static_files`] (the
//!   release `dist/` in memory: MIME types, cache policy, ETags, gzip, SPA fallback),
//!   [`content_coding`] (`Accept-Encoding`, gzip of a body and of a stream flushed per
//!   chunk), [`clock`] (the wall clock in ms),
//!   [`security_headers`] (the CSP and the other headers), [`sandbox`] (the artifact
//!   preview page and its own policy), [`logging`] (the tracing
//!   subscriber and a request log that never records queries, headers or bodies),
//!   [`shutdown`] (SIGTERM / SIGINT handlers, installed before binding) and
//!   [`healthcheck`] (`hearth healthcheck`, the container health probe).

pub mod access;
pub mod allowed_hosts;
pub mod api;
pub mod app;
pub mod byok;
pub mod client_scope;
pub mod clock;
pub mod config;
pub mod content_coding;
pub mod doc_parse;
pub mod guard;
pub mod healthcheck;
pub mod kv;
pub mod logging;
pub mod mcp;
pub mod mcp_oauth;
pub mod mcp_registry;
pub mod operations;
pub mod operator_url;
pub mod plugins;
pub mod providers;
pub mod rate_limit;
pub mod relays;
pub mod safe_fetch;
pub mod sandbox;
pub mod security_headers;
pub mod shutdown;
pub mod signing;
pub mod state;
pub mod static_files;
pub mod voice;
pub mod web_reader;
pub mod web_search;
