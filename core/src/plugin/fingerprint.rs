//! The fingerprint of a function's execution contract: everything that decides what a
//! call does and where its secret goes (the server URL, method and path or MCP tool,
//! the argument schema, the risk, the auth placement), canonically serialised (object
//! keys sorted, no whitespace) and hashed with SHA-256. The browser approves a call
//! against a fingerprint; the edge recomputes it from its registry right before dispatch
//! and refuses a mismatch, so an updated plugin cannot inherit an old approval.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::model::{Plugin, PluginFunction};

/// `value` with object keys sorted at every level, without whitespace.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// The contract of `function` in `plugin`, as the value that is hashed.
pub fn contract(plugin: &Plugin, function: &PluginFunction) -> Value {
    let mut contract = json!({
        "v": 1,
        "plugin": plugin.id,
        "source": plugin.source,
        "serverUrl": plugin.server_url,
        "mcpServerUrl": plugin.mcp.as_ref().map(|m| &m.server_url),
        "auth": plugin.auth,
        "name": function.name,
        "method": function.method,
        "path": function.path,
        "tool": function.tool,
        "parameters": function.parameters,
        "risk": function.risk,
    });
    // Headers an MCP server is given are part of what a call does (only when there are
    // some, so plugins without them keep their fingerprints).
    if let Some(mcp) = plugin.mcp.as_ref().filter(|m| !m.headers.is_empty()) {
        contract["mcpHeaders"] = json!(mcp.headers);
    }
    // Who may call it and which page shows it (only for MCP Apps tools, so other
    // functions keep their fingerprints).
    if let Some(app) = &function.app {
        contract["app"] = json!(app);
    }
    contract
}

/// `sha256:<64 hex>` of the canonical contract.
pub fn fingerprint(plugin: &Plugin, function: &PluginFunction) -> String {
    let digest = Sha256::digest(canonical_json(&contract(plugin, function)).as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::model::{Auth, AuthPlacement, HttpMethod, Source};
    use crate::plugin::risk::Risk;

    fn plugin() -> Plugin {
        let function = PluginFunction {
            name: "get_item".into(),
            description: "Get an item".into(),
            parameters: json!({"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}),
            method: Some(HttpMethod::Get),
            path: Some("/items/{id}".into()),
            tool: None,
            risk: Risk::Read,
            enabled: true,
            app: None,
        };
        Plugin {
            server_url: Some("https://api.example.com/v1".into()),
            ..Plugin::new(
                "items",
                "Items",
                Source::Openapi,
                Auth::Bearer,
                vec![function],
            )
        }
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let a: Value =
            serde_json::from_str(r#"{"b":1,"a":{"z":[{"y":2,"x":1}],"c":"é"}}"#).unwrap();
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"c":"é","z":[{"x":1,"y":2}]},"b":1}"#
        );
    }

    #[test]
    fn the_same_contract_has_the_same_fingerprint_however_its_json_was_ordered() {
        let p = plugin();
        let mut reordered = p.clone();
        reordered.functions[0].parameters = serde_json::from_str(
            r#"{"properties":{"id":{"type":"string"}},"required":["id"],"type":"object"}"#,
        )
        .unwrap();
        let one = fingerprint(&p, &p.functions[0]);
        assert_eq!(one, fingerprint(&reordered, &reordered.functions[0]));
        assert!(one.starts_with("sha256:") && one.len() == 7 + 64, "{one}");
        // Description and the enabled switch are not part of the contract.
        let mut cosmetic = p.clone();
        cosmetic.functions[0].description = "Fetch one item".into();
        cosmetic.functions[0].enabled = false;
        cosmetic.title = "Renamed".into();
        assert_eq!(one, fingerprint(&cosmetic, &cosmetic.functions[0]));
    }

    #[test]
    fn every_part_of_the_contract_changes_it() {
        let p = plugin();
        let base = fingerprint(&p, &p.functions[0]);
        type Change = fn(&mut Plugin);
        let changes: Vec<Change> = vec![
            |p| p.server_url = Some("https://evil.example/v1".into()),
            |p| p.functions[0].method = Some(HttpMethod::Delete),
            |p| p.functions[0].path = Some("/items/{id}/delete".into()),
            |p| p.functions[0].risk = Risk::Destructive,
            |p| p.functions[0].parameters["properties"]["id"]["type"] = json!("integer"),
            |p| {
                p.auth = Auth::ApiKey {
                    name: "key".into(),
                    placement: AuthPlacement::Query,
                }
            },
            |p| p.id = "other".into(),
            |p| p.functions[0].name = "get_thing".into(),
        ];
        for (i, change) in changes.iter().enumerate() {
            let mut changed = p.clone();
            change(&mut changed);
            assert_ne!(
                fingerprint(&changed, &changed.functions[0]),
                base,
                "change {i}"
            );
        }
    }
}
