//! `GET /api/mcp/servers`: browsing the official MCP registry
//! (`registry.modelcontextprotocol.io`, or an operator's mirror) through the edge.
//!
//! The edge asks the registry for one page (`GET {base}/v0.1/servers?limit=&version=latest
//! &cursor=&search=`, the registry's stable API version) and answers a bounded summary of
//! it: per server its name, title, description, version, website and the remote endpoints
//! Hearth could reach. The registry is remote data, so everything is capped
//! ([`MAX_LIMIT`] servers, [`MAX_REMOTES`] remotes and [`MAX_HEADERS`] headers each,
//! strings cut to their `MAX_*_CHARS`), and it is read tolerantly: unknown fields are
//! ignored, a missing optional field is absent, and an entry that cannot be read is left
//! out instead of failing the page. Only a body that is not a server list at all is an
//! error ([`RegistryPageError`]).
//!
//! Hearth never spawns local (`stdio`) packages and does not speak legacy SSE, so a server
//! is [`McpServer::installable`] only when it has a `streamable-http` remote. A remote
//! whose URL is not an absolute `https://` URL (plain HTTP, a template such as
//! `{baseUrl}/mcp`, another scheme, credentials in the URL, or longer than
//! [`MAX_URL_CHARS`]) is dropped rather than cut: a shortened URL is a different URL.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

use crate::url_policy::UrlPolicy;

/// The official registry, the default of `HEARTH_MCP_REGISTRY_URL`.
pub const DEFAULT_REGISTRY_URL: &str = "https://registry.modelcontextprotocol.io";
/// Servers per page when the query names no limit.
pub const DEFAULT_LIMIT: u32 = 30;
/// Most servers per page (the query's limit is clamped to `1..=MAX_LIMIT`).
pub const MAX_LIMIT: u32 = 100;
/// Longest server name, title or header name kept, in characters.
pub const MAX_NAME_CHARS: usize = 200;
/// Longest description kept, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 2000;
/// Longest version kept, in characters (the registry's own bound).
pub const MAX_VERSION_CHARS: usize = 255;
/// Longest URL kept, in characters; longer URLs are dropped, not cut.
pub const MAX_URL_CHARS: usize = 2048;
/// Most remotes kept per server.
pub const MAX_REMOTES: usize = 8;
/// Most headers kept per remote.
pub const MAX_HEADERS: usize = 16;
/// Longest cursor accepted from a caller or passed on from the registry.
pub const MAX_CURSOR_CHARS: usize = 1024;
/// Longest search term accepted.
pub const MAX_SEARCH_CHARS: usize = 200;

/// The query of `GET /api/mcp/servers`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServersQuery {
    /// The `nextCursor` of the previous page; absent for the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// A substring of the servers' names (the official registry also matches
    /// descriptions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
    /// Servers per page, clamped to `1..=100`; 30 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// A query the edge refuses (answered as `BAD_REQUEST`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpServersQueryError {
    /// The cursor is longer than [`MAX_CURSOR_CHARS`].
    #[error("the cursor is longer than {MAX_CURSOR_CHARS} characters")]
    CursorTooLong,
    /// The search term is longer than [`MAX_SEARCH_CHARS`].
    #[error("the search term is longer than {MAX_SEARCH_CHARS} characters")]
    SearchTooLong,
}

/// A registry base URL that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a usable MCP registry URL: it must be an absolute https:// URL with a host, \
     without credentials, query or fragment"
)]
pub struct RegistryUrlError(pub String);

/// Checks a registry base URL: `https`, a host, no credentials, no query or fragment (the
/// edge appends its own path and query). Used at startup and for each request.
pub fn check_registry_url(base: &str) -> Result<Url, RegistryUrlError> {
    let refuse = || RegistryUrlError(base.to_string());
    let url = Url::parse(base.trim()).map_err(|_| refuse())?;
    let usable = url.scheme() == "https"
        && url.host().is_some()
        && url.username().is_empty()
        && url.password().is_none()
        && url.query().is_none()
        && url.fragment().is_none()
        && !url.cannot_be_a_base();
    if usable { Ok(url) } else { Err(refuse()) }
}

/// The URL policy of the registry client, on every hop: an operator-configured target
/// (private addresses allowed, as for `DEFAULT_PROVIDER_BASE_URL`; cloud metadata
/// refused), HTTPS only.
pub fn registry_policy() -> UrlPolicy {
    UrlPolicy {
        require_https: true,
        ..UrlPolicy::local()
    }
}

