//! A form elicitation's `requestedSchema` read into fields: a flat object of primitive
//! properties only (MCP's `PrimitiveSchemaDefinition`): text (with a format), numbers,
//! a yes/no, one choice or several (plain `enum`, titled `oneOf`/`anyOf`, or the legacy
//! `enumNames`). Anything nested or unknown is refused, never guessed.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ElicitError, MAX_FIELDS, MAX_OPTIONS, bounded, key_of};

/// One field of a form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    /// Its property name (the answer's key).
    pub name: String,
    /// Its label (the name when the server gave none).
    pub title: String,
    /// A longer explanation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Whether it must be filled in.
    pub required: bool,
    /// What it takes.
    pub kind: FieldKind,
}

/// What a field takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "type"
)]
pub enum FieldKind {
    /// Text.
    Text {
        /// Its format, if the server named one Hearth knows.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        format: Option<TextFormat>,
        /// The fewest characters.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_length: Option<u32>,
        /// The most characters.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_length: Option<u32>,
        /// The value offered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default: Option<String>,
    },
    /// A number (a whole one when `integer`).
    Number {
        /// Whole numbers only.
        integer: bool,
        /// The smallest allowed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        minimum: Option<f64>,
        /// The largest allowed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        maximum: Option<f64>,
        /// The value offered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default: Option<f64>,
    },
    /// Yes or no.
    Boolean {
        /// The value offered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default: Option<bool>,
    },
    /// One of the options.
    Choice {
        /// The options.
        options: Vec<Choice>,
        /// The option offered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default: Option<String>,
    },
    /// Several of the options.
    Choices {
        /// The options.
        options: Vec<Choice>,
        /// The fewest to choose.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_items: Option<u32>,
        /// The most to choose.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_items: Option<u32>,
        /// The options offered.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        default: Vec<String>,
    },
}

/// A text format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextFormat {
    /// An e-mail address.
    Email,
    /// A URI.
    Uri,
    /// A calendar date (`2026-12-07`).
    Date,
    /// A date and time (RFC 3339).
    DateTime,
}

/// One option: the value sent and the label shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Choice {
    /// The value sent back.
    pub value: String,
    /// The label shown.
    pub title: String,
}

fn schema_error(name: &str, why: &str) -> ElicitError {
    let shown: String = name.chars().take(60).collect();
    ElicitError::Schema(format!("{shown}: {why}"))
}

/// The fields of `schema` (a form's `requestedSchema`).
pub fn read_form(schema: &Value) -> Result<Vec<Field>, ElicitError> {
    let Some(object) = schema.as_object() else {
        return Err(ElicitError::Schema("the form has no schema".into()));
    };
    if object.get("type").and_then(Value::as_str) != Some("object") {
        return Err(ElicitError::Schema("the form is not an object".into()));
    }
    let empty = Map::new();
    let properties = object
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if properties.len() > MAX_FIELDS {
        return Err(ElicitError::Schema(format!(
            "{} fields; at most {MAX_FIELDS} are shown",
            properties.len()
        )));
    }
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    properties
        .iter()
        .map(|(name, property)| {
            let name = key_of(name, "a field's name")?;
            let kind = read_kind(&name, property)?;
            let title = property["title"]
                .as_str()
                .filter(|t| !t.trim().is_empty())
                .map_or_else(|| name.clone(), bounded);
            Ok(Field {
                required: required.contains(&name.as_str()),
                description: bounded(property["description"].as_str().unwrap_or_default()),
                title,
                name,
                kind,
            })
        })
        .collect()
}

fn count(value: &Value) -> Option<u32> {
    value.as_u64().map(|n| n.min(u64::from(u32::MAX)) as u32)
}

fn read_kind(name: &str, property: &Value) -> Result<FieldKind, ElicitError> {
    let kind = property["type"].as_str().unwrap_or_default();
    match kind {
        "string" if property.get("enum").is_some() || property.get("oneOf").is_some() => {
            let options = options(name, property)?;
            let default = property["default"]
                .as_str()
                .filter(|d| options.iter().any(|o| o.value == *d))
                .map(str::to_string);
            Ok(FieldKind::Choice { options, default })
        }
        "string" => Ok(FieldKind::Text {
            format: match property["format"].as_str() {
                None => None,
                Some("email") => Some(TextFormat::Email),
                Some("uri") => Some(TextFormat::Uri),
                Some("date") => Some(TextFormat::Date),
                Some("date-time") => Some(TextFormat::DateTime),
                Some(_) => return Err(schema_error(name, "an unknown text format")),
            },
            min_length: count(&property["minLength"]),
            max_length: count(&property["maxLength"]),
            default: property["default"].as_str().map(super::bounded),
        }),
        "number" | "integer" => Ok(FieldKind::Number {
            integer: kind == "integer",
            minimum: property["minimum"].as_f64(),
            maximum: property["maximum"].as_f64(),
            default: property["default"].as_f64(),
        }),
        "boolean" => Ok(FieldKind::Boolean {
            default: property["default"].as_bool(),
        }),
        "array" => {
            let options = options(name, &property["items"])?;
            let default = property["default"]
                .as_array()
                .map(|d| {
                    d.iter()
                        .filter_map(Value::as_str)
                        .filter(|d| options.iter().any(|o| o.value == *d))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            Ok(FieldKind::Choices {
                options,
                min_items: count(&property["minItems"]),
                max_items: count(&property["maxItems"]),
                default,
            })
        }
        _ => Err(schema_error(name, "not a text, number, yes/no or choice")),
    }
}

/// The options of an enum schema: `enum` (with the legacy `enumNames` as titles), or
/// titled `oneOf` / `anyOf` entries of `{const, title}`.
fn options(name: &str, schema: &Value) -> Result<Vec<Choice>, ElicitError> {
    let options: Vec<Choice> = if let Some(values) = schema["enum"].as_array() {
        let names = schema["enumNames"].as_array();
        values
            .iter()
            .enumerate()
            .map(|(i, value)| {
                let value = value
                    .as_str()
                    .ok_or_else(|| schema_error(name, "an option is not text"))?;
                let title = names
                    .and_then(|n| n.get(i))
                    .and_then(Value::as_str)
                    .unwrap_or(value);
                Ok(Choice {
                    value: value.to_string(),
                    title: bounded(title),
                })
            })
            .collect::<Result<_, ElicitError>>()?
    } else if let Some(entries) = schema["oneOf"].as_array().or(schema["anyOf"].as_array()) {
        entries
            .iter()
            .map(|entry| {
                let value = entry["const"]
                    .as_str()
                    .ok_or_else(|| schema_error(name, "an option is not text"))?;
                Ok(Choice {
                    value: value.to_string(),
                    title: bounded(entry["title"].as_str().unwrap_or(value)),
                })
            })
            .collect::<Result<_, ElicitError>>()?
    } else {
        return Err(schema_error(name, "a choice without options"));
    };
    if options.is_empty() || options.len() > MAX_OPTIONS {
        return Err(schema_error(
            name,
            &format!("1 to {MAX_OPTIONS} options are shown"),
        ));
    }
    Ok(options)
}
