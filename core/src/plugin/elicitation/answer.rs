//! The user's replies to a server's questions: a form's values checked against its fields
//! (types, required, lengths, bounds, options) before anything is sent, and all replies
//! made into the `inputResponses` the tool is called again with.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::schema::{Field, FieldKind, TextFormat};
use super::{Ask, InputRequired};

/// The longest text answer (characters).
pub const MAX_TEXT_CHARS: usize = 4_000;

/// The user's reply to one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "action", content = "content")]
pub enum Reply {
    /// Accepted: a form's values (empty for a page opened).
    Accept(Map<String, Value>),
    /// Said no.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// Why an answer was refused (nothing is sent).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// The call no longer waits for an answer (answered elsewhere, or gone on).
    #[error("the question is no longer open")]
    NotWaiting,
    /// Not one reply per request.
    #[error("every question needs a reply")]
    Count,
    /// A required field is empty.
    #[error("{0} is required")]
    Required(String),
    /// A field's value is not what it takes (a number, an option, a format, a length, a
    /// bound).
    #[error("{0} is not valid")]
    Invalid(String),
}

impl AnswerError {
    /// The field's title the error is about (none for [`AnswerError::Count`]).
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::Count | Self::NotWaiting => None,
            Self::Required(title) | Self::Invalid(title) => Some(title),
        }
    }
}

/// A form's values as the card gives them (`given`: text fields and numbers as the
/// text typed, yes/no as booleans, a choice as its value, several as an array of
/// values) checked against `fields` and typed; empty optional fields are left out.
pub fn check_form(
    fields: &[Field],
    given: &Map<String, Value>,
) -> Result<Map<String, Value>, AnswerError> {
    let mut out = Map::new();
    for field in fields {
        let invalid = || AnswerError::Invalid(field.title.clone());
        let value = given.get(&field.name).unwrap_or(&Value::Null);
        let text = value.as_str().map(str::trim).unwrap_or_default();
        let checked = match &field.kind {
            FieldKind::Text {
                format,
                min_length,
                max_length,
                ..
            } => {
                if text.is_empty() {
                    None
                } else {
                    let length = text.chars().count();
                    let fits = length <= MAX_TEXT_CHARS
                        && min_length.is_none_or(|min| length >= min as usize)
                        && max_length.is_none_or(|max| length <= max as usize)
                        && format.is_none_or(|f| formatted(f, text));
                    if !fits {
                        return Err(invalid());
                    }
                    Some(Value::String(text.to_string()))
                }
            }
            FieldKind::Number {
                integer,
                minimum,
                maximum,
                ..
            } => {
                let number = match value {
                    Value::Number(n) => n.as_f64(),
                    _ if text.is_empty() => None,
                    _ => Some(text.parse::<f64>().map_err(|_| invalid())?),
                };
                match number {
                    None => None,
                    Some(n) => {
                        let fits = n.is_finite()
                            && (!integer || n.fract() == 0.0)
                            && minimum.is_none_or(|min| n >= min)
                            && maximum.is_none_or(|max| n <= max);
                        if !fits {
                            return Err(invalid());
                        }
                        Some(if *integer { json!(n as i64) } else { json!(n) })
                    }
                }
            }
            // A yes/no always has an answer: unticked is no.
            FieldKind::Boolean { .. } => Some(Value::Bool(value.as_bool().unwrap_or(false))),
            FieldKind::Choice { options, .. } => {
                if text.is_empty() {
                    None
                } else if options.iter().any(|o| o.value == text) {
                    Some(Value::String(text.to_string()))
                } else {
                    return Err(invalid());
                }
            }
            FieldKind::Choices {
                options,
                min_items,
                max_items,
                ..
            } => {
                let chosen: Vec<&str> = value
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if chosen.is_empty() && min_items.is_none_or(|m| m == 0) {
                    None
                } else {
                    let known = chosen.iter().all(|c| options.iter().any(|o| o.value == *c));
                    let fits = known
                        && min_items.is_none_or(|min| chosen.len() >= min as usize)
                        && max_items.is_none_or(|max| chosen.len() <= max as usize);
                    if !fits {
                        return Err(invalid());
                    }
                    Some(json!(chosen))
                }
            }
        };
        match checked {
            Some(value) => {
                out.insert(field.name.clone(), value);
            }
            None if field.required => return Err(AnswerError::Required(field.title.clone())),
            None => {}
        }
    }
    Ok(out)
}

