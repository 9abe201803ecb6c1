//! An MCP server's `tools/list` as plugin functions: names `mcp_<server>__<tool>` (see
//! [`super::names`]), the tool's input schema as the arguments (an object schema, or the
//! tool is skipped), risk at least `external` and `destructive` when the tool says so,
//! at most [`MAX_MCP_TOOLS`] tools. The tool's own name stays on the function for
//! `tools/call`. Also the headers a server may be given: plain headers kept with the
//! plugin ([`check_headers`]; never credentials, which travel sealed), and the name of
//! the header that carries the credential ([`check_credential_header`]).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::model::PluginFunction;
use super::names::McpNames;
use super::openapi::Skipped;
use super::risk::Risk;

/// The most tools taken from one server.
pub const MAX_MCP_TOOLS: usize = 40;
/// The longest tool description given to a model.
const MAX_DESCRIPTION_CHARS: usize = 1024;

/// Converts the `tools` array of a `tools/list` answer from the server named `server`;
/// `taken` are function names already used by other plugins.
pub fn functions(
    server: &str,
    tools: &[Value],
    taken: impl IntoIterator<Item = String>,
) -> (Vec<PluginFunction>, Vec<Skipped>) {
    let mut names = McpNames::new(taken);
    let mut functions = Vec::new();
    let mut skipped = Vec::new();
    for tool in tools {
        let name = tool
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        let mut skip = |reason: &str| {
            skipped.push(Skipped {
                operation: if name.is_empty() {
                    "(unnamed tool)".into()
                } else {
                    name.to_string()
                },
                reason: reason.to_string(),
            })
        };
        if name.is_empty() {
            skip("the tool has no name");
            continue;
        }
        if functions.len() >= MAX_MCP_TOOLS {
            skip("the server already gave the most tools Hearth takes from one server");
            continue;
        }
        let parameters = match tool.get("inputSchema") {
            None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
            Some(schema) if schema.get("type").and_then(Value::as_str) == Some("object") => {
                schema.clone()
            }
            Some(_) => {
                skip("its input schema is not an object schema");
                continue;
            }
        };
        let annotations = tool.get("annotations");
        let destructive = annotations
            .and_then(|a| a.get("destructiveHint"))
            .and_then(Value::as_bool);
        let description = tool
            .get("description")
            .and_then(Value::as_str)
            .filter(|d| !d.trim().is_empty())
            .map(|d| d.trim().chars().take(MAX_DESCRIPTION_CHARS).collect())
            .unwrap_or_else(|| format!("Call the MCP tool {name}."));
        functions.push(PluginFunction {
            name: names.name(server, name),
            description,
            parameters,
            method: None,
            path: None,
            tool: Some(name.to_string()),
            risk: Risk::floor_for_mcp(destructive),
            enabled: true,
        });
    }
    (functions, skipped)
}

/// The most plain headers one server is given.
pub const MAX_MCP_HEADERS: usize = 16;
/// The longest header name.
pub const MAX_HEADER_NAME_CHARS: usize = 64;
/// The longest plain header value.
pub const MAX_HEADER_VALUE_CHARS: usize = 1024;

/// Headers the transport or the browser's edge owns: never set by a user.
const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "accept-encoding",
    "connection",
    "content-encoding",
    "content-length",
    "content-type",
    "cookie",
    "expect",
    "forwarded",
    "host",
    "keep-alive",
    "last-event-id",
    "mcp-protocol-version",
    "mcp-session-id",
    "origin",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "referer",
    "set-cookie",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "user-agent",
    "via",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-forwarded-proto",
    "x-real-ip",
];

/// Why a header cannot be given to a server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// More than [`MAX_MCP_HEADERS`].
    #[error("at most {MAX_MCP_HEADERS} headers")]
    TooMany,
    /// Not an HTTP header name.
    #[error("`{0}` is not a header name")]
    BadName(String),
    /// Owned by the transport or the edge.
    #[error("`{0}` is set by Hearth itself")]
    Reserved(String),
    /// A credential: it must be the plugin's sealed credential, not a stored header.
    #[error("`{0}` looks like a credential: give it as the server's token instead")]
    Credential(String),
    /// Not a plain, visible-ASCII value within [`MAX_HEADER_VALUE_CHARS`].
    #[error(
        "the value of `{0}` must be visible text of at most {MAX_HEADER_VALUE_CHARS} characters"
    )]
    BadValue(String),
}

fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_HEADER_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn looks_like_credential(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "auth",
        "key",
        "token",
        "secret",
        "password",
        "session",
        "signature",
        "credential",
    ]
    .iter()
    .any(|part| name.contains(part))
}

fn check_name(name: &str) -> Result<String, HeaderError> {
    if !is_token(name) {
        return Err(HeaderError::BadName(name.chars().take(80).collect()));
    }
    let lower = name.to_ascii_lowercase();
    if RESERVED_HEADERS.contains(&lower.as_str()) || lower.starts_with("sec-") {
        return Err(HeaderError::Reserved(name.to_string()));
    }
    Ok(lower)
}

