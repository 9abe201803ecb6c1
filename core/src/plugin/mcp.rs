//! An MCP server's `tools/list` as plugin functions: names `mcp_<server>__<tool>` (see
//! [`super::names`]), the tool's input schema as the arguments (an object schema, or the
//! tool is skipped), risk at least `external` and `destructive` when the tool says so,
//! at most [`MAX_MCP_TOOLS`] tools. The tool's own name stays on the function for
//! `tools/call`. The rules for the headers a server may be given live in
//! [`super::headers`] and are re-exported here for the edge's install route.

use std::collections::{BTreeMap, BTreeSet};

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
    convert(server, tools, taken, BTreeMap::new())
}

/// Converts a server's `tools/list` listed again after install: a tool the plugin had
/// keeps its function's name (the user's switches and the model's history name it),
/// a new tool is named apart from `taken` (the other plugins' names) and the kept ones,
/// and a tool the server no longer lists is gone.
pub fn relisted(
    server: &str,
    tools: &[Value],
    previous: &[PluginFunction],
    taken: impl IntoIterator<Item = String>,
) -> (Vec<PluginFunction>, Vec<Skipped>) {
    let listed: BTreeSet<&str> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .map(str::trim)
        .collect();
    let kept: BTreeMap<String, String> = previous
        .iter()
        .filter_map(|f| Some((f.tool.clone()?, f.name.clone())))
        .filter(|(tool, _)| listed.contains(tool.as_str()))
        .collect();
    let taken: Vec<String> = taken.into_iter().chain(kept.values().cloned()).collect();
    convert(server, tools, taken, kept)
}

/// Whether a tool's input schema names a property the 2026-07-28 revision mirrors into
/// an `Mcp-Param-*` request header (`x-mcp-header`), at any depth.
pub fn mirrors_params_in_headers(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map
            .iter()
            .any(|(key, value)| key == X_MCP_HEADER || mirrors_params_in_headers(value)),
        Value::Array(items) => items.iter().any(mirrors_params_in_headers),
        _ => false,
    }
}

/// The schema keyword of a parameter mirrored into a header (SEP-2243).
const X_MCP_HEADER: &str = "x-mcp-header";

fn convert(
    server: &str,
    tools: &[Value],
    taken: impl IntoIterator<Item = String>,
    mut kept: BTreeMap<String, String>,
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
            // A name listed twice keeps the old name once, and is named apart after.
            name: kept
                .remove(name)
                .unwrap_or_else(|| names.name(server, name)),
            description,
            parameters,
            method: None,
            path: None,
            tool: Some(name.to_string()),
            risk: Risk::floor_for_mcp(destructive),
            enabled: true,
            app: super::mcp_app::AppLink::of_tool(tool),
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

    #[test]
    fn a_tool_listed_again_keeps_its_name_and_a_new_one_is_named_apart() {
        // Installed beside another plugin that took `mcp_shop__add`: `add` got a hashed name.
        let other = vec!["mcp_shop__add".to_string()];
        let first = vec![json!({"name": "add"}), json!({"name": "gone"})];
        let (before, _) = functions("shop", &first, other.clone());
        assert_ne!(before[0].name, "mcp_shop__add");

        // Listed again: `add` keeps its hashed name even though the namer would give the
        // same one; `gone` is gone; `more` is new and `add ` (spaces) is the same tool.
        let second = vec![
            json!({"name": "more", "description": "New."}),
            json!({"name": " add ", "description": "Now described."}),
        ];
        let (after, skipped) = relisted("shop", &second, &before, other.clone());
        assert!(skipped.is_empty());
        let by_tool = |tool: &str| after.iter().find(|f| f.tool.as_deref() == Some(tool));
        assert_eq!(by_tool("add").unwrap().name, before[0].name);
        assert_eq!(by_tool("add").unwrap().description, "Now described.");
        assert_eq!(by_tool("more").unwrap().name, "mcp_shop__more");
        assert!(by_tool("gone").is_none());

        // A server listing one tool twice does not give two functions one name.
        let twice = vec![json!({"name": "add"}), json!({"name": "add"})];
        let (doubled, _) = relisted("shop", &twice, &before, other);
        assert_eq!(doubled.len(), 2);
        assert_ne!(doubled[0].name, doubled[1].name);
        assert_eq!(doubled[0].name, before[0].name);
    }

    #[test]
    fn a_parameter_mirrored_in_a_header_is_found_at_any_depth() {
        assert!(!mirrors_params_in_headers(
            &json!({"type": "object", "properties": {"region": {"type": "string"}}})
        ));
        assert!(mirrors_params_in_headers(&json!({"type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}})));
        assert!(mirrors_params_in_headers(
            &json!({"type": "object", "properties": {
            "where": {"type": "object", "properties": {"zone": {"x-mcp-header": "Zone"}}}}})
        ));
        assert!(mirrors_params_in_headers(
            &json!({"anyOf": [{"type": "string"}, {"x-mcp-header": "A"}]})
        ));
        assert!(!mirrors_params_in_headers(&json!("x-mcp-header")));
    }
}
