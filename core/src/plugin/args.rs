//! Arguments a model produced, checked before anything is dispatched: a JSON object
//! within size caps, matching the function's schema (the JSON Schema keywords tool
//! schemas use: `type`, `enum`, `required`, `properties`, `additionalProperties: false`,
//! `items`, string lengths, numeric bounds, array lengths). The first problem found is
//! returned with the path to it, so the model can correct itself.

use serde_json::Value;

/// The most characters of serialised arguments.
pub const MAX_ARGS_CHARS: usize = 256 * 1024;
/// The deepest nesting of arguments (and of the schema walk).
pub const MAX_DEPTH: usize = 20;
/// The most values (scalars, arrays and objects) in arguments.
pub const MAX_VALUES: usize = 5_000;

/// Why arguments were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// Not JSON.
    #[error("the arguments are not JSON")]
    NotJson,
    /// JSON, but not an object.
    #[error("the arguments must be a JSON object")]
    NotAnObject,
    /// Too many characters.
    #[error("the arguments have {0} characters; the most is {MAX_ARGS_CHARS}")]
    TooLong(usize),
    /// Nested too deeply.
    #[error("the arguments nest deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// Too many values.
    #[error("the arguments hold more than {MAX_VALUES} values")]
    TooManyValues,
    /// A required parameter is missing.
    #[error("`{0}` is required")]
    Missing(String),
    /// A parameter the function does not declare.
    #[error("`{0}` is not a parameter of this function")]
    Unknown(String),
    /// A value of the wrong type.
    #[error("`{path}` must be {expected}")]
    WrongType {
        /// Where.
        path: String,
        /// The schema's type(s).
        expected: String,
    },
    /// A value outside the schema's bounds or choices.
    #[error("`{path}` {problem}")]
    Invalid {
        /// Where.
        path: String,
        /// What is wrong.
        problem: String,
    },
}

/// Parses and checks `text` (the model's argument string) against `schema`.
pub fn parse_and_check(text: &str, schema: &Value) -> Result<Value, ArgsError> {
    let length = text.chars().count();
    if length > MAX_ARGS_CHARS {
        return Err(ArgsError::TooLong(length));
    }
    // An empty argument string means "no arguments", as providers send for tools
    // without parameters.
    let value: Value = if text.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(text).map_err(|_| ArgsError::NotJson)?
    };
    check(&value, schema)?;
    Ok(value)
}

/// Checks parsed arguments against the caps and `schema`. Arguments that arrived parsed
/// (a JSON body's field) are held to the same size cap as an argument string.
pub fn check(value: &Value, schema: &Value) -> Result<(), ArgsError> {
    if !value.is_object() {
        return Err(ArgsError::NotAnObject);
    }
    let length = value.to_string().chars().count();
    if length > MAX_ARGS_CHARS {
        return Err(ArgsError::TooLong(length));
    }
    let mut count = 0;
    measure(value, 0, &mut count)?;
    check_value(value, schema, "", 0)
}

fn measure(value: &Value, depth: usize, count: &mut usize) -> Result<(), ArgsError> {
    if depth > MAX_DEPTH {
        return Err(ArgsError::TooDeep);
    }
    *count += 1;
    if *count > MAX_VALUES {
        return Err(ArgsError::TooManyValues);
    }
    match value {
        Value::Array(items) => items.iter().try_for_each(|v| measure(v, depth + 1, count)),
        Value::Object(map) => map.values().try_for_each(|v| measure(v, depth + 1, count)),
        _ => Ok(()),
    }
}

