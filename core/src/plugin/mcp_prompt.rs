//! An MCP server's prompts, as the composer's `/` menu offers them: `prompts/list` read
//! into bounded [`McpPrompt`]s (what the server says is data, cut to size, never a rule),
//! the arguments the user gives checked ([`arguments_to_send`]), and a `prompts/get`
//! result turned into the composer's text ([`prompt_text`]): its messages' text and
//! text resources, in order; images, audio and binary resources are counted and left
//! out (the composer takes text), and the whole is cut at [`MAX_PROMPT_CHARS`], saying
//! so.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// The most prompts read from one server.
pub const MAX_PROMPTS: usize = 100;
/// The most arguments read of one prompt.
pub const MAX_ARGUMENTS: usize = 20;
/// The most characters of a prompt's or an argument's name.
pub const MAX_NAME_CHARS: usize = 128;
/// The most characters kept of a title or description.
pub const MAX_DESCRIPTION_CHARS: usize = 500;
/// The most characters of one argument's value.
pub const MAX_ARGUMENT_CHARS: usize = 10_000;
/// The most characters of a prompt's text in the composer.
pub const MAX_PROMPT_CHARS: usize = 100_000;

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PromptArgument {
    /// Its name (the key the server reads).
    pub name: String,
    /// What the server says it is (bounded; shown as text).
    pub description: String,
    /// Whether the server needs it.
    pub required: bool,
}

/// One prompt of a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpPrompt {
    /// Its name (what `prompts/get` asks for).
    pub name: String,
    /// Its title, else its name.
    pub title: String,
    /// What the server says it does (bounded; shown as text).
    pub description: String,
    /// Its arguments, in the server's order.
    pub arguments: Vec<PromptArgument>,
}

/// `text` cut to `max` characters.
fn bounded(text: &str, max: usize) -> String {
    text.trim().chars().take(max).collect()
}

/// Whether `name` can be asked for: 1 to [`MAX_NAME_CHARS`] characters, none a control.
fn is_usable_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && !name.chars().any(char::is_control)
}

/// The prompts of a `prompts/list` result (`{"prompts": [...]}`): those with a usable
/// name, each once, at most [`MAX_PROMPTS`]; arguments likewise, at most
/// [`MAX_ARGUMENTS`].
pub fn read_prompt_list(result: &Value) -> Vec<McpPrompt> {
    let mut seen = std::collections::HashSet::new();
    result["prompts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|prompt| {
            let name = prompt["name"].as_str().filter(|n| is_usable_name(n))?;
            if !seen.insert(name.to_string()) {
                return None;
            }
            let title = prompt["title"]
                .as_str()
                .map(|t| bounded(t, MAX_DESCRIPTION_CHARS))
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| name.to_string());
            let mut names = std::collections::HashSet::new();
            let arguments = prompt["arguments"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|argument| {
                    let name = argument["name"].as_str().filter(|n| is_usable_name(n))?;
                    names.insert(name.to_string()).then(|| PromptArgument {
                        name: name.to_string(),
                        description: bounded(
                            argument["description"].as_str().unwrap_or_default(),
                            MAX_DESCRIPTION_CHARS,
                        ),
                        required: argument["required"].as_bool().unwrap_or(false),
                    })
                })
                .take(MAX_ARGUMENTS)
                .collect();
            Some(McpPrompt {
                name: name.to_string(),
                title,
                description: bounded(
                    prompt["description"].as_str().unwrap_or_default(),
                    MAX_DESCRIPTION_CHARS,
                ),
                arguments,
            })
        })
        .take(MAX_PROMPTS)
        .collect()
}

/// Why an argument's value cannot be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ArgumentProblem {
    /// The server needs it and it is empty.
    Missing,
    /// Over [`MAX_ARGUMENT_CHARS`].
    TooLong,
}

