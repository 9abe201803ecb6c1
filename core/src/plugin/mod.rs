//! Plugins: tools a model may call, from an OpenAPI description (REST), a remote MCP
//! server, or built into Hearth. The rules that keep a call safe live here, shared by the
//! browser (which shows and confirms calls) and the edge (which executes them):
//!
//! - [`model`]: `Plugin` and `PluginFunction`, their sources and auth.
//! - [`risk`]: the floor each transport sets (`GET` at least `read`, `DELETE` always
//!   `destructive`, other methods at least `write`, MCP at least `external`); a manifest
//!   or an MCP annotation may raise a level, never lower it.
//! - [`fingerprint`]: a SHA-256 of each function's execution contract, checked again by
//!   the edge right before dispatch.
//! - [`names`]: model-safe function names and MCP tool names within 64 characters, with
//!   the map back to the server's own name.
//! - [`openapi`]: OpenAPI 3.x and Swagger 2.0 (JSON or YAML) imported as functions,
//!   with caps, `$ref` limits and a reason for everything refused or skipped.
//! - [`args`]: arguments checked against the function's schema and caps before dispatch.
//! - [`registry`]: which function a name means among the active plugins: a name two
//!   plugins expose is a reported collision, never a guess; built-in ids are reserved.

pub mod args;
pub mod fingerprint;
pub mod model;
pub mod names;
pub mod openapi;
pub mod registry;
pub mod risk;

pub use model::{Auth, AuthPlacement, HttpMethod, McpInfo, Plugin, PluginFunction, Source};
pub use risk::Risk;
