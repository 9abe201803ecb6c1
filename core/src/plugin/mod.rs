//! Plugins: tools a model may call, from an OpenAPI description (REST), a remote MCP
//! server, or built into Hearth. The rules that keep a call safe live here, shared by the
//! browser (which shows and confirms calls) and the edge (which executes them):
//!
//! - [`model`]: `Plugin` and `PluginFunction`, their sources and auth.
//! - [`method`]: the HTTP methods a REST function may use.
//! - [`risk`]: the floor each transport sets (`GET` at least `read`, `DELETE` always
//!   `destructive`, other methods at least `write`, MCP at least `external`); a manifest
//!   or an MCP annotation may raise a level, never lower it.
//! - [`fingerprint`]: a SHA-256 of each function's execution contract, checked again by
//!   the edge right before dispatch.
//! - [`names`]: model-safe function names and MCP tool names within 64 characters, with
//!   the map back to the server's own name.
//! - [`openapi`]: OpenAPI 3.x and Swagger 2.0 (JSON or YAML) imported as functions,
//!   with caps, `$ref` limits and a reason for everything refused or skipped.
//! - [`mcp`]: an MCP server's `tools/list` as functions (names, schemas, risk).
//! - [`mcp_prompt`]: an MCP server's prompts for the composer: the list read bounded,
//!   required arguments checked, a prompt's messages as text.
//! - [`mcp_resource`]: an MCP server's resources for the composer's `@`: the list read
//!   bounded, a read's contents as files named from their URIs.
//! - [`mcp_app`]: MCP Apps: a tool's `ui://` page and who may call it, the page read
//!   from its server, a page's tool calls resolved like a model's, and the JSON-RPC
//!   bridge between page and host.
//! - [`mcp_list`]: how long those lists stay fresh, from the server's caching hint.
//! - [`oauth`]: OAuth 2.1 sign-in to a remote MCP server (discovery, client identity,
//!   PKCE, the redirect's checks, token requests and refresh), as rules without I/O.
//! - [`headers`]: the plain headers and the credential's header an MCP server may be
//!   given, and the settings form's `Name: value` lines read under the same rules.
//! - [`result`]: the one bounded result shape of REST and MCP calls.
//! - [`args`]: arguments checked against the function's schema and caps before dispatch.
//! - [`call`]: a checked REST call as the HTTP request the edge sends: path parameters
//!   encoded into one segment each, query or JSON body, the credential where the auth
//!   says, never off the plugin's server.
//! - [`tool_loop`]: rounds (20), calls (30), concurrency (4), and the final round
//!   without tools that ends a reply at the limit.
//! - [`approval`]: whether a call runs or waits (confirmation off by default; destructive
//!   calls always ask once; session approvals bound to the fingerprint).
//! - [`builtin`]: Hearth's own plugins (the web page reader).
//! - [`selection`]: the user's plugin and function switches and confirmation mode, and
//!   the tools a request offers with what each name executes.
//! - [`registry`]: which function a name means among the active plugins: a name two
//!   plugins expose is a reported collision, never a guess; built-in ids are reserved.

pub mod approval;
pub mod args;
pub mod builtin;
pub mod call;
pub mod elicitation;
pub mod fingerprint;
pub mod headers;
pub mod mcp;
pub mod mcp_app;
pub mod mcp_list;
pub mod mcp_prompt;
pub mod mcp_resource;
pub mod method;
pub mod model;
pub mod names;
pub mod oauth;
pub mod openapi;
pub mod registry;
pub mod result;
pub mod risk;
pub mod selection;
pub mod tool_loop;

pub use model::{Auth, AuthPlacement, HttpMethod, McpInfo, Plugin, PluginFunction, Source};
pub use risk::Risk;
