//! An MCP server's `tools/list` as plugin functions: names `mcp_<server>__<tool>` (see
//! [`super::names`]), the tool's input schema as the arguments (an object schema, or the
//! tool is skipped), risk at least `external` and `destructive` when the tool says so,
//! at most [`MAX_MCP_TOOLS`] tools. The tool's own name stays on the function for
//! `tools/call`. The rules for the headers a server may be given live in
//! [`super::headers`] and are re-exported here for the edge's install route.

use serde_json::{Value, json};

use super::model::PluginFunction;
use super::names::McpNames;
use super::openapi::Skipped;
use super::risk::Risk;

pub use super::headers::{
    HeaderError, MAX_HEADER_NAME_CHARS, MAX_HEADER_VALUE_CHARS, MAX_MCP_HEADERS,
    check_credential_header, check_headers,
};

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

#[cfg(test)]
mod tests {
    use super::*;

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
