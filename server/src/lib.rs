//! # hearth-server
//!
//! The edge of Hearth: a thin axum server that serves the browser app and, as later issues
//! land, does what a browser cannot or must not do alone (plugin tools, MCP, relayed model
//! calls, document-parse jobs). It stores nothing about a user's conversations.
//!
//! ## Layout
//!
//! - [`byok`]: the envelope key pair (from the environment, or kept in the data
//!   directory) and the opening of BYOK envelopes.
//! - [`config`]: command-line flags and environment variables, and the checks that refuse
//!   an unsafe configuration before anything binds.
//! - [`app`]: assembles the router and the layers every response passes.
//! - [`state`]: the state every handler and layer shares, built from the configuration.
//! - [`access`]: the deployment password gate: signed expiring session cookies,
//!   constant-time comparison, lockout per client kept in the store.
//! - [`allowed_hosts`]: the host names every route answers for and the origins that
//!   count as the edge's own (DNS rebinding defence).
//! - [`api`]: the `/api/*` routes and the one JSON error response.
//! - [`static_files`]: the release `dist/` held in memory, with MIME types, cache policy,
//!   ETags, gzip and the SPA fallback.
//! - [`rate_limit`]: per-family limits per client (trusted-proxy-aware address, signed
//!   client cookie when hosted), counted in the store.
//! - [`safe_fetch`]: the one outbound HTTP client for URLs from outside: URL policy on
//!   every hop and every resolved address, manual redirects, one deadline, capped bodies.
//! - [`signing`]: the HMAC key for session and client tokens.
//! - [`server_providers`]: providers configured by the operator (`DEFAULT_PROVIDER_*`).
//! - [`security_headers`]: the CSP and the other headers on every response.
//! - [`guard`]: same-origin checks on state-changing `/api` requests, rate limits, and
//!   the gate's session requirement.
//! - [`healthcheck`]: `hearth healthcheck`, the container health probe.
//! - [`mcp_registry`]: `GET /api/mcp/servers`, browsing the official MCP registry (or the
//!   operator's mirror) over HTTPS through `safe_fetch`, answered as bounded summaries.
//! - [`kv`]: the store for the edge's small shared state (memory, or Redis when shared).
//! - [`logging`]: the tracing subscriber and a request log that never records queries,
//!   headers or bodies (where secrets live).
//! - [`web_reader`]: the built-in web page reader, a model-chosen target (public HTTPS
//!   only).
//! - [`shutdown`]: SIGTERM / SIGINT handlers, installed before binding, for graceful
//!   shutdown.

pub mod access;
pub mod allowed_hosts;
pub mod api;
pub mod app;
pub mod byok;
pub mod config;
pub mod guard;
pub mod healthcheck;
pub mod kv;
pub mod logging;
pub mod mcp;
pub mod mcp_registry;
pub mod plugins;
pub mod providers;
pub mod rate_limit;
pub mod safe_fetch;
pub mod security_headers;
pub mod shutdown;
pub mod signing;
pub mod state;
pub mod static_files;
pub mod web_reader;