/// Checks the plain headers a server is given; names come back lower-cased (HTTP names
/// are case-insensitive, and two spellings of one name are one header).
pub fn check_headers(
    headers: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, HeaderError> {
    if headers.len() > MAX_MCP_HEADERS {
        return Err(HeaderError::TooMany);
    }
    let mut out = BTreeMap::new();
    for (name, value) in headers {
        let lower = check_name(name)?;
        if looks_like_credential(&lower) {
            return Err(HeaderError::Credential(name.clone()));
        }
        let plain = !value.is_empty()
            && value.chars().count() <= MAX_HEADER_VALUE_CHARS
            && value.chars().all(|c| c == ' ' || c.is_ascii_graphic());
        if !plain {
            return Err(HeaderError::BadValue(name.clone()));
        }
        out.insert(lower, value.trim().to_string());
    }
    Ok(out)
}

/// Checks the name of the header that carries a server's credential (`X-Api-Key`, …);
/// `authorization` is the bearer scheme and is given as no name at all.
pub fn check_credential_header(name: &str) -> Result<String, HeaderError> {
    let lower = check_name(name.trim())?;
    if lower == "authorization" {
        return Err(HeaderError::Reserved(name.to_string()));
    }
    Ok(lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_headers_are_checked_and_credentials_refused() {
        let ok: BTreeMap<String, String> = [
            ("X-Workspace".to_string(), "team-a".to_string()),
            ("Accept-Language".to_string(), "en".to_string()),
        ]
        .into();
        let checked = check_headers(&ok).unwrap();
        assert_eq!(checked["x-workspace"], "team-a");
        for (name, value, expected) in [
            (
                "X-Api-Key",
                "k",
                HeaderError::Credential("X-Api-Key".into()),
            ),
            (
                "Authorization",
                "Bearer x",
                HeaderError::Credential("Authorization".into()),
            ),
            ("Cookie", "a=b", HeaderError::Reserved("Cookie".into())),
            ("Host", "evil", HeaderError::Reserved("Host".into())),
            (
                "Mcp-Session-Id",
                "1",
                HeaderError::Reserved("Mcp-Session-Id".into()),
            ),
            (
                "Sec-Fetch-Site",
                "none",
                HeaderError::Reserved("Sec-Fetch-Site".into()),
            ),
            (
                "Transfer-Encoding",
                "chunked",
                HeaderError::Reserved("Transfer-Encoding".into()),
            ),
            ("Bad Name", "v", HeaderError::BadName("Bad Name".into())),
            (
                "X-Line",
                "a\r\nInjected: 1",
                HeaderError::BadValue("X-Line".into()),
            ),
            ("X-Empty", "", HeaderError::BadValue("X-Empty".into())),
        ] {
            let one: BTreeMap<String, String> = [(name.to_string(), value.to_string())].into();
            assert_eq!(check_headers(&one), Err(expected), "{name}");
        }
        let many: BTreeMap<String, String> = (0..17)
            .map(|i| (format!("x-h{i}"), "v".to_string()))
            .collect();
        assert_eq!(check_headers(&many), Err(HeaderError::TooMany));
    }

    #[test]
    fn the_credential_header_is_a_plain_name_other_than_authorization() {
        assert_eq!(check_credential_header(" X-Api-Key ").unwrap(), "x-api-key");
        assert!(matches!(
            check_credential_header("Authorization"),
            Err(HeaderError::Reserved(_))
        ));
        assert!(matches!(
            check_credential_header("Cookie"),
            Err(HeaderError::Reserved(_))
        ));
        assert!(matches!(
            check_credential_header("x-api-key: evil"),
            Err(HeaderError::BadName(_))
        ));
    }

    #[test]
    fn tools_become_functions_with_the_server_name_and_their_own_kept() {
        let tools = vec![
            json!({"name": "echo", "description": "Echoes back the input",
                "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}}),
            json!({"name": "delete-everything", "annotations": {"destructiveHint": true, "readOnlyHint": false}}),
            json!({"name": "look", "annotations": {"readOnlyHint": true}}),
            json!({"name": "bad", "inputSchema": {"type": "string"}}),
            json!({"description": "no name"}),
        ];
        let (functions, skipped) = functions("everything", &tools, Vec::new());
        let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "mcp_everything__echo",
                "mcp_everything__delete_everything",
                "mcp_everything__look"
            ]
        );
        assert_eq!(functions[0].tool.as_deref(), Some("echo"));
        assert_eq!(functions[0].parameters["required"], json!(["message"]));
        assert_eq!(functions[0].risk, Risk::External);
        assert_eq!(functions[1].risk, Risk::Destructive);
        assert_eq!(
            functions[1].description,
            "Call the MCP tool delete-everything."
        );
        assert_eq!(
            functions[2].risk,
            Risk::External,
            "readOnlyHint cannot lower it"
        );
        assert_eq!(
            functions[1].parameters,
            json!({"type": "object", "properties": {}})
        );
        let reasons: Vec<&str> = skipped.iter().map(|s| s.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "its input schema is not an object schema",
                "the tool has no name"
            ]
        );
    }

    #[test]
    fn at_most_forty_tools_and_no_name_clashes_with_other_plugins() {
        let tools: Vec<Value> = (0..50).map(|i| json!({"name": format!("t{i}")})).collect();
        let (functions, skipped) = functions("big", &tools, vec!["mcp_big__t0".to_string()]);
        assert_eq!(functions.len(), MAX_MCP_TOOLS);
        assert_eq!(skipped.len(), 10);
        assert_ne!(functions[0].name, "mcp_big__t0");
        assert_eq!(functions[0].tool.as_deref(), Some("t0"));
    }
}