impl McpServersQuery {
    /// The page size asked for: the query's limit clamped to `1..=MAX_LIMIT`, or
    /// [`DEFAULT_LIMIT`].
    pub fn effective_limit(&self) -> u32 {
        self.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT)
    }

    /// The cursor, if one was given (blank counts as none).
    pub fn cursor(&self) -> Result<Option<&str>, McpServersQueryError> {
        match self
            .cursor
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            Some(cursor) if cursor.chars().count() > MAX_CURSOR_CHARS => {
                Err(McpServersQueryError::CursorTooLong)
            }
            other => Ok(other),
        }
    }

    /// The search term, if one was given (blank counts as none).
    pub fn search(&self) -> Result<Option<&str>, McpServersQueryError> {
        match self
            .search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            Some(search) if search.chars().count() > MAX_SEARCH_CHARS => {
                Err(McpServersQueryError::SearchTooLong)
            }
            other => Ok(other),
        }
    }

    /// The registry URL for this query under `base` (checked with [`check_registry_url`]):
    /// `{base}/v0.1/servers` with `limit`, `version=latest` and, when given, `cursor` and
    /// `search`, each form-encoded as a query parameter.
    pub fn registry_url(&self, base: &Url) -> Result<Url, McpServersQueryError> {
        let cursor = self.cursor()?;
        let search = self.search()?;
        let mut url = base.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty().extend(["v0.1", "servers"]);
        }
        {
            let mut pairs = url.query_pairs_mut();
            pairs
                .append_pair("limit", &self.effective_limit().to_string())
                .append_pair("version", "latest");
            if let Some(cursor) = cursor {
                pairs.append_pair("cursor", cursor);
            }
            if let Some(search) = search {
                pairs.append_pair("search", search);
            }
        }
        Ok(url)
    }
}

/// The answer of `GET /api/mcp/servers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServersResponse {
    /// This page's servers, at most [`MAX_LIMIT`].
    pub servers: Vec<McpServer>,
    /// The cursor of the next page; absent on the last one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One server of the registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServer {
    /// Its registry name (`io.github.owner/server`).
    pub name: String,
    /// Its display title, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does (remote text: display it as text).
    pub description: String,
    /// The listed version.
    pub version: String,
    /// Its website (`http` or `https` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Its remote endpoints over HTTPS.
    pub remotes: Vec<McpRemote>,
    /// Whether Hearth can install it: it has a `streamable-http` remote.
    pub installable: bool,
}

/// A remote transport of a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum McpTransport {
    /// MCP over streamable HTTP: what Hearth speaks.
    #[serde(rename = "streamable-http")]
    StreamableHttp,
    /// The legacy HTTP+SSE transport: listed, not installable.
    #[serde(rename = "sse")]
    Sse,
}

/// A remote endpoint of a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpRemote {
    /// Its transport.
    pub transport: McpTransport,
    /// Its `https://` URL.
    pub url: String,
    /// Headers the server wants (an API key, say), at most [`MAX_HEADERS`].
    pub headers: Vec<McpRemoteHeader>,
}

/// A header a remote asks the user for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpRemoteHeader {
    /// The header's name (an HTTP token).
    pub name: String,
    /// What to put in it.
    pub description: String,
    /// Whether the server needs it.
    pub required: bool,
    /// Whether it is a secret (an API key or token).
    pub secret: bool,
}

/// A registry answer that is not a server list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryPageError {
    /// The body is not JSON.
    #[error("the registry's answer is not JSON")]
    NotJson,
    /// The body is JSON without a `servers` array.
    #[error("the registry's answer has no `servers` list")]
    NoServerList,
    /// The next cursor is longer than [`MAX_CURSOR_CHARS`] (it could not be sent back).
    #[error("the registry's next cursor is longer than {MAX_CURSOR_CHARS} characters")]
    CursorTooLong,
}