/// The arguments to send (`values` in the prompt's order, trimmed; empty optional ones
/// left out), or each value that cannot be sent, by index.
pub fn arguments_to_send(
    prompt: &McpPrompt,
    values: &[String],
) -> Result<BTreeMap<String, String>, Vec<(usize, ArgumentProblem)>> {
    let mut problems = Vec::new();
    let mut args = BTreeMap::new();
    for (index, argument) in prompt.arguments.iter().enumerate() {
        let value = values.get(index).map_or("", |v| v.trim());
        if value.is_empty() {
            if argument.required {
                problems.push((index, ArgumentProblem::Missing));
            }
        } else if value.chars().count() > MAX_ARGUMENT_CHARS {
            problems.push((index, ArgumentProblem::TooLong));
        } else {
            args.insert(argument.name.clone(), value.to_string());
        }
    }
    if problems.is_empty() {
        Ok(args)
    } else {
        Err(problems)
    }
}

/// A prompt's messages as the composer's text.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct PromptText {
    /// The text: each message's text in order, blank lines between.
    pub text: String,
    /// How many pieces were not text (images, audio, binary resources) and are not in it.
    pub left_out: usize,
    /// Whether the text was cut at [`MAX_PROMPT_CHARS`].
    pub cut: bool,
}

/// Why a `prompts/get` result gives no text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
pub enum PromptTextError {
    /// Not a `prompts/get` result (no `messages` list).
    #[error("not a prompt")]
    Malformed,
    /// Messages, but no text in any of them.
    #[error("the prompt has no text")]
    NoText,
}

/// The text of one content block, or `None` when it is not text.
fn text_of(content: &Value) -> Option<&str> {
    match content["type"].as_str()? {
        "text" => content["text"].as_str(),
        "resource" => content["resource"]["text"].as_str(),
        _ => None,
    }
}

