//! The wire types of the edge's HTTP API. Field names are camelCase on the wire so a Neo
//! Chat client's expectations carry over; Rust names stay snake_case.

mod access;
mod config;
pub mod doc_parse;
mod error;
mod health;
pub mod mcp_oauth;
pub mod mcp_registry;
pub mod operations;
mod parse_error;
mod plugins;
mod relay;
pub mod relay_bounds;
pub mod relay_resume;
pub mod web_search;

pub use access::{AccessSession, AccessVerifyRequest, InvalidPasswordDetails, LockedDetails};
pub use config::{
    Capabilities, ConfigProviders, DEFAULT_STREAM_SILENCE_SECS, DeploymentInfo, DeploymentMode,
    PublicConfig, StoreState,
};
pub use error::{ApiError, ErrorCode};
pub use health::{HealthReport, ServiceHealth, ServiceStatus};
pub use mcp_registry::{
    McpRemote, McpRemoteHeader, McpServer, McpServersQuery, McpServersResponse, McpTransport,
};
pub use parse_error::redact_parse_error;
pub use plugins::{
    McpPromptsAction, McpPromptsRequest, McpResourcesAction, McpResourcesRequest,
    PluginExecuteRequest, PluginExecuteResponse, PluginInstallRequest, PluginInstallResponse,
    PluginListResponse, PluginRefreshRequest, PluginRefreshResponse, PluginUninstallRequest,
    REASON_INSUFFICIENT_SCOPE, REASON_SERVER_AUTH, RegisteredPlugin, ServerRefusal,
    SkippedOperation,
};
pub use relay::{ModelListRequest, ModelListResponse, RelayProvider, RelayRequest, ServerProvider};