/// Reads one registry page (`{servers: [{server, _meta}], metadata: {nextCursor?}}`) into
/// the bounded answer. Entries without a name, or whose fields have the wrong types, are
/// left out; at most [`MAX_LIMIT`] servers are kept.
pub fn parse_registry_page(body: &[u8]) -> Result<McpServersResponse, RegistryPageError> {
    let page: Value = serde_json::from_slice(body).map_err(|_| RegistryPageError::NotJson)?;
    let entries = page
        .get("servers")
        .and_then(Value::as_array)
        .ok_or(RegistryPageError::NoServerList)?;
    let servers = entries
        .iter()
        .filter_map(map_entry)
        .take(MAX_LIMIT as usize)
        .collect();
    let metadata = page.get("metadata");
    let next_cursor = ["nextCursor", "next_cursor"]
        .iter()
        .find_map(|key| metadata?.get(key)?.as_str())
        .map(str::trim)
        .filter(|cursor| !cursor.is_empty());
    if next_cursor.is_some_and(|cursor| cursor.chars().count() > MAX_CURSOR_CHARS) {
        return Err(RegistryPageError::CursorTooLong);
    }
    Ok(McpServersResponse {
        servers,
        next_cursor: next_cursor.map(str::to_string),
    })
}

/// A server as the registry describes it (only the fields Hearth reads).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawServer {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    website_url: Option<String>,
    #[serde(default)]
    remotes: Value,
}

#[derive(Deserialize)]
struct RawRemote {
    #[serde(rename = "type")]
    transport: String,
    url: String,
    #[serde(default)]
    headers: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawHeader {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    is_required: Option<bool>,
    #[serde(default)]
    is_secret: Option<bool>,
}

fn map_entry(entry: &Value) -> Option<McpServer> {
    // `{server, _meta}` since the registry's 2025-09-29 API; a bare server before it.
    let server = match entry.get("server") {
        Some(server) if server.is_object() => server,
        _ => entry,
    };
    let raw = RawServer::deserialize(server).ok()?;
    let name = clip(raw.name.as_deref()?, MAX_NAME_CHARS);
    if name.is_empty() {
        return None;
    }
    let remotes: Vec<McpRemote> = items(&raw.remotes)
        .filter_map(map_remote)
        .take(MAX_REMOTES)
        .collect();
    Some(McpServer {
        name,
        title: raw
            .title
            .as_deref()
            .map(|title| clip(title, MAX_NAME_CHARS))
            .filter(|title| !title.is_empty()),
        description: clip(
            raw.description.as_deref().unwrap_or_default(),
            MAX_DESCRIPTION_CHARS,
        ),
        version: clip(
            raw.version.as_deref().unwrap_or_default(),
            MAX_VERSION_CHARS,
        ),
        website_url: raw
            .website_url
            .as_deref()
            .and_then(|url| checked_url(url, &["https", "http"])),
        installable: remotes
            .iter()
            .any(|remote| remote.transport == McpTransport::StreamableHttp),
        remotes,
    })
}

fn map_remote(value: &Value) -> Option<McpRemote> {
    let raw = RawRemote::deserialize(value).ok()?;
    let transport = match raw.transport.trim().to_ascii_lowercase().as_str() {
        "streamable-http" => McpTransport::StreamableHttp,
        "sse" => McpTransport::Sse,
        _ => return None,
    };
    Some(McpRemote {
        transport,
        url: checked_url(&raw.url, &["https"])?,
        headers: items(&raw.headers)
            .filter_map(map_header)
            .take(MAX_HEADERS)
            .collect(),
    })
}

fn map_header(value: &Value) -> Option<McpRemoteHeader> {
    let raw = RawHeader::deserialize(value).ok()?;
    let name = raw.name.trim();
    let token = !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    token.then(|| McpRemoteHeader {
        name: name.to_string(),
        description: clip(
            raw.description.as_deref().unwrap_or_default(),
            MAX_DESCRIPTION_CHARS,
        ),
        required: raw.is_required.unwrap_or(false),
        secret: raw.is_secret.unwrap_or(false),
    })
}

/// The elements of a JSON array; nothing for anything else.
fn items(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

/// `raw` trimmed and cut to `max` characters.
fn clip(raw: &str, max: usize) -> String {
    raw.trim().chars().take(max).collect()
}

/// `raw` as a normalised absolute URL with one of `schemes`, a host and no credentials,
/// within [`MAX_URL_CHARS`]; `None` otherwise.
fn checked_url(raw: &str, schemes: &[&str]) -> Option<String> {
    if raw.len() > MAX_URL_CHARS * 4 {
        return None;
    }
    let url = Url::parse(raw.trim()).ok()?;
    let usable = schemes.contains(&url.scheme())
        && url.host().is_some()
        && url.username().is_empty()
        && url.password().is_none();
    let text = String::from(url);
    (usable && text.chars().count() <= MAX_URL_CHARS).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page shaped like the official registry's answer (`GET /v0.1/servers`): remote
    /// servers with headers, a package-only (stdio) server, SSE-only, plain-HTTP and
    /// templated remotes, registry metadata and fields Hearth does not read.
    const PAGE: &str = r#"{
      "servers": [
        {
          "server": {
            "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
            "name": "com.example.weather/forecast",
            "title": "Weather Forecast",
            "description": "Forecasts and alerts for any city.",
            "version": "2.4.1",
            "websiteUrl": "https://weather.example.com/docs",
            "repository": {"url": "https://github.com/example/weather-mcp", "source": "github"},
            "icons": [{"src": "https://weather.example.com/icon.png", "mimeType": "image/png"}],
            "remotes": [
              {
                "type": "streamable-http",
                "url": "https://mcp.weather.example.com/mcp",
                "headers": [
                  {"name": "X-Api-Key", "description": "Your weather API key", "isRequired": true, "isSecret": true},
                  {"name": "X-Units", "description": "metric or imperial", "default": "metric"}
                ]
              },
              {"type": "sse", "url": "https://mcp.weather.example.com/sse"}
            ]
          },
          "_meta": {
            "io.modelcontextprotocol.registry/official": {
              "status": "active",
              "publishedAt": "2025-10-02T09:14:51.118Z",
              "updatedAt": "2025-10-02T09:14:51.118Z",
              "isLatest": true
            }
          }
        },
        {
          "server": {
            "name": "io.github.someone/files",
            "description": "Local file tools.",
            "version": "0.3.0",
            "packages": [
              {"registryType": "npm", "identifier": "@someone/files-mcp", "version": "0.3.0",
               "transport": {"type": "stdio"},
               "environmentVariables": [{"name": "ROOT", "isRequired": true}]}
            ]
          },
          "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "isLatest": true}}
        },
        {
          "server": {
            "name": "io.github.legacy/events",
            "description": "Only the old transport.",
            "version": "1.0.0",
            "remotes": [
              {"type": "sse", "url": "https://events.legacy.example/sse"},
              {"type": "streamable-http", "url": "http://events.legacy.example/mcp"},
              {"type": "streamable-http", "url": "{baseUrl}/mcp",
               "variables": {"baseUrl": {"description": "Your tenant's URL", "isRequired": true}}},
              {"type": "streamable-http", "url": "ftp://events.legacy.example/mcp"},
              {"type": "websocket", "url": "https://events.legacy.example/ws"}
            ]
          },
          "_meta": {}
        },
        {"server": {"description": "no name, left out", "version": "1.0.0"}},
        {"server": {"name": 42, "description": "wrong type, left out"}},
        "not an object"
      ],
      "metadata": {"nextCursor": "com.example.weather/forecast:2.4.1", "count": 6}
    }"#;

    #[test]
    fn a_registry_page_becomes_the_bounded_answer() {
        let page = parse_registry_page(PAGE.as_bytes()).unwrap();
        assert_eq!(
            page.next_cursor.as_deref(),
            Some("com.example.weather/forecast:2.4.1")
        );
        let names: Vec<&str> = page.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "com.example.weather/forecast",
                "io.github.someone/files",
                "io.github.legacy/events"
            ]
        );