/// The composer's text of a `prompts/get` result.
pub fn prompt_text(result: &Value) -> Result<PromptText, PromptTextError> {
    let messages = result["messages"]
        .as_array()
        .ok_or(PromptTextError::Malformed)?;
    let mut pieces: Vec<&str> = Vec::new();
    let mut left_out = 0;
    for message in messages {
        // A message's content is one block (the spec) or, from some servers, a list.
        let blocks: Vec<&Value> = match &message["content"] {
            Value::Array(blocks) => blocks.iter().collect(),
            Value::Null => Vec::new(),
            block => vec![block],
        };
        for block in blocks {
            match text_of(block).map(str::trim) {
                Some("") => {}
                Some(text) => pieces.push(text),
                None => left_out += 1,
            }
        }
    }
    if pieces.is_empty() {
        return Err(PromptTextError::NoText);
    }
    let whole = pieces.join("\n\n");
    let cut = whole.chars().count() > MAX_PROMPT_CHARS;
    let text = if cut {
        whole.chars().take(MAX_PROMPT_CHARS).collect()
    } else {
        whole
    };
    Ok(PromptText {
        text,
        left_out,
        cut,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn everything_list() -> Value {
        json!({"prompts": [
            {"name": "simple-prompt", "title": "Simple Prompt", "description": "A prompt with no arguments"},
            {"name": "args-prompt", "title": "Arguments Prompt", "arguments": [
                {"name": "city", "description": "Name of the city", "required": true},
                {"name": "state", "description": "Name of the state"}
            ]},
            {"name": "args-prompt", "title": "A second with the same name"},
            {"name": "", "title": "No name"},
            {"name": "bell\u{7}", "title": "A control character"},
            {"title": "No name at all"},
            {"name": "untitled", "arguments": [{"name": "x"}, {"name": "x"}, {"description": "no name"}]}
        ]})
    }

    #[test]
    fn a_list_keeps_usable_prompts_once_with_their_arguments() {
        let prompts = read_prompt_list(&everything_list());
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["simple-prompt", "args-prompt", "untitled"]);
        assert_eq!(prompts[0].title, "Simple Prompt");
        assert_eq!(
            prompts[2].title, "untitled",
            "the name stands in for a title"
        );
        assert_eq!(
            prompts[1].arguments,
            vec![
                PromptArgument {
                    name: "city".into(),
                    description: "Name of the city".into(),
                    required: true
                },
                PromptArgument {
                    name: "state".into(),
                    description: "Name of the state".into(),
                    required: false
                },
            ]
        );
        assert_eq!(prompts[2].arguments.len(), 1, "a repeated argument is one");
        assert!(read_prompt_list(&json!({"nothing": 1})).is_empty());
        assert!(read_prompt_list(&json!("not even an object")).is_empty());
    }

    #[test]
    fn what_a_server_says_is_bounded() {
        let long = "d".repeat(MAX_DESCRIPTION_CHARS * 3);
        let many: Vec<Value> = (0..MAX_PROMPTS + 20)
            .map(|i| json!({"name": format!("p{i}"), "description": long,
                "arguments": (0..MAX_ARGUMENTS + 5).map(|a| json!({"name": format!("a{a}")})).collect::<Vec<_>>()}))
            .collect();
        let prompts = read_prompt_list(&json!({ "prompts": many }));
        assert_eq!(prompts.len(), MAX_PROMPTS);
        assert_eq!(
            prompts[0].description.chars().count(),
            MAX_DESCRIPTION_CHARS
        );
        assert_eq!(prompts[0].arguments.len(), MAX_ARGUMENTS);
        let named =
            read_prompt_list(&json!({"prompts": [{"name": "n".repeat(MAX_NAME_CHARS + 1)}]}));
        assert!(named.is_empty());
    }

    #[test]
    fn required_arguments_must_be_given_and_empty_optional_ones_are_not_sent() {
        let prompt = &read_prompt_list(&everything_list())[1];
        let values = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            arguments_to_send(prompt, &values(&[" ", "Texas"])),
            Err(vec![(0, ArgumentProblem::Missing)])
        );
        assert_eq!(
            arguments_to_send(prompt, &values(&[])),
            Err(vec![(0, ArgumentProblem::Missing)])
        );
        let sent = arguments_to_send(prompt, &values(&[" Paris ", ""])).unwrap();
        assert_eq!(
            sent,
            BTreeMap::from([("city".to_string(), "Paris".to_string())])
        );
        let sent = arguments_to_send(prompt, &values(&["Paris", "Texas"])).unwrap();
        assert_eq!(sent.len(), 2);
        let long = "x".repeat(MAX_ARGUMENT_CHARS + 1);
        assert_eq!(
            arguments_to_send(prompt, &values(&["Paris", &long])),
            Err(vec![(1, ArgumentProblem::TooLong)])
        );
    }

    #[test]
    fn a_prompts_text_is_its_messages_text_and_text_resources_in_order() {
        let got = json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "This prompt includes the text resource with id: 1."}},
            {"role": "user", "content": {"type": "resource", "resource":
                {"uri": "demo://resource/static/document/1", "mimeType": "text/plain", "text": "Resource 1: plain text"}}},
            {"role": "user", "content": {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}},
            {"role": "assistant", "content": [{"type": "text", "text": "  Noted.  "}, {"type": "audio", "data": "AA=="}]},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "demo://blob", "blob": "AAAA"}}}
        ]});
        let text = prompt_text(&got).unwrap();
        assert_eq!(
            text.text,
            "This prompt includes the text resource with id: 1.\n\nResource 1: plain text\n\nNoted."
        );
        assert_eq!(text.left_out, 3);
        assert!(!text.cut);
    }

    #[test]
    fn a_prompt_without_text_or_messages_is_a_typed_error_and_a_long_one_is_cut() {
        assert_eq!(prompt_text(&json!({})), Err(PromptTextError::Malformed));
        assert_eq!(
            prompt_text(
                &json!({"messages": [{"role": "user", "content": {"type": "image", "data": ""}}]})
            ),
            Err(PromptTextError::NoText)
        );
        assert_eq!(
            prompt_text(&json!({"messages": []})),
            Err(PromptTextError::NoText)
        );
        let long = "z".repeat(MAX_PROMPT_CHARS + 10);
        let text = prompt_text(
            &json!({"messages": [{"role": "user", "content": {"type": "text", "text": long}}]}),
        )
        .unwrap();
        assert!(text.cut);
        assert_eq!(text.text.chars().count(), MAX_PROMPT_CHARS);
    }
}