/// Whether `text` has the shape of `format` (a light check: the server checks again).
fn formatted(format: TextFormat, text: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let date = |s: &str| {
        let parts: Vec<&str> = s.split('-').collect();
        parts.len() == 3
            && parts[0].len() == 4
            && parts[1].len() == 2
            && parts[2].len() == 2
            && parts.iter().all(|p| digits(p))
    };
    match format {
        TextFormat::Email => text.split_once('@').is_some_and(|(user, host)| {
            !user.is_empty() && host.contains('.') && !text.contains(' ')
        }),
        TextFormat::Uri => text.split_once(':').is_some_and(|(scheme, rest)| {
            !scheme.is_empty() && !rest.is_empty() && !text.contains(' ')
        }),
        TextFormat::Date => date(text),
        TextFormat::DateTime => text
            .split_once(['T', 't'])
            .is_some_and(|(day, time)| date(day) && time.len() >= 5 && time.as_bytes()[2] == b':'),
    }
}

/// `replies` (one per request of `asked`, in order) checked and made into
/// `inputResponses`: `{key: {action, content?}}`. A form's accepted values are checked
/// again here; a page's acceptance carries no content.
pub fn responses(asked: &InputRequired, replies: &[Reply]) -> Result<Value, AnswerError> {
    if replies.len() != asked.requests.len() {
        return Err(AnswerError::Count);
    }
    let mut out = Map::new();
    for (request, reply) in asked.requests.iter().zip(replies) {
        let response = match (reply, &request.ask) {
            (Reply::Accept(values), Ask::Form { fields }) => {
                json!({"action": "accept", "content": check_form(fields, values)?})
            }
            (Reply::Accept(_), Ask::Url { .. }) => json!({"action": "accept"}),
            (Reply::Decline, _) => json!({"action": "decline"}),
            (Reply::Cancel, _) => json!({"action": "cancel"}),
        };
        out.insert(request.key.clone(), response);
    }
    Ok(Value::Object(out))
}

/// Reads `inputResponses` as a browser sent them to the edge: an object of at most
/// [`super::MAX_REQUESTS`] entries, each `{action: accept|decline|cancel, content?}`
/// with a flat object of primitive values (or arrays of text) as content. The server
/// checks the values against its own schema.
pub fn read_responses(value: &Value) -> Result<Map<String, Value>, String> {
    let Some(map) = value.as_object() else {
        return Err("inputResponses must be an object".into());
    };
    if map.is_empty() || map.len() > super::MAX_REQUESTS {
        return Err(format!(
            "inputResponses must hold 1 to {} answers",
            super::MAX_REQUESTS
        ));
    }
    for (key, response) in map {
        if key.is_empty() || key.len() > super::MAX_KEY_BYTES {
            return Err("an answer's key is out of bounds".into());
        }
        let action = response["action"].as_str().unwrap_or_default();
        if !matches!(action, "accept" | "decline" | "cancel") {
            return Err("an answer's action must be accept, decline or cancel".into());
        }
        let extra = response
            .as_object()
            .is_some_and(|o| o.keys().any(|k| k != "action" && k != "content"));
        if extra {
            return Err("an answer has fields other than action and content".into());
        }
        match response.get("content") {
            None | Some(Value::Null) => {}
            Some(Value::Object(content)) if action == "accept" => {
                let flat = content.len() <= super::MAX_FIELDS
                    && content.values().all(|v| match v {
                        Value::String(s) => s.chars().count() <= MAX_TEXT_CHARS,
                        Value::Number(_) | Value::Bool(_) => true,
                        Value::Array(items) => {
                            items.len() <= super::MAX_OPTIONS
                                && items
                                    .iter()
                                    .all(|i| i.as_str().is_some_and(|s| s.len() <= 1_000))
                        }
                        _ => false,
                    });
                if !flat {
                    return Err("an answer's content is not a flat form".into());
                }
            }
            Some(_) => return Err("only an accepted answer carries content".into()),
        }
    }
    Ok(map.clone())
}