        let weather = &page.servers[0];
        assert_eq!(weather.title.as_deref(), Some("Weather Forecast"));
        assert_eq!(weather.version, "2.4.1");
        assert_eq!(
            weather.website_url.as_deref(),
            Some("https://weather.example.com/docs")
        );
        assert!(weather.installable);
        assert_eq!(weather.remotes.len(), 2);
        assert_eq!(
            weather.remotes[0],
            McpRemote {
                transport: McpTransport::StreamableHttp,
                url: "https://mcp.weather.example.com/mcp".into(),
                headers: vec![
                    McpRemoteHeader {
                        name: "X-Api-Key".into(),
                        description: "Your weather API key".into(),
                        required: true,
                        secret: true,
                    },
                    McpRemoteHeader {
                        name: "X-Units".into(),
                        description: "metric or imperial".into(),
                        required: false,
                        secret: false,
                    },
                ],
            }
        );
        assert_eq!(weather.remotes[1].transport, McpTransport::Sse);

        let files = &page.servers[1];
        assert!(!files.installable, "a package-only (stdio) server");
        assert!(files.remotes.is_empty());
        assert_eq!(files.title, None);

        let legacy = &page.servers[2];
        assert!(
            !legacy.installable,
            "SSE only once the non-https remotes go"
        );
        assert_eq!(
            legacy.remotes,
            [McpRemote {
                transport: McpTransport::Sse,
                url: "https://events.legacy.example/sse".into(),
                headers: vec![],
            }]
        );
    }

    #[test]
    fn the_answer_has_the_documented_wire_shape() {
        let page = parse_registry_page(PAGE.as_bytes()).unwrap();
        let value = serde_json::to_value(&page).unwrap();
        assert_eq!(value["nextCursor"], "com.example.weather/forecast:2.4.1");
        let weather = &value["servers"][0];
        assert_eq!(weather["websiteUrl"], "https://weather.example.com/docs");
        assert_eq!(weather["installable"], true);
        assert_eq!(weather["remotes"][0]["transport"], "streamable-http");
        assert_eq!(weather["remotes"][1]["transport"], "sse");
        assert_eq!(weather["remotes"][0]["headers"][0]["secret"], true);
        assert!(
            value["servers"][1].get("title").is_none(),
            "absent, not null"
        );
        let back: McpServersResponse = serde_json::from_value(value).unwrap();
        assert_eq!(back, page);
    }

    #[test]
    fn everything_is_bounded() {
        let long = "é".repeat(5000);
        let remote = serde_json::json!({
            "type": "streamable-http",
            "url": "https://mcp.example.com/mcp",
            "headers": (0..40).map(|i| serde_json::json!({"name": format!("X-H{i}"), "description": long})).collect::<Vec<_>>(),
        });
        let big = serde_json::json!({
            "server": {
                "name": long, "title": long, "description": long, "version": long,
                "remotes": vec![remote; 20],
            }
        });
        let small = serde_json::json!({"server": {"name": "a/b"}});
        let mut servers = vec![big];
        servers.extend(std::iter::repeat_n(small, 149));
        let body = serde_json::json!({ "servers": servers }).to_string();
        let page = parse_registry_page(body.as_bytes()).unwrap();
        assert_eq!(page.servers.len(), MAX_LIMIT as usize);
        let first = &page.servers[0];
        assert_eq!(first.name.chars().count(), MAX_NAME_CHARS);
        assert_eq!(
            first.title.as_ref().unwrap().chars().count(),
            MAX_NAME_CHARS
        );
        assert_eq!(first.description.chars().count(), MAX_DESCRIPTION_CHARS);
        assert_eq!(first.version.chars().count(), MAX_VERSION_CHARS);
        assert_eq!(first.remotes.len(), MAX_REMOTES);
        assert_eq!(first.remotes[0].headers.len(), MAX_HEADERS);
        assert_eq!(
            first.remotes[0].headers[0].description.chars().count(),
            MAX_DESCRIPTION_CHARS
        );
        assert_eq!(page.next_cursor, None);
    }

    #[test]
    fn unusable_urls_and_headers_are_dropped_not_cut() {
        let long_url = format!("https://mcp.example.com/{}", "a".repeat(MAX_URL_CHARS));
        let body = serde_json::json!({"servers": [{"server": {
            "name": "a/b",
            "websiteUrl": "javascript:alert(1)",
            "remotes": [
                {"type": "streamable-http", "url": long_url},
                {"type": "streamable-http", "url": "https://user:pw@mcp.example.com/mcp"},
                {"type": "streamable-http", "url": "HTTPS://MCP.Example.com/mcp",
                 "headers": [{"name": "Bad Header"}, {"name": ""}, {"name": 7}, {"name": "Authorization"}]}
            ]
        }}]})
        .to_string();
        let page = parse_registry_page(body.as_bytes()).unwrap();
        let server = &page.servers[0];
        assert_eq!(server.website_url, None);
        assert_eq!(server.description, "");
        assert_eq!(server.remotes.len(), 1);
        assert_eq!(server.remotes[0].url, "https://mcp.example.com/mcp");
        let headers: Vec<&str> = server.remotes[0]
            .headers
            .iter()
            .map(|h| h.name.as_str())
            .collect();
        assert_eq!(headers, ["Authorization"]);
        assert!(server.installable);
    }

    #[test]
    fn bodies_that_are_not_a_server_list_are_errors() {
        assert_eq!(
            parse_registry_page(b"<html>maintenance</html>"),
            Err(RegistryPageError::NotJson)
        );
        assert_eq!(
            parse_registry_page(br#"{"error": "nope"}"#),
            Err(RegistryPageError::NoServerList)
        );
        assert_eq!(
            parse_registry_page(br#"{"servers": {"a": 1}}"#),
            Err(RegistryPageError::NoServerList)
        );
        let cursor = "c".repeat(MAX_CURSOR_CHARS + 1);
        let body = serde_json::json!({"servers": [], "metadata": {"nextCursor": cursor}});
        assert_eq!(
            parse_registry_page(body.to_string().as_bytes()),
            Err(RegistryPageError::CursorTooLong)
        );
        let empty = parse_registry_page(br#"{"servers": [], "metadata": {"nextCursor": ""}}"#);
        assert_eq!(
            empty,
            Ok(McpServersResponse {
                servers: vec![],
                next_cursor: None
            })
        );
    }

    #[test]
    fn a_bare_server_entry_is_read_too() {
        let body = br#"{"servers": [{"name": "a/b", "description": "d", "version": "1",
            "remotes": [{"type": "streamable-http", "url": "https://a.example/mcp"}]}],
            "metadata": {"next_cursor": "x"}}"#;
        let page = parse_registry_page(body).unwrap();
        assert_eq!(page.servers[0].name, "a/b");
        assert!(page.servers[0].installable);
        assert_eq!(page.next_cursor.as_deref(), Some("x"));
    }

    #[test]
    fn the_limit_is_clamped() {
        let limit = |limit| {
            McpServersQuery {
                limit,
                ..Default::default()
            }
            .effective_limit()
        };
        assert_eq!(limit(None), DEFAULT_LIMIT);
        assert_eq!(limit(Some(0)), 1);
        assert_eq!(limit(Some(7)), 7);
        assert_eq!(limit(Some(100)), 100);
        assert_eq!(limit(Some(5000)), MAX_LIMIT);
    }

    #[test]
    fn the_registry_url_carries_the_query_encoded() {
        let base = check_registry_url("https://registry.example.com/mirror/").unwrap();
        let query = McpServersQuery {
            cursor: Some("io.github.a/b:1.0.0".into()),
            search: Some("a b&limit=1#x+é".into()),
            limit: Some(500),
        };
        let url = query.registry_url(&base).unwrap();
        assert_eq!(url.path(), "/mirror/v0.1/servers");
        let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        assert_eq!(
            pairs,
            [
                ("limit".into(), "100".into()),
                ("version".into(), "latest".into()),
                ("cursor".into(), "io.github.a/b:1.0.0".into()),
                ("search".into(), "a b&limit=1#x+é".into()),
            ]
        );
        assert_eq!(url.fragment(), None);

        let plain = McpServersQuery {
            cursor: Some("  ".into()),
            ..Default::default()
        };
        let url = plain
            .registry_url(&check_registry_url(DEFAULT_REGISTRY_URL).unwrap())
            .unwrap();
        assert_eq!(
            url.as_str(),
            "https://registry.modelcontextprotocol.io/v0.1/servers?limit=30&version=latest"
        );
    }

    #[test]
    fn oversized_queries_are_refused() {
        let base = check_registry_url(DEFAULT_REGISTRY_URL).unwrap();
        let cursor = McpServersQuery {
            cursor: Some("c".repeat(MAX_CURSOR_CHARS + 1)),
            ..Default::default()
        };
        assert_eq!(
            cursor.registry_url(&base),
            Err(McpServersQueryError::CursorTooLong)
        );
        let search = McpServersQuery {
            search: Some("s".repeat(MAX_SEARCH_CHARS + 1)),
            ..Default::default()
        };
        assert_eq!(
            search.registry_url(&base),
            Err(McpServersQueryError::SearchTooLong)
        );
    }

    #[test]
    fn registry_urls_must_be_plain_https() {
        assert!(check_registry_url("https://registry.modelcontextprotocol.io").is_ok());
        assert!(check_registry_url("https://127.0.0.1:8443/").is_ok());
        for bad in [
            "http://registry.modelcontextprotocol.io",
            "ftp://registry.example.com",
            "https://user:pw@registry.example.com",
            "https://registry.example.com/?a=b",
            "https://registry.example.com/#top",
            "registry.example.com",
            "",
        ] {
            assert!(check_registry_url(bad).is_err(), "{bad}");
        }
    }
}