fn type_matches(value: &Value, name: &str) -> bool {
    match name {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        // A type this checker does not know: leave it to the server.
        _ => true,
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn check_value(value: &Value, schema: &Value, path: &str, depth: usize) -> Result<(), ArgsError> {
    if depth > MAX_DEPTH {
        return Err(ArgsError::TooDeep);
    }
    let Some(schema) = schema.as_object() else {
        return Ok(()); // `true` or a missing schema accepts anything
    };
    let shown = || {
        if path.is_empty() {
            "arguments".to_string()
        } else {
            path.to_string()
        }
    };
    let invalid = |problem: String| ArgsError::Invalid {
        path: shown(),
        problem,
    };
    match schema.get("type") {
        Some(Value::String(name)) if !type_matches(value, name) => {
            return Err(ArgsError::WrongType {
                path: shown(),
                expected: format!("of type {name}"),
            });
        }
        Some(Value::Array(names))
            if !names
                .iter()
                .filter_map(Value::as_str)
                .any(|name| type_matches(value, name)) =>
        {
            let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
            return Err(ArgsError::WrongType {
                path: shown(),
                expected: format!("one of {}", names.join(", ")),
            });
        }
        _ => {}
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array)
        && !choices.contains(value)
    {
        let listed: Vec<String> = choices.iter().map(Value::to_string).collect();
        return Err(invalid(format!("must be one of {}", listed.join(", "))));
    }
    if let Some(text) = value.as_str() {
        let length = text.chars().count() as u64;
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
            && length < min
        {
            return Err(invalid(format!("must have at least {min} characters")));
        }
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
            && length > max
        {
            return Err(invalid(format!("must have at most {max} characters")));
        }
    }
    if let Some(number) = value.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
            && number < min
        {
            return Err(invalid(format!("must be at least {min}")));
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
            && number > max
        {
            return Err(invalid(format!("must not exceed {max}")));
        }
    }
    if let Some(items) = value.as_array() {
        let count = items.len() as u64;
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
            && count < min
        {
            return Err(invalid(format!("must have at least {min} items")));
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
            && count > max
        {
            return Err(invalid(format!("must have at most {max} items")));
        }
        if let Some(item_schema) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                check_value(item, item_schema, &format!("{}[{i}]", shown()), depth + 1)?;
            }
        }
    }
    if let Some(map) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !map.contains_key(name) {
                return Err(ArgsError::Missing(child(path, name)));
            }
        }
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        for (key, item) in map {
            match properties.and_then(|p| p.get(key)) {
                Some(item_schema) => check_value(item, item_schema, &child(path, key), depth + 1)?,
                None if closed => return Err(ArgsError::Unknown(child(path, key))),
                None => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "required": ["query", "limit"],
            "additionalProperties": false,
            "properties": {
                "query": {"type": "string", "minLength": 2, "maxLength": 20},
                "limit": {"type": "integer", "minimum": 1, "maximum": 10},
                "tags": {"type": "array", "maxItems": 2, "items": {"enum": ["docs", "code"]}},
                "filter": {"type": "object", "properties": {"since": {"type": ["string", "null"]}}}
            }
        })
    }

    #[test]
    fn valid_arguments_pass() {
        let ok = r#"{"query":"rust","limit":3,"tags":["docs"],"filter":{"since":null}}"#;
        assert_eq!(parse_and_check(ok, &schema()).unwrap()["limit"], json!(3));
        assert_eq!(
            parse_and_check("", &json!({"type": "object"})).unwrap(),
            json!({})
        );
    }

    #[test]
    fn each_schema_rule_names_its_problem() {
        let cases = [
            (r#"{"query":"rust"}"#, ArgsError::Missing("limit".into())),
            (
                r#"{"query":"rust","limit":11}"#,
                ArgsError::Invalid {
                    path: "limit".into(),
                    problem: "must not exceed 10".into(),
                },
            ),
            (
                r#"{"query":"rust","limit":2.5}"#,
                ArgsError::WrongType {
                    path: "limit".into(),
                    expected: "of type integer".into(),
                },
            ),
            (
                r#"{"query":"r","limit":1}"#,
                ArgsError::Invalid {
                    path: "query".into(),
                    problem: "must have at least 2 characters".into(),
                },
            ),
            (
                r#"{"query":"rust","limit":1,"extra":true}"#,
                ArgsError::Unknown("extra".into()),
            ),
            (
                r#"{"query":"rust","limit":1,"tags":["docs","code","docs"]}"#,
                ArgsError::Invalid {
                    path: "tags".into(),
                    problem: "must have at most 2 items".into(),
                },
            ),
            (
                r#"{"query":"rust","limit":1,"tags":["blog"]}"#,
                ArgsError::Invalid {
                    path: "tags[0]".into(),
                    problem: "must be one of \"docs\", \"code\"".into(),
                },
            ),
            (
                r#"{"query":"rust","limit":1,"filter":{"since":5}}"#,
                ArgsError::WrongType {
                    path: "filter.since".into(),
                    expected: "one of string, null".into(),
                },
            ),
            ("[1,2]", ArgsError::NotAnObject),
            ("{nope", ArgsError::NotJson),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_and_check(text, &schema()), Err(expected), "{text}");
        }
    }

    #[test]
    fn caps_hold_whatever_the_schema() {
        let open = json!({"type": "object"});
        let deep = format!("{}1{}", "{\"a\":".repeat(25), "}".repeat(25));
        assert_eq!(parse_and_check(&deep, &open), Err(ArgsError::TooDeep));
        let many = format!("{{\"a\":[{}]}}", vec!["1"; MAX_VALUES + 1].join(","));
        assert_eq!(parse_and_check(&many, &open), Err(ArgsError::TooManyValues));
        let long = format!("{{\"a\":\"{}\"}}", "x".repeat(MAX_ARGS_CHARS));
        assert!(matches!(
            parse_and_check(&long, &open),
            Err(ArgsError::TooLong(_))
        ));
        // Already-parsed arguments (the edge's execute route) meet the same cap.
        let parsed = json!({"a": "x".repeat(MAX_ARGS_CHARS)});
        assert!(matches!(check(&parsed, &open), Err(ArgsError::TooLong(_))));
    }
}
